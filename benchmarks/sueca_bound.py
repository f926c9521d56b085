"""How far can any bot get against ``greedy`` in the Sueca Up&Down? Clairvoyant bounds.

    python benchmarks/sueca_bound.py [DEALS] [--mode flat|deep|tricks] [--worlds W] [--skip N]

The issue's aim for the Sueca ``hard`` level is 60% of matches against ``greedy`` in every other
seat. This benchmark plays bots that *cheat* in that seat, to see what is possible at all:

* Chance is a fixed function of the match seed and how many chance steps came before, so the
  cheating bot knows every card: the others' hands and the order of the stock. ``greedy`` is
  deterministic, so the rest of a deal is fully known once the bot's own choices are fixed.
* ``flat``: each legal action is played on to the end of the deal by ``greedy`` in every seat
  (the bot's own later choices too), and the best points margin is played. This is ``pimc`` with
  one world, the real one.
* ``tricks``: the same before the tricks, but the bot's own card play (in the playouts and at
  the table) is the best sequence of its cards for the deal's margin, found by trying them all.
* ``deep``: every own choice of the deal (trump, play or sit out, the exchange, the tricks) is
  the best for the deal's margin over all sequences of the bot's choices (discards tried as sets).

With ``--worlds W`` the bot sees the hands but not the stock: every look ahead draws the stock
anew, W times per decision (once in the tricks, where no chance is left), the same draws for
every action, and the action with the best mean is played.

The bot maximises each deal's points margin, as the levels do, not the match; so none of these
is the best possible bot, but each knows far more than a fair bot may. Matches are
``bots_strength.py``'s deals (the same seeds), with the bot in each seat in turn; the all-greedy
table wins 1/4 of them (before ties), by symmetry.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
import sys
import time
from typing import Any

from updown.bots import make_bot
from updown.bots.search import deal_rewards
from updown.core.registry import get_game
from updown.games.updown_sueca import DISCARD, DONE, NUM_CARDS
from updown.simulate import game_seeds

GAME = get_game("updown-sueca")


class Clairvoyant:
    """Chance by (seed, step): the same outcome in the real match and in every look ahead."""

    def __init__(self, seed: int):
        self.seed = seed

    def outcome(self, state: Any, step: int) -> int:
        return state.sample_chance(random.Random(self.seed * 1_000_003 + step))


def deal_end(state: Any, start_deals: int) -> bool:
    if state.is_terminal():
        return True
    return state.is_chance() and state.progress().deals > start_deals


def advance(state: Any, step: int, chance: Clairvoyant, greedy: list[Any], seat: int,
            start_deals: int) -> tuple[Any, int]:
    """Plays chance and the other seats until the bot decides with a choice, or the deal ends.
    Returns the state and the count of chance steps."""
    while not deal_end(state, start_deals):
        if state.is_chance():
            state.apply(chance.outcome(state, step))
            step += 1
            continue
        k = state.actors()[0]
        legal = state.legal_actions(k)
        if len(legal) == 1:
            state.apply(legal[0], k)
        elif k != seat:
            state.apply(greedy[k].act(state.view(k), legal), k)
        else:
            return state, step
    return state, step


class Bound:
    def __init__(self, mode: str, seat: int, chance: Clairvoyant, worlds: int = 0, rng: random.Random | None = None):
        self.mode, self.seat, self.chance = mode, seat, chance
        self.worlds, self.rng = worlds, rng or random.Random(0)
        self.greedy = [make_bot("greedy", GAME, k, random.Random(k)) for k in range(4)]
        self.nodes = 0

    def value(self, state: Any, step: int, start: Any, deep: bool, last_discard: int) -> float:
        """The deal's margin for the bot from ``state`` (the bot to decide, or past the deal's end),
        the bot's own later choices the best ones if ``deep`` (or in the tricks, mode ``tricks``)."""
        self.nodes += 1
        while True:
            state, step = advance(state, step, self.chance, self.greedy, self.seat, start.deals)
            if deal_end(state, start.deals):
                return deal_rewards(start, state.progress())[self.seat]
            phase = state.view(self.seat)["phase"]
            if deep or (self.mode == "tricks" and phase == "trick"):
                return max(self.child(state, step, start, a, deep, last_discard)
                           for a in self.moves(state, last_discard))
            legal = state.legal_actions(self.seat)
            state.apply(self.greedy[self.seat].act(state.view(self.seat), legal), self.seat)

    def moves(self, state: Any, last_discard: int) -> list[int]:
        legal = state.legal_actions(self.seat)
        return [a for a in legal if not (DISCARD <= a < DISCARD + NUM_CARDS) or a > last_discard]

    def child(self, state: Any, step: int, start: Any, action: int, deep: bool, last_discard: int) -> float:
        w = state.clone()
        w.apply(action, self.seat)
        if DISCARD <= action < DISCARD + NUM_CARDS:
            last_discard = action
        elif action == DONE:
            last_discard = -1
        return self.value(w, step, start, deep, last_discard)

    def act(self, state: Any, step: int, last_discard: int) -> int:
        legal = self.moves(state, last_discard)
        start = state.progress()
        deep = self.mode == "deep"
        if not self.worlds:
            values = [self.child(state, step, start, a, deep, last_discard) for a in legal]
            return legal[max(range(len(legal)), key=values.__getitem__)]
        # Hands seen, the stock not: each world draws the rest anew (the same draws for every action).
        real = self.chance
        totals = [0.0] * len(legal)
        worlds = 1 if state.view(self.seat)["phase"] == "trick" else self.worlds
        for _ in range(worlds):
            self.chance = Clairvoyant(self.rng.getrandbits(62))
            for j, a in enumerate(legal):
                totals[j] += self.child(state, step, start, a, deep, last_discard)
        self.chance = real
        return legal[max(range(len(legal)), key=totals.__getitem__)]


