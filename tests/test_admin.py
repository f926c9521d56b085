"""``updown admin`` against the database of a running server: the CLI runs as a subprocess while
``updown serve`` runs on the same database, and the server must notice what changed (within its
re-read period, 2 s). SQLite here; with ``UPDOWN_TEST_POSTGRES`` one test runs on PostgreSQL too.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_util import Client, Server, User, closed_code, db_rows, make_table, play_out

PG = os.environ.get("UPDOWN_TEST_POSTGRES")
PASSWORD = "pass-word-1"  # server_util.User's


def admin(db: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from updown.cli.app import main; main()", "admin", *args,
                           "--db", db], capture_output=True, text=True, input=stdin, timeout=60,
                          env={**os.environ, "COLUMNS": "200"})


def ok(db: str, *args: str, stdin: str | None = None) -> str:
    r = admin(db, *args, stdin=stdin)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r.stdout


def refused(db: str, code: int, *args: str) -> str:
    """The command fails with ``code`` and one line on stderr, no traceback."""
    r = admin(db, *args)
    assert r.returncode == code, (args, r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


def misused(*args: str) -> str:
    """A usage error (exit 2, one line), found before anything is done: run in this process, as
    it needs neither the server nor a subprocess."""
    from typer.testing import CliRunner

    from updown.cli.app import app

    r = CliRunner().invoke(app, ["admin", *args])
    assert r.exit_code == 2, (args, r.exit_code, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


def logged(db: str, target: str) -> list[dict[str, Any]]:
    return list(json.loads(ok(db, "log", "--json", "--target", target)))


def balances(db: str) -> dict[str, int]:
    """Each account's balance, read from the database (``accounts list`` is checked against it once)."""
    return {name: int(total) for name, total in db_rows(
        db, "SELECT a.name, COALESCE(SUM(l.amount), 0) FROM accounts a LEFT JOIN ledger l ON l.account_id = a.id "
            "GROUP BY a.id, a.name")}


def ledger_sum(db: str) -> int:
    return int(db_rows(db, "SELECT COALESCE(SUM(amount), 0) FROM ledger")[0][0])


def login(server: Server, name: str, password: str) -> httpx.Client:
    http = httpx.Client(base_url=server.base, timeout=20)
    http.post("/api/login", json={"name": name, "password": password})
    return http


def cookie_of(http: httpx.Client) -> str:
    return "; ".join(f"{k}={v}" for k, v in http.cookies.items())



def wait_table(user: User, table_id: str, pred: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
    deadline = time.time() + timeout
    while True:
        info = dict(user.get(f"/api/tables/{table_id}").json())
        if pred(info):
            return info
        assert time.time() < deadline, f"table {table_id}: not so in {timeout} s: {info['status']} {info['seats']}"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("admin")
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log").start()
    yield srv
    srv.stop()


# -- accounts -------------------------------------------------------------------------------------
def test_disabling_signs_the_account_out_and_enabling_lets_it_back(server: Server) -> None:
    db = server.db
    ada = User(server, "ada")
    table = make_table(ada, "euchre", ["me", "bot:random", "bot:random", "bot:random"])
    ca = ada.socket(table["id"])
    # (60 s: in one CI run, under the whole suite's load, her first decision took more than 30)
    ca.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 60)
    assert "ada is disabled (1 sessions ended)" in ok(db, "accounts", "disable", "ada", "--reason", "spam",
                                                       "--by", "tester")
    assert closed_code(ca) == 4001  # the server closes its socket (re-read every 2 s)
    assert ada.get("/api/me").status_code == 401
    refused_login = httpx.post(server.base + "/api/login", json={"name": "ada", "password": PASSWORD}, timeout=20)
    assert refused_login.status_code == 403 and "disabled" in refused_login.json()["detail"]
    assert "set-cookie" not in refused_login.headers
    again = login(server, "ada", PASSWORD)  # signing in again gives nothing that works
    assert again.get("/api/me").status_code == 401
    assert Client(server, table["id"], cookie=cookie_of(again)).seat is None
    assert refused(db, 1, "accounts", "disable", "ada") == "error: ada is already disabled"
    [entry] = logged(db, "ada")
    assert (entry["action"], entry["by"], entry["reason"]) == ("account.disable", "tester", "spam")
    assert entry["details"]["sessions_ended"] == 1
    # Enabled, Ada signs in and plays her seat again.
    ok(db, "accounts", "enable", "ada")
    back = login(server, "ada", PASSWORD)
    assert back.get("/api/me").json()["name"] == "ada"
    assert Client(server, table["id"], cookie=cookie_of(back)).seat == 0
    listed = {r["name"]: r for r in json.loads(ok(db, "accounts", "list", "--json", "--kind", "person"))}
    assert listed["ada"]["disabled"] is False and listed["ada"]["kind"] == "person"
    assert {n: r["balance"] for n, r in listed.items()} == {n: b for n, b in balances(db).items() if n in listed}
    assert "ada" in ok(db, "accounts", "list")  # the rich table
    refused(db, 1, "accounts", "enable", "nobody-here")
    misused("accounts", "list", "--kind", "robot", "--db", db)
    refused("sqlite:///" + str(Path(db[len("sqlite:///"):]).parent / "missing.db"), 1, "accounts", "list")


