"""Do people's frames wait behind bots' thinking? The load benchmark's person-only tables
(``server_load.py``'s scripted clients) with and without tables of ``hard`` bots running in the
same server, with the bot pool on (``--bot-workers N``) and off (``--bot-workers 0``: bots think
in the server process, as before the pool).

    python benchmarks/bot_pool_load.py [--people 10] [--bots 20] [--seconds 30] [--rounds 2]
        [--modes off,on] [--workers N[,M...]] [--burners N] [--think 0.5] [--game updown]

Each run starts its own ``updown serve`` (SQLite in a temporary folder, bot delay 0), creates the
``--people`` tables of four guests, then the ``--bots`` tables of four ``hard`` bots and waits until
they play, then connects the people's scripted clients and measures for ``--seconds``: at the
acting client, action sent -> its ack (stored) and -> the frame that shows it (p50, p99);
``GET /api/health`` every 0.2 s; the bots' moves a second; the CPU seconds of the server process
and of its workers. The configurations (pool off, on with each ``--workers``; 0 and ``--bots`` bot
tables; with ``--burners N`` also a control: no bot table and N busy loops at the workers' priority
outside the server) are interleaved, in reverse order every other round; the samples of all rounds
are pooled, and the median of the runs' p99 given too. The load average (``uptime``) is printed with
every run, since other work on the machine moves every figure. Bounded: at most 600 s a run.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import seat_client  # noqa: E402  (the load benchmark's scripted clients)
from server_util import Server  # noqa: E402  (tests/, on the path through server_load)

LIMITS = ["accounts_per_address=off", "tables_per_guest=off", "bot_tables_at_once=1000", "socket_messages=off"]


def pct(xs: list[float], q: int) -> float:
    """The ``q``-th percentile in milliseconds (nearest rank; nan without samples)."""
    if not xs:
        return float("nan")
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))] * 1000


def cpu_seconds(pid: int) -> float:
    """User and system CPU of one process, from /proc (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


async def metric(http: httpx.AsyncClient, name: str, **labels: str) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    text = (await http.get("/metrics")).text
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return float(s.value)
    return 0.0


async def guest(http: httpx.AsyncClient) -> str:
    r = await http.post("/api/guest", json={})
    r.raise_for_status()
    cookie = f"updown_session={r.cookies['updown_session']}"
    http.cookies.clear()
    return cookie


async def run_once(server: Server, args: argparse.Namespace, bots: int) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=server.base, timeout=120) as http:
        # The people's tables first, while the server is idle (with bots thinking in the server
        # process, every request waits: 80 of them took minutes); a grace of an hour, since their
        # sockets connect only once the bots play.
        seats: list[tuple[str, str]] = []
        for _ in range(args.people):
            cookies = [await guest(http) for _seat in range(4)]
            r = await http.post("/api/tables", json={"game": args.game, "grace": 3600},
                                headers={"Cookie": cookies[0]})
            r.raise_for_status()
            table = r.json()["id"]
            for cookie in cookies[1:]:
                (await http.post(f"/api/tables/{table}/join", json={}, headers={"Cookie": cookie})).raise_for_status()
            seats += [(table, c) for c in cookies]
        owner = await guest(http)
        for _ in range(bots):
            r = await http.post("/api/tables", json={"game": args.game, "seats": ["bot:hard"] * 4},
                                headers={"Cookie": owner})
            r.raise_for_status()
        deadline = time.time() + 120
        while bots and await metric(http, "updown_actions_total", by="bot") < 2 * bots:  # the bots play
            if time.time() > deadline:
                raise RuntimeError("the bots' tables did not start playing in 120 s")
            await asyncio.sleep(0.5)
        assert server.proc is not None
        pid = server.proc.pid
        workers0 = {p: cpu_seconds(p) for p in descendants(pid)}
        server0, moves0 = cpu_seconds(pid), await metric(http, "updown_actions_total", by="bot")
        acks: list[float] = []
        frames: list[float] = []
        health: list[float] = []
        counter = [0]
        stop = time.time() + args.seconds

        async def probe() -> None:
            while time.time() < stop:
                t0 = time.perf_counter()
                (await http.get("/api/health")).raise_for_status()
                health.append(time.perf_counter() - t0)
                await asyncio.sleep(0.2)

        failed: list[str] = []

        async def seat(table: str, cookie: str, seed: float) -> None:
            try:
                await seat_client(server.port, table, cookie, random.Random(seed), args.think, stop, acks, frames,
                                  counter)
            except Exception as err:  # e.g. the socket's opening handshake timed out: counted, not fatal
                failed.append(type(err).__name__)

        rng = random.Random(1)
        start = time.time()
        await asyncio.gather(probe(), *(seat(t, c, rng.random()) for t, c in seats))
        elapsed = time.time() - start
        moves = await metric(http, "updown_actions_total", by="bot") - moves0
        workers = sum(cpu_seconds(p) - workers0.get(p, 0.0) for p in descendants(pid))
        return {"acks": acks, "frames": frames, "health": health, "actions": counter[0], "elapsed": elapsed,
                "bot_moves": moves, "failed": failed, "server_cpu": cpu_seconds(pid) - server0, "worker_cpu": workers}


