"""The grouped write's hot statements (a person's check, a step's row) run on the DB-API cursor
(``store._Driver``), not through SQLAlchemy's execution: what they store, and how their errors
reach the callers, must be what SQLAlchemy's path gave. On SQLite and PostgreSQL."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session as DbSession

from updown.server.db import make_engine, upgrade
from updown.server.models import Seat, Step, Table
from updown.server.outage import is_outage
from updown.server.store import Actor, Conflict, Store, StepRow, Unheld, token_hash

from test_store_batch import PG, store  # noqa: E402,F401  (the same store on SQLite and PostgreSQL)


def _table(store: Store, table_id: str, account: int) -> None:
    """A running two-seat table: seat 0 ``account``'s, seat 1 a bot."""
    store.create_table(
        Table(id=table_id, game="updown", players=2, options="{}", seed="s", timer=10.0, grace=60.0, rated=False,
              private=False, status="running", created_by=account, created_at=time.time()),
        [Seat(table_id=table_id, seat=0, kind="person", account_id=account, name="ann"),
         Seat(table_id=table_id, seat=1, kind="bot", bot="random", name="bot")])


def _stored(store: Store, table_id: str) -> list[tuple[int, int | None, str | None, str, str | None, str, float]]:
    with DbSession(store.engine) as s:
        return [(r.n, r.seat, r.label, r.notation, r.client_id, r.by, r.at)
                for r in s.scalars(select(Step).where(Step.table_id == table_id).order_by(Step.n))]


def _ann(store: Store) -> Actor:
    ann = store.create_account("ann", "person", None)
    assert ann is not None
    return Actor(token_hash(store.new_session(ann)), ann, 0)


def test_steps_are_stored_once_each_with_every_value_as_given(store: Store) -> None:
    """Several rows of one item (one statement run for all of them) and single rows of other items in
    one group: each row stored exactly once, in its number's place, every column as given (a label
    and no seat for chance, the exact float time, a client id or none)."""
    actor = _ann(store)
    _table(store, "t1", actor.account_id)
    _table(store, "t2", actor.account_id)
    rows1 = [StepRow(1, None, "deal", "7H 8H", None, "chance", 1_700_000_000.123456),
             StepRow(2, 0, None, "7H", "c-2", "player", 1_700_000_001.5),
             StepRow(3, 1, None, "8H", None, "bot", 1_700_000_002.25)]
    rows2 = [StepRow(1, 0, None, "AS", "c-1", "player", 1_700_000_003.0)]
    assert store._commit_batch([("t1", rows1, None, None), ("t2", rows2, None, actor)]) == [None, None]
    assert _stored(store, "t1") == [(r.n, r.seat, r.label, r.notation, r.client_id, r.by, r.at) for r in rows1]
    assert _stored(store, "t2") == [(1, 0, None, "AS", "c-1", "player", 1_700_000_003.0)]
    store.commit("t1", [StepRow(4, 0, None, "9H", "c-4", "player", 1_700_000_004.0)], None, actor)
    assert [r[0] for r in _stored(store, "t1")] == [1, 2, 3, 4]


def test_a_taken_row_inside_an_item_refuses_all_of_it_and_nothing_else(store: Store) -> None:
    """An item of three rows whose second number is taken: none of its rows is stored (not the first,
    written before the conflict), a Conflict is its answer, the other tables' steps are stored; a
    client id used again is a Conflict too; a person who signed out is refused with nothing stored."""
    actor = _ann(store)
    for t in ("t1", "t2", "t3"):
        _table(store, t, actor.account_id)
    store.commit("t2", [StepRow(2, 1, None, "x", None, "bot", 1.0)], None)  # another process stored it first
    store.commit("t3", [StepRow(1, 0, None, "y", "same", "player", 1.0)], None, actor)
    results = store._commit_batch([
        ("t1", [StepRow(1, 0, None, "a", "a1", "player", 2.0)], None, actor),
        ("t2", [StepRow(1, None, "deal", "d", None, "chance", 2.0), StepRow(2, 0, None, "b", "b2", "player", 2.0),
                StepRow(3, 1, None, "c", None, "bot", 2.0)], None, None),
        ("t3", [StepRow(2, 0, None, "z", "same", "player", 2.0)], None, actor),
        ("t1", [StepRow(2, 1, None, "e", None, "bot", 3.0)], None, None),
    ])
    assert [type(r) for r in results] == [type(None), Conflict, Conflict, type(None)]
    assert [r[:4] for r in _stored(store, "t1")] == [(1, 0, None, "a"), (2, 1, None, "e")]
    assert [r[:4] for r in _stored(store, "t2")] == [(2, 1, None, "x")]
    assert [r[:4] for r in _stored(store, "t3")] == [(1, 0, None, "y")]
    with DbSession(store.engine) as s:  # the session ends (signed out elsewhere): refused, nothing stored
        s.execute(text("DELETE FROM sessions"))
        s.commit()
    with pytest.raises(Unheld) as refused:
        store.commit("t1", [StepRow(3, 0, None, "f", "a3", "player", 4.0)], None, actor)
    assert refused.value.signed_out
    assert len(_stored(store, "t1")) == 2


