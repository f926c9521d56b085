"""Load on the online server: N concurrent 4-seat tables, every seat a scripted client playing random
legal actions through a real WebSocket on 127.0.0.1, against one server process or several.

    python benchmarks/server_load.py --tables 200 --seconds 60 [--think 0.5] [--db URL]
    python benchmarks/server_load.py ... --src /tmp/step-base    # the server of another checkout
    python benchmarks/server_load.py ... --src before=/tmp/base,after=. --rounds 2   # two checkouts, interleaved
    python benchmarks/server_load.py ... --py-spy prof.txt       # where the (first) server's time goes
    python benchmarks/server_load.py ... --py-spy prof.txt --py-spy-gil   # only the thread holding the GIL
    python benchmarks/server_load.py --db postgresql+psycopg://... --redis redis://... \\
        --processes 1,2,4 --rounds 2                             # scale-out, runs interleaved
    python benchmarks/server_load.py ... --deflate on,off --rounds 3   # WebSocket compression, interleaved
    python benchmarks/server_load.py --in-process 15 --src before=/tmp/base,after=. --rounds 3
                                                                 # the table's own step path only
    python benchmarks/server_load.py ... --client light,websockets --rounds 2   # the two load generators
    python benchmarks/server_load.py ... --py-spy-generator gen.txt   # where the generator's own time goes

Starts ``updown serve`` itself (SQLite in a temporary folder unless --db is given; with a PostgreSQL
URL every run gets a new database of its own in that cluster, dropped after it), creates the tables
through the HTTP API with guest accounts, then reports for each run: actions per second and three
latencies, p50 and p99: at the acting client, action sent -> its ``ack`` (stored) and action sent ->
the first frame after the ack; and at every *other* seat of the table, the table's last action sent
-> the next frame that seat receives (with several processes the frame that came through Redis and
the database to another process: what a player waits for before it is their turn).

With several processes (``--processes N``, Redis needed) the four seats of table t connect to
processes t, t+1, t+2, t+3 (mod N) (``--spread seats``: every step crosses processes, the case of a
proxy that spreads connections at random), or all four to process t mod N (``--spread tables``: a
proxy that keeps a table on one process). Tables are created through process t mod N.

CPU is read from /proc (user + system, with reaped children): of the server processes, of the
PostgreSQL cluster and the Redis server behind the URLs (each found by the port it listens on), and
of this load generator. Before each run the servers' CPU is read for ``--idle`` seconds with every
client connected and none acting (clocks, heartbeats, leases), so that the CPU an action above idle
is known too. On a machine whose cores the generator shares with the servers, the actions per
second are the machine's; the server CPU an action, and actions per server-CPU-second, are what the
servers would carry on cores of their own. Bounded: at most 1000 tables, 600 s a run, 10 rounds.
A run's figures are read at its end (the clock's stop), before the sockets close.

The clients (``--client``): ``light``, the default, is picows's WebSocket client with a callback a
frame (no task, future or timeout a message), orjson to parse, and no parse at all of a frame whose
``legal`` is empty (nothing else in it is read), on uvloop (``--loop``), the collector off during the
run. Its CPU an action (29 November 2026, SQLite, load 10 to 17): 0.17 to 0.21 ms at 350 to 750
actions a second without compression, 0.22 to 0.26 with it (it inflates every frame), 0.26 to 0.32
at 200 a second (fewer events a wake-up); against 0.41 to 0.44 and 0.52 to 0.66 for ``websockets``
(the client until then: ``websockets``' client, a coroutine a socket, ``json.loads`` of every
message, ``asyncio.wait_for`` around every ``recv``), which is kept to compare. The server's CPU an
action is the same with either at 250 to 530 actions a second; at 200 a second it was 0.1 to 0.2 ms
higher with the light client (its answers come sooner, so the server's loop and grouped commits
gather fewer actions a turn: ack p50 18 to 25 ms against 128 to 1,058 ms). Both play the same
script: the legal actions of the last frame, a think drawn uniformly from 0.5 to 1.5 times
``--think``, then a random legal action (the messages that arrive meanwhile handled after it is
sent, as the old client's socket buffer held them), and the same three latencies; both offer
permessage-deflate the same way (the light client inflates the server's frames and deflates its own
messages with zlib, as websockets does).

``--in-process GAMES`` measures only the table's own part of an action (``Live.submit`` then
``Live.broadcast`` to four seated sockets that send nothing anywhere, a store that stores nothing):
GAMES whole games of random legal actions in a process of their own for each tree of ``--src``,
after one game to warm up, reporting its CPU time an action. No sockets, database or other load
generator share its figures, so it tells a change of ``live.py`` apart from the machine's noise; what
it leaves out (uvicorn, the routes, the store) is what a server run adds.

The store's part alone (``Store.commit_async``, its grouped transactions and the actor's check, on
SQLite or PostgreSQL, trees interleaved the same way) is measured by ``benchmarks/store_write.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import gc
import itertools
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import uvloop
import websockets
try:  # the light client's library (the test extra pins it); without it, --client websockets still runs
    from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_connect
except ImportError:  # pragma: no cover
    WSFrame = WSTransport = WSMsgType = ws_connect = None  # type: ignore[assignment,misc]
    WSListener = object  # type: ignore[assignment,misc]
from websockets.asyncio.client import ClientConnection



def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``updown serve`` as a process of its own, waited for up to ``patience`` seconds (a loaded
    machine can take a minute to import the server)."""

    def __init__(self, db: str, *, redis: str | None = None, bot_delay: float = 0.0, log: Path | None = None,
                 extra_args: list[str] | None = None, patience: float = 180.0):
        self.db, self.redis, self.bot_delay, self.log = db, redis, bot_delay, log
        self.extra_args = list(extra_args or [])
        self.port = free_port()
        self.patience = patience
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        # -P: the working directory is not put first on the path, so that --src (PYTHONPATH) is what is
        # imported even when this runs from another checkout (before, a run from the repository's root
        # imported that root's server whatever --src said).
        args = [sys.executable, "-P", "-c", "from updown.cli.app import main; main()", "serve", "--db", self.db,
                "--port", str(self.port), "--bot-delay", str(self.bot_delay)]
        if self.redis:
            args += ["--redis", self.redis]
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self.proc = subprocess.Popen(args + self.extra_args, stdout=out, stderr=out,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.time() + self.patience
        with httpx.Client(timeout=2, verify=False) as http:
            while time.time() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited with {self.proc.returncode} (log: {self.log})")
                try:
                    if http.get(self.base + "/api/health").status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not start in {self.patience:.0f} s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class Clock:
    """Every client connects first (``ready`` when the last one has); the measured run starts at
    ``start()``."""

    def __init__(self, clients: int, seconds: float):
        self.clients, self.seconds = clients, seconds
        self.connected = 0
        self.ready = asyncio.Event()
        self.go = asyncio.Event()
        self.stop = float("inf")
        self.stopped = False
        """Set at ``stop`` (the measured run's end): a light seat acts no more after it."""
        self.seats: list[LightSeat] = []
        """The light clients connected so far, started all at once by ``start``."""

    def arrived(self) -> None:
        self.connected += 1
        if self.connected == self.clients:
            self.ready.set()

    def start(self) -> None:
        if not self.go.is_set():
            self.stop = time.time() + self.seconds
            self.go.set()
            for seat in self.seats:
                seat.begin()


@dataclass
class Tally:
    acks: list[float] = field(default_factory=list)
    frames: list[float] = field(default_factory=list)
    others: list[float] = field(default_factory=list)
    actions: int = 0
    frames_received: int = 0
    characters: int = 0
    wire_bytes: int = 0
    closed: list[str] = field(default_factory=list)
    """Why each socket the server closed was closed (none expected)."""
    """Bytes the clients' sockets received (compressed or not), handshakes included."""


class Counted(ClientConnection):
    """A client connection that counts the bytes it receives from the network."""

    tally: Tally | None = None

    def data_received(self, data: bytes) -> None:
        if Counted.tally is not None:
            Counted.tally.wire_bytes += len(data)
        super().data_received(data)


class TableState:
    """What the seats of one table share in this process: when its last action was sent."""

    def __init__(self) -> None:
        self.sent_at = 0.0
        self.seq = 0


async def seat_client(port: int, table: str, shared: TableState, cookie: str, rng: random.Random, think: float,
                      clock: Clock, tally: Tally, deflate: bool) -> None:
    url = f"ws://127.0.0.1:{port}/ws/tables/{table}"
    async with websockets.connect(url, additional_headers={"Cookie": cookie}, max_size=2**24,
                                  ping_interval=None, open_timeout=120, create_connection=Counted,
                                  compression="deflate" if deflate else None) as ws:
        clock.arrived()
        await clock.go.wait()
        stop = clock.stop
        legal: list[dict[str, object]] = []
        pending: str | None = None
        sent_at = 0.0
        acked = False
        seen = shared.seq
        n = 0
        while time.time() < stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.05, stop - time.time()))
            except asyncio.TimeoutError:
                return
            except websockets.ConnectionClosed as closed:
                tally.closed.append(str(closed)[:100])
                return
            msg = json.loads(raw)
            kind = msg["type"]
            if kind == "frame":
                tally.frames_received += 1
                tally.characters += len(raw)
                if shared.seq > seen and pending is None:
                    tally.others.append(time.perf_counter() - shared.sent_at)
                seen = shared.seq
            if kind in ("snapshot", "frame"):
                legal = msg["legal"]
                if pending is not None and acked:
                    tally.frames.append(time.perf_counter() - sent_at)
                    pending = None
            elif kind == "ack" and msg["id"] == pending:
                tally.acks.append(time.perf_counter() - sent_at)
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
                shared.sent_at = sent_at
                shared.seq += 1
                seen = shared.seq
                tally.actions += 1
                try:
                    await ws.send(json.dumps({"type": "act", "id": pending, "action": rng.choice(legal)["id"]}))
                except websockets.ConnectionClosed as closed:
                    tally.closed.append(str(closed)[:100])
                    return
                legal = []


