"""Bots by name. ``random`` plays every game; other bots are written for one game each.

A game's bots live in a module of this package that defines ``GAME_ID`` and ``BOTS`` (name to
class), or ``BOTS_BY_GAME`` (game id to such a dict) for a bot that serves some games; they are
found on import, so adding bots for a game touches no shared file.

``exec:COMMAND`` (or ``exec[SECONDS]:COMMAND``) is a bot for every game played by an outside
program over the JSON-lines protocol of ``docs/bot-protocol.md`` (:mod:`updown.bots.exec_bot`).
"""

from __future__ import annotations

import importlib
import pkgutil
import random
from typing import Any

from updown.bots.base import Bot, RandomBot
from updown.bots.exec_bot import ExecBot, parse_spec
from updown.core.errors import UpdownError
from updown.core.protocol import Game

_GENERIC: dict[str, type[Bot]] = {"random": RandomBot}
_FOR_GAME: dict[str, dict[str, type[Bot]]] = {}

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    if hasattr(_module, "GAME_ID") and hasattr(_module, "BOTS"):
        _FOR_GAME.setdefault(_module.GAME_ID, {}).update(_module.BOTS)
    for _game_id, _bots in getattr(_module, "BOTS_BY_GAME", {}).items():  # a bot for some games
        _FOR_GAME.setdefault(_game_id, {}).update(_bots)

# Search bots, pimc and the difficulty levels play every game through the protocol (bots/search.py, bots/pimc.py).
from updown.bots.pimc import GENERIC_BOTS as _PIMC_BOTS  # noqa: E402
from updown.bots.search import GENERIC_BOTS as _SEARCH_BOTS  # noqa: E402

_GENERIC.update(_SEARCH_BOTS)
_GENERIC.update(_PIMC_BOTS)


def bot_names(game_id: str) -> list[str]:
    return sorted({*_GENERIC, *_FOR_GAME.get(game_id, {})})


def is_bot_name(game_id: str, name: str) -> bool:
    """Whether ``name`` names a bot for this game: one of :func:`bot_names`, or ``exec:COMMAND``."""
    try:
        return name in bot_names(game_id) or parse_spec(name) is not None
    except UpdownError:
        return False


def make_bot(name: str, game: Game[Any], seat: int, rng: random.Random) -> Bot:
    """The bot ``name`` for ``seat``; ``exec:COMMAND`` starts that program (see docs/bot-protocol.md)."""
    spec = parse_spec(name)
    if spec is not None:
        command, limit = spec
        return ExecBot(game, seat, rng, command, time_limit=limit)
    cls = _FOR_GAME.get(game.id, {}).get(name) or _GENERIC.get(name)
    if cls is None:
        raise UpdownError(f"no bot {name!r} for {game.id} (bots: {', '.join(bot_names(game.id))}, exec:COMMAND)")
    return cls(game, seat, rng)


__all__ = ["Bot", "bot_names", "is_bot_name", "make_bot"]