def test_a_password_reset_ends_the_sessions_and_the_old_password_fails(server: Server) -> None:
    db = server.db
    ben = User(server, "ben")
    out = ok(db, "accounts", "password", "ben", "--reason", "forgot it")
    new = out.strip().splitlines()[-1]
    assert len(new) >= 12 and new != PASSWORD
    assert ben.get("/api/me").status_code == 401  # signed out everywhere
    assert login(server, "ben", PASSWORD).get("/api/me").status_code == 401
    assert login(server, "ben", new).get("/api/me").json()["name"] == "ben"
    ok(db, "accounts", "password", "ben", "--stdin", stdin="chosen-by-ben\n")
    assert login(server, "ben", new).get("/api/me").status_code == 401
    assert login(server, "ben", "chosen-by-ben").get("/api/me").status_code == 200
    r = admin(db, "accounts", "password", "ben", "--stdin", stdin="short\n")
    assert r.returncode == 2 and r.stderr == "error: a password has 8 to 256 characters\n"
    guest = User(server, guest=True)
    refused(db, 1, "accounts", "password", guest.name)
    actions = logged(db, "ben")
    assert [a["action"] for a in actions] == ["account.password"] * 2
    assert "chosen-by-ben" not in json.dumps(actions) and new not in json.dumps(actions)


def test_rename_follows_the_registration_rules_and_renames_the_seats(server: Server) -> None:
    db = server.db
    cyd = User(server, "cyd")
    table = make_table(cyd, "updown", ["me", "open", "bot:random", "bot:random"])
    assert "cyd is now Cyd Smith." in ok(db, "accounts", "rename", "cyd", "Cyd Smith", "--reason", "asked")
    assert cyd.get("/api/me").json()["name"] == "Cyd Smith"  # the session goes on
    assert login(server, "Cyd Smith", PASSWORD).get("/api/me").status_code == 200
    assert login(server, "cyd", PASSWORD).get("/api/me").status_code == 401
    wait_table(cyd, table["id"], lambda t: t["seats"][0]["name"] == "Cyd Smith", 10)  # the server re-read it
    User(server, "dan")
    assert "taken" in refused(db, 1, "accounts", "rename", "Cyd Smith", "dan")
    for bad in ("x", "bot:x", "guest-x", "House of cards", ".dot", "a" * 25):
        assert "is not a name" in misused("accounts", "rename", "Cyd Smith", bad, "--db", db)
    assert "No such option: -d" in misused("accounts", "rename", "Cyd Smith", "-dash", "--db", db)
    refused(db, 1, "accounts", "rename", "nobody-here", "somebody")
    assert logged(db, "cyd")[0]["details"]["to"] == "Cyd Smith"


def test_the_name_rule_is_registrations() -> None:
    from updown.server import admin as rules

    for where in ("updown.server.routes.accounts", "updown.server.app"):
        try:
            module = importlib.import_module(where)
        except ImportError:
            continue
        if hasattr(module, "NAME_RE"):
            assert module.NAME_RE.pattern == rules.NAME_RE.pattern and module.RESERVED == rules.RESERVED
            return
    pytest.fail("registration's NAME_RE was not found")


