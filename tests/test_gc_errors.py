"""What the server's error paths leave to the garbage collector (issue 35; docs/server.md, "Error paths
and the renewal's period").

``tests/test_gc_cycles.py`` counts what a socket, a game and the lobby leave in reference cycles on
their normal paths (none). A renewal of the frozen heap (``gcpolicy.py``) exists for what becomes
cyclic garbage after a freeze, so the error paths count too: bad input on a table socket, sockets the
server closes, HTTP errors and the database away. The classic source is an exception kept with its
traceback (exception -> traceback -> frame -> a local that holds the exception). Each event below is
run ``N`` times against the real app under uvicorn with its collector off (``tests/gc_probe.py``),
and what only a full collection frees afterwards is counted. The bounds are what was measured with
the fixes in place (docs/server.md), with a margin of about one object an event for whatever the
server's loops make meanwhile (measured: none); before the fixes several were far above them.

``python tests/test_gc_errors.py DB [EVENT ...]`` prints the counts by type (and, with
``CHAINS=TYPE``, the chain of references that closes a cycle of that type) instead of asserting.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from gc_probe import Probe
from server_util import free_port
from test_server import PG, fresh_pg_db, needs

N = 5
"""Times each event is repeated between two counts."""
SETTLE = 0.5
"""Seconds for the server to finish with an event before a count."""


# -- the client's side -------------------------------------------------------------------------------
@contextmanager
def socket_at(probe: Probe, path: str, cookie: str | None, **headers: str) -> Iterator[ClientConnection]:
    sent = {"Cookie": cookie} if cookie else {}
    sent.update(headers)
    with connect(f"ws://127.0.0.1:{probe.port}{path}", additional_headers=sent, open_timeout=20,
                 max_size=2**24, ping_interval=None) as ws:
        yield ws


def until(ws: ClientConnection, wanted: Callable[[dict[str, Any]], bool], timeout: float = 15.0) -> dict[str, Any]:
    """The first message ``wanted`` accepts (the others are read and dropped)."""
    end = time.time() + timeout
    while True:
        msg = json.loads(ws.recv(timeout=max(0.05, end - time.time())))
        if wanted(msg):
            return msg


def framed(msg: dict[str, Any]) -> bool:
    return msg["type"] in ("snapshot", "frame")


def close_code(ws: ClientConnection, timeout: float = 15.0) -> int | None:
    """The code the server closes ``ws`` with (messages before it are dropped); None if it does not."""
    end = time.time() + timeout
    try:
        while time.time() < end:
            ws.recv(timeout=max(0.05, end - time.time()))
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None
    except TimeoutError:
        return None
    return None


class World:
    """A probe server with a running Euchre table of four guests, and who acts first there."""

    def __init__(self, probe: Probe, db: str):
        from updown.core.registry import get_game

        self.probe, self.db = probe, db
        self.cookies = [probe.guest() for _ in range(4)]
        self.table = probe.table(self.cookies[0], game="euchre")
        for cookie in self.cookies[1:]:
            probe.join(self.table, cookie)
        self.actor = -1
        self.legal: list[int] = []
        for i, cookie in enumerate(self.cookies):
            with socket_at(probe, f"/ws/tables/{self.table}", cookie) as ws:
                seat = json.loads(ws.recv(timeout=10))["seat"]
                frame = until(ws, framed)
                if frame.get("legal"):
                    self.actor, self.seat, self.legal = i, seat, [a["id"] for a in frame["legal"]]
        assert self.actor >= 0, "nobody to act at the Euchre table"
        game = get_game("euchre")
        self.illegal = next(a for a in range(1000) if a not in self.legal and _is_action(game, a))
        self.other = (self.actor + 1) % 4
        self._engine: Any = None
        self.meanwhile: Counter[str] = Counter()
        """What the probe's collections during an event found (:meth:`database`), by type."""

    @property
    def engine(self) -> Any:
        """The test's own engine on the server's database (admin actions, a session ended behind
        the server's back)."""
        if self._engine is None:
            from sqlalchemy import create_engine

            self._engine = create_engine(self.db)
        return self._engine

    def database(self, state: str) -> None:
        """The database ``away`` (every statement fails) or ``back``; what the probe's collection
        found meanwhile counts for the event."""
        self.meanwhile.update(self.probe.collect(db=state)["types"])

    def guest_table(self, seats: list[str] | None = None, game: str = "euchre") -> tuple[str, str]:
        """A new guest's cookie and a new table of theirs (open, or running if ``seats`` fill it)."""
        cookie = self.probe.guest()
        r = self.probe.http.post("/api/tables", json={"game": game, "grace": 3600, **({"seats": seats} if seats else {})},
                                 headers={"Cookie": cookie})
        r.raise_for_status()
        return cookie, str(r.json()["id"])

    def refused(self, frames: list[str | bytes], who: int | None = None, query: str = "") -> None:
        """Open a socket of guest ``who`` (the actor's by default), send ``frames``, read an error for
        each, close."""
        with socket_at(self.probe, f"/ws/tables/{self.table}{query}", self.cookies[self.actor if who is None else who]) as ws:
            until(ws, framed)
            for frame in frames:
                ws.send(frame)
            for _ in frames:
                until(ws, lambda m: m["type"] == "error")


