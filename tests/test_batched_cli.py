"""``updown bench-batched`` prints every row of both tables, and refuses bad settings."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

pytest.importorskip("numpy")

from updown.cli.app import app  # noqa: E402

runner = CliRunner()


def test_bench_batched_prints_both_tables() -> None:
    result = runner.invoke(app, ["bench-batched", "--seconds", "0.02", "--rounds", "1"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Euchre, one deal" in out and "UP&DOWN, 4 players, one round" in out
    for size in ("1", "100", "10,000"):
        assert f"updown batched, batch {size} " in out
    assert out.count("reference") == 2


def test_bench_batched_refuses_bad_settings() -> None:
    result = runner.invoke(app, ["bench-batched", "--rounds", "0"])
    assert result.exit_code == 2
    assert "rounds 1 to 20" in result.output
