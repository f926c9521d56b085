"""Arena games per second: 1 worker, 2 worker processes, and Ray on this machine.

The three ways run the same deals, interleaved (1 worker, 2 workers, Ray; again...), so a busy
spell on the shared machine hits all of them; the ratios are against the 1-worker run of the same
round. A process-pool run includes starting its workers (spawn: a fresh interpreter that imports
updown), as a user's run does; the Ray instance is started once beforehand (its start-up time is
printed on its own) and reused, as a cluster would be.

Usage: python benchmarks/arena_scaling.py [rounds] [games]   (defaults: 3 rounds of 800 games)
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import time
from typing import Any

from updown.arena import deals_for, make_lineup, run_arena
from updown.core.registry import get_game


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 800
    game = get_game("updown")
    lineup = make_lineup(game, ["greedy", "greedy", "random", "random"], 0, game.options({"rounds": 1}))
    deals = deals_for(games, lineup)
    played = deals * lineup.seatings
    try:
        import ray
    except ImportError:
        ray = None  # type: ignore[assignment]
    if ray is not None:
        started = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
        print(f"Ray local instance (num_cpus=2) started in {time.perf_counter() - started:.1f} s")
    load_before = os.getloadavg()[0]
    ways: dict[str, dict[str, Any]] = {"1 worker": {"workers": 1}, "2 workers": {"workers": 2}}
    if ray is not None:
        ways["Ray, 2 CPUs"] = {"ray": "auto"}
    rates: dict[str, list[float]] = {way: [] for way in ways}
    reference = None
    try:
        for _ in range(rounds):
            for way, kwargs in ways.items():
                started = time.perf_counter()
                results = run_arena(lineup, deals, **kwargs)
                rates[way].append(played / (time.perf_counter() - started))
                if reference is None:
                    reference = results
                assert results == reference, f"{way} gave other results"
    finally:
        if ray is not None:
            ray.shutdown()
    print(f"updown, 4 players (greedy, greedy, random, random), rounds=1: {played} games "
          f"({deals} deals x {lineup.seatings} seatings) per run, {rounds} interleaved rounds; "
          "results identical in every run")
    base = rates["1 worker"]
    for way, values in rates.items():
        ratios = [v / b for v, b in zip(values, base)]
        print(f"  {way:12} median {statistics.median(values):7.1f} games/s "
              f"(runs: {', '.join(f'{v:.1f}' for v in values)}); "
              f"ratio to 1 worker: median {statistics.median(ratios):.2f}")
    print(f"The machine has 2 cores shared with other jobs (load average {load_before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after): a ratio below 2 is partly their load.")


if __name__ == "__main__":
    main()
