"""Storage operations, each one short transaction. Everything here is synchronous; the server calls
it from worker threads. No function here knows which game a table plays."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from sqlalchemy import Connection, Engine, bindparam, exists, false, func, insert, select, text, tuple_, update
from sqlalchemy import inspect
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.orm import Session as DbSession, configure_mappers

from updown.server.models import Account, AdminAction, Base, Chat, Entry, Rating, Seat, Session, Step, Table
from updown.server.outage import detached

HOUSE = "house"
SESSION_SECONDS = 30 * 24 * 3600

_STEPS = Step.metadata.tables["steps"]
_SIGNED_IN = exists().where(Session.token_hash == bindparam("token"), Session.account_id == bindparam("account"),
                            Session.expires_at >= bindparam("now"), Account.id == Session.account_id,
                            Account.disabled == false())
_HELD = (Seat.table_id == bindparam("table"), Seat.seat == bindparam("actor_seat"), Seat.kind == "person",
         Seat.account_id == bindparam("account"), Seat.left == false())
_ACTOR_CHECK = select(_SIGNED_IN.label("signed_in"), select(Seat.away).where(*_HELD).scalar_subquery().label("away"))
"""A person's action is checked in the transaction that stores it: is the session valid now, and
the seat's ``away`` if its account holds it (NULL if not). Built once: only its values change."""
_INSERT_STEP = insert(_STEPS).values({c.name: bindparam(c.name) for c in _STEPS.c})
"""One step's row (every column a parameter named as the column)."""
_INSERT_ACTED = insert(_STEPS).from_select(
    [c.name for c in _STEPS.c],
    select(*[bindparam(c.name, type_=c.type) for c in _STEPS.c])
    .where(_SIGNED_IN, exists().where(*_HELD, Seat.away == false())))
"""A person's step stored only if :data:`_ACTOR_CHECK` would let it be without anything more to
write (the session valid now, the seat the account's and not away): one statement, one round trip,
for nearly every action. When it stores nothing the check runs on its own to say why (or to set the
seat back from away, after which the step is stored)."""
_SEATS = Seat.metadata.tables["seats"]
_SEEN = (update(_SEATS).where(_SEATS.c.table_id == bindparam("t"), _SEATS.c.seat == bindparam("s"))
         .values(seen_at=bindparam("at")))
"""The heartbeat's update, run for many seats at once."""
_SEEN_ARRAYS = text("UPDATE seats SET seen_at = :at FROM unnest(CAST(:t AS TEXT[]), CAST(:s AS INTEGER[])) AS v(t, s) "
                    "WHERE seats.table_id = v.t AND seats.seat = v.s")
"""The heartbeat's update on PostgreSQL: one statement for all the seats, their tables and numbers as
two arrays (a quarter of the CPU of running :data:`_SEEN` for each of 250 seats)."""
_SIGNS_ARRAYS = text("UPDATE seats SET seen_at = v.at FROM unnest(CAST(:t AS TEXT[]), CAST(:s AS INTEGER[]), "
                     "CAST(:at AS FLOAT8[])) AS v(t, s, at) WHERE seats.table_id = v.t AND seats.seat = v.s")
"""The sockets' signs of life written in a group's transaction on PostgreSQL (:meth:`Store.seen_async`):
:data:`_SEEN_ARRAYS` with a time for each seat, one statement for all the group's signs."""
_SIGNS_MOST = 2000
"""The most signs of life one grouped transaction writes (the rest wait for the next)."""
_RETRIED_STATES = frozenset({"40P01", "40001"})
"""PostgreSQL's deadlock and serialization failure: the transaction was rolled back whole, and the
same transaction again is expected to pass (:meth:`Store._commit_group`)."""
_PUBLIC_TABLES = (select(Table).where(Table.status.in_(bindparam("statuses", expanding=True)), Table.private.is_(False))
                  .order_by(Table.created_at.desc()).limit(bindparam("limit")))
"""The newest public tables in some statuses (:meth:`Store.tables`), built once: the lists are
parameters."""
_SEATS_OF = select(Seat).where(Seat.table_id.in_(bindparam("ids", expanding=True))).order_by(Seat.seat)
"""The seats of some tables, built once."""
_SESSIONS_UNTIL = select(Session.token_hash, Session.expires_at).where(
    Session.token_hash.in_(bindparam("hashes", expanding=True)), Session.expires_at >= bindparam("now"))
"""Which of some sessions are still valid, and until when (the hub's look at its sockets' sessions,
every few seconds while sockets open), built once."""
_STEP_COUNTS = (select(Step.table_id, func.max(Step.n)).where(Step.table_id.in_(bindparam("ids", expanding=True)))
                .group_by(Step.table_id))
"""The steps some tables have stored, built once."""
_REREAD_TABLES = (select(Table.id, Table.status, Seat.kind, Seat.account_id, Seat.name, Seat.left)
                  .join(Seat, Seat.table_id == Table.id).where(Table.id.in_(bindparam("ids", expanding=True)))
                  .order_by(Table.id, Seat.seat))
"""The hub's re-read of its tables' status and seats, built once."""
_DISABLED = select(Account.id).where(Account.id.in_(bindparam("ids", expanding=True)), Account.disabled.is_(True))
"""Which of some accounts are disabled, built once."""
_TABLES = Table.metadata.tables["tables"]
_LEASE_FREE = ((_TABLES.c.owner == bindparam("me")) | (_TABLES.c.lease_until < bindparam("now"))
               | _TABLES.c.owner.is_(None))
"""A table's lease is ``me``'s to take or renew: held by it already, run out, or held by nobody."""
_CLAIM = (update(_TABLES).where(_TABLES.c.id == bindparam("table"), _LEASE_FREE)
          .values(owner=bindparam("me"), lease_until=bindparam("until")))
_CLAIM_FORCE = update(_TABLES).where(_TABLES.c.id == bindparam("table")).values(owner=bindparam("me"),
                                                                                lease_until=bindparam("until"))
