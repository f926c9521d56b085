"""The position audit of UP&DOWN's choices (benchmarks/updown_choices.py) on tiny runs."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from bench_util import load_benchmark

uc = load_benchmark("updown_choices")


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    """Six positions against a random player, every tenth from the first game on, 60 playouts."""
    picked = itertools.islice(enumerate(uc.positions(2, 1, "random", 3, {"normal": 20})), 0, 60, 10)
    return [uc.audit(pos, i, ["greedy", "random", "normal:worlds=8"], field="random", playouts=60, seed=3,
                     counts={"normal": 20}, engine="batched") for i, pos in picked]


def test_positions_are_greedy_seats_decisions_with_a_choice() -> None:
    got = list(itertools.islice(uc.positions(2, 1, "easy", 5, {}), 40))
    assert all(len(p.legal) > 1 for p in got)
    assert {p.game for p in got} == {0, 1}  # about 21 a game at 2 players: the second game too
    for p in got:
        assert p.state.actors()[0] == p.seat == p.game % 2
        assert sorted(p.legal) == sorted(p.state.legal_actions(p.seat))


def test_budgeted_holds_a_level_to_its_count_unless_the_variant_names_worlds() -> None:
    counts = {"normal": 20}
    assert uc.budgeted("normal", counts) == "normal:ms=0,worlds=20"
    assert uc.budgeted("normal:keep=2", counts) == "normal:keep=2,ms=0,worlds=20"
    assert uc.budgeted("normal:worlds=80", counts) == "normal:worlds=80,ms=0"
    assert uc.budgeted("greedy", counts) == "greedy"


def test_greedy_as_a_variant_scores_exactly_zero(rows: list[dict]) -> None:
    f = uc.figures(rows, "greedy")
    assert f["mean"] == 0.0 and f["share"] == 0.0 and f["n"] == len(rows)


def test_the_oracle_bounds_every_variant_at_every_position(rows: list[dict]) -> None:
    oracle = uc.gains(rows, uc.ORACLE)
    for spec in ("greedy", "random", "normal:worlds=8"):
        for (_, best, _), (_, mine, _) in zip(oracle, uc.gains(rows, spec)):
            assert best >= mine
    assert uc.figures(rows, uc.ORACLE)["mean"] > 0  # the actions' values differ somewhere
    # A random player's cards give tricks away: it leaves greedy's card and loses by it.
    f = uc.figures(rows, "random")
    assert f["share"] > 0.5 and f["mean"] < 0


def test_a_variant_that_plays_the_best_true_action_scores_the_oracle(rows: list[dict]) -> None:
    cheat = [dict(r, chosen={**r["chosen"], "cheat": r["legal"][max(range(len(r["values"])),
                                                                   key=r["values"].__getitem__)]})
             for r in rows]
    f = uc.figures(cheat, "cheat")
    assert f["mean"] == pytest.approx(uc.figures(rows, uc.ORACLE)["mean"])
    assert f["mean"] > 0 and f["left_gain"] > 0


def _hidden_swapped(pos):  # the other seat's hand exchanged with cards set aside: the same view
    other = 1 - pos.seat
    twin = pos.state.clone()
    hand, aside = list(twin.hands[other]), list(twin.aside)
    k = min(len(hand), len(aside))
    twin.hands[other][:] = sorted(aside[:k] + hand[k:])
    twin.aside[:] = hand[:k] + aside[k:]
    return uc.Position(pos.game, pos.seat, twin, list(pos.legal))


def test_true_values_are_read_from_the_real_state_not_the_view() -> None:
    pos = next(p for p in uc.positions(2, 1, "greedy", 2, {}) if p.state.view(p.seat)["phase"] == "choose"
               and len(p.legal) >= 6)
    twin = _hidden_swapped(pos)
    assert twin.state.view(pos.seat) == pos.state.view(pos.seat)
    own = pos.legal.index(uc.greedy_action(pos))
    assert uc.greedy_action(twin) == pos.legal[own]  # greedy reads the view alone
    a, _ = uc.batched_values(pos, "greedy", 40, np.random.default_rng(1), own)
    b, _ = uc.batched_values(twin, "greedy", 40, np.random.default_rng(1), own)
    assert a != b  # the same random numbers, other hidden cards: other values
    assert uc.batched_values(pos, "greedy", 40, np.random.default_rng(1), own)[0] == a  # and seeded


def test_the_scalar_and_batched_engines_agree_on_a_greedy_table() -> None:
    # Late in the round, against greedy: little is left to chance (a re-roll of the trump), so
    # the real bots' playouts and the batched rule's give nearly the same values.
    pos = next(p for p in uc.positions(2, 1, "greedy", 4, {}) if p.state.view(p.seat)["trick"] >= 10)
    own = pos.legal.index(uc.greedy_action(pos))
    b, _ = uc.batched_values(pos, "greedy", 200, np.random.default_rng(2), own)
    s, _ = uc.scalar_values(pos, "greedy", 30, "agree", {}, own)
    assert max(abs(x - y) for x, y in zip(b, s)) < 0.5
    assert b != [b[0]] * len(b)  # the actions differ: the agreement is not of constants


def test_a_variant_is_asked_from_the_view_alone_with_a_seeded_rng() -> None:
    pos = next(p for p in uc.positions(2, 1, "random", 6, {}) if len(p.legal) >= 8)
    twin = _hidden_swapped(pos)
    spec = "normal:worlds=8"
    first = uc.variant_action(spec, pos, {"normal": 20}, "tag")
    assert uc.variant_action(spec, twin, {"normal": 20}, "tag") == first
    assert first in pos.legal


def test_reuse_keeps_the_true_values_and_asks_only_the_new_variants(rows: list[dict]) -> None:
    pos = next(itertools.islice(uc.positions(2, 1, "random", 3, {"normal": 20}), 10, None))
    known = rows[1]
    assert known["index"] == 10
    again = uc.audit(pos, 10, ["greedy", "normal:keep=3"], field="random", playouts=5, seed=3,
                     counts={"normal": 20}, engine="batched", known=known)
    assert again["values"] == known["values"] and again["playouts"] == 60
    assert again["chosen"]["random"] == known["chosen"]["random"] and "normal:keep=3" in again["chosen"]
    other = next(itertools.islice(uc.positions(2, 1, "random", 3, {"normal": 20}), 20, None))
    with pytest.raises(SystemExit):
        uc.audit(other, 20, ["greedy"], field="random", playouts=5, seed=3, counts={}, engine="batched",
                 known=known)
