"""The online server over a real ``updown serve`` process on 127.0.0.1.

Every test runs against SQLite; with ``UPDOWN_TEST_POSTGRES`` (a SQLAlchemy URL of an empty
database, set by ``.ci/run``) the same tests run against PostgreSQL too, and with
``UPDOWN_TEST_REDIS`` the multi-process test runs two servers over Redis.
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from websockets.exceptions import ConnectionClosed

from server_util import Client, Server, User, check_no_leak, make_table, play_out
from updown.core.records import Record, replay

PG = os.environ.get("UPDOWN_TEST_POSTGRES")
REDIS = os.environ.get("UPDOWN_TEST_REDIS")


def needs(service: str, var: str) -> pytest.MarkDecorator:
    """Skip when ``var`` is not set (in CI, tests/conftest.py makes that skip a failure)."""
    return pytest.mark.skipif(not os.environ.get(var),
                              reason=f"no {service}: {var} not set (start it with eval \"$(.ci/services start)\")")


def fresh_pg_db() -> str:
    """A new empty database on the test PostgreSQL server."""
    assert PG is not None
    name = f"t_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return PG.rsplit("/", 1)[0] + "/" + name


def db_urls() -> list[Any]:
    urls: list[Any] = ["sqlite"]
    urls.append(pytest.param("postgresql", marks=needs("PostgreSQL", "UPDOWN_TEST_POSTGRES")))
    return urls


@pytest.fixture(params=db_urls())
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'updown.db'}"
    return fresh_pg_db()


@pytest.fixture
def server(db: str, tmp_path: Path) -> Iterator[Server]:
    srv = Server(db, log=tmp_path / "server.log").start()
    yield srv
    srv.stop()


def stand_in_steps(db: str, table: str) -> int:
    engine = create_engine(db)
    with engine.connect() as conn:
        count = conn.execute(text("SELECT COUNT(*) FROM steps WHERE table_id = :t AND seat = 0 AND by = 'stand-in'"),
                             {"t": table}).scalar()
    engine.dispose()
    return int(count or 0)


def ledger_sum(db: str) -> int:
    engine = create_engine(db)
    with engine.connect() as conn:
        total = conn.execute(text("SELECT COALESCE(SUM(amount), 0) FROM ledger")).scalar()
    engine.dispose()
    return int(total or 0)


# -- whole games --------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["updown", "euchre", "updown-sueca", "up-or-down"])
def test_whole_game_two_people_two_bots_and_a_spectator(server: Server, game: str) -> None:
    alice, bob, watcher = User(server, "alice"), User(server, "bob"), User(server, guest=True)
    table = make_table(alice, game, ["me", "open", "bot:greedy", "bot:random"])
    assert table["status"] == "open"
    joined = bob.post(f"/api/tables/{table['id']}/join").json()
    assert joined["status"] == "running"
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    spectator = watcher.socket(table["id"])
    assert (ca.seat, cb.seat, spectator.seat) == (0, 1, None)
    play_out([ca, cb], random.Random(7))
    spectator.until(lambda m: m["type"] == "table" and m["table"]["status"] == "finished")
    record = alice.get(f"/api/tables/{table['id']}/record").json()
    state = replay(Record.from_dict(record))  # the stored game replays exactly, result included
    assert state.is_terminal() and record["result"]["placings"] == list(state.result().placings)
    for client in (ca, cb, spectator):
        assert check_no_leak(record, client) > 10
        assert not client.errors
    # The spectator never held a hand: its views are view(None) throughout.
    assert all(view.get("hand") in (None, []) for view, _ in spectator.seen)


# -- the message stream ---------------------------------------------------------------------------
def test_reconnect_with_a_number_and_without(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "updown", ["me", "open", "bot:greedy", "bot:greedy"])
    bob.post(f"/api/tables/{table['id']}/join")
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    rng = random.Random(3)
    # Play a few decisions, then Alice drops while Bob plays on.
    moves = 0
    while moves < 6:
        for c in (ca, cb):
            c.recv(0.05)
            if c.legal and not c.errors:
                c.send({"type": "act", "id": f"{c.seat}-{moves}", "action": rng.choice(c.legal)["id"]})
                c.until(lambda m: m["type"] in ("ack", "error"))
                moves += 1
    while ca.recv(0.3):
        pass
    last, old_log = ca.n, json.loads(json.dumps(ca.view["log"]))  # a copy of the events Alice had
    ca.close()
    for i in range(3):  # Bob acts while Alice is away (UP&DOWN waits for Alice's card eventually)
        cb.recv(0.3)
        if cb.legal:
            cb.send({"type": "act", "id": f"b-{i}", "action": rng.choice(cb.legal)["id"]})
            cb.until(lambda m: m["type"] in ("ack", "error"))
    # With a number: only what was missed, starting where the client left off.
    again = Client(server, table["id"], cookie=alice.cookie(), since=last)
    again.view = ca.view
    frame = again.recv()
    assert frame is not None and frame["type"] == "frame" and frame["from"] == last
    # Without: a full snapshot, which must agree with the view rebuilt from the missed frames.
    fresh = Client(server, table["id"], cookie=alice.cookie())
    snap = fresh.recv()
    assert snap is not None and snap["type"] == "snapshot"
    while again.recv(0.5) or fresh.recv(0.5):  # bots may move meanwhile; both follow them
        pass
    assert fresh.view == again.view and fresh.n == again.n
    # The snapshot's log: the events Alice had, unchanged and first, then those told while she was
    # away (the frame after her number), then any since; so longer whenever she had missed any.
    log, missed = snap["view"]["log"], frame["events"]
    assert log[:len(old_log)] == old_log
    assert log[len(old_log):len(old_log) + len(missed)] == missed


def test_resent_action_is_acknowledged_again_and_applied_once(server: Server) -> None:
    alice = User(server, "alice")
    table = make_table(alice, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"])
    ca = alice.socket(table["id"])
    ca.until(lambda m: m["type"] in ("frame", "snapshot") and bool(m["legal"]), 30)
    action = ca.legal[0]["id"]
    ca.send({"type": "act", "id": "once", "action": action})
    ca.send({"type": "act", "id": "once", "action": action})
    ca.until(lambda m: m["type"] == "ack")
    ca.until(lambda m: m["type"] in ("ack", "error"))
    assert [e for e in ca.errors if e["id"] == "once"] == []
    rec = alice.get(f"/api/tables/{table['id']}/record").json()
    assert rec["format"] == "updown-spectator-view"  # a running game: only what a spectator sees
    engine = create_engine(server.db)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT COUNT(*) FROM steps WHERE client_id = 'once'")).scalar()
    engine.dispose()
    assert rows == 1


def test_bad_messages_get_errors_to_that_client_only(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"])
    bob.post(f"/api/tables/{table['id']}/join")
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    spectator = User(server, guest=True).socket(table["id"])
    deadline = time.time() + 30
    while not (ca.legal or cb.legal) and time.time() < deadline:
        ca.recv(0.05)
        cb.recv(0.05)
    while ca.recv(0.3) or cb.recv(0.1) or spectator.recv(0.1):
        pass
    me, other = (ca, cb) if ca.legal else (cb, ca)
    assert me.legal
    before = (ca.n, cb.n, spectator.n)
    legal = {a["id"] for a in me.legal}
    illegal = next(a for a in range(200) if a not in legal and _is_action(a))
    cases: list[tuple[Any, str]] = [
        ({"type": "act", "id": "x1", "action": illegal}, "illegal"),
        ("{not json", "malformed"),
        ("[1, 2]", "malformed"),
        ({"type": "act", "action": next(iter(legal))}, "malformed"),  # no id
        ({"type": "act", "id": "x2", "action": "rotate Q"}, "notation"),
        ({"type": "act", "id": "x3", "action": True}, "malformed"),
        ({"type": "act", "id": "x4", "action": next(iter(legal)), "seat": other.seat}, "not-your-seat"),
        ({"type": "dance", "id": "x5"}, "malformed"),
        ("x" * (1 << 20), "too-large"),
        ({"type": "resync", "id": "x6", "since": -4}, "malformed"),
    ]
    for message, code in cases:
        me.send(message)
        err = me.until(lambda m: m["type"] == "error")
        assert err["code"] == code, (message if isinstance(message, dict) else str(message)[:30], err)
        assert err["message"] and len(err["message"]) < 300
    spectator.send({"type": "act", "id": "s1", "action": next(iter(legal))})
    assert spectator.until(lambda m: m["type"] == "error")["code"] == "spectator"
    # Nothing changed, and nobody else heard about any of it.
    for c in (ca, cb, spectator):
        while c.recv(0.3):
            pass
    assert (ca.n, cb.n, spectator.n) == before
    assert not other.errors
    assert all('"error"' not in raw for raw in other.raw)
    # The connection still works: a legal move is taken.
    me.send({"type": "act", "id": "ok", "action": next(iter(legal))})
    assert me.until(lambda m: m["type"] in ("ack", "error")) == {"type": "ack", "id": "ok"}


def _is_action(action: int) -> bool:
    from updown.core.registry import get_game

    try:
        get_game("updown").action_to_str(action)
        return True
    except Exception:
        return False


# -- time, leaving, money ---------------------------------------------------------------------------
def test_timeout_hands_the_seat_to_a_bot_until_the_player_returns(server: Server) -> None:
    alice = User(server, "alice")
    # UP&DOWN: every seat chooses a card at every trick, so Alice's clock must run out.
    # (A long grace and generous waits: the stand-in is `normal`, whose first decision may start a
    # bot worker, and the socket reads every frame the stand-in's moves bring; on a loaded machine
    # both take long, and an away seat not back within the grace has left the game.)
    table = make_table(alice, "updown", ["me", "bot:random", "bot:random", "bot:random"], timer=5, grace=600)
    ca = alice.socket(table["id"])
    info = ca.until(lambda m: m["type"] == "table" and m["table"]["seats"][0]["away"], 60)
    assert info["table"]["seats"][0]["played_by_bot"]
    # A bot plays Alice's seat: the game moves on through her decisions without her.
    deadline = time.time() + 120
    while stand_in_steps(server.db, table["id"]) == 0:
        assert time.time() < deadline, "no stand-in played for the away seat"
        ca.recv(0.2)
    ca.send({"type": "back"})
    ca.until(lambda m: m["type"] == "table" and not m["table"]["seats"][0]["away"], 120)


def test_disconnect_past_the_grace_period_is_leaving_and_a_bot_plays_on(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"], grace=1)
    bob.post(f"/api/tables/{table['id']}/join")
    cb = bob.socket(table["id"])
    ca = alice.socket(table["id"])
    ca.close()
    info = cb.until(lambda m: m["type"] == "table" and m["table"]["seats"][0]["left"], 20)
    assert info["table"]["seats"][0]["played_by_bot"]
    deadline = time.time() + 30  # the stand-in really plays Alice's seat
    while stand_in_steps(server.db, table["id"]) == 0:
        assert time.time() < deadline, "no stand-in played for the seat that walked away"
        cb.recv(0.2)
        if cb.legal:
            cb.send({"type": "act", "id": f"b-{time.time()}", "action": cb.legal[0]["id"]})
    ca = alice.socket(table["id"])  # leaving is final: coming back, Alice only watches
    assert ca.seat is None


def test_sueca_leave_costs_100_once_and_the_ledger_balances(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "updown-sueca", ["me", "open", "bot:greedy", "bot:greedy"], rated=True)
    bob.post(f"/api/tables/{table['id']}/join")
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    ca.until(lambda m: m["type"] in ("frame", "snapshot") and m["leave_costs"], 30)
    # Two tabs / a race: the socket and the HTTP route at once; the leave is applied once.
    ca.send({"type": "leave", "id": "bye"})
    second = alice.post(f"/api/tables/{table['id']}/leave")
    # Whichever came first left; the socket is closed either way (leaving is final), after its
    # answer if its leave was first.
    try:
        reply = ca.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == "bye")["type"]
    except ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 4001
        reply = "closed"
    assert (second.status_code == 200) == (reply != "ack"), (second.status_code, reply)
    play_out([cb], random.Random(5), timeout=180)
    record = bob.get(f"/api/tables/{table['id']}/record").json()
    leaves = [s for s in record["steps"] if s.startswith("0: leave")]
    assert len(leaves) == 1
    result = record["result"]
    assert result["left"] == [0] and result["house"] == 100
    assert ledger_sum(server.db) == 0
    me_alice, me_bob = alice.get("/api/me").json(), bob.get("/api/me").json()
    assert me_alice["balance"] == result["riscos"][0] and me_bob["balance"] == result["riscos"][1]
    assert me_alice["balance"] <= -100
    # Ratings moved for both people, and the bots have ratings too.
    board = alice.get("/api/leaderboard/updown-sueca").json()
    assert {r["name"] for r in board} >= {"alice", "bob", "bot:greedy"}


def test_guests_touch_neither_ledger_nor_ratings(server: Server) -> None:
    guest = User(server, guest=True)
    assert guest.post("/api/tables", {"game": "updown", "rated": True}).status_code == 400
    table = make_table(guest, "updown", ["me", "bot:random", "bot:random", "bot:random"])
    c = guest.socket(table["id"])
    play_out([c], random.Random(2))
    assert guest.get("/api/leaderboard/updown").json() == []
    assert ledger_sum(server.db) == 0
    me = guest.get("/api/me").json()
    assert me["balance"] is None and me["ratings"] == []


def test_rated_euchre_rates_partners_as_a_team(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "euchre", ["me", "bot:random", "open", "bot:random"], rated=True)
    bob.post(f"/api/tables/{table['id']}/join")
    play_out([alice.socket(table["id"]), bob.socket(table["id"])], random.Random(4))
    ratings = {r["name"]: r for r in alice.get("/api/leaderboard/euchre").json()}
    assert ratings["alice"]["mu"] == pytest.approx(ratings["bob"]["mu"])  # partners, one team
    assert ratings["alice"]["mu"] != pytest.approx(25.0)
    assert ratings["bot:random"]["games"] == 1


# -- accounts and tables ---------------------------------------------------------------------------
def test_accounts_sessions_and_table_rules(server: Server) -> None:
    alice = User(server, "alice")
    r = alice.http.post("/api/register", json={"name": "alice", "password": "another-pass"})
    assert r.status_code == 409
    import httpx

    anon = httpx.Client(base_url=server.base)
    assert anon.post("/api/login", json={"name": "alice", "password": "wrong-one"}).status_code == 401
    ok = anon.post("/api/login", json={"name": "alice", "password": "pass-word-1"})
    assert ok.status_code == 200
    cookie = ok.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert anon.get("/api/me").json()["name"] == "alice"
    anon.post("/api/logout")
    assert anon.get("/api/me").status_code == 401
    assert anon.post("/api/register", json={"name": "x", "password": "pass-word-1"}).status_code == 400
    assert anon.post("/api/register", json={"name": "bot:me", "password": "pass-word-1"}).status_code == 400
    # Table creation is checked; an open table is listed; a private one is reachable by link only.
    assert alice.post("/api/tables", {"game": "chess"}).status_code == 400
    assert alice.post("/api/tables", {"game": "updown", "players": 9}).status_code == 400
    assert alice.post("/api/tables", {"game": "updown", "seats": ["me", "bot:nobody", "open", "open"]}).status_code == 400
    # A client never starts a program on the server: exec: bots are for the command line only.
    assert alice.post("/api/tables", {"game": "updown", "seats": ["me", "bot:exec:true", "open", "open"]}).status_code == 400
    assert alice.post("/api/tables", {"game": "updown", "options": {"rounds": -1}}).status_code == 400
    listed = make_table(alice, "updown", ["me", "open", "open", "open"])
    hidden = make_table(alice, "updown", ["me", "open", "open", "open"], private=True)
    ids = {t["id"] for t in alice.get("/api/tables").json()}
    assert listed["id"] in ids and hidden["id"] not in ids
    assert alice.get(f"/api/tables/{hidden['id']}").json()["status"] == "open"
    # Join, leave before the start, and the table starts once every seat is filled.
    bob = User(server, "bob")
    assert bob.post(f"/api/tables/{listed['id']}/join", {"seat": 0}).status_code == 409
    assert bob.post(f"/api/tables/{listed['id']}/join", {"seat": 2}).json()["seats"][2]["name"] == "bob"
    assert bob.post(f"/api/tables/{listed['id']}/leave").json()["seats"][2]["kind"] == "open"
    for name in ("carol", "dave", "erin"):
        last = User(server, name).post(f"/api/tables/{listed['id']}/join")
    assert last.json()["status"] == "running"


# -- recovery ----------------------------------------------------------------------------------------
def test_kill_9_at_random_moments_loses_no_acknowledged_action(db: str, tmp_path: Path) -> None:
    """20 SIGKILLs of a real server while two people and bots play three rated tables."""
    srv = Server(db, log=tmp_path / "server.log", bot_delay=0.0).start()
    rng = random.Random(11)
    try:
        people = [User(srv, f"p{i}") for i in range(6)]
        tables = []
        for i in range(3):
            a, b = people[2 * i], people[2 * i + 1]
            t = make_table(a, "updown", ["me", "open", "bot:greedy", "bot:random"], rated=True)
            b.post(f"/api/tables/{t['id']}/join")
            tables.append((t["id"], a, b))
        acked: list[tuple[str, int, str]] = []
        sent: list[tuple[str, int, str]] = []
        kills = 0
        clients: dict[tuple[str, int], Client] = {}
        pending: dict[tuple[str, int], dict[str, Any]] = {}
        deadline = time.time() + 240
        while time.time() < deadline:
            # (Re)connect every seat, resending what was not acknowledged.
            for tid, a, b in tables:
                for user, seat in ((a, 0), (b, 1)):
                    c = clients.get((tid, seat))
                    if c is None:
                        try:
                            c = Client(srv, tid, cookie=user.cookie(), since=None)
                        except Exception:
                            continue
                        clients[(tid, seat)] = c
                        if (tid, seat) in pending:
                            c.send(pending[(tid, seat)])
            stop_at = time.time() + rng.uniform(0.2, 1.0)
            while time.time() < stop_at:
                for (tid, seat), c in list(clients.items()):
                    try:
                        msg = c.recv(0.01)
                    except Exception:
                        clients.pop((tid, seat))
                        continue
                    if msg and msg["type"] == "ack":
                        acked.append((tid, seat, msg["id"]))
                        pending.pop((tid, seat), None)
                    if msg and msg["type"] == "error" and pending.get((tid, seat), {}).get("id") == msg["id"]:
                        pending.pop((tid, seat), None)
                    if c.legal and (tid, seat) not in pending and not c.finished():
                        m = {"type": "act", "id": uuid.uuid4().hex[:12], "action": rng.choice(c.legal)["id"]}
                        pending[(tid, seat)] = m
                        sent.append((tid, seat, m["id"]))
                        try:
                            c.send(m)
                        except Exception:
                            clients.pop((tid, seat))
            if kills < 20:
                srv.kill()
                kills += 1
                for c in clients.values():
                    try:
                        c.close()
                    except Exception:
                        pass
                clients.clear()
                srv.start()
            elif all(c.finished() for c in clients.values()) and len(clients) == 6:
                break
        assert kills == 20
        engine = create_engine(db)
        with engine.connect() as conn:
            stored = conn.execute(text("SELECT table_id, seat, client_id FROM steps WHERE client_id IS NOT NULL")).all()
            statuses = conn.execute(text("SELECT status FROM tables")).scalars().all()
        engine.dispose()
        stored_set = {(t, s, c) for t, s, c in stored}
        assert len(stored) == len(stored_set)  # nothing applied twice
        assert set(acked) <= stored_set  # every acknowledged action is there
        assert statuses.count("finished") == 3
        assert ledger_sum(db) == 0
        for tid, a, _b in tables:
            record = a.get(f"/api/tables/{tid}/record").json()
            assert replay(Record.from_dict(record)).is_terminal()
    finally:
        srv.stop()


# -- several processes -------------------------------------------------------------------------------
@needs("Redis", "UPDOWN_TEST_REDIS")
def test_two_processes_share_tables_through_redis(db: str, tmp_path: Path) -> None:
    if db.startswith("sqlite"):
        pytest.skip("several processes share a PostgreSQL database")
    one = Server(db, redis=REDIS, log=tmp_path / "one.log").start()
    two = Server(db, redis=REDIS, log=tmp_path / "two.log").start()
    try:
        alice, bob = User(one, "alice"), User(two, "bob")
        table = make_table(alice, "updown", ["me", "open", "bot:greedy", "bot:random"])
        assert bob.post(f"/api/tables/{table['id']}/join").json()["status"] == "running"
        ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
        watcher = Client(two, table["id"])
        play_out([ca, cb], random.Random(9), timeout=180)
        watcher.until(lambda m: m["type"] == "table" and m["table"]["status"] == "finished", 30)
        record = alice.get(f"/api/tables/{table['id']}/record").json()
        assert replay(Record.from_dict(record)).is_terminal()
        for c in (ca, cb, watcher):
            check_no_leak(record, c)
    finally:
        one.stop()
        two.stop()


def test_languages_event_lines_rules_and_catalogue(server: Server) -> None:
    alice = User(server, "alice")
    table = make_table(alice, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"])
    by_lang = {}
    for lang in ("en", "de", "pt"):
        c = Client(server, table["id"], cookie=alice.cookie(), watch=True, lang=lang)
        snap = c.until(lambda m: m["type"] == "snapshot")
        by_lang[lang] = snap
        c.close()
    n = min(len(s["lines"]) for s in by_lang.values())
    assert n > 0
    # The same events, told in three languages (the catalogue shared with the terminal): each
    # language differs from both others.
    en, de, pt = (by_lang[lang]["lines"][:n] for lang in ("en", "de", "pt"))
    assert en != de and en != pt and de != pt
    rules = {lang: alice.get(f"/api/rules/euchre?lang={lang}").json() for lang in ("en", "de", "pt")}
    assert {r["lang"] for r in rules.values()} == {"en", "de", "pt"}
    assert len({r["markdown"] for r in rules.values()}) == 3
    assert alice.get("/api/rules/chess").status_code == 404
    cat = alice.get("/api/i18n/de").json()
    assert cat["lang"] == "de" and len(cat["messages"]) > 100


def test_a_research_variant_is_not_offered_for_play(server: Server) -> None:
    """UP&DOWN's reduced research decks are for research tools: the server refuses them, rated or not."""
    alice = User(server, "resa")
    for rated in (False, True):
        r = alice.post("/api/tables", {"game": "updown", "players": 2, "seats": ["me", "bot:random"],
                                        "options": {"rounds": 1, "deck": "4:DS:2"}, "rated": rated})
        assert r.status_code == 400 and "research variant" in r.json()["detail"], r.text
    r = alice.post("/api/tables", {"game": "updown", "players": 2, "seats": ["me", "bot:random"],
                                    "options": {"rounds": 1, "deck": "full"}})
    assert r.status_code == 200, r.text


def test_hints_for_ones_own_seat_on_unrated_tables_only(server: Server) -> None:
    alice, bob = User(server, "alice"), User(server, "bob")
    table = make_table(alice, "euchre", ["me", "bot:greedy", "bot:greedy", "bot:greedy"])
    ca = alice.socket(table["id"])
    ca.until(lambda m: m["type"] in ("frame", "snapshot") and bool(m["legal"]), 30)
    r = alice.get(f"/api/tables/{table['id']}/hint?budget=60")
    assert r.status_code == 200, r.text
    hints = r.json()["hints"]
    assert {h["id"] for h in hints} == {a["id"] for a in ca.legal}  # exactly this seat's legal actions
    assert hints[0]["best"] and hints == sorted(hints, key=lambda h: -h["estimate"])
    assert bob.get(f"/api/tables/{table['id']}/hint").status_code == 403  # not seated: nothing
    rated = make_table(alice, "updown", ["me", "bot:greedy", "bot:greedy", "bot:greedy"], rated=True)
    assert alice.get(f"/api/tables/{rated['id']}/hint").status_code == 403
