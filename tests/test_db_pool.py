"""The PostgreSQL connection pool without a ping at every checkout (issue 35).

``pool_pre_ping`` sent a ``SELECT 1`` round trip before every transaction. Now only a connection
that lay unused in the pool for ``db.PING_IDLE`` seconds is pinged on checkout (the dialect's own
ping), and one that does not answer is replaced, with every pooled connection older than it; a
connection in use a moment ago is not pinged, and if it was dropped meanwhile its first statement
fails as an outage (which a step's commit retries), after which the pool has replaced it and the
others. These tests kill the pool's server processes with ``pg_terminate_backend`` while the
database stays up (as an idle timeout, a proxy or an operator would).
"""

from __future__ import annotations

import os
import time
from typing import Any

import psycopg
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from updown.server import db
from updown.server.outage import is_outage

POSTGRES = os.environ.get("UPDOWN_TEST_POSTGRES")
needs_postgres = pytest.mark.skipif(not POSTGRES, reason="no PostgreSQL: UPDOWN_TEST_POSTGRES not set "
                                                         '(start it with eval "$(.ci/services start)")')


def _pid(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())


def _kill(pid: int) -> None:
    """End one server process of the pool from outside it (the database stays up)."""
    assert POSTGRES
    url = make_url(POSTGRES).set(drivername="postgresql")
    with psycopg.connect(url.render_as_string(hide_password=False), autocommit=True) as conn:
        assert conn.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        for _ in range(100):  # gone once it no longer shows (terminate only signals it)
            if conn.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (pid,)).fetchone() == (0,):
                return
            time.sleep(0.05)
    raise AssertionError(f"backend {pid} still there")


def _counted_pings(engine: Engine) -> list[int]:
    pings: list[int] = []
    ping = engine.dialect.do_ping

    def counted(dbapi_connection: Any) -> bool:
        pings.append(1)
        return ping(dbapi_connection)

    engine.dialect.do_ping = counted  # type: ignore[method-assign]
    return pings


@needs_postgres
def test_a_connection_dropped_while_idle_in_the_pool_is_replaced_before_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed while it lay unused for longer than PING_IDLE: the checkout's ping finds it gone and
    the pool connects again, so the statement runs (on a new server process) without an error."""
    assert POSTGRES
    monkeypatch.setattr(db, "PING_IDLE", 0.2)
    engine = db.make_engine(POSTGRES)
    pings = _counted_pings(engine)
    try:
        before = _pid(engine)
        _kill(before)
        time.sleep(0.3)  # idle for longer than PING_IDLE
        after = _pid(engine)  # no error
        assert after != before and pings, "the idle connection was not pinged"
    finally:
        engine.dispose()


@needs_postgres
def test_a_connection_in_use_is_not_pinged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked out again within PING_IDLE of its last use: no ping (the round trip every transaction
    paid with pool_pre_ping). Idle longer, it is pinged."""
    assert POSTGRES
    monkeypatch.setattr(db, "PING_IDLE", 30.0)
    engine = db.make_engine(POSTGRES)
    pings = _counted_pings(engine)
    try:
        for _ in range(50):
            _pid(engine)
        assert pings == [], f"{len(pings)} pings for 50 transactions on a connection in use"
        monkeypatch.setattr(db, "PING_IDLE", 0.0)
        _pid(engine)
        assert pings == [1]
    finally:
        engine.dispose()


@needs_postgres
def test_a_connection_dropped_in_use_fails_once_as_an_outage_then_the_pool_is_new(monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed a moment after its last use (not pinged): its first statement fails with an error the
    server takes for an outage (a commit is retried on it: ``outage.retried``), and the pool has
    replaced every connection older than the failure, so the next statement runs."""
    assert POSTGRES
    monkeypatch.setattr(db, "PING_IDLE", 30.0)
    engine = db.make_engine(POSTGRES)
    try:
        with engine.connect() as a, engine.connect() as b:  # two pooled connections
            first = int(a.execute(text("SELECT pg_backend_pid()")).scalar_one())
            second = int(b.execute(text("SELECT pg_backend_pid()")).scalar_one())
        _kill(first)
        _kill(second)
        with pytest.raises(Exception) as failed:
            _pid(engine)
        assert is_outage(failed.value), failed.value
        assert _pid(engine) not in (first, second)
        assert _pid(engine) not in (first, second)
    finally:
        engine.dispose()
