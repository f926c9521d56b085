"""Each guarantee of the server, caught by a test that does not depend on luck or timing:

* an action is acknowledged only once it is stored: with the database locked, no ack comes (and
  no frame); once it is free, the ack comes and a resend is stored once; a failing store is an
  error, never an ack;
* what anyone not seated learns over HTTP about a running table is the spectator's view;
* a settlement that does not balance is refused (an error, nothing stored), never skipped;
* a paid leave is posted once, with the house's side, and the end's settlement takes it off.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_util import Client, Server, User, db_rows
from updown.bots.base import RandomBot
from updown.core.registry import get_game
from updown.server.db import make_engine, upgrade
from updown.server.hub import Hub
from updown.server.live import ActionError, Live
from updown.server.models import Seat, Table
from updown.server.store import HOUSE, Finish, Posting, StepRow, Store, Unbalanced


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'updown.db'}", log=tmp_path / "server.log").start()
    yield srv
    srv.stop()


def quiet(*clients: Client) -> None:
    while any(c.recv(0.4) is not None for c in clients):
        pass


# -- stored, then acknowledged ---------------------------------------------------------------------
def test_no_ack_while_the_store_is_blocked_and_a_resend_is_stored_once(server: Server) -> None:
    alice = User(server, "alice")
    table = alice.post("/api/tables", {"game": "euchre", "seats": ["me", "bot:random", "bot:random", "bot:random"]}).json()
    ca = alice.socket(table["id"])
    ca.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 30)
    quiet(ca)  # the bots wait for Alice
    n_before = ca.n
    path = server.db.removeprefix("sqlite:///")
    lock = sqlite3.connect(path, timeout=1, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")  # no other writer until we let go
    try:
        ca.send({"type": "act", "id": "held", "action": ca.legal[0]["id"]})
        deadline = time.time() + 2.5
        while time.time() < deadline:
            msg = ca.recv(0.1)
            assert msg is None or msg["type"] not in ("ack", "frame", "snapshot"), f"{msg['type']} before the store"
        assert ca.n == n_before
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    ca.until(lambda m: m["type"] == "ack" and m["id"] == "held", 20)
    ca.send({"type": "act", "id": "held", "action": ca.legal[0]["id"] if ca.legal else 0})
    ca.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == "held", 20)
    assert [e for e in ca.errors if e.get("id") == "held"] == []
    assert db_rows(server.db, "SELECT COUNT(*) FROM steps WHERE client_id = 'held'")[0][0] == 1


class FailingStore(Store):
    """A store whose commits fail (the database went away), counting the calls."""

    calls = 0

    async def commit_async(self, *args: Any, **kwargs: Any) -> None:
        FailingStore.calls += 1
        raise OSError("server closed the connection unexpectedly")


def live_table(store: Store, game_id: str, kinds: list[str], accounts: list[int | None], *, rated: bool = False,
               left: list[bool] | None = None) -> Live:
    game = get_game(game_id)
    row = Table(id=f"t{random.random()}"[2:14], game=game_id, players=len(kinds),
                options=json.dumps(game.Options.from_dict({}).to_dict()), seed="s", timer=None, grace=60.0,
                rated=rated, private=False, status="running", created_by=None, created_at=time.time(),
                lease_until=0.0)
    seats = [Seat(table_id=row.id, seat=i, kind=k, account_id=a, bot="random" if k == "bot" else None,
                  name=f"p{i}", left=(left or [False] * len(kinds))[i], away=False)
             for i, (k, a) in enumerate(zip(kinds, accounts))]
    table_id = row.id
    store.create_table(row, seats)
    found = store.table(table_id)  # detached copies, as the hub has them
    assert found is not None
    row, seats = found

    async def notify(_live: Live) -> None:
        return None

    return Live(row, seats, store, bot_delay=0, notify=notify)


def test_a_failing_store_is_an_error_never_an_ack_and_changes_nothing(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    upgrade(engine)
    store = FailingStore(engine)
    live = live_table(store, "euchre", ["person", "bot", "bot", "bot"], [None, None, None, None])
    rng = random.Random(1)
    while live.state.is_chance():  # deal (not stored: this store fails)
        live.state.apply(live.state.sample_chance(rng))
    seat = live.state.actors()[0]
    before = json.dumps(live.state.view(None))
    with pytest.raises(ActionError) as err:
        asyncio.run(live.submit(seat, live.state.legal_actions(seat)[0], "c1", "player"))
    assert err.value.code == "not-stored" and FailingStore.calls == 1
    assert json.dumps(live.state.view(None)) == before and live.steps == [] and live.client_ids == {}


# -- HTTP answers about a running table ------------------------------------------------------------
def test_http_answers_about_a_running_table_are_the_spectators(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = alice.post("/api/tables", {"game": "updown", "options": {"rounds": 1},
                                       "seats": ["me", "bot:random", "bot:random", "bot:random"]}).json()
    ca = alice.socket(table["id"])
    ca.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 30)
    quiet(ca)
    watcher = bob.socket(table["id"])
    snap = watcher.until(lambda m: m["type"] == "snapshot")
    for who in (bob, alice):  # the seated player is answered no more than a spectator
        rec = who.get(f"/api/tables/{table['id']}/record").json()
        assert rec["format"] == "updown-spectator-view"
        assert rec["events"] == snap["view"]["log"]
    hand = [c for c in ca.view["hand"]] if ca.view else []
    assert hand
    for path in (f"/api/tables/{table['id']}", f"/api/tables/{table['id']}/record", "/api/tables"):
        body = bob.get(path).text
        assert all(f'"{card}"' not in body for card in hand), path


# -- money ---------------------------------------------------------------------------------------
def test_an_unbalanced_settlement_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    upgrade(engine)
    store = Store(engine)
    live = live_table(store, "updown-sueca", ["person", "bot", "bot", "bot"], [None] * 4)
    a = store.create_account("alice", "person", None)
    assert a is not None
    step = StepRow(1, None, "deal", live.game.action_to_str(live.state.chance_outcomes()[0][0]), None, "chance",
                   time.time())
    with pytest.raises(Unbalanced):
        store.commit(live.id, [step], Finish({"x": 1}, {a: -100}, {}, "t:end"))
    with pytest.raises(Unbalanced):
        store.commit(live.id, [step], Posting("t:leave:0", {a: -100}))
    assert store.steps(live.id) == [] and store.ledger_total() == 0 and store.entries(a) == []


def sueca_terminal_with_a_leaver(seed: int) -> Any:
    game = get_game("updown-sueca")
    state = game.new_state(4, game.Options.from_dict({}))
    rng = random.Random(seed)
    bots = [RandomBot(game, s, random.Random(seed * 10 + s)) for s in range(4)]
    left = False
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        seat = state.actors()[0]
        if not left and 0 in state.actors():
            state.apply(state.leave_action(0), 0)
            left = True
            continue
        state.apply(bots[seat].act(state.view(seat), state.legal_actions(seat)), seat)
    return state


def test_a_leave_is_charged_once_with_the_houses_side_and_the_end_takes_it_off(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'x.db'}")
    upgrade(engine)
    store = Store(engine)
    people = [store.create_account(n, "person", None) for n in ("alice", "bob")]
    hub = Hub(store)
    live = live_table(store, "updown-sueca", ["person", "person", "bot", "bot"], [people[0], people[1], None, None],
                      rated=True, left=[True, False, False, False])
    posting = hub.charge(live, 0, 100)
    assert posting is not None
    house = store.account_id_for(HOUSE, "house")
    assert posting.postings == {people[0]: -100, house: 100}
    store.commit(live.id, [], posting)
    state = sueca_terminal_with_a_leaver(3)
    result = state.result()
    assert result.details["left"] == [0]
    finish = hub.settle(live, state, Finish(result.to_dict(), {}, {}, f"table:{live.id}:end"))
    # The leaver's 100 was posted already: the end posts only the rest, and it all sums to zero.
    assert finish.postings.get(people[0], 0) == result.details["riscos"][0] + 100 == 0
    assert finish.postings.get(house, 0) == result.details["house"] - 100
    assert sum(finish.postings.values()) == 0
    assert finish.result["server"]["ratings"][0]["after"] < finish.result["server"]["ratings"][0]["before"]
    # A settlement missing the house's side is refused, not posted nor skipped.
    broken = type(result)(result.scores, result.placings, {**result.details, "house": 0})
    with pytest.raises(Unbalanced):
        hub.settle(live, _Fixed(state, broken), Finish(broken.to_dict(), {}, {}, "x"))


class _Fixed:
    """A terminal state whose result is replaced (to feed the settlement a wrong one)."""

    def __init__(self, state: Any, result: Any):
        self._state, self._result = state, result

    def result(self) -> Any:
        return self._result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)
