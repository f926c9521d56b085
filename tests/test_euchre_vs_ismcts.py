"""The Euchre-vs-OpenSpiel-ISMCTS harness (benchmarks/euchre_vs_ismcts.py) at a tiny budget.

The harness itself asserts, at every step, that our mirror and pyspiel offer the same decisions to
the same seat, and at the end that both engines give the same points; these tests run its loop
over enough deals to reach every way the "alone?" question and the dealer's discard can interleave.
"""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from bench_util import load_benchmark

pytest.importorskip("pyspiel")


def test_random_against_tiny_ismcts_agrees_and_reports() -> None:
    harness = load_benchmark("euchre_vs_ismcts")
    report = harness.run("random", 300, sims=10)
    assert report.deals == 300
    # Per deal: the mean of two signed deal scores (1, 2 or 4 points), so a multiple of 1/2.
    assert all(-4 <= d <= 4 and (2 * d).is_integer() for d in report.per_deal)
    m, se = report.mean_se()
    assert math.isfinite(m) and 0 < se < 1
    assert m < 0  # random bidding and play lose to even a 10-simulation search
    # Every decision with a choice is timed: at least the bidding of both sides in every game.
    assert len(report.ours) >= 2 * 300 and len(report.theirs) >= 2 * 300
    # Each time is one decision's own: positive, and all of them together within the run's time.
    assert all(t > 0 for t in report.ours + report.theirs)
    assert sum(report.ours) + sum(report.theirs) <= report.seconds
    # The deals went through every path of the alone/discard window.
    assert set(report.cases) == {
        "ISMCTS alone, mirror rebuilt",
        "ISMCTS alone, its dealer's discard dropped",
        "our dealer discards, ISMCTS's alone pending",
        "our partner alone, our dealer sits out",
    }, report.cases
    line = report.line()
    assert "300 deals" in line and "ISMCTS median" in line


def test_greedy_plays_through_the_harness() -> None:
    # Not reproducible run to run: OpenSpiel's ISMCTS breaks ties in the iteration order of absl
    # hash maps, which differs between tables even with the same seeds.
    harness = load_benchmark("euchre_vs_ismcts")
    report = harness.run("greedy", 4, sims=10, seed=3)
    assert report.deals == 4 and len(report.ours) >= 8
    assert all(-4 <= d <= 4 and (2 * d).is_integer() for d in report.per_deal)


def test_our_times_are_those_of_our_decisions_with_a_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that takes at least 3 ms per decision: each of its times is at least that, and there
    is one per decision it had a choice in (a forced one is not timed)."""
    harness = load_benchmark("euchre_vs_ismcts")
    real = harness._our_bot
    choices = []

    class Slow:
        def __init__(self, inner: Any):
            self.inner = inner

        def act(self, view: Any, legal: list[int]) -> int:
            time.sleep(0.003)
            choices.append(len(legal) > 1)
            return int(self.inner.act(view, legal))

    monkeypatch.setattr(harness, "_our_bot", lambda *args: Slow(real(*args)))
    report = harness.run("random", 3, sims=10)
    assert len(report.ours) == sum(choices) >= 12 and not all(choices)
    assert all(t >= 0.003 for t in report.ours), min(report.ours)
    assert sum(report.ours) + sum(report.theirs) <= report.seconds


def test_a_wrong_mapping_is_caught() -> None:
    """If ISMCTS's "alone" were not carried into the mirror, the harness must notice."""
    harness = load_benchmark("euchre_vs_ismcts")
    harness.ALONE_OF = {k: k for k in harness.ALONE_OF}
    with pytest.raises(AssertionError):
        harness.run("random", 300, sims=10)


def test_a_level_with_settings_is_one_class_for_the_whole_run() -> None:
    """``LEVEL:key=value`` bots of one name share a class (what the Euchre levels learn per class,
    their stretch and batch cost model, is learned once per run, as for a registered level), with
    the settings applied; another name gets its own class."""
    import random

    from updown.bots.euchre_greedy import EuchreNormal
    from updown.core.registry import get_game

    harness = load_benchmark("euchre_vs_ismcts")
    game = get_game("euchre")
    a = harness._our_bot("normal:worlds=30", game, 0, random.Random(1))
    b = harness._our_bot("normal:worlds=30", game, 1, random.Random(2))
    c = harness._our_bot("normal:worlds=40", game, 0, random.Random(3))
    assert type(a) is type(b) and type(a) is not type(c)
    assert isinstance(a, EuchreNormal) and a.worlds == 30 and b.seat == 1 and c.worlds == 40


def test_the_report_gives_the_decision_time_distribution() -> None:
    harness = load_benchmark("euchre_vs_ismcts")
    times = [k / 1000 for k in range(1, 101)]  # 1 to 100 ms
    line = harness.Report.spread(times)
    assert line.startswith("p50 50.5 p90 90.1 p99 99.0 max 100.0 mean 50.5 ms"), line
    assert harness.Report.spread([0.01]) == "-"
