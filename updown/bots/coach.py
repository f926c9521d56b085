"""The coach: every legal action of a decision with the bot's estimate, best first.

:func:`analyse` asks the game's ``normal`` level, ``pimc`` (:mod:`updown.bots.pimc`), for its
estimates from the seat's view alone: every legal action is played on in the same drawn worlds
(so each gets a fair, paired estimate, not only the one the bot likes) to the end of the current
deal, and the estimate is in points: what the seat expects to gain by the end of the deal, less
the mean of the other seats' gains (:func:`updown.bots.search.deal_rewards`; in the Sueca
Up&Down, where scores count down, a point lost is a point gained). In Up or Down?, which has no
deals, the playouts stop after 80 decisions and the points are the greedy bot's valuation (score
plus what the columns promise). ``0`` is an even deal. The budget is in playouts, spread evenly
over the actions; no time limit applies, so a seed gives the same hints. A game whose ``normal``
level is not ``pimc`` gets the tree search of :mod:`updown.bots.search` instead, with the root
iterations spread evenly.

A decision is *clearly worse* (:func:`is_mistake`) when its estimate is at least
:data:`THRESHOLD` below the best action's and the gap is more than two standard errors of the
difference, so that noise from a small budget is not called a mistake.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any, NamedTuple

from updown.bots.search import search
from updown.core.protocol import Game, View

THRESHOLD = 0.25
"""How far below the best an action's estimate must be to be marked, in points (a quarter point)."""


class Hint(NamedTuple):
    action: int
    estimate: float
    stderr: float
    simulations: int


def analyse(game: Game[Any], view: View, legal: Sequence[int], *, budget: int = 400, seed: int = 0) -> list[Hint]:
    """Each legal action with its estimate, best first; ``budget`` playouts in all (``simulations``
    of each hint: the playouts behind its estimate)."""
    if not legal:
        raise ValueError("there is no legal action to analyse")
    if budget < 1:
        raise ValueError(f"the budget must be at least 1 simulation, not {budget}")
    seat = view.get("seat")
    if type(seat) is not int:
        raise ValueError("the coach needs a seat's view (a spectator's view has no seat)")
    from updown.bots import make_bot
    from updown.bots.pimc import PimcBot

    bot = make_bot("normal", game, seat, random.Random(seed))
    if isinstance(bot, PimcBot):
        bot.milliseconds = None
        bot.worlds = max(budget // len(legal), 2)
        means, errors = bot.estimates(view, legal)
        hints = [Hint(a, m, e, bot.used) for a, m, e in zip(legal, means, errors)]
    else:
        found = search(game, view, legal, seat, random.Random(seed), simulations=max(budget, len(legal)),
                       uniform_root=True, horizon=True)
        hints = [Hint(e.action, e.value, e.stderr, e.visits) for e in found]
    hints.sort(key=lambda h: (-h.estimate, list(legal).index(h.action)))
    return hints


def best(game: Game[Any], view: View, legal: Sequence[int], *, budget: int = 400, seed: int = 0) -> int:
    """The action the coach rates highest."""
    return analyse(game, view, legal, budget=budget, seed=seed)[0].action


def is_mistake(hints: Sequence[Hint], action: int) -> bool:
    """Whether ``action`` is clearly worse than the best of ``hints`` (see the module docstring)."""
    top = hints[0]
    mine = next(h for h in hints if h.action == action)
    gap = top.estimate - mine.estimate
    noise = math.sqrt(top.stderr ** 2 + mine.stderr ** 2)
    return gap >= THRESHOLD and gap > 2 * noise
