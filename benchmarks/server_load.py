"""Load on the online server: N concurrent 4-seat tables, every seat a scripted client playing random
legal actions through a real WebSocket on 127.0.0.1.

    python benchmarks/server_load.py --tables 200 --seconds 60 [--think 0.5] [--db URL]

Starts ``updown serve`` itself (SQLite in a temporary folder unless --db is given), creates the
tables through the HTTP API with guest accounts, then reports: tables, actions per second, and
p50/p99 of two latencies measured at the acting client: action sent -> its ``ack`` (stored), and
action sent -> the first frame after the ack (the broadcast that shows it). Bounded in count and time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from server_util import Server  # noqa: E402


async def seat_client(port: int, table: str, cookie: str, rng: random.Random, think: float, stop: float,
                      acks: list[float], frames: list[float], counter: list[int]) -> None:
    url = f"ws://127.0.0.1:{port}/ws/tables/{table}"
    async with websockets.connect(url, additional_headers={"Cookie": cookie}, max_size=2**24,
                                  ping_interval=None) as ws:
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
    counter = [0]
    rng = random.Random(1)
    stop = time.time() + args.seconds
    start = time.time()
    await asyncio.gather(*(seat_client(server.port, t, c, random.Random(rng.random()), args.think, stop, acks, frames,
                                       counter) for t, c in seats))
    elapsed = time.time() - start

    def pct(xs: list[float], q: float) -> float:
        return statistics.quantiles(xs, n=100)[q - 1] * 1000 if len(xs) >= 100 else float("nan")

    print(f"tables {args.tables}, {args.game}, think {args.think} s, db {args.db or 'sqlite (temporary)'}")
    print(f"actions {counter[0]} in {elapsed:.1f} s: {counter[0] / elapsed:,.1f} actions/s")
    print(f"action -> ack (stored): p50 {pct(acks, 50):.1f} ms, p99 {pct(acks, 99):.1f} ms ({len(acks)} samples)")
    print(f"action -> broadcast frame: p50 {pct(frames, 50):.1f} ms, p99 {pct(frames, 99):.1f} ms "
          f"({len(frames)} samples)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds a client waits before acting")
    parser.add_argument("--game", default="updown")
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    if not 1 <= args.tables <= 1000 or not 0 < args.seconds <= 600:
        parser.error("--tables is 1 to 1000 and --seconds 0 to 600")
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(args.db or f"sqlite:///{tmp}/load.db", bot_delay=0.0, log=Path(tmp) / "server.log").start()
        try:
            asyncio.run(run(args, server))
        finally:
            server.stop()


if __name__ == "__main__":
    main()
