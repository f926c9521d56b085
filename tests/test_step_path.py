"""The faster step path (issue 35) keeps every guarantee of the slow one.

A person's action is no longer preceded by a read of its session: the session and the seat are
checked in the transaction that stores the step (``store.Actor``). These tests show that the check
refuses, stores nothing and closes the socket, whatever way the session or the seat went (signed
out, account disabled, seat handed to a bot) even when the server process has not heard of it
yet, and that on SQLite's grouped commits one refused action leaves the others of its transaction
stored and acknowledged.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.orm import Session as DbSession
from websockets.exceptions import ConnectionClosed

from server_util import Client, Server, User, db_rows, make_table
from updown.server.db import make_engine, upgrade
from updown.server.models import Seat, Session, Step, Table
from updown.server.store import Actor, Store, StepRow, Unheld, token_hash

from test_server import fresh_pg_db

PG = os.environ.get("UPDOWN_TEST_POSTGRES")


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    not PG, reason='no PostgreSQL: UPDOWN_TEST_POSTGRES not set (start it with eval "$(.ci/services start)")'))])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'updown.db'}" if request.param == "sqlite" else fresh_pg_db()


def execute(db: str, statement: str, **params: Any) -> None:
    engine = create_engine(db)
    with engine.begin() as conn:
        conn.execute(text(statement), params)
    engine.dispose()


# -- the store: the check is part of the transaction ------------------------------------------------
def _table(store: Store, table_id: str, account_id: int) -> None:
    store.create_table(
        Table(id=table_id, game="updown", players=2, options="{}", seed="s", timer=None, grace=60.0, rated=False,
              private=False, status="running", created_by=account_id, created_at=time.time()),
        [Seat(table_id=table_id, seat=0, kind="person", account_id=account_id, name="ann"),
         Seat(table_id=table_id, seat=1, kind="bot", bot="random", name="bot")])


def test_store_checks_the_actor_in_the_transaction_that_stores_its_step(db: str) -> None:
    engine = make_engine(db)
    upgrade(engine)
    store = Store(engine)
    ann = store.create_account("ann", "person", None)
    ben = store.create_account("ben", "person", None)
    assert ann is not None and ben is not None
    for table_id, owner in (("t-ann", ann), ("t-ben", ben)):
        _table(store, table_id, owner)
    ann_token, ben_token = store.new_session(ann), store.new_session(ben)
    ann_actor = Actor(token_hash(ann_token), ann, 0)

    def row(n: int, cid: str) -> StepRow:
        return StepRow(n, 0, None, "QH", cid, "player", time.time())

    store.commit("t-ann", [row(1, "a1")], None, ann_actor)  # valid: stored
    with pytest.raises(Unheld) as refused:
        store.commit("t-ann", [row(2, "a2")], None, Actor(token_hash(ann_token), ann, 1))  # not her seat
    assert not refused.value.signed_out
    with pytest.raises(Unheld):
        store.commit("t-ann", [row(2, "a2")], None, Actor(token_hash(ben_token), ann, 0))  # not her session
    with pytest.raises(Unheld):
        store.commit("t-ben", [row(1, "b1")], None, ann_actor)  # ann holds no seat at ben's table

    async def grouped() -> list[BaseException | None]:
        # Two tables' steps in one grouped transaction (SQLite's writer; concurrent ones on
        # PostgreSQL): ann has signed out, ben has not. Ben's step is stored, ann's is not.
        store.end_session(ann_token)
        results = await asyncio.gather(
            store.commit_async("t-ann", [row(2, "a2")], None, ann_actor),
            store.commit_async("t-ben", [row(1, "b1")], None, Actor(token_hash(ben_token), ben, 0)),
            return_exceptions=True)
        return list(results)

    ann_result, ben_result = asyncio.run(grouped())
    assert isinstance(ann_result, Unheld) and ann_result.signed_out
    assert ben_result is None
    with DbSession(engine) as s, s.begin():
        stored = sorted((r.table_id, r.n, r.client_id) for r in s.scalars(select(Step)))
        assert stored == [("t-ann", 1, "a1"), ("t-ben", 1, "b1")]
        # A disabled account's valid session is refused too.
        s.execute(text("UPDATE accounts SET disabled = :yes WHERE id = :id"), {"yes": True, "id": ben})
        assert s.get(Session, token_hash(ben_token)) is not None
    with pytest.raises(Unheld) as refused:
        store.commit("t-ben", [row(2, "b2")], None, Actor(token_hash(ben_token), ben, 0))
    assert refused.value.signed_out
    # Bots and chance (no actor) are not checked.
    store.commit("t-ben", [StepRow(2, 1, None, "QS", None, "bot", time.time())], None)

    async def one_after_another() -> None:
        # Each commit waits for the one before; the next must find a writer (a writer that has just
        # finished its last batch must not be taken for a running one: nothing would write again).
        for n in range(3, 8):
            await asyncio.wait_for(store.commit_async("t-ben", [StepRow(n, 1, None, "QS", None, "bot", time.time())],
                                                      None), 30)

    asyncio.run(one_after_another())
    assert [r.n for r in store.steps("t-ben")] == list(range(1, 8))
    engine.dispose()


# -- the server: refused, nothing stored, the socket closed -------------------------------------
def _refused(client: Client, cid: str, timeout: float = 10.0) -> bool:
    """Read until the socket closes; True unless it acknowledged ``cid``. An error for ``cid`` must
    be ``not-your-seat`` (the server's re-read every 2 s may instead close the socket first)."""
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            msg = client.recv(0.2)
            if msg and msg["type"] == "ack" and msg["id"] == cid:
                return False
            if msg and msg["type"] == "error" and msg.get("id") == cid:
                assert msg["code"] == "not-your-seat", msg
    except ConnectionClosed:
        return True
    raise AssertionError("the socket stayed open")


def _wait_legal(*clients: Client) -> None:
    deadline = time.time() + 30
    while time.time() < deadline:
        for c in clients:
            if not c.legal:
                c.recv(0.05)
        if all(c.legal for c in clients):
            return
    raise TimeoutError("not everyone had to act")


def test_one_heartbeat_stores_every_connected_seat_of_every_table_and_no_other(db: str) -> None:
    """The heartbeat's one transaction (``seen_many``): one update run for each pair given."""
    engine = make_engine(db)
    upgrade(engine)
    store = Store(engine)
    ann = store.create_account("ann", "person", None)
    tables = [f"t{i}" for i in range(7)]
    for t in tables:
        _table(store, t, ann)
    here = [(t, 0) for t in tables[:5]] + [("t6", 1)]
    store.seen_many(here, 1234.5)
    store.seen_many([], 99.0)
    with DbSession(engine) as s:
        seen = {(r.table_id, r.seat): r.seen_at for r in s.execute(select(Seat)).scalars()}
    engine.dispose()
    assert seen == {(t, k): (1234.5 if (t, k) in here else None) for t in tables for k in (0, 1)}


def test_an_action_after_the_session_or_seat_went_elsewhere_is_never_stored(db: str, tmp_path: Path) -> None:
    """Changes made in the database by someone else (another process, ``updown admin``), before this
    process has read them: the action that follows is refused by the transaction that would store it."""
    server = Server(db, log=tmp_path / "server.log").start()
    try:
        users = {name: User(server, name) for name in ("ann", "ben", "cid")}
        tables = {name: make_table(user, "updown", ["me", "bot:random", "bot:random", "bot:random"])["id"]
                  for name, user in users.items()}
        clients = {name: user.socket(tables[name]) for name, user in users.items()}
        _wait_legal(*clients.values())
        ann_account, ben_account = (db_rows(db, "SELECT id FROM accounts WHERE name = :n", n=n)[0][0]
                                    for n in ("ann", "ben"))
        # ann's session ends, ben's account is disabled, cid's seat is handed to a bot.
        execute(db, "DELETE FROM sessions WHERE account_id = :a", a=ann_account)
        execute(db, "UPDATE accounts SET disabled = :yes WHERE id = :a", yes=True, a=ben_account)
        execute(db, "UPDATE seats SET kind = 'bot', bot = 'random', account_id = NULL "
                    "WHERE table_id = :t AND seat = 0", t=tables["cid"])
        closed = set()
        for name, client in clients.items():
            try:
                client.send({"type": "act", "id": f"late-{name}", "action": client.legal[0]["id"]})
            except ConnectionClosed as err:  # the server's re-read came first (under load): closed, unseated
                assert err.rcvd is not None and err.rcvd.code == 4001, err
                closed.add(name)
        for name, client in clients.items():
            if name not in closed:
                assert _refused(client, f"late-{name}"), name
        assert db_rows(db, "SELECT client_id FROM steps WHERE client_id LIKE 'late-%'") == []
    finally:
        server.stop()


def test_a_person_plays_on_after_the_refusals_of_others(tmp_path: Path) -> None:
    """The quick path acknowledges a valid action after it is stored, and a resent id again."""
    db = f"sqlite:///{tmp_path / 'updown.db'}"
    server = Server(db, log=tmp_path / "server.log").start()
    try:
        ann = User(server, "ann")
        table = make_table(ann, "updown", ["me", "bot:random", "bot:random", "bot:random"])["id"]
        client = ann.socket(table)
        _wait_legal(client)
        act = {"type": "act", "id": "mine-1", "action": client.legal[0]["id"]}
        client.send(act)
        client.until(lambda m: m["type"] == "ack" and m["id"] == "mine-1")
        assert db_rows(db, "SELECT count(*) FROM steps WHERE client_id = 'mine-1'") == [(1,)]
        client.send(act)  # resent: acknowledged again, never applied twice
        client.until(lambda m: m["type"] == "ack" and m["id"] == "mine-1")
        assert db_rows(db, "SELECT count(*) FROM steps WHERE client_id = 'mine-1'") == [(1,)]
    finally:
        server.stop()


# -- frames: counted by comparing views as values, as they were by comparing their JSON ---------
@pytest.mark.parametrize("game_id", ["updown", "euchre", "updown-sueca", "up-or-down"])
def test_frames_are_counted_as_before_and_each_seat_sees_only_its_view(game_id: str) -> None:
    import json
    import random

    from updown.core.registry import get_game
    from updown.server.live import SPECTATOR, Live

    game = get_game(game_id)
    players = 4
    row = Table(id="t", game=game_id, players=players, options="{}", seed="seed", timer=None, grace=60.0,
                rated=False, private=False, status="running", created_at=time.time())
    seats = [Seat(table_id="t", seat=i, kind="bot", bot="random", name=f"bot {i}", left=False, away=False)
             for i in range(players)]

    async def notify(_live: Live) -> None:
        return None

    live = Live(row, seats, None, bot_delay=0.0, notify=notify)  # type: ignore[arg-type]
    rng = random.Random(7)
    state = game.new_state(players, game.Options())
    keys = [*range(players), SPECTATOR]
    counts = {k: 0 for k in keys}
    sigs: dict[int, tuple[str, int]] = {}

    def reference() -> None:  # the former rule: a frame wherever the view's JSON or log length changed
        for k in keys:
            view = state.view(None if k == SPECTATOR else k)
            logs = view.pop("log")
            legal = state.legal_actions(k) if k != SPECTATOR and not state.is_terminal() else []
            sig = (json.dumps([view, legal], sort_keys=True, default=str), len(logs))
            if k in sigs and sig != sigs[k]:
                counts[k] += 1
            sigs[k] = sig

    reference()
    n = 0
    while not state.is_terminal() and n < 400:
        if state.is_chance():
            seat, action = None, state.sample_chance(rng)
        else:
            seat = state.actors()[0]
            action = rng.choice(state.legal_actions(seat))
        state.apply(action, seat)
        n += 1
        live.absorb([StepRow(n, seat, None, game.action_to_str(action), None, "bot", time.time())])
        reference()
        for k in keys:
            assert live.frame_no(k) == counts[k], (k, n)
            frame = live.frame(k, None)
            assert frame["view"] == state.view(None if k == SPECTATOR else k)
            assert frame["view"].get("seat") == (None if k == SPECTATOR else k)


def test_a_socket_taken_off_during_a_broadcast_gets_nothing_more_from_it() -> None:
    """A broadcast sends to one socket at a time. A socket taken off the table while it waits on
    another's send (a leave takes its own socket off, answers it, then closes it) gets no frame
    from that broadcast and is not closed by it: before, the broadcast's list still held it, found
    its seat left and closed it, and the leave's answer never came."""
    from updown.server.live import Live

    row = Table(id="t", game="updown", players=2, options="{}", seed="seed", timer=None, grace=60.0,
                rated=False, private=False, status="running", created_at=time.time())
    seats = [Seat(table_id="t", seat=i, kind="person", account_id=i + 1, name=f"p{i}", left=False, away=False)
             for i in range(2)]

    async def notify(_live: Live) -> None:
        return None

    class Socket:
        def __init__(self, gate: asyncio.Event, reached: asyncio.Event) -> None:
            self.sent: list[str] = []
            self.gate, self.reached = gate, reached

        async def send_text(self, text: str) -> None:
            self.reached.set()
            await self.gate.wait()
            self.sent.append(text)

    class Conn:
        def __init__(self, key: int, websocket: Socket) -> None:
            self.key, self.account_id, self.websocket = key, key + 1, websocket
            self.send_lock = asyncio.Lock()
            self.last_n: int | None = None
            self.last_table: str | None = None
            self.lang = "en"

    async def scenario() -> None:
        live = Live(row, seats, None, bot_delay=0.0, notify=notify)  # type: ignore[arg-type]
        closed: list[Any] = []
        live.unseated = closed.append
        gates = [asyncio.Event(), asyncio.Event()]
        reached = [asyncio.Event(), asyncio.Event()]
        conns = [Conn(i, Socket(gates[i], reached[i])) for i in range(2)]
        live.conns.update(conns)
        task = asyncio.get_running_loop().create_task(live.broadcast())
        done, _ = await asyncio.wait([asyncio.ensure_future(r.wait()) for r in reached],
                                     return_when=asyncio.FIRST_COMPLETED)
        first = 0 if reached[0].is_set() else 1
        other = conns[1 - first]
        # While the broadcast waits on the first socket, the other's seat is left and its socket
        # taken off (as Hub.enforce(keep=...) does for the socket that asked to leave).
        live.seats[other.key].left = True
        live.conns.discard(other)
        for g in gates:
            g.set()
        await asyncio.wait_for(task, 10)
        assert conns[first].websocket.sent, "the socket still seated got nothing"
        assert other.websocket.sent == [] and closed == []

    asyncio.run(scenario())
