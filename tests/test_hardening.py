"""Hardening (issue 15): views a receiver cannot use to change the game, seats checked at the
protocol, seeds that do not alias, bounded records, and bots in their own process."""

from __future__ import annotations

import copy
import json
import logging
import random
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from updown.bots import is_bot_name, make_bot
from updown.bots.exec_bot import ExecBot
from updown.core.errors import IllegalAction, RecordError, UpdownError
from updown.core.frozen import FrozenDict, FrozenList, thaw
from updown.core.protocol import Game
from updown.core.records import MAX_MESSAGE, MAX_RECORD_CHARS, MAX_STEPS, Record, replay
from updown.core.registry import all_games, get_game
from updown.simulate import game_seeds, play_seeded, simulate

from conftest import random_agents, snapshot  # noqa: I001

GAMES = [pytest.param(g, id=g.id) for g in all_games()]
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "random_bot.py"


# -- views ----------------------------------------------------------------------------------------

def vandalise(value: Any, rng: random.Random) -> None:
    """Try every ordinary way to change a view in place (what a careless or hostile bot might do)."""
    if isinstance(value, dict):
        for key in list(value):
            vandalise(value[key], rng)
        for attempt in (lambda: value.__setitem__("hand", ["QH"]), lambda: value.update(seat=0),
                        lambda: value.pop("log", None), lambda: value.clear(), lambda: value.setdefault("x", 1)):
            try:
                attempt()
            except TypeError:
                pass
    elif isinstance(value, list):
        for item in list(value):
            vandalise(item, rng)
        for attempt in (lambda: value.append("KS"), lambda: value.__setitem__(0, "JH") if value else None,
                        lambda: value.sort(key=str), lambda: value.reverse(), lambda: value.extend([1]),
                        lambda: value.pop() if value else None, lambda: value.clear()):
            try:
                attempt()
            except TypeError:
                pass


@pytest.mark.parametrize("game", GAMES)
def test_editing_a_view_changes_nothing(game: Game[Any]) -> None:
    """Bots that vandalise every view they are handed play the same game as bots that do not."""
    players = game.max_players if game.id != "up-or-down" else 3

    class Vandal:
        def __init__(self, inner: Any) -> None:
            self.inner, self.rng = inner, random.Random(1)

        def act(self, view: Any, legal: Any) -> int:
            choice: int = self.inner.act(copy.deepcopy(view), legal)
            vandalise(view, self.rng)
            return choice

    from updown.core.driver import play_game

    plain = play_game(game, players, random_agents(game, players, 4), random.Random(4))
    vandal = play_game(game, players, [Vandal(a) for a in random_agents(game, players, 4)], random.Random(4))
    assert vandal[1].to_dict() == plain[1].to_dict()
    assert snapshot(vandal[0]) == snapshot(plain[0])


@pytest.mark.parametrize("game", GAMES)
def test_views_are_json_and_read_only_but_copies_are_editable(game: Game[Any]) -> None:
    from conftest import random_playout

    state, _ = random_playout(game, game.min_players, 2)
    view = state.view(0)
    assert json.loads(json.dumps(view)) == view
    event = view["log"][0]
    assert isinstance(event, FrozenDict)
    with pytest.raises(TypeError, match="cannot be changed"):
        event["type"] = "x"
    lists = [v for e in view["log"] for v in e.values() if isinstance(v, list)]
    assert lists and all(isinstance(v, FrozenList) for v in lists)
    with pytest.raises(TypeError):
        lists[0].append(1)
    editable = copy.deepcopy(view)
    editable["log"][0]["type"] = "x"
    assert thaw(view) == state.view(0)
    # The result in a final view is a fresh copy: editing it does not touch the state.
    view["result"]["scores"].append(99)
    assert state.view(0)["result"] == state.result().to_dict()


def test_a_result_details_copy_is_independent() -> None:
    from conftest import random_playout

    state, _ = random_playout(get_game("euchre"), 4, 1)
    got = state.result().to_dict()
    got["deals"][0]["points"].append(7)
    assert state.result().to_dict()["deals"][0]["points"] != got["deals"][0]["points"]


# -- seats ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seat", [-1, 99, True, 1.0])
def test_bad_seats_are_refused_at_the_protocol(game: Game[Any], seat: Any) -> None:
    from conftest import random_playout

    state, _ = random_playout(game, game.min_players, 3)
    fresh = game.new_state(game.min_players)
    for s in (state, fresh):
        with pytest.raises(IllegalAction, match="no seat"):
            s.view(seat)
        with pytest.raises(IllegalAction, match="no seat"):
            s.resample(seat, random.Random(0))
        if type(seat) is int:
            with pytest.raises(IllegalAction, match="no seat"):
                s.legal_actions(seat)
    with pytest.raises(IllegalAction, match="no seat"):
        fresh.apply(0, seat)


