"""Event lines in the reader's language: ``describe(game, event, names, _)``.

Each game may have a module ``events_<game>.py`` beside this one with ``GAME_ID`` and
``describe(event, names, _)``; it builds the same line as the game's own English ``describe``
from translatable pieces. A game without one falls back to ``game.describe`` (English).
Names are used as given: callers pass names that are safe to show (see ``updown.cli.screens``).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from updown.core.cards import RANK_NAMES, Card
from updown.core.protocol import Event, Game
from updown.i18n import Translator

Describe = Callable[[Event, Sequence[str], Translator], str]

RANK_LETTERS: dict[str, dict[int, str]] = {
    "en": {11: "J", 12: "Q", 13: "K", 14: "A"},
    "de": {11: "B", 12: "D", 13: "K", 14: "A"},  # Bube, Dame, König, Ass
    "pt": {11: "V", 12: "D", 13: "R", 14: "A"},  # valete, dama, rei, ás
}
"""The letters of jack, queen, king and ace as players of each language read them. Suit letters
stay C D H S in every language (German Kreuz and Karo share a K, Portuguese copas would be
English clubs): a suit is shown by its symbol, and the help and the rules say which letter is which."""


def rank_text(rank: int, _: Translator) -> str:
    """A rank as the reader writes it: 2..10, then J Q K A in the reader's letters."""
    return RANK_LETTERS.get(_.lang, RANK_LETTERS["en"]).get(rank) or RANK_NAMES[rank]


def card_letters(card: str, _: Translator) -> str:
    """A card in notation (``QH``) as the reader types it: ``DH`` in German, ``DH`` in Portuguese."""
    c = Card.parse(card)
    return rank_text(c.rank, _) + c.suit.letter


def pretty(card: str, _: Translator) -> str:
    """A card in notation (``QH``) as the reader reads it, with its suit symbol: ``Q♥``, ``D♥``."""
    c = Card.parse(card)
    return rank_text(c.rank, _) + c.suit.symbol


def suit_name(letter: str, _: Translator) -> str:
    """A suit letter as a word in the reader's language: ``H`` -> hearts, Herz, copas."""
    names = {"C": _("clubs"), "D": _("diamonds"), "H": _("hearts"), "S": _("spades")}
    return names[letter.upper()]


def cards_text(cards: Sequence[str], _: Translator) -> str:
    return " ".join(pretty(c, _) for c in cards)


def listing(items: Sequence[str], _: Translator) -> str:
    """``a``, ``a and b``, ``a, b and c`` in the reader's language."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return _("{first} and {last}").format(first=", ".join(items[:-1]), last=items[-1])


@lru_cache(maxsize=None)
def _describers() -> dict[str, Describe]:
    import updown.i18n as package

    found: dict[str, Describe] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("events_"):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            found[module.GAME_ID] = module.describe
    return found


def describe(game: Game[Any], event: Event, names: Sequence[str], _: Translator) -> str:
    """One line that explains ``event`` to people, in ``_``'s language."""
    describer = _describers().get(game.id)
    if describer is None:
        return game.describe(event, names)
    return describer(event, names, _)
