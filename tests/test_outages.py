"""Outages of the services the server stands on (issue 36), against real services this test starts
for itself (a PostgreSQL cluster and a Redis of its own, as `.ci/services` starts them, so that
stopping them touches no other test).

Four tables (UP&DOWN, a rated Sueca match, Euchre, Up or Down?), each with two people on
different server processes (where there are two) and bots. While they play, a service goes away
and comes back: Redis stopped for 8 s (two processes), PostgreSQL stopped for 6 s (one process,
and two), and a rolling SIGTERM restart of both processes. Each time: every table finishes; every
client's view, built from its frames alone, is its seat's view of the finished game (so it saw
every step, none twice); every acknowledged action is stored once; the ledger sums to zero; and
the longest pause of any table (between two stored steps) is printed and kept under a generous
bound. The figures go to test-output/outages.json too.
"""

from __future__ import annotations

import json
import os
import random
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from server_util import Client, Server, User, db_rows, make_table
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException

from updown.core.records import Record, new_state_for, replay

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ROOT / ".ci" / "services"
OUTPUT = ROOT / "test-output" / "outages.json"

needs_services = pytest.mark.skipif(
    os.environ.get("UPDOWN_TEST_POSTGRES") is None or os.environ.get("UPDOWN_TEST_REDIS") is None,
    reason="outage tests start a PostgreSQL and a Redis of their own: they need what UPDOWN_TEST_POSTGRES "
           "and UPDOWN_TEST_REDIS need")

GAMES = [("updown", {"rounds": 1}, False), ("updown-sueca", {}, True), ("euchre", {"target": 3}, False),
         ("up-or-down", {}, False)]


