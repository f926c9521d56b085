"""Best-of-N random-playout rate for UP&DOWN (4 players, one round) through the public protocol.

Best of several short runs, because the machine is shared: the best run is the least disturbed.
Usage: python benchmarks/updown_rounds.py [runs] [seconds]
"""

import sys

from updown.bench import random_playouts
from updown.core import get_game

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
game = get_game("updown")
options = game.options({"rounds": 1})
rates = [random_playouts(game, 4, options, seconds, seed=i).games_per_second for i in range(runs)]
print(f"updown 4-player rounds/s: best {max(rates):,.0f}, median {sorted(rates)[len(rates) // 2]:,.0f} "
      f"over {runs} runs of {seconds:g} s")