_RENEW_LEASES = (update(_TABLES).where(_TABLES.c.status == "running", _LEASE_FREE)
                 .values(owner=bindparam("me"), lease_until=bindparam("until")).returning(_TABLES.c.id))
"""The lease statements (:meth:`Store.claim`, :meth:`Store.renew_leases`), built once: built anew at
each call (every few seconds in a process on Redis), their ``OR`` left bound parameters in reference
cycles for the garbage collector (docs/server.md)."""
_ACCOUNTS = Account.metadata.tables["accounts"]
_SESSIONS = Session.metadata.tables["sessions"]
_CHAT = Chat.metadata.tables["chat"]
_ACCOUNT = select(_ACCOUNTS).where(_ACCOUNTS.c.id == bindparam("id"))
_SESSION_ACCOUNT = (select(_ACCOUNTS).join_from(_SESSIONS, _ACCOUNTS, _ACCOUNTS.c.id == _SESSIONS.c.account_id)
                    .where(_SESSIONS.c.token_hash == bindparam("token"), _SESSIONS.c.expires_at >= bindparam("now"),
                           _ACCOUNTS.c.disabled == false()))
"""The account of a session that is valid now: not ended (its row exists), not expired, the account
not disabled (by ``updown admin``): :data:`_SIGNED_IN`'s rule, the account's row with it."""
_TABLE_SEATS = (select(_TABLES, _SEATS).join_from(_TABLES, _SEATS, _SEATS.c.table_id == _TABLES.c.id, isouter=True)
                .where(_TABLES.c.id == bindparam("table")).order_by(_SEATS.c.seat))
"""A table's row with each of its seats in order (one row of NULL seat columns if it has none)."""
_CHAT_LINES = (select(_CHAT, _ACCOUNTS.c.name).join_from(_CHAT, _ACCOUNTS, _ACCOUNTS.c.id == _CHAT.c.account_id)
               .where(_CHAT.c.table_id == bindparam("table"), _CHAT.c.seq > bindparam("after")))
_CHAT_AFTER = _CHAT_LINES.order_by(_CHAT.c.seq)
_CHAT_LAST = _CHAT_LINES.order_by(_CHAT.c.seq.desc()).limit(bindparam("last"))
"""A table's chat lines after one, with their authors' names: all of them, oldest first, or the last
so many, newest first."""
_ACCOUNT_COLUMNS = tuple(c.key for c in _ACCOUNTS.c)
_TABLE_COLUMNS = tuple(c.key for c in _TABLES.c)
_SEAT_COLUMNS = tuple(c.key for c in _SEATS.c)

_M = TypeVar("_M", bound=Base)


def _loaded(model: type[_M], columns: Sequence[str], values: Sequence[Any]) -> _M:
    """A model instance holding a row's values (every column), as a read on the ORM gave it, and in
    no session (the callers had a closed session's). Made as SQLAlchemy's own loading makes one (the
    class manager's ``new_instance``, the values put in the instance's dictionary), not through the
    constructor, whose ``setattr`` a column cost 14 µs an Account and 31 µs a Table."""
    obj = cast(_M, inspect(model).class_manager.new_instance())
    obj.__dict__.update(zip(columns, values))
    return obj


configure_mappers()  # (the constructor would configure them at its first use; ``new_instance`` does not)


def _session_account(conn: Connection, token: str) -> Account | None:
    row = conn.execute(_SESSION_ACCOUNT, {"token": token_hash(token), "now": time.time()}).first()
    return None if row is None else _loaded(Account, _ACCOUNT_COLUMNS, row)


def _table(conn: Connection, table_id: str) -> tuple[Table, list[Seat]] | None:
    rows = conn.execute(_TABLE_SEATS, {"table": table_id}).all()
    if not rows:
        return None
    width = len(_TABLE_COLUMNS)
    table = _loaded(Table, _TABLE_COLUMNS, rows[0][:width])
    return table, [_loaded(Seat, _SEAT_COLUMNS, row[width:]) for row in rows if row[width] is not None]


def _chat(conn: Connection, table_id: str, after: int, last: int | None) -> list[ChatRow]:
    if last is not None:
        rows = conn.execute(_CHAT_LAST, {"table": table_id, "after": after, "last": last}).all()[::-1]
    else:
        rows = conn.execute(_CHAT_AFTER, {"table": table_id, "after": after}).all()
    return [ChatRow(r.seq, r.n, r.account_id, r.name, r.seat, r.text, r.preset, r.at) for r in rows]


