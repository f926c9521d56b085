"""An action on a server of several processes (issue 35) is checked and judged against the stored
state without reading it first.

Before, with Redis every action read the table's seats and the session before its transaction,
which checks both again. Now an action goes straight to that transaction, as with one process; what
the reads also gave, a table brought up to date with what the other processes stored, comes from
the transaction itself: a step number another process took first is a conflict, after which the
table catches up and the action is judged again; a refusal judged on this process's copy is judged
again after catching up. These tests run one server in this process (the FastAPI app through
Starlette's test client) that believes it shares its tables (``Hub.multi``) but hears no notes at
all: every step "another process" stores (written here through a ``Store`` of its own, as that
process would) is one whose note was withheld. Deterministic: nothing waits for a note.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, select
from sqlalchemy.orm import Session as DbSession
from starlette.testclient import TestClient, WebSocketTestSession

from updown.core.protocol import State
from updown.core.registry import get_game
from updown.server.app import create_app
from updown.server.db import make_engine, upgrade
from updown.server.deps import COOKIE
from updown.server.hub import Hub
from updown.server.models import Seat, Step, Table
from updown.server.settings import Settings
from updown.server.store import Actor, Conflict, Store, StepRow, token_hash
from test_server import db  # noqa: F401  (the fixture: SQLite, then PostgreSQL)

PEOPLE = ("ann", "bob", "cid", "dan")


def people_at_a_table(client: TestClient, people: tuple[str, ...], joining: tuple[str, ...]
                      ) -> tuple[dict[str, tuple[str, int]], str]:
    """``people`` registered (name -> (session cookie, account id)); the first creates an open
    UP&DOWN table of four (one round) and takes seat 0, then ``joining`` join it in turn."""
    sessions: dict[str, tuple[str, int]] = {}
    for name in people:
        client.cookies.clear()
        r = client.post("/api/register", json={"name": name, "password": "pass-word-1"})
        assert r.status_code == 200, r.text
        sessions[name] = (r.cookies[COOKIE], r.json()["id"])

    def as_(name: str) -> None:
        client.cookies.clear()
        client.cookies.set(COOKIE, sessions[name][0])

    as_(people[0])
    r = client.post("/api/tables", json={"game": "updown", "seats": ["me", "open", "open", "open"],
                                         "options": {"rounds": 1}, "grace": 3600})
    assert r.status_code == 200, r.text
    table = str(r.json()["id"])
    for name in joining:
        as_(name)
        r = client.post(f"/api/tables/{table}/join", json={})
        assert r.status_code == 200, r.text
    return sessions, table


class Site:
    """One server in this process that takes itself for one of several (its notes go nowhere and
    none come), the table's four people (ann's socket on it), and the other process's store."""

    def __init__(self, db: str):
        self.db = db
        self.app = create_app(Settings(db=self.db, bot_delay=0, bot_workers=0))
        self.hub: Hub = self.app.state.hub
        self.hub.multi = True  # as with --redis: its tables may be changed by other processes
        self.client = TestClient(self.app)
        self.client.__enter__()
        self.elsewhere = Store(make_engine(self.db))
        """The other process: it stores steps this one is not told of."""
        self.sessions, self.table = people_at_a_table(self.client, PEOPLE, PEOPLE[1:])
        self.as_("ann")
        self.game = get_game("updown")
        self.options = self.game.Options.from_dict({"rounds": 1})

    def as_(self, name: str) -> None:
        self.client.cookies.clear()
        self.client.cookies.set(COOKIE, self.sessions[name][0])

    def close(self) -> None:
        self.client.__exit__(None, None, None)
        self.elsewhere.engine.dispose()

    def stored(self) -> tuple[State, int]:
        """The table's state from its stored steps, and their count."""
        state = self.game.new_state(4, self.options)
        rows = self.elsewhere.steps(self.table)
        for row in rows:
            state.apply(self.game.parse_action(row.notation), row.seat)
        return state, len(rows)

    def wait_stored(self, done: Callable[[State], bool], timeout: float = 60.0) -> State:
        deadline = time.time() + timeout
        while True:
            state, _n = self.stored()
            if done(state):
                return state
            assert time.time() < deadline, "the server did not store what was expected"
            time.sleep(0.05)

    def play_elsewhere(self, stop: Callable[[State], bool], first: int | None = None) -> int:
        """The other process stores steps (each seat's first legal action; chance drawn at random),
        ``first`` as the next action of the seat to act if given, until ``stop``. Returns how many."""
        rng = random.Random(7)
        stored = 0
        while True:
            state, n = self.stored()
            if stop(state) or state.is_terminal():
                return stored
            if state.is_chance():
                row = StepRow(n + 1, None, state.chance_label(), self.game.action_to_str(state.sample_chance(rng)),
                              None, "chance", time.time())
                actor = None
            else:
                seat = state.actors()[0]
                action = first if first is not None and not stored else state.legal_actions(seat)[0]
                row = StepRow(n + 1, seat, None, self.game.action_to_str(action), f"other-{n + 1}", "player",
                              time.time())
                token, account = self.sessions[PEOPLE[seat]]
                actor = Actor(token_hash(token), account, seat)
            try:
                self.elsewhere.commit(self.table, [row], None, actor)
                stored += 1
            except Conflict:
                continue  # the server stored this number first (a deal): read again

    def note(self) -> None:
        """The note of the other process's steps arrives (as the Redis listener hands it over)."""
        self.client.portal.call(self.hub.changed_elsewhere, self.table)  # type: ignore[union-attr]

    def in_memory(self) -> int:
        return len(self.hub.lives[self.table].steps)


