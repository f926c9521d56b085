"""The lobby's WebSocket (``/ws/lobby``, ``updown/server/routes/lobby.py``): the list of tables pushed
when a table is created, joined, left, finished or abandoned, on this process or on another one
over Redis; bursts coalesced; no seat authority and no actions; and the browser's lobby kept up to
date by it without polling ``GET /api/tables``.

Every wait has a generous limit that is still well under the lobby's periodic re-read
(``lobby.RESYNC``, 30 s): a list that came only from that re-read would fail these tests.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from server_util import Server, User, make_table, play_out
from updown.server.routes.lobby import COALESCE, RESYNC
from web_util import CHROMIUM_MISSING, SKIP_REASON, browser, new_page, no_errors, register, shot  # noqa: F401

REDIS = os.environ.get("UPDOWN_TEST_REDIS")
PG = os.environ.get("UPDOWN_TEST_POSTGRES")
PUSHED = 10.0
"""Seconds a change may take to reach a lobby socket (far more than it needs, far less than RESYNC)."""
SOCKETS = 4
"""The module server's ``lobby_sockets_per_address``."""
assert PUSHED < RESYNC / 2


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("lobby-push")
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log",
                 extra_args=["--limit", f"lobby_sockets_per_address={SOCKETS}"]).start()
    yield srv
    srv.stop()


class LobbyClient:
    """A lobby socket that keeps every list it is sent (``lists``) and every other message."""

    def __init__(self, server: Server, headers: dict[str, str] | None = None):
        self._exit = ExitStack()
        self.ws: ClientConnection = self._exit.enter_context(connect(
            f"ws://127.0.0.1:{server.port}/ws/lobby", additional_headers=headers or {}, open_timeout=20,
            max_size=2**24, ping_interval=None))
        self.lists: list[tuple[float, dict[str, Any]]] = []
        self.others: list[dict[str, Any]] = []

    def close(self) -> None:
        self._exit.close()

    def recv(self, timeout: float) -> dict[str, Any] | None:
        try:
            text = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return None
        assert isinstance(text, str)
        msg: dict[str, Any] = json.loads(text)
        if msg["type"] == "tables":
            self.lists.append((time.monotonic(), msg))
        else:
            self.others.append(msg)
        return msg

    def latest(self) -> list[dict[str, Any]]:
        assert self.lists, "no list yet"
        tables: list[dict[str, Any]] = self.lists[-1][1]["tables"]
        return tables

    def until(self, pred: Callable[[list[dict[str, Any]]], bool], timeout: float = PUSHED) -> list[dict[str, Any]]:
        """The first list (already received, or coming within ``timeout``) for which ``pred`` holds."""
        if self.lists and pred(self.latest()):
            return self.latest()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = self.recv(max(0.05, deadline - time.monotonic()))
            if msg is not None and msg["type"] == "tables" and pred(msg["tables"]):
                return self.latest()
        raise TimeoutError(f"no such list within {timeout} s; the last: {json.dumps(self.lists[-1:])[:600]}")

    def reply(self, timeout: float = PUSHED) -> dict[str, Any]:
        """The next message that is not a list."""
        count = len(self.others)
        deadline = time.monotonic() + timeout
        while len(self.others) == count and time.monotonic() < deadline:
            self.recv(max(0.05, deadline - time.monotonic()))
        assert len(self.others) > count, "no reply"
        return self.others[count]


def listed(table_id: str, status: str | None = None, seat_name: str | None = None
           ) -> Callable[[list[dict[str, Any]]], bool]:
    def pred(tables: list[dict[str, Any]]) -> bool:
        for t in tables:
            if t["id"] == table_id:
                return (status is None or t["status"] == status) and \
                    (seat_name is None or any(s["name"] == seat_name for s in t["seats"]))
        return False
    return pred


def gone(table_id: str) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda tables: all(t["id"] != table_id for t in tables)


def same_as_http(lobby: LobbyClient, user: User) -> None:
    """The socket's list is what ``GET /api/tables`` answers (asked until both agree: either may be
    a moment behind the other, never different for long)."""
    deadline = time.monotonic() + PUSHED
    while True:
        http = user.get("/api/tables?status=open,running").json()
        try:
            lobby.until(lambda tables: tables == http, timeout=1.0)
            return
        except TimeoutError:
            if time.monotonic() > deadline:
                raise


