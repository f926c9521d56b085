"""What the terminal shows a seat, drawn from that seat's view and nothing else.

Each game may have a module ``screen_<game>.py`` beside this one with ``GAME_ID`` and
``screen(view, names, _)`` (a rich renderable that fits 80 columns), and optionally
``why(view, move, _)`` (why a well-formed move is not legal now, from the view alone),
``prompt(view, _)``, ``hint(view, _)``, ``leave_warning(_)``, ``explain(view, text, _)`` (for
a line that is no move at all, e.g. a card number outside the game's range) and ``quit_note(_)``
(what stopping the terminal means in this game, said after the game is saved). A game without a screen is shown
as its view's fields. Event lines come from :mod:`updown.i18n.events`, in the player's language.

Names and any other text that comes from users or files go into rich ``Text`` objects (never
into markup) after :func:`safe_name`, so ``[/]`` or an escape sequence is shown as text.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from updown.core.cards import Card, Suit
from updown.core.protocol import Event, Game, View
from updown.i18n import Translator
from updown.i18n.events import describe, pretty

Screen = Callable[[View, Sequence[str], Translator], RenderableType]

NAME_LIMIT = 24


def safe_name(name: str, limit: int = NAME_LIMIT) -> str:
    """A name that is safe to print: control characters (escape sequences) shown as ``?``, cut short."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in name).strip() or "?"
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def short_name(name: str, limit: int = 16) -> str:
    """A name cut to ``limit`` characters (with …), for a screen's narrow column."""
    return name if len(name) <= limit else name[: limit - 1] + "…"


def card_text(card: str, _: Translator, *, bold: bool = False) -> Text:
    """A card with its suit symbol in the reader's card letters (``D♥`` in German), red or default by suit."""
    c = Card.parse(card)
    style = "red" if c.suit.is_red else "bright_white"
    return Text(pretty(card, _), style=f"bold {style}" if bold else style)


def suit_text(letter: str) -> Text:
    s = Suit.parse(letter)
    return Text(s.symbol, style="red" if s.is_red else "bright_white")


def player_text(name: str, you: bool, _: Translator | None = None) -> Text:
    """A player's name in a screen's table, marked and bold for the seat being shown."""
    if you:
        return Text(name + " " + (_("(you)") if _ else "(you)"), style="bold")
    return Text(name)


def hand_text(label: str, cards: Sequence[str], _: Translator, *, bold: Callable[[str], bool] = lambda c: False,
              mark: Callable[[str], str] = lambda c: "") -> Text:
    """``label 1 Q♥ 2 10♠ ...``: each card after its position, which the player may type."""
    out = Text(label + " ")
    for i, card in enumerate(cards, start=1):
        out.append(f"{i}", style="dim")
        out.append("·", style="dim")
        out.append_text(card_text(card, _, bold=bold(card)))
        extra = mark(card)
        if extra:
            out.append(extra, style="yellow")
        out.append(" ")
    return out


class OneLineOr:
    """``line`` where it fits the width on one line, else ``lines`` (several shorter ones): a line
    that rich would wrap at any space is split where it reads well instead."""

    def __init__(self, line: Text, *lines: Text):
        self.line = line
        self.lines = lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.line if self.line.cell_len <= options.max_width else Group(*self.lines)


def generic_screen(view: View, names: Sequence[str], _: Translator) -> RenderableType:
    table = Table(box=None, show_header=False)
    for key, value in view.items():
        if key != "log":
            table.add_row(key, Text(str(value)))
    return Panel(table, title=Text(str(view.get("game", "game"))))


@dataclass(frozen=True)
class ScreenHooks:
    """A game's screen and the per-game helpers around it, with defaults."""

    screen: Screen
    why: Callable[[View, str, Translator], str | None]
    prompt: Callable[[View, Translator], str]
    hint: Callable[[View, Translator], str | None]
    leave_warning: Callable[[Translator], str]
    explain: Callable[[View, str, Translator], str | None]
    quit_note: Callable[[Translator], str | None]


def _default_prompt(view: View, _: Translator) -> str:
    return _("Your move")


def _default_leave(_: Translator) -> str:
    return _("A bot will play your seat to the end.")


@lru_cache(maxsize=None)
def _modules() -> dict[str, Any]:
    import updown.cli

    found: dict[str, Any] = {}
    for info in pkgutil.iter_modules(updown.cli.__path__):
        if info.name.startswith("screen_"):
            module = importlib.import_module(f"updown.cli.{info.name}")
            if hasattr(module, "GAME_ID"):
                found[module.GAME_ID] = module
    return found


def hooks_for(game: Game[Any]) -> ScreenHooks:
    module = _modules().get(game.id)
    return ScreenHooks(
        screen=getattr(module, "screen", generic_screen),
        why=getattr(module, "why", lambda view, move, _: None),
        prompt=getattr(module, "prompt", _default_prompt),
        hint=getattr(module, "hint", lambda view, _: None),
        leave_warning=getattr(module, "leave_warning", _default_leave),
        explain=getattr(module, "explain", lambda view, text, _: None),
        quit_note=getattr(module, "quit_note", lambda _: None),
    )


def screen_for(game: Game[Any]) -> Screen:
    """The game's screen: ``updown/cli/screen_<anything>.py`` with ``GAME_ID`` and ``screen``."""
    return hooks_for(game).screen


QUIET_EVENTS = frozenset({"hand"})
"""Events the live terminal leaves out: the screen already shows them."""


def event_text(game: Game[Any], event: Event, names: Sequence[str], _: Translator) -> Text:
    line = describe(game, event, names, _)
    kind = event["type"]
    style = {"trick": "bold", "round": "bold cyan", "end": "bold green", "tiebreak": "yellow",
             "score": "bold cyan"}.get(kind, "dim")
    return Text(line, style=style)
