"""What views and worlds cost, through the public protocol.

    python benchmarks/views_and_worlds.py [SECONDS] [--views-only]

0. Per view: microseconds of CPU time of ``view(seat)`` (the acting seat) and of ``view(None)`` over every
   decision of random games (the bench options), each position viewed once before it is timed
   (as a driver sees it: the state's caches warm); medians of interleaved rounds. Run it on two
   trees in turn (``--views-only`` stops after this part) to compare them, compiled or pure.
1. Views: random games in which every decision asks ``view(seat)`` of the acting seat (what the
   driver does for every bot), in games per second. Run it on two trees to compare them.
2. Worlds (when the tree has ``Game.sample_world``): at positions early, half-way and late in a
   match, the time of ``clone()``, of a view, of ``world_sampler(view)`` (read once), of one
   ``draw`` and of ``resample`` (view + sampler + draw), measured interleaved in this process;
   printed as microseconds and as multiples of a clone.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from typing import Any

from updown.core.registry import all_games

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
SECONDS = float(ARGS[0]) if ARGS else 2.0
VIEWS_ONLY = "--views-only" in sys.argv


def view_costs(game: Any, players: int, options: Any, seconds: float, rounds: int = 5) -> tuple[float, float]:
    """Median microseconds of ``view(actor)`` and ``view(None)`` over the decisions of random games."""
    rng = random.Random(3)
    states: list[tuple[Any, int]] = []
    while len(states) < 2000:
        state = game.new_state(players, options)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            seat = state.actors()[0]
            copy = state.clone()
            copy.view(seat)
            copy.view(None)
            states.append((copy, seat))
            state.apply(rng.choice(state.legal_actions(seat)), seat)
    per: dict[str, list[float]] = {"seat": [], "none": []}
    for _ in range(rounds):
        for key in per:
            done, start = 0, time.process_time()  # CPU time: the machine is shared
            while time.process_time() - start < seconds / rounds / 2:
                if key == "seat":
                    for s, seat in states:
                        s.view(seat)
                else:
                    for s, _ in states:
                        s.view(None)
                done += len(states)
            per[key].append((time.process_time() - start) / done * 1e6)
    return statistics.median(per["seat"]), statistics.median(per["none"])


def viewed_playouts(game: Any, players: int, options: Any, seconds: float) -> float:
    rng = random.Random(0)
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_state(players, options)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
            else:
                seat = state.actors()[0]
                state.view(seat)
                state.apply(rng.choice(state.legal_actions(seat)), seat)
        games += 1
    return games / (time.perf_counter() - start)


def positions(game: Any, players: int) -> list[tuple[str, Any]]:
    rng = random.Random(1)
    states = []
    state = game.new_state(players)
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            seat = state.actors()[0]
            states.append(state.clone())
            state.apply(rng.choice(state.legal_actions(seat)), seat)
    n = len(states)
    return [("early", states[n // 10]), ("half-way", states[n // 2]), ("late", states[(9 * n) // 10])]


def timed(fn: Any, reps: int) -> float:
    start = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - start) / reps * 1e6


def main() -> None:
    print("per view, microseconds (medians of 5 interleaved rounds)")
    for game in all_games():
        opts = game.options(game.bench_options)
        seat_us, none_us = view_costs(game, game.bench_players, opts, SECONDS)
        engine = sys.modules[type(game.new_state(game.bench_players, opts)).__module__].__file__
        print(f"  {game.id}: view(seat) {seat_us:.2f} us, view(None) {none_us:.2f} us  ({engine})")
    if VIEWS_ONLY:
        return
    print("views: random games asking view(seat) at every decision")
    for game in all_games():
        opts = game.options(game.bench_options)
        print(f"  {game.id}: {viewed_playouts(game, game.bench_players, opts, SECONDS):,.0f} games/s")
    if not hasattr(all_games()[0], "world_sampler"):
        return
    print("worlds: microseconds per call (and in clones), full matches with default options")
    for game in all_games():
        players = game.bench_players
        for label, state in positions(game, players):
            seat = state.actors()[0]
            view = state.view(seat)
            sampler = game.world_sampler(view)
            rng = random.Random(2)
            reps = 200
            totals = {"clone": 0.0, "view": 0.0, "sampler": 0.0, "draw": 0.0, "resample": 0.0}
            for _ in range(5):  # interleaved rounds
                totals["clone"] += timed(state.clone, reps)
                totals["view"] += timed(lambda: state.view(seat), reps)
                totals["sampler"] += timed(lambda: game.world_sampler(view), reps // 4)
                totals["draw"] += timed(lambda: sampler.draw(rng), reps)
                totals["resample"] += timed(lambda: state.resample(seat, rng), reps // 4)
            clone = totals["clone"] / 5
            parts = ", ".join(f"{k} {v / 5:,.1f} us ({v / 5 / clone:.1f}x)" for k, v in totals.items() if k != "clone")
            print(f"  {game.id} {label} ({len(state.log)} events): clone {clone:,.1f} us; {parts}")


if __name__ == "__main__":
    main()
