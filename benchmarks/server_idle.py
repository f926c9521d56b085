"""Idle capacity of one server process: how many connected players who are not acting it holds, what
each costs in memory, and what they do to the latency of the tables that are playing.

    python benchmarks/server_idle.py --db postgresql+psycopg://... [--levels 500,1000,2000,5000]
        [--active 10] [--window 20] [--kind playing] [--no-deflate]
    python benchmarks/server_idle.py ... --src before=/tmp/base,after=. --rounds 2   # two checkouts, interleaved
    python benchmarks/server_idle.py ... --py-spy prof.txt   # where an idle server's time goes (last level)

Starts one ``updown serve`` (SQLite in a temporary folder unless --db is given; a PostgreSQL URL gets
a new database of its own in its cluster, dropped after), then:

1. ``--active`` tables of four scripted clients (``server_load.py``'s random players, ``--think``
   seconds a move, 50-round matches) that stay connected throughout and play only during each
   measuring window of ``--window`` seconds;
2. a window with no idle connection: the baseline;
3. for each level K of ``--levels``: idle WebSocket connections are added until there are K, then
   the server's RSS (VmRSS) and its CPU a second with only the idle ones connected are read, then a
   window: the active tables' actions per second and latencies (action -> ack, -> frame, -> the
   other seats' next frame), p50 and p99.

Idle connections are signed-in guests (``--kind``): ``playing``, four at a running table that nobody
moves at (no move timer), a table per four connections; ``waiting``, one alone at an open table
that waits for three more, a table per connection; ``watching``, spectators with ``?watch=1``, one
at each of the tables already there. At the end ``--spectators`` more watch the idle tables (one a
table, round the tables): their RSS alone gives the memory of a connection without a table of its
own, and from it the memory of an idle table. Every idle client reads what it is sent.

``--idle`` seconds of idle CPU are read at each level (the re-read runs every 2 s, the heartbeat every
5 s: read over several of each). ``--src`` runs the whole benchmark with the server of each source tree,
``--rounds`` times, in the order A B, B A, ... (a drifting load hits each alike), and ends with a table
of idle CPU per 1,000 idle connections and the active p99 at each level. ``--py-spy`` samples the
server for ``--idle`` seconds with only the idle connections of the last level (first run only).

The garbage collector: the server logs each collection over ``gc.log_over`` (``gcpolicy.py``); each
window lists those that ended in it and counts the slow frames that waited through one of 50 ms or
more (``--env LABEL:UPDOWN_GC__LOG_OVER=0.02`` logs more). ``--env`` gives one ``--src`` arm its own
settings, so one tree can run with a setting off and on. ``--churn SECONDS`` ends the last level
with sockets coming and going and short games played to their end, the RSS read every 10 s: does
memory stay bounded? Each renewal of the frozen heap during it is listed (read from the server's
log): the objects it collected, how many of them had been frozen (a server that collects the rest
first says so), and its pause (``--env LABEL:UPDOWN_GC__UNFREEZE_EVERY=60 --env
LABEL:UPDOWN_GC__RENEW_GROWTH=0``: one a minute).

The open-file limit: this process raises its own soft RLIMIT_NOFILE to its hard limit, and the server
inherits it (``/proc/PID/limits`` is printed). Bounded: at most 20,000 idle connections, 120 s a
window.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_load import (Server, drop_database, fresh_database, listener, pct, raise_open_files, source_trees,  # noqa: E402
                         rss_bytes, top, tree_cpu, url_port)


@dataclass
class Window:
    """The active tables play only while a window is open; each window has its own tally."""

    open: bool = False
    acks: list[float] = field(default_factory=list)
    frames: list[float] = field(default_factory=list)
    frames_at: list[float] = field(default_factory=list)
    """When each of :attr:`frames` came (wall clock): are the slow ones bunched at the server's periods?"""
    others: list[float] = field(default_factory=list)
    actions: int = 0
    finished: int = 0

    def reset(self) -> None:
        self.acks, self.frames, self.frames_at, self.others, self.actions = [], [], [], [], 0


class Shared:
    def __init__(self) -> None:
        self.sent_at = 0.0
        self.seq = 0


