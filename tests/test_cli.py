"""Every command of the ``updown`` CLI, driven as a user would through typer's runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from updown.cli.app import app
from updown.core.records import Record

runner = CliRunner()


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Quitting saves into the current folder: keep that out of the work tree."""
    monkeypatch.chdir(tmp_path)


def run(*args: str, input: str | None = None):  # noqa: A002 - the runner's own name
    return runner.invoke(app, list(args), input=input)


def test_games_lists_updown_with_players_and_options():
    result = run("games")
    assert result.exit_code == 0
    assert "updown" in result.output and "UP&DOWN" in result.output
    assert "2-4" in result.output
    assert "rounds" in result.output and "tiebreak_round" in result.output  # may be cut short: "…"


def test_simulate_is_byte_identical_for_a_seed_and_differs_for_another():
    a = run("simulate", "updown", "--games", "20", "--seed", "3", "-o", "rounds=1")
    b = run("simulate", "updown", "--games", "20", "--seed", "3", "-o", "rounds=1")
    c = run("simulate", "updown", "--games", "20", "--seed", "4", "-o", "rounds=1", "--json")
    d = run("simulate", "updown", "--games", "20", "--seed", "3", "-o", "rounds=1", "--json")
    assert a.exit_code == b.exit_code == 0
    assert a.output == b.output
    assert json.loads(c.output)["seats"] != json.loads(d.output)["seats"]


def test_simulate_json_counts_add_up(tmp_path: Path):
    result = run("simulate", "updown", "--players", "3", "--games", "12", "--bots", "greedy,random,random",
                 "--json", "--records", str(tmp_path))
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [s["bot"] for s in data["seats"]] == ["greedy", "random", "random"]
    # Every game has at least one winner; a shared win counts for each seat in it.
    assert sum(s["wins"] for s in data["seats"]) + sum(s["shared_wins"] for s in data["seats"]) >= 12
    # Three rounds of 14 tricks: tricks won over all seats never exceed 42 a game.
    assert sum(s["mean_score"] for s in data["seats"]) <= 42
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 12
    assert Record.from_json(files[0].read_text()).players == 3


def test_simulate_rejects_bad_input():
    assert run("simulate", "nosuchgame").exit_code == 2
    bad_bot = run("simulate", "updown", "--bots", "greedy,wizard,random,random")
    assert bad_bot.exit_code == 2 and "wizard" in bad_bot.output
    bad_count = run("simulate", "updown", "--bots", "greedy,random")
    assert bad_count.exit_code == 2 and "one bot name or 4" in bad_count.output
    bad_option = run("simulate", "updown", "-o", "rounds=zero")
    assert bad_option.exit_code == 2 and "rounds" in bad_option.output
    unknown_option = run("simulate", "updown", "-o", "colour=red")
    assert unknown_option.exit_code == 2 and "unknown option colour" in unknown_option.output
    players = run("simulate", "updown", "--players", "5")
    assert players.exit_code == 2 and "2 to 4 players" in players.output


def _record_file(tmp_path: Path, players: int = 4) -> Path:
    path = tmp_path / "game.json"
    run("simulate", "updown", "--players", str(players), "--games", "1", "--records", str(tmp_path),
        "-o", "rounds=1")
    (tmp_path / "updown-00001.json").rename(path)
    return path


def test_replay_prints_tricks_and_standings(tmp_path: Path):
    path = _record_file(tmp_path)
    result = run("replay", str(path))
    assert result.exit_code == 0, result.output
    assert result.output.count("Trick ") == 11
    assert "final standings" in result.output