def test_a_mid_game_seat_minus_one_does_not_read_the_last_hand() -> None:
    game = get_game("updown")
    state = game.new_state(4)
    rng = random.Random(1)
    while not state.actors() or state.phase != 5:
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            s = state.actors()[0]
            state.apply(rng.choice(state.legal_actions(s)), s)
    with pytest.raises(IllegalAction, match="no seat -1"):
        state.legal_actions(-1)


# -- seeds ----------------------------------------------------------------------------------------

def test_negative_seeds_do_not_play_the_positive_seeds_games() -> None:
    game = get_game("updown")
    assert list(game_seeds(5, 3)) != list(game_seeds(-5, 3))
    _, a = play_seeded(game, 2, ["random", "random"], 5, game.options({"rounds": 1}))
    _, b = play_seeded(game, 2, ["random", "random"], -5, game.options({"rounds": 1}))
    assert a.steps != b.steps
    _, again = play_seeded(game, 2, ["random", "random"], -5, game.options({"rounds": 1}))
    assert again.steps == b.steps


def test_game_seeds_are_made_lazily() -> None:
    seeds = game_seeds(1, 10**12)  # a list this long would not fit in memory
    assert [next(seeds) for _ in range(3)] == list(game_seeds(1, 3))
    with pytest.raises(ValueError):
        simulate(get_game("updown"), 2, 0, ["random", "random"], 1)


def test_bench_refuses_endless_durations() -> None:
    from updown.bench import random_playouts

    game = get_game("updown")
    for seconds in (float("nan"), float("inf"), -1.0, 0.0):
        with pytest.raises(ValueError, match="positive"):
            random_playouts(game, 2, game.options({"rounds": 1}), seconds)


# -- records --------------------------------------------------------------------------------------

def small_record() -> Record:
    from conftest import random_playout

    return random_playout(get_game("updown"), 2, 1, {"rounds": 1})[1]


def one_line(err: pytest.ExceptionInfo[RecordError]) -> str:
    text = str(err.value)
    assert "\n" not in text and len(text) <= MAX_MESSAGE, text[:500]
    return text


@pytest.mark.parametrize("where", ["players", "seed", "option", "step-action", "step-seat", "seat-name"])
def test_huge_numbers_anywhere_give_a_clear_error(where: str) -> None:
    big = "7" * 5000
    data = small_record().to_dict()
    text = json.dumps(data)
    if where == "players":
        text = text.replace('"players": 2', f'"players": {big}')
    elif where == "seed":
        text = text.replace('"seed": 1', f'"seed": {big}')
    elif where == "option":
        text = text.replace('"tiebreak_rounds": 0', f'"tiebreak_rounds": {big}')
    elif where == "step-action":
        data["steps"][10] = f"0: {big}"
        text = json.dumps(data)
    elif where == "step-seat":
        data["steps"][10] = f"{big}: QH"
        text = json.dumps(data)
    else:
        data["seats"][0] = big
        text = json.dumps(data)
    with pytest.raises(RecordError) as err:
        replay(Record.from_json(text))
    message = one_line(err)
    assert any(word in message for word in ("digits", "seat", "too long", "action")), message


def test_up_or_down_huge_card_numbers_are_refused() -> None:
    game = get_game("up-or-down")
    for text in ("7" * 5000, "take " + "7" * 5000):
        with pytest.raises(UpdownError):
            game.parse_action(text)


def test_oversized_records_are_refused_before_parsing(tmp_path: Path) -> None:
    huge = '{"game": "updown", "players": 2, "steps": ["' + "x" * (MAX_RECORD_CHARS + 10) + '"]}'
    with pytest.raises(RecordError, match="too long") as err:
        Record.from_json(huge)
    one_line(err)
    path = tmp_path / "big.json"
    path.write_text(huge, encoding="utf-8")
    with pytest.raises(RecordError, match="too long"):
        Record.read(path)
    with pytest.raises(RecordError, match="cannot read"):
        Record.read(tmp_path / "missing.json")
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(RecordError, match="UTF-8"):
        Record.read(path)


def test_a_huge_step_is_not_echoed() -> None:
    data = small_record().to_dict()
    data["steps"][5] = "0: " + "Q" * 3_000
    with pytest.raises(RecordError) as err:
        replay(Record.from_dict(data))
    assert "too long" in one_line(err)
    data["steps"][5] = "0: " + "Q" * 1_500
    with pytest.raises(RecordError) as err:
        replay(Record.from_dict(data))
    one_line(err)


