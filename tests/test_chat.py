"""The table's chat and its watchers (issue 32), over a real ``updown serve``: a line reaches every
socket of the table (one process, and two over Redis, and while Redis is away), is stored with the
game and read back over HTTP; it is plain text within its length and rate; a signed-out spectator
reads but does not write; during a rated game only the preset phrases; and chat carries nothing but
what its author said, the same for every reader, so no chat path gives a spectator or a player a
hand card they would not otherwise have. The page's side is in the browser tests at the end."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from websockets.exceptions import ConnectionClosed

from server_util import Client, Server, User, check_no_leak, db_rows, free_port, http_client, make_table, play_out

LINE_KEYS = {"seq", "name", "seat", "text", "preset", "at"}
CARD = re.compile(r"\b(10|[2-9JQKA])[CDHS]\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("chat")
    # Limits no test can reach by accident, whatever the machine's speed: the rate tests set their own.
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log",
                 extra_args=["--limit", "chat_per_socket=5/hour", "--limit", "chat_per_account=8/hour",
                             # the module makes more than the default 20 accounts an hour from 127.0.0.1
                             "--limit", "accounts_per_address=1000/hour"]).start()
    yield srv
    srv.stop()


def take(client: Client, pred: Any, cursor: str, timeout: float = 20.0) -> dict[str, Any]:
    """The next message (after the last one this cursor took) that ``pred`` accepts: messages
    that came while the test waited for another one are not lost."""
    deadline = time.time() + timeout
    while True:
        start = client.__dict__.get(cursor, 0)
        for i in range(start, len(client.raw)):
            msg = json.loads(client.raw[i])
            if pred(msg):
                client.__dict__[cursor] = i + 1
                return msg
        client.__dict__[cursor] = len(client.raw)
        if time.time() > deadline:
            raise TimeoutError(f"no such message in {timeout} s")
        client.recv(max(0.05, deadline - time.time()))


def said(client: Client, timeout: float = 20.0) -> dict[str, Any]:
    """The next chat message that is not the history."""
    return take(client, lambda m: m["type"] == "chat" and not m.get("history"), "_said", timeout)


def reply(client: Client, cid: str) -> dict[str, Any]:
    """The ack or error for our message ``cid``."""
    return take(client, lambda m: m["type"] in ("ack", "error") and m.get("id") == cid, "_reply_" + cid)


def history(client: Client) -> str:
    """The raw text of the chat history the socket got when it connected."""
    take(client, lambda m: m["type"] == "chat" and bool(m.get("history")), "_history")
    return client.raw[client.__dict__["_history"] - 1]


def answer_or_close(client: Client, cid: str, text: str) -> tuple[str, Any]:
    """Send a chat line ``text`` with id ``cid``: ("error", code) for an error answering it, ("ack",
    None), or ("closed", close code) when the socket was closed before or instead of an answer."""
    try:
        client.send({"type": "chat", "id": cid, "text": text})
        msg = reply(client, cid)
    except ConnectionClosed as closed:
        return "closed", closed.rcvd.code if closed.rcvd else None
    return msg["type"], msg.get("code")


def db_exec(db: str, query: str, **params: Any) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(db)
    with engine.begin() as conn:
        conn.execute(text(query), params)
    engine.dispose()


def test_a_line_reaches_every_socket_of_the_table_and_is_stored(server: Server) -> None:
    alice, bob, carol = User(server, "ann-c1"), User(server, "bob-c1"), User(server, "cyd-c1")
    table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"])
    bob.post(f"/api/tables/{table['id']}/join")
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    watcher, anonymous = carol.socket(table["id"]), Client(server, table["id"])
    assert (ca.seat, cb.seat, watcher.seat, anonymous.seat) == (0, 1, None, None)
    ca.send({"type": "chat", "id": "c1", "text": "  good\n luck,\tall  "})
    assert reply(ca, "c1")["type"] == "ack"
    got = [said(c) for c in (ca, cb, watcher, anonymous)]
    assert all(g == got[0] for g in got)  # one message, the same for every reader
    (line,) = got[0]["lines"]
    assert set(line) == LINE_KEYS
    assert (line["name"], line["seat"], line["text"], line["preset"]) == ("ann-c1", 0, "good luck, all", None)
    # A spectator with an account writes (seat None); one without reads only.
    watcher.send({"type": "chat", "id": "w1", "preset": "hello"})
    assert reply(watcher, "w1")["type"] == "ack"
    (line2,) = said(cb)["lines"]
    assert (line2["name"], line2["seat"], line2["text"], line2["preset"]) == ("cyd-c1", None, "Hello", "hello")
    anonymous.send({"type": "chat", "id": "x1", "text": "let me in"})
    refused = reply(anonymous, "x1")
    assert refused["code"] == "chat-sign-in" and "sign in" in refused["message"]
    # Stored with the game: the step count then, the author's account, seat or spectator.
    rows = db_rows(server.db, "SELECT seq, n, account_id, seat, text, preset FROM chat WHERE table_id = :t "
                              "ORDER BY seq", t=table["id"])
    steps = db_rows(server.db, "SELECT COUNT(*) FROM steps WHERE table_id = :t", t=table["id"])[0][0]
    assert [(r[0], r[2], r[3], r[4], r[5]) for r in rows] == [
        (1, alice.me["id"], 0, "good luck, all", None), (2, carol.me["id"], None, "Hello", "hello")]
    assert all(0 <= r[1] <= steps for r in rows)
    # Read back over HTTP by anyone who has the table's id, signed in or not.
    with http_client(base_url=server.base) as http:
        public = http.get(f"/api/tables/{table['id']}/chat").json()
    assert [ln["text"] for ln in public["lines"]] == ["good luck, all", "Hello"]
    assert all("step" not in ln for ln in public["lines"])  # a running game: no step numbers
    assert set(public["presets"]) >= {"hello", "good-game", "well-played", "thanks", "oops"}
    for c in (ca, cb, watcher, anonymous):
        c.close()


def test_a_new_socket_gets_the_same_history_whoever_it_is(server: Server) -> None:
    alice, bob, carol = User(server, "ann-c2"), User(server, "bob-c2"), User(server, "cyd-c2")
    table = make_table(alice, "euchre", ["me", "open", "bot:random", "bot:random"])
    bob.post(f"/api/tables/{table['id']}/join")
    ca = alice.socket(table["id"])
    for i, text in enumerate(["one", "two", "three"]):
        ca.send({"type": "chat", "id": f"h{i}", "text": text})
        assert reply(ca, f"h{i}")["type"] == "ack"
    readers = [bob.socket(table["id"]), carol.socket(table["id"]), Client(server, table["id"]),
               alice.socket(table["id"], watch=True), Client(server, table["id"], lang="de")]
    texts = {history(r) for r in readers}
    assert len(texts) == 1, texts
    got = json.loads(texts.pop())
    assert [ln["text"] for ln in got["lines"]] == ["one", "two", "three"] and got["more"] is False
    assert all(set(ln) == LINE_KEYS for ln in got["lines"])
    for c in (ca, *readers):
        c.close()


def test_a_line_is_plain_text_of_at_most_200_characters(server: Server) -> None:
    alice = User(server, "ann-c3")
    table = make_table(alice, "up-or-down", ["me", "bot:random", "bot:random"], players=3)
    ca = alice.socket(table["id"])
    cases = [
        ({"text": "x" * 201}, "chat-too-long"),
        ({"text": " \n\t "}, "chat-empty"),
        ({"text": 5}, "malformed"),
        ({"text": "hi", "preset": "hello"}, "malformed"),
        ({}, "malformed"),
        ({"preset": "<b>"}, "chat-preset"),
    ]
    for i, (body, code) in enumerate(cases):
        ca.send({"type": "chat", "id": f"bad{i}", **body})
        err = reply(ca, f"bad{i}")
        assert err["type"] == "error" and err["code"] == code, (body, err)
    long = next(e for e in ca.errors if e["id"] == "bad0")
    assert long["params"] == {"max": 200, "length": 201} and "200" in long["message"]
    # Two hundred characters pass; markup is text (the page shows it as text); control and
    # bidirectional characters go.
    ca.send({"type": "chat", "id": "ok1", "text": "y" * 200})
    assert reply(ca, "ok1")["type"] == "ack"
    ca.send({"type": "chat", "id": "ok2", "text": "<img src=x onerror=alert(1)>\x00\x1b[31m\u202egg"})
    assert reply(ca, "ok2")["type"] == "ack"
    lines = [ln for m in [said(ca), said(ca)] for ln in m["lines"]]
    assert [ln["text"] for ln in lines] == ["y" * 200, "<img src=x onerror=alert(1)> [31mgg"]
    assert db_rows(server.db, "SELECT COUNT(*) FROM chat WHERE table_id = :t", t=table["id"])[0][0] == 2
    ca.close()


def test_chat_is_limited_per_socket_and_per_account(server: Server) -> None:
    """5 lines per socket and 8 per account (this server's limits, per hour so that no test is
    timed): the sixth line of a socket is refused with rate-limited and not stored; a second socket
    of the same account gets three more, then the account's limit refuses."""
    alice = User(server, "ann-c4")
    table = make_table(alice, "updown", ["me", "bot:random", "bot:random", "bot:random"])
    one, two = alice.socket(table["id"]), alice.socket(table["id"], watch=True)
    for i in range(5):
        one.send({"type": "chat", "id": f"a{i}", "text": f"line {i}"})
        assert reply(one, f"a{i}")["type"] == "ack"
    one.send({"type": "chat", "id": "a5", "text": "one too many"})
    err = reply(one, "a5")
    assert err["code"] == "rate-limited" and err["params"]["retry_after"] > 0
    for i in range(3):
        two.send({"type": "chat", "id": f"b{i}", "text": f"more {i}"})
        assert reply(two, f"b{i}")["type"] == "ack"
    two.send({"type": "chat", "id": "b3", "text": "past the account's limit"})
    assert reply(two, "b3")["code"] == "rate-limited"
    texts = [r[0] for r in db_rows(server.db, "SELECT text FROM chat WHERE table_id = :t", t=table["id"])]
    assert len(texts) == 8 and "one too many" not in texts and "past the account's limit" not in texts
    # Refused chat lines did not use up the socket's other messages: it still plays.
    one.send({"type": "ping", "id": "p"})
    assert one.until(lambda m: m["type"] == "pong")["id"] == "p"
    one.close()
    two.close()


