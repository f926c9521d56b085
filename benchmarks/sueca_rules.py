"""The Sueca Up&Down's greedy rule against its earlier versions, on duplicate deals.

    python benchmarks/sueca_rules.py [DEALS] [--against RULE] [RULE ...]

Each deal (the seeds of ``bots_strength.py``) is played once per seat, with RULE in that seat and
three copies of the ``--against`` rule (default ``earlier``) in the others. It prints RULE's win
rate (1/4 for a rule as strong as its opponents) and its score difference (points of the others'
mean less its own: positive is good), each with its standard error over the deals. Greedy
matches are fast (about 40 a second here), so thousands of matches take a minute or two.

Rules (the present ``greedy`` changed only in these two points, session 8):

* ``greedy``: the present rule (follows with its cheapest winning card, swaps every side card
  but aces).
* ``earlier``: follows with its strongest winning card unless it is the last to play, and swaps
  only the side cards below the seven.
* ``cheapest``: the earlier rule, following with its cheapest winning card.
* ``sevens``: the earlier rule, swapping the side sevens too.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from bots_strength import mean_se
from updown.bots.updown_sueca_greedy import UpDownSuecaGreedy
from updown.core.driver import play_game
from updown.core.protocol import View
from updown.core.registry import get_game
from updown.games.updown_sueca import card_id, suit_of
from updown.simulate import game_seeds, seeded

_SEVEN = 8  # strength of the seven: the earlier rule swapped only side cards below it


class _Variant(UpDownSuecaGreedy):
    strongest = False  # follow with the strongest winner unless last to play

    def _play(self, view: View, hand: list[int], legal: Sequence[int], trump: int) -> int:
        table = [(s, card_id(c)) for s, c in view["table"]]
        if not self.strongest or not table:
            return super()._play(view, hand, legal, trump)
        led = suit_of(table[0][1])

        def key(card: int) -> int:
            s = suit_of(card)
            return 100 + card if s == trump else (card if s == led else -1)

        best = max(key(c) for _, c in table)
        playing = [s for s, d in enumerate(view["decisions"]) if d == "play"]
        winners = [c for c in legal if key(c) > best]
        if winners and len(table) < len(playing) - 1:
            return max(winners, key=key)
        return super()._play(view, hand, legal, trump)


RULES: dict[str, type[UpDownSuecaGreedy]] = {
    "greedy": UpDownSuecaGreedy,
    "earlier": type("Earlier", (_Variant,), {"strongest": True, "swap_below": _SEVEN}),
    "cheapest": type("Cheapest", (_Variant,), {"swap_below": _SEVEN}),
    "sevens": type("Sevens", (_Variant,), {"strongest": True}),
}


def run(rule: str, against: str, deals: int) -> tuple[tuple[float, float], tuple[float, float]]:
    game = get_game("updown-sueca")
    wins: list[float] = []
    diffs: list[float] = []
    for seed in game_seeds(20261122, deals):
        w = d = 0.0
        for seat in range(4):
            agents: list[Any] = [RULES[rule if s == seat else against](game, s, random.Random(f"{seed}:{s}"))
                                 for s in range(4)]
            state, _ = play_game(game, 4, agents, seeded(seed), seed=seed)
            r = state.result()
            w += 1.0 if r.placings[seat] == 1 else 0.0
            d += statistics.fmean(r.scores[s] for s in range(4) if s != seat) - r.scores[seat]
        wins.append(w / 4)
        diffs.append(d / 4)
    return mean_se(wins), mean_se(diffs)


def main(argv: list[str]) -> None:
    args = list(argv)
    against = "earlier"
    if "--against" in args:
        i = args.index("--against")
        against = args[i + 1]
        del args[i:i + 2]
    deals = int(args.pop(0)) if args and args[0].isdigit() else 200
    rules = args or ["cheapest", "sevens", "greedy"]
    for name in [against, *rules]:
        if name not in RULES:
            raise SystemExit(f"unknown rule {name!r}: one of {', '.join(RULES)}")
    print(f"the Sueca Up&Down: each rule in one seat against three of {against!r}, {deals} deals x 4 seats")
    for rule in rules:
        t = time.perf_counter()
        (wm, ws), (dm, ds) = run(rule, against, deals)
        print(f"  {rule:10} win {wm:.3f} ± {ws:.3f}   score diff {dm:+.2f} ± {ds:.2f}   "
              f"({deals * 4} matches, {time.perf_counter() - t:.0f} s)", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