@pytest.fixture
def site(db: str) -> Iterator[Site]:
    """The site on SQLite, then on a fresh PostgreSQL database (``db``: test_server's fixture)."""
    s = Site(db)
    try:
        yield s
    finally:
        s.close()


class Tab:
    """Ann's socket, once the server is done with its connection's start (see :func:`_socket`);
    what it sent meanwhile is read first."""

    def __init__(self, ws: WebSocketTestSession, early: list[dict[str, Any]]):
        self.ws = ws
        self.early = early

    def receive_json(self) -> dict[str, Any]:
        if self.early:
            return self.early.pop(0)
        message: dict[str, Any] = self.ws.receive_json()
        return message

    def send_json(self, message: dict[str, Any]) -> None:
        self.ws.send_json(message)


@contextmanager
def _socket(site: Site) -> Iterator[Tab]:
    with site.client.websocket_connect(f"/ws/tables/{site.table}") as ws:
        hello = ws.receive_json()
        assert hello["type"] == "hello" and hello["seat"] == 0
        # The server goes on after its hello: the first frame, then the table's change announced and
        # its driver kicked (which reads the stored steps). The socket answers a ping only once that
        # is done; before, a quiet could miss the driver that kick starts, which would then read the
        # steps the test stores "elsewhere" (the table not behind: it failed so in a CI run).
        ws.send_json({"type": "ping", "id": "settled"})
        early: list[dict[str, Any]] = []
        for _ in range(500):
            msg: dict[str, Any] = ws.receive_json()
            if msg["type"] == "pong" and msg.get("id") == "settled":
                break
            early.append(msg)
        else:
            raise AssertionError("no pong in 500 messages")
        yield Tab(ws, early)


