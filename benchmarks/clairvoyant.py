"""How far could ``pimc`` get if it knew every hand? A bound, by a bot that cheats.

    python benchmarks/clairvoyant.py GAME [DEALS] [--skip N] [--worlds W] [--policy P] [--log FILE]

The bot is ``pimc`` (``updown/bots/pimc.py``) whose every world is the real state of the game
(every hand, every secret choice already made), so only later chance (re-rolls, later deals)
is drawn in its playouts; ``--policy`` is its playout rule (batched games: ``greedy``, ``bot``
or ``random``; default ``greedy``). It sits in each seat in turn with ``greedy`` in the others,
on ``bots_strength.py``'s deals (the same seeds, so runs pair deal by deal with that script's
``--log``), and prints its win rate and score difference a game. It is not a fair bot: it is
the ceiling of what reading the others' cards could bring a fair ``pimc`` with the same playouts.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import statistics
import sys
import time
from typing import Any

from updown.bots import make_bot
from updown.bots.pimc import PimcBot
from updown.core.driver import play_game
from updown.core.protocol import State, View, WorldSampler
from updown.core.registry import get_game
from updown.simulate import game_seeds, seeded


class Table:
    """The state being played, as the driver's observer last left it."""

    def __init__(self) -> None:
        self.state: State | None = None

    def observe(self, state: State, seat: int | None, action: int) -> None:
        self.state = state


class RealWorlds(WorldSampler):
    def __init__(self, table: Table):
        self.table = table

    def draw(self, rng: random.Random) -> State:
        assert self.table.state is not None
        return self.table.state.clone()


def clairvoyant(table: Table, worlds: int, policy: str) -> type[PimcBot]:
    """A ``pimc`` class whose worlds are copies of the table's real state."""

    def sampler(self: PimcBot, view: View) -> WorldSampler:
        return RealWorlds(table)

    return type("Clairvoyant", (PimcBot,), {"worlds": worlds, "policy": policy, "sampler": sampler})


def play(game: Any, seed: int, seat: int, worlds: int, policy: str) -> tuple[float, float]:
    """One game with the cheating bot in ``seat``: (won alone, its score less the others' mean)."""
    players = game.bench_players
    table = Table()
    bot = clairvoyant(table, worlds, policy)
    agents = [bot(game, s, random.Random(f"{seed}:{s}:clairvoyant")) if s == seat
              else make_bot("greedy", game, s, random.Random(f"{seed}:{s}:greedy")) for s in range(players)]
    state, _ = play_game(game, players, agents, seeded(seed), options=game.options({}), seed=seed,
                         observer=table.observe)
    r = state.result()
    first = [s for s in range(players) if r.placings[s] == 1]
    teams = game.teams(players)
    mates = next((t for t in teams if seat in t), (seat,)) if teams else (seat,)
    won = 1.0 if seat in first and set(first) <= set(mates) else 0.0
    others = [s for s in range(players) if s not in mates]
    sign = 1.0 if r.scores[min(range(players), key=lambda s: r.placings[s])] == max(r.scores) else -1.0
    return won, sign * (r.scores[seat] - statistics.fmean(r.scores[s] for s in others))


def main(argv: list[str]) -> None:
    args = list(argv)
    if not args or "-h" in args or "--help" in args:
        print(__doc__)
        raise SystemExit(0 if args else 2)
    settings = {"--skip": "0", "--worlds": "100", "--policy": "greedy", "--log": ""}
    for key in settings:
        if key in args:
            i = args.index(key)
            settings[key] = args[i + 1]
            del args[i:i + 2]
    if len(args) > 2 or (len(args) == 2 and not args[1].isdigit()):
        raise SystemExit(f"usage: clairvoyant.py GAME [DEALS] [--skip N] [--worlds W] [--policy P] [--log FILE] "
                         f"(got {' '.join(argv)!r})")
    game = get_game(args[0])
    deals = int(args[1]) if len(args) > 1 else 10
    skip, worlds, policy = int(settings["--skip"]), int(settings["--worlds"]), settings["--policy"]
    log = open(settings["--log"], "a", encoding="utf-8") if settings["--log"] else None
    players = game.bench_players
    wins: list[float] = []
    diffs: list[float] = []
    began = time.perf_counter()
    for n, seed in enumerate(itertools.islice(game_seeds(20261122, skip + deals), skip, None), start=1):
        results = [play(game, seed, seat, worlds, policy) for seat in range(players)]
        wins.append(statistics.fmean(w for w, _ in results))
        diffs.append(statistics.fmean(d for _, d in results))
        if log is not None:
            log.write(json.dumps({"deal": skip + n, "seed": seed, "bot": "clairvoyant",
                                  "win": wins[-1], "diff": diffs[-1]}) + "\n")
            log.flush()
        se = statistics.stdev(wins) / math.sqrt(n) if n > 1 else float("nan")
        de = statistics.stdev(diffs) / math.sqrt(n) if n > 1 else float("nan")
        print(f"  {n} deals ({n * players} games, {time.perf_counter() - began:.0f} s): win {statistics.fmean(wins):.3f} "
              f"± {se:.3f}, score diff {statistics.fmean(diffs):+.3f} ± {de:.3f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
