"""The shared protocol, value types, records and drivers that every game and tool builds on."""

from updown.core.errors import IllegalAction, NotationError, OptionsError, RecordError, UpdownError
from updown.core.options import GameOptions
from updown.core.protocol import Event, Game, Result, State, View
from updown.core.registry import all_games, get_game

__all__ = [
    "Event", "Game", "GameOptions", "IllegalAction", "NotationError", "OptionsError",
    "RecordError", "Result", "State", "UpdownError", "View", "all_games", "get_game",
]
