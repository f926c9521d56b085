"""The heartbeat is spread over its cycle and still stores every connected seat in time (issue 35).

Every BEAT_STEP seconds the heartbeat stores the connected seats of the tables whose point in the
HEARTBEAT-second cycle came since its last write (``Hub._heartbeat``), instead of every connected
seat at once every HEARTBEAT seconds. These tests run hubs in this process on a database of their
own, without their loops, and turn the heartbeat and the clock by hand at chosen times: every
connected seat is stored within HEARTBEAT, no write stores more than its share, nothing else is stored,
a failed write is made up at the next turn, and a process that drives a table does not take a seat
connected only on another process for absent (nor one whose process stopped for present).
"""

from __future__ import annotations

import asyncio
import math
import time
from pathlib import Path
from typing import Any

import pytest

from updown.server.db import make_engine
from updown.server.hub import BEAT_STEP, CLOCK, HEARTBEAT, Hub, beat_phase
from updown.server.store import Store

from hub_util import run_hubs, store_for, updown_table
from test_server import db_urls, fresh_pg_db


@pytest.fixture(params=db_urls())
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'updown.db'}"
    return fresh_pg_db()


def _table(store: Store, table_id: str, *, grace: float = 3600.0, status: str = "running") -> None:
    """An UP&DOWN table of two people (seats 0 and 1) and two bots."""
    updown_table(store, table_id, grace=grace, status=status)


def _stored(store: Store, table_id: str) -> list[float | None]:
    found = store.table(table_id)
    assert found is not None
    return [s.seen_at for s in found[1]]


def _record_writes(hub: Hub) -> list[tuple[float, list[tuple[str, int]]]]:
    """Every heartbeat write of this hub's store, as (at, pairs)."""
    writes: list[tuple[float, list[tuple[str, int]]]] = []
    write = hub.store.seen_many

    def recorded(seats: Any, at: float) -> None:
        writes.append((at, list(seats)))
        write(seats, at)

    hub.store.seen_many = recorded  # type: ignore[method-assign]
    return writes


def test_every_connected_seat_is_stored_within_the_heartbeat_and_the_writes_are_spread(db: str) -> None:
    """40 tables, one or two connected people each: after the first write (everything, the
    cycle's start) each write (every BEAT_STEP) stores only the tables whose point came, each
    connected seat once a cycle, and at every clock turn every connected seat's stored time is
    within HEARTBEAT of now. Bots, people without a connection and finished tables are never
    stored."""
    store = store_for(db)
    hub = Hub(store, bot_delay=0)
    ids = [f"t{i:02d}" for i in range(40)]

    async def body() -> None:
        for t in ids:
            _table(store, t, status="finished" if t == "t39" else "running")
        lives = {t: await hub.live(t) for t in ids}
        connected: set[tuple[str, int]] = set()
        for n, t in enumerate(ids):
            live = lives[t]
            assert live is not None
            for seat in ((0, 1) if n % 3 == 0 else (0,)):
                await hub.connected(live, seat, +1)
                connected.add((t, seat))
        writes = _record_writes(hub)
        start = math.floor(time.time() / HEARTBEAT) * HEARTBEAT + 1000 * HEARTBEAT
        turns = [start + k * CLOCK for k in range(int(3 * HEARTBEAT / CLOCK) + 1)]
        expected = {p for p in connected if p[0] != "t39"}
        last: dict[tuple[str, int], float] = {}
        first: dict[tuple[str, int], float] = {}
        for k, now in enumerate(turns):
            if k == 1:
                first = dict(last)  # the first turn stored everyone: the cycle's points come after it
            await hub._heartbeat(now)
            for at, pairs in writes:
                assert at == now, "a write stored another time than its turn's"
                assert len(pairs) == len(set(pairs))
                for p in pairs:
                    assert p in expected, f"{p} stored: not a connected person's seat of a table in play"
                    if p in last and (k == 0 or last[p] != first.get(p)):
                        assert now - last[p] > HEARTBEAT - CLOCK, f"{p} stored twice in one cycle"
                    last[p] = now
                if k > 0:
                    assert len(pairs) < len(expected) // 2, f"one write stored {len(pairs)} of {len(expected)} seats"
            writes.clear()
            assert set(last) == expected, "a connected seat was not stored at the first turn"
            late = {p: now - at for p, at in last.items() if now - at > HEARTBEAT}
            assert not late, f"seats not stored within {HEARTBEAT} s: {late}"
        for t in ids:
            stored = _stored(store, t)
            for seat in range(4):
                if (t, seat) in expected:
                    assert stored[seat] == last[(t, seat)]
                    assert lives[t].seats[seat].seen_at == last[(t, seat)]  # type: ignore[union-attr]
                elif seat >= 2:
                    assert stored[seat] is None, f"{t} seat {seat}, a bot's, stored"
                elif t == "t39":  # (the connection's own record, at connecting, not a heartbeat's)
                    assert stored[seat] is None or stored[seat] < start, "a finished table's seat stored"
        # Each table is stored at its own point in the cycle: the first table's seats come due
        # within a turn after its point.
        point = beat_phase("t00")
        assert (last[("t00", 0)] - start) % HEARTBEAT == pytest.approx(
            math.ceil(point / BEAT_STEP) * BEAT_STEP % HEARTBEAT)

    try:
        run_hubs(body, hub)
    finally:
        store.engine.dispose()