def _is_action(game: Any, action: int) -> bool:
    try:
        game.action_to_str(action)
        return True
    except Exception:
        return False


def act(action: Any, cid: str, **more: Any) -> str:
    return json.dumps({"type": "act", "id": cid, "action": action, **more})


# -- the events ------------------------------------------------------------------------------------------
EVENTS: dict[str, tuple[Callable[[World], None], float]] = {}
"""name -> (the event run N times, the most objects in cycles allowed for the N of them)."""


def event(name: str, bound: float) -> Callable[[Callable[[World], None]], Callable[[World], None]]:
    def register(fn: Callable[[World], None]) -> Callable[[World], None]:
        EVENTS[name] = (fn, bound)
        return fn
    return register


@event("not-json", N)
def _not_json(w: World) -> None:
    w.refused(["{"] * N)


@event("wrong-fields", N)
def _wrong_fields(w: World) -> None:
    w.refused(['{"type": 3}', '{"type": "dance"}', '{"type": "act", "id": 7}', '{"type": "act"}', "[1]"] * (N // 5))


@event("binary-frame", N)
def _binary(w: World) -> None:
    w.refused([b"\x00\x01"] * N)


@event("too-large", N)
def _too_large(w: World) -> None:
    w.refused(['{"type": "ping", "pad": "' + "x" * 5000 + '"}'] * N)


@event("illegal-action", N)
def _illegal(w: World) -> None:
    w.refused([act(w.illegal, f"i{k}") for k in range(N)])


@event("bad-notation", N)
def _notation(w: World) -> None:
    w.refused([act("ZZ", f"n{k}") for k in range(N)])


@event("out-of-turn", N)
def _out_of_turn(w: World) -> None:
    w.refused([act(w.legal[0], f"o{k}") for k in range(N)], who=w.other)


@event("another-seat", N)
def _another_seat(w: World) -> None:
    w.refused([act(w.legal[0], f"s{k}", seat=(w.seat + 1) % 4) for k in range(N)])


@event("spectator-acts", N)
def _spectator(w: World) -> None:
    w.refused([act(w.legal[0], f"p{k}") for k in range(N)], who=0, query="?watch=1")


@event("lobby-bad-frames", N)
def _lobby_bad(w: World) -> None:
    """The lobby's socket: frames it does not take, each answered with an error."""
    frames: list[str | bytes] = ["{", '{"type": "act", "id": "a"}', b"\x00", '{"type": 3}', "x" * 5000] * (N // 5)
    with socket_at(w.probe, "/ws/lobby", w.cookies[0]) as ws:
        until(ws, lambda m: m["type"] == "tables")
        for frame in frames:
            ws.send(frame)
        for _ in frames:
            until(ws, lambda m: m["type"] == "error")


@event("rate-limited", N)
def _rate_limited(w: World) -> None:
    """N messages past the socket's rate (60 a second), each refused with ``rate-limited``."""
    with socket_at(w.probe, f"/ws/tables/{w.table}?watch=1", w.cookies[0]) as ws:
        until(ws, framed)
        for k in range(60 + N):
            ws.send(json.dumps({"type": "ping", "id": f"r{k}"}))
        for _ in range(N):
            until(ws, lambda m: m["type"] == "error" and m["code"] == "rate-limited")
    time.sleep(1.1)  # (the next event's socket starts a window of its own anyway)


@event("closed-for-strikes", N)
def _strikes(w: World) -> None:
    """Sockets that keep sending past the rate: closed with 1008 after 40 refusals (N // 5 sockets)."""
    for _ in range(N // 5):
        with socket_at(w.probe, f"/ws/tables/{w.table}?watch=1", w.cookies[1]) as ws:
            until(ws, framed)
            for k in range(60 + 45):
                ws.send(json.dumps({"type": "ping", "id": f"r{k}"}))
            assert close_code(ws) == 1008


@event("signed-out", N)
def _signed_out(w: World) -> None:
    """A seated guest signs out: the socket is closed with 4001."""
    for _ in range(N):
        cookie, table = w.guest_table()
        with socket_at(w.probe, f"/ws/tables/{table}", cookie) as ws:
            until(ws, framed)
            w.probe.http.post("/api/logout", headers={"Cookie": cookie}).raise_for_status()
            assert close_code(ws) == 4001


@event("seat-freed", N)
def _seat_freed(w: World) -> None:
    """A guest leaves an open table's seat by HTTP: the seat is no longer theirs, the socket closed (4001)."""
    for _ in range(N):
        cookie, table = w.guest_table()
        with socket_at(w.probe, f"/ws/tables/{table}", cookie) as ws:
            until(ws, framed)
            w.probe.http.post(f"/api/tables/{table}/leave", json={}, headers={"Cookie": cookie}).raise_for_status()
            assert close_code(ws) == 4001


@event("left-and-aborted", N)
def _left(w: World) -> None:
    """A guest alone with three bots leaves by the socket before playing: acknowledged, closed (4001),
    and the table aborted (every person left before a move)."""
    for _ in range(N):
        cookie, table = w.guest_table(["me", "bot:random", "bot:random", "bot:random"], "updown")
        with socket_at(w.probe, f"/ws/tables/{table}", cookie) as ws:
            until(ws, framed)
            ws.send(json.dumps({"type": "leave", "id": "l"}))
            assert close_code(ws) == 4001
    time.sleep(1.0)  # the clock's turn that aborts them


@event("refused-in-its-transaction", N)
def _unheld(w: World) -> None:
    """The session ended behind the server's back (in the database only): an action on the quick path
    is refused by the transaction that would store it (``Unheld``), and the socket closed (4001)."""
    from sqlalchemy import text

    for _ in range(N):
        cookie, table = w.guest_table(["me", "bot:random", "bot:random", "bot:random"], "updown")
        with socket_at(w.probe, f"/ws/tables/{table}", cookie) as ws:
            frame = until(ws, lambda m: framed(m) and bool(m.get("legal")))
            token = cookie.split("=", 1)[1]
            with w.engine.begin() as conn:
                conn.execute(text("DELETE FROM sessions WHERE token_hash = :h"),
                             {"h": hashlib.sha256(token.encode()).hexdigest()})
            ws.send(act(frame["legal"][0]["id"], "x"))
            assert close_code(ws) == 4001


@event("closed-by-admin", N)
def _admin_close(w: World) -> None:
    """``updown admin`` closes a table a guest sits at: the hub's re-read stops it and tells the socket."""
    from updown.server import admin

    for _ in range(N):
        cookie, table = w.guest_table()
        with socket_at(w.probe, f"/ws/tables/{table}", cookie) as ws:
            until(ws, framed)
            admin.close_table(w.engine, table, "probe", "a test")
            until(ws, lambda m: m["type"] == "table" and m["table"]["status"] == "closed")


@event("account-disabled", N)
def _disabled(w: World) -> None:
    """``updown admin`` disables a person seated at a table (N // 2 people: each a password hash): the
    hub's re-read closes their socket (4001)."""
    import secrets

    from updown.server import admin

    for _ in range(N // 2):
        name = f"person-{secrets.token_hex(4)}"
        r = w.probe.http.post("/api/register", json={"name": name, "password": "a password"})
        r.raise_for_status()
        cookie = f"updown_session={r.cookies['updown_session']}"
        w.probe.http.cookies.clear()
        table = w.probe.table(cookie, game="euchre")
        with socket_at(w.probe, f"/ws/tables/{table}", cookie) as ws:
            until(ws, framed)
            admin.disable(w.engine, name, "probe", "a test")
            assert close_code(ws) == 4001


def refused_at_handshake(w: World, path: str, cookie: str | None, **headers: str) -> None:
    """A socket the server closes before accepting it: uvicorn answers the handshake with 403."""
    from websockets.exceptions import InvalidStatus

    with pytest.raises(InvalidStatus) as refused:
        with socket_at(w.probe, path, cookie, **headers):
            pass
    assert refused.value.response.status_code == 403


@event("socket-no-table", N)
def _socket_404(w: World) -> None:
    for _ in range(N):
        refused_at_handshake(w, "/ws/tables/nothing-here", None)


@event("socket-cross-origin", N)
def _socket_403(w: World) -> None:
    for _ in range(N):
        refused_at_handshake(w, f"/ws/tables/{w.table}", w.cookies[0], Origin="http://elsewhere.example")


def _http(w: World, status: int, method: str, path: str, **kw: Any) -> None:
    for _ in range(N):
        r = httpx.request(method, w.probe.base + path, timeout=30, **kw)  # a connection each, as a browser's may be
        assert r.status_code == status, (r.status_code, r.text[:200])


@event("http-401", N)
def _http_401(w: World) -> None:
    _http(w, 401, "GET", "/api/me")


@event("http-404", N)
def _http_404(w: World) -> None:
    _http(w, 404, "GET", "/api/tables/nothing-here")


@event("http-404-route", N)
def _http_no_route(w: World) -> None:
    _http(w, 404, "GET", "/api/nothing-here")


@event("http-400", N)
def _http_400(w: World) -> None:
    _http(w, 400, "POST", "/api/tables", json={"game": "no-such-game"}, headers={"Cookie": w.cookies[0]})


@event("http-403-origin", N)
def _http_403(w: World) -> None:
    _http(w, 403, "POST", "/api/tables", json={}, headers={"Cookie": w.cookies[0], "Origin": "http://elsewhere.example"})


@event("http-409", N)
def _http_409(w: World) -> None:
    _http(w, 409, "POST", f"/api/tables/{w.table}/join", json={}, headers={"Cookie": w.cookies[0]})


@event("http-413", N)
def _http_413(w: World) -> None:
    _http(w, 413, "POST", "/api/tables", content=b"x" * 70_000, headers={"Cookie": w.cookies[0]})


@event("http-422", N)
def _http_422(w: World) -> None:
    _http(w, 422, "POST", "/api/tables", json={"game": 3, "grace": "x"}, headers={"Cookie": w.cookies[0]})


@event("http-429", N)
def _http_429(w: World) -> None:
    """Sign-ins past the address's limit (the probe runs with ``login_per_address=1/hour``; the first, in the warm-up, is a 401)."""
    _http(w, 429, "POST", "/api/login", json={"name": "nobody-at-all", "password": "x" * 8})


@event("http-500", N)
def _http_500(w: World) -> None:
    """A route that raises an error no handler knows (the probe's ``/api/__fault``)."""
    _http(w, 500, "GET", "/api/__fault")


@event("db-away-actions", N)
def _db_away(w: World) -> None:
    """The database away: the actor's action is retried, then refused ``busy``, and N - 1 more are
    refused at once; then it is back (every table caught up, drivers restarted)."""
    with socket_at(w.probe, f"/ws/tables/{w.table}", w.cookies[w.actor]) as ws:
        until(ws, framed)
        w.database("away")
        for k in range(N):
            ws.send(act(w.legal[0], f"b{k}"))
            assert until(ws, lambda m: m["type"] == "error", 30)["code"] == "busy"
        w.database("back")
        until(ws, lambda m: m["type"] == "service" and not m["busy"])
    time.sleep(1.0)


@event("db-away-sockets", N)
def _db_away_sockets(w: World) -> None:
    """Sockets opened while the database is away: closed (1013, try again) before they are accepted."""
    w.database("away")
    try:
        for _ in range(N):
            refused_at_handshake(w, f"/ws/tables/{w.table}", w.cookies[0])
    finally:
        w.database("back")
    time.sleep(2.0)


# -- the tests --------------------------------------------------------------------------------------------
def _db_url(kind: str, tmp: Any) -> str:
    if kind == "postgresql":
        assert PG is not None
        return fresh_pg_db()
    return f"sqlite:///{tmp / 'gc-errors.db'}"


def start(db: str) -> World:
    os.environ["PROBE_LIMITS"] = "login_per_address=1/hour"
    try:
        probe = Probe(db, "updown")
    finally:
        del os.environ["PROBE_LIMITS"]
    try:
        w = World(probe, db)
        r = httpx.post(probe.base + "/api/login", json={"name": "nobody-at-all", "password": "x" * 8})
        assert r.status_code == 401, r.text  # the address's one sign-in this hour: the rest are refused
        for name, (fn, _bound) in EVENTS.items():  # every path once: first-use caches, imports, compilations
            fn(w)
    except BaseException:
        probe.stop()
        raise
    return w


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=needs("PostgreSQL", "UPDOWN_TEST_POSTGRES"))])
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = start(_db_url(request.param, tmp_path_factory.mktemp("gc-errors")))
    try:
        yield w
    finally:
        w.probe.stop()
        if w._engine is not None:
            w._engine.dispose()


def count(w: World, fn: Callable[[World], None], referrers: str | None = None) -> dict[str, Any]:
    """What only a full collection frees after ``fn`` (from nothing before it)."""
    time.sleep(SETTLE)
    w.probe.collect()
    w.meanwhile.clear()
    fn(w)
    time.sleep(SETTLE)
    got = w.probe.collect(referrers=referrers)
    if w.meanwhile:
        got["types"] = dict((Counter(got["types"]) + w.meanwhile).most_common())
        got["found"] += sum(w.meanwhile.values())
    return got


@pytest.mark.parametrize("name", list(EVENTS))
def test_an_error_path_leaves_at_most_its_bound_in_cycles(world: World, name: str) -> None:
    fn, bound = EVENTS[name]
    got = count(world, fn)
    assert got["found"] <= bound, (name, got["found"], list(got["types"].items())[:10])


def _left_in_cycles(work: Callable[[], None]) -> dict[str, int]:
    """What only a full collection frees after ``work()``, in this process (its collector off meanwhile)."""
    gc.collect()
    gc.disable()
    try:
        work()
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        return dict(Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage).most_common())
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()


@pytest.mark.parametrize("db", ["sqlite", pytest.param("postgresql", marks=needs("PostgreSQL", "UPDOWN_TEST_POSTGRES"))])
def test_refused_and_conflicting_commits_leave_no_cycles(db: str, tmp_path: Any) -> None:
    """The store's refusals, in this process: a person's step whose session ended (``Unheld``, from
    :meth:`Store.commit` and from a group written by :meth:`Store._commit_batch`), a step number
    already taken (``Conflict``: the group is written again item by item, in savepoints), and both
    in one group. Each kept its error in a reference cycle: the list of results that the traceback's
    frame held, the frame that raised an error kept in its local, the store's own driver's frame
    that wrapped a DB-API error."""
    from hub_util import store_for, updown_table

    from updown.server.store import Actor, Conflict, StepRow, Unheld, token_hash

    import asyncio

    store = store_for(_db_url(db, tmp_path))
    loop = asyncio.new_event_loop()
    try:
        updown_table(store, "t1")
        ann = store.create_account("ann", "person", None)
        assert ann is not None
        gone = Actor(token_hash("no such session"), ann, 0)

        def refused() -> None:
            for _ in range(N):
                with pytest.raises(Unheld):
                    store.commit("t1", [StepRow(1, 0, None, "x", "a", "player", 1.0)], None, gone)

        def refused_grouped() -> None:  # (the server's way: grouped with other tables' steps)
            async def each() -> None:
                for _ in range(N):
                    with pytest.raises(Unheld):
                        await store.commit_async("t1", [StepRow(1, 0, None, "x", "a", "player", 1.0)], None, gone)

            loop.run_until_complete(each())

        def conflicts() -> None:
            for _ in range(N):
                with pytest.raises(Conflict):
                    store.commit("t1", [StepRow(1, None, "deal", "x", None, "chance", 1.0)], None)

        def both() -> None:
            for _ in range(N):
                got = store._commit_batch([("t1", [StepRow(1, None, "deal", "x", None, "chance", 1.0)], None, None),
                                           ("t1", [StepRow(2, 0, None, "x", "b", "player", 1.0)], None, gone)])
                assert [type(e) for e in got] == [Conflict, Unheld]

        store.commit("t1", [StepRow(1, None, "deal", "x", None, "chance", 1.0)], None)  # step 1 taken
        for work in (refused, refused_grouped, conflicts, both):
            work()  # first use: compilations, imports
            left = _left_in_cycles(work)
            assert sum(left.values()) <= N, (work.__name__, list(left.items())[:10])
    finally:
        loop.close()
        store.engine.dispose()


def test_a_failed_bot_pool_job_leaves_no_cycles() -> None:
    """A job that raises in a worker of the bot pool (a bot's decision or a hint that fails: a bug's
    rare event) raises the same error to its caller: the frame that awaited it held the job, whose
    future held the error (about 10 objects in cycles a job before). Counted in this process."""
    import asyncio

    from updown.server.botpool import BotPool

    async def run() -> dict[str, int]:
        pool = BotPool(1)
        try:
            for _ in range(2):  # the worker started, first use
                with pytest.raises(ValueError):
                    await pool.run(int, "not a number", key="k")
            assert pool.pids(), "the pool's worker did not start"
            gc.collect()
            gc.disable()
            try:
                for _ in range(N):
                    with pytest.raises(ValueError):
                        await pool.run(int, "not a number", key="k")
                gc.set_debug(gc.DEBUG_SAVEALL)
                gc.collect()
                return dict(Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage))
            finally:
                gc.garbage.clear()
                gc.set_debug(0)
                gc.enable()
        finally:
            await pool.close()

    left = asyncio.run(run())
    assert sum(left.values()) <= N, sorted(left.items(), key=lambda kv: -kv[1])[:10]


