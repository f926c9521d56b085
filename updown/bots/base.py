"""The bot interface: a bot is built for one seat of one game and sees only that seat's view."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from updown.core.protocol import Game, View


class Bot(ABC):
    name: ClassVar[str]
    description: ClassVar[str]

    def __init__(self, game: Game[Any], seat: int, rng: random.Random):
        self.game = game
        self.seat = seat
        self.rng = rng

    @abstractmethod
    def act(self, view: View, legal: Sequence[int]) -> int:
        """Pick one of ``legal`` knowing only ``view`` (this seat's view)."""


class RandomBot(Bot):
    name = "random"
    description = "picks uniformly among the legal actions"

    def act(self, view: View, legal: Sequence[int]) -> int:
        return self.rng.choice(legal)