def _until(ws: Tab, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for _ in range(500):
        msg: dict[str, Any] = ws.receive_json()
        if done(msg):
            return msg
    raise AssertionError("no such message in 500")


def _answer(ws: Tab, cid: str) -> dict[str, Any]:
    return _until(ws, lambda m: m.get("id") == cid and m["type"] in ("ack", "error"))


def _within(tab: Tab, done: Callable[[dict[str, Any]], bool], seconds: float = 20.0) -> dict[str, Any] | None:
    """The first message for which ``done`` holds, or None if none came within ``seconds`` (the
    test client's receive has no timeout: its stream is read here with one)."""
    import anyio

    while tab.early:
        msg = tab.early.pop(0)
        if done(msg):
            return msg
    ws = tab.ws

    async def receive() -> dict[str, Any] | None:
        with anyio.move_on_after(seconds):
            while True:
                message = await ws._send_rx.receive()  # (what WebSocketTestSession.receive awaits)
                msg: dict[str, Any] = json.loads(message["text"])
                if done(msg):
                    return msg
        return None

    return ws.portal.call(receive)  # type: ignore[arg-type]


def _shows(state: State, seat: int) -> Callable[[dict[str, Any]], bool]:
    """A snapshot or frame whose view (its log aside) is ``state``'s for ``seat``."""
    want = {k: v for k, v in state.view(seat).items() if k != "log"}
    return lambda m: m["type"] in ("snapshot", "frame") and {k: v for k, v in m["view"].items() if k != "log"} == want


def _ann_to_act(state: State) -> bool:
    return not state.is_chance() and 0 in state.actors()


def test_a_table_behind_the_database_is_judged_against_the_stored_steps(site: Site) -> None:
    """Steps stored by another process whose note never came: an action this process's copy would
    accept is refused as the stored state refuses it, and one it would refuse is accepted and stored
    after them. Without the catch-up (after the transaction's conflict, and before a refusal) the
    first would be stored on a stale position or refused busy, the second refused."""
    site.wait_stored(lambda s: not s.is_chance())  # the server dealt (it drives the table)
    with _socket(site) as ws:
        # Ann's turn, in the database and (once the note of the steps before comes) in this process.
        site.play_elsewhere(_ann_to_act)
        site.note()
        turn, _n = site.stored()
        # (Her page's frame of that turn, not an earlier one that showed her an earlier turn.)
        frame = _until(ws, lambda m: _shows(turn, 0)(m) and bool(m["legal"]))
        # The note woke the driver, which reads the steps first: stopped before the other process
        # plays on, or it could read some of them and spare the action its own catch-up.
        _quiet(site)
        # Ann plays a card in another tab, on the other process, and play goes on there past her turn.
        mine = frame["legal"][0]["id"]
        played = site.play_elsewhere(lambda s: not s.is_chance() and 0 not in s.actors(), first=mine)
        before, n = site.stored()
        assert site.in_memory() < n, f"not behind: {played} steps stored elsewhere, {n} in all, " \
                                     f"{site.in_memory()} here"
        # This tab, behind, still shows her turn and plays another card: refused as the stored state says.
        other = frame["legal"][-1]["id"]
        ws.send_json({"type": "act", "id": "stale", "action": other})
        heard: list[dict[str, Any]] = []
        answer = _until(ws, lambda m: heard.append(m) is None and m.get("id") == "stale" and m["type"] == "error")
        assert answer["type"] == "error" and answer["code"] in ("not-your-turn", "illegal"), answer
        after, n_after = site.stored()
        assert n_after == n and after.view(None) == before.view(None)  # nothing stored
        assert site.in_memory() == n  # caught up
        # ... and her page is sent what it caught up, with no note and no other step to bring it
        # (before, the steps a refused action's catch-up read waited for the next step's broadcast:
        # if the turn they gave was hers, for ever).
        assert any(_shows(before, 0)(m) for m in heard) or _within(ws, _shows(before, 0)) is not None, \
            "the steps the catch-up read were not sent"
        _quiet(site)

        # The other process plays on to Ann's turn again; this one hears nothing and thinks another seat
        # must act. Ann (in the database's turn) plays: accepted, stored after those steps.
        assert site.play_elsewhere(_ann_to_act) >= 1
        state, n = site.stored()
        assert _ann_to_act(state) and site.in_memory() < n
        card = state.legal_actions(0)[0]
        ws.send_json({"type": "act", "id": "fresh", "action": card})
        assert _answer(ws, "fresh")["type"] == "ack"
        with DbSession(site.elsewhere.engine) as s:
            row = s.execute(select(Step.n, Step.seat, Step.notation).where(Step.table_id == site.table,
                                                                          Step.client_id == "fresh")).one()
        assert tuple(row) == (n + 1, 0, site.game.action_to_str(card))
        # Her page then shows every step, the other process's too: her view is the stored state's.
        final, _n = site.stored()
        view = _until(ws, lambda m: m["type"] in ("snapshot", "frame") and m["n"] >= 1 and
                      {k: v for k, v in m["view"].items() if k != "log"} ==
                      {k: v for k, v in final.view(0).items() if k != "log"})
        assert view is not None


def test_steps_whose_note_never_came_are_caught_up_by_the_re_read(site: Site) -> None:
    """The net under lost notes: Redis delivers a note at most once, to whoever listens then. Steps
    another process stored whose note never came, that gave the turn to the person here, are read
    at the next whole re-read and sent to her page; without it the table would wait for ever (she
    never sees her turn, so she never acts, so nobody publishes again)."""
    site.wait_stored(lambda s: not s.is_chance())
    with _socket(site) as ws:
        site.play_elsewhere(_ann_to_act)
        site.note()
        _until(ws, lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]))
        _quiet(site)  # no driver, clock or watch loop reads the table from here on
        # She plays; play goes on elsewhere until her turn comes again, with no note.
        assert site.play_elsewhere(lambda s: not s.is_chance() and 0 not in s.actors()) >= 1
        assert site.play_elsewhere(_ann_to_act) >= 1
        state, n = site.stored()
        assert site.in_memory() < n
        assert _within(ws, lambda m: m["type"] in ("snapshot", "frame"), 1.0) is None  # nothing came
        held = [site.table]
        site.client.portal.call(site.hub._reread_whole, held)  # type: ignore[union-attr]
        assert site.in_memory() == n
        assert _within(ws, _shows(state, 0)) is not None, "her turn never reached her page"


