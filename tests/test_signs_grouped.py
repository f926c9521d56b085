"""A socket's sign of life rides the store's grouped commit (issue 35, docs/server.md, "Signs of life
in the grouped commit").

Every table socket's open and close stores a sign of life for a person's seat (``Hub.connected``).
It joins the steps waiting for the store's writer (``Store.seen_async``) and is written in their
transaction: many signs, one hand-off to the writer's thread and one commit. ``connected`` still
returns only once its sign is stored (the heartbeat's tests and the presence of a seat on another
process count on it); a step of the group that is refused or conflicts does not lose the signs; a
transaction that fails fails every caller in it, and ``connected`` only tells the fault.

The hubs run in this process on a database of their own (SQLite, then PostgreSQL), without their
loops; the tables are of four people (no bot plays while the test counts).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import DBAPIError, OperationalError

from updown.server.hub import Hub
from updown.server.live import Live
from updown.server.outage import DATABASE
from updown.server.store import Actor, Conflict, Store, StepRow, Unheld, token_hash

from hub_util import PEOPLE, run_hubs, store_for, updown_table
from test_server import db  # noqa: F401  (the fixture: SQLite, then PostgreSQL)


def _stored(store: Store, table_id: str) -> list[float | None]:
    found = store.table(table_id)
    assert found is not None
    return [s.seen_at for s in found[1]]


def _row(n: int, seat: int | None, client_id: str | None = None) -> StepRow:
    return StepRow(n, seat, None, f"step{n}", client_id, "player" if client_id else "bot", time.time())


def _steps(store: Store, table_id: str) -> list[tuple[int, str | None]]:
    return [(r.n, r.client_id) for r in store.steps(table_id)]


class Groups:
    """What the store's writer wrote: each grouped transaction's (steps, signs) and the engine's
    commits."""

    def __init__(self, store: Store):
        self.groups: list[tuple[int, int]] = []
        self.commits = 0
        self.careful = 0
        real_group, real_careful = store._commit_group, store._careful

        def group(batch: Sequence[Any], signs: Sequence[Any]) -> list[Exception | None]:
            self.groups.append((len(batch), len(signs)))
            return real_group(batch, signs)

        def careful(batch: Sequence[Any], signs: Sequence[Any] = ()) -> list[Exception | None]:
            self.careful += 1
            return real_careful(batch, signs)

        def committed(_conn: Any) -> None:
            self.commits += 1

        store._commit_group = group  # type: ignore[method-assign]
        store._careful = careful  # type: ignore[method-assign]
        event.listen(store.engine, "commit", committed)

    def signs(self) -> int:
        return sum(n for _steps, n in self.groups)


async def _lives(hub: Hub, store: Store, ids: Sequence[str]) -> dict[str, Live]:
    lives: dict[str, Live] = {}
    for t in ids:
        updown_table(store, t, people=4)
        live = await hub.live(t)
        assert live is not None
        lives[t] = live
    return lives


def _actor(store: Store, table_id: str, seat: int) -> tuple[Actor, str]:
    """The person at ``seat`` of an ``updown_table``, signed in: their actor and session token."""
    account = store.account_id_for(f"{PEOPLE[seat]}-{table_id}", "person")
    token = store.new_session(account)
    return Actor(token_hash(token), account, seat), token


def _run(db: str, body: Any) -> None:
    store = store_for(db)
    hub = Hub(store, bot_delay=0)
    try:
        run_hubs(lambda: body(hub, store), hub)
    finally:
        store.engine.dispose()


def test_many_sockets_at_once_are_stored_in_fewer_transactions_than_signs(db: str) -> None:
    """80 opens and closes at once (20 tables, two people each, a socket opened and closed): all
    their signs are written in as many transactions as the store runs writers at most (one on
    SQLite), not one each, and every seat's stored time is the hub's."""
    async def body(hub: Hub, store: Store) -> None:
        ids = [f"m{i:02d}" for i in range(20)]
        lives = await _lives(hub, store, ids)
        groups = Groups(store)
        calls = [hub.connected(lives[t], seat, delta) for t in ids for seat in (0, 1) for delta in (+1, -1)]
        await asyncio.gather(*calls)
        assert groups.signs() == len(calls), groups.groups
        assert all(steps == 0 for steps, _signs in groups.groups)
        assert len(groups.groups) <= store._most_writers < len(calls), groups.groups
        assert groups.commits == len(groups.groups), "a sign was written in a transaction of its own"
        assert not hub.health.is_down(DATABASE)
        for t in ids:
            stored = _stored(store, t)
            for seat in (0, 1):
                assert stored[seat] is not None and stored[seat] == lives[t].seats[seat].seen_at
            assert stored[2] is None and stored[3] is None  # nobody connected there
        # One at a time, each is a group of its own (nothing waits with it): the count is not fixed.
        before = len(groups.groups)
        await hub.connected(lives["m00"], 2, +1)
        await hub.connected(lives["m00"], 2, -1)
        assert len(groups.groups) == before + 2 and groups.commits == before + 2

    _run(db, body)


def test_each_connected_returns_only_once_its_sign_is_stored(db: str) -> None:
    """The writer's commits are slowed down (0.2 s each, in its thread): still, when each of several
    concurrent ``connected`` calls returns, its seat's time is already in the database, read at
    once; and a later call's sign waits for the group after the one being written."""
    async def body(hub: Hub, store: Store) -> None:
        ids = [f"r{i}" for i in range(6)]
        lives = await _lives(hub, store, ids)
        groups = Groups(store)

        def slow(_conn: Any) -> None:
            time.sleep(0.2)

        event.listen(store.engine, "commit", slow)
        seen: dict[tuple[str, int], tuple[float | None, float | None]] = {}

        async def one(t: str, seat: int, wait: float) -> None:
            await asyncio.sleep(wait)
            await hub.connected(lives[t], seat, +1)
            seen[(t, seat)] = (_stored(store, t)[seat], lives[t].seats[seat].seen_at)  # read right away

        # The first four wait together; the last two come while their group is being written.
        await asyncio.gather(*[one(t, 0, 0.0) for t in ids[:4]], *[one(t, 0, 0.05) for t in ids[4:]])
        for key, (stored, expected) in seen.items():
            assert expected is not None and stored == expected, f"{key}: connected returned before its sign was stored"
        assert len(seen) == 6
        assert groups.groups[:2] == [(0, 4), (0, 2)] or store._most_writers > 1, groups.groups
        assert groups.signs() == 6

    _run(db, body)