def test_chat_checks_the_session_and_seat_at_the_message(server: Server) -> None:
    """Checked at each message, not at connect: sessions ended behind the server's back (deleted
    from the database, which the server notices within its re-read) give no line, whichever comes
    first: the refusal (not-your-seat for a seat, chat-sign-in for a spectator) or the close."""
    alice, carol = User(server, "ann-c5"), User(server, "cyd-c5")
    table = make_table(alice, "updown", ["me", "bot:random", "bot:random", "bot:random"])
    ca, cw = alice.socket(table["id"]), carol.socket(table["id"])
    for c in (ca, cw):
        history(c)
    db_exec(server.db, "DELETE FROM sessions WHERE account_id IN (:a, :c)", a=alice.me["id"], c=carol.me["id"])
    assert answer_or_close(ca, "s1", "signed out player") in (("error", "not-your-seat"), ("closed", 4001))
    assert answer_or_close(cw, "s2", "signed out spectator") in (("error", "chat-sign-in"), ("closed", 4001))
    assert db_rows(server.db, "SELECT COUNT(*) FROM chat WHERE table_id = :t", t=table["id"])[0][0] == 0
    # Leaving is final: the seat's other socket is closed, and a line from it is refused.
    bob = User(server, "bob-c5")
    other = make_table(bob, "updown", ["me", "bot:random", "bot:random", "bot:random"])
    cb, stale = bob.socket(other["id"]), bob.socket(other["id"])
    history(stale)
    cb.send({"type": "leave", "id": "bye"})
    assert reply(cb, "bye")["type"] == "ack"
    assert answer_or_close(stale, "s3", "still here?") in (("error", "not-your-seat"), ("closed", 4001))
    assert db_rows(server.db, "SELECT COUNT(*) FROM chat WHERE table_id = :t", t=other["id"])[0][0] == 0


