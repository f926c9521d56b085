"""A table socket's open reads the session, the table's seats and status, and its chat in one call to
a worker thread (``Store.socket_open``) when the table is in memory, instead of three in turn (docs/server.md,
"The churn's tail"). What the open decides is still decided against the state now: a seat another
process freed or gave away, a session ended elsewhere; an outage during the read still closes the
socket with 1013 (try again); a chat line stored between the open's read and the socket joining the
table's sockets still reaches it; and the client receives what it did, in the same order.

One server in this process (the FastAPI app through Starlette's test client); "another process"
is a ``Store`` of the test's own on the same database, whose changes this server is not told of.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from updown.server.app import create_app
from updown.server.db import make_engine
from updown.server.deps import COOKIE
from updown.server.hub import CHAT_HISTORY, Hub
from updown.server.settings import Settings
from updown.server.store import Store
from test_action_reads import people_at_a_table
from test_server import db  # noqa: F401  (the fixture: SQLite, then PostgreSQL)

PEOPLE = ("ann", "bob", "cid")


class Site:
    """The server, three people (ann created an open table of four and holds seat 0, bob joined seat
    1), and the other process's store."""

    def __init__(self, db: str):
        self.app = create_app(Settings(db=db, bot_delay=0, bot_workers=0))
        self.hub: Hub = self.app.state.hub
        self.store: Store = self.app.state.store
        self.client = TestClient(self.app)
        self.client.__enter__()
        self.elsewhere = Store(make_engine(db))
        self.sessions, self.table = people_at_a_table(self.client, PEOPLE, ("bob",))

    def as_(self, name: str | None) -> None:
        self.client.cookies.clear()
        if name is not None:
            self.client.cookies.set(COOKIE, self.sessions[name][0])

    def id_of(self, name: str) -> int:
        return self.sessions[name][1]

    def open(self, name: str | None) -> Any:
        self.as_(name)
        return self.client.websocket_connect(f"/ws/tables/{self.table}")

    def close(self) -> None:
        self.client.__exit__(None, None, None)
        self.elsewhere.engine.dispose()


@pytest.fixture
def site(db: str) -> Iterator[Site]:
    """The site on SQLite, then on a fresh PostgreSQL database (``db``: test_server's fixture)."""
    s = Site(db)
    try:
        yield s
    finally:
        s.close()


def _start(ws: Any) -> list[dict[str, Any]]:
    """The messages a socket gets at its open, up to and with the chat history."""
    got: list[dict[str, Any]] = []
    while not got or got[-1]["type"] != "chat":
        got.append(ws.receive_json())
    return got


