"""The reads of a socket's open (and of every HTTP request's account): the CPU of one call of
``Store.session_account``, ``table``, ``chat`` and ``account`` as the store has them, against the same
reads on SQLAlchemy's ORM (what they were before: kept here as the reference), and of ``seen`` (a
socket's sign of life, a write: no reference), interleaved A B, B A in one process.

    python benchmarks/store_reads.py [--db URL] [--accounts 5000] [--tables 2000] [--rounds 2000]

SQLite in a temporary folder unless --db is given (a PostgreSQL URL gets a new database of its own
in its cluster, dropped after). Realistic rows: ``--accounts`` people each with a session, as many
four-seat running tables as ``--tables``, each table's chat 0 to 40 lines (the open reads the last
101). Each call reads a random account, session or table. Prints the median CPU time (this thread's)
of a call of each kind, the ratio, and the load average; and checks that each pair answered alike.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import drop_database, fresh_database  # noqa: E402

from sqlalchemy import insert, select  # noqa: E402
from sqlalchemy.orm import Session as DbSession  # noqa: E402

import updown  # noqa: E402
from updown.server.db import make_engine, upgrade  # noqa: E402
from updown.server.models import Account, Chat, Seat, Session, Table  # noqa: E402
from updown.server.store import ChatRow, Store, token_hash  # noqa: E402


class OrmReads:
    """The reads as they were, on SQLAlchemy's ORM (a Session, ``Session.get``, ``expunge_all``)."""

    def __init__(self, store: Store):
        self.engine = store.engine

    def account(self, account_id: int) -> Account | None:
        with DbSession(self.engine) as s:
            return s.get(Account, account_id)

    def session_account(self, token: str) -> Account | None:
        with DbSession(self.engine) as s:
            row = s.get(Session, token_hash(token))
            if row is None or row.expires_at < time.time():
                return None
            acc = s.get(Account, row.account_id)
            return None if acc is None or acc.disabled else acc

    def table(self, table_id: str) -> tuple[Table, list[Seat]] | None:
        with DbSession(self.engine) as s:
            t = s.get(Table, table_id)
            if t is None:
                return None
            seats = list(s.scalars(select(Seat).where(Seat.table_id == table_id).order_by(Seat.seat)).all())
            s.expunge_all()
            return t, seats

    def chat(self, table_id: str, after: int = 0, last: int | None = None) -> list[ChatRow]:
        with DbSession(self.engine) as s:
            query = (select(Chat, Account.name).join(Account, Account.id == Chat.account_id)
                     .where(Chat.table_id == table_id, Chat.seq > after))
            if last is not None:
                rows = list(s.execute(query.order_by(Chat.seq.desc()).limit(last)).all())[::-1]
            else:
                rows = list(s.execute(query.order_by(Chat.seq)).all())
            return [ChatRow(c.seq, c.n, c.account_id, name, c.seat, c.text, c.preset, c.at) for c, name in rows]


def _same(a: Any) -> Any:
    """What a read answered, as plain values (model instances by their columns)."""
    if isinstance(a, (list, tuple)):
        return [_same(x) for x in a]
    if hasattr(a, "__table__"):
        return {c.name: getattr(a, c.name) for c in a.__table__.c}
    return a


