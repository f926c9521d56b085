"""The reads of a socket's open and of every HTTP request's account (``Store.session_account``,
``table``, ``chat``, ``account``) run on Core statements built once and make the model instances from
the row: what they answer must be what the ORM's reads gave (every column, in no session), and the
session check exactly as strict (ended, expired, account disabled). On SQLite and PostgreSQL."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import inspect, update
from sqlalchemy.orm import Session as DbSession

from updown.server.models import Account, Seat, Session, Table
from updown.server.store import Store, token_hash

from test_store_batch import PG, store  # noqa: E402,F401  (the same store on SQLite and PostgreSQL)


def _columns(obj: Any) -> dict[str, Any]:
    return {c.key: getattr(obj, c.key) for c in obj.__table__.c}


def _orm(store: Store, model: type[Any], key: Any) -> dict[str, Any]:
    """The row as the ORM reads it (the reference)."""
    with DbSession(store.engine) as s:
        return _columns(s.get(model, key))


def _expires(store: Store, token: str, at: float) -> None:
    with store.engine.begin() as conn:
        conn.execute(update(Session).where(Session.token_hash == token_hash(token)).values(expires_at=at))


def test_a_session_gives_its_account_only_while_valid(store: Store) -> None:
    """The account of a valid session, every column as stored (and ``disabled`` a real False); None
    for a token never issued, a session ended, one expired a second ago, and any session of a
    disabled account; another account's session is untouched by each of these."""
    ann = store.create_account("ann", "person", "hash-of-ann")
    ben = store.create_account("ben", "guest", None)
    assert ann is not None and ben is not None
    ann_token, ben_token = store.new_session(ann), store.new_session(ben)
    acc = store.session_account(ann_token)
    assert acc is not None and isinstance(acc, Account)
    assert _columns(acc) == _orm(store, Account, ann) and acc.disabled is False
    assert inspect(acc).session is None and not inspect(acc).expired_attributes
    assert store.session_account(ben_token).name == "ben"  # type: ignore[union-attr]
    assert store.session_account("never-issued") is None

    _expires(store, ann_token, time.time() + 60)  # valid a minute more
    assert store.session_account(ann_token).id == ann  # type: ignore[union-attr]
    _expires(store, ann_token, time.time() - 1)  # expired a second ago
    assert store.session_account(ann_token) is None
    assert store.session_account(ben_token).id == ben  # type: ignore[union-attr]

    second = store.new_session(ann)
    assert store.session_account(second).id == ann  # type: ignore[union-attr]
    store.end_session(second)  # signed out
    assert store.session_account(second) is None

    third = store.new_session(ann)
    with store.engine.begin() as conn:  # ``updown admin accounts disable`` (which also ends the sessions)
        conn.execute(update(Account).where(Account.id == ann).values(disabled=True))
    assert store.session_account(third) is None
    assert store.session_account(ben_token).id == ben  # type: ignore[union-attr]
    with store.engine.begin() as conn:
        conn.execute(update(Account).where(Account.id == ann).values(disabled=False))
    assert store.session_account(third).id == ann  # type: ignore[union-attr]


def test_an_account_by_id_is_every_column_or_none(store: Store) -> None:
    ann = store.create_account("ann", "person", "hash-of-ann")
    assert ann is not None
    acc = store.account(ann)
    assert acc is not None and _columns(acc) == _orm(store, Account, ann)
    assert store.account(ann + 1000) is None


def _table(table_id: str, creator: int, status: str = "open") -> Table:
    return Table(id=table_id, game="updown", players=4, options='{"rounds": 3}', seed="s" * 32, timer=12.5,
                 grace=60.0, rated=True, private=False, status=status, created_by=creator, created_at=time.time())


def test_a_table_comes_with_every_seat_in_order(store: Store) -> None:
    """Seats stored out of order come back by number, each with every column as the ORM reads it (an
    open seat's empty account, a bot's name, left and away as real booleans); the table's row too; a
    table with no seat rows has an empty list, an unknown table is None; the instances are in no
    session and can be changed as the hub's were."""
    ann = store.create_account("ann", "person", None)
    ben = store.create_account("ben", "person", None)
    assert ann is not None and ben is not None
    store.create_table(_table("t1", ann, "running"), [
        Seat(table_id="t1", seat=2, kind="bot", bot="greedy", name="greedy"),
        Seat(table_id="t1", seat=0, kind="person", account_id=ann, name="ann", seen_at=1_700_000_000.25),
        Seat(table_id="t1", seat=3, kind="open", name=""),
        Seat(table_id="t1", seat=1, kind="person", account_id=ben, name="ben", left=True, away=True,
             away_since=1_700_000_001.5)])
    store.create_table(_table("t2", ann), [Seat(table_id="t2", seat=i, kind="open", name="") for i in range(4)])
    store.create_table(_table("bare", ann), [])

    found = store.table("t1")
    assert found is not None
    table, seats = found
    assert isinstance(table, Table) and _columns(table) == _orm(store, Table, "t1")
    assert table.rated is True and table.private is False and table.result is None
    assert [s.seat for s in seats] == [0, 1, 2, 3]
    assert [_columns(s) for s in seats] == [_orm(store, Seat, ("t1", i)) for i in range(4)]
    assert seats[1].left is True and seats[1].away is True and seats[0].left is False
    assert all(isinstance(s, Seat) and inspect(s).session is None for s in seats)
    seats[0].away = True  # a detached copy: changing it changes nothing stored
    assert store.table("t1")[1][0].away is False  # type: ignore[index]

    open_table = store.table("t2")
    assert open_table is not None and [(s.seat, s.kind, s.account_id) for s in open_table[1]] == [
        (i, "open", None) for i in range(4)]
    bare = store.table("bare")
    assert bare is not None and bare[0].id == "bare" and bare[1] == []
    assert store.table("nope") is None


def test_chat_lines_after_one_and_the_last_few_oldest_first(store: Store) -> None:
    ann = store.create_account("ann", "person", None)
    ben = store.create_account("ben", "person", None)
    assert ann is not None and ben is not None
    store.create_table(_table("t1", ann), [Seat(table_id="t1", seat=0, kind="person", account_id=ann, name="ann")])
    store.create_table(_table("t2", ann), [])
    said = [store.add_chat("t1", i, (ann, ben)[i % 2], 0 if i % 2 == 0 else None, f"line {i}", None) for i in range(7)]
    store.add_chat("t2", 0, ann, None, "elsewhere", "gg")
    assert store.chat("t1") == said
    assert [(r.seq, r.name, r.seat, r.text) for r in store.chat("t1")[:2]] == [(1, "ann", 0, "line 0"),
                                                                              (2, "ben", None, "line 1")]
    assert store.chat("t1", after=4) == said[4:]
    assert store.chat("t1", 0, 3) == said[-3:]
    assert store.chat("t1", 5, 3) == said[5:]
    assert store.chat("t1", after=7) == [] and store.chat("nope") == []
    assert [(r.text, r.preset) for r in store.chat("t2")] == [("elsewhere", "gg")]