def test_a_rated_game_takes_only_the_presets_until_it_is_over(server: Server) -> None:
    """Free text during a rated game could carry a hand from partner to partner (or from a player
    who left, who still knows their cards): every author, seated, watching from another tab, a
    spectator, gets chat-presets-only; the presets pass. After the game, free text again, and the
    lines say at which step they came."""
    alice, bob, carol = User(server, "ann-c6"), User(server, "bob-c6"), User(server, "cyd-c6")
    table = make_table(alice, "euchre", ["me", "bot:random", "open", "bot:random"], rated=True)
    bob.post(f"/api/tables/{table['id']}/join")  # Bob is Alice's partner (seats 0 and 2)
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    spy, spectator = bob.socket(table["id"], watch=True), carol.socket(table["id"])
    for i, c in enumerate((ca, spy, spectator)):
        c.send({"type": "chat", "id": f"t{i}", "text": "I hold the right bower"})
        err = reply(c, f"t{i}")
        assert err["code"] == "chat-presets-only", err
    ca.send({"type": "chat", "id": "p1", "preset": "good-luck"})
    assert reply(ca, "p1")["type"] == "ack"
    (line,) = said(cb)["lines"]
    assert (line["preset"], line["text"], line["seat"]) == ("good-luck", "Good luck", 0)
    play_out([ca, cb], random.Random(6), timeout=240)
    ca.send({"type": "chat", "id": "after", "text": "gg, I held the right bower"})
    assert reply(ca, "after")["type"] == "ack"
    final = alice.get(f"/api/tables/{table['id']}/chat").json()["lines"]
    assert [ln["text"] for ln in final] == ["Good luck", "gg, I held the right bower"]
    steps = db_rows(server.db, "SELECT COUNT(*) FROM steps WHERE table_id = :t", t=table["id"])[0][0]
    assert final[-1]["step"] == steps and 0 <= final[0]["step"] < steps
    for c in (ca, cb, spy, spectator):
        c.close()


