"""The figures of a run: per-entry means with 95% intervals, head-to-head, openskill ratings.

The unit of sampling is the deal: the seatings of one deal share its cards, so their games are
correlated (that is the point of duplicate play). Every mean is therefore taken per deal first
(the mean over the deal's seatings), and its standard error is the spread of those per-deal
values over the square root of the number of deals; the 95% interval uses Student's t with
``deals - 1`` degrees of freedom (a win rate: Wilson's score interval on the deals' effective
sample size, with the same t quantile; :func:`rate_interval`). With one deal there is no spread to
measure, and no interval.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Any

from updown.arena.duplicate import Lineup, seat_of

HISTORY_POINTS = 400
"""At most this many points of the rating history go into the results (the plot draws all)."""


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with ``df`` degrees of freedom (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2:
        total, term = 0.0, math.cos(theta)
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * k) / (2 * k + 1)
        return 2 / math.pi * (theta + math.sin(theta) * total) if df > 1 else 2 / math.pi * theta
    total, term = 0.0, 1.0
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return math.sin(theta) * total


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: int) -> float:
    """Student's t quantile (``p`` > 0.5): exact up to 100 degrees of freedom, a series past that.

    >>> round(t_quantile(0.975, 1), 3), round(t_quantile(0.975, 10), 3)
    (12.706, 2.228)
    """
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if not 0.5 < p < 1:
        raise ValueError("p must be between 0.5 and 1")
    if df <= 100:
        target = 2 * p - 1
        low, high = 0.0, 1.0
        while _t_two_sided(high, df) < target:
            high *= 2
        for _ in range(100):
            mid = (low + high) / 2
            low, high = (mid, high) if _t_two_sided(mid, df) < target else (low, mid)
        return (low + high) / 2
    z = NormalDist().inv_cdf(p)
    # Abramowitz & Stegun 26.7.5 (Cornish-Fisher expansion in 1/df).
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def interval(values: Sequence[float], lo: float | None = None, hi: float | None = None) -> dict[str, Any]:
    """Mean of per-deal values with its standard error and 95% interval (clipped to [lo, hi])."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return {"mean": mean, "se": None, "low": None, "high": None}
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    se = math.sqrt(var / n)
    half = t_quantile(0.975, n - 1) * se
    low, high = mean - half, mean + half
    if lo is not None:
        low = max(low, lo)
    if hi is not None:
        high = min(high, hi)
    return {"mean": mean, "se": se, "low": low, "high": high}


def rate_interval(values: Sequence[float]) -> dict[str, Any]:
    """A win rate from per-deal rates: Wilson's score interval with the deals' design effect and
    Student's t (the quasi-binomial score interval), 95%.

    The rate's variance is taken as ``φ·p(1-p)/deals`` for the rate ``p`` being tested, with the
    dispersion ``φ`` measured over the deals (``s² / (p̂(1-p̂))``, ``s²`` the per-deal rates' sample
    variance). Solving ``(p̂ - p)² = q² φ p(1-p) / deals`` for ``p`` is Wilson's interval on the
    effective sample size ``p̂(1-p̂)/se²``. Because ``φ`` is itself estimated from the deals, ``q``
    is Student's t quantile on ``deals - 1`` degrees of freedom, not the normal 1.96: with 6 deals
    that is 2.571, and the normal quantile (what this function used before) covered a true rate of
    1/3 only about 91% of the time (random bots, three players; ``docs/arena.md``). When every
    deal gave the same rate, or the rate is 0 or 1, there is no spread to go by and the number of
    deals is the sample size. Unlike ``mean ± t·se`` it does not shrink to a point at 0 or 1.
    """
    out = interval(values, 0.0, 1.0)
    p, se, deals = out["mean"], out["se"], len(values)
    if se is None:
        return out
    n = p * (1 - p) / se**2 if se > 0 and 0 < p < 1 else float(deals)
    out["low"], out["high"] = wilson(p, n, t_quantile(0.975, deals - 1))
    return out


