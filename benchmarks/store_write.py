"""The store's writer alone: what storing one person's action costs the server process, without
sockets, views or a load generator beside it.

    python benchmarks/store_write.py                                   # this tree, SQLite
    python benchmarks/store_write.py --src before=/tmp/base,after=. --rounds 4   # two trees, interleaved
    python benchmarks/store_write.py --db postgresql+psycopg://... --src before=/tmp/base,after=.

Each run is a process of its own, importing ``updown`` from its ``--src`` tree (PYTHONPATH). It
creates ``--tables`` running four-seat tables, every seat a signed-in person, in a new database
(SQLite in a temporary folder, or with a PostgreSQL URL a new database of that cluster, dropped
after it), then drives ``Store.commit_async`` from one event loop as the server does: ``--groups``
tables act at once, each storing one person's action (one step, with its ``Actor``: the session and
seat check in the same transaction) and, for a fraction ``--chance`` of the actions, a chance step
without an actor; the writer groups what waits into transactions as it does under load. It reports
the process's CPU time (user + system: the event loop's share and the writer thread's) per action,
and the wall time. A warm-up of ``--warm`` actions comes first and is not counted; then the stored
steps are counted against what was sent (each exactly once), so a run that loses a step fails.

``--groups`` may list several values (``1,8,64``): one table at a time is the writer's fixed cost
per transaction, many at once the cost per row of a group. Runs alternate A B, B A, ... over the
trees for each value, so that a drifting load falls on each alike.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any


def child(db: str | None, tables: int, groups: int, actions: int, warm: int, chance: float) -> dict[str, Any]:
    """One run in this process (``updown`` from this process's path)."""
    import updown
    from sqlalchemy import create_engine, func, select, text
    from sqlalchemy.engine import make_url
    from updown.server.db import make_engine, upgrade
    from updown.server.models import Seat, Step, Table
    from updown.server.store import Actor, Store, StepRow, token_hash

    with tempfile.TemporaryDirectory() as tmp:
        admin = None
        if db is None:
            url = f"sqlite:///{Path(tmp) / 'updown.db'}"
        else:
            name = f"store_write_{uuid.uuid4().hex[:12]}"
            admin = create_engine(db, isolation_level="AUTOCOMMIT")
            with admin.connect() as conn:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
            url = make_url(db).set(database=name).render_as_string(hide_password=False)
        engine = make_engine(url)
        try:
            upgrade(engine)
            store = Store(engine)
            actors: list[list[Actor]] = []
            for t in range(tables):
                ids = []
                for s in range(4):
                    made = store.create_account(f"p{t}_{s}", "guest", None)
                    assert made is not None
                    ids.append(made)
                store.create_table(
                    Table(id=f"t{t}", game="updown", players=4, options="{}", seed=f"s{t}", timer=None, grace=60.0,
                          rated=False, private=False, status="running", created_by=ids[0], created_at=time.time()),
                    [Seat(table_id=f"t{t}", seat=s, kind="person", account_id=ids[s], name=f"p{t}_{s}")
                     for s in range(4)])
                actors.append([Actor(token_hash(store.new_session(ids[s])), ids[s], s) for s in range(4)])

            next_n = [0] * tables
            persons = [0]
            chance_due = [0.0] * tables

            async def act(t: int) -> None:
                """One person's action at table ``t`` (and, now and then, the chance step after it)."""
                seat = next_n[t] % 4
                next_n[t] += 1
                n = next_n[t]
                await store.commit_async(f"t{t}", [StepRow(n, seat, None, f"a{n % 52}", f"c{t}_{n}", "player",
                                                           time.time())], None, actors[t][seat])
                persons[0] += 1
                chance_due[t] += chance
                if chance_due[t] >= 1.0:
                    chance_due[t] -= 1.0
                    next_n[t] += 1
                    n = next_n[t]
                    await store.commit_async(f"t{t}", [StepRow(n, None, "deal", f"d{n}", None, "chance",
                                                               time.time())], None, None)

            async def table_loop(t: int, count: int) -> None:
                for _ in range(count):
                    await act(t)

            async def phase(total: int) -> None:
                """About ``total`` actions, ``groups`` tables at a time (round robin over the tables)."""
                done, start = 0, 0
                while done < total:
                    each = max(1, min(8, (total - done) // groups))
                    await asyncio.gather(*(table_loop((start + i) % tables, each) for i in range(groups)))
                    done += each * groups
                    start = (start + groups) % tables

            async def run() -> tuple[float, float, int]:
                await phase(warm)
                persons0 = persons[0]
                cpu0, wall0 = time.process_time(), time.perf_counter()
                await phase(actions)
                return time.process_time() - cpu0, time.perf_counter() - wall0, persons[0] - persons0

            cpu, wall, counted = asyncio.run(run())
            with engine.connect() as conn:
                stored = int(conn.execute(select(func.count()).select_from(Step)).scalar_one())
            if stored != sum(next_n):
                raise SystemExit(f"stored {stored} steps, sent {sum(next_n)}")
        finally:
            engine.dispose()
            if admin is not None:
                with admin.connect() as conn:
                    conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                admin.dispose()
    return {"actions": counted, "steps": stored, "groups": groups, "ms_action": 1000 * cpu / counted,
            "wall_ms_action": 1000 * wall / counted, "updown": str(Path(updown.__file__).parent.parent),
            "store": "sqlite" if db is None else "postgresql"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None, help="a PostgreSQL URL: each run gets a new database in its cluster")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--groups", default="1,16,128", help="tables acting at once; a list to compare")
    parser.add_argument("--actions", type=int, default=4000, help="persons' actions counted a run")
    parser.add_argument("--warm", type=int, default=800, help="persons' actions first, not counted")
    parser.add_argument("--chance", type=float, default=0.5, help="chance steps stored an action (UP&DOWN: about 0.5)")
    parser.add_argument("--src", default=None, help="LABEL=PATH,LABEL=PATH: trees to compare, interleaved")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", default=None, metavar="FILE", help="append each run's figures to FILE")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    groups = [int(g) for g in args.groups.split(",")]
    if any(not 1 <= g <= args.tables for g in groups) or not 1 <= args.tables <= 2000:
        parser.error("--groups: 1 to --tables each; --tables: 1 to 2000")
    if not 1 <= args.actions <= 200_000 or not 1 <= args.rounds <= 10 or not 0 <= args.chance <= 4:
        parser.error("--actions 1 to 200000, --rounds 1 to 10, --chance 0 to 4")
    if args.child:
        print(json.dumps(child(args.db, args.tables, groups[0], args.actions, args.warm, args.chance)))
        return
    root = Path(__file__).resolve().parent.parent
    srcs: list[tuple[str, str]] = [("-", str(root))]
    if args.src:
        srcs = [(item.partition("=")[0], item.partition("=")[2]) if "=" in item else (item, item)
                for item in args.src.split(",")]
        for _label, path in srcs:
            if not (Path(path) / "updown" / "server" / "store.py").is_file():
                parser.error(f"--src {path}: no updown/server/store.py there")
    got: dict[tuple[int, str], list[float]] = collections.defaultdict(list)
    for g in groups:
        order = [v for r in range(args.rounds) for v in (srcs if r % 2 == 0 else srcs[::-1])]
        for label, path in order:
            env = {**os.environ, "PYTHONPATH": str(Path(path).resolve())}
            load = os.getloadavg()[0]
            cmd = [sys.executable, "-P", str(Path(__file__).resolve()), "--child", "--groups", str(g),
                   "--tables", str(args.tables), "--actions", str(args.actions), "--warm", str(args.warm),
                   "--chance", str(args.chance)] + (["--db", args.db] if args.db else [])
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
            if out.returncode != 0:
                raise SystemExit(f"{label}: the run failed:\n{out.stderr[-3000:]}")
            r = json.loads(out.stdout.strip().splitlines()[-1])
            got[(g, label)].append(r["ms_action"])
            print(f"[{time.strftime('%H:%M:%S')}] {label} ({r['updown']}), {r['store']}, {g} at once, load "
                  f"{load:.2f}: {r['actions']} actions, {r['steps']} steps, {r['ms_action']:.3f} ms CPU an action "
                  f"({r['wall_ms_action']:.3f} ms wall)", flush=True)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps({**r, "src": label, "load": load}) + "\n")
    for g in groups:
        first = statistics.median(got[(g, srcs[0][0])])
        for label, _path in srcs:
            ms = got[(g, label)]
            print(f"{g} at once, {label}: median {statistics.median(ms):.3f} ms CPU an action over {len(ms)} runs "
                  f"({statistics.median(ms) / first:.2f}x {srcs[0][0]})")


if __name__ == "__main__":
    main()