async def active_client(port: int, table: str, shared: Shared, cookie: str, rng: random.Random, think: float,
                        window: Window, ready: list[int], deflate: bool, done: asyncio.Event) -> None:
    url = f"ws://127.0.0.1:{port}/ws/tables/{table}"
    async with websockets.connect(url, additional_headers={"Cookie": cookie}, max_size=2**24, ping_interval=None,
                                  open_timeout=120, compression="deflate" if deflate else None) as ws:
        ready[0] += 1
        legal: list[dict[str, object]] = []
        pending: str | None = None
        sent_at = 0.0
        acked = False
        seen = shared.seq
        act_at = 0.0
        n = 0
        while not done.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=0.1)
            except asyncio.TimeoutError:
                raw = None
            except websockets.ConnectionClosed:
                return
            if raw is not None:
                msg = json.loads(raw)
                kind = msg["type"]
                if kind == "frame" and window.open:
                    if shared.seq > seen and pending is None:
                        window.others.append(time.perf_counter() - shared.sent_at)
                if kind == "frame":
                    seen = shared.seq
                if kind in ("snapshot", "frame"):
                    legal = msg["legal"]
                    if pending is not None and acked:
                        if window.open:
                            window.frames.append(time.perf_counter() - sent_at)
                            window.frames_at.append(time.time())
                        pending = None
                    if legal:
                        act_at = time.time() + rng.uniform(0.5 * think, 1.5 * think)
                elif kind == "ack" and msg["id"] == pending:
                    if window.open:
                        window.acks.append(time.perf_counter() - sent_at)
                    acked = True
                elif kind == "error" and msg.get("id") == pending:
                    pending = None
                elif kind == "table" and msg["table"]["status"] == "finished":
                    window.finished += 1
                    return
            if window.open and legal and pending is None and time.time() >= act_at:
                n += 1
                pending = f"a{n}"
                acked = False
                sent_at = time.perf_counter()
                shared.sent_at, shared.seq = sent_at, shared.seq + 1
                seen = shared.seq
                window.actions += 1
                await ws.send(json.dumps({"type": "act", "id": pending, "action": rng.choice(legal)["id"]}))
                legal = []


async def idle_client(port: int, table: str, cookie: str, watch: bool, deflate: bool, opened: list[int],
                      done: asyncio.Event, failures: list[str]) -> None:
    url = f"ws://127.0.0.1:{port}/ws/tables/{table}" + ("?watch=1" if watch else "")
    try:
        async with websockets.connect(url, additional_headers={"Cookie": cookie}, max_size=2**24,
                                      ping_interval=None, open_timeout=120,
                                      compression="deflate" if deflate else None) as ws:
            opened[0] += 1
            reader = asyncio.ensure_future(_drain(ws))
            await done.wait()
            reader.cancel()
    except Exception as err:  # counted and named: the limit is what this benchmark looks for
        failures.append(f"{type(err).__name__}: {str(err)[:120]}")


async def _drain(ws: Any) -> None:
    try:
        async for _msg in ws:
            pass
    except websockets.ConnectionClosed:
        pass


class Site:
    """Guests and tables made through the HTTP API, a few requests at once."""

    def __init__(self, server: Server, at_once: int = 8):
        self.http = httpx.AsyncClient(base_url=server.base, timeout=120, verify=False)
        self.gate = asyncio.Semaphore(at_once)

    async def guest(self) -> str:
        async with self.gate:
            r = await self.http.post("/api/guest", json={})
            r.raise_for_status()
            cookie = f"updown_session={r.cookies['updown_session']}"
            self.http.cookies.clear()
            return cookie

    async def table(self, cookie: str, options: dict[str, Any] | None = None) -> str:
        async with self.gate:
            r = await self.http.post("/api/tables", json={"game": "updown", "options": options or {}, "grace": 3600},
                                     headers={"Cookie": cookie})
            r.raise_for_status()
            return str(r.json()["id"])

    async def join(self, table: str, cookie: str) -> None:
        async with self.gate:
            (await self.http.post(f"/api/tables/{table}/join", json={}, headers={"Cookie": cookie})).raise_for_status()

    async def full_table(self, options: dict[str, Any] | None = None) -> tuple[str, list[str]]:
        cookies = list(await asyncio.gather(*(self.guest() for _ in range(4))))
        table = await self.table(cookies[0], options)
        for c in cookies[1:]:
            await self.join(table, c)
        return table, cookies


GC_LINE = re.compile(r"garbage collection of generation (\d): (\d+) ms(?: \(\d+ ms of CPU\))?, \d+ collected, "
                     r"ended at ([\d.]+)")