@contextmanager
def _statements(engine: Any) -> Iterator[list[tuple[str, str]]]:
    seen: list[tuple[str, str]] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        seen.append((threading.current_thread().name, " ".join(statement.split())))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def test_an_action_reads_nothing_before_its_transaction_with_several_processes(site: Site) -> None:
    """From the action's frame to its ack, the only statements are those of the transaction that
    stores the step (in the store's writer thread): no read of the table, its seats or the session
    before it, as there was for every action with Redis."""
    site.wait_stored(lambda s: not s.is_chance())
    with _socket(site) as ws:
        site.play_elsewhere(_ann_to_act)
        site.note()
        frame = _until(ws, lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]))
        # The clock, watch and lease loops, and the driver the note woke (it reads first): their
        # statements are not the action's. Ended, not only asked to end.
        _quiet(site)
        store: Store = site.app.state.store
        with _statements(store.engine) as seen:
            ws.send_json({"type": "act", "id": "quick", "action": frame["legal"][0]["id"]})
            assert _answer(ws, "quick")["type"] == "ack"
            acted = list(seen)
        assert acted, "no statement at all: the step was not stored"
        assert all(thread.startswith("updown-writer") for thread, _sql in acted), acted
        reads = [sql for _thread, sql in acted if sql.upper().startswith("SELECT")]
        assert not any(" FROM tables" in sql for sql in reads), reads
        assert any(sql.upper().startswith("INSERT INTO STEPS") for _t, sql in acted), acted
        with DbSession(site.elsewhere.engine) as s:
            assert s.scalar(select(Step.n).where(Step.table_id == site.table, Step.client_id == "quick")) is not None


async def _cancel(task: Any) -> None:
    task.cancel()


def test_an_away_stored_elsewhere_is_cleared_by_the_persons_action(tmp_path: Path) -> None:
    """The process that drives a table marks a seat away (its time ran out); the person acts through
    another process that has not heard of it: the step's transaction sets the seat back, so that the
    stand-in does not go on playing for someone who is here."""
    engine = make_engine(f"sqlite:///{tmp_path / 'updown.db'}")
    upgrade(engine)
    store = Store(engine)
    ann = store.create_account("ann", "person", None)
    assert ann is not None
    store.create_table(
        Table(id="t1", game="updown", players=2, options="{}", seed="s", timer=10.0, grace=60.0, rated=False,
              private=False, status="running", created_by=ann, created_at=time.time()),
        [Seat(table_id="t1", seat=0, kind="person", account_id=ann, name="ann"),
         Seat(table_id="t1", seat=1, kind="bot", bot="random", name="bot")])
    token = store.new_session(ann)
    store.set_seat("t1", 0, away=True, away_since=time.time())
    store.commit("t1", [StepRow(1, 0, None, "x", "a1", "player", time.time())], None, Actor(token_hash(token), ann, 0))
    found = store.table("t1")
    assert found is not None
    assert (found[1][0].away, found[1][0].away_since) == (False, None)
    # A bot's or chance's step (no actor) leaves an away seat away.
    store.set_seat("t1", 0, away=True, away_since=123.0)
    store.commit("t1", [StepRow(2, 1, None, "y", None, "bot", time.time())], None)
    found = store.table("t1")
    assert found is not None and found[1][0].away and found[1][0].away_since == 123.0
    engine.dispose()


def _stop_after(k: int) -> Callable[[State], bool]:
    """A ``play_elsewhere`` stop: after ``k`` steps (it is asked once before each step)."""
    asked = iter(range(k + 1))
    return lambda _state: next(asked) >= k


def _quiet(site: Site) -> None:
    """No statement but the test's: the hub's loops cancelled and the table's driver stopped."""
    for task in site.hub.tasks:  # the clock, watch and lease loops
        site.client.portal.call(_cancel, task)  # type: ignore[union-attr]
    live = site.hub.lives[site.table]
    deadline = time.time() + 60
    while not all(task.done() for task in site.hub.tasks):  # a cancel is a request: wait till they end
        assert time.time() < deadline, "the hub's loops did not end"
        time.sleep(0.02)
    while live.driver is not None and not live.driver.done():
        assert time.time() < deadline, "the driving loop did not stop"
        time.sleep(0.02)
    # A cancelled task that was awaiting asyncio.to_thread ends at once, but its thread runs the
    # read to its end: the loop gets a fresh default executor, and the old one's work is waited for.
    old = site.client.portal.call(_fresh_executor)  # type: ignore[union-attr]
    if old is not None:
        old.shutdown(wait=True)


