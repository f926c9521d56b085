"""Win-rate intervals hold their 95% coverage for any number of players and few deals, checked by
simulation with fixed seeds: on real duplicate deals (three random bots, six deals a run, the case
where the old interval covered about 91%), and on two models of duplicate deals with known rates
(two to six players, strong and weak entries, 3 to 20 deals)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import pytest

from updown.arena import make_lineup, play_deal
from updown.arena.stats import game_figures, rate_interval, summarise, t_quantile, wilson
from updown.core.registry import get_game


def test_wilson_and_the_degenerate_cases() -> None:
    low, high = wilson(0.5, 10, 1.959964)  # 5 of 10: the textbook 95% interval
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert rate_interval([1.0])["low"] is None  # one deal: no interval
    every = rate_interval([1.0] * 6)  # no spread: the deals are the sample size, t on 5 df
    assert every["high"] == 1.0 and every["low"] == pytest.approx(6 / (6 + t_quantile(0.975, 5) ** 2))
    none = rate_interval([0.0] * 6)
    assert none["low"] == 0.0 and 0 < none["high"] < 0.6
    level = rate_interval([1 / 3] * 6)  # the same rate in every deal: no collapse to a point
    assert level["low"] < 1 / 3 < level["high"]


def _coverage(draw: Callable[[random.Random], float], true: float, deals: int, runs: int, seed: int,
              quantile: Callable[[int], float] | None = None) -> float:
    """The share of ``runs`` runs of ``deals`` per-deal rates whose interval holds ``true``."""
    rng = random.Random(seed)
    hits = 0
    for _ in range(runs):
        values = [draw(rng) for _ in range(deals)]
        if quantile is None:
            out = rate_interval(values)
            low, high = out["low"], out["high"]
        else:  # the same interval with another quantile (the old one: the normal 1.96)
            p = sum(values) / deals
            var = sum((v - p) ** 2 for v in values) / (deals - 1)
            n = p * (1 - p) / (var / deals) if var > 0 and 0 < p < 1 else deals
            low, high = wilson(p, n, quantile(deals))
        hits += low <= true <= high
    return hits / runs


def test_coverage_on_real_duplicate_deals_three_random_bots_six_deals() -> None:
    """1,000 runs of 6 deals drawn from 600 real ones (UP&DOWN, one round, three random bots; the
    population is those 600 deals, so the true rate is their mean, about 1/3). The normal quantile
    (the old interval) is checked too, to show the band catches it."""
    game = get_game("updown")
    lineup = make_lineup(game, ["random", "random", "random"], seed=3, options=game.options({"rounds": 1}))
    deals = [play_deal(lineup, d) for d in range(600)]
    per_deal = [sum(game_figures(lineup, g)[2][0] for g in deal["games"]) / len(deal["games"]) for deal in deals]
    true = sum(per_deal) / len(per_deal)
    assert abs(true - 1 / 3) < 0.03
    covered = _coverage(lambda rng: rng.choice(per_deal), true, 6, 1000, seed=11)
    assert 0.93 <= covered <= 0.985, covered
    old = _coverage(lambda rng: rng.choice(per_deal), true, 6, 1000, seed=11, quantile=lambda d: 1.959964)
    assert old < 0.935, old
    # a run's figures come out of the same function
    picks = [random.Random(5).randrange(600) for _ in range(6)]
    run = [dict(deals[i], deal=k) for k, i in enumerate(picks)]
    assert summarise(lineup, run)["entries"][0]["win_rate"] == rate_interval([per_deal[i] for i in picks])


def _hands_deal(players: int) -> Callable[[random.Random], float]:
    """A duplicate deal of ``players`` equal entries: each seat's hand has a strength, each seating
    rotates the entries over the hands, a game's winner is drawn in proportion to its hand's
    strength; entry 0's per-deal rate (its true rate is 1/players by symmetry)."""
    def draw(rng: random.Random) -> float:
        strength = [rng.random() + 0.2 for _ in range(players)]
        wins = 0
        for seating in range(players):
            x = rng.random() * sum(strength)
            seat = 0
            while x >= strength[seat]:
                x -= strength[seat]
                seat += 1
            wins += seat == seating  # entry 0 sits in seat `seating`
        return wins / players
    return draw


def _beta_binomial_deal(games: int, a: float, b: float) -> Callable[[random.Random], float]:
    """A deal whose ``games`` seatings entry 0 each wins with one chance drawn per deal from
    Beta(a, b) (a strong or weak entry, deals of varying luck); its true rate is a / (a + b)."""
    def draw(rng: random.Random) -> float:
        chance = rng.betavariate(a, b)
        return sum(rng.random() < chance for _ in range(games)) / games
    return draw


BANDS = {3: (0.93, 1.0), 6: (0.93, 1.0), 10: (0.93, 0.985), 20: (0.93, 0.975)}
"""Coverage allowed by deals per run: never below 93% (95% less three Monte Carlo standard errors);
conservative with very few deals (the spread of 3 or 6 deals is a poor estimate, so t is large),
close to 95% from 10 to 20 deals."""
RUNS = {3: 1000, 6: 1000, 10: 1000, 20: 1500}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_coverage_for_every_number_of_players(players: int) -> None:
    for deals, (low, high) in BANDS.items():
        covered = _coverage(_hands_deal(players), 1 / players, deals, RUNS[deals], seed=players * 100 + deals)
        assert low <= covered <= high, (deals, covered)


@pytest.mark.parametrize("games,a,b", [(2, 4, 1), (4, 9, 1), (3, 1, 1), (6, 1, 5), (4, 20, 80), (2, 0.5, 0.5)])
def test_coverage_for_strong_and_weak_entries(games: int, a: float, b: float) -> None:
    true = a / (a + b)
    for deals, (low, high) in BANDS.items():
        covered = _coverage(_beta_binomial_deal(games, a, b), true, deals, RUNS[deals], seed=int(100 * a + b) + deals)
        assert low <= covered <= high, (deals, covered)


def test_intervals_are_no_wider_than_they_need_be() -> None:
    """At 20 deals the interval is about as wide as mean ± t·se (it only differs near 0 and 1)."""
    rng = random.Random(3)
    draw = _hands_deal(3)
    for _ in range(50):
        values = [draw(rng) for _ in range(20)]
        out = rate_interval(values)
        if out["se"]:
            t_width = 2 * t_quantile(0.975, 19) * out["se"]
            assert out["high"] - out["low"] == pytest.approx(t_width, rel=0.12)
    assert math.isclose(t_quantile(0.975, 5), 2.5706, abs_tol=1e-3)