def test_a_late_turn_stores_everyone_and_a_failed_write_is_made_up_at_the_next_turn(db: str) -> None:
    """A turn that comes HEARTBEAT or more after the last stores every connected seat; a write that
    fails (the database away) leaves the cycle where it was, so the next turn stores those seats."""
    store = store_for(db)
    hub = Hub(store, bot_delay=0)
    ids = [f"u{i:02d}" for i in range(20)]

    async def body() -> None:
        for t in ids:
            _table(store, t)
            live = await hub.live(t)
            assert live is not None
            await hub.connected(live, 0, +1)
        writes = _record_writes(hub)
        t0 = math.floor(time.time() / HEARTBEAT) * HEARTBEAT + 1000 * HEARTBEAT
        await hub._heartbeat(t0)
        assert {p for _at, ps in writes for p in ps} == {(t, 0) for t in ids}
        writes.clear()
        await hub._heartbeat(t0 + HEARTBEAT + 0.5)  # the clock was held up longer than a cycle
        assert {p for _at, ps in writes for p in ps} == {(t, 0) for t in ids}
        writes.clear()
        now = t0 + HEARTBEAT + 0.5
        write = store.seen_many

        def away(seats: Any, at: float) -> None:
            raise ConnectionError("the database is away")

        store.seen_many = away  # type: ignore[method-assign]
        failed = 0
        for k in range(1, 9):  # two seconds of turns whose writes fail
            try:
                await hub._heartbeat(now + k * CLOCK)
            except ConnectionError:
                failed += 1
        missed = {(t, 0) for t in ids if _due(t, now, now + 8 * CLOCK)}
        assert failed and missed, "no table came due in two seconds"
        store.seen_many = write  # type: ignore[method-assign]
        writes = _record_writes(hub)
        await hub._heartbeat(now + 9 * CLOCK)
        got = {p for _at, ps in writes for p in ps}
        assert missed <= got, f"the seats of a failed write were not stored at the next turn: {missed - got}"
        for t, seat in missed:
            assert _stored(store, t)[seat] == now + 9 * CLOCK

    try:
        run_hubs(body, hub)
    finally:
        store.engine.dispose()


