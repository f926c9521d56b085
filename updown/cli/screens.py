"""What the terminal shows a seat, drawn from that seat's view and nothing else.

Each game may have a screen (a function from a view and seat names to rich renderables) in a
module ``screen_<game>.py`` beside this one; a game without one is shown as its view's fields. Event lines come from the game's own ``describe`` so that the
terminal, records and any other client explain a step the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.console import RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.core.cards import Card, Suit
from updown.core.protocol import Event, Game, View

Screen = Callable[[View, Sequence[str]], RenderableType]


def card_text(card: str, *, bold: bool = False) -> Text:
    """A card with its suit symbol, red or default by suit."""
    c = Card.parse(card)
    style = "red" if c.suit.is_red else "bright_white"
    return Text(c.pretty, style=f"bold {style}" if bold else style)


def suit_text(letter: str) -> Text:
    s = Suit.parse(letter)
    return Text(s.symbol, style="red" if s.is_red else "bright_white")


def player_text(name: str, you: bool) -> Text:
    """A player's name in a screen's table, marked and bold for the seat being shown."""
    return Text(name + " (you)", style="bold") if you else Text(name)


def generic_screen(view: View, names: Sequence[str]) -> RenderableType:
    table = Table(box=None, show_header=False)
    for key, value in view.items():
        if key != "log":
            table.add_row(key, str(value))
    return Panel(table, title=str(view.get("game", "game")))


def screen_for(game: Game[Any]) -> Screen:
    """The game's screen: ``updown/cli/screen_<anything>.py`` with ``GAME_ID`` and ``screen``."""
    import importlib
    import pkgutil

    import updown.cli

    for info in pkgutil.iter_modules(updown.cli.__path__):
        if info.name.startswith("screen_"):
            module = importlib.import_module(f"updown.cli.{info.name}")
            if getattr(module, "GAME_ID", None) == game.id:
                return module.screen  # type: ignore[no-any-return]
    return generic_screen


QUIET_EVENTS = frozenset({"hand"})
"""Events the live terminal leaves out: the screen already shows them."""


def event_text(game: Game[Any], event: Event, names: Sequence[str]) -> Text:
    line = game.describe(event, names)
    kind = event["type"]
    style = {"trick": "bold", "round": "bold cyan", "end": "bold green", "tiebreak": "yellow"}.get(kind, "dim")
    return Text(line, style=style)
