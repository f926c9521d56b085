"""Bots by name. ``random`` plays every game; other bots are written for one game each.

A game's bots live in a module of this package that defines ``GAME_ID`` and ``BOTS`` (name to
class); they are found on import, so adding bots for a game touches no shared file.
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from typing import Any

from updown.bots.base import Bot, RandomBot
from updown.core.errors import UpdownError
from updown.core.protocol import Game

_GENERIC: dict[str, type[Bot]] = {"random": RandomBot}
_FOR_GAME: dict[str, dict[str, type[Bot]]] = {}

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    if hasattr(_module, "GAME_ID") and hasattr(_module, "BOTS"):
        _FOR_GAME.setdefault(_module.GAME_ID, {}).update(_module.BOTS)


def bot_names(game_id: str) -> list[str]:
    return sorted({*_GENERIC, *_FOR_GAME.get(game_id, {})})


def make_bot(name: str, game: Game[Any], seat: int, rng: random.Random) -> Bot:
    cls = _FOR_GAME.get(game.id, {}).get(name) or _GENERIC.get(name)
    if cls is None:
        raise UpdownError(f"no bot {name!r} for {game.id} (bots: {', '.join(bot_names(game.id))})")
    return cls(game, seat, rng)


__all__ = ["Bot", "bot_names", "make_bot"]