def test_chat_carries_no_hand_card_nobody_typed(server: Server) -> None:
    """A whole game of UP&DOWN with chat at every turn: the players type a fixed line and a preset,
    a spectator types too, and messages try to smuggle fields in (seat, view, since). Every chat
    message every socket receives holds exactly the lines' keys and what was typed (no card the
    readers' views do not show), the frames are still exactly each seat's views, and the history a
    late socket gets is the same for a player and a spectator."""
    alice, bob, carol = User(server, "ann-c7"), User(server, "bob-c7"), User(server, "cyd-c7")
    table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"])
    bob.post(f"/api/tables/{table['id']}/join")
    ca, cb = alice.socket(table["id"]), bob.socket(table["id"])
    spectator, anonymous = carol.socket(table["id"]), Client(server, table["id"])
    typed: list[str] = []
    lines_of: dict[int | None, int] = {0: 0, 1: 0}

    def on_turn(c: Client, k: int) -> None:
        if lines_of[c.seat] >= 4:  # within this server's limit of 5 lines per socket
            return
        lines_of[c.seat] += k % 2 == 0
        if k % 4 == 0:
            text = f"turn {k}, seat {c.seat}"
            typed.append(text)
            c.send({"type": "chat", "id": f"chat-{k}", "text": text, "seat": 1 - (c.seat or 0), "view": True,
                    "since": 0, "hand": "all"})
        elif k % 4 == 2:
            typed.append("Well played")
            c.send({"type": "chat", "id": f"chat-{k}", "preset": "well-played"})

    spectator.send({"type": "chat", "id": "spec", "text": "watching"})
    typed.append("watching")
    play_out([ca, cb], random.Random(7), timeout=240, on_turn=on_turn)
    for c in (spectator, anonymous):
        take(c, lambda m: m["type"] == "table" and m["table"]["status"] == "finished", "_end", 60)
    record = alice.get(f"/api/tables/{table['id']}/record").json()
    stored = [r[0] for r in db_rows(server.db, "SELECT text FROM chat WHERE table_id = :t ORDER BY seq",
                                    t=table["id"])]
    assert sorted(stored) == sorted(typed) and len(stored) >= 4
    for c in (ca, cb, spectator, anonymous):
        while c.recv(0.3):
            pass
        lines = [ln for raw in c.raw for m in [json.loads(raw)] if m["type"] == "chat" for ln in m["lines"]]
        assert sorted(ln["text"] for ln in lines) == sorted(stored), c.seat
        for ln in lines:
            assert set(ln) == LINE_KEYS and ln["text"] in typed
            assert not CARD.search(ln["text"])  # nobody typed a card; the server added none
        check_no_leak(record, c)  # the frames are still exactly the seat's views
    late = [bob.socket(table["id"]), Client(server, table["id"]), carol.socket(table["id"])]
    assert len({history(c) for c in late}) == 1
    for c in (ca, cb, spectator, anonymous, *late):
        c.close()


