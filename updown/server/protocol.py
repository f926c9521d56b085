"""uvicorn's HTTP protocol for this server, without the reference cycle each WebSocket left.

uvicorn's httptools protocol (``HttpToolsProtocol``) and its parser refer to each other: the parser
holds the protocol's bound methods as its callbacks, the protocol holds the parser. uvicorn breaks the
cycle when an HTTP connection is lost (``connection_lost`` drops the parser), but a connection that
becomes a WebSocket is handed to the WebSocket protocol first, and the HTTP protocol it leaves behind
is never told: it stays, with its parser, transport, flow control and headers (about 29 objects),
until a cyclic collection frees it. Every table and lobby socket left one (measured by
``tests/test_gc_cycles.py``; docs/server.md, "What a closed socket leaves to the collector").
:class:`HttpProtocol` drops the parser as soon as the connection is handed over, so reference
counting frees it all. ``updown serve`` passes it to uvicorn as ``http=``.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol that lets go of its parser once its connection became a
    WebSocket (module docstring)."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # The transport now feeds the WebSocket protocol; this one sees no more data.
        self.parser = None  # type: ignore[assignment]
