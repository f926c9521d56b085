"""Load on the online server: N concurrent 4-seat tables, every seat a scripted client playing random
legal actions through a real WebSocket on 127.0.0.1.

    python benchmarks/server_load.py --tables 200 --seconds 60 [--think 0.5] [--db URL]
    python benchmarks/server_load.py ... --src /tmp/step-base    # the server of another checkout
    python benchmarks/server_load.py ... --py-spy prof.txt       # where the server's time goes

Starts ``updown serve`` itself (SQLite in a temporary folder unless --db is given), creates the
tables through the HTTP API with guest accounts, then reports: tables, actions per second, and
p50/p99 of two latencies measured at the acting client: action sent -> its ``ack`` (stored), and
action sent -> the first frame after the ack (the broadcast that shows it). Bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from server_util import Server  # noqa: E402


class Clock:
    """Every client connects first; the measured run starts when the last one has (or after 120 s)."""

    def __init__(self, clients: int, seconds: float):
        self.clients, self.seconds = clients, seconds
        self.connected = 0
        self.go = asyncio.Event()
        self.stop = float("inf")

    def arrived(self) -> None:
        self.connected += 1
        if self.connected == self.clients:
            self.start()

    def start(self) -> None:
        if not self.go.is_set():
            self.stop = time.time() + self.seconds
            self.go.set()


async def seat_client(port: int, table: str, cookie: str, rng: random.Random, think: float, clock: Clock,
                      acks: list[float], frames: list[float], counter: list[int]) -> None:
    url = f"ws://127.0.0.1:{port}/ws/tables/{table}"
    async with websockets.connect(url, additional_headers={"Cookie": cookie}, max_size=2**24,
                                  ping_interval=None, open_timeout=120) as ws:
        clock.arrived()
        await clock.go.wait()
        stop = clock.stop
        legal: list[dict[str, object]] = []
        pending: str | None = None
        sent_at = 0.0
        acked = False
        n = 0
        while time.time() < stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.05, stop - time.time()))
            except (asyncio.TimeoutError, websockets.ConnectionClosed):
                return
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "frame":
                counter[1] += 1
                counter[2] += len(raw)
            if kind in ("snapshot", "frame"):
                legal = msg["legal"]
                if pending is not None and acked:
                    frames.append(time.perf_counter() - sent_at)
                    pending = None
            elif kind == "ack" and msg["id"] == pending:
                acks.append(time.perf_counter() - sent_at)
                acked = True
            elif kind == "error" and msg.get("id") == pending:
                pending = None
            elif kind == "table" and msg["table"]["status"] == "finished":
                return
            if legal and pending is None:
                if think:
                    await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                n += 1
                pending = f"a{n}"
                acked = False
                sent_at = time.perf_counter()
                counter[0] += 1
                await ws.send(json.dumps({"type": "act", "id": pending, "action": rng.choice(legal)["id"]}))
                legal = []


async def run(args: argparse.Namespace, server: Server) -> None:
    base = server.base
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        seats: list[tuple[str, str]] = []
        t0 = time.time()
        for _ in range(args.tables):
            cookies = []
            for _seat in range(4):
                r = await http.post("/api/guest", json={})
                r.raise_for_status()
                cookies.append(f"updown_session={r.cookies['updown_session']}")
                http.cookies.clear()
            r = await http.post("/api/tables", json={"game": args.game}, headers={"Cookie": cookies[0]})
            r.raise_for_status()
            table = r.json()["id"]
            for cookie in cookies[1:]:
                (await http.post(f"/api/tables/{table}/join", json={}, headers={"Cookie": cookie})).raise_for_status()
            seats += [(table, c) for c in cookies]
        print(f"set-up: {args.tables} tables, {len(seats)} seats in {time.time() - t0:.1f} s")
    acks: list[float] = []
    frames: list[float] = []
    counter = [0, 0, 0]  # actions sent, frames received, their characters
    rng = random.Random(1)
    clock = Clock(len(seats), args.seconds)
    clients = asyncio.gather(*(seat_client(server.port, t, c, random.Random(rng.random()), args.think, clock, acks,
                                           frames, counter) for t, c in seats))
    try:
        await asyncio.wait_for(clock.go.wait(), 120)
    except asyncio.TimeoutError:
        clock.start()
    print(f"connected: {clock.connected} of {len(seats)} clients")
    start = time.time()
    assert server.proc is not None
    cpu0 = cpu_seconds(server.proc.pid)
    spy = None
    if args.py_spy:
        spy = subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(server.proc.pid),
                                "--format", "raw", "--rate", "50", "--duration", str(int(args.seconds)),
                                "--output", args.py_spy, "--nonblocking"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    await clients
    elapsed = time.time() - start
    cpu = cpu_seconds(server.proc.pid) - cpu0
    if spy is not None:
        await asyncio.to_thread(spy.wait)

    def pct(xs: list[float], q: float) -> float:
        return statistics.quantiles(xs, n=100)[q - 1] * 1000 if len(xs) >= 100 else float("nan")

    print(f"tables {args.tables}, {args.game}, think {args.think} s, db {args.db or 'sqlite (temporary)'}, "
          f"server from {args.src or 'this checkout'}{', no deflate' if args.no_deflate else ''}, load {os.getloadavg()[0]:.2f}")
    print(f"actions {counter[0]} in {elapsed:.1f} s: {counter[0] / elapsed:,.1f} actions/s")
    print(f"frames received {counter[1]}, {counter[2] / max(1, counter[1]):,.0f} characters each on average")
    print(f"server CPU {cpu:.1f} s: {1000 * cpu / max(1, counter[0]):.2f} ms an action")
    print(f"action -> ack (stored): p50 {pct(acks, 50):.1f} ms, p99 {pct(acks, 99):.1f} ms ({len(acks)} samples)")
    print(f"action -> broadcast frame: p50 {pct(frames, 50):.1f} ms, p99 {pct(frames, 99):.1f} ms "
          f"({len(frames)} samples)")


NO_DEFLATE = """
import uvicorn.config