# -- one process -------------------------------------------------------------------------------------
def test_created_joined_left_and_finished_tables_reach_a_lobby_socket(server: Server) -> None:
    alice, bob, carol = User(server, "alice"), User(server, "bob"), User(server, "carol")
    watcher = LobbyClient(server)  # no cookie: the lobby is public
    try:
        first = watcher.until(lambda tables: True)
        assert first == alice.get("/api/tables").json()
        version = watcher.lists[-1][1]["version"]

        # Created (seats open): listed as open, with its creator seated.
        table = make_table(alice, "euchre", ["me", "open", "bot:greedy", "bot:greedy"])
        watcher.until(listed(table["id"], "open", "alice"))
        assert watcher.lists[-1][1]["version"] > version
        same_as_http(watcher, carol)

        # A private table is never listed, and announces nothing (the list stays the same).
        secret = make_table(carol, "euchre", ["me", "open", "bot:greedy", "bot:greedy"], private=True)
        # Joined: Bob takes the open seat, the table starts.
        assert bob.post(f"/api/tables/{table['id']}/join").json()["status"] == "running"
        watcher.until(listed(table["id"], "running", "bob"))
        assert not any(t["id"] == secret["id"] for _at, m in watcher.lists for t in m["tables"])

        # Left before the start: a second table, joined by Carol, then left by her.
        other = make_table(bob, "updown", ["me", "open", "bot:greedy", "bot:random"])
        watcher.until(listed(other["id"], "open"))
        assert carol.post(f"/api/tables/{other['id']}/join", {"seat": 1}).json()["status"] == "running"
        watcher.until(listed(other["id"], "running", "carol"))

        # Finished: Alice and Bob play the euchre table to its end; it leaves the list.
        ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
        play_out([ca, cb], random.Random(3), timeout=240)
        watcher.until(gone(table["id"]))
        assert alice.get(f"/api/tables/{table['id']}").json()["status"] == "finished"
        assert any(t["id"] == other["id"] for t in watcher.latest())
        same_as_http(watcher, carol)
        for c in (ca, cb):
            c.close()
    finally:
        watcher.close()


def test_a_table_whose_people_all_leave_before_playing_leaves_the_lobby(server: Server) -> None:
    dora, emil = User(server, "dora"), User(server, "emil")
    watcher = LobbyClient(server)
    try:
        table = make_table(dora, "euchre", ["me", "open", "bot:greedy", "bot:greedy"])
        emil.post(f"/api/tables/{table['id']}/join")
        watcher.until(listed(table["id"], "running", "emil"))
        for user in (dora, emil):
            assert user.post(f"/api/tables/{table['id']}/leave").status_code == 200
        watcher.until(gone(table["id"]))  # abandoned: ended without a result, and out of the lobby
        assert dora.get(f"/api/tables/{table['id']}").json()["status"] not in ("open", "running")
        same_as_http(watcher, dora)
    finally:
        watcher.close()


def test_a_table_an_admin_closes_leaves_the_lobby(server: Server) -> None:
    """``updown admin tables close`` changes the database alone; the server notices within its
    re-read (2 s) and the lobby hears it then, not at its own 30 s re-read."""
    import subprocess
    import sys

    kim = User(server, "kim")
    watcher = LobbyClient(server)
    try:
        table = make_table(kim, "euchre", ["me", "open", "bot:greedy", "bot:greedy"])
        watcher.until(listed(table["id"], "open"))
        r = subprocess.run([sys.executable, "-c", "from updown.cli.app import main; main()", "admin", "tables",
                            "close", table["id"], "--reason", "a lobby test", "--by", "tester", "--db", server.db],
                           capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "200"})
        assert r.returncode == 0, (r.stdout, r.stderr)
        watcher.until(gone(table["id"]))
        assert kim.get(f"/api/tables/{table['id']}").json()["status"] == "closed"
    finally:
        watcher.close()


def test_a_burst_of_changes_is_coalesced(server: Server) -> None:
    """Twelve tables made as fast as HTTP allows: the socket gets them all, in a few lists, never
    more often than the coalescing allows (measured where the lists arrive, with slack for jitter)."""
    makers = [User(server, f"maker{i}") for i in range(3)]
    watcher = LobbyClient(server)
    try:
        watcher.until(lambda tables: True)
        start = len(watcher.lists)
        began = time.monotonic()
        ids = [make_table(makers[i % 3], "updown", ["me", "open", "bot:greedy", "bot:greedy"])["id"]
               for i in range(12)]
        watcher.until(lambda tables: set(ids) <= {t["id"] for t in tables})
        took = time.monotonic() - began
        lists = len(watcher.lists) - start
        assert lists <= took / COALESCE + 2, f"{lists} lists in {took:.1f} s"
        assert lists <= 12
        same_as_http(watcher, makers[0])
        # And nothing more comes while nothing changes (a socket that opens and closes is no change).
        quiet = len(watcher.lists)
        t2 = makers[0].socket(ids[0])
        t2.close()
        watcher.recv(2 * COALESCE + 1.0)
        assert len(watcher.lists) == quiet
    finally:
        watcher.close()