def test_a_sign_in_a_group_with_a_conflicting_step_is_still_stored(db: str) -> None:
    """One group: a step whose number another process took first (the careful path, a savepoint
    each), a step of another table, and two tables' signs of life. The conflict is refused, the
    other step stored, and both signs stored with it."""
    async def body(hub: Hub, store: Store) -> None:
        lives = await _lives(hub, store, ["c1", "c2", "c3", "c4"])
        taken = len(store.steps("c1")) + 1
        store.commit("c1", [_row(taken, None)], None)  # another process stored it first
        free = len(store.steps("c2")) + 1
        groups = Groups(store)
        got = await asyncio.gather(
            store.commit_async("c1", [_row(taken, None)], None),
            hub.connected(lives["c3"], 1, +1),
            store.commit_async("c2", [_row(free, None)], None),
            hub.connected(lives["c4"], 0, +1),
            return_exceptions=True)
        assert isinstance(got[0], Conflict) and list(got[1:]) == [None, None, None], got
        assert groups.groups == [(2, 2)] and groups.careful == 1, (groups.groups, groups.careful)
        assert _steps(store, "c2")[-1] == (free, None)
        assert len(store.steps("c1")) == taken
        assert _stored(store, "c3")[1] == lives["c3"].seats[1].seen_at is not None
        assert _stored(store, "c4")[0] == lives["c4"].seats[0].seen_at is not None
        assert not hub.health.is_down(DATABASE)

    _run(db, body)