# -- tables ---------------------------------------------------------------------------------------
def test_closing_a_table_mid_game_returns_a_paid_leave_and_stops_it(server: Server) -> None:
    db = server.db
    dee, eli = User(server, "dee"), User(server, "eli")
    before = balances(db)
    table = make_table(dee, "updown-sueca", ["me", "open", "bot:greedy", "bot:greedy"], rated=True)
    tid = table["id"]
    eli.post(f"/api/tables/{tid}/join")
    cd, ce = dee.socket(tid), eli.socket(tid)
    cd.until(lambda m: m["type"] in ("frame", "snapshot") and m["leave_costs"], 30)
    cd.send({"type": "leave", "id": "bye"})
    cd.until(lambda m: m["type"] == "ack" and m["id"] == "bye")
    deadline = time.time() + 30  # the charge is posted when the leave is applied
    while not db_rows(db, "SELECT COUNT(*) FROM ledger WHERE txn = :t", t=f"table:{tid}:leave:0")[0][0]:
        assert time.time() < deadline, "the paid leave was not charged"
        ce.recv(0.2)
    assert dee.get("/api/me").json()["balance"] == before.get("dee", 0) - 100
    assert "--reason is required" in misused("tables", "close", tid, "--db", db)
    out = ok(db, "tables", "close", tid, "--reason", "a test: stakes back", "--by", "tester")
    assert "dee +100" in out and "house -100" in out
    info = ce.until(lambda m: m["type"] == "table" and m["table"]["status"] == "closed", 10)["table"]
    assert info["result"]["closed"] == "by an admin"
    # Stopped: nothing more is stored, and an action is refused.
    steps = db_rows(db, "SELECT COUNT(*) FROM steps WHERE table_id = :t", t=tid)[0][0]
    ce.send({"type": "act", "id": "late", "action": 0})
    assert ce.until(lambda m: m["type"] == "error" and m["id"] == "late")["code"] == "closed"
    time.sleep(2.5)
    assert db_rows(db, "SELECT COUNT(*) FROM steps WHERE table_id = :t", t=tid)[0][0] == steps
    assert ledger_sum(db) == 0
    after = balances(db)
    for name in ("dee", "eli", "house"):
        assert after.get(name, 0) == before.get(name, 0), name
    assert eli.get(f"/api/tables/{tid}").json()["status"] == "closed"
    assert "table.close" in ok(db, "log")  # the rich table
    [entry] = logged(db, tid)
    assert (entry["action"], entry["by"], entry["reason"]) == ("table.close", "tester", "a test: stakes back")
    assert entry["details"]["returned"] == {"dee": 100, "house": -100}
    assert "is closed" in refused(db, 1, "tables", "close", tid, "--reason", "again")
    refused(db, 1, "tables", "close", "no-such-table", "--reason", "x")
    listed = json.loads(ok(db, "tables", "list", "--json", "--status", "closed"))
    assert tid in {t["id"] for t in listed}
    assert tid in ok(db, "tables", "list", "--status", "all")  # the rich table


def test_handing_seats_to_bots_lets_a_table_finish(server: Server) -> None:
    db = server.db
    fay = User(server, "fay")
    table = make_table(fay, "updown", ["me", "bot:random", "bot:random", "bot:random"])
    tid = table["id"]
    cf = fay.socket(tid)
    cf.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 30)
    assert "is connected" in refused(db, 1, "tables", "bots", tid)  # nobody is absent
    cf.send({"type": "act", "id": "one", "action": cf.legal[0]["id"]})
    cf.until(lambda m: m["type"] == "ack")
    cf.close()
    assert "seats 0 are left" in ok(db, "tables", "bots", tid, "--seat", "0", "--reason", "gone")
    info = wait_table(fay, tid, lambda t: t["status"] == "finished", 60)
    assert info["seats"][0]["left"]
    assert db_rows(db, "SELECT COUNT(*) FROM steps WHERE table_id = :t AND seat = 0 AND by = 'stand-in'",
                   t=tid)[0][0] > 0
    refused(db, 1, "tables", "bots", tid)  # finished
    # An open table: its open seats get the stand-in and it starts; the server drives it.
    gus = User(server, "gus")
    table = make_table(gus, "updown", ["me", "open", "open", "open"])
    cg = gus.socket(table["id"])
    assert "the table has started" in ok(db, "tables", "bots", table["id"])
    play_out([cg], random.Random(2), timeout=90)
    info = gus.get(f"/api/tables/{table['id']}").json()
    assert info["status"] == "finished" and [s["kind"] for s in info["seats"]] == ["person", "bot", "bot", "bot"]
    assert [a["action"] for a in logged(db, table["id"])] == ["table.bots"]
    assert "not 7" in misused("tables", "bots", tid, "--seat", "7", "--db", db)