def play_match(seed: int, seat: int, mode: str, worlds: int = 0) -> tuple[Any, int]:
    chance = Clairvoyant(seed)
    bound = Bound(mode, seat, chance, worlds, random.Random(f"{seed}:{seat}"))
    greedy = bound.greedy
    state = GAME.new_state(4, GAME.Options())
    step = 0
    last_discard = -1
    while not state.is_terminal():
        if state.is_chance():
            state.apply(chance.outcome(state, step))
            step += 1
            continue
        k = state.actors()[0]
        legal = state.legal_actions(k)
        if len(legal) == 1:
            a = legal[0]
        elif k == seat and mode != "greedy":
            if state.view(seat)["phase"] != "exchange":
                last_discard = -1
            a = bound.act(state, step, last_discard)
        else:
            a = greedy[k].act(state.view(k), legal)
        if k == seat:
            last_discard = a if DISCARD <= a < DISCARD + NUM_CARDS else (-1 if a == DONE else last_discard)
        state.apply(a, k)
    return state.result(), bound.nodes


def mean_se(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), (statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan"))


def main(argv: list[str]) -> None:
    args = list(argv)
    if "-h" in args or "--help" in args:
        print(__doc__)
        return
    mode, skip = "flat", 0
    if "--mode" in args:
        i = args.index("--mode")
        mode = args[i + 1]
        del args[i:i + 2]
        if mode not in ("flat", "tricks", "deep", "greedy"):
            raise SystemExit(f"--mode must be flat, tricks, deep or greedy, not {mode!r}")
    if "--skip" in args:
        i = args.index("--skip")
        skip = int(args[i + 1])
        del args[i:i + 2]
    worlds = 0
    if "--worlds" in args:  # hands seen, the stock not: this many draws of it per decision
        i = args.index("--worlds")
        worlds = int(args[i + 1])
        del args[i:i + 2]
    deals = int(args[0]) if args else 20
    wins: list[float] = []
    diffs: list[float] = []
    began = time.perf_counter()
    nodes = 0
    for n, seed in enumerate(itertools.islice(game_seeds(20261122, skip + deals), skip, None), start=1):
        w = d = 0.0
        for seat in range(4):
            r, k = play_match(seed, seat, mode, worlds)
            nodes += k
            first = [s for s in range(4) if r.placings[s] == 1]
            w += 1.0 if first == [seat] else 0.0
            d += -(r.scores[seat] - statistics.fmean(r.scores[s] for s in range(4) if s != seat))
        wins.append(w / 4)
        diffs.append(d / 4)
        if n % 5 == 0 or n == deals:
            wm, ws = mean_se(wins)
            dm, ds = mean_se(diffs)
            print(f"  {mode}{f' worlds={worlds}' if worlds else ''}: {n} deals ({4 * n} matches, {time.perf_counter() - began:.0f} s, {nodes} nodes): "
                  f"win {wm:.3f} ± {ws:.3f}, score diff {dm:+.2f} ± {ds:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
