"""uvicorn's protocols for this server: HTTP without the reference cycle each WebSocket left, and
WebSockets whose compression leaves small messages alone.

uvicorn's httptools protocol (``HttpToolsProtocol``) and its parser refer to each other: the parser
holds the protocol's bound methods as its callbacks, the protocol holds the parser. uvicorn breaks the
cycle when an HTTP connection is lost (``connection_lost`` drops the parser), but a connection that
becomes a WebSocket is handed to the WebSocket protocol first, and the HTTP protocol it leaves behind
is never told: it stays, with its parser, transport, flow control and headers (about 29 objects),
until a cyclic collection frees it. Every table and lobby socket left one (measured by
``tests/test_gc_cycles.py``; docs/server.md, "What a closed socket leaves to the collector").
:class:`HttpProtocol` drops the parser as soon as the connection is handed over, so reference
counting frees it all. ``updown serve`` passes it to uvicorn as ``http=``.

:class:`WebSocketProtocol` is uvicorn's sans-I/O WebSocket protocol with permessage-deflate
negotiated by :data:`DEFLATE`: the same parameters as uvicorn's, but a message shorter than
:data:`PLAIN_BELOW` bytes is sent uncompressed (docs/server.md, "Compression's cost").
``updown serve`` passes it to uvicorn as ``ws=``; uvicorn takes no options for the extension. It also
closes the connection's parser when the connection is lost: websockets' sans-I/O protocol parses with
a generator that refers to the protocol, and after a close handshake that generator waits for an end
of stream uvicorn never gives it, so each closed socket left the protocol, its extension and zlib's
compressor and decompressor (about 23 KB, measured) in a cycle. Only the generator's finalizer breaks that
cycle, inside a collection that counts none of it as garbage, and a cycle frozen while its socket was
open waits for a renewal (docs/server.md, "A closed socket's parser").
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.typing import ExtensionParameter

_DATA = (Opcode.TEXT, Opcode.BINARY)


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol that lets go of its parser once its connection became a
    WebSocket (module docstring)."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        # The transport now feeds the WebSocket protocol; this one sees no more data.
        self.parser = None  # type: ignore[assignment]


PLAIN_BELOW = 128
"""Messages shorter than this many bytes (as UTF-8) go out uncompressed on a socket that negotiated
permessage-deflate: the acks (about 25 bytes) and short errors, where deflate saves a few bytes for
a whole compression's fixed cost (its block and its flush). RFC 7692 lets a sender choose message by
message (RSV1 clear: not compressed); the compressor's context is untouched, as the peer's is."""


class PlainBelowDeflate(PerMessageDeflate):
    """websockets' permessage-deflate that sends a whole (unfragmented) message shorter than
    ``plain_below`` bytes as it is. A fragmented message is compressed whole, as websockets does:
    its continuation frames must follow its first frame."""

    def __init__(self, remote_no_context_takeover: bool, local_no_context_takeover: bool,
                 remote_max_window_bits: int, local_max_window_bits: int,
                 compress_settings: dict[Any, Any] | None = None, *, plain_below: int = PLAIN_BELOW) -> None:
        super().__init__(remote_no_context_takeover, local_no_context_takeover, remote_max_window_bits,
                         local_max_window_bits, compress_settings)
        self.plain_below = plain_below

    def encode(self, frame: Frame) -> Frame:
        if frame.fin and frame.opcode in _DATA and len(frame.data) < self.plain_below:
            return frame
        return super().encode(frame)


class DeflateFactory(ServerPerMessageDeflateFactory):
    """The server's side of permessage-deflate: negotiated as uvicorn's factory does (``DEFLATE``),
    each connection's extension a :class:`PlainBelowDeflate`."""

    def __init__(self, *, plain_below: int = PLAIN_BELOW, **kw: Any) -> None:
        super().__init__(**kw)
        self.plain_below = plain_below

    def process_request_params(self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
                               ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        answer, ext = super().process_request_params(params, accepted_extensions)
        return answer, PlainBelowDeflate(ext.remote_no_context_takeover, ext.local_no_context_takeover,
                                         ext.remote_max_window_bits, ext.local_max_window_bits,
                                         self.compress_settings, plain_below=self.plain_below)


DEFLATE = DeflateFactory(server_max_window_bits=12, client_max_window_bits=12, compress_settings={"memLevel": 5})
"""The factory every compressing socket negotiates with: uvicorn's settings (a 4 KiB window each way,
zlib's memLevel 5 and default level) and :data:`PLAIN_BELOW`."""


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (its sans-I/O one, over websockets' ``ServerProtocol``) negotiating
    permessage-deflate with :data:`DEFLATE` instead of uvicorn's own factory, when ``ws_deflate`` is on
    (``ws_per_message_deflate``); with it off, no extension, as uvicorn's."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        if config.ws_per_message_deflate:
            self.conn.available_extensions = [DEFLATE]

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            super().connection_lost(exc)
        finally:
            # No more data can come: end the parser (a generator holding ``self.conn``), so that the
            # protocol, its extension and its zlib streams are freed by their reference counts now,
            # not by a full collection (module docstring). A finished parser is not stepped again:
            # websockets steps it only for data or an end of stream, and neither comes after this
            # (uvicorn's send, shutdown and timers all stop at the lost connection first).
            conn = self.conn
            conn.parser.close()
            # An error websockets failed the connection with (a frame over the size limit, a
            # protocol error, a bad upgrade) keeps its traceback, whose frames hold ``conn``: a
            # cycle of its own. Nothing reads them once the connection is lost.
            conn.parser_exc = None
            conn.handshake_exc = None
            request = getattr(self, "request", None)
            if request is not None:
                request._exception = None