def test_the_lobby_socket_takes_no_actions_and_answers_bad_frames(server: Server) -> None:
    alice = User(server, "frank")
    table = make_table(alice, "euchre", ["me", "open", "bot:greedy", "bot:greedy"])
    lobby = LobbyClient(server, headers={"Cookie": alice.cookie()})  # a cookie gives it nothing
    try:
        lobby.until(listed(table["id"], "open"))
        lobby.ws.send("not json")
        assert lobby.reply()["code"] == "malformed"
        lobby.ws.send(b"\x00\x01")
        assert lobby.reply()["code"] == "malformed"
        lobby.ws.send(json.dumps([1, 2]))
        assert lobby.reply()["code"] == "malformed"
        lobby.ws.send(json.dumps({"type": "ping", "id": "x" * 65}))
        assert lobby.reply()["code"] == "malformed"
        lobby.ws.send(json.dumps({"type": "ping", "pad": "x" * 2000}))
        assert lobby.reply()["code"] == "too-large"
        for kind in ("act", "leave", "chat", "join"):
            lobby.ws.send(json.dumps({"type": kind, "id": f"m-{kind}", "action": 0, "text": "hi", "table": table["id"]}))
            err = lobby.reply()
            assert err == {"type": "error", "id": f"m-{kind}", "code": "unknown-type", "message": err["message"]}
            assert "no actions" in err["message"] and kind in err["message"]
        # Nothing was done: the table is as it was, and the socket still works.
        assert alice.get(f"/api/tables/{table['id']}").json()["status"] == "open"
        lobby.ws.send(json.dumps({"type": "ping", "id": "p1"}))
        assert lobby.reply() == {"type": "pong", "id": "p1"}
        before = len(lobby.lists)
        lobby.ws.send(json.dumps({"type": "resync"}))
        lobby.until(lambda tables: len(lobby.lists) > before)
        assert lobby.latest() == alice.get("/api/tables").json()
        # Still pushed to after all that.
        other = make_table(alice, "updown", ["me", "open", "bot:greedy", "bot:greedy"])
        lobby.until(listed(other["id"], "open"))
    finally:
        lobby.close()


def open_lobby(server: Server) -> LobbyClient:
    """A lobby socket that got its first list; tried again for a while when the server still counts
    sockets that were just closed (their close may reach it a moment after the client is done)."""
    deadline = time.monotonic() + PUSHED
    while True:
        lobby = LobbyClient(server)
        try:
            msg = lobby.recv(PUSHED)
        except ConnectionClosed:
            msg = None
        if msg is not None and msg["type"] == "tables":
            return lobby
        lobby.close()
        assert time.monotonic() < deadline, msg
        time.sleep(0.2)


def test_lobby_sockets_are_bounded_per_address_and_refused_cross_origin(server: Server) -> None:
    held: list[LobbyClient] = []
    try:
        for _ in range(SOCKETS):
            held.append(open_lobby(server))
        extra = LobbyClient(server)
        err = extra.reply()
        assert err["code"] == "too-many-sockets" and str(SOCKETS) in err["message"]
        with pytest.raises(ConnectionClosed) as closed:
            extra.recv(PUSHED)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        extra.close()
        held.pop().close()  # one closed: a new one is let in
        held.append(open_lobby(server))
    finally:
        for c in held:
            c.close()
    with pytest.raises(Exception) as refused:
        evil = LobbyClient(server, headers={"Origin": "http://evil.example"})
        evil.recv(PUSHED)
    assert "4403" in str(refused.value) or "403" in str(refused.value)


# -- two processes over Redis ----------------------------------------------------------------------------
@pytest.mark.skipif(not REDIS or not PG, reason="no Redis or PostgreSQL: UPDOWN_TEST_REDIS and "
                    "UPDOWN_TEST_POSTGRES not set (start them with eval \"$(.ci/services start)\")")
def test_a_table_made_on_one_process_reaches_a_lobby_socket_on_the_other(tmp_path: Path) -> None:
    from test_server import fresh_pg_db

    db = fresh_pg_db()
    one = Server(db, redis=REDIS, log=tmp_path / "one.log").start()
    two = Server(db, redis=REDIS, log=tmp_path / "two.log").start()
    on_one = on_two = None
    try:
        alice, bob = User(one, "alice"), User(two, "bob")
        on_one, on_two = LobbyClient(one), LobbyClient(two)
        on_one.until(lambda tables: True)
        on_two.until(lambda tables: True)
        # Neither lobby has read the list since: only the bus can tell the other process.
        table = make_table(alice, "euchre", ["me", "open", "bot:greedy", "bot:greedy"])
        on_two.until(listed(table["id"], "open", "alice"))
        assert bob.post(f"/api/tables/{table['id']}/join").json()["status"] == "running"  # on process two
        on_one.until(listed(table["id"], "running", "bob"))
        on_two.until(listed(table["id"], "running", "bob"))
        same_as_http(on_one, bob)
        same_as_http(on_two, alice)
        # Finished on whichever process drives it: gone from both lobbies.
        ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
        play_out([ca, cb], random.Random(5), timeout=240)
        on_one.until(gone(table["id"]))
        on_two.until(gone(table["id"]))
        for c in (ca, cb):
            c.close()
    finally:
        for lobby in (on_one, on_two):
            if lobby is not None:
                lobby.close()
        one.stop()
        two.stop()


