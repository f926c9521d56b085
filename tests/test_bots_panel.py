"""The panel's line-ups (``benchmarks/bots_panel.py``): in a game of partners the mixed field seats
``greedy`` as the test seat's partner (not ``random``, which made every mixed Euchre score a
handicap), and the ``self`` field is a check that shares its deals with the field of the test bot's
own name (the same line-up), rather than playing them a second time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
