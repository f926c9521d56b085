"""A table played in this process, for benchmarks of the server's step path: ``Live`` with four
seated people, each with one connected socket, and no database (commits succeed at once).

Used by ``server_load.py --in-process`` (the CPU of an action) and ``ws_deflate_cost.py`` (the
messages each seat receives). ``updown`` is imported when a table is made, from whatever this
process's path holds (``server_load.py`` compares trees by ``PYTHONPATH``)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any


class _Store:
    async def commit_async(self, table_id: str, rows: Any, finish: Any, actor: Any = None) -> None:
        return None


class _Sock:
    def __init__(self, seat: int, heard: Callable[[int, str], None] | None) -> None:
        self.seat, self.heard = seat, heard

    async def send_text(self, text: str) -> None:
        if self.heard is not None:
            self.heard(self.seat, text)


class _Conn:
    def __init__(self, key: int, heard: Callable[[int, str], None] | None) -> None:
        self.key, self.account_id, self.websocket = key, key + 1, _Sock(key, heard)
        self.send_lock = asyncio.Lock()
        self.last_n: int | None = None
        self.last_table: str | None = None
        self.lang = "en"


async def _notify(_live: Any) -> None:
    return None


def seated_table(game_id: str, table_id: str, seed: str, heard: Callable[[int, str], None] | None = None) -> Any:
    """A running four-player table of ``game_id`` whose seats are people, each connected once;
    ``heard(seat, text)`` is told every message a seat's socket is sent. The caller awaits its
    ``broadcast()`` for the first frames, then plays it with ``chance_steps`` and ``submit``."""
    from updown.server.live import Live
    from updown.server.models import Seat, Table

    row = Table(id=table_id, game=game_id, players=4, options="{}", seed=seed, timer=None, grace=60.0,
                rated=False, private=False, status="running", created_at=time.time())
    seats = [Seat(table_id=row.id, seat=i, kind="person", account_id=i + 1, name=f"p{i}", left=False, away=False)
             for i in range(4)]
    live = Live(row, seats, _Store(), bot_delay=0.0, notify=_notify)  # type: ignore[arg-type]
    for info in live.seats:
        info.connections = 1
    live.conns.update(_Conn(i, heard) for i in range(4))
    return live
