"""``updown admin``: accounts, tables, balance corrections and the log of admin actions, straight in
the server's database (a running server notices within seconds). The work is in
``updown/server/admin.py``; see ``docs/admin.md``.

Exit codes: 0 done, 1 refused (no such account, a finished table, an unreachable database...),
2 bad usage (a name against the rules, no --reason where one is required...)."""

from __future__ import annotations

import json
import secrets
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Optional, TypeVar

import typer
from rich.table import Table
from typer.core import TyperGroup
from rich.text import Text

from updown.cli.app import app, console, fail

if TYPE_CHECKING:
    from sqlalchemy import Engine

DEFAULT_DB = "sqlite:///updown.db"  # as `updown serve`

_UsageError: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
"""Click's UsageError as typer raises it (typer carries its own copy of click)."""


class _OneLineErrors(TyperGroup):
    """A usage error under ``updown admin`` (an unknown option, a missing argument) is one line too."""

    def invoke(self, ctx: typer.Context) -> Any:
        try:
            return super().invoke(ctx)
        except _UsageError as err:
            err_ctx: Any = getattr(err, "ctx", None)
            where = err_ctx.command_path if err_ctx is not None else ctx.command_path
            message = err.format_message() if hasattr(err, "format_message") else str(err)
            raise fail(f"{message} (see {where} --help)", 2) from None


admin_app = typer.Typer(help="Accounts, tables and balances of the server's database (see docs/admin.md).",
                        no_args_is_help=True, cls=_OneLineErrors)
accounts_app = typer.Typer(help="List, disable, enable, rename accounts; reset a password.", no_args_is_help=True)
tables_app = typer.Typer(help="List tables; close one (stakes returned) or hand its seats to bots.",
                         no_args_is_help=True)
admin_app.add_typer(accounts_app, name="accounts")
admin_app.add_typer(tables_app, name="tables")
app.add_typer(admin_app, name="admin")

DbOpt = Annotated[str, typer.Option("--db", help="database URL: sqlite:///FILE or postgresql+psycopg://... "
                                                  "(the server's, as given to updown serve)")]
ByOpt = Annotated[Optional[str], typer.Option("--by", help="who acts, for the log (default: your OS user name)")]
ReasonOpt = Annotated[Optional[str], typer.Option("--reason", help="why, for the log")]
ReasonReq = Annotated[Optional[str], typer.Option("--reason", help="why, for the log (required)")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]
NameArg = Annotated[str, typer.Argument(metavar="NAME", help="the account's name")]
TableArg = Annotated[str, typer.Argument(metavar="ID", help="the table's id (the end of its link /t/ID)")]

T = TypeVar("T")


def _safe(url: str) -> str:
    """The URL without its password."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1] if "@" in url else url


@contextmanager
def _database(url: str) -> Iterator[Engine]:
    """An engine on the server's database, checked to be one (at this version); every error on the
    way out, the admin's own and the database's, as one line."""
    try:
        from sqlalchemy.exc import ArgumentError, SQLAlchemyError

        from updown.server import admin
        from updown.server.db import make_engine
    except ImportError as err:
        raise fail(f"updown admin needs the server's dependencies ({err.name}): pip install -e '.[server]'") from None
    try:
        engine = make_engine(url)
    except (ArgumentError, ValueError) as err:
        raise fail(f"--db {_safe(url)!r} is not a database URL ({str(err).splitlines()[0][:120]})") from None
    except ImportError as err:
        raise fail(f"--db {_safe(url)}: the driver is not installed ({err.name})", 1) from None
    try:
        admin.check_schema(engine)
        yield engine
    except admin.Refused as err:
        raise fail(str(err), 1) from None
    except admin.Invalid as err:
        raise fail(str(err), 2) from None
    except SQLAlchemyError as err:
        first = str(getattr(err, "orig", None) or err).strip().splitlines()
        raise fail(f"database {_safe(url)}: {first[0][:200] if first else type(err).__name__}", 1) from None
    finally:
        engine.dispose()


def _run(db: str, work: Callable[[Engine], T]) -> T:
    with _database(db) as engine:
        return work(engine)


def _by(by: str | None) -> str:
    from updown.server.admin import Invalid, operator

    try:
        return operator(by)
    except Invalid as err:
        raise fail(str(err)) from None


def _reason(reason: str | None, required: bool, what: str) -> str | None:
    from updown.server.admin import Invalid, check_reason

    try:
        return check_reason(reason, required, what)
    except Invalid as err:
        raise fail(str(err)) from None


def _when(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) if t else ""


def _done(text: str) -> None:
    console.print(Text(text))


def _json(data: Any) -> None:
    print(json.dumps(data, indent=1, ensure_ascii=False))


# -- accounts -------------------------------------------------------------------------------------
@accounts_app.command("list")
def accounts_list(
    db: DbOpt = DEFAULT_DB,
    kind: Annotated[Optional[list[str]], typer.Option(
        "--kind", help="only this kind: person, guest, bot, house (repeatable)")] = None,
    limit: Annotated[int, typer.Option(help="at most this many, oldest first")] = 500,
    as_json: JsonOpt = False,
) -> None:
    """Accounts: name, kind, created, disabled, balance (RISCOS)."""
    kinds = kind or []
    for k in kinds:
        if k not in ("person", "guest", "bot", "house"):
            raise fail(f"--kind is person, guest, bot or house, not {k[:20]!r}")
    if limit < 1:
        raise fail("--limit is at least 1")
    from updown.server import admin

    rows = _run(db, lambda engine: admin.accounts(engine, kinds, limit))
    if as_json:
        _json(rows)
        return
    table = Table(title=f"{len(rows)} accounts")
    for col in ("name", "kind", "created", "disabled", "balance"):
        table.add_column(col, justify="right" if col == "balance" else "left")
    for r in rows:
        table.add_row(Text(r["name"]), r["kind"], _when(r["created_at"]), "disabled" if r["disabled"] else "",
                      f"{r['balance']:,}" if r["kind"] != "guest" else "")
    console.print(table)


@accounts_app.command("disable")
def accounts_disable(name: NameArg, reason: ReasonOpt = None, by: ByOpt = None, db: DbOpt = DEFAULT_DB) -> None:
    """Disable an account: its sessions end, its sockets close, it cannot use the site until enabled.
    At a running table its seat counts as absent, and past the table's grace it has left."""
    from updown.server import admin

    who, why = _by(by), _reason(reason, False, "")
    done = _run(db, lambda engine: admin.disable(engine, name, who, why))
    _done(f"{done['target']} is disabled ({done['details']['sessions_ended']} sessions ended).")