# -- the light client (picows) -------------------------------------------------------------------
# The same script as ``seat_client`` (every frame's legal actions, a think drawn the same way, a random
# legal action, the same three latencies), for a fifth of its CPU or less: picows's WebSocket client
# (Cython) calls ``on_ws_frame`` for each frame as it is read, with no task, future or timeout per
# message; orjson parses. Messages read while the seat thinks (or before the run starts) wait in a
# queue and are handled after its action is sent, as the old client's socket buffer held them until
# its next ``recv``; so the actions chosen (from the legal actions before the think), the samples taken
# and their timestamps are the old client's.
_TAIL = b"\x00\x00\xff\xff"


class Deflate:
    """permessage-deflate (RFC 7692) on the client's side, as the server answered the offer that the
    ``websockets`` client makes (``permessage-deflate; client_max_window_bits``): frames from the
    server inflated, the client's own messages deflated (with websockets' settings: memLevel 5, the
    default level), so that the server inflates them as it would the old client's."""

    def __init__(self, answer: str):
        name, *params = [p.strip() for p in answer.split(";")]
        if name != "permessage-deflate":
            raise RuntimeError(f"the server answered the extension offer with {answer!r}")
        given = dict((p.split("=", 1) + [""])[:2] for p in params)
        self.server_bits = int(given.get("server_max_window_bits") or 15)
        self.client_bits = int(given.get("client_max_window_bits") or 15)
        self.server_reset = "server_no_context_takeover" in given
        self.client_reset = "client_no_context_takeover" in given
        self.inflater = zlib.decompressobj(wbits=-self.server_bits)
        self.deflater = zlib.compressobj(wbits=-self.client_bits, memLevel=5)

    def inflate(self, data: bytes) -> bytes:
        if self.server_reset:
            self.inflater = zlib.decompressobj(wbits=-self.server_bits)
        return self.inflater.decompress(data + _TAIL)

    def deflate(self, data: bytes) -> bytes:
        if self.client_reset:
            self.deflater = zlib.compressobj(wbits=-self.client_bits, memLevel=5)
        out = self.deflater.compress(data) + self.deflater.flush(zlib.Z_SYNC_FLUSH)
        return out[:-4] if out.endswith(_TAIL) else out


