"""Bots by name. ``random`` plays every game; other bots are written for one game each."""

from __future__ import annotations

import random
from typing import Any

from updown.bots.base import Bot, RandomBot
from updown.bots.updown_greedy import UpDownGreedy
from updown.core.errors import UpdownError
from updown.core.protocol import Game

_GENERIC: dict[str, type[Bot]] = {"random": RandomBot}
_FOR_GAME: dict[str, dict[str, type[Bot]]] = {"updown": {"greedy": UpDownGreedy}}


def bot_names(game_id: str) -> list[str]:
    return sorted({*_GENERIC, *_FOR_GAME.get(game_id, {})})


def make_bot(name: str, game: Game[Any], seat: int, rng: random.Random) -> Bot:
    cls = _FOR_GAME.get(game.id, {}).get(name) or _GENERIC.get(name)
    if cls is None:
        raise UpdownError(f"no bot {name!r} for {game.id} (bots: {', '.join(bot_names(game.id))})")
    return cls(game, seat, rng)


__all__ = ["Bot", "bot_names", "make_bot"]
