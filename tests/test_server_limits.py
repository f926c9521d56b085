"""What one client can spend on the online server, over a real ``updown serve`` process: rate
limits (sign-ins, new accounts, tables, hints, WebSocket messages), password hashes at once, the
request body's size, validation errors that echo nothing, security headers, and the API docs
being off by default. Each limit is set low with ``--limit`` so that a test reaches it quickly.

With ``UPDOWN_TEST_REDIS`` two processes over one Redis share their counts."""

from __future__ import annotations

import os
import re
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from server_util import Server, User

REDIS = os.environ.get("UPDOWN_TEST_REDIS")
STATIC = Path(__file__).resolve().parent.parent / "updown" / "web" / "static"
BOTS = ["me", "bot:greedy", "bot:greedy", "bot:greedy"]


def serve(tmp_path: Path, *limits: str, docs: bool = False, name: str = "updown") -> Server:
    args = [arg for limit in limits for arg in ("--limit", limit)] + (["--api-docs"] if docs else [])
    return Server(f"sqlite:///{tmp_path / (name + '.db')}", log=tmp_path / f"{name}.log", extra_args=args).start()


@pytest.fixture
def started() -> Iterator[list[Server]]:
    """Servers a test starts; each is stopped at the end."""
    servers: list[Server] = []
    yield servers
    for srv in servers:
        srv.stop()


@pytest.fixture(scope="module")
def default_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("limits")
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log").start()
    yield srv
    srv.stop()


def limited(r: httpx.Response, words: str) -> bool:
    """A 429 that says what was limited (``words``) and when to try again."""
    if r.status_code != 429:
        return False
    detail = r.json()["detail"]
    retry = r.headers.get("retry-after", "")
    return words in detail and "try again" in detail and retry.isdigit() and int(retry) >= 1


