"""``updown db backup`` in the middle of live games, ``updown db restore`` into a new database, and
the games finish from the restored copy with every action acknowledged before the backup."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from server_util import Client, Server, User, db_rows, make_table, play_out

PG = os.environ.get("UPDOWN_TEST_POSTGRES")


def updown(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", "from updown.cli.app import main; main()", *args],
                          capture_output=True, text=True, timeout=120)


def some_moves(clients: list[Client], count: int, rng: random.Random, tag: str) -> list[str]:
    """Each client with a decision plays, until ``count`` actions are acknowledged; their ids."""
    acked: list[str] = []
    while len(acked) < count:
        for c in clients:
            c.recv(0.05)
            if c.legal and len(acked) < count:
                cid = f"{tag}{len(acked)}"
                c.send({"type": "act", "id": cid, "action": rng.choice(c.legal)["id"]})
                reply = c.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == cid)
                if reply["type"] == "ack":
                    acked.append(cid)
    return acked


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    PG is None, reason="UPDOWN_TEST_POSTGRES not set: no PostgreSQL"))])
def test_a_backup_taken_mid_game_restores_and_the_games_finish(kind: str, tmp_path: Path) -> None:
    if kind == "sqlite":
        db, restored = f"sqlite:///{tmp_path / 'live.db'}", f"sqlite:///{tmp_path / 'restored.db'}"
    else:
        from test_server import fresh_pg_db

        db, restored = fresh_pg_db(), fresh_pg_db()
    backup = tmp_path / "backup.db"
    rng = random.Random(2)
    srv = Server(db, log=tmp_path / "server.log").start()
    try:
        alice, bob = User(srv, "alice"), User(srv, "bob")
        tables = [make_table(alice, game, ["me", "open", "bot:random", "bot:random"])
                  for game in ("updown", "euchre")]
        for t in tables:
            bob.post(f"/api/tables/{t['id']}/join")
        clients = [u.socket(t["id"]) for t in tables for u in (alice, bob)]
        before = some_moves(clients, 6, rng, "before")
        done = updown("db", "backup", str(backup), "--db", db)  # the server runs and plays on
        assert done.returncode == 0, done.stderr
        after = some_moves(clients, 3, rng, "after")
        assert updown("db", "backup", str(backup), "--db", db).returncode == 1  # never overwrites
        for c in clients:
            c.close()
    finally:
        srv.stop()
    done = updown("db", "restore", str(backup), "--db", restored)
    assert done.returncode == 0, done.stderr
    assert updown("db", "restore", str(backup), "--db", restored).returncode == 1  # never over a database in use
    stored = {r[0] for r in db_rows(restored, "SELECT client_id FROM steps WHERE client_id IS NOT NULL")}
    assert set(before) <= stored and not set(after) & stored  # the copy is of the moment of the backup
    srv = Server(restored, log=tmp_path / "restored.log").start()
    try:
        alice.server = bob.server = srv
        alice.http.base_url = bob.http.base_url = srv.base  # the same sessions: they are in the copy
        for t in tables:
            pair = [alice.socket(t["id"]), bob.socket(t["id"])]
            assert [c.seat for c in pair] == [0, 1]
            play_out(pair, random.Random(5), timeout=180)
            assert alice.get(f"/api/tables/{t['id']}").json()["status"] == "finished"
    finally:
        srv.stop()
