"""The panel's line-ups (``benchmarks/bots_panel.py``): in a game of partners the mixed field seats
``greedy`` as the test seat's partner (not ``random``, which made every mixed Euchre score a
handicap), and the ``self`` field is a check that shares its deals with the field of the test bot's
own name (the same line-up), rather than playing them a second time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from proc_util import group_gone, killed_on_failure

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bots_panel.py"


def _panel(tmp_path: Path, *args: str) -> tuple[str, list[dict[str, object]]]:
    out = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path), "--quiet", *args],
                         capture_output=True, text=True, timeout=600, check=True).stdout
    rows = [json.loads(x) for x in (tmp_path / "deals.jsonl").read_text().splitlines()]
    return out, rows


def test_in_euchre_the_mixed_fields_greedy_bot_is_the_test_seats_partner(tmp_path: Path) -> None:
    _, rows = _panel(tmp_path, "--game", "euchre", "-o", "deals=1", "--fields", "mixed", "--tests", "greedy",
                     "--deals", "1", "--min-deals", "1")
    # Entries 1 to 3 after the test seat (entry 0); entry 2 is its partner in Euchre.
    assert [r["others"] for r in rows] == [["random", "greedy", "easy"]]


def test_without_partners_the_mixed_field_keeps_its_order(tmp_path: Path) -> None:
    _, rows = _panel(tmp_path, "--game", "updown", "-o", "rounds=1", "--fields", "mixed", "--tests", "greedy",
                     "--deals", "1", "--min-deals", "1")
    assert [r["others"] for r in rows] == [["greedy", "random", "easy"]]


def test_self_takes_the_deals_of_the_field_of_the_same_line_up_and_is_a_check(tmp_path: Path) -> None:
    out, rows = _panel(tmp_path, "--game", "updown", "-o", "rounds=1", "--fields", "random;self",
                       "--tests", "random;greedy", "--deals", "3", "--min-deals", "2", "--no-stop")
    played = {(r["field"], r["test"], r["deal"]): r for r in rows}
    # "self" with the test bot `random` is the field `random` with `random` tested: the same rows,
    # to the load and the timing measured when the deal was played (a second play would differ).
    for deal in (0, 1):
        same, again = played[("random", "random", deal)], played[("self", "random", deal)]
        assert {k: v for k, v in again.items() if k != "field"} == {k: v for k, v in same.items() if k != "field"}
    assert ("self", "random", 2) not in played  # the check stops at --min-deals
    assert ("self", "greedy", 0) in played  # greedy all round: no field of that name here, played
    line = next(x for x in out.splitlines() if x.startswith("field self"))
    assert "a check" in line
    assert "check, 0 expected" in out and "aim greedy >= random: " in out
    assert not any("aim" in x for x in out.split("field self", 1)[1].splitlines()[1:])


def test_the_ladder_plays_only_the_table_size_asked_for(tmp_path: Path) -> None:
    out, _ = _panel(tmp_path, "--game", "updown", "-o", "rounds=1", "--ladder", "--players", "2",
                    "--tests", "random;greedy", "--deals", "1", "--min-deals", "1")
    assert "ladder greedy vs random at 2" in out and "at 4" not in out


# --workers: the rows go to the arena's worker pool; the rows and the figures do not depend on it.

MEASURED = ("times", "timing", "worlds", "load")
"""What a row measures where it ran, and may differ between two plays of the same deal."""

TINY = ("--game", "updown", "-o", "rounds=1")


def _same(row: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in row.items() if k not in MEASURED}


def _by_cell(rows: list[dict[str, object]]) -> dict[tuple[object, ...], dict[str, object]]:
    out: dict[tuple[object, ...], dict[str, object]] = {}
    for r in rows:
        where = (r["field"], r["test"], r["players"], r["deal"])
        assert where not in out, f"{where} filed twice"
        out[where] = _same(r)
    return out


def _figures(out: str) -> list[str]:
    """The summary without what was measured where it ran (the load and the decision times) and
    the rows on file past a stop (two workers may have played a few more)."""
    import re

    lines = [re.sub(r", load [\d.]+ to [\d.]+|; \d+ rows? on file not yet paired", "", x) for x in out.splitlines()]
    return [x.split("; decisions")[0] for x in lines]


def test_two_workers_file_the_same_rows_and_stop_at_the_same_deals_as_one(tmp_path: Path) -> None:
    run = (*TINY, "--fields", "random;self;greedy", "--tests", "random;greedy;easy", "--deals", "14",
           "--min-deals", "3")
    one_out, one = _panel(tmp_path / "one", *run, "--workers", "1")
    two_out, two = _panel(tmp_path / "two", *run, "--workers", "2")
    a, b = _by_cell(one), _by_cell(two)
    # Two workers may file a few deals past a stop (played while the other field ran); every row
    # one process filed is there, the same but for where it was measured.
    assert set(a) <= set(b)
    assert {k: b[k] for k in a} == a
    # The stop is at the same deal and the figures are the same.
    assert _figures(one_out) == _figures(two_out)
    # (So the three ends were tested: a stop part way, the check's, the deals running out; and the
    # greedy field took its greedy rows of the first deals from the self field's.)
    assert "field random (3 seats), 11 deals x 4 seatings: stopped: met, failed" in one_out
    assert "field self (3 seats), 3 deals x 4 seatings: a check" in one_out
    assert "field greedy (3 seats), 14 deals x 4 seatings: games ran out" in one_out


def test_rows_that_finish_out_of_order_are_paired_by_deal(tmp_path: Path) -> None:
    # A slow test bot first: two workers finish the fast one's rows of later deals before it.
    run = (*TINY, "--fields", "random", "--tests", "normal:ms=0,worlds=6;greedy", "--deals", "4", "--no-stop")
    one_out, one = _panel(tmp_path / "one", *run)
    two_out, two = _panel(tmp_path / "two", *run, "--workers", "2")
    order = [(r["deal"], r["test"] == "greedy") for r in two]  # (deal, column): the order asked for
    assert order != sorted(order), "the rows finished in order: nothing was tested"
    assert _by_cell(one) == _by_cell(two)
    assert _figures(one_out) == _figures(two_out)


def test_the_ladder_on_two_workers_is_the_ladder_on_one(tmp_path: Path) -> None:
    run = (*TINY, "--ladder", "--tests", "random;greedy", "--deals", "6", "--no-stop")
    one_out, one = _panel(tmp_path / "one", *run)
    two_out, two = _panel(tmp_path / "two", *run, "--workers", "2")
    assert _by_cell(one) == _by_cell(two)
    assert _figures(one_out) == _figures(two_out)
    assert "6 deals x 2 seatings" in one_out and "6 deals x 4 seatings" in one_out


def test_a_run_continued_from_a_half_paired_file_with_workers_pairs_as_one_run(tmp_path: Path) -> None:
    run = (*TINY, "--fields", "random", "--tests", "random;greedy", "--deals", "6", "--no-stop")
    whole_out, whole = _panel(tmp_path / "whole", *run)
    # What a kill leaves: deal 2 without greedy's row, deal 4 not at all, a line cut short.
    kept = [r for r in whole if not (r["deal"] == 2 and r["test"] == "greedy") and r["deal"] != 4]
    part = tmp_path / "part"
    part.mkdir()
    cut = json.dumps(whole[-1])[:40]
    (part / "deals.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept) + cut)
    out, rows = _panel(part, *run, "--workers", "2")
    # The owed rows played, nothing twice, and every line whole (_panel reads each one): the cut
    # line was dropped, not glued to the next row.
    assert _by_cell(rows) == _by_cell(whole)
    assert _figures(out) == _figures(whole_out)
    assert "6 deals x 4 seatings: games ran out: met" in out and "0 rows on file not yet paired" in out


def test_the_summary_counts_the_rows_on_file_that_are_not_yet_paired(tmp_path: Path) -> None:
    run = (*TINY, "--fields", "random", "--tests", "random;greedy;easy", "--no-stop")
    _, whole = _panel(tmp_path, *run, "--deals", "4")
    # Deal 1 keeps random's row alone (1 row owed to it), deal 2 loses random's (2 rows).
    dropped = {(1, "greedy"), (1, "easy"), (2, "random")}
    kept = [r for r in whole if (r["deal"], r["test"]) not in dropped]
    (tmp_path / "deals.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    out, rows = _panel(tmp_path, *run, "--deals", "1")  # deal 0 alone: nothing is played
    assert len(rows) == len(kept)
    assert "field random (3 seats), 1 deals x 4 seatings: games ran out" in out
    assert "; 3 rows on file not yet paired" in out
    out, _ = _panel(tmp_path, *run, "--deals", "4", "--workers", "2")  # they are played and paired
    assert "4 deals x 4 seatings" in out and "; 0 rows on file not yet paired" in out


@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_ctrl_c_or_a_kill_stops_the_workers_and_leaves_whole_rows_that_a_second_run_completes(
        tmp_path: Path, how: str) -> None:
    import os
    import signal
    import time

    run = [*TINY, "--fields", "greedy", "--tests", "random;greedy", "--deals", "200", "--no-stop", "--quiet"]
    deals = tmp_path / "deals.jsonl"
    said = tmp_path / "said.txt"  # (a file, not a pipe, which workers left behind would hold open)
    with open(said, "w") as to:
        proc = subprocess.Popen([sys.executable, str(SCRIPT), "--out", str(tmp_path), *run, "--workers", "2"],
                                stdout=to, stderr=subprocess.STDOUT, start_new_session=True)
    with killed_on_failure(proc):
        began = time.monotonic()
        while not (deals.exists() and deals.read_text().count("\n") >= 20):
            assert proc.poll() is None and time.monotonic() - began < 120, said.read_text()
            time.sleep(0.05)
        if how == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)  # as a terminal's: to the workers too
        else:
            proc.terminate()  # SIGTERM to the panel alone
        proc.wait(timeout=60)
        assert proc.returncode == 130 and said.read_text().startswith("interrupted"), said.read_text()
        assert group_gone(proc), "worker processes outlived the panel"
    lines = deals.read_text().splitlines()
    assert 20 <= len(lines) < 400  # stopped part way
    first = [json.loads(x) for x in lines]  # whole rows only
    out, rows = _panel(tmp_path, *run, "--workers", "2")
    assert {k: v for k, v in _by_cell(rows).items() if k[3] < 200} == _by_cell(rows)
    assert len(rows) == 400 and all(_same(r) in [_same(x) for x in rows] for r in first)
    assert "200 deals x 4 seatings: games ran out" in out and "; 0 rows on file not yet paired" in out


def test_field_seconds_ends_a_field_at_a_deals_start_and_the_deal_begun_is_whole(tmp_path: Path) -> None:
    run = (*TINY, "--fields", "random;greedy", "--tests", "random;greedy;easy", "--deals", "20", "--no-stop",
           "--field-seconds", "1e-9")
    for workers in ("1", "2"):
        out, rows = _panel(tmp_path / workers, *run, "--workers", workers)
        # Time runs out at once, but the first deal was begun: it is played for every test bot.
        assert "field random (3 seats), 1 deals x 4 seatings: time ran out (0 s)" in out
        assert "field greedy (3 seats), 1 deals x 4 seatings: time ran out (0 s)" in out
        assert sorted((r["field"], r["deal"], r["test"]) for r in rows) == sorted(
            (f, 0, t) for f in ("random", "greedy") for t in ("random", "greedy", "easy"))


def test_an_unknown_bot_is_named_in_one_line_whatever_the_workers(tmp_path: Path) -> None:
    for workers in ("1", "2"):
        done = subprocess.run([sys.executable, str(SCRIPT), *TINY, "--fields", "random", "--tests", "greedy;nosuch",
                               "--deals", "2", "--quiet", "--workers", workers], capture_output=True, text=True,
                              timeout=600)
        said = done.stderr.splitlines()
        assert done.returncode == 1 and len(said) == 1 and said[0].startswith("bots_panel: no bot 'nosuch' for updown")


def test_one_test_bot_with_options_is_one_bot_and_a_list_of_them_is_split_on_semicolons(tmp_path: Path) -> None:
    one = "normal:ms=0,worlds=2"
    _, rows = _panel(tmp_path / "one", "--game", "updown", "-o", "rounds=1", "--fields", "random", "--tests", one,
                     "--deals", "1", "--min-deals", "1")
    assert {r["test"] for r in rows} == {one}
    _, rows = _panel(tmp_path / "two", "--game", "updown", "-o", "rounds=1", "--fields", "random",
                     "--tests", f"greedy;{one}", "--deals", "1", "--min-deals", "1")
    assert sorted({str(r["test"]) for r in rows}) == ["greedy", one]


def test_each_test_bots_line_gives_the_95th_percentile_of_its_decision_times(tmp_path: Path) -> None:
    import math

    run = (*TINY, "--fields", "random", "--tests", "random;greedy", "--deals", "2", "--no-stop", "--keep-times")
    _, rows = _panel(tmp_path, *run)
    for r in rows:  # each row's own summary: the nearest rank, the smallest time 95% do not exceed
        times = sorted(r["times"])  # type: ignore[call-overload]
        assert r["timing"]["p95"] == times[math.ceil(0.95 * len(times)) - 1]  # type: ignore[index]
    # Known times for greedy: 1 to 60 ms in deal 0, 61 to 100 ms in deal 1. Over both, the median
    # (upper) is 51 ms and the 95th percentile 95 ms; each deal's own is 57 and 98 ms.
    spans = {0: range(1, 61), 1: range(61, 101)}
    summaries = {0: {"n": 60, "median": 0.031, "p95": 0.057, "p99": 0.060, "max": 0.060, "over_100ms": 0,
                     "over_1s": 0},
                 1: {"n": 40, "median": 0.081, "p95": 0.098, "p99": 0.100, "max": 0.100, "over_100ms": 0,
                     "over_1s": 0}}

    def rewrite(kept: bool, p95: bool = True) -> str:
        for r in rows:
            if r["test"] == "greedy":
                deal = int(r["deal"])  # type: ignore[call-overload]
                r["times"] = [i / 1000 for i in spans[deal]] if kept else []
                r["timing"] = {k: v for k, v in summaries[deal].items() if p95 or k != "p95"}
        (tmp_path / "deals.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        out, again = _panel(tmp_path, *run)
        assert len(again) == len(rows)  # nothing played: the report is the file's
        return next(x for x in out.splitlines() if x.startswith("  greedy "))

    # From the times themselves (--keep-times): exact.
    assert "decisions 100, median 51 ms, p95 95 ms, max 100 ms," in rewrite(kept=True)
    # From the deals' summaries alone: a bound, the largest deal's own, and said to be one.
    assert "p95 at most 98 ms (the deals' largest), max 100 ms," in rewrite(kept=False)
    # Rows filed before the summaries had it: no figure rather than a wrong one.
    line = rewrite(kept=False, p95=False)
    assert "p95" not in line and "max 100 ms" in line