def test_watchers_are_counted_and_signed_in_ones_named(server: Server) -> None:
    alice, carol, dan = User(server, "ann-c8"), User(server, "Cyd C8"), User(server, "dan-c8", guest=True)
    table = make_table(alice, "updown", ["me", "bot:random", "bot:random", "bot:random"])
    ca = alice.socket(table["id"])

    def watching(count: int, names: list[str]) -> dict[str, Any]:
        return take(ca, lambda m: m["type"] == "watchers" and m["count"] == count and m["names"] == names, "_w")

    first = watching(0, [])
    assert set(first) == {"type", "count", "names"}
    cw = carol.socket(table["id"])
    watching(1, ["Cyd C8"])
    anon1, anon2 = Client(server, table["id"]), Client(server, table["id"])
    watching(3, ["Cyd C8"])
    cd = dan.socket(table["id"])
    also = carol.socket(table["id"])  # a second tab of Carol's is still one watcher
    mine = alice.socket(table["id"], watch=True)  # a player watching in another tab is not a spectator
    watching(4, sorted(["Cyd C8", dan.name], key=str.casefold))
    for c in (anon1, anon2, cd):
        c.close()
    watching(1, ["Cyd C8"])
    assert take(cw, lambda m: m["type"] == "watchers" and m["count"] == 1, "_w")["names"] == ["Cyd C8"]
    for c in (ca, cw, also, mine):
        c.close()


# -- several processes -----------------------------------------------------------------------------
PG = os.environ.get("UPDOWN_TEST_POSTGRES")


class OwnRedis:
    """A Redis of this test's own, which it stops and starts (no other test uses it)."""

    def __init__(self, where: Path):
        self.port = free_port()
        self.where = where

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        subprocess.run(["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--save", "",
                        "--appendonly", "no", "--daemonize", "yes", "--pidfile", str(self.where / "redis.pid"),
                        "--logfile", str(self.where / "redis.log")], check=True, capture_output=True, timeout=30)
        for _ in range(200):
            ping = subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True)
            if ping.stdout.strip() == "PONG":
                return
            time.sleep(0.05)
        raise RuntimeError("Redis did not start")

    def stop(self) -> None:
        subprocess.run(["redis-cli", "-p", str(self.port), "shutdown", "nosave"], capture_output=True, timeout=30)
        for _ in range(200):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) != 0:
                    return
            time.sleep(0.05)


@pytest.mark.skipif(PG is None or shutil.which("redis-server") is None,
                    reason="several processes need UPDOWN_TEST_POSTGRES (and redis-server, from "
                           "eval \"$(.ci/services start)\")")
def test_chat_and_watchers_across_processes_with_and_without_redis(tmp_path: Path) -> None:
    """Alice on process one, Bob and a spectator on process two: a line reaches all of them, and the
    spectator on two is counted on one. With Redis stopped, lines still arrive (each process reads
    its tables' new lines from the database every second), in order and once each."""
    from test_server import fresh_pg_db

    redis = OwnRedis(tmp_path)
    redis.start()
    db = fresh_pg_db()
    one = Server(db, redis=redis.url, log=tmp_path / "one.log").start()
    two = Server(db, redis=redis.url, log=tmp_path / "two.log").start()
    try:
        alice, bob, carol = User(one, "ann-c9"), User(one, "bob-c9"), User(one, "cyd-c9")
        table = make_table(alice, "updown", ["me", "open", "bot:random", "bot:random"])
        bob.post(f"/api/tables/{table['id']}/join")
        ca = alice.socket(table["id"])
        cb = Client(two, table["id"], cookie=bob.cookie())
        cw = Client(two, table["id"], cookie=carol.cookie())
        take(ca, lambda m: m["type"] == "watchers" and m["names"] == ["cyd-c9"], "_w", 30)
        ca.send({"type": "chat", "id": "r1", "text": "over redis"})
        cb.send({"type": "chat", "id": "r2", "text": "and back"})
        for c in (ca, cb, cw):
            texts: list[str] = []
            while len(texts) < 2:  # one message may carry both lines (caught up together)
                texts += [ln["text"] for ln in said(c, 30)["lines"]]
            assert sorted(texts) == ["and back", "over redis"]
        redis.stop()
        for i in range(3):
            ca.send({"type": "chat", "id": f"d{i}", "text": f"no redis {i}"})
            assert reply(ca, f"d{i}")["type"] == "ack"
        for c in (cb, cw):
            got: list[str] = []
            while len(got) < 3:
                got += [ln["text"] for ln in said(c, 30)["lines"]]
            assert got == ["no redis 0", "no redis 1", "no redis 2"]
        redis.start()
        cw.send({"type": "chat", "id": "back", "text": "redis is back"})
        mine: list[str] = []
        while "redis is back" not in mine:
            mine += [ln["text"] for ln in said(ca, 30)["lines"]]
        assert mine == ["no redis 0", "no redis 1", "no redis 2", "redis is back"]
        for c in (ca, cb, cw):
            c.close()
    finally:
        one.stop()
        two.stop()
        redis.stop()