async def _fresh_executor() -> Executor | None:
    loop = asyncio.get_running_loop()
    old: Executor | None = getattr(loop, "_default_executor", None)  # (asyncio keeps it there; no public getter)
    loop.set_default_executor(ThreadPoolExecutor(thread_name_prefix="asyncio"))
    return old


def _heard(site: Site, rows: list[StepRow]) -> None:
    """The other process's note arrives with the steps it stored (as the Redis listener hands it over)."""
    site.client.portal.call(site.hub.stepped_elsewhere, site.table, rows)  # type: ignore[union-attr]


def test_steps_that_ride_in_a_note_are_applied_without_reading_the_database(site: Site) -> None:
    """The other process's note carries the steps it stored: this process applies them and sends
    its sockets their frames with no statement at all. A note that does not follow on from what it
    has (one lost or overtaken before it) is not trusted to fill the gap: the table is read."""
    site.wait_stored(lambda s: not s.is_chance())
    with _socket(site) as ws:
        _until(ws, lambda m: m["type"] in ("snapshot", "frame"))
        _quiet(site)
        store: Store = site.app.state.store
        have = site.in_memory()
        assert site.play_elsewhere(_stop_after(3)) == 3
        rows = site.elsewhere.steps(site.table, have)
        with _statements(store.engine) as seen:
            _heard(site, rows)
            acted = list(seen)
        assert acted == []
        stored, n = site.stored()
        live = site.hub.lives[site.table]
        assert site.in_memory() == n == have + 3 and live.state.view(None) == stored.view(None)
        frame = _until(ws, lambda m: m["type"] in ("snapshot", "frame") and m["n"] >= 1 and
                       {k: v for k, v in m["view"].items() if k != "log"} ==
                       {k: v for k, v in stored.view(0).items() if k != "log"})
        assert frame["type"] == "frame"

        # Two more steps, but the note of the first of them is lost: the second's note has a gap.
        assert site.play_elsewhere(_stop_after(2)) == 2
        rows = site.elsewhere.steps(site.table, n)
        with _statements(store.engine) as seen:
            _heard(site, rows[1:])
            acted = list(seen)
        assert any(sql.upper().startswith("SELECT") and " FROM steps" in sql for _t, sql in acted), acted
        stored, n = site.stored()
        assert site.in_memory() == n and live.state.view(None) == stored.view(None)
        _quiet(site)  # (the read woke the driver, which reads too)
        # The same note again (Redis said it twice, or a catch-up read its steps first): nothing changes.
        with _statements(store.engine) as seen:
            _heard(site, rows)
            assert list(seen) == []
        assert site.in_memory() == n


def test_a_persons_step_in_a_note_for_a_seat_marked_away_here_reads_the_seat(site: Site) -> None:
    """This process (which drives the table) marked Ann away; she plays through the other process,
    whose transaction sets her seat back. The note's step alone would leave her away here, and a
    stand-in would play her next turn: a person's step for a seat held away is taken from the
    database, seats and all."""
    site.wait_stored(lambda s: not s.is_chance())
    _quiet(site)
    site.play_elsewhere(_ann_to_act)
    site.note()
    _quiet(site)  # (the note woke the driver, which reads too)
    live = site.hub.lives[site.table]
    assert _ann_to_act(live.state)
    site.elsewhere.set_seat(site.table, 0, away=True, away_since=time.time())
    live.seats[0].away = True
    have = site.in_memory()
    assert site.play_elsewhere(_stop_after(1)) == 1
    rows = site.elsewhere.steps(site.table, have)
    assert [(r.seat, r.by) for r in rows] == [(0, "player")]
    _heard(site, rows)
    assert site.in_memory() == have + 1
    assert live.seats[0].away is False


def test_a_notes_steps_are_taken_only_as_a_process_sends_them() -> None:
    """The listener reads the steps of a note as ``publish`` wrote them; anything else in their place
    (a missing field, a wrong type) gives no steps, so the table is read instead."""
    from updown.server.hub import _step_rows

    rows = [StepRow(4, None, "deal", "7S", None, "chance", 10.5), StepRow(5, 2, None, "flip", "c1", "player", 11.0)]
    sent = json.loads(json.dumps([[r.n, r.seat, r.label, r.notation, r.client_id, r.by, r.at] for r in rows]))
    assert _step_rows(sent) == rows
    for bad in (None, "x", [[4, None, "deal", "7S", None, "chance"]], [[4.5, None, "deal", "7S", None, "chance", 1.0]],
                [[4, "2", None, "flip", None, "player", 1.0]], [[4, None, None, 7, None, "chance", 1.0]],
                [rows and [5, 2, None, "flip", "c1", "player", 11.0], "junk"]):
        assert _step_rows(bad) == [], bad
