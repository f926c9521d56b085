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
