"""What views and worlds cost, through the public protocol.

    python benchmarks/views_and_worlds.py [SECONDS]

1. Views: random games in which every decision asks ``view(seat)`` of the acting seat (what the
   driver does for every bot), in games per second. Run it on two trees to compare them.
2. Worlds (when the tree has ``Game.sample_world``): at positions early, half-way and late in a
   match, the time of ``clone()``, of a view, of ``world_sampler(view)`` (read once), of one
   ``draw`` and of ``resample`` (view + sampler + draw), measured interleaved in this process;
   printed as microseconds and as multiples of a clone.
"""

from __future__ import annotations

import random
import sys
import time
from typing import Any

from updown.core.registry import all_games

SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0


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
