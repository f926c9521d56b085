"""A table nobody uses here leaves the hub's memory (issue 35: a host's server runs for weeks).

Before this, every table a process ever loaded stayed in memory: about 230 KiB a finished game
of four rounds (``benchmarks/table_memory.py``), so a server that saw a thousand games an hour
grew by some 5 GB a day. Now :meth:`Hub.unload_idle` drops a table that has no socket here, no
driver working, no clock business here (finished, aborted or stopped by an admin; or, with
several processes, running but driven by another) and was not used for :data:`UNLOAD` seconds.
The next use reads it back from the database, whole: the database is the record.

These tests run a hub in this process on a database of its own, without its loops, and pass the
time to :meth:`Hub.unload_idle` by hand. Deterministic: no test waits for a time to pass.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from updown.server.hub import HEARTBEAT, UNLOAD, Bus, Hub
from updown.server.live import SPECTATOR, Live
from updown.server.store import Store

from hub_util import run_hub, updown_table


async def _driven(hub: Hub, table_id: str) -> Live:
    """The table loaded and driven here until its driver waits (a person's turn, or the end)."""
    await hub._own(table_id)
    live = hub.lives[table_id]
    for _ in range(3000):
        if live.driver is None or live.driver.done():
            return live
        await asyncio.sleep(0.01)
    raise AssertionError("the driving loop did not stop")


class Conn:
    """A socket as the hub sees it: a seat key and nothing sent anywhere."""

    def __init__(self, key: int) -> None:
        self.key = key
        self.account_id = None
        self.session = None

    async def send_text(self, text: str) -> None:
        return None


class Heard(Bus):
    """The bus of one of several processes, recording which tables it stopped hearing."""

    def __init__(self) -> None:
        self.forgotten: list[str] = []

    async def forget(self, table_id: str) -> None:
        self.forgotten.append(table_id)


def _run(tmp_path: Path, body: Callable[[Hub, Store], Awaitable[None]], **kw: Any) -> None:
    run_hub(f"sqlite:///{tmp_path / 'updown.db'}", body, **kw)


def test_a_finished_table_nobody_uses_leaves_memory_and_comes_back_whole(tmp_path: Path) -> None:
    async def body(hub: Hub, store: Store) -> None:
        updown_table(store, "done", people=0)  # four bots: driven to its end here
        live = await _driven(hub, "done")
        assert live.status == "finished"
        public, steps, result = live.public(), [s.n for s in live.steps], live.result
        frame = live.frame(SPECTATOR, None, "en")
        used = live.used_at
        assert await hub.unload_idle(used + UNLOAD - 1) == []  # used too lately
        assert "done" in hub.lives
        assert await hub.unload_idle(used + UNLOAD + 1) == ["done"]
        assert "done" not in hub.lives and live.unloaded
        await hub._clock_turn(used + UNLOAD + 2)  # the clock's queues forget it without a fault
        back = await hub.live("done")  # the next use reads it back from the database
        assert back is not None and back is not live
        assert back.public() == public and [s.n for s in back.steps] == steps and back.result == result
        assert back.frame(SPECTATOR, None, "en") == frame
        assert back.used_at >= used
        await hub.stepped_elsewhere("gone", [])  # a note for a table not held: nothing to do

    _run(tmp_path, body)


def test_what_stays_a_socket_a_driven_game_an_open_table_and_recent_use(tmp_path: Path) -> None:
    async def body(hub: Hub, store: Store) -> None:
        updown_table(store, "watched", people=0)
        watched = await _driven(hub, "watched")  # finished, but a spectator is connected here
        assert watched.status == "finished"
        conn = Conn(SPECTATOR)
        watched.conns.add(conn)
        updown_table(store, "playing", people=1)
        playing = await _driven(hub, "playing")  # running and driven here: its clock is here
        assert playing.status == "running"
        updown_table(store, "waiting", people=1, status="open")
        waiting = await hub.live("waiting")
        assert waiting is not None and waiting.status == "open"
        later = time.time() + 10 * UNLOAD
        assert await hub.unload_idle(later) == []
        assert {"watched", "playing", "waiting"} <= hub.lives.keys()
        watched.conns.discard(conn)
        await hub.connected(watched, SPECTATOR, -1)  # the last socket closed: it counts as a use
        assert await hub.unload_idle(time.time() + UNLOAD / 2) == []
        assert await hub.unload_idle(later) == ["watched"]
        again = await hub.live("watched")  # a use, by a socket or a request: kept for UNLOAD more
        assert again is not None
        assert await hub.unload_idle(again.used_at + UNLOAD / 2) == []
        assert "watched" in hub.lives

    _run(tmp_path, body)


def test_a_table_being_loaded_or_locked_stays(tmp_path: Path) -> None:
    async def body(hub: Hub, store: Store) -> None:
        updown_table(store, "done", people=0)
        live = await _driven(hub, "done")
        later = live.used_at + 2 * UNLOAD
        async with live.lock:  # a step or a catch-up under way
            assert await hub.unload_idle(later) == []
        async with hub.loading.setdefault("done", asyncio.Lock()):  # a load of it under way
            assert await hub.unload_idle(later) == []
        assert await hub.unload_idle(later) == ["done"]

    _run(tmp_path, body)


def test_with_several_processes_a_table_driven_elsewhere_leaves_and_is_no_longer_heard(tmp_path: Path) -> None:
    bus = Heard()

    async def body(hub: Hub, store: Store) -> None:
        updown_table(store, "elsewhere", people=1)
        live = await hub.live("elsewhere")  # another process drives it (no lease here)
        assert live is not None and live.status == "running" and not live.owned
        assert await hub.unload_idle(live.used_at + UNLOAD + 1) == ["elsewhere"]
        assert bus.forgotten == ["elsewhere"]

    _run(tmp_path, body, bus=bus, multi=True)


def test_the_heartbeat_follows_the_tables_held_after_a_drop(tmp_path: Path) -> None:
    """The heartbeat's cycle (which stores the seats connected here as signs of life) is sorted
    again when a table is dropped: a table loaded after a drop, the count of tables unchanged, is
    in it (or its connected people would look absent to the other processes, and lose their seats)."""
    async def body(hub: Hub, store: Store) -> None:
        updown_table(store, "done", people=0)
        live = await _driven(hub, "done")
        updown_table(store, "new", people=1)
        assert set(hub._beat_due(-1.0, HEARTBEAT)) == {"done"}
        assert await hub.unload_idle(live.used_at + UNLOAD + 1) == ["done"]
        assert await hub.live("new") is not None  # one table held, as before the drop
        assert set(hub._beat_due(-1.0, HEARTBEAT)) == {"new"}

    _run(tmp_path, body)


def test_asking_for_tables_that_do_not_exist_keeps_nothing(tmp_path: Path) -> None:
    """A request or socket for an id that is no table leaves nothing behind in the hub (a client
    asking for many made-up ids must not grow the server's memory)."""
    async def body(hub: Hub, store: Store) -> None:
        updown_table(store, "real", people=1, status="open")
        found = await asyncio.gather(*(hub.live(f"made-up-{i}") for i in range(50)), hub.live("real"))
        assert found[:-1] == [None] * 50 and found[-1] is not None
        assert set(hub.loading) <= {"real"} and set(hub.lives) == {"real"}

    _run(tmp_path, body)
