"""The heartbeat's write alone: the CPU of one ``Store.seen_many`` of N seats (one clock turn's share of
an idle site's connected seats), against the same update run through SQLAlchemy's ``execute`` for
each seat (what it was before), interleaved A B, B A.

    python benchmarks/heartbeat_write.py [--db URL] [--seats 250] [--rounds 60]

SQLite in a temporary folder unless --db is given (a PostgreSQL URL gets a new database of its own
in its cluster, dropped after). Prints the median CPU time (this thread's) of a write of each kind,
and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import drop_database, fresh_database  # noqa: E402

from updown.server.db import make_engine, upgrade  # noqa: E402
from updown.server.models import Seat, Table  # noqa: E402
from updown.server.store import _SEEN, Store  # noqa: E402


def run(url: str, seats: int, rounds: int) -> None:
    engine = make_engine(url)
    upgrade(engine)
    store = Store(engine)
    ann = store.create_account("ann", "person", None)
    for i in range(seats):
        store.create_table(Table(id=f"t{i}", game="updown", players=2, options="{}", seed="s", timer=None, grace=60.0,
                                 rated=False, private=False, status="running", created_by=ann, created_at=time.time()),
                           [Seat(table_id=f"t{i}", seat=0, kind="person", account_id=ann, name="ann")])
    pairs = [(f"t{i}", 0) for i in range(seats)]

    def each() -> None:
        with engine.begin() as conn:
            conn.execute(_SEEN, [{"t": t, "s": s, "at": time.time()} for t, s in pairs])

    def seen_many() -> None:
        store.seen_many(pairs, time.time())

    cpu: dict[str, list[float]] = {"execute each (before)": [], "seen_many": []}
    kinds = list(zip(cpu, (each, seen_many)))
    for r in range(rounds):
        for name, f in kinds if r % 2 == 0 else kinds[::-1]:
            c0 = time.thread_time()
            f()
            cpu[name].append(time.thread_time() - c0)
    engine.dispose()
    print(f"{engine.dialect.name}, {seats} seats, {rounds} writes each, load {os.getloadavg()[0]:.1f}: " + ", ".join(
        f"{name} {1000 * statistics.median(v):.2f} ms" for name, v in cpu.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--seats", type=int, default=250)
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    if not 1 <= args.seats <= 20000 or not 2 <= args.rounds <= 10000:
        parser.error("--seats 1 to 20,000, --rounds 2 to 10,000")
    with tempfile.TemporaryDirectory() as tmp:
        url, created = fresh_database(args.db) if args.db else (f"sqlite:///{tmp}/heartbeat.db", None)
        try:
            run(url, args.seats, args.rounds)
        finally:
            if created and args.db:
                drop_database(args.db, created)


if __name__ == "__main__":
    main()
