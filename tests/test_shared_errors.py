"""One error object raised in several tasks (issue 35's outage work; the fault a CI run met).

A grouped commit hands its transaction's error to every table of the batch, and a failed Redis
publish hands its error to every caller waiting on it: each task raises the same object, and each
raise adds that task's frames to the object's traceback. Clearing the frames of such a traceback
(``outage.forget_locals``, against reference cycles) once reached a coroutine of another task that
was suspended in its retry's sleep, which closes it: that table's driving loop never woke again,
and the table waited for ever with its lock held (``test_outages.py`` saw two tables stop after a
PostgreSQL restart).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.exc import OperationalError
from test_server_guarantees import live_table

from updown.server.db import make_engine, upgrade
from updown.server.outage import DATABASE, ServiceHealth, detached, forget_locals
from updown.server.store import Store


def test_clearing_a_shared_errors_frames_never_closes_another_tasks_suspended_coroutine() -> None:
    shared = OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly"))

    async def fails() -> None:
        raise shared

    async def catches_then_sleeps() -> str:
        try:
            await fails()
        except OperationalError:
            pass
        await asyncio.sleep(0.3)  # suspended here while the other task handles the same error
        return "woke"

    async def catches_and_forgets() -> None:
        await asyncio.sleep(0.05)
        try:
            await fails()
        except OperationalError as err:
            forget_locals(err)  # its traceback holds the first task's frames too
        detached(shared)

    async def main() -> str:
        first = asyncio.create_task(catches_then_sleeps())
        await catches_and_forgets()
        return await asyncio.wait_for(first, 10)

    assert asyncio.run(main()) == "woke"
    assert shared.__traceback__ is None  # forgotten: no frame is kept with it


class AwayStore(Store):
    """A store whose first ``failures`` grouped transactions fail as PostgreSQL's do when it stops."""

    def __init__(self, engine: Any, failures: int) -> None:
        super().__init__(engine)
        self.failures = failures
        self.batches: list[int] = []

    def _commit_batch(self, batch: Sequence[Any], signs: Sequence[Any] = ()) -> list[Exception | None]:
        self.batches.append(len(batch))
        if len(self.batches) <= self.failures:
            raise OperationalError("INSERT INTO steps ...", {}, Exception("server closed the connection unexpectedly"))
        return super()._commit_batch(batch, signs)


def test_tables_whose_grouped_commit_failed_together_all_retry_and_store_their_steps(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    upgrade(engine)
    store = AwayStore(engine, failures=0)
    health = ServiceHealth()
    lives = [live_table(store, "euchre", ["bot"] * 4, [None] * 4) for _ in range(3)]
    for live in lives:
        live.health = health  # as the hub's tables share one
        while live.state.is_chance():
            asyncio.run(live.chance_steps())
    store.failures = len(store.batches) + 2  # the deals are stored; the next two transactions fail
    begun = len(store.batches)

    async def act_everywhere() -> list[int]:
        moves = []
        for live in lives:
            seat = live.state.actors()[0]
            moves.append(live.submit(seat, live.state.legal_actions(seat)[0], None, "bot"))
        return list(await asyncio.wait_for(asyncio.gather(*moves), 30))

    started = time.monotonic()
    numbers = asyncio.run(act_everywhere())
    assert store.batches[begun] == 3, store.batches  # the three steps went in one transaction, which failed
    assert store.batches[begun + 1] >= 1 and health.outages[DATABASE] == 1 and not health.is_down(DATABASE)
    for live, n in zip(lives, numbers):
        assert n == len(live.steps) and [r.n for r in store.steps(live.id)] == list(range(1, n + 1))
    assert time.monotonic() - started < 30
