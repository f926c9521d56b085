"""The database: engine set-up for SQLite (default) or PostgreSQL, and Alembic migrations."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import InvalidatePoolError

MIGRATIONS = Path(__file__).parent / "migrations"
DEFAULT_URL = "sqlite:///updown.db"
PING_IDLE = 1.0
"""Seconds a pooled PostgreSQL connection may lie unused before it is pinged on its next checkout
(:func:`make_engine`)."""


def make_engine(url: str, sqlite_sync: str = "normal") -> Engine:
    """An engine for ``url``.

    SQLite runs in WAL mode. With ``sqlite_sync="normal"`` (the default) a committed transaction
    survives any crash of the server process (kill -9 included); only a crash of the machine
    itself may lose the last commits. ``"full"`` syncs the disk at every commit, so it survives
    power loss too, at a cost in latency (see the notes of the online-play issue)."""
    if sqlite_sync not in ("normal", "full"):
        raise ValueError(f"sqlite_sync is 'normal' or 'full', not {sqlite_sync!r}")
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cur = dbapi_connection.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={sqlite_sync.upper()}")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    # A connection that lay unused in the pool for PING_IDLE seconds or more is pinged before use
    # (the dialect's own ping, as pool_pre_ping does), and if it is gone every pooled connection
    # older than that moment is replaced. A connection in use (under load, the last one checked in:
    # the pool is LIFO) is not: pool_pre_ping pinged at every checkout, a round trip and about
    # 0.15 ms of CPU in front of every transaction (3 ms of wall time a commit at load 10). A
    # connection that drops within its PING_IDLE seconds (the database restarted, a backend
    # killed) fails at its first statement; SQLAlchemy then replaces every pooled connection older
    # than the failure, and that statement's caller treats it as an outage (a step's commit is
    # retried, ``outage.retried``).
    engine = create_engine(url, pool_size=12, max_overflow=8, pool_use_lifo=True)

    @event.listens_for(engine, "checkin")
    def _idle_from(_dbapi_connection: Any, record: Any) -> None:
        if record is not None:
            record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.pop("idle_since", None)
        if since is None or time.monotonic() - since < PING_IDLE:
            return  # a new connection, or one in use a moment ago
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as err:  # the pool connects again (and replaces every older connection)
            raise InvalidatePoolError(f"a pooled connection idle for {time.monotonic() - since:.0f} s "
                                      f"did not answer: {err}") from err

    return engine


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(engine: Engine) -> None:
    """Apply every migration not yet applied (idempotent; safe at each start)."""
    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")