def test_notes_published_while_redis_is_away_leave_no_cycles() -> None:
    """A process on Redis publishes a note at every step; while Redis is away each publish fails
    (the note is kept for later, the service noted as away). Counted in this process, against a
    port where nothing listens, N failed publishes (each tried twice)."""
    import asyncio
    from types import SimpleNamespace

    from updown.server.hub import RedisBus
    from updown.server.outage import REDIS, ServiceHealth

    async def run() -> dict[str, int]:
        bus = RedisBus(f"redis://127.0.0.1:{free_port()}")
        health = ServiceHealth()
        bus.hub = SimpleNamespace(health=health)  # type: ignore[assignment]
        bus.origin = "me"
        try:
            for k in range(2):  # first use: imports, connection classes
                health.down.pop(REDIS, None)
                await bus.publish(f"w{k}")
            gc.collect()
            gc.disable()
            try:
                for k in range(N):
                    health.down.pop(REDIS, None)  # tried each time (not kept at once, as while known away)
                    await bus.publish(f"t{k}")
                gc.set_debug(gc.DEBUG_SAVEALL)
                gc.collect()
                left = dict(Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in gc.garbage))
            finally:
                gc.garbage.clear()
                gc.set_debug(0)
                gc.enable()
            assert len(bus.unsent) == N + 2 and health.outages[REDIS] == N + 2, (len(bus.unsent), health.outages)
            return left
        finally:
            await bus.close()

    left = asyncio.run(run())
    # redis-py reads its package's metadata at each connection it makes (importlib.metadata's
    # objects in cycles, about 25 a connection: the library's, not counted); an error kept with its
    # traceback holds frames and tracebacks.
    kept = {k: v for k, v in left.items() if k in ("builtins.frame", "builtins.traceback") or "Error" in k}
    print(f"{N} failed publishes: {sum(left.values())} objects in cycles, {kept}")
    assert sum(kept.values()) <= N, sorted(left.items(), key=lambda kv: -kv[1])[:12]


def main() -> None:
    db = sys.argv[1]
    names = sys.argv[2:] or list(EVENTS)
    w = start(db if "://" in db else _db_url(db, __import__("pathlib").Path(__import__("tempfile").mkdtemp())))
    try:
        for name in names:
            fn, bound = EVENTS[name]
            got = count(w, fn)
            print(f"{name:28s} {got['found']:5d} in cycles ({got['found'] / N:5.1f} an event; bound {bound:g})  "
                  f"{list(got['types'].items())[:6]}", flush=True)
            want = os.environ.get("CHAINS")
            if want and got["found"]:
                kind = want if want != "1" else next(iter(got["types"]))
                again = count(w, fn, referrers=kind)
                for shown in again.get("referrers", [])[:2]:
                    print(f"    {kind}: " + " -> ".join(shown["cycle"]), flush=True)
    finally:
        w.probe.stop()


if __name__ == "__main__":
    main()