BURN = "import os\nos.nice(19)\nwhile True:\n    sum(i * i for i in range(100000))\n"
"""A busy loop at the workers' priority (the --burners control)."""


def label(config: tuple[int, int, int]) -> str:
    pool, bots, burners = config
    return (f"pool {'off ' if pool == 0 else f'on:{pool}'} bot tables {bots:3d}"
            + (f" + {burners} busy loops" if burners else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=10, help="person-only tables (four scripted guests each)")
    parser.add_argument("--bots", type=int, default=20, help="tables of four hard bots, in the runs with bots")
    parser.add_argument("--seconds", type=float, default=30.0, help="the measured window of each run")
    parser.add_argument("--rounds", type=int, default=2, help="times each configuration runs")
    parser.add_argument("--workers", default=None, help="the pool's workers when on, or several: 2,1 (default: cores)")
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds a person waits before acting")
    parser.add_argument("--game", default="updown")
    parser.add_argument("--modes", default="off,on", help="the pool's modes to run: off, on or both")
    parser.add_argument("--burners", type=int, default=0,
                        help="a control: also run the pool on, no bot table, and this many busy loops at the "
                             "workers' priority outside the server (what busy cores alone cost)")
    args = parser.parse_args()
    if not (1 <= args.people <= 200 and 0 <= args.bots <= 200 and 0 < args.seconds <= 300
            and 1 <= args.rounds <= 10 and 0 <= args.burners <= 16):
        parser.error("--people 1-200, --bots 0-200, --seconds up to 300, --rounds 1-10, --burners 0-16")
    from updown.server.botpool import default_workers

    workers = [int(w) for w in args.workers.split(",")] if args.workers else [default_workers()]
    modes = [m.strip() for m in args.modes.split(",")]
    if not modes or not set(modes) <= {"off", "on"} or min(workers) < 1:
        parser.error("--modes: off, on or off,on; --workers: 1 or more")
    configs = [(pool, bots, 0) for m in modes for pool in ([0] if m == "off" else workers) for bots in (0, args.bots)]
    if args.burners:
        configs.append((workers[0], 0, args.burners))
    pooled: dict[tuple[int, int, int], dict[str, list[float]]] = {c: {"frames": [], "acks": [], "health": []}
                                                                  for c in configs}
    p99s: dict[tuple[int, int, int], list[float]] = {c: [] for c in configs}
    print(f"{args.people} person-only tables, {args.game}, think {args.think} s, {args.seconds:.0f} s a run; "
          f"cores {os.cpu_count()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for round_ in range(args.rounds):
        for config in (configs if round_ % 2 == 0 else configs[::-1]):
            pool, bots, burners = config
            with tempfile.TemporaryDirectory() as tmp:
                extra = ["--bot-workers", str(pool)] + [a for limit in LIMITS for a in ("--limit", limit)]
                server = Server(f"sqlite:///{tmp}/load.db", bot_delay=0.0, log=Path(tmp) / "server.log",
                                extra_args=extra).start()
                loops = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(burners)]
                load0 = os.getloadavg()[0]
                try:
                    out = asyncio.run(asyncio.wait_for(run_once(server, args, bots), 600))
                finally:
                    for loop in loops:
                        loop.kill()
                        loop.wait()
                    server.stop()
            for k in ("frames", "acks", "health"):
                pooled[config][k] += out[k]
            p99s[config].append(pct(out["frames"], 99))
            print(f"round {round_ + 1} {label(config)}: "
                  f"frame p50 {pct(out['frames'], 50):6.1f} p99 {pct(out['frames'], 99):7.1f} ms "
                  f"({len(out['frames'])}), ack p50 {pct(out['acks'], 50):5.1f} p99 {pct(out['acks'], 99):6.1f} ms, "
                  f"health p50 {pct(out['health'], 50):5.1f} max {pct(out['health'], 100):6.1f} ms, "
                  f"bot moves {out['bot_moves'] / out['elapsed']:5.1f}/s, "
                  f"cpu server {out['server_cpu']:5.1f} s workers {out['worker_cpu']:5.1f} s; "
                  f"{'clients failed: ' + ', '.join(out['failed']) + '; ' if out['failed'] else ''}"
                  f"load {load0:.2f} -> {os.getloadavg()[0]:.2f}", flush=True)
    print("over the rounds (action -> frame at the person's client; health GET): pooled samples, and the "
          "median of the runs' p99")
    for config in configs:
        got = pooled[config]
        print(f"  {label(config)}: frame p50 {pct(got['frames'], 50):6.1f} p99 {pct(got['frames'], 99):7.1f} ms "
              f"({len(got['frames'])} samples), median run p99 {statistics.median(p99s[config]):6.1f} ms; "
              f"health p50 {pct(got['health'], 50):6.1f} p99 {pct(got['health'], 99):7.1f} ms")
    for config in configs:
        pool, bots, burners = config
        if bots or burners:
            ratio = pct(pooled[config]["frames"], 99) / pct(pooled[(pool, 0, 0)]["frames"], 99)
            runs = statistics.median(p99s[config]) / statistics.median(p99s[(pool, 0, 0)])
            print(f"  {label(config)}: frame p99 / without bots {ratio:.2f}, median run p99 / without {runs:.2f}")
    print(f"load average now {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