# -- the browser --------------------------------------------------------------------------------------
@pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)
def test_the_lobby_page_shows_a_table_another_account_creates_without_polling(
        server: Server, browser: Any) -> None:  # noqa: F811
    page = new_page(browser, server.base)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/tables" in r.url else None)
    register(page, "gina")
    page.goto("/")
    page.wait_for_selector("#create-form")
    page.wait_for_function("() => document.querySelector('.lobby-tables')?.dataset.live === '1'")
    hank = User(server, "hank")
    first = make_table(hank, "euchre", ["me", "open", "bot:greedy", "bot:greedy"])
    row = f"table.tables tr[data-table='{first['id']}']"
    page.wait_for_selector(row, timeout=PUSHED * 1000)
    assert "hank" in page.locator(f"{row} .cell-seats").inner_text()
    assert page.locator(f"{row} a:has-text('Join')").count() == 1
    assert page.locator(".lobby-tables :text('Loading')").count() == 0

    # Focus stays on a button of the list while other tables come and go.
    page.focus(f"{row} a:has-text('Watch')")
    page.evaluate("() => { window.__focused = document.activeElement; }")
    second = make_table(hank, "updown", ["me", "open", "bot:greedy", "bot:random"])
    page.wait_for_selector(f"table.tables tr[data-table='{second['id']}']", timeout=PUSHED * 1000)
    assert page.evaluate("() => document.activeElement === window.__focused && document.activeElement.isConnected")
    # A change to the focused row's table itself (another account joins): its Watch button is kept.
    ivan = User(server, "ivan")
    assert ivan.post(f"/api/tables/{first['id']}/join").json()["status"] == "running"
    page.wait_for_function(f"() => document.querySelector(\"{row} .cell-seats\")?.textContent.includes('ivan')",
                           timeout=PUSHED * 1000)
    assert page.locator(f"{row} a:has-text('Join')").count() == 0
    assert page.evaluate("() => document.activeElement === window.__focused && document.activeElement.isConnected")
    shot(page, "lobby-push")
    # No polling: the page asked for the list over HTTP at no time (the socket brought every list).
    assert not [u for u in asked if "/api/tables?" in u or u.endswith("/api/tables")], asked
    no_errors(page)
    page.context.close()


@pytest.mark.skipif(CHROMIUM_MISSING, reason=SKIP_REASON)
def test_the_lobby_page_falls_back_to_a_slow_poll_and_reconnects(server: Server, browser: Any) -> None:  # noqa: F811
    """With the socket refused, the page still lists tables (read over HTTP), and once the socket
    is let through again it is back on it."""
    page = new_page(browser, server.base)
    blocked = {"on": True}

    def lobby_socket(ws: Any) -> None:
        if blocked["on"]:
            ws.close(code=1011, reason="blocked by the test")
        else:
            ws.connect_to_server()

    page.route_web_socket("**/ws/lobby", lobby_socket)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/tables?" in r.url else None)
    # The page's timers run on Playwright's clock, moved on by the test: the slow poll (20 s) and the
    # reconnect's backoff are waited for without waiting them out.
    page.clock.install()
    page.goto("/")
    page.wait_for_selector(".lobby-tables")
    page.wait_for_function("() => document.querySelector('.lobby-tables').dataset.live === '0'", timeout=30_000)
    polls = len(asked)  # the one read when the socket was lost
    jo = User(server, "jo")
    table = make_table(jo, "euchre", ["me", "open", "bot:greedy", "bot:greedy"])
    row = f"table.tables tr[data-table='{table['id']}']"
    page.clock.run_for(21_000)  # the slow poll's interval
    page.wait_for_selector(row, timeout=30_000)
    assert len(asked) > polls, "the page did not fall back to reading the list"
    assert page.evaluate("() => document.querySelector('.lobby-tables').dataset.live") != "1"
    blocked["on"] = False
    page.clock.run_for(40_000)  # past the longest backoff (30 s, at most 1.25 times)
    page.wait_for_function("() => document.querySelector('.lobby-tables').dataset.live === '1'", timeout=30_000)
    no_errors(page)
    page.context.close()