def collections(log: Path | None, since: float, until: float) -> list[tuple[int, float, float]]:
    """The collections the server logged (``gcpolicy.py``, those over ``gc.log_over``) that ended in
    [since, until]: (generation, seconds, end as wall clock)."""
    if log is None or not log.exists():
        return []
    found = []
    for m in GC_LINE.finditer(log.read_text(errors="replace")):
        end = float(m.group(3))
        if since <= end <= until:
            found.append((int(m.group(1)), int(m.group(2)) / 1000, end))
    return found


RENEW_LINE = re.compile(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) INFO updown\.server\.gc: garbage collector: "
                        r"heap unfrozen, collected \((\d+) objects of (\d+) frozen(?:; (\d+) not frozen before)?\) "
                        r"and frozen again in (\d+) ms")


def renewals(log: Path | None, since: float, until: float) -> list[dict[str, Any]]:
    """The renewals the server logged (``gcpolicy.py``: the heap unfrozen, collected and frozen
    again) in [since, until]: when, the objects collected (``frozen``: only those that had been
    frozen, from a server that collects the rest first, else ``found``, everything collected), the
    objects frozen before, the pause in ms."""
    if log is None or not log.exists():
        return []
    found = []
    for m in RENEW_LINE.finditer(log.read_text(errors="replace")):
        at = time.mktime(time.strptime(m.group(1), "%Y-%m-%d %H:%M:%S")) + int(m.group(2)) / 1000
        if since <= at <= until:
            young = None if m.group(5) is None else int(m.group(5))
            found.append({"at": at, "found": int(m.group(3)) + (young or 0), "frozen": int(m.group(3)) if young is not None
                          else None, "of": int(m.group(4)), "ms": int(m.group(6))})
    return found


def at_collections(lat: list[float], at: list[float], gcs: list[tuple[int, float, float]], least: float = 0.05) -> int:
    """The frames slower than :data:`SLOW` whose wait overlapped a collection of ``least`` seconds or
    more (a frame that came at t after x seconds waited over [t - x, t])."""
    pauses = [(end - took, end) for _g, took, end in gcs if took >= least]
    return sum(1 for x, t in zip(lat, at) if x > SLOW and any(t - x < b and t > a for a, b in pauses))


SLOW = 0.150
"""Seconds: a frame slower than this is the issue's (the active tables' p99 under 150 ms)."""


def bunching(lat: list[float], at: list[float], period: float, bins: int = 10) -> tuple[int, float]:
    """The frames slower than :data:`SLOW`, and the share of them that came in the busiest tenth
    (``bins``) of ``period`` (wall clock folded by the period): about 1/bins when they do not follow
    a periodic task of the server's (the heartbeat's 5 s, the re-read's 2 s), near 1 when they do."""
    slow = [t for x, t in zip(lat, at) if x > SLOW]
    if not slow:
        return 0, 0.0
    counts = [0] * bins
    for t in slow:
        counts[int((t % period) / period * bins) % bins] += 1
    return len(slow), max(counts) / len(slow)


def limits_of(pid: int) -> str:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return " ".join(line.split()[3:5])
    return "?"


