"""Arena: duplicate-deal tournaments between bots, for every game (``updown arena``).

This package owns measuring bots against each other:

* ``duplicate.py``: line-ups, seatings (rotations), deal seeds, chance drawn per label so each
  deal gives the same cards in every seating, and the pure task that plays one batch of deals;
* ``stats.py``: per-entry means with 95% intervals over deals, win rates, head-to-head, and
  openskill (Plackett-Luce) ratings, partners rated as a team;
* ``runner.py``: running the deals in this process, in local worker processes or as Ray tasks;
  the output folder that a stopped run continues from;
* ``plots.py``: the PNG plots (matplotlib, Agg).

It reaches games only through the registry and the protocol, and bots only by name
(:func:`updown.bots.make_bot`), so new games and bots take part without a change here. openskill,
matplotlib and ray are optional (the ``arena`` and ``ray`` extras) and imported only when used.
See ``docs/arena.md``.
"""

from updown.arena.duplicate import ArenaError, Lineup, make_lineup, play_deal
from updown.arena.runner import deals_for, run_arena

__all__ = ["ArenaError", "Lineup", "deals_for", "make_lineup", "play_deal", "run_arena"]
