"""The database: engine set-up for SQLite (default) or PostgreSQL, and Alembic migrations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event

MIGRATIONS = Path(__file__).parent / "migrations"
DEFAULT_URL = "sqlite:///updown.db"


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
    return create_engine(url, pool_size=12, max_overflow=8, pool_pre_ping=True)


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
