"""Backups of the server's database, taken while it runs.

SQLite: SQLite's online backup (a consistent copy even while the server writes, WAL included),
into a new file; restoring copies a backup into a database file that must not be in use. PostgreSQL:
its own tools, ``pg_dump -Fc`` and ``pg_restore``, which must be installed (Debian:
``postgresql-client``)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url


class BackupError(Exception):
    """The backup or restore could not be made; the message says why and what to do."""


def sqlite_path(url: str) -> Path | None:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if not parsed.database or parsed.database == ":memory:":
        raise BackupError("an in-memory SQLite database has nothing to back up")
    return Path(parsed.database)


def libpq_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as PostgreSQL's own tools take it."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        raise BackupError(f"backups are for sqlite:/// and postgresql URLs, not {parsed.drivername}")
    return parsed.set(drivername="postgresql").render_as_string(hide_password=False)


def backup(url: str, target: Path) -> None:
    """Write a backup of the database ``url`` to the new file ``target``."""
    if target.exists():
        raise BackupError(f"{target} exists: a backup is written to a new file")
    path = sqlite_path(url)
    if path is not None:
        if not path.is_file():
            raise BackupError(f"no database file {path}")
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        dest = sqlite3.connect(str(target))
        try:
            source.backup(dest)  # online: pages copied under a read transaction, consistent as a whole
        finally:
            dest.close()
            source.close()
        return
    _run(["pg_dump", "-Fc", "-f", str(target), "--dbname", libpq_url(url)], "pg_dump")


def restore(source: Path, url: str, *, force: bool = False) -> None:
    """Put the backup ``source`` in place as the database ``url`` (which no server may be using)."""
    if not source.is_file():
        raise BackupError(f"no backup file {source}")
    path = sqlite_path(url)
    if path is not None:
        try:
            check = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
            ok = check.execute("PRAGMA integrity_check").fetchone()
            tables = {r[0] for r in check.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            check.close()
        except sqlite3.DatabaseError as err:
            raise BackupError(f"{source} is not an SQLite backup: {err}") from None
        if ok != ("ok",) or "steps" not in tables:
            raise BackupError(f"{source} is not a sound backup of an updown database")
        if path.exists() and not force:
            raise BackupError(f"{path} exists: stop the server, then restore with --force to replace it")
        for extra in (Path(f"{path}-wal"), Path(f"{path}-shm")):
            extra.unlink(missing_ok=True)
        source_db = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        dest = sqlite3.connect(str(path))
        try:
            source_db.backup(dest)
        finally:
            dest.close()
            source_db.close()
        return
    command = ["pg_restore", "--dbname", libpq_url(url), "--no-owner"]
    if force:
        command += ["--clean", "--if-exists"]
    _run([*command, str(source)], "pg_restore")


def _run(command: list[str], tool: str) -> None:
    if shutil.which(tool) is None:
        raise BackupError(f"{tool} is not installed (Debian: apt-get install postgresql-client)")
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[0]
        raise BackupError(f"{tool} failed: {first[:300]}")
