"""Single Euchre deals per second: our engine through the public protocol, and OpenSpiel's through
pyspiel, the same uniformly random loop, in the same process.

    .venv/bin/python benchmarks/euchre_vs_openspiel.py [SECONDS]

Both loops resolve every chance node by a uniform choice among its outcomes and every decision by
a uniform choice among the legal actions; OpenSpiel plays with ``stick_the_dealer`` on and no lone
defender, as our default options do.
"""

from __future__ import annotations

import sys

from updown.bench import pyspiel_playouts, random_playouts
from updown.core.registry import get_game


def main(seconds: float = 3.0) -> None:
    game = get_game("euchre")
    ours = random_playouts(game, 4, game.options({"deals": 1}), seconds)
    print(f"updown euchre : {ours.games_per_second:9.0f} deals/s ({ours.steps_per_second:,.0f} steps/s)")
    theirs = pyspiel_playouts(*game.openspiel_peer, seconds)  # type: ignore[misc]
    if theirs is None:
        print("open_spiel is not installed: pip install open_spiel==2.0.2 for the comparison")
        return
    print(f"pyspiel euchre: {theirs:9.0f} deals/s")
    print(f"ratio         : {ours.games_per_second / theirs:9.2f} (ours / OpenSpiel's)")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 3.0)
