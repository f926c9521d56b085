"""``pimc``: flat Monte Carlo over worlds drawn from the seat's view, with batched playouts.

Perfect-information Monte Carlo, the simplest determinized search: the bot reads its view once
(``game.world_sampler(view)``), draws ``worlds`` full states the seat cannot tell from the real
one, and continues every world once per legal action in one batch of a batched engine
(:func:`updown.batched.playout.deal_values`): the action is played, then the engine's ``greedy``
policy (a simple rule per seat, from that seat's own hand) plays every seat to the end of the
deal. It plays the action with the best mean margin (its points gained over the deal less the
other seats' mean). There is no tree: what the playouts do after the action stands for everyone's
later play, so this bot is as good as the policy is a model of the table.

It exists for the games with a batched engine (:data:`updown.batched.playout.ENGINES`: Euchre and
UP&DOWN); ``updown games`` lists it there, and it is UP&DOWN's ``normal`` level. A fixed seed
gives the same decisions.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from updown.bots.base import Bot
from updown.core.protocol import Game, View

import numpy as np

from updown.batched.playout import ENGINES, deal_values


class PimcBot(Bot):
    """Flat Monte Carlo: every legal action tried in the same drawn worlds, batched greedy playouts."""

    name = "pimc"
    description = ("flat Monte Carlo from its own view: 200 drawn worlds per decision, each action played "
                   "on to the end of the deal by a simple greedy rule, all in one numpy batch")
    worlds: int = 200
    policy: str = "greedy"

    def __init__(self, game: Game[Any], seat: int, rng: random.Random):
        super().__init__(game, seat, rng)
        self._np_rng = np.random.default_rng(rng.getrandbits(64))

    def estimates(self, view: View, legal: Sequence[int]) -> tuple[list[float], list[float]]:
        """Each legal action's mean margin over the deal and its standard error."""
        sampler = self.game.world_sampler(view)
        worlds = [sampler.draw(self.rng) for _ in range(self.worlds)]
        means, errors = deal_values(worlds, self.seat, legal, self.policy, rng=self._np_rng)
        return [float(m) for m in means], [float(e) for e in errors]

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        means, _ = self.estimates(view, legal)
        return legal[max(range(len(legal)), key=means.__getitem__)]


BOTS_BY_GAME: dict[str, dict[str, type[Bot]]] = {game_id: {"pimc": PimcBot} for game_id in ENGINES}
"""The bot for each game with a batched engine."""
