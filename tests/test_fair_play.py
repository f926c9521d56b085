"""Fair play against a real ``updown serve``: each attack of the fair-play issue, replayed.

* a socket never acts or sees for a seat that is no longer its account's (left, freed, re-seated,
  signed out), checked now and not at connect time;
* no page of another origin (another port of the same host included) uses a player's cookie;
* absence is decided from stored state: a join that never connects, a restart nobody comes back
  from, and a walk-away all reach the grace and count as leaving;
* walking away never pays better than Leave (the charge at once, a loss for the rating);
* one seat per account per table, however the joins race;
* ratings only for tables with people, each seat shown its own change.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from server_util import Client, Server, User, closed_code, db_rows, first_with_legal, free_port, make_table, play_out

PG = os.environ.get("UPDOWN_TEST_POSTGRES")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'updown.db'}", log=tmp_path / "server.log").start()
    yield srv
    srv.stop()



def private_messages(client: Client, after: int) -> list[dict[str, Any]]:
    """The seat frames (snapshots and frames) a client received after its ``after``-th raw message."""
    out = []
    for raw in client.raw[after:]:
        msg = json.loads(raw)
        if msg["type"] in ("snapshot", "frame"):
            out.append(msg)
    return out



def until_legal(me: Client, other: Client, timeout: float = 30.0) -> None:
    """Read until ``me`` must act, ``other`` playing its first legal action whenever it must."""
    deadline = time.time() + timeout
    k = 0
    while not me.legal:
        assert time.time() < deadline, "no decision came"
        me.recv(0.05)
        other.recv(0.05)
        if other.legal and not me.legal:
            k += 1
            other.send({"type": "act", "id": f"o{k}", "action": other.legal[0]["id"]})
            other.until(lambda m: m["type"] in ("ack", "error"))


def wait_table(user: User, table: str, pred: Any, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.time() + timeout
    while True:
        info = user.get(f"/api/tables/{table}").json()
        if pred(info):
            return dict(info)
        assert time.time() < deadline, f"the table never got there: {info}"
        time.sleep(0.2)


# -- 1. seat authority on every message ------------------------------------------------------------
def test_a_socket_loses_its_seat_when_the_seat_changes_hands_before_the_start(server: Server) -> None:
    alice, bob, carol = User(server, "alice"), User(server, "bob"), User(server, "carol")
    table = make_table(carol, "updown", ["open", "open", "bot:random", "bot:random"])
    assert alice.post(f"/api/tables/{table['id']}/join", {"seat": 0}).status_code == 200
    old = alice.socket(table["id"])
    assert old.seat == 0
    old.until(lambda m: m["type"] == "table")  # the snapshot of the waiting table, then its public state
    mark = len(old.raw)
    assert alice.post(f"/api/tables/{table['id']}/leave").status_code == 200
    assert bob.post(f"/api/tables/{table['id']}/join").json()["seats"][0]["name"] == "bob"  # the first free seat
    assert carol.post(f"/api/tables/{table['id']}/join").json()["status"] == "running"
    cb = bob.socket(table["id"])
    cb.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["view"].get("hand")), 30)
    # Alice's old socket was closed when she left, and never carried one of seat 0's frames after.
    assert closed_code(old) == 4001
    assert private_messages(old, mark) == []


def test_after_leave_a_socket_neither_acts_nor_sees_and_coming_back_is_watching(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"])
    bob.post(f"/api/tables/{table['id']}/join")
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    until_legal(ca, cb)
    legal = ca.legal[0]["id"]
    while ca.recv(0.5):  # the table waits for Alice and Bob now: nothing more is on its way
        pass
    mark = len(ca.raw)
    # Leave over HTTP while the socket is open: the socket is closed at once.
    assert alice.post(f"/api/tables/{table['id']}/leave").status_code == 200
    assert closed_code(ca) == 4001
    assert all(m["type"] not in ("snapshot", "frame", "ack") for m in map(json.loads, ca.raw[mark:]))
    # Coming back, Alice watches: spectator's frames, and her actions for seat 0 are refused.
    again = alice.socket(table["id"])
    assert again.seat is None
    again.send({"type": "act", "id": "sneak", "action": legal})
    err = again.until(lambda m: m["type"] == "error" and m.get("id") == "sneak")
    assert err["code"] == "spectator"
    assert db_rows(server.db, "SELECT COUNT(*) FROM steps WHERE client_id = 'sneak'")[0][0] == 0
    # The stand-in plays seat 0 for the rest of the game.
    deadline = time.time() + 30
    while not db_rows(server.db, "SELECT COUNT(*) FROM steps WHERE table_id = :t AND seat = 0 AND by = 'stand-in'",
                  t=table["id"])[0][0]:
        assert time.time() < deadline
        cb.recv(0.2)
        if cb.legal:
            cb.send({"type": "act", "id": f"b{time.time()}", "action": cb.legal[0]["id"]})


def test_sign_out_closes_the_sockets_of_that_session(server: Server) -> None:
    alice = User(server, "alice")
    table = make_table(alice, "euchre", ["me", "bot:random", "bot:random", "bot:random"])
    cookie = alice.cookie()
    ca = alice.socket(table["id"])
    ca.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 30)
    while ca.recv(0.5):  # the bots wait for Alice now: nothing more is on its way
        pass
    legal = ca.legal[0]["id"]
    assert alice.post("/api/logout").status_code == 200
    mark = len(ca.raw)
    assert closed_code(ca) == 4001
    assert private_messages(ca, mark) == []
    # The old cookie opens nothing but a spectator's socket, and acts for nobody.
    stale = Client(server, table["id"], cookie=cookie)
    assert stale.seat is None
    stale.send({"type": "act", "id": "ghost", "action": legal})
    assert stale.until(lambda m: m["type"] == "error" and m.get("id") == "ghost")["code"] == "spectator"


def test_a_legal_action_for_another_seat_is_refused_and_stores_nothing(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    # UP&DOWN: every seat chooses at every trick, so Bob has legal actions while Alice's socket is open.
    table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"])
    bob.post(f"/api/tables/{table['id']}/join")
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    mover = first_with_legal(ca, cb)
    forger = cb if mover is ca else ca
    theirs = mover.legal[0]["id"]  # legal for the mover's seat now
    forger.send({"type": "act", "id": "forged", "action": theirs, "seat": mover.seat})
    reply = forger.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == "forged")
    assert reply["type"] == "error" and reply["code"] == "not-your-seat", reply
    assert db_rows(server.db, "SELECT COUNT(*) FROM steps WHERE client_id = 'forged'")[0][0] == 0


# -- 2. same origin only ---------------------------------------------------------------------------
def test_requests_and_sockets_from_another_origin_are_refused(server: Server) -> None:
    alice = User(server, "alice")
    table = make_table(alice, "updown-sueca", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], rated=True)
    evil = f"http://127.0.0.1:{free_port()}"  # another port of the same host: the same site for cookies
    r = alice.http.post(f"/api/tables/{table['id']}/leave", headers={"Origin": evil})
    assert r.status_code == 403 and "cross-origin" in r.json()["detail"]
    assert alice.http.post("/api/logout", headers={"Origin": "null"}).status_code == 403
    assert alice.get("/api/me").status_code == 200  # still signed in
    assert alice.get("/api/me").json()["balance"] == 0  # nothing was charged
    url = f"ws://127.0.0.1:{server.port}/ws/tables/{table['id']}"
    with pytest.raises(InvalidStatus) as refused:
        connect(url, additional_headers={"Cookie": alice.cookie(), "Origin": evil}, open_timeout=10)
    assert refused.value.response.status_code == 403
    # The server's own origin (as a browser sends it) works.
    own = alice.http.post(f"/api/tables/{table['id']}/leave", headers={"Origin": server.base})
    assert own.status_code == 200
    with connect(url, additional_headers={"Cookie": alice.cookie(), "Origin": server.base}, open_timeout=10) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "hello"


# -- 3. absence decided from stored state ----------------------------------------------------------
def test_a_join_that_never_connects_reaches_the_grace_and_the_table_goes_on(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"], grace=3)
    ca = alice.socket(table["id"])
    bob.post(f"/api/tables/{table['id']}/join")  # and never opens the socket
    info = ca.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["left"], 20)
    assert not info["table"]["seats"][0]["left"]
    play_out([ca], random.Random(1), timeout=120)  # nobody waits for Bob: the game ends
    assert alice.get(f"/api/tables/{table['id']}").json()["status"] == "finished"


def test_a_table_nobody_ever_connects_to_ends_and_leaves_the_lobby(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "euchre", ["me", "open", "bot:random", "bot:random"], grace=3)
    bob.post(f"/api/tables/{table['id']}/join")
    info = wait_table(alice, table["id"], lambda t: t["status"] != "running", 30)
    assert info["status"] == "aborted"
    assert table["id"] not in {t["id"] for t in alice.get("/api/tables").json()}


def test_a_restart_nobody_comes_back_from_reaches_the_grace(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'updown.db'}"
    srv = Server(db, log=tmp_path / "server.log").start()
    try:
        alice = User(srv, "alice")
        table = make_table(alice, "updown", ["me", "bot:random", "bot:random", "bot:random"], grace=2)
        ca = alice.socket(table["id"])
        ca.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 30)
        ca.send({"type": "act", "id": "one", "action": ca.legal[0]["id"]})
        ca.until(lambda m: m["type"] == "ack")
        srv.kill()
        time.sleep(3)  # longer than the grace: time while no server runs is not counted
        srv.start()
        time.sleep(0.5)
        assert not alice.get(f"/api/tables/{table['id']}").json()["seats"][0]["left"]
        info = wait_table(alice, table["id"], lambda t: t["seats"][0]["left"], 20)
        assert info["seats"][0]["played_by_bot"]
        wait_table(alice, table["id"], lambda t: t["status"] == "finished", 120)
    finally:
        srv.stop()


def test_coming_back_within_the_grace_keeps_the_seat(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"], grace=3)
    bob.post(f"/api/tables/{table['id']}/join")
    cb = bob.socket(table["id"])
    ca = alice.socket(table["id"])
    ca.close()
    time.sleep(1)
    ca = alice.socket(table["id"])
    assert ca.seat == 0
    time.sleep(4.5)  # past the grace, counted from the disconnect and from the return alike
    info = alice.get(f"/api/tables/{table['id']}").json()
    assert not info["seats"][0]["left"] and not info["seats"][0]["away"]
    assert db_rows(server.db, "SELECT COUNT(*) FROM steps WHERE table_id = :t AND seat = 0 AND by <> 'player'",
               t=table["id"])[0][0] == 0
    cb.close()


# -- 4. walking away costs what leaving costs ------------------------------------------------------
def test_walking_away_from_a_rated_sueca_match_is_charged_at_once_and_loses(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "updown-sueca", ["me", "open", "bot:greedy", "bot:greedy"], rated=True, grace=3)
    bob.post(f"/api/tables/{table['id']}/join")
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    ca.until(lambda m: m["type"] in ("snapshot", "frame"), 30)
    ca.close()  # the tab is closed
    cb.until(lambda m: m["type"] == "table" and m["table"]["seats"][0]["left"], 20)
    # The charge is posted when the seat is left, not minutes later at the end.
    me = alice.get("/api/me").json()
    assert me["balance"] == -100 and [e["amount"] for e in me["ledger"]] == [-100]
    assert db_rows(server.db, "SELECT COALESCE(SUM(amount), 0) FROM ledger")[0][0] == 0
    play_out([cb], random.Random(5), timeout=240)
    result = bob.get(f"/api/tables/{table['id']}").json()["result"]
    assert result["left"] == [0] and result["placings"][0] == 4
    assert alice.get("/api/me").json()["balance"] == -100 == result["riscos"][0]  # charged once
    assert bob.get("/api/me").json()["balance"] == result["riscos"][1]
    assert db_rows(server.db, "SELECT COALESCE(SUM(amount), 0) FROM ledger")[0][0] == 0
    ratings = result["server"]["ratings"]
    assert ratings[0]["after"] < ratings[0]["before"]


@pytest.mark.parametrize("game", ["updown", "up-or-down"])
def test_walking_away_from_a_rated_game_is_a_loss_whatever_the_stand_in_does(server: Server, game: str) -> None:
    """Alice leaves; her stand-in plays on. Her rating falls as for last place, whatever the stand-in
    scored. A deal where the stand-in came last anyway cannot tell that rule from rating the
    stand-in's own place (each table's seed is secret and random), so the game is played again, up
    to five times, until the stand-in did better than last."""
    alice, bob = User(server, "alice"), User(server, "bob")
    for attempt in range(5):
        table = make_table(alice, game, ["me", "open", "bot:random", "bot:random"], rated=True, grace=3)
        bob.post(f"/api/tables/{table['id']}/join")
        ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
        ca.until(lambda m: m["type"] in ("snapshot", "frame"), 30)
        ca.close()
        cb.until(lambda m: m["type"] == "table" and m["table"]["seats"][0]["left"], 20)
        play_out([cb], random.Random(3 + attempt), timeout=180)
        result = bob.get(f"/api/tables/{table['id']}").json()["result"]
        ours = result["server"]["ratings"]
        assert ours[0]["after"] < ours[0]["before"]  # last place, whatever the stand-in scored
        # Each seat is shown its own change: the two random bots' seats differ.
        assert ours[2] != ours[3] or result["placings"][2] == result["placings"][3]
        if result["placings"][0] < max(result["placings"]):
            break  # the stand-in did better than last: this deal told the rules apart
    board = {r["name"]: r for r in bob.get(f"/api/leaderboard/{game}").json()}
    assert board["alice"]["mu"] < 25.0


# -- 5. one seat per account per table -------------------------------------------------------------
@pytest.mark.parametrize("db_kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    PG is None, reason="UPDOWN_TEST_POSTGRES not set: no PostgreSQL"))])
def test_racing_joins_of_one_account_win_one_seat(db_kind: str, tmp_path: Path) -> None:
    if db_kind == "sqlite":
        db = f"sqlite:///{tmp_path / 'updown.db'}"
    else:
        from test_server import fresh_pg_db

        db = fresh_pg_db()
    srv = Server(db, log=tmp_path / "server.log").start()
    try:
        carol, mallory = User(srv, "carol"), User(srv, "mallory")
        for attempt in range(3):
            table = make_table(carol, "updown", ["me", "open", "open", "open"])
            codes: list[int] = []
            barrier = threading.Barrier(3)

            def join(seat: int) -> None:
                client = httpx.Client(base_url=srv.base, cookies=mallory.http.cookies, timeout=20)
                barrier.wait()
                codes.append(client.post(f"/api/tables/{table['id']}/join", json={"seat": seat}).status_code)

            threads = [threading.Thread(target=join, args=(s,)) for s in (1, 2, 3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(codes) == [200, 409, 409], codes
            seats = mallory.get(f"/api/tables/{table['id']}").json()["seats"]
            assert sum(1 for s in seats if s["name"] == "mallory") == 1
    finally:
        srv.stop()


# -- 6. ratings for people -------------------------------------------------------------------------
def test_bot_only_tables_are_never_rated(server: Server) -> None:
    alice = User(server, "alice")
    r = alice.post("/api/tables", {"game": "updown-sueca", "rated": True,
                                   "seats": ["bot:random", "bot:random", "bot:greedy", "bot:greedy"]})
    assert r.status_code == 400 and "person" in r.json()["detail"]
    unrated = make_table(alice, "updown", ["bot:random", "bot:random", "bot:random", "bot:random"])
    wait_table(alice, unrated["id"], lambda t: t["status"] == "finished", 120)
    assert alice.get("/api/leaderboard/updown").json() == []


def test_tables_of_bots_alone_are_limited_per_account_at_once(tmp_path: Path) -> None:
    srv = Server(f"sqlite:///{tmp_path / 'updown.db'}", log=tmp_path / "server.log", bot_delay=0.5).start()
    try:
        guest = User(srv, guest=True)
        bots = ["bot:random"] * 4
        first = [make_table(guest, "updown-sueca", bots) for _ in range(2)]
        third = guest.post("/api/tables", {"game": "updown-sueca", "seats": bots})
        assert third.status_code == 429 and "bots alone" in third.json()["detail"]
        assert db_rows(srv.db, "SELECT COUNT(*) FROM tables WHERE created_by = :a", a=guest.me["id"])[0][0] == 2
        # A table with a person in it is not one of them.
        make_table(guest, "updown", ["me", "bot:random", "bot:random", "bot:random"])
        assert all(t["status"] == "running" for t in first)
    finally:
        srv.stop()


# -- several processes -----------------------------------------------------------------------------
@pytest.mark.skipif(PG is None or os.environ.get("UPDOWN_TEST_REDIS") is None,
                    reason="several processes need UPDOWN_TEST_POSTGRES and UPDOWN_TEST_REDIS")
def test_across_processes_presence_and_sign_out_follow_the_stored_state(tmp_path: Path) -> None:
    """Alice's socket is on the process that does not drive the table: the driver must see her as
    present (from the stored signs of life), sign-out on the other process must close her socket,
    and once she is gone the driver counts her absence and she leaves."""
    from test_server import fresh_pg_db

    db, redis = fresh_pg_db(), os.environ["UPDOWN_TEST_REDIS"]
    one = Server(db, redis=redis, log=tmp_path / "one.log").start()
    two = Server(db, redis=redis, log=tmp_path / "two.log").start()
    try:
        alice, bob = User(one, "alice"), User(one, "bob")
        table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"], grace=2)
        bob.post(f"/api/tables/{table['id']}/join")  # started on process one, which drives it
        ca = Client(two, table["id"], cookie=alice.cookie())
        cb = Client(two, table["id"], cookie=bob.cookie())
        assert (ca.seat, cb.seat) == (0, 1)
        # Longer than the grace plus the 15 s in which a stored sign of life counts, with nothing to do
        # meanwhile (nothing said on the bus): present through process two, read from the database.
        deadline = time.time() + 22
        while time.time() < deadline:
            ca.recv(0.1)
            cb.recv(0.1)
        info = alice.get(f"/api/tables/{table['id']}").json()
        assert not info["seats"][0]["left"] and not info["seats"][1]["left"]
        # Signing out on process one closes Alice's socket on process two.
        assert alice.post("/api/logout").status_code == 200
        assert closed_code(ca, 10) == 4001
        # Bob's socket closes too; nobody is there for seat 1 any more: past the grace he leaves.
        cb.close()
        wait_table(alice, table["id"], lambda t: t["seats"][1]["left"], 40)
    finally:
        one.stop()
        two.stop()


@pytest.mark.skipif(PG is None or os.environ.get("UPDOWN_TEST_REDIS") is None,
                    reason="several processes need UPDOWN_TEST_POSTGRES and UPDOWN_TEST_REDIS")
def test_a_graceful_stop_gives_its_tables_to_the_other_process_at_once(tmp_path: Path) -> None:
    """SIGTERM to the process driving a table: its sockets close (1012), it gives its leases back,
    and the other process drives the table within a few seconds, not when the 10 s lease runs out."""
    from test_server import fresh_pg_db

    db, redis = fresh_pg_db(), os.environ["UPDOWN_TEST_REDIS"]
    one = Server(db, redis=redis, log=tmp_path / "one.log").start()
    two = Server(db, redis=redis, log=tmp_path / "two.log").start()
    try:
        alice = User(one, "alice")
        table = make_table(alice, "updown", ["me", "bot:random", "bot:random", "bot:random"])  # one drives it
        ca = alice.socket(table["id"])
        ca.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 30)
        ca.send({"type": "act", "id": "a1", "action": ca.legal[0]["id"]})
        ca.until(lambda m: m["type"] == "ack")
        while ca.recv(0.5):
            pass
        last = db_rows(db, "SELECT MAX(n) FROM steps WHERE table_id = :t", t=table["id"])[0][0]
        stopped = time.time()
        one.stop()  # SIGTERM
        assert closed_code(ca, 10) in (1001, 1012)
        again = Client(two, table["id"], cookie=alice.cookie())
        again.until(lambda m: m["type"] in ("snapshot", "frame") and bool(m["legal"]), 30)
        deadline = time.time() + 30
        acts = 0
        while True:  # the first step the new driver stores (a bot's card, or chance)
            found = db_rows(db, "SELECT MIN(at) FROM steps WHERE table_id = :t AND n > :n AND by <> 'player'",
                            t=table["id"], n=last)[0][0]
            if found is not None:
                break
            assert time.time() < deadline, "nobody drives the table after the stop"
            again.recv(0.1)
            if again.legal and acts < 5:  # Alice may have to act first (she leads the next trick, say)
                acts += 1
                again.send({"type": "act", "id": f"a{acts + 1}", "action": again.legal[0]["id"]})
                again.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == f"a{acts + 1}")
        stall = found - stopped
        print(f"longest stall after a graceful stop: {stall:.2f} s")
        assert stall < 6, stall  # the lease alone would have kept the table for 7 to 13 s
        assert db_rows(db, "SELECT COUNT(*) FROM steps WHERE client_id = 'a1'")[0][0] == 1
    finally:
        one.stop()
        two.stop()
