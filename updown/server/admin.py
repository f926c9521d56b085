"""``updown admin``: what a site's host may do to accounts, tables and balances, straight in the
database (SQLite or PostgreSQL), while a server runs on it or not.

Each operation is one short transaction, and the same transaction stores the action in
``admin_actions`` (who, when, what, on what, why, what it changed). A running server notices what
changed by re-reading its tables every few seconds (``Hub._reread``): a closed table stops, seats
handed to bots are played by the stand-in, a disabled account's sockets are closed; and
``Store.session_account`` refuses a disabled account at its next request or message.

Errors: :class:`Refused` (the action cannot be done to this account or table now) and
:class:`Invalid` (a value that can never be right: a bad name, a zero amount, no reason).
See ``docs/admin.md``.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session as DbSession

from updown.server.models import Account, AdminAction, Entry, Seat, Session, Table
from updown.server.store import HOUSE

# The same rule as registration's NAME_RE and RESERVED (the server's accounts routes, which this
# module does not import): keep the two alike (tests/test_admin.py compares them).
NAME_RE = re.compile(r"^[A-Za-z0-9À-ÿ][A-Za-z0-9À-ÿ _.-]{1,23}$")
RESERVED = ("bot:", "guest-", "house")

CLOSED = "closed"
"""The status of a table closed by admin (besides open, running, finished, aborted)."""
RETURNED = "closed:"
"""The prefix of the transaction that reverses a ledger transaction of a closed table."""
ABSENT_AFTER = 15.0
"""Seconds since a seat's last stored sign of life after which its person counts as absent for
``tables bots`` (three of the hub's 5 s heartbeats)."""
MAX_AMOUNT = 1_000_000_000
MAX_REASON = 1000
MIN_PASSWORD, MAX_PASSWORD = 8, 256  # as registration


class Refused(Exception):
    """The action cannot be done (no such account, already disabled, a finished table...)."""


class Invalid(Exception):
    """A value that can never be right (a name against the rules, a zero amount, no reason)."""


def operator(by: str | None = None) -> str:
    """Who acts: ``--by``, else the operating system's user."""
    if by is not None:
        by = by.strip()
        if not 1 <= len(by) <= 64:
            raise Invalid("--by is 1 to 64 characters")
        return by
    try:
        return getpass.getuser()[:64]
    except (OSError, KeyError, ImportError):  # no user name in the environment or passwd
        return f"uid:{os.getuid()}" if hasattr(os, "getuid") else "unknown"


def check_reason(reason: str | None, required: bool, what: str) -> str | None:
    if reason is not None:
        reason = " ".join(reason.split())
    if not reason:
        if required:
            raise Invalid(f"--reason is required: say why {what}")
        return None
    if len(reason) > MAX_REASON:
        raise Invalid(f"--reason has at most {MAX_REASON} characters")
    return reason


def check_name(name: str) -> str:
    name = name.strip()
    if not NAME_RE.match(name) or name.lower().startswith(RESERVED):
        raise Invalid(f"{name[:40]!r} is not a name: a name has 2 to 24 letters, digits, spaces, '.', '_' or '-', "
                      "starts with a letter or digit, and does not start with bot:, guest- or house")
    return name


def check_schema(engine: Engine) -> None:
    """Refuse a database the server has not set up, or not up to this version (no file is created
    for a mistyped SQLite path, and no table is changed here)."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from updown.server.db import alembic_config

    url = engine.url
    if url.get_backend_name() == "sqlite":
        path = url.database or ""
        if not path or path == ":memory:" or not os.path.isfile(path):
            raise Refused(f"no database file {path or '(none)'}: give --db sqlite:///FILE of a server's database")
    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    head = ScriptDirectory.from_config(alembic_config(url.render_as_string(hide_password=False))).get_current_head()
    if current is None:
        raise Refused("this database has no updown tables: start `updown serve` on it, or run `updown db upgrade`")
    if current != head:
        raise Refused(f"this database is at revision {current}, not {head}: run `updown db upgrade --db URL` "
                      "(the server does it when it starts)")


def _record(s: DbSession, by: str, action: str, target: str, reason: str | None,
            details: dict[str, Any] | None = None) -> AdminAction:
    row = AdminAction(at=time.time(), by=by, action=action, target=target[:64], reason=reason,
                      details=json.dumps(details or {}, sort_keys=True))
    s.add(row)
    s.flush()
    return row


def _account(s: DbSession, name: str) -> Account:
    acc = s.scalar(select(Account).where(Account.name == name))
    if acc is None:
        raise Refused(f"no account named {name[:64]!r}")
    return acc


def _person(acc: Account, what: str) -> None:
    """Bots and the house are looked up by name by the server: they are not disabled or renamed."""
    if acc.kind in ("bot", "house"):
        raise Refused(f"{acc.name} is a {acc.kind} account: only people's and guests' accounts can be {what}")


def _end_sessions(s: DbSession, account_id: int) -> int:
    res = s.execute(delete(Session).where(Session.account_id == account_id))
    return int(res.rowcount or 0)  # type: ignore[attr-defined]


def _action_dict(a: AdminAction) -> dict[str, Any]:
    return {"id": a.id, "at": a.at, "by": a.by, "action": a.action, "target": a.target, "reason": a.reason,
            "details": json.loads(a.details) if a.details else {}}


# -- accounts -------------------------------------------------------------------------------------
def accounts(engine: Engine, kinds: Sequence[str] = (), limit: int = 500) -> list[dict[str, Any]]:
    """Accounts with their balances (the sum of their ledger entries), oldest first."""
    with DbSession(engine) as s:
        balance = func.coalesce(func.sum(Entry.amount), 0)
        query = (select(Account, balance).outerjoin(Entry, Entry.account_id == Account.id)
                 .group_by(Account.id).order_by(Account.created_at, Account.id).limit(limit))
        if kinds:
            query = query.where(Account.kind.in_(list(kinds)))
        return [{"id": a.id, "name": a.name, "kind": a.kind, "created_at": a.created_at, "disabled": a.disabled,
                 "balance": int(b or 0)} for a, b in s.execute(query).all()]


def disable(engine: Engine, name: str, by: str, reason: str | None) -> dict[str, Any]:
    """Disable an account: its sessions end and none is valid again until it is enabled."""
    with DbSession(engine) as s, s.begin():
        acc = _account(s, name)
        _person(acc, "disabled")
        if acc.disabled:
            raise Refused(f"{acc.name} is already disabled")
        acc.disabled = True
        ended = _end_sessions(s, acc.id)
        return _action_dict(_record(s, by, "account.disable", acc.name, reason,
                                    {"account": acc.id, "sessions_ended": ended}))


def enable(engine: Engine, name: str, by: str, reason: str | None) -> dict[str, Any]:
    with DbSession(engine) as s, s.begin():
        acc = _account(s, name)
        if not acc.disabled:
            raise Refused(f"{acc.name} is not disabled")
        acc.disabled = False
        return _action_dict(_record(s, by, "account.enable", acc.name, reason, {"account": acc.id}))


def reset_password(engine: Engine, name: str, password: str, by: str, reason: str | None) -> dict[str, Any]:
    """Set a person's password (hashed as registration does) and end their sessions."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Invalid(f"a password has {MIN_PASSWORD} to {MAX_PASSWORD} characters")
    from argon2 import PasswordHasher

    pw_hash = PasswordHasher().hash(password)  # argon2id, the library's parameters, as the server
    with DbSession(engine) as s, s.begin():
        acc = _account(s, name)
        if acc.kind != "person":
            raise Refused(f"{acc.name} is a {acc.kind} account: only registered people have passwords")
        acc.pw_hash = pw_hash
        ended = _end_sessions(s, acc.id)
        return _action_dict(_record(s, by, "account.password", acc.name, reason,
                                    {"account": acc.id, "sessions_ended": ended}))


def rename(engine: Engine, name: str, new: str, by: str, reason: str | None) -> dict[str, Any]:
    """Rename an account (registration's name rules), and its seats at every table."""
    new = check_name(new)
    try:
        with DbSession(engine) as s, s.begin():
            acc = _account(s, name)
            _person(acc, "renamed")
            if acc.name == new:
                raise Refused(f"{acc.name} already has that name")
            if s.scalar(select(Account.id).where(Account.name == new)) is not None:
                raise Refused(f"the name {new!r} is taken")
            old = acc.name
            acc.name = new
            seats = s.execute(update(Seat).where(Seat.account_id == acc.id, Seat.kind == "person")
                              .values(name=new)).rowcount  # type: ignore[attr-defined]
            return _action_dict(_record(s, by, "account.rename", old, reason,
                                        {"account": acc.id, "from": old, "to": new, "seats": int(seats or 0)}))
    except IntegrityError:  # taken meanwhile by a registration
        raise Refused(f"the name {new!r} is taken") from None


# -- tables ---------------------------------------------------------------------------------------
def tables(engine: Engine, statuses: Sequence[str] = ("open", "running"), limit: int = 200) -> list[dict[str, Any]]:
    """Tables (private ones too), newest first, with their seats."""
    with DbSession(engine) as s:
        query = select(Table).order_by(Table.created_at.desc()).limit(limit)
        if statuses:
            query = query.where(Table.status.in_(list(statuses)))
        rows = s.scalars(query).all()
        ids = [t.id for t in rows]
        seats = s.scalars(select(Seat).where(Seat.table_id.in_(ids)).order_by(Seat.seat)).all() if ids else []
        by_table: dict[str, list[dict[str, Any]]] = {}
        for seat in seats:
            by_table.setdefault(seat.table_id, []).append(
                {"seat": seat.seat, "kind": seat.kind, "name": seat.name, "left": seat.left, "away": seat.away,
                 "seen_at": seat.seen_at})
        return [{"id": t.id, "game": t.game, "status": t.status, "rated": t.rated, "private": t.private,
                 "created_at": t.created_at, "seats": by_table.get(t.id, [])} for t in rows]


def _table(s: DbSession, table_id: str) -> Table:
    t = s.get(Table, table_id)
    if t is None:
        raise Refused(f"no table {table_id[:40]!r}")
    return t


def _return_stakes(s: DbSession, table_id: str) -> dict[int, int]:
    """Reverse every ledger transaction of the table not reversed yet, each by a balanced
    transaction of its own (``closed:`` + its id, the same accounts, the opposite amounts).
    Returns what each account got back."""
    rows = s.execute(select(Entry.txn, Entry.account_id, Entry.amount).where(Entry.table_id == table_id)
                     .order_by(Entry.id)).all()
    done = {txn[len(RETURNED):] for txn, _a, _v in rows if txn.startswith(RETURNED)}
    now = time.time()
    back: dict[int, int] = {}
    for txn, account_id, amount in rows:
        if txn.startswith(RETURNED) or txn in done or not amount:
            continue
        s.add(Entry(txn=RETURNED + txn, account_id=account_id, amount=-amount, table_id=table_id, at=now))
        back[account_id] = back.get(account_id, 0) - amount
    s.flush()
    return back


def _names(s: DbSession, amounts: dict[int, int]) -> dict[str, int]:
    if not amounts:
        return {}
    names = dict(s.execute(select(Account.id, Account.name).where(Account.id.in_(list(amounts)))).tuples().all())
    return {names.get(a, str(a)): v for a, v in amounts.items() if v}


def close_table(engine: Engine, table_id: str, by: str, reason: str) -> dict[str, Any]:
    """Close an open or running table: every stake it moved (a paid leave's charge) is returned,
    the result says an admin closed it, and a server running it stops it within seconds."""
    with DbSession(engine) as s, s.begin():
        t = _table(s, table_id)
        was = t.status
        if was not in ("open", "running"):
            raise Refused(f"table {table_id} is {was}: only an open or running table can be closed")
        action = _record(s, by, "table.close", table_id, reason)
        result = {"closed": "by an admin", "admin_action": action.id, "was": was}
        # Conditional, so that a game that ended meanwhile is not closed over its result.
        res = s.execute(update(Table).where(Table.id == table_id, Table.status.in_(("open", "running")))
                        .values(status=CLOSED, finished_at=time.time(), result=json.dumps(result)))
        if res.rowcount != 1:  # type: ignore[attr-defined]
            raise Refused(f"table {table_id} ended meanwhile: nothing was changed")
        returned = _names(s, _return_stakes(s, table_id))
        action.details = json.dumps({"was": was, "returned": returned}, sort_keys=True)
        return _action_dict(action)


def sweep_closed(engine: Engine, table_id: str) -> dict[int, int]:
    """Return what a closed table's ledger still holds: a server calls this once it has stopped
    the table, for a charge it posted between the close and noticing it. Idempotent."""
    for _attempt in range(3):
        try:
            with DbSession(engine) as s, s.begin():
                t = s.get(Table, table_id)
                if t is None or t.status != CLOSED:
                    return {}
                return _return_stakes(s, table_id)
        except IntegrityError:  # another process returned them at the same time
            continue
    return {}


def hand_to_bots(engine: Engine, table_id: str, seats: Sequence[int], by: str, reason: str | None) -> dict[str, Any]:
    """Running table: mark people's seats left (the named ones, else those whose person is absent)
    so that the server's stand-in plays them to the end. Open table: its open seats (or the named
    ones) get the stand-in bot, and the table starts once every seat is filled."""
    from updown.core.registry import get_game
    from updown.server.live import standin_bot

    now = time.time()
    with DbSession(engine) as s, s.begin():
        t = _table(s, table_id)
        rows = list(s.scalars(select(Seat).where(Seat.table_id == table_id).order_by(Seat.seat)).all())
        numbers = {r.seat: r for r in rows}
        for n in seats:
            if n not in numbers:
                raise Invalid(f"table {table_id} has seats 0 to {len(rows) - 1}, not {n}")
        details: dict[str, Any] = {"was": t.status}
        if t.status == "running":
            people = [r for r in rows if r.kind == "person" and not r.left]
            if seats:
                chosen = [numbers[n] for n in sorted(set(seats))]
                bad = [r.seat for r in chosen if r not in people]
                if bad:
                    raise Refused(f"seat {bad[0]} of table {table_id} is not a person's seat still in play")
            else:
                chosen = [r for r in people if r.away or r.seen_at is None or now - r.seen_at > ABSENT_AFTER]
                if not chosen:
                    raise Refused(f"every person at table {table_id} is connected (seen in the last "
                                  f"{ABSENT_AFTER:.0f} s): name the seats to hand over with --seat N")
            for r in chosen:
                r.left, r.away = True, False
            details["left"] = [r.seat for r in chosen]
        elif t.status == "open":
            empty = [r for r in rows if r.kind == "open"]
            if seats:
                chosen = [numbers[n] for n in sorted(set(seats))]
                bad = [r.seat for r in chosen if r.kind != "open"]
                if bad:
                    raise Refused(f"seat {bad[0]} of table {table_id} is not open: before the start only open "
                                  "seats are handed to bots")
            else:
                chosen = empty
                if not chosen:
                    raise Refused(f"table {table_id} has no open seat")
            if t.rated and not any(r.kind == "person" for r in rows):
                raise Refused(f"table {table_id} is rated and has no person: bots alone are not rated")
            bot = standin_bot(get_game(t.game))
            for r in chosen:
                r.kind, r.bot, r.account_id, r.name = "bot", bot, None, f"{bot.capitalize()} bot {r.seat}"
            details["bots"] = [r.seat for r in chosen]
            s.flush()
            if all(r.kind != "open" for r in rows):  # every seat is filled: it starts, as at a join
                t.status = "running"
                for r in rows:
                    if r.kind == "person":
                        r.seen_at = now
                details["started"] = True
        else:
            raise Refused(f"table {table_id} is {t.status}: only an open or running table has seats to hand over")
        return _action_dict(_record(s, by, "table.bots", table_id, reason, details))


# -- the ledger -----------------------------------------------------------------------------------
def _house(s: DbSession) -> int:
    house = s.scalar(select(Account.id).where(Account.name == HOUSE))
    if house is None:  # as Store.account_id_for: made on first use
        acc = Account(name=HOUSE, kind="house", pw_hash=None, created_at=time.time())
        s.add(acc)
        s.flush()
        return acc.id
    return int(house)


def correct_balance(engine: Engine, name: str, amount: int, by: str, reason: str) -> dict[str, Any]:
    """Move ``amount`` RISCOS to the account (negative: from it), against the house: one balanced
    ledger transaction ``admin:ACTION``."""
    if amount == 0 or abs(amount) > MAX_AMOUNT:
        raise Invalid(f"the amount is a whole number other than 0, at most {MAX_AMOUNT:,} either way")
    for _attempt in range(2):
        try:
            with DbSession(engine) as s, s.begin():
                acc = _account(s, name)
                if acc.kind not in ("person", "bot"):
                    raise Refused(f"{acc.name} is a {acc.kind} account: "
                                  + ("guests have no balance" if acc.kind == "guest" else
                                     "the house is the other side of every correction"))
                house = _house(s)
                action = _record(s, by, "balance", acc.name, reason)
                txn = f"admin:{action.id}"
                now = time.time()
                s.add(Entry(txn=txn, account_id=acc.id, amount=amount, table_id=None, at=now))
                s.add(Entry(txn=txn, account_id=house, amount=-amount, table_id=None, at=now))
                s.flush()
                balance = int(s.scalar(select(func.coalesce(func.sum(Entry.amount), 0))
                                       .where(Entry.account_id == acc.id)) or 0)
                action.details = json.dumps({"account": acc.id, "amount": amount, "txn": txn, "balance": balance},
                                            sort_keys=True)
                return _action_dict(action)
        except IntegrityError:  # the house account was made meanwhile by the server: once more
            continue
    raise Refused("the house account could not be made; try again")


# -- the log --------------------------------------------------------------------------------------
def log(engine: Engine, limit: int = 100, target: str | None = None) -> list[dict[str, Any]]:
    """Admin actions, newest first."""
    with DbSession(engine) as s:
        query = select(AdminAction).order_by(AdminAction.id.desc()).limit(limit)
        if target:
            query = query.where(AdminAction.target == target)
        return [_action_dict(a) for a in s.scalars(query).all()]
