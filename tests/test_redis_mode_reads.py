"""The driving loop's read before it looks for work, on Redis (issue 35).

With several processes the driving loop used to read a table's steps each time something but a
step of its own process woke it (a seat change here, the clock's watchdog, a catch-up that had
just read them). While the table's notes are heard here (Redis confirmed its channel on the
listener's live subscription) that read is skipped: a step stored elsewhere is then applied here
already or in a note on its way, and a step on its way makes the loop's own commit a conflict
(the step number is unique), after which the table catches up and judges the action again. These
tests store steps "elsewhere" that this process has not heard of and check that the outcome is
the stored game's: the loop that skipped its read conflicts, catches up and stores nothing on the
stale position; a loop whose table is not heard reads first; a table taken over (its last driver
may have died between a commit and its note) is read first even when heard, so a bot's turn that
only the database knows of is played. Ordered by events (a note waited for by a later one on the
same channel), not by sleeps; timeouts only bound a failure.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from test_redis_table_channels import REDIS, Made, Watched, after_everything_said, needs_redis, other_bus

from updown.server.db import make_engine
from updown.server.hub import RedisBus
from updown.server.live import Live
from updown.server.store import Actor, Finish, Posting, StepRow, Store


class Logged(Store):
    """This process's store, noting each read of a table's steps and each commit, in order."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.events: list[str] = []

    def steps(self, table_id: str, after: int = 0) -> list[StepRow]:
        self.events.append("steps")
        return super().steps(table_id, after)

    async def commit_async(self, table_id: str, rows: Any, finish: Finish | Posting | None,
                           actor: Actor | None = None) -> None:
        self.events.append("commit")
        await super().commit_async(table_id, rows, finish, actor)


def _bot_next(made: Made) -> tuple[int, int]:
    """Make the first seat to act after the seat to act now (another seat) a bot, in the database
    (before this process loads the table, so that its copy has it too). Its number, and how many
    steps :meth:`Made.store_next` stores before its turn (the same seat may act more than once)."""
    import random

    while True:
        state = made.game.new_state(4, made.options)
        rows = made.stored()
        for row in rows:
            state.apply(made.game.parse_action(row.notation), row.seat)
        if not state.is_chance():
            break
        # The deal: the app that started the table may have stopped before its hub stored it (a
        # loaded machine, in a CI run); the other process stores it, as it stores every step here.
        made.store_next()
    first = state.actors()[0]
    n, steps = len(rows), 0
    while state.is_chance() or state.actors()[0] == first:  # as store_next plays them
        if state.is_chance():
            state.apply(state.sample_chance(random.Random(n)))
        else:
            seat = state.actors()[0]
            state.apply(state.legal_actions(seat)[0], seat)
        n, steps = n + 1, steps + 1
        assert steps < 60 and not state.is_terminal()
    bot = state.actors()[0]
    made.elsewhere.set_seat(made.table, bot, kind="bot", bot="random", account_id=None)
    return bot, steps


def _store_bot_step(made: Made, seat: int) -> StepRow:
    """The other process, driving the table, stores the bot's step."""
    rows = made.stored()
    state = made.game.new_state(4, made.options)
    for row in rows:
        state.apply(made.game.parse_action(row.notation), row.seat)
    assert seat in state.actors()
    row = StepRow(len(rows) + 1, seat, None, made.game.action_to_str(state.legal_actions(seat)[0]), None, "bot",
                  time.time())
    made.elsewhere.commit(made.table, [row], None, None)
    return made.stored()[-1]


async def _driven(live: Live) -> None:
    assert live.driver is not None, "no driving loop was started"
    await asyncio.wait_for(live.driver, 30)


def _same(live: Live, made: Made) -> None:
    stored = made.stored()
    assert [(r.n, r.seat, r.notation, r.by) for r in live.steps] == [(r.n, r.seat, r.notation, r.by) for r in stored]