def test_the_steps_of_a_group_with_signs_are_refused_and_stored_as_before(db: str) -> None:
    """One group (the path without savepoints): a person's step whose session ended is refused as
    signed out, a person's step whose seat is theirs is stored, a bot's step stored, and the signs
    of life that came with them are stored; nothing of the refused step is."""
    async def body(hub: Hub, store: Store) -> None:
        lives = await _lives(hub, store, ["s1", "s2", "s3"])
        ann, _ann_token = _actor(store, "s1", 0)
        bob, bob_token = _actor(store, "s2", 1)
        store.end_session(bob_token)
        n1, n2, n3 = (len(store.steps(t)) + 1 for t in ("s1", "s2", "s3"))
        groups = Groups(store)
        got = await asyncio.gather(
            hub.connected(lives["s1"], 2, +1),
            store.commit_async("s1", [_row(n1, 0, "ann-1")], None, ann),
            store.commit_async("s2", [_row(n2, 1, "bob-1")], None, bob),
            hub.connected(lives["s2"], 3, +1),
            store.commit_async("s3", [_row(n3, None)], None),
            hub.connected(lives["s3"], 0, +1),
            return_exceptions=True)
        assert got[0] is None and got[1] is None and list(got[3:]) == [None, None, None], got
        assert isinstance(got[2], Unheld) and got[2].signed_out
        assert groups.groups == [(3, 3)] and groups.careful == 0 and groups.commits == 1
        assert _steps(store, "s1")[-1] == (n1, "ann-1")
        assert len(store.steps("s2")) == n2 - 1
        assert _steps(store, "s3")[-1] == (n3, None)
        for t, seat in (("s1", 2), ("s2", 3), ("s3", 0)):
            assert _stored(store, t)[seat] == lives[t].seats[seat].seen_at is not None

    _run(db, body)


def test_an_outage_fails_the_whole_group_and_connected_only_tells_it(db: str) -> None:
    """The database fails every statement (a failing engine): a group of two signs and a step
    fails whole. The step's caller gets the error; ``connected`` returns without raising and the
    hub's health is told the database failed; nothing is stored. Once it answers again, the
    heartbeat stores the connected seats."""
    async def body(hub: Hub, store: Store) -> None:
        lives = await _lives(hub, store, ["o1", "o2"])
        n = len(store.steps("o1")) + 1
        away = True

        def fail(_conn: Any, _cursor: Any, statement: str, params: Any, _context: Any, _many: bool) -> None:
            if away:
                raise OperationalError(statement, params, sqlite3.OperationalError("the database is away"))

        event.listen(store.engine, "before_cursor_execute", fail)
        groups = Groups(store)
        got = await asyncio.gather(hub.connected(lives["o1"], 1, +1), store.commit_async("o1", [_row(n, None)], None),
                                   hub.connected(lives["o2"], 0, +1), return_exceptions=True)
        assert got[0] is None and got[2] is None, got
        assert isinstance(got[1], OperationalError), got
        assert groups.groups == [(1, 2)]
        assert hub.health.is_down(DATABASE), "the failed sign of life was not told"
        away = False
        assert _stored(store, "o1")[1] is None and _stored(store, "o2")[0] is None
        assert len(store.steps("o1")) == n - 1
        await hub._heartbeat(time.time())
        assert _stored(store, "o1")[1] is not None and _stored(store, "o2")[0] is not None

    _run(db, body)


def test_a_group_rolled_back_for_a_deadlock_is_written_again(db: str) -> None:
    """PostgreSQL fails one of two transactions that wait for each other's rows (a deadlock, SQLSTATE
    40P01) and rolls it back whole: the writer writes the same group again. Any other error is
    raised at once."""
    store = store_for(db)
    try:
        updown_table(store, "d1", people=4)
        tries: list[int] = []
        real = store._commit_batch

        class Orig(Exception):
            def __init__(self, sqlstate: str):
                super().__init__(sqlstate)
                self.sqlstate = sqlstate

        def once(sqlstate: str) -> Any:
            def batch(items: Sequence[Any], signs: Sequence[Any] = ()) -> list[Exception | None]:
                tries.append(len(signs))
                if len(tries) == 1:
                    raise DBAPIError("UPDATE seats", {}, Orig(sqlstate))
                return real(items, signs)
            return batch

        store._commit_batch = once("40P01")  # type: ignore[method-assign]
        assert store._commit_group([], [("d1", (0, 1), 1234.5)]) == []
        assert tries == [1, 1] and _stored(store, "d1")[:2] == [1234.5, 1234.5]
        tries.clear()
        store._commit_batch = once("08006")  # type: ignore[method-assign]
        with pytest.raises(DBAPIError):
            store._commit_group([], [("d1", (0, 1), 99.0)])
        assert tries == [1] and _stored(store, "d1")[:2] == [1234.5, 1234.5]
    finally:
        store.engine.dispose()