def test_pathological_valid_records_are_bounded() -> None:
    """Thrown-in Euchre deals (stick the dealer off) forever: refused at the step limit, quickly."""
    deal = ["deal {}: 9C 10C JC QC KC", "deal {}: 9D 10D JD QD KD", "deal {}: 9H 10H JH QH KH",
            "deal {}: 9S 10S JS QS KS"]
    steps = ["dealer: 3"]
    dealer = 3
    while len(steps) < MAX_STEPS + 100:
        order = [(dealer + 1 + i) % 4 for i in range(4)]
        steps += [deal[s].format(s) for s in order] + ["up-card: AC"]
        steps += [f"{(dealer + 1 + i) % 4}: pass" for i in range(8)]
        dealer = (dealer + 1) % 4
    rec = Record("euchre", 4, {"stick_the_dealer": False}, ["a", "b", "c", "d"], steps)
    # The first deals are valid: a record of a thousand thrown-in deals replays...
    assert not replay(Record("euchre", 4, {"stick_the_dealer": False}, ["a"] * 4, steps[:13 * 1000 + 1])).is_terminal()
    # ...and one beyond the limits is refused with a clear message.
    with pytest.raises(RecordError, match="steps") as err:
        replay(rec)
    one_line(err)
    with pytest.raises(RecordError, match="steps"):
        Record.from_json(json.dumps(rec.to_dict()))


# -- bots in their own process --------------------------------------------------------------------

def write_bot(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return f"{sys.executable} {path}"


def test_exec_bot_plays_whole_games_through_make_bot() -> None:
    command = f"exec:{sys.executable} {EXAMPLE}"
    assert is_bot_name("euchre", command) and not is_bot_name("euchre", "exec:")
    game = get_game("euchre")
    state, record = play_seeded(game, 4, [command, "random", command, "random"], 3, game.options({"deals": 2}))
    assert state.is_terminal()
    again = replay(Record.from_json(record.to_json()))
    assert again.result() == state.result()
    # Reproducible: the example seeds itself from the game and seat.
    _, record2 = play_seeded(game, 4, [command, "random", command, "random"], 3, game.options({"deals": 2}))
    assert record2.steps == record.steps


@pytest.mark.parametrize(("kind", "body", "expect"), [
    ("crash", """
        import sys
        for line in sys.stdin:
            if '"act"' in line:
                sys.exit(3)
     """, "stopped"),
    ("silent", """
        import sys, time
        for line in sys.stdin:
            time.sleep(30)
     """, "no answer"),
    ("garbage", """
        import sys
        for line in sys.stdin:
            if '"act"' in line:
                print("hello there", flush=True)
     """, "not an action"),
    ("illegal", """
        import sys
        for line in sys.stdin:
            if '"act"' in line:
                print('{"action": 9999}', flush=True)
     """, "not a legal action"),
])
def test_a_failing_bot_program_is_replaced_by_random(tmp_path: Path, kind: str, body: str, expect: str,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    game = get_game("updown")
    command = write_bot(tmp_path, kind, body)
    messages: list[str] = []
    bot = ExecBot(game, 0, random.Random(1), command, time_limit=0.3, on_failure=messages.append,
                  startup_grace=2.0)
    agents = [bot, *random_agents(game, 2, 1)[1:]]
    from updown.core.driver import play_game

    with caplog.at_level(logging.WARNING, logger="updown.bots"):
        state, _ = play_game(game, 2, agents, random.Random(1), options=game.options({"rounds": 1}))
    assert state.is_terminal()
    assert len(messages) == 1 and expect in messages[0] and "random plays the seat" in messages[0]
    assert any(expect in r.getMessage() for r in caplog.records)
    assert bot._proc is None  # stopped


def test_exec_bot_errors_when_the_program_cannot_start() -> None:
    game = get_game("updown")
    with pytest.raises(UpdownError, match="cannot start"):
        make_bot("exec:/nonexistent/bot --x", game, 0, random.Random(0))
    with pytest.raises(UpdownError, match="time limit"):
        make_bot("exec[0]:python3 x.py", game, 0, random.Random(0))
    with pytest.raises(UpdownError, match="needs a command"):
        make_bot("exec:  ", game, 0, random.Random(0))


def test_exec_bot_accepts_notation_answers(tmp_path: Path) -> None:
    command = write_bot(tmp_path, "notation", """
        import json, sys
        for line in sys.stdin:
            m = json.loads(line)
            if m["type"] == "act":
                print(m["legal"][-1]["action"], flush=True)
    """)
    game = get_game("up-or-down")
    messages: list[str] = []
    bot = ExecBot(game, 0, random.Random(1), command, on_failure=messages.append)
    from updown.core.driver import play_game

    state, _ = play_game(game, 2, [bot, random_agents(game, 2, 1)[1]], random.Random(2))
    assert state.is_terminal() and not messages
