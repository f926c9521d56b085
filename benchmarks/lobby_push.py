"""The lobby's WebSocket under a burst: how long a new table takes to reach every lobby socket, how
many lists each socket is sent, and the server's CPU meanwhile, against the page's old poll.

    python benchmarks/lobby_push.py [--sockets 200] [--tables 40] [--makers 4] [--rounds 2]

Starts one ``updown serve`` on SQLite in a temporary folder (``--limit
lobby_sockets_per_address=N``: every socket comes from 127.0.0.1). Opens ``--sockets`` lobby
sockets, then per round: ``--makers`` guests create ``--tables`` tables with open seats as fast as
they can (concurrently), and every socket reads until its list holds them all. Printed per round:
the latency from a create's answer to the first list on a socket that holds the table (p50, p95,
max over every socket and table), lists per socket, bytes per socket, the server's CPU seconds
(utime+stime from /proc) during the burst and the load average. Then the cost of the old page for
the same sockets: one ``GET /api/tables`` every 5 s each, timed for ``--poll-seconds``.

Bounded: at most 2000 sockets, 200 tables a round, 60 s a wait.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from server_util import Server  # noqa: E402


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def reader(url: str, ready: asyncio.Event, seen: dict[str, float], counts: list[int], size: list[int],
                 stop: asyncio.Event) -> None:
    async with connect(url, max_size=2**24, ping_interval=None) as ws:
        first = json.loads(await ws.recv())
        assert first["type"] == "tables", first
        ready.set()
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                continue
            msg = json.loads(text)
            if msg["type"] != "tables":
                continue
            counts[0] += 1
            size[0] += len(text)
            now = time.monotonic()
            for t in msg["tables"]:
                seen.setdefault(t["id"], now)


async def round_(base: str, ws_url: str, sockets: int, tables: int, makers: int, pid: int) -> None:
    stop = asyncio.Event()
    readies = [asyncio.Event() for _ in range(sockets)]
    seens: list[dict[str, float]] = [{} for _ in range(sockets)]
    counts = [[0] for _ in range(sockets)]
    sizes = [[0] for _ in range(sockets)]
    tasks = [asyncio.create_task(reader(ws_url, readies[i], seens[i], counts[i], sizes[i], stop))
             for i in range(sockets)]
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 60)
    for c in counts:
        c[0] = 0
    clients = []
    for i in range(makers):
        http = httpx.AsyncClient(base_url=base, timeout=30)
        (await http.post("/api/guest", json={})).raise_for_status()
        clients.append(http)
    created: dict[str, float] = {}
    cpu0, began = cpu_seconds(pid), time.monotonic()

    async def make(http: httpx.AsyncClient, n: int) -> None:
        for _ in range(n):
            r = await http.post("/api/tables", json={"game": "updown", "seats": ["me", "open", "bot:greedy", "bot:greedy"],
                                                     "options": {"rounds": 1}})
            r.raise_for_status()
            created[r.json()["id"]] = time.monotonic()

    per = [tables // makers + (1 if i < tables % makers else 0) for i in range(makers)]
    await asyncio.gather(*(make(c, n) for c, n in zip(clients, per)))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(set(created) <= set(s) for s in seens):
        await asyncio.sleep(0.05)
    took, cpu = time.monotonic() - began, cpu_seconds(pid) - cpu0
    stop.set()
    await asyncio.gather(*tasks)
    for http in clients:
        await http.aclose()
    lat = sorted(max(0.0, s[t] - at) for s in seens for t, at in created.items() if t in s)
    missing = sum(1 for s in seens for t in created if t not in s)
    lists = [c[0] for c in counts]
    print(f"  {sockets} sockets, {tables} tables by {makers} makers in {took:.2f} s: latency p50 "
          f"{statistics.median(lat) * 1000:.0f} ms, p95 {lat[int(0.95 * (len(lat) - 1))] * 1000:.0f} ms, "
          f"max {lat[-1] * 1000:.0f} ms; missing {missing}; lists a socket {min(lists)}..{max(lists)} "
          f"(mean {statistics.mean(lists):.1f}); {statistics.mean(s[0] for s in sizes) / 1024:.0f} KiB a socket; "
          f"server CPU {cpu:.2f} s; load {os.getloadavg()[0]:.2f}")


async def poll_cost(base: str, sockets: int, seconds: float, pid: int) -> None:
    """The old page: every page reads GET /api/tables every 5 s (spread evenly)."""
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=httpx.Limits(max_connections=50)) as http:
        cpu0, began = cpu_seconds(pid), time.monotonic()
        sent = failed = 0

        async def one(offset: float) -> None:
            nonlocal sent, failed
            await asyncio.sleep(offset)
            while time.monotonic() - began < seconds:
                try:
                    (await http.get("/api/tables?status=open,running")).raise_for_status()
                    sent += 1
                except httpx.HTTPError:
                    failed += 1
                await asyncio.sleep(5.0)

        await asyncio.gather(*(one(5.0 * i / sockets) for i in range(sockets)))
        took, cpu = time.monotonic() - began, cpu_seconds(pid) - cpu0
    print(f"  the old poll, {sockets} pages for {took:.1f} s: {sent} requests ({failed} failed), server CPU {cpu:.2f} s "
          f"({cpu / took * 60:.1f} s a minute); load {os.getloadavg()[0]:.2f}")


async def idle_cost(ws_url: str, sockets: int, seconds: float, pid: int) -> None:
    """The new page, nothing changing: the sockets open and quiet for as long."""
    stop = asyncio.Event()
    readies = [asyncio.Event() for _ in range(sockets)]
    tasks = [asyncio.create_task(reader(ws_url, readies[i], {}, [0], [0], stop)) for i in range(sockets)]
    await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 60)
    cpu0, began = cpu_seconds(pid), time.monotonic()
    await asyncio.sleep(seconds)
    took, cpu = time.monotonic() - began, cpu_seconds(pid) - cpu0
    stop.set()
    await asyncio.gather(*tasks)
    print(f"  the lobby sockets, {sockets} open and quiet for {took:.1f} s: server CPU {cpu:.2f} s "
          f"({cpu / took * 60:.1f} s a minute); load {os.getloadavg()[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sockets", type=int, default=200)
    ap.add_argument("--tables", type=int, default=40)
    ap.add_argument("--makers", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--poll-seconds", type=float, default=30.0)
    a = ap.parse_args()
    sockets, tables = min(a.sockets, 2000), min(a.tables, 200)
    tmp = Path(tempfile.mkdtemp(prefix="lobby-push-"))
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log",
                 extra_args=["--limit", f"lobby_sockets_per_address={sockets + 10}", "--limit", "tables_per_guest=off",
                             "--limit", "accounts_per_address=off"]).start()
    assert srv.proc is not None
    pid = srv.proc.pid
    ws_url = f"ws://127.0.0.1:{srv.port}/ws/lobby"
    try:
        print(f"lobby push: one server process (SQLite), {os.cpu_count()} CPUs")
        for r in range(a.rounds):
            print(f"round {r + 1}")
            asyncio.run(round_(srv.base, ws_url, sockets, tables, a.makers, pid))
            asyncio.run(idle_cost(ws_url, sockets, a.poll_seconds, pid))
            asyncio.run(poll_cost(srv.base, sockets, a.poll_seconds, pid))
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
