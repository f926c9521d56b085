"""What duplicate play buys, game by game, and whether the arena's intervals are honest.

1. Same cards: the share of chance draws (the k-th draw of each label) that are equal in every
   seating of a deal, with one generator per chance label (the arena's way) and with one
   generator for all chance (the plain driver's way).
2. Luck cancelled: the standard error of greedy's mean score difference against random, and
   against greedy, from N duplicate deals (N x seatings games) and from the same number of games
   on independent deals.
3. Honest intervals: how often the 95% interval of random against random covers the true 0.

Usage: python benchmarks/arena_duplicate.py [deals]   (default 50)
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections import defaultdict
from typing import Any

from updown.arena import duplicate, make_lineup, run_arena
from updown.arena.stats import game_figures
from updown.core.registry import get_game

SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("updown", {"rounds": 1}), ("updown", {"rounds": 2}), ("euchre", {"deals": 1}), ("euchre", {}),
    ("updown-sueca", {}), ("up-or-down", {}),
]


class OneStream(duplicate.ChanceStreams):
    """Every chance label drawn from one generator."""

    def select(self, label: str) -> None:
        super().select("all chance")


def keyed_draws(record: str) -> dict[tuple[str, int], str]:
    seen: dict[str, int] = defaultdict(int)
    out = {}
    for step in json.loads(record)["steps"]:
        label, _, outcomes = step.partition(": ")
        if label.isdigit():
            continue
        for outcome in outcomes.split():
            out[label, seen[label]] = outcome
            seen[label] += 1
    return out


def agreement(game_id: str, options: dict[str, Any], deals: int) -> float:
    game = get_game(game_id)
    line = make_lineup(game, ["greedy", "random", "greedy", "random"], 1, game.options(options))
    equal = total = 0
    for d in range(deals):
        draws = [keyed_draws(g["record"]) for g in duplicate.play_deal(line, d, record=True)["games"]]
        common = set(draws[0]).intersection(*draws[1:])
        total += len(common)
        equal += sum(all(x[k] == draws[0][k] for x in draws) for k in common)
    return equal / total


def luck(game_id: str, options: dict[str, Any], deals: int, other: str = "random") -> tuple[float, float]:
    game = get_game(game_id)
    n = min(max(game.min_players, 3), game.max_players)
    bots = ["greedy", other] if game.teams(n) is not None else ["greedy"] + [other] * (n - 1)
    line = make_lineup(game, bots, 7, game.options(options))
    dup = run_arena(line, deals)["entries"][0]["mean_diff"]["se"]
    options = game.options(line.options)
    diffs: list[float] = []
    for k in range(deals * line.seatings):  # every game on a deal of its own, seats still rotated
        seed = duplicate.deal_seed(line.seed + 1, k)
        played: dict[str, Any] = duplicate.play_seating(line, game, options, seed, k % line.seatings)
        diffs.append(game_figures(line, played)[1][0])
    independent = statistics.stdev(diffs) / math.sqrt(len(diffs))
    return dup, independent


def _opts(options: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items())


def main() -> None:
    deals = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    print(f"1. chance draws equal in all 4 seatings (greedy, random, greedy, random; {deals // 5} deals)")
    for game_id, options in SETTINGS:
        ours = agreement(game_id, options, deals // 5)
        duplicate.ChanceStreams, saved = OneStream, duplicate.ChanceStreams  # type: ignore[misc]
        try:
            one = agreement(game_id, options, deals // 5)
        finally:
            duplicate.ChanceStreams = saved  # type: ignore[misc]
        print(f"  {game_id + ' ' + _opts(options):22} per-label streams {ours:6.1%}   one stream {one:6.1%}")
    print(f"2. standard error of greedy's mean score difference against random (the others random), "
          f"{deals} deals")
    for game_id, options in SETTINGS:
        dup, independent = luck(game_id, options, deals)
        print(f"  {game_id + ' ' + _opts(options):22} duplicate {dup:.3f}   independent deals {independent:.3f}   "
              f"ratio {dup / independent:.2f} (games needed for the same error: x{(dup / independent) ** 2:.2f})")
    print(f"   greedy against greedy (the true difference is 0), {deals} deals")
    for game_id, options in SETTINGS:
        dup, independent = luck(game_id, options, deals, "greedy")
        print(f"  {game_id + ' ' + _opts(options):22} duplicate {dup:.3f}   independent deals {independent:.3f}")
    runs = 300
    covered = 0
    for seed in range(runs):
        line = make_lineup(get_game("updown"), ["random"] * 3, seed, get_game("updown").options({"rounds": 1}))
        figure = run_arena(line, 10)["entries"][0]["mean_diff"]
        covered += figure["low"] <= 0.0 <= figure["high"]
    print(f"3. random x3, updown rounds=1, 10 deals: the 95% interval of the difference covered 0 in "
          f"{covered} of {runs} runs")


if __name__ == "__main__":
    main()
