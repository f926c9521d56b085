"""The coach: every legal action of a decision with the search's estimate, best first.

:func:`analyse` runs the information-set MCTS of :mod:`updown.bots.search` from the seat's view
alone, with the root iterations spread evenly over the legal actions (so each action gets a fair
estimate, not only the one the search likes), and returns ``(action, estimate)`` pairs best first.
The search runs to the end of the current deal (:meth:`State.progress`), and the estimate is in
points: the points the seat expects to gain by the end of the deal, less the mean of the other
seats' gains (:func:`updown.bots.search.deal_rewards`; in the Sueca Up&Down, where scores count
down, a point lost is a point gained; Up or Down? has no deals, so there it is to the end of the
game). ``0`` is an even deal.

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
    """Each legal action with its estimate, best first; ``budget`` simulations in all."""
    if not legal:
        raise ValueError("there is no legal action to analyse")
    if budget < 1:
        raise ValueError(f"the budget must be at least 1 simulation, not {budget}")
    seat = view.get("seat")
    if type(seat) is not int:
        raise ValueError("the coach needs a seat's view (a spectator's view has no seat)")
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