# -- the page --------------------------------------------------------------------------------------
def test_the_page_shows_chat_as_text_in_each_readers_language_and_who_watches(server: Server) -> None:
    """Ana plays (German, a 360 px phone), Bea watches as a guest (Portuguese, 1280 px), a visitor
    without an account watches too (English). Markup Ana types is shown as text to everyone, and
    runs nothing; Bea's preset is said in each reader's language; the visitor reads but has no
    box to write in; Ana sees who watches; and what Ana is typing, and her focus, survive the
    table being drawn again."""
    pw = pytest.importorskip("playwright.sync_api")
    from web_util import CHROMIUM, CHROMIUM_ARGS, CHROMIUM_MISSING, SKIP_REASON, create_table, guest, new_page, \
        register, shot, sideways

    if CHROMIUM_MISSING:
        pytest.skip(SKIP_REASON)
    with pw.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        ana = new_page(browser, server.base, width=360, height=740, lang="de")
        bea = new_page(browser, server.base, width=1280, height=800, lang="pt")
        visitor = new_page(browser, server.base, width=1280, height=800, lang="en")
        register(ana, "Ana Chat")
        table = create_table(ana, "euchre", ["me", "bot:greedy", "bot:normal", "bot:hard"], {"deals": 1})
        guest(bea, "Bea")
        bea_name = bea.inner_text(".me-name")
        for page in (bea, visitor):
            page.goto(f"/t/{table}")
            page.wait_for_selector("[data-chat] .chat-empty")
        ana.wait_for_selector("[data-watchers='2']")
        assert ana.inner_text("[data-watchers]") == f"2 Zuschauer: {bea_name} und 1 weitere"
        assert visitor.is_hidden("input[name=chat]") and visitor.is_hidden("[data-preset]")
        assert visitor.is_visible("[data-chat] a[href^='/signin']")

        markup = '<img src=x onerror="window.__pwned = 1"><b>bold</b>'
        ana.fill("input[name=chat]", markup)
        ana.click("[data-chat-send]")
        for page in (ana, bea, visitor):
            page.wait_for_selector(".chat-lines li[data-seq='1']")
            assert page.inner_text(".chat-lines li[data-seq='1'] .chat-text") == markup
            assert page.locator("[data-chat] img, [data-chat] b").count() == 0
            assert page.evaluate("window.__pwned") is None
        ana.wait_for_function("() => document.querySelector('input[name=chat]').value === ''")

        bea.click("[data-preset='well-played']")
        said_as = {"de": "Gut gespielt", "pt": "Bem jogado", "en": "Well played"}
        for page, lang in ((ana, "de"), (bea, "pt"), (visitor, "en")):
            page.wait_for_selector(".chat-lines li[data-seq='2']")
            line = page.inner_text(".chat-lines li[data-seq='2']")
            assert bea_name in line and line.endswith(said_as[lang]), line
        assert "espetador" in bea.inner_text(".chat-lines li[data-seq='2'] .tag")

        # Ana starts a line; the table changes (the visitor leaves: the watchers change) and is
        # patched in place, the chat's field with it.
        ana.click("input[name=chat]")
        ana.keyboard.type("halb")
        visitor.close()
        ana.wait_for_selector("[data-watchers='1']")
        assert ana.evaluate("document.activeElement.name") == "chat"
        ana.keyboard.type(" fertig")
        assert ana.input_value("input[name=chat]") == "halb fertig"
        ana.keyboard.press("Enter")
        bea.wait_for_selector(".chat-lines li[data-seq='3']")
        assert bea.inner_text(".chat-lines li[data-seq='3'] .chat-text") == "halb fertig"

        width, out = sideways(ana)
        assert width <= 360 and not out, (width, out)
        ana.locator("[data-chat]").scroll_into_view_if_needed()
        shot(ana, "chat-de-360")
        shot(bea, "chat-pt-1280")
        assert ana.errors == [] and bea.errors == []
        browser.close()
