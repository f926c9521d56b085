"""An idle table costs the hub's clock and re-read nothing between the times they must look at it
(issue 35), and is still looked at when they must.

The clock looks only at the tables that changed (a step, a seat, a connection, the driver's end:
``Live.stir``) and at those whose time came (a move timer, a grace: ``Live.wake``); the re-read of
the held tables asks the database for them all only when an admin action was recorded since it
last did. These tests run a hub in this process on a database of its own, without its loops, and
turn its clock by hand at chosen times, with the clock's net (a few tables a turn whatever their
wake-up) off: a table the wake-ups forgot would not be looked at at all. Deterministic: no test
waits for a time to pass.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import updown.server.hub as hub_module
from updown.server import admin
from updown.server.hub import Hub
from updown.server.live import Live
from updown.server.store import Store

from hub_util import run_hub, updown_table
from test_server import db_urls, fresh_pg_db


@pytest.fixture(params=db_urls())
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'updown.db'}"
    return fresh_pg_db()  # a database of its own on the test cluster


def _table(store: Store, table_id: str, *, timer: float | None, grace: float) -> None:
    """A running UP&DOWN table of two people (ann at seat 0) and two bots, nobody connected."""
    updown_table(store, table_id, timer=timer, grace=grace)


async def _owned(hub: Hub, table_id: str) -> Live:
    """The table loaded and driven here, its driver run until it waits for a person."""
    await hub._own(table_id)
    live = hub.lives[table_id]
    for _ in range(2000):
        if live.driver is None or live.driver.done():
            break
        await asyncio.sleep(0.01)
    assert live.driver is not None and live.driver.done(), "the driving loop did not come to a person's turn"
    assert not live.due() and live.state.actors(), "a person is to act"
    return live


def _visits(hub: Hub) -> list[str]:
    """The tables the clock looks at, in order, from now on."""
    seen: list[str] = []
    look: Callable[[Live, float], Awaitable[tuple[float, bool]]] = hub._clock_table

    async def counted(live: Live, now: float) -> tuple[float, bool]:
        seen.append(live.id)
        return await look(live, now)

    hub._clock_table = counted  # type: ignore[method-assign]
    return seen


def _run(db: str, body: Callable[[Hub, Store], Awaitable[None]]) -> None:
    run_hub(db, body)  # the clock's net off: the wake-ups alone



def test_an_idle_tables_move_time_running_out_marks_its_person_away(db: str) -> None:
    """Nobody looks at an idle table until its person's move time runs out; then they are marked
    away (stored), and a stand-in plays for them. A second idle table, without a timer, is never
    looked at again after its first look (its people are connected)."""
    async def body(hub: Hub, store: Store) -> None:
        _table(store, "timed", timer=5.0, grace=3600.0)
        _table(store, "untimed", timer=None, grace=3600.0)
        timed = await _owned(hub, "timed")
        untimed = await _owned(hub, "untimed")
        for seat in (0, 1):  # its people are connected: no grace runs
            await hub.connected(untimed, seat, +1)
        seat = next(iter(timed.turn_since))
        since = timed.turn_since[seat]
        seen = _visits(hub)
        await hub._clock_turn(since + 1)  # both were stirred (owned, stepped): each looked at once
        assert sorted(seen) == ["timed", "untimed"]
        assert timed.wake == since + 5.0
        assert hub.lives["untimed"].wake == math.inf
        seen.clear()
        for at in (since + 2, since + 3, since + 4.9):
            await hub._clock_turn(at)
        assert seen == [], "an idle table was looked at before its time"
        assert not timed.seats[seat].away
        await hub._clock_turn(since + 5.01)
        assert seen == ["timed"]
        assert timed.seats[seat].away
        found = store.table("timed")
        assert found is not None and found[1][seat].away, "the away is stored"
        assert hub.lives["untimed"].wake == math.inf

    _run(db, body)


def test_an_absent_persons_grace_running_out_on_an_idle_table_is_leaving(db: str) -> None:
    """No connection, no timer: the clock looks at the table when the grace runs out, and the
    person has left (stored, as a Leave). A person who connects meanwhile is present: the table
    is not looked at until that connection closes, and then the grace counts from its close."""
    async def body(hub: Hub, store: Store) -> None:
        _table(store, "t1", timer=None, grace=30.0)
        live = await _owned(hub, "t1")
        start = live.owned_since
        seen = _visits(hub)
        await hub._clock_turn(start + 1)
        assert seen == ["t1"] and live.wake == start + 30.0  # both people absent since the start
        await hub.connected(live, 1, +1)  # bob connects: still ann's grace
        await hub._clock_turn(start + 2)
        assert live.wake == start + 30.0
        seen.clear()
        await hub._clock_turn(start + 29.9)
        assert seen == []
        await hub._clock_turn(start + 30.1)
        assert seen == ["t1"]
        assert live.seats[0].left and not live.seats[1].left
        found = store.table("t1")
        assert found is not None and found[1][0].left and not found[1][1].left
        # bob is present: nothing to wait for until his connection closes
        await hub._clock_turn(start + 31)
        assert live.wake == math.inf
        seen.clear()
        await hub._clock_turn(start + 10_000)
        assert seen == []
        await hub.connected(live, 1, -1)
        closed = live.seats[1].seen_at
        assert closed is not None
        await hub._clock_turn(closed + 1)
        assert seen == ["t1"] and live.wake == closed + 30.0

    _run(db, body)


def test_an_admins_change_to_an_idle_table_is_taken_and_nothing_else_reads_every_table(
        db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The re-read reads every held table only after an admin action was recorded (or a change it
    found is still to take): seats handed to bots are taken within two re-reads, a closed table is
    stopped at the first. Between them each re-read asks only whether an admin acted."""
    monkeypatch.setattr(hub_module, "WHOLE_REREAD", 1e9)  # (the net's whole re-read: not in this test)

    async def body(hub: Hub, store: Store) -> None:
        _table(store, "t1", timer=None, grace=3600.0)
        _table(store, "t2", timer=None, grace=3600.0)
        live = await _owned(hub, "t1")
        other = await _owned(hub, "t2")
        whole: list[list[str]] = []
        read = store.reread

        def counted(table_ids: Any, account_ids: Any, unheld: bool) -> Any:
            whole.append(sorted(table_ids))
            return read(table_ids, account_ids, unheld)

        store.reread = counted  # type: ignore[method-assign]
        await hub._reread()
        assert whole == [["t1", "t2"]]  # the first one reads them all
        for _ in range(3):
            await hub._reread()
        assert len(whole) == 1, "a re-read read every table with no admin action"
        admin.hand_to_bots(store.engine, "t1", [0], "test", None)
        await hub._reread()  # seen ...
        assert len(whole) == 2
        await hub._reread()  # ... and taken once it lasted one re-read
        assert len(whole) == 3
        assert live.seats[0].left and not live.seats[1].left
        assert live.due() or (live.driver is not None and not live.driver.done()), "the stand-in plays"
        await hub._reread()  # settled: whole once more to see it so, then not
        await hub._reread()
        count = len(whole)
        await hub._reread()
        assert len(whole) == count
        admin.close_table(store.engine, "t2", "test", "closed in a test")
        await hub._reread()
        assert other.status == admin.CLOSED and not other.owned
        assert live.status == "running"

    _run(db, body)


