"""The table's chat in the game's record and in the replays (issue 32): a finished table's record
carries every chat line with its number, author, seat (or spectator), text, time and the number of
moves played when it was said; a running table's spectator view carries the lines so far, placed by
the events a spectator had seen (never by the step count, which would tell when hidden steps
happened). Chat never changes the game: a record replays the same with or without it. A malformed
line is refused with an error naming the line and what is wrong, and a record without chat still
loads. The browser's replay viewer and ``updown replay`` show each line at its moment, as text."""

from __future__ import annotations

import copy
import json
import os
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server_util import Client, Server, User, db_rows, make_table, play_out
from updown.bots import make_bot
from updown.core.driver import play_game
from updown.core.errors import RecordError
from updown.core.records import Record, new_state_for, replay
from updown.core.registry import get_game
from updown.web.replay import ReplayError, replay_steps

ROOT = Path(__file__).resolve().parent.parent
MARKUP = '<img src=x onerror="window.__pwned = 1"><b>bold</b>'


# -- the record format, without a server ----------------------------------------------------------
def bot_game(seed: int = 5, players: int = 3) -> dict[str, Any]:
    """A finished UP&DOWN game of random bots, as a record's JSON object (no chat)."""
    game = get_game("updown")
    bots = [make_bot("random", game, s, random.Random(seed + s)) for s in range(players)]
    _state, record = play_game(game, players, bots, random.Random(seed),
                               options=game.Options.from_dict({"rounds": 1}), seats=["Kim", "Alex", "Sam"][:players])
    return record.to_dict()


def moves_of(record: dict[str, Any]) -> int:
    count = 0

    def on_step(*_: Any) -> None:
        nonlocal count
        count += 1
    replay(Record.from_dict(record), on_step=on_step)
    return count


def trace(record: dict[str, Any]) -> tuple[list[Any], Any, list[Any]]:
    """Everything a replay shows: the log, the result, and the state's views after every move."""
    seen: list[Any] = []
    state = replay(Record.from_dict(record), on_step=lambda st, seat, action: seen.append(
        (seat, action, json.dumps(st.view(None), sort_keys=True), [json.dumps(st.view(s), sort_keys=True)
                                                                   for s in range(st.players)])))
    return state.log, state.result().to_dict(), seen


def with_chat(record: dict[str, Any], total: int) -> dict[str, Any]:
    out = copy.deepcopy(record)
    out["chat"] = [
        {"seq": 1, "name": "Kim", "seat": 0, "text": "good luck", "moves": 0, "at": 1764160000.25},
        {"seq": 2, "name": "Zoe", "seat": None, "text": MARKUP, "moves": 20, "at": 1764160030.0},
        {"seq": 3, "name": "Alex", "seat": 1, "text": "Good game", "preset": "good-game", "moves": total},
        {"seq": 4, "name": "Sam", "seat": 2, "text": "said when?"},  # no moment: shown at the start
    ]
    return out


def test_a_record_with_chat_keeps_it_and_replays_the_same_game() -> None:
    plain = bot_game()
    total = moves_of(plain)
    chatty = with_chat(plain, total)
    rec = Record.from_json(json.dumps(chatty))
    assert [(c.seq, c.name, c.seat, c.text, c.moves, c.preset) for c in rec.chat] == [
        (1, "Kim", 0, "good luck", 0, None), (2, "Zoe", None, MARKUP, 20, None),
        (3, "Alex", 1, "Good game", total, "good-game"), (4, "Sam", 2, "said when?", None, None)]
    assert rec.chat[0].at == 1764160000.25
    again = json.loads(rec.to_json())
    assert again["chat"] == chatty["chat"]  # written back as read
    assert {k: v for k, v in again.items() if k != "chat"} == plain
    # Chat never changes the game: the same log, result and every view after every move.
    assert trace(chatty) == trace(plain)


