"""The example training scripts run end to end (a few iterations) and draw their learning curve."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("pyspiel")
pytest.importorskip("matplotlib")

EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.mark.parametrize("script", ["pettingzoo_updown.py", "openspiel_euchre.py"])
def test_example_trains_and_plots(script: str, tmp_path: Path) -> None:
    out = tmp_path / "curve.png"
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--iterations", "3", "--batch", "4", "--eval-every", "2",
         "--eval-deals", "4", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("iteration") == 3  # iterations 0, 2 and 3
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args", [["--game", "euchre", "--bot", "greedy"],
                                  ["--game", "updown", "--players", "3", "--bot", "greedy", "--option", "rounds=1"]])
def test_ismcts_example_plays_its_own_loop_against_our_bots(args: list[str]) -> None:
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / "openspiel_ismcts.py"), *args, "--deals", "2", "--sims", "4"],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["deal    1", "deal    2"]
    last = lines[-1]
    assert "2 duplicate deals: greedy minus ISMCTS" in last and "ms" in last
    margin = float(last.split("minus ISMCTS ")[1].split()[0])
    assert -2.0 <= margin <= 2.0  # differences of zero-sum returns in [-1, 1]


def test_ismcts_example_refuses_an_unknown_bot() -> None:
    run = subprocess.run([sys.executable, str(EXAMPLES / "openspiel_ismcts.py"), "--bot", "wizard"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "no bot 'wizard' for euchre" in run.stderr