class _Driver:
    """A Core statement compiled once for an engine's dialect and run on the DB-API cursor of a
    connection's transaction: the hot statements of the grouped write (a person's check, a step's
    row), for which SQLAlchemy's execution (the cache key, compiled-statement lookup, parameter
    processing and result wrapping, about three quarters of the writer thread's time) cost far more
    than the database did. The SQL is the dialect's own rendering of the statement, so SQLite and
    PostgreSQL get what SQLAlchemy would send; the values are passed as they are (strings, numbers,
    None: SQLAlchemy's only conversion for these columns is SQLite's ``float()`` of a float; a row
    comes back as the driver gives it, SQLite's booleans as 0 and 1). A DB-API error is raised as
    SQLAlchemy's (an :class:`IntegrityError` for a taken key, an ``OperationalError`` for a database
    that is away: what the callers and the outage checks expect), and a lost connection is
    invalidated, as SQLAlchemy's own execution does. Listeners of ``before_cursor_execute`` and
    ``after_cursor_execute`` are told of each statement (with no execution context; they cannot
    change it)."""

    def __init__(self, statement: ClauseElement, dialect: Dialect):
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        self.sql = str(compiled)
        self.fixed = {k: v for k, v in compiled.params.items() if v is not None}
        """Literal values of the statement (``kind = 'person'``) that SQLAlchemy made parameters."""
        self.order = tuple(compiled.positiontup or ()) if dialect.positional else None
        self.dialect = dialect

    def params(self, values: dict[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        values = {**self.fixed, **values} if self.fixed else values
        return values if self.order is None else tuple(values[k] for k in self.order)

    def run(self, conn: Connection, params: tuple[Any, ...] | dict[str, Any] | list[Any], many: bool = False) -> Any:
        """Execute (``many``: a list of parameter sets, one call): the first row of a statement
        that returns rows, else the count of rows it wrote (None for ``many``)."""
        dbapi_conn = conn.connection
        cursor = dbapi_conn.cursor()
        watched = conn.dispatch.before_cursor_execute or conn.dispatch.after_cursor_execute
        try:
            if watched:  # listeners of the engine (tests, instrumentation) still see every statement
                conn.dispatch.before_cursor_execute(conn, cursor, self.sql, params, None, many)
            if many:
                cursor.executemany(self.sql, params)  # type: ignore[arg-type]
                row = None
            else:
                cursor.execute(self.sql, params)
                row = cursor.fetchone() if cursor.description else cursor.rowcount
            if watched:
                conn.dispatch.after_cursor_execute(conn, cursor, self.sql, params, None, many)
            return row
        except self.dialect.loaded_dbapi.Error as err:
            invalidated = self.dialect.is_disconnect(err, dbapi_conn, cursor)
            wrapped = DBAPIError.instance(self.sql, params, err, self.dialect.loaded_dbapi.Error,
                                          connection_invalidated=invalidated, dialect=self.dialect, ismulti=many)
            if invalidated:
                conn.invalidate(wrapped)
            try:
                raise wrapped from err
            finally:
                del wrapped  # (this frame, in its traceback, would hold it: a reference cycle)
        finally:
            cursor.close()


class Conflict(Exception):
    """Another writer stored a step with the same number first (or the same client id)."""


@dataclass
class StepRow:
    n: int
    seat: int | None
    label: str | None
    notation: str
    client_id: str | None
    by: str
    at: float


@dataclass
class Finish:
    """What is written in the transaction of a game's last step."""

    result: dict[str, Any]
    postings: dict[int, int]  # account id -> amount (sums to zero), empty for none
    ratings: dict[int, tuple[float, float]]  # account id -> new (mu, sigma)
    txn: str


@dataclass
class Posting:
    """Ledger entries written with a step that is not the last (a leave's charge): one transaction
    id, amounts per account that sum to zero."""

    txn: str
    postings: dict[int, int]


@dataclass
class ChatRow:
    """One stored line of a table's chat (``models.Chat``) with its author's name."""

    seq: int
    n: int
    account_id: int
    name: str
    seat: int | None
    text: str
    preset: str | None
    at: float


@dataclass(frozen=True)
class Actor:
    """Who sends a person's action: checked in the transaction that stores its step, so that the
    session is valid and the seat is the account's at the moment the step is stored (not one
    database read earlier, and at no extra round trip)."""

    session: str
    """The hash of the socket's session token."""
    account_id: int
    seat: int


class Unheld(Exception):
    """The actor's session ended (signed out, expired, account disabled) or the seat is no longer
    its account's: nothing is written."""

    def __init__(self, signed_out: bool):
        super().__init__("signed out" if signed_out else "the seat is no longer this account's")
        self.signed_out = signed_out


class Unbalanced(Exception):
    """A settlement or posting whose amounts do not sum to zero: refused, nothing is written."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Store:
    def __init__(self, engine: Engine):
        self.engine = engine
        self._pending: list[tuple[str, Sequence[StepRow], Finish | Posting | None, Actor | None,
                                  asyncio.Future[Exception | None]]] = []
        self._signs: list[tuple[str, Sequence[int], float, asyncio.Future[Exception | None]]] = []
        """Signs of life (table, seats, time) waiting for the next grouped transaction
        (:meth:`seen_async`), each with its caller's future."""
        self._sqlite = engine.dialect.name == "sqlite"
        self._writers: set[asyncio.Task[None]] = set()
        self._most_writers = 1 if self._sqlite else 4
        """SQLite has one writer at a time: one thread writes, grouping steps into transactions.
        PostgreSQL takes several: up to four transactions at once, each grouping what waits."""
        self._executor = ThreadPoolExecutor(max_workers=1 if self._sqlite else 8, thread_name_prefix="updown-writer")
        self._actor_check = _Driver(_ACTOR_CHECK, engine.dialect)
        self._insert_step = _Driver(_INSERT_STEP, engine.dialect)
        self._insert_acted = _Driver(_INSERT_ACTED, engine.dialect)
        self._seen_arrays = engine.dialect.name == "postgresql"
        self._seen = _Driver(_SEEN_ARRAYS if self._seen_arrays else _SEEN, engine.dialect)
        self._signs_seen = _Driver(_SIGNS_ARRAYS, engine.dialect) if self._seen_arrays else self._seen

    def ping(self) -> None:
        """Raise if the database does not answer now (the hub's watch loop asks every second)."""
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    # -- accounts -------------------------------------------------------------------------------
    def create_account(self, name: str, kind: str, pw_hash: str | None) -> int | None:
        """The new account's id, or None if the name is taken."""
        try:
            with DbSession(self.engine) as s, s.begin():
                acc = Account(name=name, kind=kind, pw_hash=pw_hash, created_at=time.time())
                s.add(acc)
                s.flush()
                return acc.id
        except IntegrityError:
            return None

    def account_by_name(self, name: str) -> Account | None:
        with DbSession(self.engine) as s:
            return s.scalar(select(Account).where(Account.name == name))

    def account(self, account_id: int) -> Account | None:
        with self.engine.connect() as conn:
            row = conn.execute(_ACCOUNT, {"id": account_id}).first()
        return None if row is None else _loaded(Account, _ACCOUNT_COLUMNS, row)

    def account_id_for(self, name: str, kind: str) -> int:
        """The id of a bot or house account, created on first use."""
        acc = self.account_by_name(name)
        if acc is not None:
            return acc.id
        made = self.create_account(name, kind, None)
        if made is None:  # created by another process meanwhile
            acc = self.account_by_name(name)
            assert acc is not None
            return acc.id
        return made

    def set_password(self, account_id: int, pw_hash: str) -> None:
        with DbSession(self.engine) as s, s.begin():
            s.execute(update(Account).where(Account.id == account_id).values(pw_hash=pw_hash))

    def new_session(self, account_id: int) -> str:
        token = secrets.token_urlsafe(32)
        with DbSession(self.engine) as s, s.begin():
            s.add(Session(token_hash=token_hash(token), account_id=account_id,
                          expires_at=time.time() + SESSION_SECONDS))
        return token

    def session_account(self, token: str) -> Account | None:
        """The account of this session token if the session is valid now: not ended, not expired, the
        account not disabled (by ``updown admin``). One statement built once (:data:`_SESSION_ACCOUNT`):
        it runs at every socket's open and every HTTP request, and the ORM's two ``Session.get``
        cost the interpreter several times what the database did."""
        with self.engine.connect() as conn:
            return _session_account(conn, token)

    def session_expiry(self, hashes: Sequence[str]) -> dict[str, float]:
        """Of these session token hashes, those still signed in (not ended, not expired), each with
        when it expires."""
        if not hashes:
            return {}
        with DbSession(self.engine) as s:
            rows = s.execute(_SESSIONS_UNTIL, {"hashes": list(hashes), "now": time.time()}).all()
            return {str(h): float(at) for h, at in rows}

    def end_session(self, token: str) -> None:
        with DbSession(self.engine) as s, s.begin():
            row = s.get(Session, token_hash(token))
            if row is not None:
                s.delete(row)

    def balance(self, account_id: int) -> int:
        with DbSession(self.engine) as s:
            return int(s.scalar(select(func.coalesce(func.sum(Entry.amount), 0))
                                .where(Entry.account_id == account_id)) or 0)

    def ledger_total(self) -> int:
        with DbSession(self.engine) as s:
            return int(s.scalar(select(func.coalesce(func.sum(Entry.amount), 0))) or 0)

    def entries(self, account_id: int) -> list[dict[str, Any]]:
        with DbSession(self.engine) as s:
            rows = s.scalars(select(Entry).where(Entry.account_id == account_id).order_by(Entry.id)).all()
            return [{"txn": e.txn, "amount": e.amount, "table": e.table_id, "at": e.at} for e in rows]

    # -- tables ---------------------------------------------------------------------------------
    def create_table(self, table: Table, seats: Sequence[Seat]) -> None:
        with DbSession(self.engine) as s, s.begin():
            s.add(table)
            s.flush()
            for seat in seats:
                s.add(seat)

    def table(self, table_id: str) -> tuple[Table, list[Seat]] | None:
        """The table's row and its seats in order, as instances in no session; None if there is no
        such table. One statement built once (:data:`_TABLE_SEATS`), read at every socket's open."""
        with self.engine.connect() as conn:
            return _table(conn, table_id)

    def tables(self, statuses: Sequence[str], limit: int = 200) -> list[tuple[Table, list[Seat]]]:
        """The newest public tables in these statuses, with their seats (the lobby's list, ``GET
        /api/tables``). Its statements are built once: an ``IN`` list built anew at each call left
        about ten objects in reference cycles for the garbage collector (see :meth:`seen`)."""
        with DbSession(self.engine) as s:
            rows = s.scalars(_PUBLIC_TABLES, {"statuses": list(statuses), "limit": limit}).all()
            ids = [t.id for t in rows]
            seats = s.scalars(_SEATS_OF, {"ids": ids}).all() if ids else []
            s.expunge_all()
        by_table: dict[str, list[Seat]] = {}
        for seat in seats:
            by_table.setdefault(seat.table_id, []).append(seat)
        return [(t, by_table.get(t.id, [])) for t in rows]

    def bot_tables(self, account_id: int) -> int:
        """Tables this account created that are open or running and have no seat for a person."""
        with DbSession(self.engine) as s:
            people = select(Seat.table_id).where(Seat.kind.in_(("person", "open"))).scalar_subquery()
            return int(s.scalar(select(func.count()).select_from(Table).where(
                Table.created_by == account_id, Table.status.in_(("open", "running")),
                Table.id.not_in(people))) or 0)

    def running_table_ids(self) -> list[str]:
        with DbSession(self.engine) as s:
            return list(s.scalars(select(Table.id).where(Table.status == "running")).all())

    def account_tables(self, account_id: int, limit: int = 50) -> list[tuple[Table, list[Seat]]]:
        with DbSession(self.engine) as s:
            ids = list(s.scalars(select(Seat.table_id).where(Seat.account_id == account_id)).all())
            rows = s.scalars(select(Table).where(Table.id.in_(ids)).order_by(Table.created_at.desc())
                             .limit(limit)).all() if ids else []
            seats = s.scalars(select(Seat).where(Seat.table_id.in_([t.id for t in rows]))
                              .order_by(Seat.seat)).all() if rows else []
            s.expunge_all()
        by_table: dict[str, list[Seat]] = {}
        for seat in seats:
            by_table.setdefault(seat.table_id, []).append(seat)
        return [(t, by_table.get(t.id, [])) for t in rows]

    def take_seat(self, table_id: str, seat: int, account_id: int, name: str) -> str | None:
        """Sit ``account_id`` at an open seat of an open table. None if done, else why not:
        ``"taken"`` (someone took the seat meanwhile) or ``"seated"`` (this account already holds
        a seat here: the unique index decides, so racing joins of one account win once)."""
        try:
            with DbSession(self.engine) as s, s.begin():
                t = s.get(Table, table_id)
                if t is None or t.status != "open":
                    return "taken"
                res = s.execute(update(Seat).where(Seat.table_id == table_id, Seat.seat == seat,
                                                   Seat.kind == "open")
                                .values(kind="person", account_id=account_id, name=name, seen_at=time.time()))
                return None if res.rowcount == 1 else "taken"  # type: ignore[attr-defined]
        except IntegrityError:
            return "seated"

    def free_seat(self, table_id: str, seat: int, account_id: int) -> bool:
        with DbSession(self.engine) as s, s.begin():
            t = s.get(Table, table_id)
            if t is None or t.status != "open":
                return False
            res = s.execute(update(Seat).where(Seat.table_id == table_id, Seat.seat == seat,
                                               Seat.account_id == account_id)
                            .values(kind="open", account_id=None, name=""))
            return res.rowcount == 1  # type: ignore[attr-defined, no-any-return]

    def start_table(self, table_id: str) -> bool:
        """Mark an open table running if every seat is filled; True if this call started it."""
        with DbSession(self.engine) as s, s.begin():
            open_seats = s.scalar(select(func.count()).select_from(Seat)
                                  .where(Seat.table_id == table_id, Seat.kind == "open"))
            if open_seats:
                return False
            res = s.execute(update(Table).where(Table.id == table_id, Table.status == "open")
                            .values(status="running"))
            if res.rowcount != 1:  # type: ignore[attr-defined]
                return False
            # Every person's grace countdown starts at the start, whether or not they ever connect.
            s.execute(update(Seat).where(Seat.table_id == table_id, Seat.kind == "person")
                      .values(seen_at=time.time()))
            return True

    def seen(self, table_id: str, seats: Sequence[int], at: float | None = None) -> None:
        """Record that the holders of ``seats`` have a connection open now (or at ``at``): a socket
        opened or closed. The heartbeat's statement (:meth:`seen_many`): an ``IN`` list built anew
        at each call left about ten objects in reference cycles (SQLAlchemy's cloned bound
        parameters) for the garbage collector, twice a socket (docs/server.md, "What a closed
        socket leaves to the collector")."""
        self.seen_many([(table_id, seat) for seat in seats], at if at is not None else time.time())

    def seen_many(self, seats: Sequence[tuple[str, int]], at: float) -> None:
        """Record that the holders of these (table, seat) pairs have a connection open at ``at``: the
        heartbeat of every table a process drives, in one transaction (one per table cost an idle
        site a commit per table every few seconds)."""
        if not seats:
            return
        seen = self._seen  # on the driver's cursor: the heartbeat writes at every clock turn
        with self.engine.begin() as conn:
            if self._seen_arrays:  # one statement for all
                seen.run(conn, seen.params({"at": at, "t": [t for t, _s in seats], "s": [s for _t, s in seats]}))
            else:  # one statement run for every pair (an IN list of them was compiled anew each time)
                seen.run(conn, [seen.params({"t": table_id, "s": seat, "at": at}) for table_id, seat in seats],
                         many=True)

    def abort_table(self, table_id: str, reason: str) -> bool:
        """End a running table without a result (nobody played it); True if this call ended it."""
        with DbSession(self.engine) as s, s.begin():
            res = s.execute(update(Table).where(Table.id == table_id, Table.status == "running")
                            .values(status="aborted", finished_at=time.time(),
                                    result=json.dumps({"aborted": reason})))
            return res.rowcount == 1  # type: ignore[attr-defined, no-any-return]

    def posted(self, table_id: str, txn_prefix: str) -> dict[int, int]:
        """Per account, the sum of this table's ledger entries whose transaction id starts so."""
        with DbSession(self.engine) as s:
            rows = s.execute(select(Entry.account_id, func.sum(Entry.amount))
                             .where(Entry.table_id == table_id, Entry.txn.startswith(txn_prefix, autoescape=True))
                             .group_by(Entry.account_id)).all()
            return {int(a): int(v) for a, v in rows}

    def set_seat(self, table_id: str, seat: int, **values: Any) -> None:
        with DbSession(self.engine) as s, s.begin():
            s.execute(update(Seat).where(Seat.table_id == table_id, Seat.seat == seat).values(**values))

    def mark_left(self, table_id: str, seat: int) -> bool:
        """Mark a seat as left for good; True only for the one call that changed it (races lose)."""
        with DbSession(self.engine) as s, s.begin():
            res = s.execute(update(Seat).where(Seat.table_id == table_id, Seat.seat == seat,
                                               Seat.left.is_(False)).values(left=True, away=False))
            return res.rowcount == 1  # type: ignore[attr-defined, no-any-return]

    def claim(self, table_id: str, owner: str, seconds: float, force: bool = False) -> bool:
        """Take or renew the lease to drive a table (bots, chance, clocks)."""
        now = time.time()
        with DbSession(self.engine) as s, s.begin():
            res = s.execute(_CLAIM_FORCE if force else _CLAIM,
                            {"table": table_id, "me": owner, "now": now, "until": now + seconds})
            return res.rowcount == 1  # type: ignore[attr-defined, no-any-return]

    def release(self, owner: str) -> int:
        """Give back every lease ``owner`` holds (a graceful stop); how many."""
        with DbSession(self.engine) as s, s.begin():
            res = s.execute(update(Table).where(Table.owner == owner).values(owner=None, lease_until=0.0))
            return int(res.rowcount)  # type: ignore[attr-defined]

    def renew_leases(self, owner: str, seconds: float) -> list[str]:
        """Renew every running table's lease ``owner`` holds and take every running table whose
        lease ran out (or that nobody holds), in one statement; the ids of the tables ``owner``
        drives now. Each row's condition is :meth:`claim`'s, checked as the row is written, so two
        processes never both take a table. One statement whatever the number of tables: a read and
        then a transaction a table cost a process with Redis a sixth to a third of a core at 2,000
        to 5,000 idle players (docs/server.md)."""
        now = time.time()
        with DbSession(self.engine) as s, s.begin():
            return list(s.scalars(_RENEW_LEASES, {"me": owner, "now": now, "until": now + seconds}).all())

    # -- steps ----------------------------------------------------------------------------------
    def steps(self, table_id: str, after: int = 0) -> list[StepRow]:
        with DbSession(self.engine) as s:
            rows = s.scalars(select(Step).where(Step.table_id == table_id, Step.n > after).order_by(Step.n)).all()
            return [StepRow(r.n, r.seat, r.label, r.notation, r.client_id, r.by, r.at) for r in rows]

    def step_counts(self, table_ids: Sequence[str]) -> dict[str, int]:
        """How many steps each of these tables has stored (a table with none is left out): one
        read of the steps' primary key."""
        if not table_ids:
            return {}
        with DbSession(self.engine) as s:
            rows = s.execute(_STEP_COUNTS, {"ids": list(table_ids)}).all()
            return {table_id: int(n) for table_id, n in rows}

    def commit(self, table_id: str, rows: Sequence[StepRow], finish: Finish | Posting | None,
               actor: Actor | None = None) -> None:
        """Store steps (and, with the last step, the result, ledger and ratings) atomically.

        Raises :class:`Conflict` if a step number or a client id is taken, :class:`Unbalanced` if
        the ledger entries do not sum to zero, :class:`Unheld` if ``actor`` (a person's action) no
        longer has a valid session or no longer holds the seat: in every case nothing is written.
        ``finish`` is the result of a game's last step, or a :class:`Posting` that goes with an
        earlier step.
        """
        error = self._commit_batch([(table_id, rows, finish, actor)])[0]
        if error is not None:
            try:
                raise error
            finally:
                del error  # (this frame, in its traceback, would hold it: a reference cycle)

    async def commit_async(self, table_id: str, rows: Sequence[StepRow], finish: Finish | Posting | None,
                           actor: Actor | None = None) -> None:
        """:meth:`commit` from the event loop, grouped: steps of many tables that arrive together are
        written in one database transaction (one sync to disk, one commit for all of them), each in a
        savepoint of its own so that one table's conflict or refused actor does not touch the others.
        Returns once the transaction holding this table's steps is committed. SQLite: one writer
        thread. PostgreSQL: up to four transactions at once; a step that ends a game or posts to the
        ledger has a transaction of its own (its rows of ratings and balances are not held by a group)."""
        loop = asyncio.get_running_loop()
        if not self._sqlite and finish is not None:
            await loop.run_in_executor(self._executor, self.commit, table_id, rows, finish, actor)
            return
        future: asyncio.Future[Exception | None] = loop.create_future()
        self._pending.append((table_id, rows, finish, actor, future))
        self._wake_writer(loop)
        error = await future
        del future  # (its result is the error)
        if error is not None:
            try:
                raise error
            finally:
                del error  # (as in :meth:`commit`: no cycle through this frame)

    async def seen_async(self, table_id: str, seats: Sequence[int], at: float | None = None) -> None:
        """:meth:`seen` from the event loop, grouped with the steps: the sign of life waits with them
        for the store's writer and is written in the transaction of the group it joins (all the
        group's signs in one statement, after its steps), so many sockets' opens and closes cost one
        hand-off to the writer's thread and one transaction, not one each. Returns once that
        transaction is committed; raises what failed it (the database away: the group's steps and
        signs alike are not stored). A step of the group that is refused or conflicts does not
        touch the signs (see :meth:`_careful`)."""
        if not seats:
            return
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Exception | None] = loop.create_future()
        self._signs.append((table_id, seats, at if at is not None else time.time(), future))
        self._wake_writer(loop)
        failed = await future
        del future  # (its result is what failed the group, if anything)
        if failed is not None:
            try:
                raise failed
            finally:
                del failed  # (no cycle through this frame, as in :meth:`commit_async`)

    def _wake_writer(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start a writer task for what waits, unless as many run as the database takes (a running
        one takes what was added before its next transaction)."""
        self._writers = {task for task in self._writers if not task.done()}  # (a done callback comes too late)
        if len(self._writers) < self._most_writers:
            self._writers.add(loop.create_task(self._write_loop()))

    async def _write_loop(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending or self._signs:
            batch, self._pending = self._pending[:500], self._pending[500:]
            signs, self._signs = self._signs[:_SIGNS_MOST], self._signs[_SIGNS_MOST:]
            failed: Exception | None = None
            try:
                errors = await loop.run_in_executor(self._executor, self._commit_group,
                                                    [(t, r, f, a) for t, r, f, a, _ in batch],
                                                    [(t, s, at) for t, s, at, _ in signs])
            except Exception as err:  # the transaction itself failed: nothing of the batch is stored
                failed = detached(err)
                errors = [failed] * len(batch)  # (kept in this frame, it would hold it through its traceback)
            for (_t, _r, _f, _a, future), error in zip(batch, errors):
                if not future.done():
                    future.set_result(error)
            for _t, _s, _at, future in signs:
                if not future.done():
                    future.set_result(failed)
            del failed, errors, batch, signs  # (an error held here until the next group is written)

    def _commit_group(self, batch: Sequence[tuple[str, Sequence[StepRow], Finish | Posting | None, Actor | None]],
                      signs: Sequence[tuple[str, Sequence[int], float]]) -> list[Exception | None]:
        """:meth:`_commit_batch`, again if PostgreSQL rolled it back for a deadlock or a
        serialization failure (several writers' transactions, each updating seats for their signs of
        life and for an away seat's return, and the heartbeat's, may wait for each other's rows;
        the database then fails one of them whole, and it is written again). Twice more at most."""
        for attempt in range(3):
            try:
                return self._commit_batch(batch, signs)
            except DBAPIError as err:
                if attempt == 2 or getattr(err.orig, "sqlstate", None) not in _RETRIED_STATES:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _commit_batch(self, batch: Sequence[tuple[str, Sequence[StepRow], Finish | Posting | None, Actor | None]],
                      signs: Sequence[tuple[str, Sequence[int], float]] = ()) -> list[Exception | None]:
        """One transaction for the batch, on a plain connection (SQLAlchemy Core: the ORM's unit of
        work cost the writer thread, which shares the interpreter with the event loop, more than the
        database did). First without savepoints: an item that is refused (its actor's check, an
        unbalanced posting) is refused before it writes anything, so the others go on. Only an
        item that fails after it began to write (a taken step number or client id, a table no
        longer running: rare, another process wrote first) sends the batch to :meth:`_careful`,
        which writes each item in a savepoint of its own.

        ``signs`` (:meth:`seen_async`) are written after the steps, in the same transaction, on
        either path: no item's refusal or conflict touches them; only the transaction's own failure
        fails them (raised, as for the steps)."""
        results: list[Exception | None] = []
        try:
            with self.engine.begin() as conn:
                for table_id, rows, finish, actor in batch:
                    try:
                        self._write(conn, table_id, rows, finish, actor)
                        results.append(None)
                    except (Unbalanced, Unheld) as err:
                        results.append(detached(err))  # (a value now: no frames, no cycle through them)
                self._write_signs(conn, signs)
            return results
        except (IntegrityError, Conflict):
            pass
        # (outside the handler: the careful write's own errors are not chained to this one, whose
        # traceback holds this frame and the frames that called it)
        return self._careful(batch, signs)

    def _careful(self, batch: Sequence[tuple[str, Sequence[StepRow], Finish | Posting | None, Actor | None]],
                 signs: Sequence[tuple[str, Sequence[int], float]] = ()) -> list[Exception | None]:
        results: list[Exception | None] = []
        with self.engine.begin() as conn:
            for table_id, rows, finish, actor in batch:
                try:
                    with conn.begin_nested():
                        self._write(conn, table_id, rows, finish, actor)
                    results.append(None)
                except IntegrityError:
                    results.append(Conflict("a step with this number or client id is already stored"))
                except (Conflict, Unbalanced, Unheld) as err:
                    results.append(detached(err))
            self._write_signs(conn, signs)  # (outside the items' savepoints: theirs to roll back, not these)
        return results

    def _write_signs(self, conn: Connection, signs: Sequence[tuple[str, Sequence[int], float]]) -> None:
        """The signs of life of a group: :meth:`seen_many`'s statement, each seat with its own time
        (a seat signed twice in the group: its latest), in one run, the seats in order (on
        PostgreSQL, writers that lock seats' rows in one order do not deadlock over them)."""
        if not signs:
            return
        latest: dict[tuple[str, int], float] = {}
        for table_id, seats, at in signs:
            for seat in seats:
                key = (table_id, seat)
                if at > latest.get(key, -1.0):
                    latest[key] = at
        pairs = sorted(latest)
        seen = self._signs_seen
        if self._seen_arrays:
            seen.run(conn, seen.params({"t": [t for t, _s in pairs], "s": [s for _t, s in pairs],
                                        "at": [latest[p] for p in pairs]}))
        else:
            seen.run(conn, [seen.params({"t": t, "s": s, "at": latest[(t, s)]}) for t, s in pairs], many=True)

    def _check_actor(self, conn: Connection, table_id: str, actor: Actor) -> None:
        """Raise :class:`Unheld` unless the actor's session is valid now (as :meth:`session_account`
        judges it) and its account holds the seat (a person's, not left). A seat stored as away (its
        time ran out, marked by the process that drives the table) is back: its person acts. One
        statement answers both: whether the session is valid, and the seat's away if it is held."""
        check = self._actor_check
        signed_in, away = check.run(conn, check.params({"token": actor.session, "account": actor.account_id,
                                                        "now": time.time(), "table": table_id,
                                                        "actor_seat": actor.seat}))
        if not signed_in:
            raise Unheld(signed_out=True)
        if away is None:
            raise Unheld(signed_out=False)
        if away:  # (the process that acts sets an away it knows of back first; this one it had not heard of)
            conn.execute(update(Seat).where(Seat.table_id == table_id, Seat.seat == actor.seat)
                         .values(away=False, away_since=None))

    def _store_acted(self, conn: Connection, table_id: str, row: StepRow, actor: Actor) -> bool:
        """Store a person's step in the statement that checks its actor (:data:`_INSERT_ACTED`);
        False if the check did not let it (nothing written: :meth:`_check_actor` says why)."""
        acted = self._insert_acted
        return bool(acted.run(conn, acted.params({
            "table_id": table_id, "n": row.n, "seat": row.seat, "label": row.label, "notation": row.notation,
            "client_id": row.client_id, "by": row.by, "at": row.at, "token": actor.session,
            "account": actor.account_id, "now": time.time(), "table": table_id, "actor_seat": actor.seat})) == 1)

    def _write(self, conn: Connection, table_id: str, rows: Sequence[StepRow], finish: Finish | Posting | None,
               actor: Actor | None = None) -> None:
        """Refusals come before the first write (see :meth:`_commit_batch`)."""
        if actor is not None:
            if rows and finish is None and self._store_acted(conn, table_id, rows[0], actor):
                rows = rows[1:]  # stored with its check
            else:
                self._check_actor(conn, table_id, actor)
        if finish is not None:
            if sum(finish.postings.values()) != 0:
                raise Unbalanced(f"table {table_id}: the entries of {finish.txn} sum to "
                                 f"{sum(finish.postings.values())}, not 0: nothing is stored")
        if rows:
            step = self._insert_step
            params = [step.params({"table_id": table_id, "n": r.n, "seat": r.seat, "label": r.label,
                                   "notation": r.notation, "client_id": r.client_id, "by": r.by, "at": r.at})
                      for r in rows]
            if len(params) == 1:
                step.run(conn, params[0])
            else:
                step.run(conn, params, many=True)
        if finish is None:
            return
        now = time.time()
        if isinstance(finish, Posting):
            entries = [{"txn": finish.txn, "account_id": account_id, "amount": amount, "table_id": table_id,
                        "at": now} for account_id, amount in finish.postings.items() if amount]
            if entries:
                conn.execute(insert(Entry), entries)
            return
        res = conn.execute(update(Table).where(Table.id == table_id, Table.status == "running")
                           .values(status="finished", finished_at=now, result=json.dumps(finish.result)))
        if res.rowcount != 1:
            raise Conflict("the table is not running")
        if finish.postings:
            conn.execute(insert(Entry), [{"txn": finish.txn, "account_id": account_id, "amount": amount,
                                          "table_id": table_id, "at": now}
                                         for account_id, amount in finish.postings.items()])
        if not finish.ratings:
            return
        game = conn.execute(select(Table.game).where(Table.id == table_id)).scalar_one()
        for account_id, (mu, sigma) in finish.ratings.items():
            done = conn.execute(update(Rating).where(Rating.game == game, Rating.account_id == account_id)
                                .values(mu=mu, sigma=sigma, games=Rating.games + 1))
            if done.rowcount != 1:
                conn.execute(insert(Rating).values(game=game, account_id=account_id, mu=mu, sigma=sigma, games=1))

    # -- chat -----------------------------------------------------------------------------------
    def add_chat(self, table_id: str, n: int, account_id: int, seat: int | None, text: str,
                 preset: str | None) -> ChatRow:
        """Store one line; its number is the table's next (two processes racing for one number:
        the primary key lets one win, the other takes the next)."""
        for _attempt in range(8):
            try:
                with DbSession(self.engine) as s, s.begin():
                    seq = int(s.scalar(select(func.coalesce(func.max(Chat.seq), 0))
                                       .where(Chat.table_id == table_id)) or 0) + 1
                    at = time.time()
                    s.add(Chat(table_id=table_id, seq=seq, n=n, account_id=account_id, seat=seat, text=text,
                               preset=preset, at=at))
                    s.flush()
                    name = s.scalar(select(Account.name).where(Account.id == account_id)) or ""
                return ChatRow(seq, n, account_id, name, seat, text, preset, at)
            except IntegrityError:
                continue
        raise Conflict("the chat line could not be numbered; send it again")

    def chat(self, table_id: str, after: int = 0, last: int | None = None) -> list[ChatRow]:
        """The table's lines after line ``after``, oldest first (``last``: only the last so many)."""
        with self.engine.connect() as conn:
            return _chat(conn, table_id, after, last)

    def socket_open(self, token: str | None, table_id: str, chat_last: int
                    ) -> tuple[Account | None, tuple[Table, list[Seat]] | None, list[ChatRow]]:
        """What a table socket's open reads, in one call (one hand-off to a worker thread instead of
        three): the session's account (:meth:`session_account`, None without a token), the table
        with its seats (:meth:`table`) and its last ``chat_last`` chat lines (:meth:`chat`), each
        read as those read it, on one connection. No chat lines for a table that does not exist."""
        with self.engine.connect() as conn:
            account = _session_account(conn, token) if token else None
            found = _table(conn, table_id)
            lines = _chat(conn, table_id, 0, chat_last) if found is not None else []
        return account, found, lines

    # -- ratings --------------------------------------------------------------------------------
    def ratings(self, game: str, account_ids: Sequence[int]) -> dict[int, tuple[float, float]]:
        with DbSession(self.engine) as s:
            rows = s.scalars(select(Rating).where(Rating.game == game, Rating.account_id.in_(account_ids))).all()
            return {r.account_id: (r.mu, r.sigma) for r in rows}

    def leaderboard(self, game: str, limit: int = 100) -> list[dict[str, Any]]:
        with DbSession(self.engine) as s:
            rows = s.execute(select(Rating, Account).join(Account, Account.id == Rating.account_id)
                             .where(Rating.game == game)).all()
            ranked = sorted(rows, key=lambda row: -(row[0].mu - 3 * row[0].sigma))
            return [{"name": a.name, "kind": a.kind, "mu": r.mu, "sigma": r.sigma,
                     "ordinal": r.mu - 3 * r.sigma, "games": r.games} for r, a in ranked[:limit]]

    def account_ratings(self, account_id: int) -> list[dict[str, Any]]:
        with DbSession(self.engine) as s:
            rows = s.scalars(select(Rating).where(Rating.account_id == account_id)).all()
            return [{"game": r.game, "mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma,
                     "games": r.games} for r in rows]

    # -- what admin may have changed (``updown admin``; read by the hub every few seconds) --------
    def admin_mark(self) -> tuple[int, int | None]:
        """How many admin actions are recorded, and the last one's id: every change ``updown admin``
        makes to a table, a seat or an account is committed with its record (``admin.py``), so while
        this is as it was, nothing an admin did is new (the hub's re-read asks this first). The count
        as well as the id: a transaction that took a lower id may commit after one with a higher."""
        with self.engine.connect() as conn:
            count, last = conn.execute(select(func.count(AdminAction.id), func.max(AdminAction.id))).one()
            return int(count), None if last is None else int(last)

    def reread(self, table_ids: Sequence[str], account_ids: Sequence[int], unheld: bool
               ) -> tuple[dict[str, tuple[str, list[tuple[str, int | None, str, bool]]]], set[int], list[str]]:
        """In one read: the stored status and seats ``(kind, account, name, left)`` of these tables,
        which of these accounts are disabled, and (``unheld``) the running tables not among them."""
        with DbSession(self.engine) as s:
            tables: dict[str, tuple[str, list[tuple[str, int | None, str, bool]]]] = {}
            if table_ids:
                rows = s.execute(_REREAD_TABLES, {"ids": list(table_ids)}).all()
                for table_id, status, kind, account_id, name, left in rows:
                    tables.setdefault(table_id, (status, []))[1].append((kind, account_id, name, bool(left)))
            disabled = set(s.scalars(_DISABLED, {"ids": list(account_ids)}).all()) if account_ids else set()
            running = [t for t in s.scalars(select(Table.id).where(Table.status == "running")).all()
                       if t not in tables] if unheld else []
            return tables, disabled, running