def test_the_tables_due_in_a_stretch_of_the_cycle_are_those_whose_point_is_in_it(db: str) -> None:
    """``Hub._beat_due`` (bisection over the sorted points) against a look at every table, for
    stretches across the cycle's end too; a table loaded after a turn is in the next turns' stretches
    and its connected seat is stored within HEARTBEAT."""
    store = store_for(db)
    hub = Hub(store, bot_delay=0)

    async def body() -> None:
        ids = [f"v{i:02d}" for i in range(60)]
        for t in ids[:50]:
            _table(store, t)
            await hub.live(t)
        stretches = [(0.0, 0.25), (1.3, 2.9), (4.75, 0.0), (4.9, 0.3), (4.0, 1.0), (2.5, 2.5)]
        for a, b in stretches:
            assert sorted(hub._beat_due(a, b)) == sorted(t for t in ids[:50] if _due(t, a, b)), (a, b)
        t0 = math.floor(time.time() / HEARTBEAT) * HEARTBEAT + 1000 * HEARTBEAT
        await hub._heartbeat(t0)
        for t in ids[50:]:  # loaded after the heartbeat's first turn, each with a connected person
            _table(store, t)
            live = await hub.live(t)
            assert live is not None
            await hub.connected(live, 1, +1)
        for a, b in stretches:
            assert sorted(hub._beat_due(a, b)) == sorted(t for t in ids if _due(t, a, b)), (a, b)
        writes = _record_writes(hub)
        for k in range(1, int(HEARTBEAT / CLOCK) + 1):
            await hub._heartbeat(t0 + 0.1 + k * CLOCK)
        assert {p for _at, ps in writes for p in ps} == {(t, 1) for t in ids[50:]}

    try:
        run_hubs(body, hub)
    finally:
        store.engine.dispose()


def _due(table_id: str, a: float, b: float) -> bool:
    """Whether the cycle passed the table's point going from a to b (less than a cycle apart): a look
    at the one table, the rule :meth:`Hub._beat_due` finds by bisection."""
    point = beat_phase(table_id)
    x, y = a % HEARTBEAT, b % HEARTBEAT
    return x < point <= y if x <= y else (point > x or point <= y)


def test_a_seat_connected_only_on_another_process_is_not_taken_for_absent(db: str) -> None:
    """Two processes on one database. A drives the table; ann's only connection is on B. With both
    clocks turning (fake time, a turn every CLOCK seconds), A never takes ann for gone, however long
    it runs, since B's spread heartbeat keeps her stored time fresh; bob, connected nowhere, has left
    when his grace ran out. Once B stops (its heartbeat no longer turns), ann has left within
    3 * HEARTBEAT and the grace."""
    store = store_for(db)
    other = Store(make_engine(db))
    a = Hub(store, bot_delay=0, multi=True)
    b = Hub(other, bot_delay=0, multi=True)
    a.sweep = b.sweep = math.inf
    grace = 8.0

    async def body() -> None:
        _table(store, "m1", grace=grace)
        assert store.claim("m1", a.owner, 3600.0)
        await a._own("m1")
        driven = a.lives["m1"]
        for _ in range(2000):
            if driven.driver is None or driven.driver.done():
                break
            await asyncio.sleep(0.01)
        there = await b.live("m1")
        assert there is not None
        await b.connected(there, 0, +1)
        start = max(time.time(), driven.owned_since)
        now = start
        while now < start + 60:
            now += CLOCK
            await b._heartbeat(now)
            await a._clock_turn(now)
            if now >= start + grace + 2 * CLOCK:
                assert driven.seats[1].left, "bob, connected nowhere, did not leave after his grace"
            assert not driven.seats[0].left, f"ann, connected elsewhere, taken for gone at {now - start:.2f} s"
        found = store.table("m1")
        assert found is not None and not found[1][0].left and found[1][1].left
        stopped = now  # B is gone: nothing stores ann's signs of life any more
        while now < stopped + 3 * HEARTBEAT + grace + 2:
            now += CLOCK
            await a._clock_turn(now)
        assert driven.seats[0].left, "ann, whose process stopped, never left"
        assert _left_at(store, "m1", 0)

    try:
        run_hubs(body, a, b)
    finally:
        store.engine.dispose()
        other.engine.dispose()


def _left_at(store: Store, table_id: str, seat: int) -> bool:
    found = store.table(table_id)
    return found is not None and found[1][seat].left