def peak_rss_mb(pid: int) -> tuple[float, float]:
    """(now, peak) resident memory of a process in MB, from /proc."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def wrong_logins(srv: Server, names: list[str]) -> tuple[list[httpx.Response], httpx.Response | None]:
    """Wrong sign-ins for ``names``, all at once; and a health check sent in the middle of them."""
    go = threading.Barrier(len(names) + 1)

    def attempt(name: str) -> httpx.Response:
        with httpx.Client(base_url=srv.base, timeout=60) as http:
            go.wait()
            return http.post("/api/login", json={"name": name, "password": "wrong-password"})

    with ThreadPoolExecutor(len(names)) as pool:
        futures = [pool.submit(attempt, name) for name in names]
        go.wait()
        time.sleep(0.05)
        health: httpx.Response | None
        try:
            health = httpx.get(srv.base + "/api/health", timeout=30)
        except httpx.HTTPError:
            health = None
        return [f.result() for f in futures], health


def my_turn(user: User, tmp_table: dict[str, Any]) -> Any:
    client = user.socket(tmp_table["id"])
    client.until(lambda m: m["type"] in ("frame", "snapshot") and bool(m["legal"]), 30)
    return client


def new_table(user: User, seats: list[str] = BOTS) -> httpx.Response:
    return user.post("/api/tables", {"game": "euchre", "seats": seats, "options": {"target": 3}})


# -- sign-ins ---------------------------------------------------------------------------------------
def test_wrong_sign_ins_are_limited_per_name_and_per_address_and_memory_stays_bounded(
        tmp_path: Path, started: list[Server]) -> None:
    srv = serve(tmp_path, "login_per_address=10/minute", "login_per_name=3/minute")
    started.append(srv)
    alice = User(srv, "alice")
    User(srv, "bob")
    # Per account name: three tries, then even the right password waits, and no session is made.
    for _ in range(3):
        assert alice.http.post("/api/login", json={"name": "alice", "password": "wrong-password"}).status_code == 401
    fresh = httpx.Client(base_url=srv.base, timeout=20)
    r = fresh.post("/api/login", json={"name": "Alice ", "password": "pass-word-1"})
    assert limited(r, "account name"), r.text
    assert "updown_session" not in r.cookies and fresh.get("/api/me").status_code == 401
    assert fresh.post("/api/login", json={"name": "bob", "password": "pass-word-1"}).status_code == 200

    # Per address: 5 of the 10 attempts are used; 24 at once get 5 answers and 19 refusals. The hash
    # slots keep memory flat (today each of 24 argon2 hashes at once takes 64 MiB), and the
    # server answers others meanwhile.
    assert srv.proc is not None
    before, _ = peak_rss_mb(srv.proc.pid)
    answers, health = wrong_logins(srv, [f"nobody-{i}" for i in range(24)])
    _, peak = peak_rss_mb(srv.proc.pid)
    by_address = [r for r in answers if limited(r, "from your address")]
    assert len(by_address) == 19, [(r.status_code, r.text[:80]) for r in answers]
    assert all(r.status_code == 401 or limited(r, "at once") for r in answers if r not in by_address)
    assert health is not None and health.status_code == 200
    assert peak - before < 400, (before, peak)


def test_password_hashes_at_once_are_capped(tmp_path: Path, started: list[Server]) -> None:
    srv = serve(tmp_path, "login_per_address=off", "login_per_name=off", "hash_slots=1", "hash_wait=0.05")
    started.append(srv)
    answers, health = wrong_logins(srv, [f"nobody-{i}" for i in range(16)])
    codes = [r.status_code for r in answers]
    assert 401 in codes, codes  # the first one got the slot
    at_once = [r for r in answers if limited(r, "too many sign-ins at once")]
    assert at_once and len(at_once) + codes.count(401) == len(answers), [(r.status_code, r.text[:80]) for r in answers]
    assert health is not None and health.status_code == 200
    # Registering hashes too: it waits for the same slots and works once they are free.
    assert User(srv, "carol").name == "carol"


def test_new_accounts_and_guests_per_address(tmp_path: Path, started: list[Server]) -> None:
    srv = serve(tmp_path, "accounts_per_address=3/hour")
    started.append(srv)
    User(srv, "alice")
    User(srv, guest=True)
    User(srv, "bob")
    http = httpx.Client(base_url=srv.base, timeout=20)
    r = http.post("/api/guest", json={})
    assert limited(r, "new accounts") and int(r.headers["retry-after"]) > 60, r.text
    r = http.post("/api/register", json={"name": "carol", "password": "pass-word-1"})
    assert limited(r, "new accounts"), r.text
    assert "updown_session" not in r.cookies
    # Nothing was made: carol does not exist, and a bad request is refused as before, not counted.
    assert http.post("/api/login", json={"name": "carol", "password": "pass-word-1"}).status_code == 401
    assert http.post("/api/register", json={"name": "x", "password": "pass-word-1"}).status_code == 400


# -- tables and hints -------------------------------------------------------------------------------
def test_tables_per_guest_and_per_person_per_hour(tmp_path: Path, started: list[Server]) -> None:
    srv = serve(tmp_path, "tables_per_guest=2/hour", "tables_per_person=3/hour")
    started.append(srv)
    guest, alice = User(srv, guest=True), User(srv, "alice")
    for _ in range(2):
        assert new_table(guest).status_code == 200
    r = new_table(guest, ["bot:random"] * 4)
    assert limited(r, "for a guest"), r.text
    assert len(guest.get("/api/me").json()["tables"]) == 2  # nothing was made
    assert new_table(alice, ["me", "nobody", "bot:random", "bot:random"]).status_code == 400  # not counted
    for _ in range(3):
        assert new_table(alice).status_code == 200
    r = new_table(alice)
    assert limited(r, "new tables for your account"), r.text
    assert len(alice.get("/api/me").json()["tables"]) == 3


def test_hints_per_user_and_their_budget(tmp_path: Path, started: list[Server]) -> None:
    srv = serve(tmp_path, "hints_per_user=2/minute", "hint_budget_per_user=500/minute")
    started.append(srv)
    alice, bob = User(srv, "alice"), User(srv, "bob")
    a_table, b_table = new_table(alice).json(), new_table(bob).json()
    my_turn(alice, a_table)
    my_turn(bob, b_table)
    for _ in range(2):
        assert alice.get(f"/api/tables/{a_table['id']}/hint?budget=50").status_code == 200
    r = alice.get(f"/api/tables/{a_table['id']}/hint?budget=50")
    assert limited(r, "too many hints"), r.text
    # The playouts: 400 fit in 500 a minute, 200 more do not (other users keep their own).
    assert bob.get(f"/api/tables/{b_table['id']}/hint?budget=400").status_code == 200
    r = bob.get(f"/api/tables/{b_table['id']}/hint?budget=200")
    assert limited(r, "hint budget"), r.text


# -- the WebSocket ------------------------------------------------------------------------------------
def test_a_message_flood_on_one_socket_is_refused_then_closed_and_changes_nothing(
        tmp_path: Path, started: list[Server]) -> None:
    srv = serve(tmp_path, "socket_messages=5/second", "socket_strikes=20/minute")
    started.append(srv)
    alice = User(srv, "alice")
    table = new_table(alice).json()
    client = my_turn(alice, table)
    while client.recv(0.3):
        pass
    before = (client.n, len(alice.get(f"/api/tables/{table['id']}/record").json()["events"]))
    action = client.legal[0]["id"]
    for i in range(8):
        client.send({"type": "ping", "id": f"p{i}"})
    client.send({"type": "act", "id": "flood", "action": action})
    got = [client.until(lambda m: m["type"] in ("pong", "error", "ack")) for _ in range(9)]
    assert [m["type"] for m in got].count("pong") == 5, got
    refused = [m for m in got if m["type"] == "error"]
    assert len(refused) == 4 and all(m["code"] == "rate-limited" and "too many messages" in m["message"]
                                     for m in refused), refused
    assert refused[-1]["id"] == "flood" and "flood" not in client.acks
    # Sustained: the socket is closed with 1008 (policy violation), and still nothing changed.
    assert client.ws is not None
    for i in range(60):
        try:
            client.send({"type": "act", "id": f"f{i}", "action": action})
        except ConnectionClosed:
            break
    code = None
    deadline = time.time() + 10
    while code is None and time.time() < deadline:
        try:
            client.ws.recv(timeout=5)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd else None
            break
    assert code == 1008
    assert httpx.get(srv.base + "/api/health", timeout=10).status_code == 200
    assert (client.n, len(alice.get(f"/api/tables/{table['id']}/record").json()["events"])) == before
    assert not client.acks
    # A new socket plays at its own pace.
    again = my_turn(alice, table)
    again.send({"type": "act", "id": "ok", "action": action})
    assert again.until(lambda m: m["type"] in ("ack", "error")) == {"type": "ack", "id": "ok"}


# -- bodies, errors, headers, docs -------------------------------------------------------------------
def test_a_large_body_is_refused_before_parsing_with_a_small_answer(default_server: Server) -> None:
    http = httpx.Client(base_url=default_server.base, timeout=60)
    big = b'{"name": "' + b"x" * 5_000_000 + b'", "password": "pass-word-1"}'
    r = http.post("/api/register", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and len(r.content) < 300 and "too large" in r.json()["detail"], r.text[:300]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams in
        yield b'{"name": "'
        for _ in range(80):
            yield b"x" * 65536
        yield b'"}'

    r = http.post("/api/login", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and len(r.content) < 300, r.text[:300]
    r = http.post("/web/replay", content=b"x" * 5_000_000)
    assert r.status_code == 413 and len(r.content) < 300
    # Under the limit, the request goes on as before.
    r = http.post("/api/guest", json={"name": "y" * 40_000})
    assert r.status_code == 422 and len(r.content) < 1000


def test_a_validation_error_names_the_field_but_echoes_nothing(default_server: Server) -> None:
    http = httpx.Client(base_url=default_server.base, timeout=20)
    secret = "SECRET-" + uuid.uuid4().hex
    r = http.post("/api/register", json={"name": secret * 3, "password": [secret]})
    assert r.status_code == 422 and secret not in r.text, r.text
    detail = r.json()["detail"]
    assert {tuple(d["loc"]) for d in detail} == {("body", "name"), ("body", "password")}
    assert all(d["msg"] and "input" not in d and "ctx" not in d for d in detail)
    r = http.post("/api/login", content=b'{"name": "' + secret.encode(), headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and secret not in r.text and len(r.content) < 1000, r.text


def test_every_answer_carries_the_security_headers(default_server: Server) -> None:
    user = User(default_server, guest=True)
    answers = [user.get(path) for path in ("/", "/signin", "/lobby", "/replay", "/leaderboard", "/account",
                                           "/t/anything", "/static/app.css", "/static/js/app.js", "/api/health",
                                           "/api/games", "/api/me", "/api/tables/nope", "/nowhere",
                                           "/web/i18n/de")]
    answers += [user.http.post("/api/login", json={}), httpx.post(default_server.base + "/api/logout"),
                httpx.post(default_server.base + "/api/logout", headers={"Origin": "https://elsewhere.example"})]
    for r in answers:
        where = f"{r.request.method} {r.request.url.path} ({r.status_code})"
        csp = r.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp, where
        assert "unsafe-inline" not in csp, where
        assert r.headers.get("x-content-type-options") == "nosniff", where
        assert r.headers.get("referrer-policy") in ("same-origin", "no-referrer"), where
        assert r.headers.get("x-frame-options") == "DENY", where
    # The pages have nothing that this policy would block: no inline script, style or handler.
    for page in STATIC.glob("*.html"):
        html = page.read_text()
        assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", html)), page
        assert not re.search(r"<style\b|\sstyle\s*=|\son[a-z]+\s*=|javascript:", html, re.I), page


def test_api_docs_only_when_enabled(default_server: Server, tmp_path: Path, started: list[Server]) -> None:
    for path in ("/api/docs", "/api/openapi.json", "/redoc"):
        assert httpx.get(default_server.base + path, timeout=10).status_code == 404, path
    srv = serve(tmp_path, docs=True)
    started.append(srv)
    assert httpx.get(srv.base + "/api/openapi.json", timeout=10).json()["info"]["title"] == "updown"
    docs = httpx.get(srv.base + "/api/docs", timeout=10)
    assert docs.status_code == 200 and "frame-ancestors 'none'" in docs.headers["content-security-policy"]


# -- several processes ---------------------------------------------------------------------------------
@pytest.mark.skipif(REDIS is None, reason="UPDOWN_TEST_REDIS not set")
def test_two_processes_share_their_counts_through_redis(tmp_path: Path, started: list[Server]) -> None:
    assert REDIS is not None
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    args = ["--limit", "login_per_address=off", "--limit", "login_per_name=4/minute"]
    one = Server(db, redis=REDIS, log=tmp_path / "one.log", extra_args=args).start()
    started.append(one)
    two = Server(db, redis=REDIS, log=tmp_path / "two.log", extra_args=args).start()
    started.append(two)
    name = "n" + uuid.uuid4().hex[:8]
    for srv in (one, two, one, two):
        r = httpx.post(srv.base + "/api/login", json={"name": name, "password": "wrong-password"}, timeout=20)
        assert r.status_code == 401, r.text
    for srv in (one, two):
        r = httpx.post(srv.base + "/api/login", json={"name": name, "password": "wrong-password"}, timeout=20)
        assert limited(r, "account name"), r.text
