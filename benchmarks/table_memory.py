"""Memory a finished table holds in the hub, and what unloading idle tables gives back.

    python benchmarks/table_memory.py [--tables 150] [--rounds 4] [--game updown]

Runs a hub in this process on a fresh SQLite database (no sockets, no server), plays ``--tables``
tables of four ``random`` bots to their end one after another (driven by the hub, as a server
drives them, without the bots' delay), then drops them with :meth:`Hub.unload_idle` as the
server's clock does once they have gone unused for ``UNLOAD`` seconds, then plays as many again,
dropping them as they end. Reports the process's resident set (``/proc``, what a host sees) and
with ``--trace`` the Python heap (``tracemalloc``, exact, slower) over a warm-up table: with every
table held, after the drop, and after the second lot. The allocator keeps pages it freed, so the
resident set does not shrink at the drop; what it shows is that the second lot reuses them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from updown.server.db import make_engine, upgrade  # noqa: E402
from updown.server.hub import UNLOAD, Hub  # noqa: E402
from updown.server.models import Seat, Table  # noqa: E402
from updown.server.store import Store  # noqa: E402


def resident() -> int:
    with open("/proc/self/statm", "rb") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def run(tables: int, rounds: int, game: str, trace: bool) -> None:
    folder = tempfile.mkdtemp(prefix="table-memory-")
    engine = make_engine(f"sqlite:///{folder}/updown.db")
    upgrade(engine)
    store = Store(engine)
    hub = Hub(store, bot_delay=0)
    options = f'{{"rounds": {rounds}}}' if game == "updown" else "{}"

    async def play(table_id: str) -> int:
        store.create_table(
            Table(id=table_id, game=game, players=4, options=options, seed=f"seed-{table_id}", timer=None,
                  grace=3600.0, rated=False, private=False, status="running", created_by=None,
                  created_at=time.time()),
            [Seat(table_id=table_id, seat=i, kind="bot", bot="random", name=f"bot {i}") for i in range(4)])
        await hub._own(table_id)
        live = hub.lives[table_id]
        while live.driver is not None and not live.driver.done():
            await asyncio.sleep(0.005)
        assert live.status == "finished", live.status
        return len(live.steps)

    await play("warm-up")
    gc.collect()
    if trace:
        tracemalloc.start()

    def heap() -> int:
        return tracemalloc.get_traced_memory()[0] if trace else 0

    base_heap, base_rss = heap(), resident()
    started = time.perf_counter()
    steps = [await play(f"a{i}") for i in range(tables)]
    took = time.perf_counter() - started
    gc.collect()
    held_heap, held_rss = heap(), resident()
    dropped = await hub.unload_idle(time.time() + UNLOAD + 1)
    gc.collect()
    freed_heap, freed_rss = heap(), resident()
    for i in range(tables):  # as many again, dropped as the clock drops them (every few tables here)
        await play(f"b{i}")
        if i % 10 == 9:
            await hub.unload_idle(time.time() + UNLOAD + 1)
    await hub.unload_idle(time.time() + UNLOAD + 1)
    gc.collect()
    again_heap, again_rss = heap(), resident()
    kib = 1024 * tables
    traced = (lambda h: f"heap +{(h - base_heap) / kib:.1f} KiB a table, ") if trace else (lambda h: "")
    print(f"{tables} tables of {game} ({rounds} rounds), {sum(steps) / tables:.0f} steps each, played in {took:.0f} s")
    print(f"all held: {traced(held_heap)}resident set +{(held_rss - base_rss) / kib:.0f} KiB a table "
          f"({(held_rss - base_rss) / 2**20:.1f} MB)")
    print(f"dropped ({len(dropped)}): {traced(freed_heap)}resident set +{(freed_rss - base_rss) / 2**20:.1f} MB "
          "(the allocator keeps the pages it freed, for what comes next)")
    print(f"{tables} more played and dropped as they ended: {traced(again_heap)}resident set "
          f"+{(again_rss - base_rss) / 2**20:.1f} MB in all, {len(hub.lives)} tables held")
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=4, help="UP&DOWN rounds a game (4: the default at four players)")
    parser.add_argument("--game", default="updown")
    parser.add_argument("--trace", action="store_true", help="the Python heap too (tracemalloc: exact, slower)")
    args = parser.parse_args()
    if not 1 <= args.tables <= 5000:
        parser.error("--tables: 1 to 5000")
    asyncio.run(run(args.tables, args.rounds, args.game, args.trace))


if __name__ == "__main__":
    main()
