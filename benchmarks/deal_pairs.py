"""Bots compared one deal at a time, on the same deals: points a deal against the greedy bot.

    python benchmarks/deal_pairs.py GAME DEALS BOT [BOT ...] [--seed S]

A match's result is noisy: a few strong deals decide it. A bot's gain shows with far less noise
deal by deal. For each seed this plays a match of ``greedy`` bots up to the start of a deal
(the first to the eighth, drawn from the seed; the first if the match is shorter), then plays
that one deal once per seat with BOT in the seat and ``greedy`` in the others, with the same
chance outcomes, and scores BOT's margin over the deal (its points gained less the others'
mean, ``deal_rewards``). A table of ``greedy`` scores 0 by symmetry. Every BOT plays the same
deals, so the differences from the first BOT are paired, deal by deal.

BOT is anything ``bots_strength.py`` takes: a bot's name, ``pimc:...``, or a level with settings
changed, e.g. ``hard:worlds=40,ms=0`` against ``hard:worlds=40,ms=0,own=trick``. In a game
without deals (Up or Down?) the deal is the whole game.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bots_strength import _bot  # noqa: E402

from updown.bots import make_bot  # noqa: E402
from updown.bots.search import deal_rewards  # noqa: E402
from updown.core.registry import get_game  # noqa: E402
from updown.simulate import game_seeds, seeded  # noqa: E402


def deal_start(game: Any, players: int, seed: int) -> Any:
    """The state at the start of a deal of a greedy match (the deal is drawn from the seed)."""
    pick = random.Random(seed).randrange(8)
    rng = seeded(seed)
    table = [make_bot("greedy", game, k, random.Random(k)) for k in range(players)]
    state = game.new_state(players, game.options({}))
    first = None
    while not state.is_terminal():
        if state.is_chance():
            progress = state.progress()
            if progress is None:
                raise SystemExit(f"{game.id} has no deals: compare its bots with bots_strength.py")
            if first is None:
                first = state.clone()
            if progress.deals == pick:
                return state.clone()
            state.apply(state.sample_chance(rng))
            continue
        k = state.actors()[0]
        legal = state.legal_actions(k)
        state.apply(legal[0] if len(legal) == 1 else table[k].act(state.view(k), legal), k)
    return first


def play_deal(game: Any, start_state: Any, seat: int, bot: Any, seed: int, times: list[float]) -> float:
    players = start_state.players
    table = [make_bot("greedy", game, k, random.Random(k)) for k in range(players)]
    rng = random.Random(seed + 1)
    state = start_state.clone()
    start = state.progress()
    while not state.is_terminal():
        if state.is_chance():
            if state.progress().deals > start.deals:
                break
            state.apply(state.sample_chance(rng))
            continue
        picks = []
        for k in state.actors():
            legal = state.legal_actions(k)
            if len(legal) == 1:
                picks.append((k, legal[0]))
            elif k == seat:
                t = time.perf_counter()
                picks.append((k, bot.act(state.view(k), legal)))
                times.append(time.perf_counter() - t)
            else:
                picks.append((k, table[k].act(state.view(k), legal)))
        for k, a in picks:
            state.apply(a, k)
    return deal_rewards(start, state.progress())[seat]


def main(argv: list[str]) -> None:
    args = list(argv)
    if not args or "-h" in args or "--help" in args:
        print(__doc__)
        raise SystemExit(0 if args else 2)
    master = 20261125
    if "--seed" in args:
        i = args.index("--seed")
        master = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 3 or not args[1].isdigit():
        raise SystemExit(f"usage: deal_pairs.py GAME DEALS BOT [BOT ...] (got {' '.join(argv)!r})")
    game = get_game(args[0])
    deals, bots = int(args[1]), args[2:]
    players = game.bench_players
    margins: dict[str, list[float]] = {b: [] for b in bots}
    times: dict[str, list[float]] = {b: [] for b in bots}
    began = time.perf_counter()
    for n, seed in enumerate(game_seeds(master, deals), start=1):
        start_state = deal_start(game, players, seed)
        for b in bots:
            got = [play_deal(game, start_state, seat, _bot(b, game, seat, random.Random(f"{seed}:{seat}:{b}")), seed,
                             times[b]) for seat in range(players)]
            margins[b].append(statistics.fmean(got))
        if n % 10 == 0 or n == deals:
            print(f"{n} deals x {players} seats ({time.perf_counter() - began:.0f} s):", flush=True)
            for b in bots:
                xs = margins[b]
                line = f"  {b}: {statistics.fmean(xs):+.3f} ± {_se(xs):.3f} points a deal"
                if b != bots[0]:
                    d = [x - y for x, y in zip(xs, margins[bots[0]])]
                    line += f"; less {bots[0]}: {statistics.fmean(d):+.3f} ± {_se(d):.3f}"
                ts = sorted(times[b])
                if ts:
                    line += f"; decisions median {1000 * ts[len(ts) // 2]:.0f} ms, max {1000 * ts[-1]:.0f} ms"
                print(line, flush=True)


def _se(xs: list[float]) -> float:
    return statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")


if __name__ == "__main__":
    main(sys.argv[1:])
