"""Games by id. The CLI, bots, records and benchmarks find games here and nowhere else."""

from __future__ import annotations

from typing import Any

from updown.core.errors import UpdownError
from updown.core.protocol import Game

_GAMES: dict[str, Game[Any]] = {}


def register(game: Game[Any]) -> Game[Any]:
    if game.id in _GAMES:
        raise ValueError(f"game id {game.id!r} registered twice")
    _GAMES[game.id] = game
    return game


def get_game(game_id: str) -> Game[Any]:
    _load()
    try:
        return _GAMES[game_id]
    except KeyError:
        raise UpdownError(f"no game {game_id!r} (games: {', '.join(sorted(_GAMES))})") from None


def all_games() -> list[Game[Any]]:
    _load()
    return [_GAMES[k] for k in sorted(_GAMES)]


def _load() -> None:
    import updown.games  # noqa: F401  (registers the games on import)
