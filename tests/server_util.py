"""Helpers for the server tests: a real ``updown serve`` process on 127.0.0.1, and scripted clients
that keep every frame they receive so the tests can check it against the seat's view."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import zlib
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from updown.core.records import Record, replay

from server_zygote import Forked, Zygote


def slot() -> tuple[int, int]:
    """(index, count) of this test process among those running side by side: pytest-xdist's
    worker, else UPDOWN_TEST_SLOT's "index/count", else (0, 1)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if worker.startswith("gw") and count > 1:
        return int(worker.removeprefix("gw")) % count, count
    index_text, _, count_text = os.environ.get("UPDOWN_TEST_SLOT", "").partition("/")
    if index_text.isdigit() and count_text.isdigit() and int(count_text) > 1:
        return int(index_text) % int(count_text), int(count_text)
    return 0, 1


def free_port() -> int:
    """A port nobody listens on now. Under pytest-xdist each worker takes only ports whose number
    hashes to its own index, so two workers never pick the same port for servers they both start.
    (A hash, not the port's residue: Linux hands out even ports only for bind(0).) Outside xdist,
    UPDOWN_TEST_SLOT ("index/count", set by tools/mutants.py for the pytest runs it starts side by
    side) does the same."""
    index, count = slot()
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if count == 1 or zlib.crc32(str(port).encode()) % count == index:
            break
    return port


def http_client(**kw: Any) -> httpx.Client:
    """An HTTP client for the test server. Plain http on 127.0.0.1: no TLS, so it loads no certificate
    store (httpx's default does, at about 25 ms of CPU per client: most of a server test's own CPU)."""
    return httpx.Client(verify=False, **kw)


class Server:
    """``updown serve`` in a child process; ``kill()`` sends SIGKILL, ``start()`` starts it again."""

    def __init__(self, db: str, *, port: int | None = None, redis: str | None = None, bot_delay: float = 0.0,
                 log: Path | None = None, extra_args: list[str] | None = None):
        self.db = db
        self.extra_args = list(extra_args or [])
        """More ``updown serve`` options, e.g. ``["--limit", "hints_per_user=2/minute"]``."""
        self.port = port or free_port()
        self.redis = redis
        self.bot_delay = bot_delay
        self.proc: subprocess.Popen[bytes] | Forked | None = None
        self.log = log

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        args = [sys.executable, "-c", "from updown.cli.app import main; main()", "serve", "--db", self.db,
                "--port", str(self.port), "--bot-delay", str(self.bot_delay)]
        if self.redis:
            args += ["--redis", self.redis]
        args += self.extra_args
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if os.environ.get("UPDOWN_TEST_NO_ZYGOTE", "") in ("", "0"):
            # Forked from a process that has imported the server (server_zygote.py): the same command
            # line, without two seconds of imports at every start.
            self.proc = Zygote.get().spawn(args[3:], env, str(self.log) if self.log else None)
        else:
            out = open(self.log, "ab") if self.log else subprocess.DEVNULL
            self.proc = subprocess.Popen(args, stdout=out, stderr=out, env=env)
        deadline = time.time() + 30
        with http_client(timeout=1) as http:
            while time.time() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"the server exited with {self.proc.returncode}")
                try:
                    if http.get(self.base + "/api/health").status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(0.05)
        raise RuntimeError("the server did not start in 30 s")

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class User:
    """An HTTP session (cookie jar) for one person or guest."""

    def __init__(self, server: Server, name: str | None = None, *, guest: bool = False, password: str = "pass-word-1"):
        self.server = server
        self.http = http_client(base_url=server.base, timeout=20)
        if guest:
            r = self.http.post("/api/guest", json={"name": name} if name else {})
        else:
            r = self.http.post("/api/register", json={"name": name, "password": password})
        r.raise_for_status()
        self.me = r.json()
        self.name = self.me["name"]

    def cookie(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())

    def post(self, path: str, body: dict[str, Any] | None = None) -> httpx.Response:
        return self.http.post(path, json=body or {})

    def get(self, path: str, timeout: float | None = None) -> httpx.Response:
        """``timeout``: seconds, for answers that are work (the coach's review), else the client's 20."""
        return self.http.get(path) if timeout is None else self.http.get(path, timeout=timeout)

    def socket(self, table: str, **kw: Any) -> Client:
        return Client(self.server, table, cookie=self.cookie(), **kw)