async def measure(args: argparse.Namespace, server: Server, others: dict[str, int | None],
                  spy: str | None = None) -> list[dict[str, Any]]:
    assert server.proc is not None
    pid = server.proc.pid
    site = Site(server)
    done = asyncio.Event()
    rng = random.Random(7)
    window = Window()
    ready = [0]
    tasks: list[asyncio.Future[None]] = []
    for _ in range(args.active):
        table, cookies = await site.full_table({"rounds": 50})
        shared = Shared()
        tasks += [asyncio.ensure_future(active_client(server.port, table, shared, c, random.Random(rng.random()),
                                                      args.think, window, ready, args.deflate, done))
                  for c in cookies]
    while ready[0] < 4 * args.active:
        await asyncio.sleep(0.1)
    opened = [0]
    failures: list[str] = []
    idle_tables: list[str] = []
    rows: list[dict[str, Any]] = []

    players = list(await asyncio.gather(*(site.guest() for _ in range(4))))
    # The idle players are four guests, each seated at every idle table (an account may hold a
    # seat at any number of tables; each seat its own connection): the set-up then costs one request
    # a connection, not two. Spectators are guests of their own.

    async def idle_table() -> list[tuple[str, str, bool]]:
        if args.kind == "playing":
            table = await site.table(players[0])
            for c in players[1:]:
                await site.join(table, c)
            idle_tables.append(table)
            return [(table, c, False) for c in players]
        if args.kind == "waiting":
            table = await site.table(players[len(idle_tables) % 4])
            idle_tables.append(table)
            return [(table, players[(len(idle_tables) - 1) % 4], False)]
        cookie = await site.guest()
        return [(idle_tables[random.randrange(len(idle_tables))], cookie, True)]

    async def add_idle(target: int) -> None:
        t0 = time.time()
        per = 4 if args.kind == "playing" else 1
        while opened[0] < target:
            batch = min(200, target - opened[0])
            made = [x for group in await asyncio.gather(*(idle_table() for _ in range(-(-batch // per))))
                    for x in group]
            before = opened[0]
            await connect(made)
            if opened[0] == before:
                break
        print(f"  {opened[0]} idle connections ({len(idle_tables)} idle tables) in {time.time() - t0:.0f} s"
              f"{f'; {len(failures)} failed: {failures[-1]}' if failures else ''}", flush=True)

    async def connect(batch: list[tuple[str, str, bool]]) -> None:
        goal = opened[0] + len(failures) + len(batch)  # each one opens or fails
        tasks.extend(asyncio.ensure_future(idle_client(server.port, t, c, w, args.deflate, opened, done, failures))
                     for t, c, w in batch)
        deadline = time.time() + 120
        while opened[0] + len(failures) < goal and time.time() < deadline:
            await asyncio.sleep(0.05)

    async def settle_and_read(level: int, spy: str | None = None) -> dict[str, Any]:
        await asyncio.sleep(args.settle)
        rss = rss_bytes(pid)
        c0, t0 = tree_cpu(pid), time.time()
        o0 = {k: tree_cpu(p) if p else 0.0 for k, p in others.items()}
        sampler = None
        if spy:
            sampler = subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(pid),
                                        "--format", "raw", "--rate", "200", "--duration", str(max(1, int(args.idle))),
                                        "--output", spy, "--nonblocking"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await asyncio.sleep(args.idle)
        if sampler is not None:
            await asyncio.to_thread(sampler.wait)
        idle_cpu = (tree_cpu(pid) - c0) / (time.time() - t0)
        other_idle = {k: (tree_cpu(p) - o0[k]) / (time.time() - t0) if p else None for k, p in others.items()}
        window.reset()
        window.open = True
        w0 = time.time()
        c1 = tree_cpu(pid)
        await asyncio.sleep(args.window)
        window.open = False
        elapsed = time.time() - w0
        cpu = tree_cpu(pid) - c1
        gcs = collections(server.log, w0, time.time())
        slow, in5 = bunching(window.frames, window.frames_at, 5.0)
        _, in2 = bunching(window.frames, window.frames_at, 2.0)
        return {"slow_frames": slow, "slow_in_tenth_5s": in5, "slow_in_tenth_2s": in2,
                "gc": [[g, round(1000 * took, 1), round(end - w0, 3)] for g, took, end in gcs],
                "slow_at_gc": at_collections(window.frames, window.frames_at, gcs),
                "frames": len(window.frames),
                "series": [[round(t - w0, 3), round(1000 * x, 1)] for x, t in zip(window.frames, window.frames_at)],"idle_connections": opened[0], "idle_tables": len(idle_tables), "rss_mb": rss / 2**20,
                "idle_cpu_s": idle_cpu, "pg_idle_cpu_s": other_idle.get("pg"),
                "actions_s": window.actions / elapsed, "ack_p50": pct(window.acks, 50), "ack_p99": pct(window.acks, 99),
                "frame_p50": pct(window.frames, 50), "frame_p99": pct(window.frames, 99),
                "others_p50": pct(window.others, 50), "others_p99": pct(window.others, 99),
                "window_cpu_s": cpu / elapsed, "active_tables": args.active - window.finished // 4,
                "failures": len(failures), "load": os.getloadavg()[0], "at": time.strftime("%H:%M:%S", time.gmtime()),
                "kind": args.kind}

    async def churn(last: dict[str, Any]) -> dict[str, Any]:
        """``--churn`` seconds of idle sockets coming and going (``--churn-rate`` a second closed and
        opened again at their tables) and short games played to their end (``--churn-games`` at a
        time, one round, 0.05 s to think, a new one when one ends), the active tables playing on:
        the server's RSS every 10 s. Does memory stay bounded?"""
        stop = asyncio.Event()
        closers: list[asyncio.Event] = []
        seats = [(t, c) for t in idle_tables for c in players]  # the idle connections' (table, cookie)

        async def reopen(table: str, cookie: str, leave: asyncio.Event) -> None:
            url = f"ws://127.0.0.1:{server.port}/ws/tables/{table}"
            try:
                async with websockets.connect(url, additional_headers={"Cookie": cookie}, max_size=2**24,
                                              ping_interval=None, open_timeout=120,
                                              compression="deflate" if args.deflate else None) as ws:
                    reader = asyncio.ensure_future(_drain(ws))
                    await leave.wait()
                    reader.cancel()
            except Exception as err:
                failures.append(f"churn {type(err).__name__}: {str(err)[:120]}")

        games = [0]

        async def short_games() -> None:
            short = Window(open=True)
            grng = random.Random(11)
            while not stop.is_set():
                table, cookies = await site.full_table({"rounds": 1})
                await asyncio.gather(*(active_client(server.port, table, Shared(), c, random.Random(grng.random()),
                                                     0.05, short, [0], args.deflate, stop) for c in cookies))
                games[0] += 1

        # The first connections' own sockets stay as they are (their tasks wait for the end); the
        # churn opens second connections for the same seats and closes them again, so the count of
        # idle sockets goes up and down by --churn-rate around the level.
        jobs = [asyncio.ensure_future(short_games()) for _ in range(args.churn_games)]
        samples: list[tuple[float, float]] = []
        t0 = time.time()
        window.reset()
        window.open = True
        crng = random.Random(5)
        live: list[tuple[asyncio.Event, asyncio.Future[None]]] = []
        while time.time() - t0 < args.churn:
            for _ in range(args.churn_rate):
                table, cookie = seats[crng.randrange(len(seats))]
                leave = asyncio.Event()
                live.append((leave, asyncio.ensure_future(reopen(table, cookie, leave))))
            while len(live) > args.churn_rate * 5:  # each lives about five seconds
                leave, job = live.pop(0)
                leave.set()
            if not samples or time.time() - t0 >= samples[-1][0] + 10:
                samples.append((time.time() - t0, rss_bytes(pid) / 2**20))
                print(f"    churn {samples[-1][0]:4.0f} s: RSS {samples[-1][1]:.0f} MB, {games[0]} short games ended, "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
            await asyncio.sleep(1.0)
        window.open = False
        for leave, job in live:
            leave.set()
        stop.set()
        await asyncio.gather(*jobs, *(job for _l, job in live), return_exceptions=True)
        samples.append((time.time() - t0, rss_bytes(pid) / 2**20))
        gcs = collections(server.log, t0, time.time())
        slow = sum(1 for x in window.frames if x > SLOW)
        half = [mb for t, mb in samples if t >= samples[-1][0] / 2]
        out = {"seconds": samples[-1][0], "rss": samples, "games": games[0], "reopened": args.churn_rate * int(args.churn),
               "frames": len(window.frames), "frame_p99": pct(window.frames, 99), "slow_frames": slow,
               "slow_at_gc": at_collections(window.frames, window.frames_at, gcs),
               "full_gcs": [ms for g, ms, _t in ((g, 1000 * took, e) for g, took, e in gcs) if g == 2],
               "renewals": renewals(server.log, t0, time.time()),
               "slow_in_tenth_5s": bunching(window.frames, window.frames_at, 5.0)[1],
               "slow_in_tenth_2s": bunching(window.frames, window.frames_at, 2.0)[1],
               "slow": [(round(t - t0, 3), round(1000 * x)) for x, t in zip(window.frames, window.frames_at) if x > SLOW]}
        longest = f", longest {max(out['full_gcs']):.0f} ms" if out["full_gcs"] else ""
        print(f"  churn {out['seconds']:.0f} s: RSS {samples[0][1]:.0f} -> {samples[-1][1]:.0f} MB (max {max(mb for _t, mb in samples):.0f}, "
              f"second half {min(half):.0f} to {max(half):.0f}), {out['games']} short games ended, about "
              f"{out['reopened']} sockets opened and closed; active frames p99 {out['frame_p99']:.0f} ms, {slow} of "
              f"{out['frames']} over {1000 * SLOW:.0f} ms ({out['slow_at_gc']} during a collection); full collections "
              f"{len(out['full_gcs'])}{longest}",
              flush=True)
        if slow:  # bunched at one of the server's periods (the heartbeat's 5 s, the re-read's 2 s), or at moments?
            spread = sorted(t for t, _ms in out["slow"])
            print(f"    slow frames: in the busiest tenth of 5 s {100 * out['slow_in_tenth_5s']:.0f}%, of 2 s "
                  f"{100 * out['slow_in_tenth_2s']:.0f}% (10% if not periodic); from {spread[0]:.0f} to {spread[-1]:.0f} s "
                  f"into the churn, in {len({int(t) for t in spread})} distinct seconds", flush=True)
        for r in out["renewals"]:  # what each renewal collected: what the freezing kept, and its pause
            frozen = "" if r["frozen"] is None else f", {r['frozen']} of them frozen"
            print(f"    renewal at {r['at'] - t0:.0f} s: {r['found']} objects collected{frozen} (of {r['of']} frozen), "
                  f"{r['ms']} ms", flush=True)
        return out

    def show(r: dict[str, Any]) -> None:
        pg = r["pg_idle_cpu_s"]
        print(f"[{r['at']}] {r['idle_connections']:>6} idle ({r['idle_tables']} tables), RSS {r['rss_mb']:.0f} MB, "
              f"idle CPU {100 * r['idle_cpu_s']:.0f}% of a core{'' if pg is None else f' (PostgreSQL {100 * pg:.0f}%)'}; "
              f"active {r['active_tables']} tables: {r['actions_s']:.1f} actions/s, frame p50 {r['frame_p50']:.0f} "
              f"p99 {r['frame_p99']:.0f} ms, other seats p99 {r['others_p99']:.0f} ms, ack p99 {r['ack_p99']:.0f} ms, "
              f"CPU {100 * r['window_cpu_s']:.0f}%; load {r['load']:.1f}", flush=True)
        if r["slow_frames"]:
            print(f"    {r['slow_frames']} of {r['frames']} frames over {1000 * SLOW:.0f} ms; in the busiest tenth of "
                  f"5 s: {100 * r['slow_in_tenth_5s']:.0f}% of them, of 2 s: {100 * r['slow_in_tenth_2s']:.0f}% "
                  f"(10% if not periodic); {r['slow_at_gc']} during a collection of 50 ms or more", flush=True)
        if r["gc"]:
            full = [ms for g, ms, _t in r["gc"] if g == 2]
            print(f"    collections logged in the window: {len(r['gc'])}, longest {max(ms for _g, ms, _t in r['gc']):.0f} ms"
                  f"; full: {len(full)}{f', {max(full):.0f} ms at most' if full else ''}", flush=True)

    try:
        print(f"server pid {pid}, open files limit {limits_of(pid)}; {args.active} active tables, "
              f"think {args.think} s, windows {args.window} s, deflate {'on' if args.deflate else 'off'}", flush=True)
        if not args.no_empty:
            row = await settle_and_read(0)
            rows.append(row)
            show(row)
        for level in args.levels:
            await add_idle(level)
            if opened[0] < level:
                print(f"  stopped: {opened[0]} of {level} connections opened")
                break
            row = await settle_and_read(level, spy if level == args.levels[-1] else None)
            rows.append(row)
            show(row)
        if args.churn:
            rows[-1]["churn"] = await churn(rows[-1])
        if args.spectators and idle_tables:
            kind, args.kind = args.kind, "watching"
            base = rows[-1]
            await add_idle(opened[0] + args.spectators)
            args.kind = kind
            row = await settle_and_read(opened[0])
            row["kind"] = "watching"
            rows.append(row)
            show(row)
            per = (row["rss_mb"] - base["rss_mb"]) * 2**20 / max(1, row["idle_connections"] - base["idle_connections"])
            print(f"memory a spectator connection: {per / 1024:.0f} KiB "
                  f"({row['idle_connections'] - base['idle_connections']} spectators)")
            row["kib_connection"] = per / 1024
        first, last = rows[0], max((r for r in rows if r["kind"] != "watching"), key=lambda r: r["idle_connections"])
        if last["idle_connections"] > first["idle_connections"]:
            added = last["idle_connections"] - first["idle_connections"]
            per_conn = (last["rss_mb"] - first["rss_mb"]) * 2**20 / added
            per_table = (last["rss_mb"] - first["rss_mb"]) * 2**20 / max(1, last["idle_tables"])
            print(f"memory ({args.kind}): {per_conn / 1024:.0f} KiB an idle connection with its share of its table, "
                  f"{per_table / 1024:.0f} KiB an idle table with its {added / max(1, last['idle_tables']):.0f} "
                  f"connection(s)")
            if "kib_connection" in rows[-1]:
                conns = added / max(1, last["idle_tables"])
                print(f"  so a table without its connections: about "
                      f"{per_table / 1024 - conns * rows[-1]['kib_connection']:.0f} KiB")
    finally:
        done.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        await site.http.aclose()
    return rows


def one_run(args: argparse.Namespace, others: dict[str, int | None], src: tuple[str, str] | None,
            spy: str | None) -> list[dict[str, Any]]:
    """The benchmark once, with a server of its own (from ``src``'s tree when given) and a new database."""
    if src is not None:  # the server started below imports the package from this tree
        os.environ["PYTHONPATH"] = str(Path(src[1]).resolve())
    saved = {name: os.environ.get(name) for name in args.env_all}
    for name in args.env_all:
        os.environ.pop(name, None)
    for name, value in args.env.get(src[0] if src is not None else "-", []):  # this arm's settings
        os.environ[name] = value
    with tempfile.TemporaryDirectory() as tmp:
        db, created = fresh_database(args.db) if args.db else (f"sqlite:///{tmp}/idle.db", None)
        extra = ["--limit", "accounts_per_address=off", "--limit", "tables_per_guest=off", "--bot-workers", "0"]
        if not args.deflate:
            extra.append("--no-ws-deflate")
        server = Server(db, redis=args.redis, bot_delay=0.0, log=Path(tmp) / "server.log", extra_args=extra).start()
        try:
            rows = asyncio.run(measure(args, server, others, spy))
        finally:
            server.stop()
            if created and args.db:
                drop_database(args.db, created)
            log = (Path(tmp) / "server.log").read_text(errors="replace").splitlines()
            problems = [line for line in log if "ERROR" in line or "Traceback" in line]
            if problems:
                print(f"server log: {len(problems)} error lines, the first: {problems[0][:200]}")
            if args.keep_log:
                with open(args.keep_log, "a") as kept:
                    kept.write(f"=== {src[0] if src is not None else '-'} {time.strftime('%H:%M:%S', time.gmtime())}\n")
                    kept.write("\n".join(log) + "\n")
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    for r in rows:
        r["src"] = src[0] if src is not None else None
    return rows


def summary(rows: list[dict[str, Any]], labels: list[str]) -> None:
    """Per tree and level, the medians over the runs: idle CPU per 1,000 idle connections (above the
    run's own reading with none), PostgreSQL's, and the active tables' frame p99."""
    print("| server | idle connections | runs | idle CPU (% of a core) | per 1,000 idle above none | PostgreSQL "
          "| active actions/s | frame p99 (each run) | frames over 150 ms | longest full collection (ms) | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for label in labels:
        mine = [r for r in rows if (r.get("src") or "-") == label]
        runs = sorted({r["run"] for r in mine})
        base = {run: next((r["idle_cpu_s"] for r in mine if r["run"] == run and r["idle_connections"] == 0), None)
                for run in runs}
        for level in sorted({r["idle_connections"] for r in mine}):
            rs = [r for r in mine if r["idle_connections"] == level]
            cpu = statistics.median(r["idle_cpu_s"] for r in rs)
            per = [1000 * (r["idle_cpu_s"] - b) / level for r in rs if level and (b := base[r["run"]]) is not None]
            pgs = [r["pg_idle_cpu_s"] for r in rs if r["pg_idle_cpu_s"] is not None]
            each = ", ".join(f"{100 * r['idle_cpu_s']:.1f}" for r in rs)
            per_k = f"{100 * statistics.median(per):.2f}%" if per else "-"
            pg = f"{100 * statistics.median(pgs):.1f}%" if pgs else "-"
            p99s = ", ".join(f"{r['frame_p99']:,.0f}" for r in rs)
            print(f"| {label} | {level:,} | {len(rs)} | {100 * cpu:.1f}% ({each}) | {per_k} | {pg} "
                  f"| {statistics.median(r['actions_s'] for r in rs):.1f} "
                  f"| {statistics.median(r['frame_p99'] for r in rs):,.0f} ms "
                  f"({p99s}) "
                  f"| {', '.join(str(r['slow_frames']) + ' of ' + str(r['frames']) for r in rs)} "
                  f"| {', '.join(str(max((ms for g, ms, _t in r['gc'] if g == 2), default=0)) for r in rs)} "
                  f"| {min(r['load'] for r in rs):.1f}-{max(r['load'] for r in rs):.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--redis", default=None, help="Redis URL: the server runs as one of several would")
    parser.add_argument("--levels", default="500,1000,2000,5000", help="idle connections at each step")
    parser.add_argument("--kind", choices=("playing", "waiting", "watching"), default="playing")
    parser.add_argument("--spectators", type=int, default=500, help="spectators added at the end (0: none)")
    parser.add_argument("--active", type=int, default=10, help="tables of four clients that play in the windows")
    parser.add_argument("--think", type=float, default=0.5)
    parser.add_argument("--window", type=float, default=20.0)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds before reading RSS")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds over which the idle CPU is read")
    parser.add_argument("--no-deflate", dest="deflate", action="store_false", help="the server without compression")
    parser.add_argument("--src", default=None,
                        help="run the server from this source tree (another checkout), or compare several, "
                             "interleaved: LABEL=PATH,LABEL=PATH")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each --src tree, interleaved")
    parser.add_argument("--py-spy", default=None, metavar="FILE",
                        help="sample the first run's server at the last level, idle connections only")
    parser.add_argument("--top", type=int, default=40, help="with --py-spy: how many functions to list")
    parser.add_argument("--json", default=None, metavar="FILE", help="append the rows to FILE")
    parser.add_argument("--env", action="append", default=[], metavar="LABEL:NAME=VALUE",
                        help="an environment variable for the server of one --src label (- without --src), e.g. "
                             "off:UPDOWN_GC__FREEZE=false; repeatable")
    parser.add_argument("--no-empty", action="store_true", help="no window without idle connections first")
    parser.add_argument("--churn", type=float, default=0.0, metavar="SECONDS",
                        help="after the last level, this long with idle sockets coming and going and short games "
                             "ending, the RSS read every 10 s")
    parser.add_argument("--churn-rate", type=int, default=20, help="with --churn: sockets opened (and closed) a second")
    parser.add_argument("--churn-games", type=int, default=4, help="with --churn: short games at a time")
    parser.add_argument("--keep-log", default=None, metavar="FILE", help="append each server's log to FILE")
    args = parser.parse_args()
    args.levels = [int(x) for x in args.levels.split(",")]
    if args.kind == "watching":
        parser.error("--kind watching needs tables to watch: use --spectators after playing or waiting")
    if not 0 < args.window <= 120 or max(args.levels) + args.spectators > 20000 or not 1 <= args.active <= 100:
        parser.error("--window 0 to 120 s, at most 20,000 idle connections, --active 1 to 100")
    if not 0 < args.idle <= 120 or not 1 <= args.rounds <= 10:
        parser.error("--idle 0 to 120 s, --rounds 1 to 10")
    srcs = source_trees(parser, args.src)
    env: dict[str, list[tuple[str, str]]] = {}
    for item in args.env:
        label, _, assignment = item.partition(":")
        name, eq, value = assignment.partition("=")
        if not eq or not name.startswith("UPDOWN_"):
            parser.error(f"--env {item}: LABEL:UPDOWN_NAME=VALUE")
        env.setdefault(label, []).append((name, value))
    args.env, args.env_all = env, sorted({n for pairs in env.values() for n, _v in pairs})
    if not 0 <= args.churn <= 3600:
        parser.error("--churn 0 to 3600 s")
    limit = raise_open_files(2 * (max(args.levels) + args.spectators + 4 * args.active) + 1024)
    need = max(args.levels) + args.spectators + 4 * args.active + 200
    if limit < need:
        print(f"open files limited to {limit} (hard limit), fewer than the {need} this run needs: raise it "
              f"(ulimit -Hn, or LimitNOFILE= for a service)")
    others: dict[str, int | None] = {}
    if args.db and args.db.startswith("postgresql"):
        others["pg"] = listener(url_port(args.db, 5432))
    order = [s for r in range(args.rounds) for s in (srcs if r % 2 == 0 else srcs[::-1])]
    rows: list[dict[str, Any]] = []
    for index, src in enumerate(order):  # A B, B A, ...
        if src is not None:
            print(f"-- server {src[0]} ({src[1]}), run {index + 1} of {len(order)}", flush=True)
        spy = args.py_spy if index == 0 else None
        got = one_run(args, others, src, spy)
        for r in got:
            r["run"] = index
        rows += got
        if args.json:
            with open(args.json, "a") as out:
                for r in got:
                    out.write(json.dumps(r) + "\n")
        gc.collect()
    if len(order) > 1:
        summary(rows, [s[0] if s is not None else "-" for s in srcs])
    if args.py_spy:
        top(args.py_spy, args.top)


if __name__ == "__main__":
    main()
