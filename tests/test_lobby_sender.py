"""The lobby's sender task ends when its socket's handler cancels it, even as a send ends.

Python 3.11's ``asyncio.wait_for`` swallows a cancellation that comes while the awaited send is
finishing: the sender then went back to waiting for a wake-up that never came, pending for ever in
a reference cycle ("Task was destroyed but it is pending"; about one lobby socket in five, counted
by ``tests/test_gc_cycles.py``). The sender now sends under ``asyncio.timeout``. Here the
cancellation is made to come exactly as the send ends, so the old code fails every time.
"""

from __future__ import annotations

import asyncio
from typing import Any

from updown.server.routes.lobby import Lobby, LobbySocket


def test_a_cancellation_that_comes_as_a_send_ends_stops_the_sender() -> None:
    async def main() -> None:
        lobby = Lobby.__new__(Lobby)  # only what the sender reads: the list, its version, the sockets
        lobby.version, lobby.frame, lobby.sockets = 1, '{"type": "tables", "version": 1, "tables": []}', set()
        sent: list[str] = []

        class Closing:
            """A socket whose handler ends (the client left) just as this send completes."""

            async def send_text(self, text: str) -> None:
                sent.append(text)
                task.cancel()

            async def close(self, **kw: Any) -> None:
                return None

        conn = LobbySocket(Closing(), "127.0.0.1")  # type: ignore[arg-type]
        lobby.sockets.add(conn)
        conn.wake.set()
        task = asyncio.create_task(lobby.sender(conn))
        done, _ = await asyncio.wait({task}, timeout=10)
        assert sent == [lobby.frame]
        assert task in done and task.cancelled(), "the sender swallowed its cancellation and waits for ever"

    asyncio.run(main())
