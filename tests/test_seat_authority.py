"""A property of the server, over random sequences of joins, leaves, reconnects, sign-outs and
re-seats by several accounts (a hypothesis state machine against a real ``updown serve``):

    no socket ever receives a seat's private frame, or has an action accepted, after that seat
    stopped being its account's (freed, left, taken by another, or its session signed out).

Before each step that may change who holds a seat, every socket is read until the table is quiet
(the game only moves when people act: UP&DOWN waits for every seat's card), so whatever a socket
receives afterwards was sent after the change.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from sqlalchemy import bindparam, create_engine, text
from websockets.exceptions import ConnectionClosed

from server_util import Client, Server, User

NAMES = ("ann", "ben", "cid")
PASSWORD = "pass-word-1"


@dataclass
class Tracked:
    client: Client
    name: str
    cookie: str
    seat: int | None
    closed: bool = False
    lost_at: int | None = None
    """How many messages the socket had when its seat stopped being its account's."""
    sent: list[str] = field(default_factory=list)
    """Client ids of the actions it sent after that."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("authority")
    # Many sign-ins from one address in a minute: the sign-in limits are the limits tests' business.
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log",
                 extra_args=["--limit", "login_per_address=off", "--limit", "login_per_name=off"]).start()
    for name in (*NAMES, "host"):
        User(srv, name, password=PASSWORD)
    yield srv
    srv.stop()


def test_no_socket_sees_or_acts_for_a_seat_that_is_no_longer_its_accounts(server: Server) -> None:
    counter = iter(range(10**9))
    seen = {"lost": 0, "kept_frames": 0}
    """Over all examples: sockets that lost their seat, and seat frames to sockets that held it
    (so the property is not empty)."""

    class Seats(RuleBasedStateMachine):
        @initialize()
        def table(self) -> None:
            self.http: dict[str, httpx.Client] = {}
            for name in NAMES:
                self.http[name] = self.login(name)
            host = self.login("host")
            r = host.post("/api/tables", json={"game": "updown", "options": {"rounds": 1}, "grace": 600,
                                               "seats": ["open", "open", "bot:random", "bot:random"]})
            assert r.status_code == 200, r.text
            self.id = r.json()["id"]
            self.sockets: list[Tracked] = []

        def login(self, name: str) -> httpx.Client:
            client = httpx.Client(base_url=server.base, timeout=20)
            r = client.post("/api/login", json={"name": name, "password": PASSWORD})
            assert r.status_code == 200, r.text
            return client

        def cookie(self, name: str) -> str:
            return "; ".join(f"{k}={v}" for k, v in self.http[name].cookies.items())

        # -- reading -------------------------------------------------------------------------
        def drain(self, quiet: float = 0.15) -> None:
            """Read every open socket until none has had a message for ``quiet`` seconds."""
            deadline = time.time() + 10
            while time.time() < deadline:
                got = False
                for t in self.sockets:
                    if t.closed:
                        continue
                    try:
                        while t.client.recv(0.0 if got else quiet / len(self.sockets)) is not None:
                            got = True
                    except (ConnectionClosed, OSError):
                        t.closed = True
                if not got:
                    return

        def holders(self) -> dict[str, int]:
            """Each account's seat now (if it holds one it has not left)."""
            info = self.http[NAMES[0]].get(f"/api/tables/{self.id}").json()
            return {s["name"]: s["seat"] for s in info["seats"] if s["kind"] == "person" and not s["left"]}

        def mark_lost(self) -> None:
            holders = self.holders()
            for t in self.sockets:
                if t.seat is None or t.lost_at is not None:
                    continue
                if holders.get(t.name) != t.seat or t.cookie != self.cookie(t.name):
                    t.lost_at = len(t.client.raw)

        def change(self, call: Any) -> None:
            self.drain()
            call()
            self.mark_lost()
            self.drain()

        # -- rules ---------------------------------------------------------------------------
        @rule(who=st.sampled_from(NAMES), seat=st.sampled_from([None, 0, 1]))
        def join(self, who: str, seat: int | None) -> None:
            """Join, and open the table's socket as the page does."""
            answers: list[int] = []
            self.change(lambda: answers.append(self.http[who].post(
                f"/api/tables/{self.id}/join", json={} if seat is None else {"seat": seat}).status_code))
            if answers == [200]:
                self.connect(who)

        @rule(who=st.sampled_from(NAMES))
        def leave(self, who: str) -> None:
            self.change(lambda: self.http[who].post(f"/api/tables/{self.id}/leave"))

        @rule(who=st.sampled_from(NAMES))
        def sign_out_and_in(self, who: str) -> None:
            def go() -> None:
                self.http[who].post("/api/logout")
                self.http[who] = self.login(who)
            self.change(go)

        @rule(who=st.sampled_from(NAMES))
        def connect(self, who: str) -> None:
            if sum(not t.closed for t in self.sockets) >= 6:
                return
            cookie = self.cookie(who)
            client = Client(server, self.id, cookie=cookie)
            self.sockets.append(Tracked(client, who, cookie, client.seat))
            self.drain()

        @rule(pick=st.integers(0, 50))
        def act(self, pick: int) -> None:
            """A socket plays one of the legal actions it was last shown (a lost one tries too)."""
            live = [t for t in self.sockets if not t.closed and t.seat is not None and t.client.legal]
            if not live:
                return
            t = live[pick % len(live)]
            cid = f"a{next(counter)}"
            action = t.client.legal[pick % len(t.client.legal)]["id"]
            if t.lost_at is not None:
                t.sent.append(cid)
            try:
                t.client.send({"type": "act", "id": cid, "action": action})
            except (ConnectionClosed, OSError):
                t.closed = True
            self.drain()

        # -- the property --------------------------------------------------------------------
        @invariant()
        def nothing_after_the_seat_is_gone(self) -> None:
            for t in self.sockets:
                if t.lost_at is None:
                    continue
                after = [json.loads(raw) for raw in t.client.raw[t.lost_at:]]
                private = [m["type"] for m in after if m["type"] in ("snapshot", "frame", "ack")]
                assert private == [], f"{t.name}'s socket for seat {t.seat} got {private} after losing it"

        def teardown(self) -> None:
            for t in self.sockets:
                t.client.close()
                seen["lost"] += t.lost_at is not None
                if t.seat is not None:
                    held = t.client.raw[:t.lost_at] if t.lost_at is not None else t.client.raw
                    seen["kept_frames"] += sum(json.loads(raw)["type"] in ("snapshot", "frame") for raw in held)
            sent = [cid for t in self.sockets for cid in t.sent]
            if sent:
                engine = create_engine(server.db)
                with engine.connect() as conn:
                    stored = conn.execute(text("SELECT client_id FROM steps WHERE client_id IN :ids")
                                          .bindparams(bindparam("ids", expanding=True)), {"ids": sent}).all()
                engine.dispose()
                assert stored == [], f"actions of sockets without a seat were stored: {stored}"
            for client in self.http.values():
                client.close()

    from hypothesis.stateful import run_state_machine_as_test

    run_state_machine_as_test(Seats, settings=settings(max_examples=12, stateful_step_count=14, deadline=None,
                                                       database=None, suppress_health_check=list(HealthCheck),
                                                       derandomize=True))
    print("sockets that lost their seat, frames to holders:", seen)
    assert seen["lost"] >= 3 and seen["kept_frames"] >= 3, seen