_FRAME = b'{"type":"frame"'
_NO_LEGAL = b'"legal":[]'
_NOTHING: dict[str, Any] = {"type": "frame", "legal": []}
if WSMsgType is not None:
    _TEXT, _BINARY, _CONTINUATION, _CLOSE = WSMsgType.TEXT, WSMsgType.BINARY, WSMsgType.CONTINUATION, WSMsgType.CLOSE


class LightSeat(WSListener):
    """One seat's client on picows, driven by callbacks (see the comment above)."""

    def __init__(self, shared: TableState, rng: random.Random, think: float, clock: Clock, tally: Tally,
                 deflate: Deflate | None):
        super().__init__()
        self.shared, self.rng, self.think, self.clock, self.tally, self.codec = shared, rng, think, clock, tally, deflate
        self.loop = asyncio.get_running_loop()
        self.transport: WSTransport | None = None
        self.queue: collections.deque[bytes] = collections.deque()
        self.held = True
        """Messages wait in ``queue``: before the run starts, and while the seat thinks."""
        self.legal: list[dict[str, Any]] = []
        self.pending: str | None = None
        self.sent_at = 0.0
        self.acked = False
        self.seen = 0
        self.n = 0
        self.done = False
        self.parts: list[bytes] = []
        self.compressed = False

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport
        self.clock.arrived()
        self.clock.seats.append(self)
        if self.clock.go.is_set():  # connected late: plays at once, as the old client would
            self.begin()

    def begin(self) -> None:
        self.seen = self.shared.seq
        self.held = False
        self.drain()

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        size = frame.payload_size
        self.tally.wire_bytes += size + (2 if size < 126 else 4 if size < 65536 else 10)
        kind = frame.msg_type
        if kind == _TEXT or kind == _BINARY or kind == _CONTINUATION:
            if kind != _CONTINUATION:
                self.compressed = frame.rsv1
            data = frame.get_payload_as_bytes()
            if not frame.fin:
                self.parts.append(data)
                return
            if self.parts:
                data = b"".join(self.parts) + data
                self.parts = []
            if self.compressed:
                if self.codec is None:
                    raise RuntimeError("a compressed frame on a socket without permessage-deflate")
                data = self.codec.inflate(data)
            if self.held:
                self.queue.append(data)
            else:
                self.handle(data)
        elif kind == _CLOSE:
            if not self.clock.stopped and not self.done:
                self.tally.closed.append(f"received {frame.get_close_code()} ({frame.get_close_reason()})"[:100])
                self.done = True
            transport.send_close(frame.get_close_code())
            transport.disconnect()

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        if not self.clock.stopped and not self.done:
            self.tally.closed.append("the connection was lost without a close frame")
        self.done = True

    def drain(self) -> None:
        queue = self.queue
        while queue and not self.held and not self.done:
            self.handle(queue.popleft())

    def handle(self, raw: bytes) -> None:
        """One message, as ``seat_client``'s loop handles it."""
        if self.clock.stopped:
            return
        tally = self.tally
        if raw.startswith(_FRAME) and raw.count(b'"legal"') == 1 and _NO_LEGAL in raw:
            # A frame that leaves this seat nothing to do (most are): nothing else in it is read.
            msg: dict[str, Any] = _NOTHING
        else:
            msg = orjson.loads(raw)
        kind = msg["type"]
        if kind == "frame":
            tally.frames_received += 1
            tally.characters += len(raw) if raw.isascii() else len(raw.decode())
            if self.shared.seq > self.seen and self.pending is None:
                tally.others.append(time.perf_counter() - self.shared.sent_at)
            self.seen = self.shared.seq
        if kind == "snapshot" or kind == "frame":
            self.legal = msg["legal"]
            if self.pending is not None and self.acked:
                tally.frames.append(time.perf_counter() - self.sent_at)
                self.pending = None
        elif kind == "ack" and msg["id"] == self.pending:
            tally.acks.append(time.perf_counter() - self.sent_at)
            self.acked = True
        elif kind == "error" and msg.get("id") == self.pending:
            self.pending = None
        elif kind == "table" and msg["table"]["status"] == "finished":
            self.done = True
            if self.transport is not None:
                self.transport.send_close()
                self.transport.disconnect()
            return
        if self.legal and self.pending is None:
            if self.think:
                self.held = True
                self.loop.call_later(self.rng.uniform(0.5 * self.think, 1.5 * self.think), self.act)
            else:
                self.act()

    def act(self) -> None:
        if self.clock.stopped or self.done or self.transport is None:
            return
        self.n += 1
        self.pending = pending = f"a{self.n}"
        self.acked = False
        self.sent_at = time.perf_counter()
        self.shared.sent_at = self.sent_at
        self.shared.seq += 1
        self.seen = self.shared.seq
        self.tally.actions += 1
        data = orjson.dumps({"type": "act", "id": pending, "action": self.rng.choice(self.legal)["id"]})
        if self.codec is not None:
            self.transport.send(_TEXT, self.codec.deflate(data), rsv1=True)
        else:
            self.transport.send(_TEXT, data)
        self.legal = []
        self.held = False
        self.drain()