@accounts_app.command("enable")
def accounts_enable(name: NameArg, reason: ReasonOpt = None, by: ByOpt = None, db: DbOpt = DEFAULT_DB) -> None:
    """Enable a disabled account again (it signs in anew)."""
    from updown.server import admin

    who, why = _by(by), _reason(reason, False, "")
    done = _run(db, lambda engine: admin.enable(engine, name, who, why))
    _done(f"{done['target']} is enabled again.")


@accounts_app.command("password")
def accounts_password(
    name: NameArg,
    stdin: Annotated[bool, typer.Option("--stdin", help="read the new password from the first line of stdin "
                                                        "(default: make a random one and print it)")] = False,
    reason: ReasonOpt = None, by: ByOpt = None, db: DbOpt = DEFAULT_DB,
) -> None:
    """Reset a person's password and end their sessions. Prints the new password (last line) unless
    it was read from stdin."""
    from updown.server import admin

    who, why = _by(by), _reason(reason, False, "")
    if stdin:
        password = sys.stdin.readline().rstrip("\r\n")
        if not password:
            raise fail("--stdin: no password on the first line of stdin")
    else:
        password = secrets.token_urlsafe(12)
    done = _run(db, lambda engine: admin.reset_password(engine, name, password, who, why))
    ended = done["details"]["sessions_ended"]
    if stdin:
        _done(f"{done['target']}: the password is set ({ended} sessions ended).")
    else:
        _done(f"{done['target']}: the password is reset ({ended} sessions ended). The new password:")
        print(password)


@accounts_app.command("rename")
def accounts_rename(
    name: NameArg,
    new: Annotated[str, typer.Argument(metavar="NEW", help="the new name (registration's rules)")],
    reason: ReasonOpt = None, by: ByOpt = None, db: DbOpt = DEFAULT_DB,
) -> None:
    """Rename an account, and its seats at every table (the account signs in with the new name)."""
    from updown.server import admin

    who, why = _by(by), _reason(reason, False, "")
    try:
        admin.check_name(new)
    except admin.Invalid as err:
        raise fail(str(err)) from None
    done = _run(db, lambda engine: admin.rename(engine, name, new, who, why))
    _done(f"{done['details']['from']} is now {done['details']['to']}.")


# -- tables ---------------------------------------------------------------------------------------
STATUSES = ("open", "running", "finished", "aborted", "closed")