def populate(store: Store, accounts: int, tables: int, rng: random.Random) -> tuple[list[int], list[str], list[str]]:
    now = time.time()
    with store.engine.begin() as conn:
        conn.execute(insert(Account), [{"id": i + 1, "name": f"player{i}", "kind": "person", "pw_hash": "x" * 60,
                                        "created_at": now, "disabled": i % 50 == 0} for i in range(accounts)])
        tokens = [f"token-{i}" for i in range(accounts)]
        conn.execute(insert(Session), [{"token_hash": token_hash(t), "account_id": i + 1,
                                        "expires_at": now + (-60 if i % 40 == 0 else 86400)}
                                       for i, t in enumerate(tokens)])
        ids = [f"t{i:05d}" for i in range(tables)]
        conn.execute(insert(Table), [{"id": t, "game": "updown", "players": 4, "options": '{"rounds": 3}',
                                      "seed": "s" * 32, "timer": 30.0, "grace": 120.0, "rated": True,
                                      "private": False, "status": "running", "created_by": 1, "created_at": now,
                                      "finished_at": None, "result": None, "owner": "proc", "lease_until": now}
                                     for t in ids])
        conn.execute(insert(Seat), [{"table_id": t, "seat": s, "kind": "person",
                                     "account_id": (4 * i + s) % accounts + 1, "bot": None,
                                     "name": f"player{(4 * i + s) % accounts}", "left": False,
                                     "away": False, "seen_at": now, "away_since": None}
                                    for i, t in enumerate(ids) for s in range(4)])
        lines = [{"table_id": t, "seq": q + 1, "n": q, "account_id": rng.randrange(accounts) + 1, "seat": q % 4,
                  "text": "good game " * rng.randrange(1, 5), "preset": None, "at": now}
                 for t in ids for q in range(rng.randrange(41))]
        if lines:
            conn.execute(insert(Chat), lines)
    return list(range(1, accounts + 1)), tokens, ids


def run(url: str, accounts: int, tables: int, rounds: int) -> None:
    engine = make_engine(url)
    upgrade(engine)
    store = Store(engine)
    rng = random.Random(7)
    account_ids, tokens, table_ids = populate(store, accounts, tables, rng)
    old = OrmReads(store)
    reads: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {}
    pick: dict[str, Any] = {}
    reads["session_account"] = (lambda: old.session_account(pick["token"]),
                                lambda: store.session_account(pick["token"]))
    reads["table"] = (lambda: old.table(pick["table"]), lambda: store.table(pick["table"]))
    reads["chat (last 101)"] = (lambda: old.chat(pick["table"], 0, 101), lambda: store.chat(pick["table"], 0, 101))
    reads["chat (after)"] = (lambda: old.chat(pick["table"], 5), lambda: store.chat(pick["table"], 5))
    reads["account"] = (lambda: old.account(pick["account"]), lambda: store.account(pick["account"]))
    cpu: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in reads}
    seen: list[float] = []
    differ = 0
    for r in range(rounds):
        pick.update(token=rng.choice(tokens), table=rng.choice(table_ids), account=rng.choice(account_ids))
        for name, pair in reads.items():
            answers = [None, None]
            for which in ((0, 1) if r % 2 == 0 else (1, 0)):
                c0 = time.thread_time()
                answers[which] = pair[which]()
                cpu[name][which].append(time.thread_time() - c0)
            differ += _same(answers[0]) != _same(answers[1])
        c0 = time.thread_time()
        store.seen(pick["table"], [0], time.time())
        seen.append(time.thread_time() - c0)
    engine.dispose()
    print(f"{engine.dialect.name}, updown from {Path(updown.__file__).parent}, {accounts} accounts, {tables} tables, "
          f"{rounds} calls each, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'read':<18} {'ORM (before)':>14} {'store now':>12} {'ratio':>7}   (median µs of CPU a call)")
    for name, (a, b) in cpu.items():
        ma, mb = 1e6 * statistics.median(a), 1e6 * statistics.median(b)
        print(f"{name:<18} {ma:>12.0f} µs {mb:>9.0f} µs {mb / ma:>7.2f}")
    print(f"{'seen (a write)':<18} {'':>14} {1e6 * statistics.median(seen):>9.0f} µs")
    print(f"answers that differ between the two: {differ}")
    if differ:
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--accounts", type=int, default=5000)
    parser.add_argument("--tables", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    if not 4 <= args.accounts <= 1_000_000 or not 1 <= args.tables <= 1_000_000 or not 2 <= args.rounds <= 1_000_000:
        parser.error("--accounts 4 to 1,000,000, --tables 1 to 1,000,000, --rounds 2 to 1,000,000")
    with tempfile.TemporaryDirectory() as tmp:
        url, created = fresh_database(args.db) if args.db else (f"sqlite:///{tmp}/reads.db", None)
        try:
            run(url, args.accounts, args.tables, args.rounds)
        finally:
            if created and args.db:
                drop_database(args.db, created)


if __name__ == "__main__":
    main()