# -- services of our own ---------------------------------------------------------------------------
@dataclass
class OwnServices:
    """A PostgreSQL cluster and a Redis started by `.ci/services` in a directory of this test's."""

    dir: Path
    postgres: str
    redis: str

    @classmethod
    def start(cls, where: Path) -> OwnServices:
        where.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in ("UPDOWN_TEST_POSTGRES", "UPDOWN_TEST_REDIS")}
        env["UPDOWN_SERVICES_DIR"] = str(where)
        env["UPDOWN_TEST_CHROMIUM"] = env.get("UPDOWN_TEST_CHROMIUM", "none")  # not needed here
        out = subprocess.run([str(SERVICES), "start"], env=env, capture_output=True, text=True, timeout=180)
        found = dict(line.removeprefix("export ").split("=", 1) for line in out.stdout.splitlines()
                     if line.startswith("export "))
        assert "UPDOWN_TEST_POSTGRES" in found and "UPDOWN_TEST_REDIS" in found, out.stderr
        return cls(where, found["UPDOWN_TEST_POSTGRES"], found["UPDOWN_TEST_REDIS"])

    def stop(self) -> None:
        env = {**os.environ, "UPDOWN_SERVICES_DIR": str(self.dir)}
        subprocess.run([str(SERVICES), "stop"], env=env, capture_output=True, timeout=120)

    def database(self) -> str:
        from sqlalchemy import create_engine, text

        name = f"o_{os.getpid()}_{int(time.time() * 1000) % 10**8}"
        admin = create_engine(self.postgres, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        return self.postgres.rsplit("/", 1)[0] + "/" + name

    # PostgreSQL
    def _pg(self, command: str) -> None:
        bin_dir, pgdata = (self.dir / "pg").read_text().split()[:2]
        line = f"{bin_dir}/pg_ctl -D {pgdata} -w -t 60 {command}"
        args = ["su", "postgres", "-s", "/bin/sh", "-c", line] if os.geteuid() == 0 else shlex.split(line)
        subprocess.run(args, check=True, capture_output=True, timeout=90)

    def stop_postgres(self) -> None:
        self._pg("-m fast stop")

    def start_postgres(self) -> None:
        port = self.postgres.rsplit(":", 1)[1].split("/")[0]
        pgdata = (self.dir / "pg").read_text().split()[1]
        self._pg(f"-l {pgdata}/log -o '-c listen_addresses=127.0.0.1 -p {port} -k {pgdata} -c fsync=on' start")

    # Redis
    @property
    def redis_port(self) -> str:
        return self.redis.rsplit(":", 1)[1].split("/")[0]

    def stop_redis(self) -> None:
        subprocess.run(["redis-cli", "-p", self.redis_port, "shutdown", "nosave"], capture_output=True, timeout=30)

    def start_redis(self) -> None:
        subprocess.run(["redis-server", "--bind", "127.0.0.1", "--port", self.redis_port, "--save", "",
                        "--appendonly", "no", "--daemonize", "yes",
                        "--pidfile", str(self.dir / f"redis.{self.redis_port}.pid"),
                        "--logfile", str(self.dir / "redis.log")], check=True, capture_output=True, timeout=30)
        for _ in range(100):
            ping = subprocess.run(["redis-cli", "-p", self.redis_port, "ping"], capture_output=True, text=True)
            if ping.stdout.strip() == "PONG":
                return
            time.sleep(0.1)
        raise RuntimeError("Redis did not come back")


@pytest.fixture
def own() -> Iterator[OwnServices]:
    where = Path(tempfile.mkdtemp(prefix="updown-outage."))  # not under pytest's (0700): postgres reads it
    where.chmod(0o755)
    services = OwnServices.start(where)
    try:
        yield services
    finally:
        services.stop()
        shutil.rmtree(where, ignore_errors=True)


# -- people who keep playing through anything --------------------------------------------------------
@dataclass
class Person:
    """A seated person's client that reconnects (to a process that is up) and resends its pending
    action with the same id after ``busy`` or a dropped socket, as the browser client does."""

    user: User
    table: str
    servers: list[Server]
    rng: random.Random
    client: Client | None = None
    n: int | None = None
    view: dict[str, Any] | None = None
    seat: int | None = None
    pending: tuple[str, int] | None = None
    sent_at_n: int | None = None
    resend_after: float = 0.0
    retry_at: float = 0.0
    counter: int = 0
    acked: set[str] = field(default_factory=set)
    busy: int = 0
    service: list[dict[str, Any]] = field(default_factory=list)
    reconnects: int = 0
    finished: bool = False
    refused: list[str] = field(default_factory=list)
    """The codes of the refusals this person's actions met (told when a table does not finish)."""

    def _connect(self) -> None:
        for server in self.servers:
            if server.proc is None or server.proc.poll() is not None:
                continue
            try:
                c = Client(server, self.table, cookie=self.user.cookie(), since=self.n)
            except (OSError, WebSocketException, AssertionError, TimeoutError):
                continue
            if self.view is not None and c.n == self.n:
                c.view = self.view  # a frame continues what the last socket had
            self.client, self.seat = c, c.seat
            self.reconnects += 1
            if self.pending is not None:  # its answer may have been lost with the old socket
                self.resend_after = time.time()
            return
        self.retry_at = time.time() + 0.5

    def tick(self) -> None:
        if self.finished:
            return
        if self.client is None or self.client.ws is None:
            if time.time() >= self.retry_at:
                self._connect()
            if self.client is None or self.client.ws is None:
                return
        c = self.client
        try:
            msg = c.recv(0.01)
            while msg is not None:
                self._heard(msg)
                msg = c.recv(0.0)
            if self.finished:
                return
            self._act(c)
        except (ConnectionClosed, InvalidStatus, OSError):
            c.close()
            self.client = None
            self.retry_at = time.time() + 0.2

    def _heard(self, msg: dict[str, Any]) -> None:
        c = self.client
        assert c is not None
        self.n, self.view = c.n, c.view
        kind = msg["type"]
        if kind == "service":
            self.service.append(msg)
        elif kind == "ack" and self.pending and msg["id"] == self.pending[0]:
            self.acked.add(msg["id"])
            self.pending = None
        elif kind == "error" and self.pending and msg.get("id") == self.pending[0]:
            if msg["code"] in ("busy", "not-stored"):
                self.busy += 1
                self.resend_after = time.time() + 0.3  # the same action, the same id, in a moment
            else:  # the position moved on (the table acted for us meanwhile): choose again
                self.refused.append(f"{msg['code']} at frame {self.n}")
                self.pending = None
        elif kind == "table" and msg["table"]["status"] == "finished":
            self.finished = True

    def _act(self, c: Client) -> None:
        now = time.time()
        if self.pending is not None:
            if self.resend_after and now >= self.resend_after:
                self.resend_after = 0.0
                c.send({"type": "act", "id": self.pending[0], "action": self.pending[1]})
            return
        if c.legal and self.sent_at_n != c.n:
            self.counter += 1
            action = self.rng.choice(c.legal)["id"]
            self.pending = (f"{self.user.name}-{self.counter}", action)
            self.sent_at_n = c.n
            c.send({"type": "act", "id": self.pending[0], "action": action})


def play_through(people: list[Person], fault: Callable[[], None], after_acks: int,
                 timeout: float = 240.0) -> float:
    """Play every table to its end, starting ``fault`` in a thread once ``after_acks`` actions were
    acknowledged in all; returns when the fault began."""
    deadline = time.time() + timeout
    started: list[float] = []
    thread: threading.Thread | None = None
    while time.time() < deadline:
        for p in people:
            p.tick()
        if thread is None and sum(len(p.acked) for p in people) >= after_acks:
            started.append(time.time())
            thread = threading.Thread(target=fault, daemon=True)
            thread.start()
        if all(p.finished for p in people) and (thread is None or not thread.is_alive()):
            assert started, "the games ended before the fault"
            return started[0]
    states = {p.user.name + "@" + p.table[:6]: (p.finished, p.n, p.pending, p.refused[-3:],
                                                 bool(p.client and p.client.legal)) for p in people}
    logs = []
    for server in {id(s): s for p in people for s in p.servers}.values():
        if server.log is not None and server.log.exists():
            tail = server.log.read_text(errors="replace").splitlines()[-40:]
            logs.append(f"--- {server.log.name}:\n" + "\n".join(tail))
    raise TimeoutError(f"not every table finished in {timeout} s (finished, frame, pending, refusals, "
                       f"legal): {states}\n" + "\n".join(logs))


def setup_tables(servers: list[Server], seed: int) -> tuple[list[Person], list[str], list[User]]:
    first, second = servers[0], servers[-1]
    alice, bob = User(first, "alice"), User(second, "bob")
    people, tables = [], []
    for i, (game, options, rated) in enumerate(GAMES):
        r = alice.post("/api/tables", {"game": game, "seats": ["me", "open", "bot:greedy", "bot:random"],
                                        "options": options, "rated": rated, "grace": 120})
        assert r.status_code == 200, r.text
        table = r.json()["id"]
        assert bob.post(f"/api/tables/{table}/join").status_code == 200
        tables.append(table)
        people.append(Person(alice, table, [first, second], random.Random(seed + i)))
        people.append(Person(bob, table, [second, first], random.Random(seed + 100 + i)))
    return people, tables, [alice, bob]


def check_outcome(db: str, people: list[Person], tables: list[str], users: list[User], fault_at: float,
                  name: str, bound: float) -> dict[str, Any]:
    report: dict[str, Any] = {"fault": name, "tables": {}}
    longest = 0.0
    for table in tables:
        status = db_rows(db, "SELECT status FROM tables WHERE id = :t", t=table)[0][0]
        assert status == "finished", (table, status)
        record = users[0].get(f"/api/tables/{table}/record").json()
        rec = Record.from_dict(record)
        # Every step once: each client's view, built from its frames alone, is its seat's view of
        # the finished game (a frame missed or applied twice would leave it different).
        final = replay(rec)
        for p in people:
            if p.table == table:
                assert p.view is not None and p.seat is not None
                assert json.dumps(p.view, sort_keys=True) == json.dumps(final.view(p.seat), sort_keys=True), \
                    f"{p.user.name} at {table}: the view from the frames differs from the game's"
        # Every acknowledged action stored exactly once; nothing stored twice.
        stored = db_rows(db, "SELECT client_id, COUNT(*) FROM steps WHERE table_id = :t AND client_id IS NOT NULL "
                             "GROUP BY client_id", t=table)
        counts = {cid: n for cid, n in stored}
        assert all(n == 1 for n in counts.values())
        for p in people:
            if p.table == table:
                missing = sorted(cid for cid in p.acked if cid not in counts)
                assert not missing, f"acknowledged but not stored: {missing}"
        ats = [a for (a,) in db_rows(db, "SELECT at FROM steps WHERE table_id = :t ORDER BY n", t=table)]
        gaps = [b - a for a, b in zip(ats, ats[1:])]
        stall = max(gaps, default=0.0)
        longest = max(longest, stall)
        report["tables"][table] = {"game": rec.game, "steps": len(ats), "longest_pause_s": round(stall, 2)}
        assert new_state_for(rec) is not None
    total = db_rows(db, "SELECT COALESCE(SUM(amount), 0) FROM ledger")[0][0]
    assert total == 0, f"the ledger sums to {total}"
    report["longest_pause_s"] = round(longest, 2)
    report["busy_errors"] = sum(p.busy for p in people)
    report["reconnects"] = sum(p.reconnects for p in people) - len(people)
    report["service_messages"] = sum(len(p.service) for p in people)
    print(f"{name}: longest pause {longest:.2f} s, busy errors {report['busy_errors']}, "
          f"reconnects {report['reconnects']}")
    OUTPUT.parent.mkdir(exist_ok=True)
    try:
        figures = json.loads(OUTPUT.read_text())
    except (OSError, ValueError):
        figures = {}
    figures[name] = report
    OUTPUT.write_text(json.dumps(figures, indent=2))
    assert longest < bound, f"a table paused {longest:.1f} s (bound {bound} s)"
    return report


def servers_for(own: OwnServices, tmp_path: Path, count: int, redis: bool) -> tuple[str, list[Server]]:
    db = own.database()
    servers = [Server(db, redis=own.redis if redis else None, bot_delay=0.05, log=tmp_path / f"server{i}.log")
               .start() for i in range(count)]
    return db, servers


@needs_services
def test_redis_stopped_mid_game_with_two_processes(own: OwnServices, tmp_path: Path) -> None:
    db, servers = servers_for(own, tmp_path, 2, redis=True)
    try:
        people, tables, users = setup_tables(servers, 1)

        def fault() -> None:
            own.stop_redis()
            time.sleep(8)
            own.start_redis()

        at = play_through(people, fault, after_acks=12)
        report = check_outcome(db, people, tables, users, at, "redis stopped 8 s, two processes", bound=25)
        told = [m for p in people for m in p.service]
        assert any("redis" in m["down"] for m in told), "nobody was told that Redis was away"
        assert any(not m["down"] for m in told), "nobody was told that it came back"
        assert report["reconnects"] == 0  # a Redis outage drops no socket
    finally:
        for s in servers:
            s.stop()


@needs_services
@pytest.mark.parametrize("processes", [1, 2])
def test_postgres_stopped_mid_game(own: OwnServices, tmp_path: Path, processes: int) -> None:
    db, servers = servers_for(own, tmp_path, processes, redis=processes > 1)
    try:
        people, tables, users = setup_tables(servers, 2 + processes)

        def fault() -> None:
            own.stop_postgres()
            time.sleep(6)
            own.start_postgres()

        at = play_through(people, fault, after_acks=12)
        check_outcome(db, people, tables, users, at, f"postgresql stopped 6 s, {processes} process(es)", bound=30)
        told = [m for p in people for m in p.service]
        assert any(m["busy"] for m in told), "nobody was told that the server was busy"
        assert told and not told[-1]["busy"]
    finally:
        for s in servers:
            s.stop()


@needs_services
def test_rolling_restart_of_two_processes(own: OwnServices, tmp_path: Path) -> None:
    db, servers = servers_for(own, tmp_path, 2, redis=True)
    try:
        people, tables, users = setup_tables(servers, 7)

        def fault() -> None:
            for server in servers:
                server.stop()  # SIGTERM: sockets closed with 1012, leases given back
                server.start()
                time.sleep(2)

        at = play_through(people, fault, after_acks=12)
        report = check_outcome(db, people, tables, users, at, "rolling SIGTERM restart, two processes", bound=20)
        assert report["reconnects"] > 0
    finally:
        for s in servers:
            s.stop()


@needs_services
def test_the_page_says_the_server_is_busy_and_sends_the_move_when_the_database_is_back(own: OwnServices,
                                                                                      tmp_path: Path) -> None:
    """In Chromium: PostgreSQL stops while it is the player's turn. The page shows that the server is
    busy, the card clicked meanwhile is refused with ``busy`` and sent again by the page (the same id)
    until the database is back; then the banner goes, and the move is stored once."""
    from web_util import CHROMIUM, CHROMIUM_ARGS, CHROMIUM_MISSING, READY, SKIP_REASON, create_table, guest, \
        new_page, shot

    if CHROMIUM_MISSING:
        pytest.skip(SKIP_REASON)
    from playwright.sync_api import sync_playwright

    db, (server,) = servers_for(own, tmp_path, 1, redis=False)
    sent: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = new_page(browser, server.base, width=1100, height=900)
            got: list[str] = []
            page.on("websocket", lambda ws: (ws.on("framesent", lambda text: sent.append(str(text))),
                                             ws.on("framereceived", lambda text: got.append(str(text)[:150]))))
            guest(page, "Patient")
            create_table(page, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], {"deals": 1})
            page.wait_for_selector(READY, timeout=30_000)
            own.stop_postgres()
            page.wait_for_selector(".banner[data-service~='database']", timeout=15_000)
            shot(page, "outage-database-busy")
            choice = page.eval_on_selector_all(READY, "els => els.map(e => e.dataset.action)")[0]
            page.locator(f"{READY}[data-action='{choice}']").first.click()
            page.wait_for_function("() => document.querySelectorAll('.banner').length && "
                                   "window.__table.pending.size === 1")
            page.wait_for_timeout(3000)  # refused and sent again meanwhile (events run only in Playwright calls)
            acts = [json.loads(t) for t in sent if '"act"' in t]
            assert len({a["id"] for a in acts}) == 1 and len(acts) >= 2, (acts, got[-6:])  # one move, sent again
            own.start_postgres()
            page.wait_for_function("() => window.__table.pending.size === 0 && !window.__table.service",
                                   timeout=30_000)
            assert page.locator(".banner[data-service]").count() == 0
            assert page.locator(".banner.error").count() == 0
            assert page.errors == []  # type: ignore[attr-defined]
            stored = db_rows(db, "SELECT COUNT(*) FROM steps WHERE client_id = :c", c=acts[0]["id"])[0][0]
            assert stored == 1
            browser.close()
    finally:
        server.stop()