async def light_seat(port: int, table: str, shared: TableState, cookie: str, rng: random.Random, think: float,
                     clock: Clock, tally: Tally, deflate: bool) -> LightSeat:
    """Connect one light seat (its handshake offers what the ``websockets`` client offers)."""
    headers = {"Cookie": cookie}
    if deflate:
        headers["Sec-WebSocket-Extensions"] = "permessage-deflate; client_max_window_bits"

    def listener(request: Any, response: Any) -> LightSeat:
        answer = response.headers.get("Sec-WebSocket-Extensions")
        if deflate and not answer:
            raise RuntimeError("the server did not take permessage-deflate (started with --no-ws-deflate?)")
        if answer and not deflate:
            raise RuntimeError(f"the server answered an extension that was not offered: {answer!r}")
        return LightSeat(shared, rng, think, clock, tally, Deflate(answer) if answer else None)

    _transport, seat = await ws_connect(listener, f"ws://127.0.0.1:{port}/ws/tables/{table}", extra_headers=headers,
                                        websocket_handshake_timeout=120, max_frame_size=2**24)
    assert isinstance(seat, LightSeat)
    return seat


# -- CPU from /proc ------------------------------------------------------------------------------
def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux)."""
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        pass
    return out


def tree_cpu(pid: int, kernel: bool = False) -> float:
    """CPU seconds of a process, its children that ended (reaped) and its living descendants: the
    figure a PostgreSQL cluster's backends (or a server's bot workers) add to as they come and go.
    With ``kernel``, the system time alone."""
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    own = sum(int(fields[i]) for i in ((12, 14) if kernel else (11, 12, 13, 14))) / os.sysconf("SC_CLK_TCK")
    return own + sum(tree_cpu(c, kernel) for c in children(pid))


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def listener(port: int) -> int | None:
    """The process listening on 127.0.0.1:port (TCP), by the socket's inode; None if not found here."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(parts[9])
    if not inodes:
        return None
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for fd in (proc / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    found.append(int(proc.name))
                    break
        except OSError:
            continue
    return min(found) if found else None  # the parent: postmaster before its children


def url_port(url: str, default: int) -> int:
    rest = url.split("://", 1)[1].split("/", 1)[0].rsplit("@", 1)[-1]
    return int(rest.rsplit(":", 1)[1]) if ":" in rest else default


# -- a run ---------------------------------------------------------------------------------------
@dataclass
class Run:
    processes: int
    deflate: bool
    result: dict[str, Any] = field(default_factory=dict)


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100)[q - 1] * 1000 if len(xs) >= 100 else float("nan")