def test_a_locked_database_is_an_outage_and_stores_nothing(tmp_path: Path) -> None:
    """SQLite locked by another writer past the timeout: the step's insert (on the DB-API cursor)
    fails as SQLAlchemy's OperationalError, which the server takes for an outage (answered busy,
    retried), with nothing stored; once the lock is gone the same step is stored."""
    path = tmp_path / "updown.db"
    upgrade(make_engine(f"sqlite:///{path}"))
    engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False, "timeout": 0.05})
    store = Store(engine)
    actor = _ann(store)
    _table(store, "t1", actor.account_id)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # holds the write lock
    try:
        with pytest.raises(OperationalError) as failed:
            store.commit("t1", [StepRow(1, 0, None, "a", "a1", "player", 1.0)], None, actor)
        assert is_outage(failed.value) and "locked" in str(failed.value)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert _stored(store, "t1") == []
    store.commit("t1", [StepRow(1, 0, None, "a", "a1", "player", 1.0)], None, actor)
    assert [r[:5] for r in _stored(store, "t1")] == [(1, 0, None, "a", "a1")]
    engine.dispose()


@pytest.mark.skipif(not PG, reason="no PostgreSQL: UPDOWN_TEST_POSTGRES not set")
def test_a_connection_lost_mid_write_is_an_outage_and_not_used_again() -> None:
    """PostgreSQL ends the writer's connection after the check, before the step's insert: the error
    is SQLAlchemy's OperationalError (an outage to the server), the connection is invalidated (not
    handed out again), nothing is stored, and the next commit stores the step on a new connection."""
    from test_server import fresh_pg_db

    engine = make_engine(fresh_pg_db())
    upgrade(engine)
    store = Store(engine)
    actor = _ann(store)
    _table(store, "t1", actor.account_id)
    admin = create_engine(engine.url, isolation_level="AUTOCOMMIT")
    try:
        with engine.begin() as conn:
            store._check_actor(conn, "t1", actor)
            pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()
            with admin.connect() as killer:
                assert killer.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar_one()
            with pytest.raises(OperationalError) as lost:
                store._write(conn, "t1", [StepRow(1, 0, None, "a", "a1", "player", 1.0)], None, None)
            assert is_outage(lost.value) and lost.value.connection_invalidated and conn.invalidated
            conn.rollback()
        assert _stored(store, "t1") == []
        store.commit("t1", [StepRow(1, 0, None, "a", "a1", "player", 1.0)], None, actor)
        assert [r[:5] for r in _stored(store, "t1")] == [(1, 0, None, "a", "a1")]
    finally:
        admin.dispose()
        engine.dispose()


def test_a_persons_steps_are_stored_with_their_check_and_an_away_seat_comes_back(store: Store) -> None:
    """A person's action of two rows (the action, then the chance step it brought about) is stored
    whole: the first row in the statement that checks the actor, the second after it. A seat
    stored as away (marked by the process that drives the table) does not pass that statement: the
    check runs on its own, sets the seat back, and the steps are stored; a seat whose person left
    is refused with nothing stored."""
    actor = _ann(store)
    _table(store, "t1", actor.account_id)
    rows = [StepRow(1, 0, None, "7H", "c-1", "player", 1.5), StepRow(2, None, "deal", "AS KS", None, "chance", 1.75)]
    store.commit("t1", rows, None, actor)
    assert _stored(store, "t1") == [(1, 0, None, "7H", "c-1", "player", 1.5),
                                    (2, None, "deal", "AS KS", None, "chance", 1.75)]
    with DbSession(store.engine) as s:
        s.execute(text("UPDATE seats SET away = :t, away_since = 5.0 WHERE table_id = 't1' AND seat = 0"), {"t": True})
        s.commit()
    store.commit("t1", [StepRow(3, 0, None, "8H", "c-3", "player", 2.0)], None, actor)
    with DbSession(store.engine) as s:
        seat = s.scalars(select(Seat).where(Seat.table_id == "t1", Seat.seat == 0)).one()
        assert (seat.away, seat.away_since) == (False, None)
        s.execute(text("UPDATE seats SET \"left\" = :t WHERE table_id = 't1' AND seat = 0"), {"t": True})
        s.commit()
    with pytest.raises(Unheld) as refused:
        store.commit("t1", [StepRow(4, 0, None, "9H", "c-4", "player", 3.0)], None, actor)
    assert not refused.value.signed_out
    assert [r[0] for r in _stored(store, "t1")] == [1, 2, 3]
