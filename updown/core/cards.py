"""French-suited playing cards with a notation people write: ``QH``, ``10S``, ``7♦``.

Games number their own decks (a card id is an index into the game's deck tuple); this module only
gives the value types and their notation, shared by every game that uses these cards.

>>> Card.parse("10s")
Card(rank=10, suit=<Suit.SPADES: 3>)
>>> str(Card.parse("Q♥"))
'QH'
>>> " ".join(str(c) for c in parse_cards("QH 10S 2c"))
'QH 10S 2C'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from updown.core.errors import NotationError


class Suit(IntEnum):
    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @property
    def title(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Parse a suit from its letter, symbol or name (``S``, ``♠``, ``spades``)."""
        key = text.strip().lower()
        for suit in cls:
            if key in (suit.letter.lower(), suit.symbol, suit.title, suit.title.rstrip("s")):
                return suit
        # The outline symbols people sometimes type.
        outline = {"♧": cls.CLUBS, "♢": cls.DIAMONDS, "♡": cls.HEARTS, "♤": cls.SPADES}
        if key in outline:
            return outline[key]
        raise NotationError(f"{text!r} is not a suit (use C, D, H, S or ♣ ♦ ♥ ♠)")


RANK_NAMES: dict[int, str] = {**{v: str(v) for v in range(2, 11)}, 11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_BY_NAME: dict[str, int] = {name: value for value, name in RANK_NAMES.items()}
_RANK_BY_NAME["T"] = 10


@dataclass(frozen=True, slots=True)
class Card:
    """A rank (2..14, with J=11, Q=12, K=13, A=14) and a suit."""

    rank: int
    suit: Suit

    def __str__(self) -> str:
        return RANK_NAMES[self.rank] + self.suit.letter

    @property
    def pretty(self) -> str:
        """The card with its suit symbol: ``Q♥``."""
        return RANK_NAMES[self.rank] + self.suit.symbol

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``QH``, ``10S``, ``q♥`` or ``TS``."""
        known = _CARD_BY_TEXT.get(text)  # the canonical spelling, as views and records write cards
        if known is not None:
            return known
        token = text.strip()
        if len(token) < 2:
            raise NotationError(f"{text!r} is not a card (write rank then suit, like QH or 10S)")
        rank_text, suit_text = token[:-1].upper(), token[-1]
        if rank_text not in _RANK_BY_NAME:
            raise NotationError(f"{text!r} is not a card: {rank_text!r} is not a rank")
        try:
            suit = Suit.parse(suit_text)
        except NotationError:
            raise NotationError(f"{text!r} is not a card: {suit_text!r} is not a suit") from None
        return cls(_RANK_BY_NAME[rank_text], suit)


_CARD_BY_TEXT: dict[str, Card] = {str(c): c for c in (Card(r, s) for r in RANK_NAMES for s in Suit)}
"""Every card by its canonical text (``str(card)``): bots read views many times a decision."""


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas."""
    return [Card.parse(token) for token in text.replace(",", " ").split()]


def pretty_card(text: str) -> str:
    """A card written in notation, shown with its suit symbol: ``pretty_card("QH") == "Q♥"``."""
    return Card.parse(text).pretty


def suit_symbol(text: str) -> str:
    """A suit written as a letter or name, shown as its symbol: ``suit_symbol("S") == "♠"``."""
    return Suit.parse(text).symbol