# -- the ledger -----------------------------------------------------------------------------------
def test_a_balance_correction_is_a_balanced_transaction_with_the_house(server: Server) -> None:
    db = server.db
    hal = User(server, "hal")
    house = balances(db).get("house", 0)
    assert "the balance is 250" in ok(db, "balance", "hal", "250", "--reason", "refund")
    ok(db, "balance", "hal", "-50", "--reason", "a fix")
    assert hal.get("/api/me").json()["balance"] == 200
    assert balances(db)["house"] == house - 200
    assert ledger_sum(db) == 0
    rows = db_rows(db, "SELECT txn, SUM(amount) FROM ledger WHERE txn LIKE 'admin:%' GROUP BY txn")
    assert rows and all(total == 0 for _txn, total in rows)
    assert "--reason is required" in misused("balance", "hal", "10", "--db", db)
    assert "other than 0" in misused("balance", "hal", "0", "--reason", "x", "--db", db)
    assert "AMOUNT" in misused("balance", "hal", "ten", "--reason", "x", "--db", db)
    refused(db, 1, "balance", User(server, guest=True).name, "10", "--reason", "x")
    refused(db, 1, "balance", "house", "10", "--reason", "x")
    assert [(a["reason"], a["details"]["amount"]) for a in logged(db, "hal")] == [("a fix", -50), ("refund", 250)]


# -- the schema -----------------------------------------------------------------------------------
def test_the_migration_adds_the_column_and_the_log_and_goes_back(tmp_path: Path) -> None:
    from alembic import command
    from sqlalchemy import inspect, text

    from updown.server.db import alembic_config, make_engine

    engine = make_engine(f"sqlite:///{tmp_path / 'm.db'}")
    cfg = alembic_config(str(engine.url))

    def to(revision: str, down: bool = False) -> None:
        with engine.begin() as conn:
            cfg.attributes["connection"] = conn
            (command.downgrade if down else command.upgrade)(cfg, revision)

    to("0002")
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO accounts (name, kind, created_at) VALUES ('old', 'person', 1.0)"))
    to("head")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT disabled FROM accounts WHERE name = 'old'")).scalar() in (0, False)
    assert "admin_actions" in inspect(engine).get_table_names()
    to("0002", down=True)
    assert "admin_actions" not in inspect(engine).get_table_names()
    assert "disabled" not in {c["name"] for c in inspect(engine).get_columns("accounts")}
    to("head")
    engine.dispose()


# -- PostgreSQL -----------------------------------------------------------------------------------
@pytest.mark.skipif(PG is None, reason="no PostgreSQL: UPDOWN_TEST_POSTGRES not set "
                                       "(start it with eval \"$(.ci/services start)\")")
def test_admin_on_postgresql(tmp_path: Path) -> None:
    from test_server import fresh_pg_db

    db = fresh_pg_db()
    srv = Server(db, log=tmp_path / "server.log").start()
    try:
        ivy, jo = User(srv, "ivy"), User(srv, "jo")
        table = make_table(ivy, "updown-sueca", ["me", "open", "bot:greedy", "bot:greedy"], rated=True)
        tid = table["id"]
        jo.post(f"/api/tables/{tid}/join")
        ci, cj = ivy.socket(tid), jo.socket(tid)
        ci.until(lambda m: m["type"] in ("frame", "snapshot") and m["leave_costs"], 30)
        ci.send({"type": "leave", "id": "bye"})
        ci.until(lambda m: m["type"] == "ack" and m["id"] == "bye")
        deadline = time.time() + 30
        while not db_rows(db, "SELECT COUNT(*) FROM ledger WHERE txn = :t", t=f"table:{tid}:leave:0")[0][0]:
            assert time.time() < deadline, "the paid leave was not charged"
            cj.recv(0.2)
        ok(db, "tables", "close", tid, "--reason", "pg")
        cj.until(lambda m: m["type"] == "table" and m["table"]["status"] == "closed", 10)
        ok(db, "balance", "jo", "40", "--reason", "pg")
        assert ledger_sum(db) == 0
        listed = {r["name"]: r["balance"] for r in json.loads(ok(db, "accounts", "list", "--json"))}
        assert listed["ivy"] == 0 and listed["jo"] == 40 and listed["house"] == -40
        assert [t["status"] for t in json.loads(ok(db, "tables", "list", "--json", "--status", "all"))] == ["closed"]
        ok(db, "accounts", "disable", "jo", "--reason", "pg")
        assert closed_code(cj) == 4001
        assert jo.get("/api/me").status_code == 401
        ok(db, "accounts", "rename", "ivy", "Ivy Two")
        ok(db, "accounts", "password", "Ivy Two")
        assert [a["action"] for a in json.loads(ok(db, "log", "--json"))] == [
            "account.password", "account.rename", "account.disable", "balance", "table.close"]
    finally:
        srv.stop()
