"""A socket that leaves its game gets its answer, whatever reads the seats meanwhile.

Leaving is final, so the leaving seat's sockets are closed (code 4001; they may come back to
watch). The socket that asked is answered first ("ack", or the error), then closed by its caller.
A CI run once found that socket closed with no answer: the player's Leave by the socket and a
second Leave by HTTP (two tabs) raced, and the HTTP request's re-read of the seats (every request
on a table re-reads them) came after the socket's leave was committed but before the hub had taken
that socket off the table's sockets, so the re-read closed it as a socket whose seat is no longer
its account's. The hub now takes the asking socket off before the write.

The race is made here by hand, on a hub in this process: the database write is held until the
re-read has run. Deterministic: nothing waits for a time to pass.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

from updown.server.hub import Hub
from updown.server.store import Store

from hub_util import run_hub, updown_table


class Conn:
    """A socket of a seat as the hub sees it, recording whether the hub closed it."""

    def __init__(self, key: int, account_id: int) -> None:
        self.key = key
        self.account_id = account_id
        self.session = None
        self.closed_with: int | None = None

    async def send_text(self, text: str) -> None:
        return None

    async def close(self, code: int, reason: str = "") -> None:
        self.closed_with = code


def test_a_reread_of_the_seats_during_a_leave_does_not_close_the_socket_that_asked(tmp_path: Path) -> None:
    async def body(hub: Hub, store: Store) -> None:
        updown_table(store, "t1")
        live = await hub.live("t1")
        assert live is not None
        ann = live.seats[0].account_id
        assert ann is not None
        asking, other_tab = Conn(0, ann), Conn(0, ann)
        live.conns.update({asking, other_tab})

        written, release = threading.Event(), threading.Event()
        mark_left = store.mark_left

        def held(table_id: str, seat: int) -> Any:
            done = mark_left(table_id, seat)  # committed: another request now reads the seat as left
            written.set()
            assert release.wait(10), "the test did not release the write"
            return done

        store.mark_left = held  # type: ignore[method-assign]
        leaving = asyncio.create_task(hub.leave(live, 0, by=asking))
        assert await asyncio.to_thread(written.wait, 10)
        await hub.refresh(live)  # what every HTTP request on the table does first
        release.set()
        await leaving
        await asyncio.sleep(0)  # let any close the hub started run

        assert live.seats[0].left
        assert asking.closed_with is None and not getattr(asking, "closing", False)  # its caller answers it
        assert asking not in live.conns  # and it gets no more frames
        assert other_tab.closed_with == 4001 and other_tab not in live.conns  # the seat's other socket is closed

    run_hub(f"sqlite:///{tmp_path / 'leave.db'}", body)