def test_a_driving_loop_that_waits_for_ever_with_a_bot_due_is_restarted_after_the_stall_and_logged(
        db: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A table of bots whose loop waits on something that never comes (here its first bot's
    decision) is left alone until it has applied nothing for STALL seconds, then stopped and
    started again, with a log line that says where it waited; the table then plays to its end,
    each step stored once. The clock's net (every SWEEP seconds) is what looks at it."""
    decide = Live._decide
    stuck = asyncio.Event()

    async def first_never_returns(self: Live, *args: Any) -> int:
        if not stuck.is_set():
            stuck.set()
            await asyncio.Event().wait()  # never set
        return await decide(self, *args)

    monkeypatch.setattr(Live, "_decide", first_never_returns)

    async def body(hub: Hub, store: Store) -> None:
        hub.sweep = hub_module.SWEEP  # the net on (the wake-ups alone never look at a running loop)
        updown_table(store, "bots", people=0)
        await hub._own("bots")
        live = hub.lives["bots"]
        await asyncio.wait_for(stuck.wait(), 30)
        old, stepped = live.driver, len(live.steps)
        assert old is not None and not old.done() and live.due()
        at = live.progress_at
        for now in (at + 1, at + hub_module.STALL / 2, at + hub_module.STALL - 1):
            for _ in range(int(hub_module.SWEEP / hub_module.CLOCK) + 1):  # a whole round of the net
                await hub._clock_turn(now)
            assert live.driver is old and not old.done(), "a loop was stopped before its stall"
        assert "stored nothing" not in caplog.text
        for _ in range(int(hub_module.SWEEP / hub_module.CLOCK) + 1):
            await hub._clock_turn(at + hub_module.STALL + 1)
        for _ in range(100):
            if old.done():
                break
            await asyncio.sleep(0)
        assert old.cancelled()
        told = [r.getMessage() for r in caplog.records if "stored nothing for" in r.getMessage()]
        assert len(told) == 1 and "first_never_returns" in told[0], told  # once, and where it waited
        for _ in range(3000):
            if live.status == "finished":
                break
            await asyncio.sleep(0.01)
        assert live.status == "finished" and len(live.steps) > stepped
        assert [r.n for r in store.steps("bots")] == list(range(1, len(live.steps) + 1))

    _run(db, body)
