"""The store's grouped write (``Store._commit_batch``): steps of many tables that wait together are
written in one transaction, and one item's refusal or conflict touches no other item.

The write goes first without savepoints (an item is refused before it writes anything); an item
that fails after it began to write sends the whole group to the careful path, a savepoint per item.
These tests drive both paths on SQLite and PostgreSQL and check what is stored, row by row.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session as DbSession

from updown.server.db import make_engine, upgrade
from updown.server.models import Entry, Rating, Seat, Step, Table
from updown.server.store import Actor, Conflict, Finish, Posting, Store, StepRow, Unbalanced, Unheld, token_hash

PG = os.environ.get("UPDOWN_TEST_POSTGRES")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    not PG, reason='no PostgreSQL: UPDOWN_TEST_POSTGRES not set (start it with eval "$(.ci/services start)")'))])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'updown.db'}"
    else:
        from test_server import fresh_pg_db

        url = fresh_pg_db()
    engine = make_engine(url)
    upgrade(engine)
    yield Store(engine)
    engine.dispose()


def _table(store: Store, table_id: str, people: dict[int, int]) -> None:
    """A running two-seat table; ``people`` maps seat to account, the other seats are bots."""
    store.create_table(
        Table(id=table_id, game="updown", players=2, options="{}", seed="s", timer=10.0, grace=60.0, rated=False,
              private=False, status="running", created_by=next(iter(people.values())), created_at=time.time()),
        [Seat(table_id=table_id, seat=i, kind="person", account_id=people[i], name=f"p{i}") if i in people
         else Seat(table_id=table_id, seat=i, kind="bot", bot="random", name="bot") for i in range(2)])


def _row(n: int, seat: int | None, client_id: str | None = None) -> StepRow:
    return StepRow(n, seat, None, f"step{n}", client_id, "player" if client_id else "bot", time.time())


def _stored(store: Store, table_id: str) -> list[tuple[int, str | None]]:
    with DbSession(store.engine) as s:
        return [(r.n, r.client_id) for r in s.scalars(select(Step).where(Step.table_id == table_id).order_by(Step.n))]


def test_a_conflict_in_a_group_refuses_only_its_own_item(store: Store) -> None:
    """Five tables' steps in one group: one step number is taken (another process stored it first),
    one actor has signed out, one posting does not balance. Those three are refused, each with its
    own reason; the other two are stored, and nothing of the refused ones is."""
    ann = store.create_account("ann", "person", None)
    bob = store.create_account("bob", "person", None)
    assert ann is not None and bob is not None
    ann_token, bob_token = store.new_session(ann), store.new_session(bob)
    for t in ("t1", "t2", "t3", "t4", "t5"):
        _table(store, t, {0: ann, 1: bob})
    store.commit("t2", [_row(1, None)], None)  # taken before the group
    store.end_session(bob_token)
    results = store._commit_batch([
        ("t1", [_row(1, 0, "a1")], None, Actor(token_hash(ann_token), ann, 0)),
        ("t2", [_row(1, None), _row(2, 0, "a2")], None, Actor(token_hash(ann_token), ann, 0)),
        ("t3", [_row(1, 1, "b3")], None, Actor(token_hash(bob_token), bob, 1)),
        ("t4", [_row(1, None)], Posting("leave-t4", {ann: -5, bob: 4}), None),
        ("t5", [_row(1, 0, "a5"), _row(2, None)], None, Actor(token_hash(ann_token), ann, 0)),
    ])
    assert [type(r) for r in results] == [type(None), Conflict, Unheld, Unbalanced, type(None)]
    assert _stored(store, "t1") == [(1, "a1")]
    assert _stored(store, "t2") == [(1, None)]  # only the step stored before the group
    assert _stored(store, "t3") == []
    assert _stored(store, "t4") == []
    assert _stored(store, "t5") == [(1, "a5"), (2, None)]
    with DbSession(store.engine) as s:
        assert s.scalars(select(Entry).where(Entry.txn == "leave-t4")).all() == []


def test_a_seat_that_changed_hands_is_refused_in_the_group_and_the_rest_stored(store: Store) -> None:
    """Bob's seat went to nobody (he left) before the group was written: his step is refused as
    no longer his, ann's at another table in the same group is stored."""
    ann = store.create_account("ann", "person", None)
    bob = store.create_account("bob", "person", None)
    assert ann is not None and bob is not None
    ann_token, bob_token = store.new_session(ann), store.new_session(bob)
    _table(store, "t1", {0: ann})
    _table(store, "t2", {1: bob})
    assert store.mark_left("t2", 1)
    results = store._commit_batch([
        ("t2", [_row(1, 1, "b1")], None, Actor(token_hash(bob_token), bob, 1)),
        ("t1", [_row(1, 0, "a1")], None, Actor(token_hash(ann_token), ann, 0)),
    ])
    assert isinstance(results[0], Unheld) and not results[0].signed_out
    assert results[1] is None
    assert _stored(store, "t2") == [] and _stored(store, "t1") == [(1, "a1")]


def test_the_last_step_finishes_the_table_with_its_entries_and_ratings_once(store: Store) -> None:
    """A game's last step writes the result, the settlement and the ratings (a new rating and an
    update of one that exists); a second finish of the same table, in a later group beside another
    table's step, is a conflict and leaves the first settlement and ratings as they were."""
    ann = store.create_account("ann", "person", None)
    bob = store.create_account("bob", "person", None)
    assert ann is not None and bob is not None
    ann_token = store.new_session(ann)
    _table(store, "t1", {0: ann, 1: bob})
    _table(store, "t0", {0: ann, 1: bob})
    store.commit("t0", [_row(1, None)], Finish({"scores": [0, 0]}, {}, {ann: (20.0, 7.0)}, "end-t0"))
    finish = Finish({"scores": [3, 1]}, {ann: 10, bob: -10}, {ann: (26.0, 6.0), bob: (24.0, 8.0)}, "end-t1")
    assert store._commit_batch([("t1", [_row(1, 0, "a1")], finish, Actor(token_hash(ann_token), ann, 0))]) == [None]
    _table(store, "t2", {0: ann, 1: bob})
    again = Finish({"scores": [9, 9]}, {ann: 99, bob: -99}, {ann: (1.0, 1.0)}, "end-t1-again")
    results = store._commit_batch([("t1", [_row(2, None)], again, None), ("t2", [_row(1, 1)], None, None)])
    assert isinstance(results[0], Conflict) and results[1] is None
    assert _stored(store, "t1") == [(1, "a1")] and _stored(store, "t2") == [(1, None)]
    with DbSession(store.engine) as s:
        t1 = s.get(Table, "t1")
        assert t1 is not None and t1.status == "finished" and '"scores": [3, 1]' in (t1.result or "")
        entries = {(e.txn, e.account_id): e.amount for e in s.scalars(select(Entry))}
        assert entries == {("end-t1", ann): 10, ("end-t1", bob): -10}
        ratings = {r.account_id: (r.mu, r.sigma, r.games) for r in s.scalars(select(Rating))}
        assert ratings == {ann: (26.0, 6.0, 2), bob: (24.0, 8.0, 1)}