async def drive(args: argparse.Namespace, servers: list[Server], deflate: bool,
                others: dict[str, int | None], client_name: str = "light") -> dict[str, Any]:
    n = len(servers)
    seats: list[tuple[int, str, TableState, str]] = []
    t0 = time.time()
    gate = asyncio.Semaphore(8)

    async def make(t: int) -> list[tuple[int, str, TableState, str]]:
        async with gate, httpx.AsyncClient(base_url=servers[t % n].base, timeout=120, verify=False) as http:
            cookies = []
            for _seat in range(4):
                r = await http.post("/api/guest", json={})
                r.raise_for_status()
                cookies.append(f"updown_session={r.cookies['updown_session']}")
                http.cookies.clear()
            # A long grace: on a loaded machine the set-up of every table can take longer than the
            # default 60 s, after which a seated player who has not connected yet has left.
            r = await http.post("/api/tables", json={"game": args.game, "grace": 3600}, headers={"Cookie": cookies[0]})
            r.raise_for_status()
            table = r.json()["id"]
            for cookie in cookies[1:]:
                (await http.post(f"/api/tables/{table}/join", json={}, headers={"Cookie": cookie})).raise_for_status()
        shared = TableState()
        return [(servers[(t + i) % n if args.spread == "seats" else t % n].port, table, shared, cookie)
                for i, cookie in enumerate(cookies)]

    for made in await asyncio.gather(*(make(t) for t in range(args.tables))):
        seats += made
    setup = time.time() - t0
    tally = Tally()
    Counted.tally = tally
    rng = random.Random(1)
    clock = Clock(len(seats), args.seconds)
    client = seat_client if client_name == "websockets" else light_seat
    gathered = asyncio.gather(*(client(port, t, shared, c, random.Random(rng.random()), args.think, clock, tally,
                                       deflate) for port, t, shared, c in seats), return_exceptions=True)
    try:
        await asyncio.wait_for(clock.ready.wait(), 120)
    except asyncio.TimeoutError:
        pass
    connected = clock.connected
    pids = [s.proc.pid for s in servers if s.proc is not None]
    # The servers' CPU with every client connected and none acting: clocks, heartbeats, leases and
    # re-reads, paid whatever the traffic. Taken out of the marginal cost an action. First the
    # connections' own work settles (snapshots, seat and watcher messages).
    await asyncio.sleep(args.idle)
    idle0, t_idle = [tree_cpu(p) for p in pids], time.time()
    await asyncio.sleep(args.idle)
    idle_rate = sum(tree_cpu(p) - c for p, c in zip(pids, idle0)) / (time.time() - t_idle)
    # No collections in the generator during the run (its messages make no cycles): a pause of the
    # generator's loop would be counted as the server's latency.
    gc.collect()
    gc.freeze()
    gc.disable()
    clock.start()
    load0 = os.getloadavg()[0]
    cpu0 = [tree_cpu(p) for p in pids]
    kernel0 = sum(tree_cpu(p, kernel=True) for p in pids)
    other0 = {k: tree_cpu(p) if p else 0.0 for k, p in others.items()}
    me0 = os.times()
    wire0 = tally.wire_bytes
    start = time.time()
    spy = None
    if args.py_spy:
        spy = subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(pids[0]),
                                "--format", "raw", "--rate", "50", "--duration", str(int(args.seconds)),
                                "--output", args.py_spy, "--nonblocking", *(["--gil"] if args.py_spy_gil else [])],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spy_me = None
    if args.py_spy_generator:
        spy_me = subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(os.getpid()),
                                   "--format", "raw", "--rate", "100", "--duration", str(int(args.seconds)),
                                   "--output", args.py_spy_generator, "--native"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The run ends at the clock's stop for both clients: the figures are read then, before the sockets
    # close (the old client's close handshakes, 800 of them, were counted in its run until 29 November).
    await asyncio.sleep(max(0.0, clock.stop - time.time()))
    clock.stopped = True
    gc.enable()
    gc.unfreeze()
    elapsed = time.time() - start
    cpu = [tree_cpu(p) - c for p, c in zip(pids, cpu0)]
    kernel = sum(tree_cpu(p, kernel=True) for p in pids) - kernel0
    other = {k: (tree_cpu(p) - other0[k]) if p else None for k, p in others.items()}
    me1 = os.times()
    me, me_sys = me1.user + me1.system - me0.user - me0.system, me1.system - me0.system
    for seat in clock.seats:
        if seat.transport is not None and not seat.done:
            seat.transport.send_close()
            seat.transport.disconnect()
    failed = [r for r in await gathered if isinstance(r, BaseException)]
    if failed:
        tally.closed.append(f"{len(failed)} clients failed, e.g. {failed[0]!r}"[:200])
    for process in (spy, spy_me):
        if process is not None:
            await asyncio.to_thread(process.wait)
    acts = max(1, tally.actions)

    def per_action(seconds: float | None) -> float | None:
        return None if seconds is None else 1000 * seconds / acts

    return {
        "processes": n, "deflate": deflate, "spread": args.spread, "client": client_name, "loop": args.loop,
        "tables": args.tables, "think": args.think,
        "setup_s": setup, "connected": connected, "clients": len(seats), "elapsed": elapsed,
        "actions": tally.actions, "actions_s": tally.actions / elapsed,
        "ack_p50": pct(tally.acks, 50), "ack_p99": pct(tally.acks, 99),
        "frame_p50": pct(tally.frames, 50), "frame_p99": pct(tally.frames, 99),
        "others_p50": pct(tally.others, 50), "others_p99": pct(tally.others, 99),
        "frames": tally.frames_received, "chars_frame": tally.characters / max(1, tally.frames_received),
        "wire_bytes_frame": (tally.wire_bytes - wire0) / max(1, tally.frames_received),
        "server_cpu": cpu, "server_ms_action": 1000 * sum(cpu) / acts,
        "server_sys_ms_action": 1000 * kernel / acts, "idle_cpu_s": idle_rate,
        "marginal_ms_action": 1000 * (sum(cpu) - idle_rate * elapsed) / acts,
        "pg_ms_action": per_action(other.get("pg")), "redis_ms_action": per_action(other.get("redis")),
        "generator_ms_action": 1000 * me / acts, "generator_sys_ms_action": 1000 * me_sys / acts,
        "load_start": load0, "load_end": os.getloadavg()[0],
        "rss_mb": [rss_bytes(p) / 2**20 for p in pids],
        "at": time.strftime("%H:%M:%S", time.gmtime()), "closed": tally.closed[:5], "closed_count": len(tally.closed),
    }


