"""`updown arena`: duplicate seating, intervals, workers, Ray, resuming, plots and bad input."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from updown.arena import ArenaError, make_lineup, play_deal, run_arena
from updown.arena.duplicate import Lineup, seat_of
from updown.arena.runner import DEALS
from updown.arena.stats import interval, t_quantile
from updown.cli.app import app
from updown.core.errors import UpdownError
from updown.core.records import Record, replay
from updown.core.registry import all_games, get_game

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"


def lineup(game_id: str, bots: list[str], seed: int = 0, **options: Any) -> Lineup:
    game = get_game(game_id)
    return make_lineup(game, bots, seed, game.options(options))


def cli(*args: str):
    return runner.invoke(app, ["arena", *args])


def chance_steps(record_json: str) -> list[str]:
    """A record's chance steps (``label: outcomes``), leaving out the seats' actions."""
    steps = json.loads(record_json)["steps"]
    return [s for s in steps if not s.split(":")[0].isdigit()]


def opening(record_json: str) -> list[str]:
    """The chance steps before the first action: the opening deal."""
    out = []
    for step in json.loads(record_json)["steps"]:
        if step.split(":")[0].isdigit():
            break
        out.append(step)
    return out


# -- duplicate seating ----------------------------------------------------------------------------

def test_every_entry_plays_every_seat_equally_even_with_twin_bots():
    line = lineup("updown", ["greedy", "random", "greedy"], rounds=1)
    results = run_arena(line, 5)
    assert results["games"] == 15 and results["deals"] == 5
    assert [e["seats"] for e in results["entries"]] == [[5, 5, 5]] * 3
    assert [e["label"] for e in results["entries"]] == ["greedy#0", "random", "greedy#2"]


def test_one_bot_per_team_fills_the_team_and_rotation_keeps_partners_on_both_sides():
    line = lineup("euchre", ["greedy", "random"], deals=1)
    assert line.bots == ("greedy", "random", "greedy", "random")
    assert line.teams == ((0, 2), (1, 3))
    sides = {tuple(sorted(seat_of(e, r, 4) for e in (0, 2))) for r in range(4)}
    assert sides == {(0, 2), (1, 3)}  # the greedy team sits on both sides
    results = run_arena(line, 3)
    assert [e["seats"] for e in results["entries"]] == [[3, 3, 3, 3]] * 4
    # Partners are rated as one team: they keep identical ratings.
    ratings = [e["rating"] for e in results["entries"]]
    assert ratings[0] == ratings[2] and ratings[1] == ratings[3]
    assert [h["against"] for h in results["head_to_head"] if h["entry"] == 0] == [1, 3]


@pytest.mark.parametrize("game", [g.id for g in all_games()])
def test_every_seating_of_a_deal_opens_with_the_same_cards(game: str):
    g = get_game(game)
    n = max(g.min_players, min(3, g.max_players))
    line = make_lineup(g, ["random"] * n, 5, g.options({"deals": 1} if game == "euchre" else {}))
    deal = play_deal(line, 2, record=True)
    openings = [opening(game["record"]) for game in deal["games"]]
    assert openings[0] and all(o == openings[0] for o in openings)
    # ... and the bots did not play the same game in every seating (their generators differ).
    assert len({tuple(json.loads(g["record"])["steps"]) for g in deal["games"]}) > 1


def test_later_deals_stay_the_same_whatever_was_played_between():
    """UP&DOWN: a leader's `roll` draws dice mid-round; every round's deal is still the same.

    Each chance label has its own generator. With one generator for all chance, the extra dice
    draws of one seating would shift every later deal (about half of all deals differed).
    """
    line = lineup("updown", ["greedy", "random", "random"], seed=3, rounds=3)
    for number in range(4):
        deal = play_deal(line, number, record=True)
        deals = [[s for s in chance_steps(g["record"]) if s.startswith("deal")] for g in deal["games"]]
        rounds = min(len(d) for d in deals)
        assert rounds >= 3 * 3  # three rounds, three seats dealt each
        assert all(d[:rounds] == deals[0][:rounds] for d in deals)


# -- intervals ------------------------------------------------------------------------------------

def test_t_quantiles_match_the_table():
    for df, expected in [(1, 12.706), (2, 4.303), (3, 3.182), (5, 2.571), (10, 2.228), (30, 2.042), (1000, 1.962)]:
        assert t_quantile(0.975, df) == pytest.approx(expected, abs=0.002)
    assert interval([1.0])["low"] is None
    assert interval([1.0, 3.0])["mean"] == 2.0


def test_intervals_cover_zero_for_random_against_random_and_exclude_it_for_greedy():
    covered_diff = covered_rate = 0
    runs = 20
    for seed in range(runs):
        results = run_arena(lineup("updown", ["random", "random"], seed=seed, rounds=1), 10)
        diff, rate = results["entries"][0]["mean_diff"], results["entries"][0]["win_rate"]
        covered_diff += diff["low"] <= 0.0 <= diff["high"]
        covered_rate += rate["low"] <= 0.5 <= rate["high"]
    # 95% intervals: expect about 19 of 20; 16 or fewer would happen by chance less than 2% of the time.
    assert covered_diff >= 17 and covered_rate >= 17
    strong = run_arena(lineup("updown", ["greedy", "random"], seed=1, rounds=1), 10)["entries"][0]
    assert strong["mean_diff"]["low"] > 0 and strong["win_rate"]["low"] > 0.5


# -- workers, Ray ---------------------------------------------------------------------------------

def test_one_and_two_workers_give_identical_results_and_another_seed_differs():
    line = lineup("up-or-down", ["greedy", "random", "random"], seed=11)
    one = run_arena(line, 6, workers=1)
    two = run_arena(line, 6, workers=2)
    assert one == two
    other = run_arena(lineup("up-or-down", ["greedy", "random", "random"], seed=12), 6, workers=1)
    assert other["entries"] != one["entries"]


def test_an_error_in_a_worker_reaches_the_caller_as_itself():
    bad = Lineup("updown", 2, {"rounds": 0}, ("random", "random"), 0, ((0,), (1,)))
    with pytest.raises(UpdownError, match="rounds must be 1 to 50"):
        run_arena(bad, 4, workers=2)


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed")
def test_a_local_ray_instance_gives_identical_results():
    import ray

    line = lineup("updown", ["greedy", "random", "random"], seed=4, rounds=1)
    # A Ray instance of its own (address "local"), never one another program left running, which
    # ray.init() without an address would join; run_arena then uses the initialised session.
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert ray.cluster_resources()["CPU"] == 2
        on_ray = run_arena(line, 8, ray="auto")
    finally:
        ray.shutdown()
    assert on_ray == run_arena(line, 8, workers=1)


# -- resuming -------------------------------------------------------------------------------------

def test_a_short_run_continues_to_the_same_results_as_one_long_run(tmp_path: Path):
    line = lineup("updown", ["greedy", "random"], seed=2, rounds=1)
    run_arena(line, 4, out=tmp_path, plots=False)
    seen: list[tuple[int, int]] = []
    continued = run_arena(line, 10, out=tmp_path, plots=False, progress=lambda d, t: seen.append((d, t)))
    assert seen[0] == (8, 20)  # four deals were on file and not played again
    assert continued == run_arena(line, 10)
    assert len((tmp_path / DEALS).read_text().splitlines()) == 10


def test_an_interrupted_run_goes_on_from_what_it_wrote(tmp_path: Path):
    line = lineup("updown", ["greedy", "random", "random"], seed=9, rounds=1)

    def stop_after_three(done: int, total: int) -> None:
        if done >= 3 * 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_arena(line, 12, out=tmp_path, workers=2, plots=False, progress=stop_after_three)
    stored = (tmp_path / DEALS).read_text()
    assert 3 <= len(stored.splitlines()) < 12
    # A kill can cut the last line short: it is dropped and that deal played again.
    (tmp_path / DEALS).write_text(stored + '{"deal": 11, "se')
    assert run_arena(line, 12, out=tmp_path, workers=2, plots=False) == run_arena(line, 12)


def test_a_killed_command_continues_from_its_folder(tmp_path: Path):
    out = tmp_path / "run"
    args = ["up-or-down", "--bots", "greedy,random,random,greedy", "--seed", "5", "--workers", "1",
            "--out", str(out)]
    command = [sys.executable, "-c", "from updown.cli.app import main; main()", "arena", *args]
    proc = subprocess.Popen([*command, "--games", "4000"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deals = out / DEALS
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if deals.exists() and deals.read_text().count("\n") >= 3:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    kept = deals.read_text().count("\n")
    assert 3 <= kept < 1000
    done = subprocess.run([*command, "--games", "40", "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"continuing: {kept} of 10 deals" in done.stderr or kept >= 10
    fresh = run_arena(lineup("up-or-down", ["greedy", "random", "random", "greedy"], seed=5), 10)
    resumed = json.loads(done.stdout)
    assert resumed["entries"] == json.loads(json.dumps(fresh["entries"]))


def test_a_folder_is_never_continued_with_other_settings(tmp_path: Path):
    run_arena(lineup("updown", ["greedy", "random"], rounds=1), 2, out=tmp_path, plots=False)
    with pytest.raises(ArenaError, match="another bots"):
        run_arena(lineup("updown", ["random", "greedy"], rounds=1), 2, out=tmp_path, plots=False)
    with pytest.raises(ArenaError, match="another seed"):
        run_arena(lineup("updown", ["greedy", "random"], seed=1, rounds=1), 2, out=tmp_path, plots=False)


# -- the command ----------------------------------------------------------------------------------

def test_the_command_writes_results_plots_and_records(tmp_path: Path):
    result = cli("updown", "--bots", "greedy,random", "-n", "6", "-o", "rounds=1", "--workers", "1",
                 "--out", str(tmp_path), "--records", "--json")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed == json.loads((tmp_path / "results.json").read_text())
    assert printed["games"] == 6 and printed["rating_history"][0]["games"] == 0
    import matplotlib.image

    for name in ("ratings.png", "differences.png"):
        data = (tmp_path / name).read_bytes()
        assert data.startswith(PNG)
        height, width, _ = matplotlib.image.imread(tmp_path / name).shape
        assert width > 400 and height > 300
    records = sorted((tmp_path / "records").glob("*.json"))
    assert len(records) == 6
    deal0 = json.loads((tmp_path / DEALS).read_text().splitlines()[0])
    rec = Record.from_json(records[0].read_text())
    state = replay(rec)
    assert state.is_terminal() and list(state.result().scores) == deal0["games"][0]["scores"]


def test_the_table_names_every_bot_once_per_side():
    result = cli("euchre", "--bots", "greedy,random", "-n", "8", "-o", "deals=1", "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "greedy#0 + greedy#2" in result.stdout and "random#1 + random#3" in result.stdout
    assert "8 games, 2 deals × 4 seatings" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["nosuchgame", "--bots", "random,random"], "nosuchgame"),
    (["updown", "--bots", "greedy,wizard"], "no bot 'wizard'"),
    (["updown", "--bots", "greedy"], "give that many bots"),
    (["updown", "--bots", "random,random,random,random,random"], "not 5"),
    (["euchre", "--bots", "greedy,random,greedy"], "or one per team (2), not 3"),
    (["updown", "--bots", ","], "comma separated"),
    (["updown", "--bots", "random,random", "-n", "0"], "--games must be at least 1, not 0"),
    (["updown", "--bots", "random,random", "-n", "nan"], "--games must be a whole number, not 'nan'"),
    (["updown", "--bots", "random,random", "--seed", "1.5"], "--seed must be a whole number"),
    (["updown", "--bots", "random,random", "--workers", "0"], "--workers must be at least 1"),
    (["updown", "--bots", "random,random", "-o", "rounds=0"], "rounds must be 1 to 50"),
    (["updown", "--bots", "random,random", "--records"], "--records needs --out"),
    (["updown", "--bots", "random,random", "--ray", " "], "--ray needs an address"),
])
def test_bad_arguments_get_one_line_errors(args: list[str], message: str):
    result = cli(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert result.output.strip().count("\n") == 0, result.output


def test_an_unwritable_folder_is_a_clear_error(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = cli("updown", "--bots", "random,random", "-n", "2", "--workers", "1", "--out", str(blocker / "sub"))
    assert result.exit_code == 2 and "cannot create" in result.output
    assert result.output.strip().count("\n") == 0


def test_without_the_arena_extra_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openskill" else real(name, *a))
    result = cli("updown", "--bots", "random,random", "-n", "2", "--workers", "1")
    assert result.exit_code == 2
    # The command that installs it for this very Python, as printed (from this checkout).
    import sys

    assert f"needs openskill: {sys.executable} -m pip install -e " in result.output
    assert "[arena]'" in result.output
