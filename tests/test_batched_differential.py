"""The batched engines against the scalar ones: the same deals and actions, every step compared.

Each batched game records the chance outcomes it drew (as scalar action ids); a scalar state per
game is fed those outcomes and the batched engine's actions. At every decision the acting seat and
the legal actions must agree, and after every step the tricks and scores: the scalar side's
figures come from its event log (trick, score and round events). At the end, ``Result.scores``.
Over 10,000 games in all, random and greedy play, every option.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from batched_harness import drive  # noqa: E402

from updown.batched.euchre import BatchedEuchre  # noqa: E402
from updown.batched.updown import BatchedUpDown  # noqa: E402
from updown.core.registry import get_game  # noqa: E402


def _euchre(n: int, seed: int, options: dict[str, Any], policy: str) -> tuple[int, Counter[str]]:
    batch = BatchedEuchre(n, seed, options, record=True)
    game = get_game("euchre")
    states = [game.new_state(4, batch.options) for _ in range(n)]
    return drive(batch, states, policy)


def _updown(n: int, seed: int, players: int, options: dict[str, Any], policy: str) -> tuple[int, Counter[str]]:
    batch = BatchedUpDown(n, seed, players, options, record=True)
    game = get_game("updown")
    states = [game.new_state(players, batch.options) for _ in range(n)]
    return drive(batch, states, policy)


# (games, seed, options, policy, ways a deal ends that must occur): 6,500 Euchre games
EUCHRE_RUNS = [
    (3000, 1, {"deals": 1}, "random", {"made", "march", "alone march", "euchred"}),
    (1500, 2, {"deals": 1}, "greedy", {"made", "march", "euchred"}),
    (600, 3, {}, "random", {"made", "march", "alone march", "euchred"}),
    (400, 4, {}, "greedy", {"made", "march", "euchred"}),
    (300, 5, {"deals": 1, "lone_defender": True}, "random", {"euchred alone", "made"}),
    (400, 6, {"deals": 3, "stick_the_dealer": False}, "passive", {"thrown in", "made"}),
    (300, 7, {"deals": 2, "stick_the_dealer": False, "lone_defender": True, "target": 3}, "greedy",
     {"made", "euchred"}),
]


@pytest.mark.parametrize("n, seed, options, policy, outcomes", EUCHRE_RUNS)
def test_euchre_matches_the_scalar_engine(
    n: int, seed: int, options: dict[str, Any], policy: str, outcomes: set[str]
) -> None:
    compared, seen = _euchre(n, seed, options, policy)
    assert compared >= n * 15
    assert outcomes <= set(seen), f"not reached: {outcomes - set(seen)}"


# (games, seed, players, options, policy, events that must occur): 4,000 UP&DOWN games
UPDOWN_RUNS = [
    (1500, 11, 4, {"rounds": 1}, "random", {"pot", "discarded", "flip", "rotate", "roll"}),
    (800, 12, 4, {"rounds": 1}, "greedy", {"pot", "discarded"}),
    (600, 13, 3, {"rounds": 1}, "random", {"pot", "discarded"}),
    (600, 14, 2, {"rounds": 1}, "greedy", {"pot"}),
    (300, 15, 4, {"rounds": 2, "tiebreak_rounds": 2}, "random", {"tiebreak"}),
    (200, 16, 3, {"tiebreak_rounds": 1}, "greedy", {"tiebreak"}),
]


@pytest.mark.parametrize("n, seed, players, options, policy, events", UPDOWN_RUNS)
def test_updown_matches_the_scalar_engine(
    n: int, seed: int, players: int, options: dict[str, Any], policy: str, events: set[str]
) -> None:
    compared, seen = _updown(n, seed, players, options, policy)
    assert compared >= n * 11
    assert events <= set(seen), f"not reached: {events - set(seen)}"


def test_the_runs_cover_ten_thousand_games() -> None:
    assert sum(r[0] for r in EUCHRE_RUNS) + sum(r[0] for r in UPDOWN_RUNS) >= 10_000