def fresh_database(url: str) -> tuple[str, str | None]:
    """A new database in the cluster of a PostgreSQL URL (and its name), or the URL itself (SQLite)."""
    if not url.startswith("postgresql"):
        return url, None
    import psycopg

    name = f"updown_load_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name, name


def drop_database(url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def one_run(args: argparse.Namespace, processes: int, deflate: bool, tmp: str, index: int,
            src: tuple[str, str] | None = None, client: str = "light") -> dict[str, Any]:
    if src is not None:  # the servers started below import the package from this tree
        os.environ["PYTHONPATH"] = str(Path(src[1]).resolve())
    db, created = fresh_database(args.db) if args.db else (f"sqlite:///{tmp}/load{index}.db", None)
    servers: list[Server] = []
    extra = ["--limit", "accounts_per_address=off", "--limit", "tables_per_guest=off", "--bot-workers", "0"]
    if not deflate:
        extra.append("--no-ws-deflate")
    others: dict[str, int | None] = {}
    if args.db and args.db.startswith("postgresql"):
        others["pg"] = listener(url_port(args.db, 5432))
    if args.redis:
        others["redis"] = listener(url_port(args.redis, 6379))
    try:
        for i in range(processes):
            servers.append(Server(db, redis=args.redis, bot_delay=0.0, log=Path(tmp) / f"server{index}-{i}.log",
                                  extra_args=extra))
            servers[-1].start()  # one after the other: the first applies the migrations
        with asyncio.Runner(loop_factory=uvloop.new_event_loop if args.loop == "uvloop" else None) as runner:
            r = runner.run(drive(args, servers, deflate, others, client))
        r["src"] = src[0] if src is not None else None
        return r
    finally:
        for s in servers:
            s.stop()
        if created:
            drop_database(args.db, created)


def show(r: dict[str, Any]) -> None:
    def ms(x: float | None) -> str:
        return "-" if x is None else f"{x:.2f}"

    print(f"[{r['at']}] {'server ' + r['src'] + ', ' if r.get('src') else ''}"
          f"processes {r['processes']} ({r['spread']}), deflate {'on' if r['deflate'] else 'off'}, "
          f"{r['tables']} tables, think {r['think']} s, client {r['client']} on {r['loop']}, "
          f"load {r['load_start']:.2f} -> {r['load_end']:.2f}; "
          f"set-up {r['setup_s']:.0f} s, {r['connected']} of {r['clients']} clients connected")
    print(f"  actions {r['actions']} in {r['elapsed']:.1f} s: {r['actions_s']:,.1f} actions/s")
    print(f"  ack p50 {r['ack_p50']:.1f} ms p99 {r['ack_p99']:.1f} ms; frame p50 {r['frame_p50']:.1f} ms "
          f"p99 {r['frame_p99']:.1f} ms; other seats p50 {r['others_p50']:.1f} ms p99 {r['others_p99']:.1f} ms")
    print(f"  CPU an action: servers {ms(r['server_ms_action'])} ms "
          f"({ms(r.get('server_sys_ms_action'))} of it in the kernel) "
          f"({' + '.join(f'{c:.1f}' for c in r['server_cpu'])} s; idle {1000 * r['idle_cpu_s']:.0f} ms a second, "
          f"so {ms(r['marginal_ms_action'])} ms an action above idle), PostgreSQL {ms(r['pg_ms_action'])} ms, "
          f"Redis {ms(r['redis_ms_action'])} ms, load generator {r['generator_ms_action']:.3f} ms "
          f"({ms(r.get('generator_sys_ms_action'))} of it in the kernel)")
    print(f"  {1000 / max(1e-9, r['server_ms_action']):,.0f} actions per server-CPU-second; frames "
          f"{r['frames']}, {r['chars_frame']:,.0f} characters and {r['wire_bytes_frame']:,.0f} bytes on the wire "
          f"each; server RSS {', '.join(f'{m:.0f}' for m in r['rss_mb'])} MB", flush=True)
    if r["closed_count"]:
        print(f"  {r['closed_count']} sockets closed by the server, e.g. {r['closed'][0]}")


def summary(results: list[dict[str, Any]], cores: int) -> None:
    """Medians of each variant's runs, and what they project: on ``cores`` cores that the load
    generator does not share, N processes carry at most N cores' worth of server CPU (one each) and
    together with PostgreSQL and Redis at most ``cores`` (an estimate from CPU an action; fixed
    costs are small at saturation, so it is a bound, not a measurement)."""
    groups: dict[tuple[str, int, bool], list[dict[str, Any]]] = collections.defaultdict(list)
    labels: list[str] = []
    for r in results:
        label = ", ".join(x for x in (r.get("src"), r.get("client")) if x)
        if label not in labels:
            labels.append(label)
        groups[(label, r["processes"], r["deflate"])].append(r)
    print("\nsummary (medians over the runs; each run's figures above):")
    print("| server, client | processes | deflate | runs | actions/s | frame p99 | other seats p99 | server CPU an action "
          f"| PostgreSQL | Redis | generator | actions per server-CPU-s | projected on {cores} free cores | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    base = None
    for (label, n, deflate), rs in sorted(groups.items(), key=lambda kv: (labels.index(kv[0][0]), kv[0][1],
                                                                         not kv[0][2])):
        def med(key: str) -> float:
            xs = [r[key] for r in rs if r[key] is not None]
            return statistics.median(xs) if xs else 0.0

        server = med("server_ms_action")
        per_cpu = 1000 / server
        base = base or per_cpu
        projected = min(min(n, cores) * 1000 / server,
                        cores * 1000 / (server + med("pg_ms_action") + med("redis_ms_action")))
        print(f"| {label or '-'} | {n} | {'on' if deflate else 'off'} | {len(rs)} | {med('actions_s'):,.1f} | {med('frame_p99'):,.0f} ms "
              f"| {med('others_p99'):,.0f} ms | {server:.2f} ms | {med('pg_ms_action'):.2f} ms "
              f"| {med('redis_ms_action'):.2f} ms | {med('generator_ms_action'):.3f} ms | {per_cpu:,.0f} "
              f"({per_cpu / base:.2f}x) | {projected:,.0f} | {min(r['load_start'] for r in rs):.1f}-"
              f"{max(r['load_end'] for r in rs):.1f} |")


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


def raise_open_files(need: int) -> int:
    """Raise this process's soft limit of open files towards ``need`` (the hard limit caps it); the
    limit now. The servers started from here inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = need if hard == resource.RLIM_INFINITY else min(need, hard)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def in_process_child(game_id: str, games: int) -> None:
    """Play ``games`` games through ``Live`` (imported from this process's path) and print the
    CPU time an action as JSON (see ``--in-process``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # (run with -P: this folder is not on the path)
    from inprocess_table import seated_table

    import updown

    async def play() -> dict[str, Any]:
        rng = random.Random(5)
        actions, steps, cpu = 0, 0, 0.0
        for g in range(games + 1):  # the first warms up (imports on first use): not counted
            live = seated_table(game_id, f"t{g}", f"s{g}")
            await live.broadcast()
            t0, n0 = time.process_time(), actions
            while not live.state.is_terminal():
                if live.state.is_chance():
                    await live.chance_steps()
                else:
                    seat = live.state.actors()[0]
                    await live.submit(seat, rng.choice(live.state.legal_actions(seat)), f"c{actions}", "player")
                    actions += 1
                await live.broadcast()
            if g == 0:
                actions = 0
                continue
            cpu += time.process_time() - t0
            steps += len(live.steps)
        return {"games": games, "actions": actions, "steps": steps, "ms_action": 1000 * cpu / max(actions, 1),
                "updown": str(Path(updown.__file__).parent.parent)}

    print(json.dumps(asyncio.run(play())))


def in_process(args: argparse.Namespace, srcs: list[tuple[str, str] | None]) -> None:
    """``--in-process``: the table's step path of each tree, interleaved A B, B A, ..."""
    root = Path(__file__).resolve().parent.parent
    order = [v for r in range(args.rounds) for v in (srcs if r % 2 == 0 else srcs[::-1])]
    got: dict[str, list[float]] = collections.defaultdict(list)
    for src in order:
        label, path = src if src is not None else ("-", str(root))
        env = {**os.environ, "PYTHONPATH": str(Path(path).resolve())}
        load = os.getloadavg()[0]
        out = subprocess.run([sys.executable, "-P", str(Path(__file__).resolve()), "--in-process-child",
                              str(args.in_process), "--game", args.game], env=env, capture_output=True, text=True,
                             check=True, timeout=600)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        got[label].append(r["ms_action"])
        print(f"[{time.strftime('%H:%M:%S')}] {label} ({r['updown']}), load {load:.2f}: {r['games']} games, "
              f"{r['actions']} actions, {r['steps']} steps, {r['ms_action']:.3f} ms CPU an action")
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps({**r, "src": label, "load": load}) + "\n")
    first = statistics.median(next(iter(got.values())))
    for label, ms in got.items():
        print(f"{label}: median {statistics.median(ms):.3f} ms an action over {len(ms)} runs "
              f"({statistics.median(ms) / first:.2f}x the first)")


def source_trees(parser: argparse.ArgumentParser, text: str | None) -> list[tuple[str, str] | None]:
    """``--src LABEL=PATH,...`` (or ``PATH,...``): the trees to run interleaved; ``[None]`` for this
    tree alone. A path without ``updown/server`` is a usage error."""
    if not text:
        return [None]
    trees = [(item.partition("=")[0], item.partition("=")[2]) if "=" in item else (item, item)
             for item in text.split(",")]
    for _label, path in trees:
        if not (Path(path) / "updown" / "server").is_dir():
            parser.error(f"--src {path}: no updown/server there")
    return list(trees)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--think", type=float, default=0.5, help="mean seconds a client waits before acting")
    parser.add_argument("--game", default="updown")
    parser.add_argument("--db", default=None, help="a PostgreSQL URL: each run gets a new database in its cluster")
    parser.add_argument("--redis", default=None, help="Redis URL (needed for more than one process)")
    parser.add_argument("--processes", default="1", help="server processes, or a list to compare: 1,2,4")
    parser.add_argument("--spread", choices=("seats", "tables"), default="seats",
                        help="seats: a table's four seats on different processes; tables: each table on one")
    parser.add_argument("--deflate", default="on", help="WebSocket compression: on, off, or on,off to compare")
    parser.add_argument("--no-deflate", action="store_true", help="the same as --deflate off")
    parser.add_argument("--client", default="light",
                        help="the load generator's clients: light (picows, callbacks, orjson), websockets (the "
                             "old client: a coroutine a socket, json, a timeout a recv), or light,websockets to "
                             "compare, interleaved")
    parser.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop",
                        help="the load generator's event loop")
    parser.add_argument("--idle", type=float, default=5.0,
                        help="seconds to let the connections settle, then as many to measure the servers' idle CPU")
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 1, help="cores to project capacity on")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each variant, interleaved")
    parser.add_argument("--json", default=None, metavar="FILE", help="append each run's figures to FILE")
    parser.add_argument("--src", default=None,
                        help="run the server from this source tree (another checkout), or compare several, "
                             "interleaved with the other variants: LABEL=PATH,LABEL=PATH")
    parser.add_argument("--py-spy", default=None, metavar="FILE", help="sample the first server with py-spy")
    parser.add_argument("--py-spy-gil", action="store_true",
                        help="with --py-spy: only the thread holding the interpreter lock (closest to CPU on a loaded machine)")
    parser.add_argument("--py-spy-generator", default=None, metavar="FILE",
                        help="sample this load generator with py-spy (its figures: --top)")
    parser.add_argument("--top", type=int, default=40, help="with --py-spy: how many functions to list")
    parser.add_argument("--in-process", type=int, default=0, metavar="GAMES",
                        help="instead of a server: the table's own step path, GAMES games for each --src tree")
    parser.add_argument("--in-process-child", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.in_process_child:
        in_process_child(args.game, args.in_process_child)
        return
    processes = [int(p) for p in args.processes.split(",")]
    deflates = [{"on": True, "off": False}[d] for d in ("off" if args.no_deflate else args.deflate).split(",")]
    if not 1 <= args.tables <= 1000 or not 0 < args.seconds <= 600 or not 1 <= args.rounds <= 10:
        parser.error("--tables is 1 to 1000, --seconds 0 to 600, --rounds 1 to 10")
    if any(not 1 <= p <= 8 for p in processes):
        parser.error("--processes: 1 to 8 each")
    if max(processes) > 1 and not (args.redis and args.db and args.db.startswith("postgresql")):
        parser.error("more than one process needs --db postgresql+psycopg://... and --redis redis://...")
    srcs = source_trees(parser, args.src)
    clients = args.client.split(",")
    if any(c not in ("light", "websockets") for c in clients):
        parser.error(f"--client {args.client}: light, websockets, or both separated by a comma")
    if "light" in clients and ws_connect is None:
        parser.error("--client light needs picows (pip install picows==2.3.1), or --client websockets")
    if args.in_process:
        if not 1 <= args.in_process <= 200:
            parser.error("--in-process: 1 to 200 games")
        in_process(args, srcs)
        return
    raise_open_files(4 * args.tables * 2 + 1024)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        variants = list(itertools.product(processes, deflates, srcs, clients))
        order = [v for r in range(args.rounds) for v in (variants if r % 2 == 0 else variants[::-1])]
        for index, (n, deflate, src, client) in enumerate(order):  # A B C, C B A, ...: a drifting load hits each alike
            r = one_run(args, n, deflate, tmp, index, src, client)
            results.append(r)
            show(r)
            if args.json:
                with open(args.json, "a") as out:
                    out.write(json.dumps(r) + "\n")
    if len(results) > 1:
        summary(results, args.cores)
    for spied in (args.py_spy, args.py_spy_generator):
        if spied:
            top(spied, args.top)


if __name__ == "__main__":
    main()