def test_replay_json_matches_the_record_result(tmp_path: Path):
    path = _record_file(tmp_path, players=2)
    result = run("replay", str(path), "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    record = json.loads(path.read_text())
    assert data["finished"] is True
    assert data["result"]["scores"] == record["result"]["scores"]
    assert sum(1 for e in data["events"] if e["type"] == "trick") == 15


def test_replay_rejects_an_illegal_step_naming_it(tmp_path: Path):
    path = _record_file(tmp_path)
    data = json.loads(path.read_text())
    steps = data["steps"]
    # Seat 0's first card choice: replace it with a card seat 0 was not dealt.
    hand0 = steps[0].split(":")[1].split()
    not_held = next(c for c in steps[1].split(":")[1].split())
    first_choice = next(i for i, s in enumerate(steps) if s.startswith("0: ") and s[3:] in hand0)
    steps[first_choice] = f"0: {not_held}"
    path.write_text(json.dumps(data))
    result = run("replay", str(path))
    assert result.exit_code == 2
    assert f"step {first_choice + 1}" in result.output
    assert f"{not_held} is not in seat 0's hand" in result.output


def test_replay_rejects_malformed_records(tmp_path: Path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    assert run("replay", str(path)).exit_code == 2
    path.write_text(json.dumps({"game": "updown", "players": 4, "steps": ["deal 0: 2H 2H"]}))
    result = run("replay", str(path))
    assert result.exit_code == 2 and "step 1" in result.output and "2H" in result.output
    path.write_text(json.dumps({"game": "updown", "players": 9, "steps": []}))
    result = run("replay", str(path))
    assert result.exit_code == 2 and "9" in result.output
    missing = run("replay", str(tmp_path / "missing.json"))
    assert missing.exit_code == 2 and "cannot read" in missing.output


def test_replay_rejects_a_tampered_result(tmp_path: Path):
    path = _record_file(tmp_path)
    data = json.loads(path.read_text())
    data["result"]["scores"][0] += 1
    path.write_text(json.dumps(data))
    result = run("replay", str(path))
    assert result.exit_code == 2 and "differs" in result.output


def test_bench_prints_a_rate():
    result = run("bench", "updown", "--seconds", "0.2")
    assert result.exit_code == 0
    assert "games/s" in result.output and "4 players" in result.output
    assert "batch 10,000" not in result.output  # one game: no batched table
    assert result.output.startswith(("engines: pure Python\n", "engines: compiled (mypyc): "))


def test_bench_of_all_games_ends_with_the_batched_engines_against_openspiel():
    result = run("bench", "--seconds", "0.1")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for game in ("euchre", "up-or-down", "updown", "updown-sueca"):
        assert any(line.startswith(f"{game}: ") and "games/s" in line for line in lines), game
    assert any("pyspiel euchre, plain loop" in line and "ratio" in line for line in lines)
    for row in ("OpenSpiel C++ loop (evaluate_bots)", "updown batched, batch 1 ", "updown batched, batch 100 ",
                "updown batched, batch 10,000"):
        assert any(row in line for line in lines), row
    assert "UP&DOWN" in result.output and "Interleaved: 10 rounds of 0.01 s" in result.output
    quiet = run("bench", "--seconds", "0.05", "--no-batched")
    assert quiet.exit_code == 0 and "batch 10,000" not in quiet.output


def test_play_a_whole_round_by_typing(tmp_path: Path):
    """A person plays a 2-player round: always the first legal card, and 'flip' when leading."""
    # Typos and illegal input come first and must be answered with a message and asked again.
    answers = "help\nKC\nrotate Z\n"
    # Then a cycle of 'flip' and every card of the deck: each prompt takes lines until one is legal,
    # so one cycle answers any prompt, and 30 cycles outlast the 15 cards and the leads.
    deck = [f"{r}{s}" for s in "CDHS" for r in ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"]]
    answers += ("flip\n" + "\n".join(deck) + "\n") * 30
    record = tmp_path / "mine.json"
    result = run("play", "updown", "--players", "2", "--seed", "11", "-o", "rounds=1",
                 "--record", str(record), input=answers)
    assert result.exit_code == 0, result.output
    assert "'KC' is not a move here" in result.output
    assert "'rotate Z' is not a move here" in result.output
    assert "You finished" in result.output
    assert result.output.count("Trick ") == 15
    replayed = run("replay", str(record))
    assert replayed.exit_code == 0


def test_play_quit_and_end_of_input_leave_cleanly():
    quit_ = run("play", "updown", "--seed", "2", input="quit\n")
    assert quit_.exit_code == 0 and "Saved to" in quit_.output
    eof = run("play", "updown", "--seed", "2", input="")
    assert eof.exit_code == 0 and "input ended" in eof.output


@pytest.mark.parametrize("args,message", [
    (("play", "updown", "--seat", "4"), "seat must be 0 to 3"),
    (("play", "updown", "--bots", "nobody"), "nobody"),
    (("play", "chess"), "no game 'chess'"),
])
def test_play_rejects_bad_setup(args, message):
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.output


def test_play_shows_the_seed_only_when_the_game_is_over():
    # The seed decides every hidden card: printing it before the end would show the bots' hands.
    # A game that is stopped is saved (to go on with), so its seed is never printed.
    quit_ = run("play", "updown", "--players", "2", "--seed", "12345", input="quit\n")
    assert quit_.exit_code == 0 and "Saved to" in quit_.output
    assert "12345" not in quit_.output


@pytest.mark.parametrize("payload,message", [
    (b"\xff\xfe\x00", "not UTF-8"),
    (("[" * 100000 + "]" * 100000).encode(), "nested too deeply"),
    (json.dumps({"game": "updown", "players": 10**9, "steps": []}).encode(), "seats that many"),
    (json.dumps({"game": "updown", "players": 2, "steps": ["²: flip"]}).encode(), "is not a seat"),
    (json.dumps({"game": "updown", "players": 2, "steps": ["-1: flip"]}).encode(), "is not a seat"),
    (json.dumps({"game": "updown", "players": 2, "steps": [
        "deal 0: 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC 2D 3D 4D 5D",
        "deal 1: 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH 2S 3S 4S 5S", "dice: ²+3"]}).encode(),
     "is not a roll of two dice"),
])
def test_replay_turns_hostile_files_into_clear_errors(tmp_path: Path, payload: bytes, message: str):
    path = tmp_path / "hostile.json"
    path.write_bytes(payload)
    result = run("replay", str(path))
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_unicode_digits_are_notation_errors_not_crashes():
    from updown.core import NotationError, get_game

    for game_id, text in [("updown", "²+3"), ("up-or-down", "take ²"), ("up-or-down", "²")]:
        with pytest.raises(NotationError):
            get_game(game_id).parse_action(text)
    answered = run("play", "updown", "--players", "2", "--seed", "1", input="²+3\nquit\n")
    assert answered.exit_code == 0 and "Traceback" not in answered.output


def test_simulate_plays_an_exec_bot(tmp_path):
    """A program speaking the bot protocol (docs/bot-protocol.md) plays a seat from the command line."""
    import sys
    from pathlib import Path

    from typer.testing import CliRunner

    from updown.cli.app import app

    example = Path(__file__).resolve().parent.parent / "examples" / "random_bot.py"
    bots = f"exec:{sys.executable} {example},random,random,random"
    result = CliRunner().invoke(app, ["simulate", "updown", "--games", "2", "-o", "rounds=1", "--bots", bots, "--json"])
    assert result.exit_code == 0, result.output
    assert '"games": 2' in result.output