def test_a_record_without_chat_loads_and_writes_no_chat_key() -> None:
    plain = bot_game(seed=9)
    rec = Record.from_dict(plain)
    assert rec.chat == []
    assert "chat" not in rec.to_dict() and rec.to_dict() == plain
    assert replay_steps(json.dumps(plain).encode())["chat"] == []
    assert Record.from_dict({**plain, "chat": None}).chat == []


@pytest.mark.parametrize(("line", "says"), [
    ("hello", "chat line 2: a chat line is an object"),
    ({"name": "Kim", "seat": 0}, "chat line 2 has no 'text'"),
    ({"text": 5}, "chat line 2: 'text' must be a string"),
    ({"text": "x" * 1001}, "chat line 2: the text has 1,001 characters (at most 1,000)"),
    ({"text": "hi", "name": ["Kim"]}, "chat line 2: 'name' must be a string"),
    ({"text": "hi", "seat": 3}, "chat line 2: 'seat' is 3: a seat is 0 to 2, or null for a spectator"),
    ({"text": "hi", "seat": "0"}, "chat line 2: 'seat' is '0'"),
    ({"text": "hi", "seat": True}, "chat line 2: 'seat' is True"),
    ({"text": "hi", "moves": -1}, "chat line 2: 'moves' is -1: the number of moves played before it"),
    ({"text": "hi", "moves": 2.5}, "chat line 2: 'moves' is 2.5"),
    ({"text": "hi", "seq": 0}, "chat line 2: 'seq' is 0"),
    ({"text": "hi", "at": "noon"}, "chat line 2: 'at' is 'noon': the time it was said"),
    ({"text": "hi", "preset": 7}, "chat line 2: 'preset' must be"),
    ({"text": "hi", "move": 3}, "chat line 2: unknown key 'move'"),
])
def test_a_malformed_chat_line_is_refused_naming_the_line_and_what_is_wrong(line: Any, says: str) -> None:
    record = bot_game(seed=3)
    record["chat"] = [{"name": "Kim", "seat": 0, "text": "fine"}, line]
    with pytest.raises(RecordError) as err:
        Record.from_dict(record)
    assert says in str(err.value)
    with pytest.raises(ReplayError) as viewer:  # the browser's viewer says the same
        replay_steps(json.dumps(record).encode())
    assert says in str(viewer.value)


def test_chat_that_is_not_a_list_or_after_the_last_move_is_refused() -> None:
    record = bot_game(seed=4)
    total = moves_of(record)
    for chat, says in (({"text": "hi"}, "'chat' must be a list of lines"),
                       ([{"text": "hi"}] * 10_001, "the record has 10,001 chat lines (at most 10,000)")):
        with pytest.raises(RecordError, match=re.escape(says)):
            Record.from_dict({**record, "chat": chat})
    late = Record.from_dict({**record, "chat": [{"text": "ok", "moves": total}, {"text": "late", "moves": total + 1}]})
    late_says = f"chat line 2 is at move {total + 1:,}, but the record has only {total:,} moves"
    with pytest.raises(RecordError, match=re.escape(late_says)):
        replay(late)


def test_the_viewer_places_each_line_after_its_moves_as_plain_strings() -> None:
    plain = bot_game()
    total = moves_of(plain)
    out = replay_steps(json.dumps(with_chat(plain, total)).encode())
    assert len(out["steps"]) == total + 1  # the start, then one step per move
    assert [(c["seq"], c["name"], c["seat"], c["text"], c["step"]) for c in out["chat"]] == [
        (1, "Kim", 0, "good luck", 0), (2, "Zoe", None, MARKUP, 20), (3, "Alex", 1, "Good game", total),
        (4, "Sam", 2, "said when?", 0)]
    assert out["chat"][2]["preset"] == "good-game" and out["chat"][0]["at"] == 1764160000.25
    # The viewer's steps are those of the record without chat.
    assert out["steps"] == replay_steps(json.dumps(plain).encode())["steps"]