async def _behind_on_a_bot_turn(made: Made, hub: Watched, bus: RedisBus) -> tuple[Live, int, int]:
    """This process holds the table, hears the other's step that gives a bot its turn (so its copy
    says the bot is due), and then the other process stores the bot's step with no note yet. The
    table, the bot's seat and the number of steps stored."""
    bot, steps = _bot_next(made)
    await bus.start(hub)
    live = await hub.live(made.table)
    assert live is not None and bus.hears(made.table)
    other = other_bus()
    try:
        rows = [made.store_next() for _ in range(steps)]  # people's steps: the bot's turn next
        await other.publish(made.table, rows)
        await after_everything_said(hub, other, made.table)
        assert len(live.steps) == rows[-1].n and live.due(), "the note did not make the bot due here"
        _store_bot_step(made, bot)  # no note (yet): this process's copy is one step behind
    finally:
        await other.redis.aclose()
    return live, bot, len(made.stored())


def _kicked_behind(made: Made, heard: bool) -> tuple[list[str], int, Live]:
    """:func:`_behind_on_a_bot_turn`, the table's channel kept (``heard``) or given up, then the
    driving loop woken by a seat change (``kick()``) and run until it stops: what it did with the
    store, the steps stored before it ran, and the table."""
    assert REDIS

    async def run() -> tuple[list[str], int, Live]:
        store = Logged(make_engine(made.db))
        bus = RedisBus(REDIS)
        hub = Watched(store, bus=bus, multi=True, bot_delay=0)
        try:
            live, _bot, stored = await _behind_on_a_bot_turn(made, hub, bus)
            if not heard:
                await bus.forget(made.table)
                assert not bus.hears(made.table)
            store.events.clear()
            live.owned = True
            live.kick()
            await _driven(live)
            return store.events, stored, live
        finally:
            await bus.close()

    return asyncio.run(run())


@needs_redis
def test_a_driving_loop_that_skips_its_read_on_a_heard_table_conflicts_and_catches_up(tmp_path: Path) -> None:
    """The table's notes are heard here, so the loop woken by a seat change (``kick()``) does not
    read the steps first: it plays the bot on its copy, one step behind, and its commit conflicts
    with the step the other process stored. It then catches up, finds the bot's action no longer
    due, and stores nothing: the table is the stored one, step for step."""
    made = Made(tmp_path)
    events, stored, live = _kicked_behind(made, heard=True)
    assert events and events[0] == "commit", f"the loop read before it acted: {events}"
    assert "steps" in events[1:], f"the conflict was not caught up: {events}"
    assert len(made.stored()) == stored, "a step was stored on the stale position"
    _same(live, made)


@needs_redis
def test_a_driving_loop_on_a_table_not_heard_reads_first(tmp_path: Path) -> None:
    """The same, but the table's channel given up (its notes not heard here): the loop reads the
    steps before it looks for work, finds the bot's step stored, and commits nothing."""
    made = Made(tmp_path)
    events, stored, live = _kicked_behind(made, heard=False)
    assert events[:1] == ["steps"] and "commit" not in events, events
    assert len(made.stored()) == stored
    _same(live, made)


@needs_redis
def test_a_table_taken_over_is_read_first_even_when_heard(tmp_path: Path) -> None:
    """The process that drove the table stored a person's step and died before its note: no note
    is on its way. This process, hearing the table, takes it over (``Hub._own``): its loop reads
    the steps first, sees the bot's turn that only the database knows of, and plays it. Skipping
    that read, the copy would say a person is to act and the table would wait (until the re-read's
    net, 30 s)."""
    assert REDIS
    made = Made(tmp_path)

    async def run() -> tuple[list[str], int, int, Live]:
        store = Logged(make_engine(made.db))
        bus = RedisBus(REDIS)
        hub = Watched(store, bus=bus, multi=True, bot_delay=0)
        try:
            bot, steps = _bot_next(made)
            await bus.start(hub)
            live = await hub.live(made.table)
            assert live is not None and bus.hears(made.table) and not live.due()
            for _ in range(steps):  # people's steps, stored by the dead process: no note
                made.store_next()
            stored = len(made.stored())
            store.events.clear()
            await hub._own(made.table)
            await _driven(live)
            return store.events, bot, stored, live
        finally:
            await bus.close()

    events, bot, stored, live = asyncio.run(run())
    assert events[:1] == ["steps"], events
    after = made.stored()
    assert len(after) == stored + 1 and after[-1].by == "bot" and after[-1].seat == bot, \
        "the bot's turn the database knew of was not played"
    _same(live, made)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(pytest.main([__file__]))