# -- each guarantee alone, quickly ----------------------------------------------------------------
def test_a_publish_that_cannot_reach_redis_is_kept_not_raised() -> None:
    """The step is stored and acknowledged before it is published: a publish that fails must not
    fail its caller (before, the socket dropped after every acknowledged move while Redis was away).
    What was not said is kept, once per table, for when Redis is back."""
    import asyncio
    import socket
    from types import SimpleNamespace

    from updown.server.hub import RedisBus
    from updown.server.outage import REDIS, ServiceHealth

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]

    async def run() -> tuple[list[dict[str, str]], bool]:
        bus = RedisBus(f"redis://127.0.0.1:{port}/0")
        bus.origin = "me"
        bus.hub = SimpleNamespace(health=ServiceHealth())  # type: ignore[assignment]
        await bus.publish("table-a")
        await bus.publish("table-a")
        await bus.publish("table-b")
        await bus.redis.aclose()
        return bus.unsent, bus.hub.health.is_down(REDIS)  # type: ignore[union-attr]

    unsent, down = asyncio.run(run())
    assert [m["table"] for m in unsent] == ["table-a", "table-b"]
    assert down


@needs_services
def test_the_redis_listener_subscribes_again_after_redis_restarts(own: OwnServices) -> None:
    """Before, a Redis drop ended the listener for good: that process never heard the others again."""
    import asyncio

    import redis.asyncio as aioredis

    from updown.server.hub import RedisBus
    from updown.server.outage import REDIS, ServiceHealth

    class Hub:
        owner = "me"
        health = ServiceHealth()
        heard: list[str] = []
        resynced = 0

        async def changed_elsewhere(self, table: str) -> None:
            self.heard.append(table)

        def close_session(self, token: str) -> None:
            pass

        async def resync_all(self) -> None:
            self.resynced += 1

    async def run() -> Hub:
        hub = Hub()
        bus = RedisBus(own.redis)
        await bus.start(hub)  # type: ignore[arg-type]
        other = aioredis.from_url(own.redis)
        await other.publish(RedisBus.CHANNEL, json.dumps({"origin": "other", "table": "before"}))
        await asyncio.sleep(0.3)
        await asyncio.to_thread(own.stop_redis)
        await asyncio.sleep(1.5)
        await asyncio.to_thread(own.start_redis)
        deadline = time.time() + 15
        other = aioredis.from_url(own.redis)
        while "after" not in hub.heard and time.time() < deadline:
            await other.publish(RedisBus.CHANNEL, json.dumps({"origin": "other", "table": "after"}))
            await asyncio.sleep(0.2)
        await other.aclose()
        await bus.close()
        return hub

    hub = asyncio.run(run())
    assert hub.heard[0] == "before"
    assert "after" in hub.heard, "the listener did not subscribe again"
    assert hub.resynced >= 1  # and caught its tables up (it may have missed news)
    assert not hub.health.is_down(REDIS)