def _counting(site: Site, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the calls of the store's reads an open may make."""
    calls: dict[str, int] = {}
    for name in ("socket_open", "session_account", "table", "chat"):
        real: Callable[..., Any] = getattr(site.store, name)

        def counted(*args: Any, _real: Callable[..., Any] = real, _name: str = name) -> Any:
            calls[_name] = calls.get(_name, 0) + 1
            return _real(*args)

        monkeypatch.setattr(site.store, name, counted)
    return calls


def test_an_open_of_a_table_in_memory_reads_in_one_call_and_sends_what_it_did(
        site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    with site.open("ann") as ann:  # (the table is loaded for ann's socket: the reads of a load)
        first = _start(ann)
        assert site.table in site.hub.lives
        calls = _counting(site, monkeypatch)
        with site.open("bob") as bob:
            got = _start(bob)
        assert calls == {"socket_open": 1}, calls
    # What the client receives, in order: hello (its seat, its name), the frame, the table, the chat.
    assert [m["type"] for m in got] == ["hello", "snapshot", "table", "chat"]
    assert got[0]["seat"] == 1 and got[0]["you"] == "bob"
    assert [m["type"] for m in first] == ["hello", "snapshot", "table", "chat"] and first[0]["seat"] == 0
    assert [s["name"] for s in got[2]["table"]["seats"]][:2] == ["ann", "bob"]


def test_a_seat_freed_or_taken_elsewhere_is_judged_by_the_open_s_read(site: Site) -> None:
    with site.open("ann") as ann:  # keeps the table in memory
        _start(ann)
        with site.open("bob") as bob:
            assert _start(bob)[0]["seat"] == 1
        # Another process frees bob's seat and cid takes seat 2; this server's copy still has bob on 1.
        assert site.elsewhere.free_seat(site.table, 1, site.id_of("bob"))
        assert site.elsewhere.take_seat(site.table, 2, site.id_of("cid"), "cid") is None
        live = site.hub.lives[site.table]
        assert live.seats[1].held_by(site.id_of("bob")) and not live.seats[2].held_by(site.id_of("cid"))
        with site.open("bob") as bob:
            got = _start(bob)
        assert got[0]["seat"] is None and got[0]["you"] == "bob"  # watches: the seat is no longer his
        assert got[2]["table"]["seats"][1]["kind"] == "open"
        with site.open("cid") as cid:
            got = _start(cid)
        assert got[0]["seat"] == 2  # plays the seat taken elsewhere at once
        assert not live.seats[1].held_by(site.id_of("bob")) and live.seats[2].held_by(site.id_of("cid"))


def test_a_session_ended_elsewhere_opens_as_nobody(site: Site) -> None:
    with site.open("ann") as ann:
        _start(ann)
        site.elsewhere.end_session(site.sessions["bob"][0])
        with site.open("bob") as bob:
            got = _start(bob)
        assert got[0]["seat"] is None and got[0]["you"] is None


def test_an_outage_during_the_open_s_read_closes_with_try_again(site: Site,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    with site.open("ann") as ann:
        _start(ann)

        def away(*_args: Any) -> Any:
            raise OperationalError("SELECT 1", {}, Exception("the database cannot be reached"))

        told: list[str] = []
        failed = site.hub.health.failed

        def noted(service: str, err: BaseException) -> None:
            told.append(service)
            failed(service, err)

        monkeypatch.setattr(site.store, "socket_open", away)
        monkeypatch.setattr(site.hub.health, "failed", noted)
        with pytest.raises(WebSocketDisconnect) as closed:
            with site.open("bob") as bob:
                bob.receive_json()
        assert closed.value.code == 1013
        assert told == ["database"]  # the health told (its watch loop may have found it back since)
        monkeypatch.undo()
        with site.open("bob") as bob:  # the read answers again: the socket opens (the service's state first)
            hello = bob.receive_json()
        assert hello["type"] == "hello" and hello["seat"] == 1


def test_a_chat_line_stored_between_the_open_s_read_and_the_socket_joining_reaches_it(
        site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    with site.open("ann") as ann:
        _start(ann)
        ann.send_json({"type": "chat", "id": "c1", "text": "first"})
        while ann.receive_json().get("id") != "c1":
            pass
        real = site.store.socket_open

        def read_then_a_line(*args: Any) -> Any:
            got = real(*args)  # the open's read, then ann says a line before bob's socket is ready
            live = site.hub.lives[site.table]
            portal = site.client.portal
            assert portal is not None
            portal.call(site.hub.chat, live, site.id_of("ann"), 0, "second", None)
            return got

        monkeypatch.setattr(site.store, "socket_open", read_then_a_line)
        with site.open("bob") as bob:
            got = _start(bob)
            history = got[-1]
            assert history["history"] is True
            assert [line["text"] for line in history["lines"]] == ["first", "second"]
        monkeypatch.undo()
        with site.open("bob") as bob:  # without a line meanwhile the open's own read is the history
            assert [line["text"] for line in _start(bob)[-1]["lines"]] == ["first", "second"]


def test_the_open_s_chat_is_the_last_lines_oldest_first(site: Site) -> None:
    for i in range(CHAT_HISTORY + 2):
        site.elsewhere.add_chat(site.table, 0, site.id_of("ann"), 0, f"line {i}", None)
    with site.open("ann") as ann:  # loads the table
        _start(ann)
        with site.open("bob") as bob:  # in memory: the one read
            history = _start(bob)[-1]
    assert history["more"] is True
    assert [line["text"] for line in history["lines"]] == [f"line {i}" for i in range(2, CHAT_HISTORY + 2)]