def wilson(p: float, n: float, q: float) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` observed on ``n`` trials, at quantile ``q``.

    >>> [round(x, 4) for x in wilson(0.5, 10, 1.959964)]
    [0.2366, 0.7634]
    """
    u = q * q / n
    centre = (p + u / 2) / (1 + u)
    half = q / (1 + u) * math.sqrt(p * (1 - p) / n + u / (4 * n))
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return low, high


def game_figures(lineup: Lineup, game: dict[str, Any]) -> tuple[list[float], list[float], list[float], list[int]]:
    """Per entry in one game: score, score minus the opponents' mean, win share, placing.

    The win share is 1 for a first place shared with no rival (partners are no rivals) and 1/k
    for a first place shared by k rival sides.
    """
    n = lineup.players
    r = game["seating"]
    seats = [seat_of(e, r, n) for e in range(n)]
    scores = [float(game["scores"][s]) for s in seats]
    placings = [int(game["placings"][s]) for s in seats]
    team_of = lineup.team_of()
    diffs = []
    for e in range(n):
        rivals = [scores[o] for o in range(n) if team_of[o] != team_of[e]]
        diffs.append(scores[e] - math.fsum(rivals) / len(rivals) if rivals else 0.0)
    winning_sides = {team_of[e] for e in range(n) if placings[e] == 1}
    wins = [1.0 / len(winning_sides) if placings[e] == 1 else 0.0 for e in range(n)]
    return scores, diffs, wins, placings


def summarise(lineup: Lineup, deals: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """All the figures of a run from its finished deals (in any order; they are sorted here).

    Besides the figures, ``rating_history`` has the ratings after every deal and ``score_diffs``
    every game's score difference per entry, for the plots; :func:`public` trims them for JSON.
    """
    deals = sorted(deals, key=lambda d: d["deal"])
    n = lineup.players
    labels = lineup.labels()
    team_of = lineup.team_of()
    per_deal: dict[str, list[list[float]]] = {k: [[] for _ in range(n)] for k in ("score", "diff", "win")}
    pair_diff: dict[tuple[int, int], list[float]] = {(i, j): [] for i in range(n) for j in range(n) if i != j}
    ahead = {(i, j): [0, 0, 0] for i in range(n) for j in range(n) if i != j}
    seat_games = [[0] * n for _ in range(n)]
    game_diffs: list[list[float]] = [[] for _ in range(n)]
    ratings = Ratings(lineup)
    history: list[dict[str, Any]] = [{"games": 0, **ratings.snapshot()}]
    played = 0
    for deal in deals:
        sums = {k: [0.0] * n for k in per_deal}
        pair_sum = dict.fromkeys(pair_diff, 0.0)
        for game in deal["games"]:
            scores, diffs, wins, placings = game_figures(lineup, game)
            for e in range(n):
                sums["score"][e] += scores[e]
                sums["diff"][e] += diffs[e]
                sums["win"][e] += wins[e]
                game_diffs[e].append(diffs[e])
                seat_games[e][seat_of(e, game["seating"], n)] += 1
            for (i, j), row in ahead.items():
                pair_sum[i, j] += scores[i] - scores[j]
                row[0 if placings[i] < placings[j] else 1 if placings[i] > placings[j] else 2] += 1
            ratings.rate(placings)
        k = len(deal["games"])
        played += k
        for key, values in per_deal.items():
            for e in range(n):
                values[e].append(sums[key][e] / k)
        for pair, total in pair_sum.items():
            pair_diff[pair].append(total / k)
        history.append({"games": played, **ratings.snapshot()})
    entries = []
    for e in range(n):
        entries.append({
            "entry": e, "bot": lineup.bots[e], "label": labels[e], "team": team_of[e],
            "games": played, "seats": seat_games[e],
            "mean_score": interval(per_deal["score"][e]),
            "mean_diff": interval(per_deal["diff"][e]),
            "win_rate": rate_interval(per_deal["win"][e]),
            "rating": ratings.entry(e),
        })
    head_to_head = [
        {"entry": i, "against": j, "ahead": ahead[i, j][0], "behind": ahead[i, j][1], "level": ahead[i, j][2],
         "mean_diff": interval(pair_diff[i, j])}
        for i in range(n) for j in range(n) if i != j and team_of[i] != team_of[j]
    ]
    return {
        "lineup": lineup.to_dict(), "deals": len(deals), "games": played, "seatings": lineup.seatings,
        "entries": entries, "head_to_head": head_to_head,
        "rating_history": history,
        "score_diffs": game_diffs,
    }


def public(results: dict[str, Any]) -> dict[str, Any]:
    """The results as written to JSON: the rating history thinned, per-game differences left out."""
    out = {k: v for k, v in results.items() if k != "score_diffs"}
    out["rating_history"] = thin(results["rating_history"], HISTORY_POINTS)
    return out


def thin(points: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` evenly spaced points, always keeping the last."""
    if len(points) <= limit:
        return points
    step = len(points) / limit
    picked = [points[int(i * step)] for i in range(limit - 1)]
    return [*picked, points[-1]]


class Ratings:
    """openskill Plackett-Luce ratings, one per entry; partners are rated as one team."""

    def __init__(self, lineup: Lineup):
        from openskill.models import PlackettLuce  # the arena extra; playing does not need it

        self.model = PlackettLuce()
        self.teams = [list(t) for t in lineup.teams]
        self.current = [self.model.rating(name=label) for label in lineup.labels()]

    def rate(self, placings: Sequence[int]) -> None:
        """Update with one game; ``placings`` by entry (partners share theirs)."""
        teams = [[self.current[e] for e in team] for team in self.teams]
        ranks: list[float] = [float(min(placings[e] for e in team)) for team in self.teams]
        rated = self.model.rate(teams, ranks=ranks)
        for team, new in zip(self.teams, rated):
            for e, rating in zip(team, new):
                self.current[e] = rating

    def entry(self, e: int) -> dict[str, float]:
        r = self.current[e]
        return {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()}

    def snapshot(self) -> dict[str, list[float]]:
        return {"mu": [r.mu for r in self.current], "sigma": [r.sigma for r in self.current]}