_init = uvicorn.config.Config.__init__


def _no_deflate(self, *args, **kw):
    kw["ws_per_message_deflate"] = False
    _init(self, *args, **kw)


uvicorn.config.Config.__init__ = _no_deflate
"""


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def top(path: str, n: int) -> None:
    """The functions where the sampled time went: inclusive (on the stack) and own (innermost)."""
    inclusive: collections.Counter[str] = collections.Counter()
    own: collections.Counter[str] = collections.Counter()
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        k = int(count)
        frames = [f.split(" (")[0] + " " + f.rsplit("/", 1)[-1].split(":")[0].rstrip(")") for f in stack.split(";")]
        total += k
        for f in set(frames):
            inclusive[f] += k
        own[frames[-1]] += k
    print(f"py-spy: {total} samples")
    for title, counts in (("inclusive", inclusive), ("own", own)):
        print(f"-- {title}")
        for f, k in counts.most_common(n):
            print(f"{100 * k / max(1, total):5.1f}%  {f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds a client waits before acting")
    parser.add_argument("--game", default="updown")
    parser.add_argument("--db", default=None)
    parser.add_argument("--src", default=None, help="run the server from this source tree (another checkout)")
    parser.add_argument("--py-spy", default=None, metavar="FILE", help="sample the server with py-spy into FILE")
    parser.add_argument("--no-deflate", action="store_true", help="serve without permessage-deflate (a measurement)")
    parser.add_argument("--top", type=int, default=40, help="with --py-spy: how many functions to list")
    args = parser.parse_args()
    if not 1 <= args.tables <= 1000 or not 0 < args.seconds <= 600:
        parser.error("--tables is 1 to 1000 and --seconds 0 to 600")
    paths = [str(Path(args.src).resolve())] if args.src else []
    with tempfile.TemporaryDirectory() as tmp:
        if args.no_deflate:
            (Path(tmp) / "sitecustomize.py").write_text(NO_DEFLATE)
            paths.append(tmp)
        if paths:
            os.environ["PYTHONPATH"] = os.pathsep.join(paths)
        server = Server(args.db or f"sqlite:///{tmp}/load.db", bot_delay=0.0, log=Path(tmp) / "server.log",
                        extra_args=["--limit", "accounts_per_address=off", "--limit", "tables_per_guest=off"]).start()
        try:
            asyncio.run(run(args, server))
        finally:
            server.stop()
    if args.py_spy:
        top(args.py_spy, args.top)


if __name__ == "__main__":
    main()