@tables_app.command("list")
def tables_list(
    db: DbOpt = DEFAULT_DB,
    status: Annotated[str, typer.Option(help=f"comma separated: {', '.join(STATUSES)}, or all")] = "open,running",
    limit: Annotated[int, typer.Option(help="at most this many, newest first")] = 200,
    as_json: JsonOpt = False,
) -> None:
    """Tables (private ones too): id, game, status, seats, created."""
    wanted = [] if status.strip() == "all" else [s.strip() for s in status.split(",") if s.strip()]
    for s in wanted:
        if s not in STATUSES:
            raise fail(f"--status is a comma separated list of {', '.join(STATUSES)}, or all; not {s[:20]!r}")
    if limit < 1:
        raise fail("--limit is at least 1")
    from updown.server import admin

    rows = _run(db, lambda engine: admin.tables(engine, wanted, limit))
    if as_json:
        _json(rows)
        return
    table = Table(title=f"{len(rows)} tables")
    for col in ("id", "game", "status", "seats", "created"):
        table.add_column(col, overflow="fold" if col in ("id", "seats") else "ellipsis")
    for r in rows:
        seats = []
        for seat in r["seats"]:
            shown = "open" if seat["kind"] == "open" else seat["name"]
            seats.append(shown + (" (left)" if seat["left"] else " (away)" if seat["away"] else ""))
        status_text = r["status"] + (", rated" if r["rated"] else "") + (", private" if r["private"] else "")
        table.add_row(r["id"], r["game"], status_text, Text(", ".join(seats)), _when(r["created_at"]))
    console.print(table)


@tables_app.command("close")
def tables_close(table_id: TableArg, reason: ReasonReq = None, by: ByOpt = None, db: DbOpt = DEFAULT_DB) -> None:
    """Close an open or running table: every stake it moved is returned (a paid leave's charge), by
    balanced ledger transactions; its result says an admin closed it. A running server stops it."""
    from updown.server import admin

    who, why = _by(by), _reason(reason, True, "the table is closed")
    assert why is not None
    done = _run(db, lambda engine: admin.close_table(engine, table_id, who, why))
    returned = done["details"]["returned"]
    back = ", ".join(f"{n} {v:+,}" for n, v in sorted(returned.items())) or "nothing to return"
    _done(f"table {table_id} is closed (it was {done['details']['was']}); returned: {back}.")


@tables_app.command("bots")
def tables_bots(
    table_id: TableArg,
    seat: Annotated[Optional[list[int]], typer.Option(
        "--seat", help="this seat (repeatable; default: running, every absent person's; open, every open seat)")] = None,
    reason: ReasonOpt = None, by: ByOpt = None, db: DbOpt = DEFAULT_DB,
) -> None:
    """Hand seats to bots so the table can finish. Running: the people's seats are marked left (as
    if they had left: the stand-in plays them; a game's paid leave applies). Open: the open seats
    get the stand-in bot, and the table starts once every seat is filled."""
    from updown.server import admin

    who, why = _by(by), _reason(reason, False, "")
    done = _run(db, lambda engine: admin.hand_to_bots(engine, table_id, seat or [], who, why))
    d = done["details"]
    if "left" in d:
        _done(f"table {table_id}: seats {', '.join(map(str, d['left']))} are left; the stand-in plays them.")
    else:
        _done(f"table {table_id}: seats {', '.join(map(str, d['bots']))} are bots"
              + ("; the table has started." if d.get("started") else "."))


# -- the ledger and the log -----------------------------------------------------------------------
@admin_app.command("balance", context_settings={"ignore_unknown_options": True})
def balance(
    name: NameArg,
    amount: Annotated[int, typer.Argument(metavar="AMOUNT", help="RISCOS to give (negative: to take), e.g. 100 "
                                                                 "or -50")],
    reason: ReasonReq = None, by: ByOpt = None, db: DbOpt = DEFAULT_DB,
) -> None:
    """Correct a balance: one balanced ledger transaction between the account and the house."""
    from updown.server import admin

    who, why = _by(by), _reason(reason, True, "the balance is corrected")
    assert why is not None
    if amount == 0 or abs(amount) > admin.MAX_AMOUNT:
        raise fail(f"AMOUNT is a whole number other than 0, at most {admin.MAX_AMOUNT:,} either way")
    done = _run(db, lambda engine: admin.correct_balance(engine, name, amount, who, why))
    d = done["details"]
    _done(f"{done['target']}: {d['amount']:+,} RISCOS against the house (transaction {d['txn']}); "
          f"the balance is {d['balance']:,}.")


@admin_app.command("log")
def admin_log(
    db: DbOpt = DEFAULT_DB,
    limit: Annotated[int, typer.Option(help="at most this many, newest first")] = 100,
    target: Annotated[Optional[str], typer.Option(help="only the actions on this account name or table id")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The admin actions: when, who, what, on what, why, what changed."""
    if limit < 1:
        raise fail("--limit is at least 1")
    from updown.server import admin

    rows = _run(db, lambda engine: admin.log(engine, limit, target))
    if as_json:
        _json(rows)
        return
    table = Table(title=f"{len(rows)} admin actions")
    for col in ("when", "by", "action", "on", "reason", "details"):
        table.add_column(col, overflow="fold")
    for r in rows:
        details = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in sorted(r["details"].items()))
        table.add_row(_when(r["at"]), Text(r["by"]), r["action"], Text(r["target"]), Text(r["reason"] or ""),
                      Text(details))
    console.print(table)