def updown_replay(path: Path, *args: str) -> list[str]:
    env = {**os.environ, "COLUMNS": "2000", "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "updown.cli.app", "replay", str(path), *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_terminal_replay_prints_each_line_after_its_move(tmp_path: Path) -> None:
    plain = bot_game()
    total = moves_of(plain)
    chatty = with_chat(plain, total)
    chatty["chat"][1]["text"] = "[bold]not markup[/bold] \x1b[31mred"
    (tmp_path / "plain.json").write_text(json.dumps(plain))
    (tmp_path / "chat.json").write_text(json.dumps(chatty))
    without = updown_replay(tmp_path / "plain.json")
    lines = updown_replay(tmp_path / "chat.json")
    said = [k for k, line in enumerate(lines) if line.startswith("» ")]
    assert [line for k, line in enumerate(lines) if k not in said] == without  # the game as without chat
    assert [lines[k] for k in said] == ["» Kim: good luck", "» Sam: said when?",
                                         "» Zoe (spectator): [bold]not markup[/bold] ?[31mred", "» Alex: Good game"]
    # Each line after the events of its move, before the next move's: the events printed by then.
    printed = [0]

    def on_step(state: Any, _seat: Any, _action: Any) -> None:
        printed.append(sum(1 for e in state.log if e["type"] != "chose"))
    replay(Record.from_dict(plain), on_step=on_step)
    title = 1
    assert said == [title + 0 + printed[0], title + 1 + printed[0], title + 2 + printed[20], title + 3 + printed[total]]
    assert said[:2] == [1, 2] and said[3] < len(lines) - 1  # the last: after every event, before the standings
    de = updown_replay(tmp_path / "chat.json", "--lang", "de")
    assert "» Zoe (Zuschauer): [bold]not markup[/bold] ?[31mred" in de
    as_json = json.loads("\n".join(updown_replay(tmp_path / "chat.json", "--json")))
    assert as_json["chat"] == Record.from_dict(chatty).to_dict()["chat"]


# -- a table in memory (``Live``), its store faked -------------------------------------------------
class FakeStore:
    def __init__(self, rows: list[Any] | None = None, fail: bool = False):
        self.rows, self.fail = rows or [], fail

    def chat(self, table_id: str, after: int = 0, last: int | None = None) -> list[Any]:
        if self.fail:
            from sqlalchemy.exc import OperationalError

            raise OperationalError("SELECT", {}, Exception("connection refused"))
        return list(self.rows)


def live_table(record: dict[str, Any], store: FakeStore, upto: int | None = None) -> Any:
    """A ``Live`` table that has stored the record's first ``upto`` moves (all by default)."""
    from updown.server.live import Live
    from updown.server.models import Seat, Table
    from updown.server.store import StepRow

    rec = Record.from_dict(record)
    row = Table(id="t1", game=rec.game, players=rec.players, options=json.dumps(rec.options), seed="s", timer=None,
                grace=60.0, rated=False, private=False, status="running", created_by=None, created_at=0.0,
                finished_at=None, result=None, owner=None, lease_until=0.0)
    seats = [Seat(table_id="t1", seat=i, kind="person", account_id=i + 1, bot=None, name=name, left=False,
                  away=False, seen_at=None, away_since=None) for i, name in enumerate(rec.seats)]

    async def notify(_live: Any) -> None:
        return None
    live = Live(row, seats, store, bot_delay=0.0, notify=notify)  # type: ignore[arg-type]
    rows: list[Any] = []

    def on_step(st: Any, seat: int | None, action: int) -> None:
        label = None if seat is not None else pending[0]
        rows.append(StepRow(len(rows) + 1, seat, label, st.game.action_to_str(action), None, "player", 0.0))
        pending[0] = st.chance_label() if st.is_chance() and not st.is_terminal() else None
    start = new_state_for(rec)
    pending: list[str | None] = [start.chance_label() if start.is_chance() else None]
    replay(rec, on_step=on_step)
    live.absorb(rows[:upto])
    return live


def chat_row(seq: int, n: int, seat: int | None, text: str) -> Any:
    from updown.server.store import ChatRow

    return ChatRow(seq, n, 100 + seq, f"author{seq}", seat, text, None, 1764160000.0 + seq)


def test_a_tables_record_places_its_chat_and_survives_a_store_that_is_away() -> None:
    plain = bot_game(seed=21)
    total = moves_of(plain)
    rows = [chat_row(1, 0, 0, "before"), chat_row(2, 17, None, MARKUP), chat_row(3, total, 2, "gg"),
            chat_row(4, 5, 7, "a seat the table has not")]
    finished = live_table(plain, FakeStore(rows)).record(full=True)
    assert {k: v for k, v in finished.items() if k != "chat"} == plain
    assert [(c["seq"], c["seat"], c["moves"], c["text"]) for c in finished["chat"]] == [
        (1, 0, 0, "before"), (2, None, 17, MARKUP), (3, 2, total, "gg"), (4, None, 5, "a seat the table has not")]
    assert trace(finished) == trace(plain)
    # Running, after 30 moves: the lines so far, each by the events a spectator had seen, no moves.
    running = live_table(plain, FakeStore(rows[:2]), upto=30).record(full=False)
    assert [(c["seq"], c["event"]) for c in running["chat"]] == [
        (1, spectator_events_after(plain, 0)), (2, spectator_events_after(plain, 17))]
    assert all("moves" not in c for c in running["chat"]) and "steps" not in running
    # The database away: the game whole, without its chat, saying so.
    away = live_table(plain, FakeStore(fail=True))
    cut = away.record(full=True)
    assert "chat" not in cut and "could not be read" in cut["chat_missing"]
    assert {k: v for k, v in cut.items() if k != "chat_missing"} == {k: v for k, v in finished.items() if k != "chat"}
    assert away.health.down  # told to the service's health, as other reads that fail are
    assert "could not be read" in live_table(plain, FakeStore(fail=True), upto=30).record(full=False)["chat_missing"]
    # The routes read the chat off the event loop first, then build the same record from it.
    import asyncio

    table = live_table(plain, FakeStore(rows))
    assert table.record(True, *asyncio.run(table.chat_for_record())) == finished
    gone = live_table(plain, FakeStore(fail=True))
    assert not gone.health.down
    read, missing = asyncio.run(gone.chat_for_record())
    assert (read, gone.health.down != {}) == ([], True) and gone.record(True, read, missing) == cut


# -- a real server --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("chat-records")
    srv = Server(f"sqlite:///{tmp / 'updown.db'}", log=tmp / "server.log",
                 extra_args=["--limit", "chat_per_socket=50/hour", "--limit", "chat_per_account=50/hour",
                             "--limit", "accounts_per_address=1000/hour"]).start()
    yield srv
    srv.stop()


def acked(client: Client, cid: str, timeout: float = 30.0) -> None:
    msg = client.until(lambda m: m.get("type") in ("ack", "error") and m.get("id") == cid, timeout) \
        if cid not in client.acks else client.acks[cid]
    assert msg["type"] == "ack", msg


def spectator_events_after(record: dict[str, Any], moves: int) -> int:
    """How many events a spectator had seen after ``moves`` moves of the game."""
    lengths = [len(new_state_for(Record.from_dict(record)).view(None)["log"])]
    replay(Record.from_dict(record), on_step=lambda st, _s, _a: lengths.append(len(st.view(None)["log"])))
    return lengths[moves]


@pytest.fixture(scope="module")
def played(server: Server) -> dict[str, Any]:
    """A game of UP&DOWN with chat from both players and a spectator, before, during and after it;
    the running table's record taken after the first two lines."""
    alice, bob, carol = User(server, "ann-r1"), User(server, "bob-r1"), User(server, "cyd-r1")
    table = make_table(alice, "updown", ["me", "open", "bot:random"], players=3)
    bob.post(f"/api/tables/{table['id']}/join")
    ca, cb, watcher = alice.socket(table["id"]), bob.socket(table["id"]), carol.socket(table["id"])
    ca.send({"type": "chat", "id": "a1", "text": "hello all"})
    acked(ca, "a1")
    watcher.send({"type": "chat", "id": "w1", "text": MARKUP})
    acked(watcher, "w1")
    running = carol.get(f"/api/tables/{table['id']}/record").json()

    def on_turn(c: Client, k: int) -> None:
        if k == 4:
            cb.send({"type": "chat", "id": "b1", "preset": "good-luck"})
        elif k == 9:
            ca.send({"type": "chat", "id": "a2", "text": "nice trick"})

    play_out([ca, cb], random.Random(11), timeout=240, on_turn=on_turn)
    acked(cb, "b1")
    acked(ca, "a2")
    ca.send({"type": "chat", "id": "a3", "text": "gg"})
    acked(ca, "a3")
    record = bob.get(f"/api/tables/{table['id']}/record").json()
    rows = db_rows(server.db, "SELECT seq, n, seat, text FROM chat WHERE table_id = :t ORDER BY seq", t=table["id"])
    steps = db_rows(server.db, "SELECT COUNT(*) FROM steps WHERE table_id = :t", t=table["id"])[0][0]
    for c in (ca, cb, watcher):
        c.close()
    return {"table": table["id"], "running": running, "record": record, "rows": rows, "steps": steps,
            "names": (alice.name, bob.name, carol.name)}


def test_a_finished_tables_record_has_its_chat_in_order_with_moves(played: dict[str, Any]) -> None:
    record, rows, ann, bob, cyd = played["record"], played["rows"], *played["names"]
    chat = record["chat"]
    assert [(c["seq"], c["name"], c["seat"], c["text"]) for c in chat] == [
        (1, ann, 0, "hello all"), (2, cyd, None, MARKUP), (3, bob, 1, "Good luck"), (4, ann, 0, "nice trick"),
        (5, ann, 0, "gg")]
    assert chat[2]["preset"] == "good-luck" and all("preset" not in c for k, c in enumerate(chat) if k != 2)
    # Each line's moment is the number of moves stored when it was said.
    assert [c["moves"] for c in chat] == [n for _seq, n, _seat, _text in rows]
    moves = [c["moves"] for c in chat]
    assert moves == sorted(moves) and moves[-1] == played["steps"] == moves_of(record)
    assert moves[1] < moves[3] < moves[4]  # before the players' first move, at their ninth, after the end
    ats = [c["at"] for c in chat]
    assert ats == sorted(ats) and all(isinstance(a, float) and a > 1.7e9 for a in ats)
    # The record, read back, replays the same game as without its chat.
    without = {k: v for k, v in record.items() if k != "chat"}
    assert trace(record) == trace(without)
    assert Record.from_dict(record).to_dict() == record


def test_a_running_tables_record_has_the_chat_so_far_placed_by_public_events(played: dict[str, Any]) -> None:
    running, record = played["running"], played["record"]
    assert running["format"] == "updown-spectator-view" and running["finished"] is False
    # Only what a spectator sees: no steps, seed or result, and no line's step count.
    assert not {"steps", "seed", "result"} & set(running)
    assert [(c["seq"], c["text"], c["seat"]) for c in running["chat"]] == [(1, "hello all", 0), (2, MARKUP, None)]
    for c in running["chat"]:
        assert set(c) == {"seq", "name", "seat", "text", "event", "at"}
        # The number of events a spectator had seen when the line was said, which the finished
        # record's replay confirms.
        assert c["event"] == spectator_events_after(record, record["chat"][c["seq"] - 1]["moves"])
        assert 0 <= c["event"] <= len(running["events"])


# -- the browser's replay viewer ------------------------------------------------------------------
def test_the_replay_viewer_shows_each_line_from_its_step_on_as_text(server: Server, played: dict[str, Any]) -> None:
    pw = pytest.importorskip("playwright.sync_api")
    from web_util import CHROMIUM, CHROMIUM_ARGS, CHROMIUM_MISSING, SKIP_REASON, new_page, shot, sideways

    if CHROMIUM_MISSING:
        pytest.skip(SKIP_REASON)
    chat = played["record"]["chat"]
    with pw.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = new_page(browser, server.base, width=1280, height=900)
        page.goto(f"/replay?table={played['table']}")
        page.wait_for_selector("[data-replay-chat] li[data-seq='5']")  # the end: every line
        assert page.locator("[data-replay-chat] li[data-seq]").count() == 5
        assert page.get_attribute("[data-replay-chat] li.newest", "data-seq") == "5"
        spectator_line = "[data-replay-chat] li[data-seq='2']"
        assert page.inner_text(f"{spectator_line} .chat-text") == MARKUP
        assert "spectator" in page.inner_text(f"{spectator_line} .tag")
        assert page.locator("[data-replay-chat] img, [data-replay-chat] b").count() == 0
        assert page.evaluate("window.__pwned") is None
        # At each line's step it is the newest shown; a step before, it is not there yet.
        backs = 0
        for line in chat[1:4]:
            # A new document each time (the query differs), so nothing is read from the last one.
            page.goto(f"/replay?table={played['table']}&line={line['seq']}#step={line['moves']}")
            page.wait_for_selector(f"[data-replay-chat] li[data-seq='{line['seq']}']")
            at = int(page.get_attribute(".replay-bar", "data-record-step") or -1)
            assert at >= line["moves"]  # the move shown holds the line's step (a deal is one move here)
            shown = [int(s) for s in page.eval_on_selector_all("[data-replay-chat] li[data-seq]",
                                                               "els => els.map((e) => e.dataset.seq)")]
            assert shown == [c["seq"] for c in chat if c["moves"] <= at]
            assert page.get_attribute("[data-replay-chat] li.newest", "data-seq") == str(shown[-1])
            if line["seq"] == 2:
                shot(page, "replay-chat-1280")
            if page.get_attribute(".replay-bar", "data-step") == "0":
                continue  # said during the first item (the start and the deal): nothing before it
            page.click("#replay-back")
            backs += 1
            last = int(page.get_attribute(".replay-bar", "data-record-step") or -1)
            assert last < line["moves"]
            page.wait_for_function(f"() => !document.querySelector(\"[data-replay-chat] li[data-seq='{line['seq']}']\")")
            assert [int(s) for s in page.eval_on_selector_all("[data-replay-chat] li[data-seq]",
                                                              "els => els.map((e) => e.dataset.seq)")] == \
                [c["seq"] for c in chat if c["moves"] <= last]
        assert backs >= 2  # the lines said during play (the ones before may fall in the deal's item)
        # The start (with the deal): only the lines said by then.
        page.click("[aria-label='First step']")
        page.wait_for_function("() => document.querySelector('.replay-bar').dataset.step === '0'")
        at = int(page.get_attribute(".replay-bar", "data-record-step") or -1)
        early = [c["seq"] for c in chat if c["moves"] <= at]
        assert [int(s) for s in page.eval_on_selector_all("[data-replay-chat] li[data-seq]",
                                                          "els => els.map((e) => e.dataset.seq)")] == early
        assert page.locator("[data-replay-chat] .chat-empty").count() == (0 if early else 1)
        width, out = sideways(page)
        assert width <= 1280 and not out, (width, out)
        # In German, a 360 px phone: the preset in German, the spectator named as one.
        de = new_page(browser, server.base, width=360, height=740, lang="de")
        de.goto(f"/replay?table={played['table']}")
        de.wait_for_selector("[data-replay-chat] li[data-seq='5']")
        assert de.inner_text("[data-replay-chat] li[data-seq='3'] .chat-text") == "Viel Glück"
        assert "Zuschauer" in de.inner_text("[data-replay-chat] li[data-seq='2'] .tag")
        de.locator("[data-replay-chat]").scroll_into_view_if_needed()
        width, out = sideways(de)
        assert width <= 360 and not out, (width, out)
        shot(de, "replay-chat-de-360")
        assert page.errors == [] and de.errors == []
        browser.close()