class Client:
    """A WebSocket client that rebuilds its view from snapshots and frames and keeps them all."""

    def __init__(self, server: Server, table: str, *, cookie: str | None = None, since: int | None = None,
                 watch: bool = False, lang: str | None = None):
        self.server = server
        self.table = table
        self.cookie = cookie
        self.seat: int | None = None
        self.n: int | None = since
        self.view: dict[str, Any] | None = None
        self.legal: list[dict[str, Any]] = []
        self.seen: list[tuple[dict[str, Any], list[int]]] = []
        """Every view this client has held, with its legal action ids, in order."""
        self.raw: list[str] = []
        self.acks: dict[str, dict[str, Any]] = {}
        self.n_at_reply: dict[str | None, int | None] = {}
        """The frame number the client had when each reply (ack or error) came."""
        self.errors: list[dict[str, Any]] = []
        self.table_info: dict[str, Any] | None = None
        self.ws: ClientConnection | None = None
        self._exit = ExitStack()
        self.watch = watch
        self.lang = lang
        self.connect(since)

    def connect(self, since: int | None = None) -> None:
        query = []
        if since is not None:
            query.append(f"since={since}")
        if self.watch:
            query.append("watch=1")
        if self.lang:
            query.append(f"lang={self.lang}")
        url = f"ws://127.0.0.1:{self.server.port}/ws/tables/{self.table}" + ("?" + "&".join(query) if query else "")
        headers = {"Cookie": self.cookie} if self.cookie else {}
        # connect() is a context manager (websockets 17.1 deprecates holding its connection without
        # one); this one stays open across calls, so it is entered here and left by close().
        self._exit = ExitStack()
        self.ws = self._exit.enter_context(
            connect(url, additional_headers=headers, open_timeout=20, max_size=2**24, ping_interval=None))
        hello = self.recv(20)
        assert hello is not None and hello["type"] == "hello", hello
        self.seat = hello["seat"]

    def close(self) -> None:
        if self.ws is not None:
            self._exit.close()
            self.ws = None

    def send(self, data: dict[str, Any] | str) -> None:
        assert self.ws is not None
        self.ws.send(data if isinstance(data, str) else json.dumps(data))

    def recv(self, timeout: float = 10.0) -> dict[str, Any] | None:
        assert self.ws is not None
        try:
            text = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return None
        assert isinstance(text, str)
        self.raw.append(text)
        msg: dict[str, Any] = json.loads(text)
        kind = msg["type"]
        if kind == "snapshot":
            self.view = msg["view"]
            self.n = msg["n"]
            self._keep(msg)
        elif kind == "frame":
            assert self.view is not None and msg["from"] == self.n, (msg.get("from"), self.n)
            self.view = {**msg["view"], "log": self.view["log"] + msg["events"]}
            self.n = msg["n"]
            self._keep(msg)
        elif kind == "ack":
            self.acks[msg["id"]] = msg
            self.n_at_reply[msg["id"]] = self.n
        elif kind == "error":
            self.errors.append(msg)
            self.n_at_reply[msg.get("id")] = self.n
        elif kind == "table":
            self.table_info = msg["table"]
        return msg

    def _keep(self, msg: dict[str, Any]) -> None:
        self.legal = msg["legal"]
        assert self.view is not None
        # Every frame is built from this connection's own seat's view (a spectator's: view(None)).
        assert self.view.get("seat") == self.seat, f"seat {self.seat}'s socket got seat {self.view.get('seat')}'s view"
        self.seen.append((json.loads(json.dumps(self.view)), [a["id"] for a in self.legal]))

    def until(self, pred: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> dict[str, Any]:
        deadline = time.time() + timeout
        while time.time() < deadline:
            msg = self.recv(max(0.05, deadline - time.time()))
            if msg is not None and pred(msg):
                return msg
        raise TimeoutError(f"no such message in {timeout} s")

    def finished(self) -> bool:
        return bool(self.table_info and self.table_info["status"] == "finished")


def play_out(clients: list[Client], rng: random.Random, timeout: float = 120.0,
             on_turn: Callable[[Client, int], None] | None = None) -> None:
    """Let seated clients play random legal actions until the table says the game is over."""
    deadline = time.time() + timeout
    counter = 0
    sent: dict[int, int | None] = {id(c): None for c in clients}
    pending: dict[int, str | None] = {id(c): None for c in clients}
    while time.time() < deadline:
        if all(c.finished() for c in clients):
            return
        for c in clients:
            msg = c.recv(0.02)
            while msg is not None:
                msg = c.recv(0.0) if c.ws is not None else None
            cid = pending[id(c)]
            if cid is not None and (cid in c.acks or any(e.get("id") == cid for e in c.errors)):
                pending[id(c)] = None
                sent[id(c)] = c.n_at_reply[cid]  # frames that came before the reply may predate the action
            if c.seat is not None and c.legal and cid is None and sent[id(c)] != c.n and not c.finished():
                counter += 1
                choice = rng.choice(c.legal)["id"]
                if on_turn:
                    on_turn(c, counter)
                pending[id(c)] = f"{c.seat}-{counter}"
                c.send({"type": "act", "id": pending[id(c)], "action": choice})
                sent[id(c)] = c.n
    raise TimeoutError("the game did not finish in time")


def check_no_leak(record: dict[str, Any], client: Client) -> int:
    """Every view a client held equals its seat's view at some step of the game, in order, with the
    same legal actions: so no frame carried anything that view did not. Returns views matched."""
    rec = Record.from_dict(record)
    key = client.seat
    views: list[tuple[str, list[int]]] = []

    def snap(state: Any) -> None:
        legal = state.legal_actions(key) if key is not None and not state.is_terminal() and key in state.actors() else []
        views.append((json.dumps(state.view(key), sort_keys=True), sorted(legal)))

    from updown.core.records import new_state_for

    snap(new_state_for(rec))
    replay(rec, on_step=lambda state, _seat, _action: snap(state))
    i = 0
    for view, legal in client.seen:
        text = json.dumps(view, sort_keys=True)
        while i < len(views) and (views[i][0] != text or views[i][1] != sorted(legal)):
            i += 1
        assert i < len(views), f"seat {key}: a frame holds a view that never existed for that seat: {text[:300]}"
    return len(client.seen)


SHORT = {"updown": {"rounds": 1}, "euchre": {"target": 3}, "updown-sueca": {}, "up-or-down": {}}
"""Options that keep a test's game short."""


def make_table(owner: User, game: str, seats: list[str], **extra: Any) -> dict[str, Any]:
    """A table made by ``owner`` over HTTP (short options), which must be accepted."""
    r = owner.post("/api/tables", {"game": game, "seats": seats, "options": SHORT.get(game, {}), **extra})
    assert r.status_code == 200, r.text
    return dict(r.json())


def closed_code(client: Client, timeout: float = 10.0) -> int | None:
    """Read until the server closes the socket; the close code (None if it stayed open)."""
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            client.recv(0.2)
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    return None


def first_with_legal(*clients: Client, timeout: float = 30.0) -> Client:
    """Read the clients until one of them must act; the first that must."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        for c in clients:
            c.recv(0.05)
            if c.legal:
                return c
    raise TimeoutError("nobody had to act")


def db_rows(db: str, query: str, **params: Any) -> list[Any]:
    """The rows of one SQL query on the server's database, read from outside the server."""
    from sqlalchemy import create_engine, text

    engine = create_engine(db)
    with engine.connect() as conn:
        rows = list(conn.execute(text(query), params).all())
    engine.dispose()
    return rows