@needs_services
def test_a_dropped_subscription_is_caught_up_when_redis_answers_at_once(own: OwnServices) -> None:
    """Redis stays up but drops the listener's connection. Were the drop handled inside the client
    (redis-py can connect and subscribe again by itself), the notes published meanwhile would be
    lost without the hub knowing: the listener must see the drop, subscribe again and then catch
    its tables up."""
    import asyncio

    import redis.asyncio as aioredis

    from updown.server.hub import RedisBus
    from updown.server.outage import ServiceHealth

    class Hub:
        owner = "me"
        health = ServiceHealth()
        resynced = 0

        async def changed_elsewhere(self, table: str) -> None:
            pass

        async def resync_all(self) -> None:
            self.resynced += 1

    async def run() -> tuple[Hub, bool, bool]:
        hub = Hub()
        bus = RedisBus(own.redis)
        await bus.start(hub)  # type: ignore[arg-type]
        listening_before = bus.listening
        other = aioredis.from_url(own.redis)
        killed = await other.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
        assert killed >= 1
        deadline = time.time() + 15
        while hub.resynced == 0 and time.time() < deadline:
            await asyncio.sleep(0.05)
        await other.aclose()
        listening_after = bus.listening
        await bus.close()
        return hub, listening_before, listening_after

    hub, before, after = asyncio.run(run())
    assert before and after
    assert hub.resynced >= 1, "the drop went unnoticed: news published meanwhile would be lost"


@needs_services
def test_an_action_while_the_database_is_away_is_refused_busy_then_stored_once(own: OwnServices,
                                                                               tmp_path: Path) -> None:
    """Not acknowledged, not silent: ``busy`` at once, every client told; the same id sent again
    once the database is back is acknowledged and stored once."""
    db, (server,) = servers_for(own, tmp_path, 1, redis=False)
    try:
        user = User(server, "patient")
        table = make_table(user, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"])
        c = user.socket(table["id"])
        c.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 30)
        action = c.legal[0]["id"]
        own.stop_postgres()
        c.send({"type": "act", "id": "x1", "action": action})
        reply = c.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == "x1", 15)
        assert reply["type"] == "error" and reply["code"] == "busy", reply
        told = c.until(lambda m: m["type"] == "service", 15) if not any(
            json.loads(r).get("type") == "service" for r in c.raw) else None
        assert told is None or told["busy"]
        own.start_postgres()
        c.until(lambda m: m["type"] == "service" and not m["busy"], 30)
        c.send({"type": "act", "id": "x1", "action": action})
        assert c.until(lambda m: m.get("id") == "x1", 15)["type"] == "ack"
        c.send({"type": "act", "id": "x1", "action": action})  # once more: acknowledged, not applied again
        assert c.until(lambda m: m.get("id") == "x1", 15)["type"] == "ack"
        assert db_rows(db, "SELECT COUNT(*) FROM steps WHERE client_id = 'x1'")[0][0] == 1
    finally:
        server.stop()
