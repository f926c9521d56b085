"""Up or Down? (Wolfgang Kramer & Michael Kiesling), rule 003 in ``shared/rules``.

Rules in brief. Cards are numbered 1..N, N by player count and game length (short: 42 / 60 / 78 /
96 for 2 / 3 / 4 / 5-6 players; full: 54 / 78 / 102 / 126). Every player holds three cards. Six
cards lie face up in a ring (the display), sorted clockwise by value; the rest form two draw piles,
one face down, one face up (only its top card shows). A turn: play a hand card into the ring where
it belongs (a card lower than the lowest or higher than the highest goes between the highest and
the lowest), take one of its two neighbours, and put that card into your play area: on one of your
columns (at most three), as a new column, or, giving up a whole column to your discard pile, as the
new column in its place. A column's second card fixes it as rising or falling; every later card
must continue that way. Then draw the top card of either pile (the other if one is empty; nothing
when both are). When both piles are empty, play goes on until every hand is played out; six cards
are left in the ring. Score: for each column, the count of its most frequent colour times its
length, plus one point per discarded card. Ties share the victory.

Readings the project takes (see ``docs/notes-up-or-down.md`` and ``shared/rules/README.md``):

* Card ``n`` has colour ``(n - 1) mod 6``: ruby, gold, pink, blue, purple, green.
* The remaining cards split into two piles; with an odd number the face-down pile gets the extra one.
* Giving up a column is allowed at any time (not only when the card fits nowhere); a new column
  without giving one up needs a free slot (fewer than three columns). A player whose taken card
  fits no column and who has three columns must give one up: only give-ups are legal then.
* A column with one card takes any card; its second card fixes its direction.
* Seat 0 starts; play passes to the next seat. Once the piles are empty, a seat with an empty hand
  is passed over.
* The three column slots keep their numbers: ``give up 2`` starts the new column in slot 2, and
  ``new`` takes the lowest free slot.
* Chance: the deal (``deal K``, card by card), the six display cards (``display``), the face-up top
  (``reveal``, at setup and after every face-up draw while cards remain beneath it) and every
  face-down draw (``draw``). The unseen pile cards are one pool: a face-down draw and a reveal are
  each uniform over it, which is the same distribution as a pile shuffled at setup.

Research decks (option ``deck``, never offered for play; ``docs/research-variants.md``): the same
rules on fewer cards with a smaller hand, display and play area, small enough for exact solvers.
``deck="CARDS:COLOURS:HAND:DISPLAY:COLUMNS"`` plays with the ``CARDS`` lowest-numbered cards of the
first ``COLOURS`` colours (ruby, gold, pink, blue, purple, green, in that order: ``8:2:...`` holds
1, 2, 7, 8, 13, 14, 19, 20, all ruby or gold), deals ``HAND`` cards (1 to 3) to each player, lays out a
display of ``DISPLAY`` cards (2 to 6: a played card needs two neighbours) and lets a player hold at
most ``COLUMNS`` columns (1 to 3). Cards keep their numbers and colours, so notation, events, views
and action ids are the full game's. Where the small numbers change a rule: with one or no card
left over after the deal and the display there is no face-up pile to show (the face-down pile gets
the extra card, as in the full game); a player with ``COLUMNS`` columns must put the card on one or
give one up (the rulebook's "three columns"); the game ends as the rulebook's does, with
``DISPLAY`` cards left in the ring. ``length`` does not apply (the deck names its cards). The
default, ``deck="full"``, is the rulebook's game; ``42:6:3:6:3`` with 2 players (the short range,
``54:6:3:6:3`` the full one) plays the same games.
"""

from __future__ import annotations

import dataclasses
import random
from bisect import bisect_left
from collections.abc import Sequence
from enum import IntEnum
from typing import Any, Final

from updown.core.compiled import mypyc_attr
from updown.core.errors import IllegalAction, NotationError, OptionsError, not_an_action
from updown.core.options import GameOptions
from updown.core.frozen import FrozenDict, FrozenList, freeze
from updown.core.protocol import Event, Game, Progress, Result, State, View, WorldSampler
from updown.core.worlds import free_deal

_COMPILED: Final = not __file__.endswith(".py")
"""Whether mypyc compiled this module (an extension module's file is not a ``.py``): a few hot
loops are written one way for each (the play's search of the hand and the ring)."""

# -- cards ---------------------------------------------------------------------------------------

MAX_CARD: Final = 126
COLOURS: Final[tuple[str, ...]] = ("ruby", "gold", "pink", "blue", "purple", "green")
COLOUR: Final[tuple[int, ...]] = (-1, *((n - 1) % 6 for n in range(1, MAX_CARD + 1)))
"""``COLOUR[n]``: the colour number of card ``n`` (index 0 unused)."""
CARD_RANGE: Final[dict[str, dict[int, int]]] = {
    "short": {2: 42, 3: 60, 4: 78, 5: 96, 6: 96},
    "full": {2: 54, 3: 78, 4: 102, 5: 126, 6: 126},
}
HAND_SIZE: Final = 3
DISPLAY_SIZE: Final = 6
MAX_COLUMNS: Final = 3
FULL_DECK: Final = "full"
"""The ``deck`` option's default: the rulebook's cards (by player count and ``length``), hand,
display and columns."""
DECK_FORM: Final = "CARDS:COLOURS:HAND:DISPLAY:COLUMNS"

# -- action ids: one space for decisions and chance outcomes --------------------------------------

NEW: Final = 0  # start a new column in the lowest free slot
# 1..126: card n (play it from the hand; or a chance outcome: the card dealt, shown or drawn)
TAKE: Final = MAX_CARD  # 127..252: take card n from the display is TAKE + n
COL: Final = TAKE + MAX_CARD  # 253..255: put the taken card on column k is COL + k (k = 1..3)
GIVE_UP: Final = COL + MAX_COLUMNS  # 256..258: give up column k, start it afresh: GIVE_UP + k
DRAW_DOWN: Final = GIVE_UP + MAX_COLUMNS + 1  # 259
DRAW_UP: Final = DRAW_DOWN + 1  # 260
NUM_ACTIONS: Final = DRAW_UP + 1


def colour_name(card: int) -> str:
    return COLOURS[COLOUR[card]]


def column_score(cards: Sequence[int]) -> int:
    """Cards of the column's most frequent colour times the column's length."""
    n = len(cards)
    if n < 3:  # most columns, scored without counting: 2 x 2 if both cards share a colour
        if n == 2 and COLOUR[cards[0]] == COLOUR[cards[1]]:
            return 4
        return n
    counts = [0] * 6
    for c in cards:
        counts[COLOUR[c]] += 1
    return max(counts) * n


def score_of(columns: Sequence[Sequence[int]], discarded: int) -> int:
    """A player's score: every column, plus one point per discarded card."""
    return sum(column_score(c) for c in columns) + discarded


def direction_of(cards: Sequence[int]) -> int:
    """+1 rising, -1 falling, 0 not fixed yet (fewer than two cards)."""
    if len(cards) < 2:
        return 0
    return 1 if cards[1] > cards[0] else -1


def fits(cards: Sequence[int], card: int) -> bool:
    """Whether ``card`` may go on the (non-empty) column ``cards``."""
    if len(cards) < 2:
        return True
    return (card > cards[-1]) == (cards[1] > cards[0])


Deck = tuple[tuple[int, ...], int, int, int]
"""A research deck: its cards (ascending), the hand size, the display size and the most columns."""
_DECKS: Final[dict[str, Deck]] = {}


def _number(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 3


def research_deck(spec: str) -> Deck:
    """The research deck that the option ``deck`` names (``CARDS:COLOURS:HAND:DISPLAY:COLUMNS``, not
    ``full``). Raises OptionsError naming what is wrong."""
    known = _DECKS.get(spec)
    if known is not None:
        return known
    parts = spec.split(":")
    if len(parts) != 5 or not all(_number(p) for p in parts):
        raise OptionsError(f"deck must be full or {DECK_FORM} (a research deck, like 8:2:1:3:2), not {spec!r}")
    count, colours, hand, display, columns = (int(p) for p in parts)
    if not 1 <= colours <= len(COLOURS):
        raise OptionsError(f"a research deck has 1 to 6 colours (the first of {', '.join(COLOURS)}), not {colours}")
    available = [n for n in range(1, MAX_CARD + 1) if COLOUR[n] < colours]
    if not 1 <= count <= len(available):
        raise OptionsError(f"a research deck of {colours} colour{'s' if colours != 1 else ''} has 1 to "
                           f"{len(available)} cards (the lowest of those colours), not {count}")
    if not 1 <= hand <= HAND_SIZE:
        raise OptionsError(f"a research deck deals 1 to {HAND_SIZE} cards to each player, not {hand}")
    if not 2 <= display <= DISPLAY_SIZE:
        raise OptionsError(f"a research deck's display holds 2 to {DISPLAY_SIZE} cards (a played card needs "
                           f"two neighbours), not {display}")
    if not 1 <= columns <= MAX_COLUMNS:
        raise OptionsError(f"a research deck allows 1 to {MAX_COLUMNS} columns a player, not {columns}")
    made = _DECKS[spec] = (tuple(available[:count]), hand, display, columns)
    return made


@mypyc_attr(native_class=False)  # mypyc: a native dataclass cannot subclass the interpreted GameOptions
@dataclasses.dataclass(frozen=True)
class UpOrDownOptions(GameOptions):
    length: str = dataclasses.field(
        default="short", metadata={"help": "short or full: how many cards are used (rulebook table)"}
    )
    deck: str = dataclasses.field(
        default=FULL_DECK,
        metadata={"help": f"research only: full, or {DECK_FORM}, a reduced game (the CARDS lowest cards of "
                          "the first COLOURS colours, HAND cards each, a display of DISPLAY, at most COLUMNS "
                          "columns a player)", "research": True},
    )

    def check(self, players: int) -> None:
        if self.length not in CARD_RANGE:
            raise OptionsError(f"length must be short or full, not {self.length!r}")
        if self.deck == FULL_DECK:
            return
        cards, hand, display, _columns = research_deck(self.deck)
        if self.length != "short":
            raise OptionsError(f"length={self.length} does not apply to a research deck (deck={self.deck} "
                               "names its cards): leave length out")
        if len(cards) < players * hand + display:
            raise OptionsError(f"the deck {self.deck} has {len(cards)} cards: too few for {players} hands of "
                               f"{hand} and a display of {display}")

    def deck_of(self, players: int) -> Deck:
        """The cards, hand, display and most columns these options play with for ``players``."""
        if self.deck == FULL_DECK:
            return tuple(range(1, CARD_RANGE[self.length][players] + 1)), HAND_SIZE, DISPLAY_SIZE, MAX_COLUMNS
        return research_deck(self.deck)


class Phase(IntEnum):
    DEAL = 0
    DISPLAY = 1
    REVEAL = 2
    DRAWN = 3  # a face-down draw: the card is a chance outcome
    PLAY = 4
    TAKE = 5
    PLACE = 6
    DRAW = 7
    OVER = 8


_PHASE_NAMES: Final = tuple(p.name.lower() for p in Phase)
"""A view's ``phase`` by phase number (``Phase(n).name.lower()`` costs half a microsecond a view)."""


# Final ints: mypyc compiles them into the code (a plain module global is a dict lookup per use).
_DEAL: Final = 0
_DISPLAY: Final = 1
_REVEAL: Final = 2
_DRAWN: Final = 3
_PLAY: Final = 4
_TAKE: Final = 5
_PLACE: Final = 6
_DRAW: Final = 7
_OVER: Final = 8
assert [_DEAL, _DISPLAY, _REVEAL, _DRAWN, _PLAY, _TAKE, _PLACE, _DRAW, _OVER] == [int(p) for p in Phase]

# -- events that recur with few parameters ---------------------------------------------------------
# Logged events are never changed (clones and views share them), so those that differ only by a
# seat, a card and a column are built once, read-only as a view would make them, and shared by
# every game: a step that logs one builds nothing. Indexed [seat][card], new events
# [seat][column - 1][card], reveals [card][cards in the face-up pile].
_SEATS: Final = range(6)
_ONLY: Final = tuple((s,) for s in _SEATS)  # the actors when seat s alone acts
_CARDS: Final = range(MAX_CARD + 1)
_TAKE_EVENT: Final = tuple(tuple(FrozenDict({"type": "take", "seat": s, "card": c}) for c in _CARDS) for s in _SEATS)
_NEW_EVENT: Final = tuple(tuple(tuple(FrozenDict({"type": "new", "seat": s, "card": c, "column": k})
                                      for c in _CARDS) for k in range(1, MAX_COLUMNS + 1)) for s in _SEATS)
_DRAW_DOWN_EVENT: Final = tuple(FrozenDict({"type": "draw", "seat": s, "pile": "down"}) for s in _SEATS)
_DRAW_UP_EVENT: Final = tuple(tuple(FrozenDict({"type": "draw", "seat": s, "pile": "up", "card": c})
                                    for c in _CARDS) for s in _SEATS)
_MOST_UP: Final = max((top - DISPLAY_SIZE - HAND_SIZE * n) // 2
                      for tops in CARD_RANGE.values() for n, top in tops.items())
_REVEAL_EVENT: Final = tuple(tuple(FrozenDict({"type": "reveal", "card": c, "up": up})
                                   for up in range(_MOST_UP + 1)) for c in _CARDS)
_DREW_EVENT: Final = tuple(tuple(FrozenDict({"type": "drew", "seat": s, "card": c, "to": FrozenList([s])})
                                 for c in _CARDS) for s in _SEATS)


_DRAW_EITHER: Final = (DRAW_DOWN, DRAW_UP)
_DRAW_DOWN_ONLY: Final = (DRAW_DOWN,)
_DRAW_UP_ONLY: Final = (DRAW_UP,)
_ALL_HELD: Final = (1 << MAX_COLUMNS) - 1
# A place's legal actions by the columns held and the columns the taken card continues (bit k-1
# for column k), at index held + 8 * fit: the columns it continues, then new (if a slot is free),
# then every give-up.
_PLACE_ACTIONS: Final = tuple(
    tuple([COL + k for k in range(1, MAX_COLUMNS + 1) if fit >> (k - 1) & 1]
          + ([NEW] if held != _ALL_HELD else [])
          + [GIVE_UP + k for k in range(1, MAX_COLUMNS + 1) if held >> (k - 1) & 1])
    for fit in range(8)
    for held in range(8)
)
# The same with at most ``c`` columns (a research deck's COLUMNS), by c: new only while one of the
# first c slots is free (a player's columns are only ever in those). [3] is _PLACE_ACTIONS itself.
_PLACE_TABLES: Final = (
    (),
    *(tuple(
        tuple([COL + k for k in range(1, MAX_COLUMNS + 1) if fit >> (k - 1) & 1]
              + ([NEW] if held != (1 << c) - 1 else [])
              + [GIVE_UP + k for k in range(1, MAX_COLUMNS + 1) if held >> (k - 1) & 1])
        for fit in range(8)
        for held in range(8)
    ) for c in range(1, MAX_COLUMNS)),
    _PLACE_ACTIONS,
)
# A column's row: for every card, what the column adds to that index when the card is taken: its
# held bit, plus its fit bit if the card continues it (so 0, held or held + fit, and a row's entry
# is 8 or more exactly when the card continues the column). A place reads the index as the sum of
# the seat's three rows at the card, instead of looking into the columns. Rows by the column's
# slot k (0-based): empty, a lone card (any card continues it), rising and falling after card x.
_CONTINUES: Final = 8
_ROW_EMPTY: Final = bytes(MAX_CARD + 1)
_ROW_ANY: Final = tuple(bytes([9 << k] * (MAX_CARD + 1)) for k in range(MAX_COLUMNS))
_ROW_ABOVE: Final = tuple(tuple(bytes(9 << k if c > x else 1 << k for c in _CARDS) for x in _CARDS)
                   for k in range(MAX_COLUMNS))
_ROW_BELOW: Final = tuple(tuple(bytes(9 << k if c < x else 1 << k for c in _CARDS) for x in _CARDS)
                   for k in range(MAX_COLUMNS))


def column_row(cards: Sequence[int], k: int) -> bytes:
    """The row (above) of column slot ``k`` (0-based) holding ``cards``."""
    if not cards:
        return _ROW_EMPTY
    if len(cards) < 2:
        return _ROW_ANY[k]
    return (_ROW_ABOVE if cards[1] > cards[0] else _ROW_BELOW)[k][cards[-1]]


class UpOrDownGame(Game[UpOrDownOptions]):
    id = "up-or-down"
    name = "Up or Down?"
    min_players = 2
    max_players = 6
    rulebook = "003_36e370a2b9816f95.txt (English)"
    Options = UpOrDownOptions
    bench_players = 4

    def _new_state(self, players: int, options: UpOrDownOptions) -> UpOrDownState:
        return UpOrDownState(self, players, options)

    def action_to_str(self, action: int) -> str:
        if action == NEW:
            return "new"
        if 1 <= action <= MAX_CARD:
            return str(action)
        if TAKE < action <= TAKE + MAX_CARD:
            return f"take {action - TAKE}"
        if COL < action <= COL + MAX_COLUMNS:
            return f"col {action - COL}"
        if GIVE_UP < action <= GIVE_UP + MAX_COLUMNS:
            return f"give up {action - GIVE_UP}"
        if action == DRAW_DOWN:
            return "draw down"
        if action == DRAW_UP:
            return "draw up"
        raise NotationError(f"{action} is not an Up or Down? action id (0 to {NUM_ACTIONS - 1})")

    def parse_action(self, text: str) -> int:
        words = text.strip().lower().replace("-", " ").split()
        if not words:
            raise NotationError("empty action")
        if words in (["new"], ["new", "column"], ["start"]):
            return NEW
        if (words[0] == "draw" and len(words) == 2) or (len(words) == 1 and words[0] in ("down", "up")):
            pile = words[-1]
            if pile in ("down", "facedown"):
                return DRAW_DOWN
            if pile in ("up", "faceup"):
                return DRAW_UP
        head, number = words[:-1], words[-1]
        if number.isascii() and number.isdigit() and len(number) <= 3:
            k = int(number)
            if head in ([], ["play"], ["card"]) and 1 <= k <= MAX_CARD:
                return k
            if head == ["take"] and 1 <= k <= MAX_CARD:
                return TAKE + k
            if head in (["col"], ["column"]) and 1 <= k <= MAX_COLUMNS:
                return COL + k
            if head in (["give", "up"], ["giveup"], ["give"]) and 1 <= k <= MAX_COLUMNS:
                return GIVE_UP + k
        raise NotationError(
            f"{text!r} is not an Up or Down? action (write e.g. 14, take 7, col 1, new, give up 2, "
            "draw down, draw up; cards are 1 to 126, columns 1 to 3)"
        )

    def describe(self, event: Event, names: Sequence[str]) -> str:
        return describe_event(event, names)

    def world_sampler(self, view: View) -> UpOrDownWorlds:
        return UpOrDownWorlds(view)


GAME: Final = UpOrDownGame()


class UpOrDownState(State):
    __slots__ = (
        "game", "players", "options", "log", "top", "phase", "stock", "hands", "known", "deal_seat",
        "ring", "cols", "rows", "piles", "down", "up_hidden", "up_top", "turn", "played", "choices", "taken",
        "_actors", "sorted_stock", "cards", "hand_size", "display_size", "columns", "place_actions", "_options_view",
    )

    def __init__(self, game: UpOrDownGame, players: int, options: UpOrDownOptions, *, _empty: bool = False):
        self.game = game
        self.players = players
        self.options = options
        self._options_view: dict[str, Any] | None = None
        """``options.view()``, asked once per state (it hashes the options at every call)."""
        self.sorted_stock = False
        """Whether the stock is in card order (always in a real game; a world's stock is in the
        order its deal drew), so that a chance outcome is found by bisection."""
        self.choices: tuple[int, ...] = ()
        """At a take, a place or a draw: its legal actions, in order, set by the step before it
        (the play finds the two neighbours, the take the places the card may go, the place the
        piles there are to draw from), so that a legal list is a copy and looks at nothing else."""
        if _empty:
            return
        self.log: list[Event] = []
        self._set_deck(options.deck_of(players))
        self.phase = _DEAL
        self.stock = list(self.cards)
        self.sorted_stock = True
        """Cards nobody has seen: undealt at setup, then the face-down pile and the face-up pile's
        cards beneath its top, as one pool."""
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.known: list[list[int]] = [[] for _ in range(players)]
        """Hand cards everyone knows (drawn from the face-up pile)."""
        self.deal_seat = 0
        self.ring: list[int] = []
        self.cols: list[list[list[int]]] = [[[], [], []] for _ in range(players)]
        self.rows: list[bytes] = [_ROW_EMPTY] * (MAX_COLUMNS * players)
        """Flat: the ``column_row`` of seat s's column slot k (0-based) at 3s + k, kept up to date
        by every place."""
        self.piles: list[list[int]] = [[] for _ in range(players)]  # discard piles
        self.down = 0
        self.up_hidden = 0
        self.up_top = 0  # 0: the face-up pile is empty
        self.turn = 0
        self.played = 0
        self.taken = 0
        self._actors: tuple[int, ...] = ()

    def _set_deck(self, deck: Deck) -> None:
        """The cards, hand, display and columns of the game (the rulebook's but on a research deck)."""
        self.cards: tuple[int, ...] = deck[0]
        """Every card of the game, ascending (1 to ``top`` but on a research deck)."""
        self.top = deck[0][-1]
        self.hand_size = deck[1]
        self.display_size = deck[2]
        self.columns = deck[3]
        """The most columns a player may hold (3 but on a research deck)."""
        self.place_actions: tuple[tuple[int, ...], ...] = _PLACE_TABLES[deck[3]]

    # -- helpers ----------------------------------------------------------------------------------
    def scores(self) -> list[int]:
        return [score_of(self.cols[s], len(self.piles[s])) for s in range(self.players)]

    def _neighbours(self, card: int) -> tuple[int, int]:
        ring = self.ring
        i = ring.index(card)
        return ring[i - 1], ring[(i + 1) % len(ring)]

    # -- who acts -------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == _OVER

    def is_chance(self) -> bool:
        return self.phase < _PLAY

    def actors(self) -> tuple[int, ...]:
        return self._actors  # kept up to date by every transition

    # -- chance ---------------------------------------------------------------------------------
    def chance_label(self) -> str:
        phase = self.phase
        if phase == _DEAL:
            return f"deal {self.deal_seat}"
        if phase == _DISPLAY:
            return "display"
        if phase == _REVEAL:
            return "reveal"
        if phase == _DRAWN:
            return "draw"
        raise IllegalAction("this is not a chance step")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase >= _PLAY:
            raise IllegalAction("this is not a chance step")
        p = 1.0 / len(self.stock)
        return [(c, p) for c in self.stock]

    def sample_chance(self, rng: random.Random) -> int:
        if self.phase >= _PLAY:
            raise IllegalAction("this is not a chance step")
        stock = self.stock  # every card left in the stock equally likely
        return stock[int(rng.random() * len(stock))]

    # -- decisions ------------------------------------------------------------------------------
    # legal_actions and apply run at every step of every playout, so each phase's work is written
    # out in place (no helper calls) and events are built in one dict display each.
    # -- entry points (for mypyc: compiled code checks a typed argument itself, with TypeError,
    # and a bool gets through as an int): they take any object, refuse what is not an int with
    # IllegalAction as the protocol says, and hand ints to the typed methods they call.
    def legal_actions(self, seat: object) -> list[int]:
        return self._legal_actions(seat if type(seat) is int else self.check_seat(seat))

    def apply(self, action: object, seat: object = None) -> None:
        if type(action) is not int:
            raise not_an_action(action)
        if seat is None:
            if self.phase < _PLAY:
                self._chance(action)
            else:
                self._other_step(action, None)
        else:
            self._act(action, seat if type(seat) is int else self.check_seat(seat))

    def view(self, seat: object) -> View:
        return self._view(seat if seat is None or type(seat) is int else self.check_seat(seat))

    def _legal_actions(self, seat: int) -> list[int]:
        if seat not in self._actors:  # at most one actor: the same as 'seat != actors[0]', in fewer steps
            self.check_seat(seat)
            return []
        if self.phase == _PLAY:
            return sorted(self.hands[seat])
        return list(self.choices)  # a take, a place or a draw

    def _apply(self, action: int, seat: int | None = None) -> None:
        self.apply(action, seat)  # the name other engines' callers use; ``apply`` does the work

    # mypyc: ``apply`` calls ``_chance`` or this rather than ``_apply``, so that the seat is a plain
    # int (an ``int | None`` is a boxed object, and every comparison with it a generic one).
    def _act(self, action: int, seat: int) -> None:
        """``seat``'s action (``apply`` has checked that both are ints)."""
        actors = self._actors  # at most one actor: 'seat not in actors' in two int comparisons
        if not actors or actors[0] != seat:
            self._other_step(action, seat)  # a seat that may not act now: raises, or applies for the one that may
            return
        phase = self.phase
        log = self.log
        if phase == _PLAY:  # play a hand card into the ring
            card = action
            hand = self.hands[seat]
            try:  # one search of the hand (a hand holds cards 1..MAX_CARD only)
                hand.remove(card)
            except ValueError:
                raise IllegalAction(f"play a card from your hand ({', '.join(map(str, sorted(hand)))}), "
                                    f"not {GAME.action_name(card)}") from None
            known = self.known[seat]
            if known and card in known:
                known.remove(card)
            ring = self.ring  # sorted, six cards; the new card is in none of them
            if _COMPILED:  # a loop on ints: a call to bisect goes through Python from compiled code
                i = 0
                n = len(ring)
                while i < n and ring[i] < card:
                    i += 1
            else:  # bisect's C loop: a loop in interpreted Python is slower
                i = bisect_left(ring, card)
            ring.insert(i, card)
            self.played = card
            # Its neighbours: the card before it (the highest when it is the lowest), the card
            # after it (the lowest when it is the highest).
            a = ring[i - 1]
            b = ring[i + 1] if i < self.display_size else ring[0]
            log.append({"type": "play", "seat": seat, "card": card, "between": [a, b]})
            self.choices = (TAKE + a, TAKE + b) if a < b else (TAKE + b, TAKE + a)
            self.phase = _TAKE
        elif phase == _TAKE:  # take a neighbour of the played card
            choices = self.choices  # a take's two choices
            if action != choices[0] and action != choices[1]:
                a, b = self._neighbours(self.played)
                raise IllegalAction(f"take a neighbour of {self.played}: take {a} or take {b}, "
                                    f"not {GAME.action_name(action)}")
            card = action - TAKE
            self.ring.remove(card)
            self.taken = card
            log.append(_TAKE_EVENT[seat][card])
            # The places: which columns are held and which the card continues, the sum of the
            # seat's rows at the card, picks the legal list from a table built at import.
            rows = self.rows
            at = MAX_COLUMNS * seat
            self.choices = self.place_actions[rows[at][card] + rows[at + 1][card] + rows[at + 2][card]]
            self.phase = _PLACE
        elif phase == _PLACE:  # the taken card into a column; the tests of legal_actions, for one action
            card = self.taken
            cols = self.cols[seat]
            if action > GIVE_UP:
                k = action - GIVE_UP - 1
                if action > GIVE_UP + MAX_COLUMNS or not cols[k]:
                    raise IllegalAction(self._why_not_place(action, seat))
                gone = cols[k]
                pile = self.piles[seat]
                pile.extend(gone)
                cols[k] = [card]
                self.rows[MAX_COLUMNS * seat + k] = _ROW_ANY[k]
                log.append({"type": "give_up", "seat": seat, "column": k + 1, "cards": gone,
                            "discards": len(pile), "card": card})
            elif action > COL:
                k = action - COL - 1
                at = MAX_COLUMNS * seat + k
                rows = self.rows
                if rows[at][card] < _CONTINUES:  # an empty column's row is all 0
                    raise IllegalAction(self._why_not_place(action, seat))
                col = cols[k]
                col.append(card)
                if col[1] > col[0]:
                    rows[at] = _ROW_ABOVE[k][card]
                    way = "up"
                else:
                    rows[at] = _ROW_BELOW[k][card]
                    way = "down"
                n = len(col)  # mostly 2: then 4 if both cards share a colour, else 2
                log.append({"type": "place", "seat": seat, "card": card, "column": k + 1, "length": n,
                            "direction": way,
                            "score": (4 if COLOUR[col[0]] == COLOUR[card] else 2) if n == 2 else column_score(col)})
            else:
                # the lowest free slot, if any (three slots, tested in turn)
                k = 0 if not cols[0] else 1 if not cols[1] else 2 if not cols[2] else -1
                if action != NEW or k < 0 or k >= self.columns:
                    raise IllegalAction(self._why_not_place(action, seat))
                cols[k] = [card]
                self.rows[MAX_COLUMNS * seat + k] = _ROW_ANY[k]
                log.append(_NEW_EVENT[seat][k][card])
            self.taken = 0
            if self.down:
                self.choices = _DRAW_EITHER if self.up_top else _DRAW_DOWN_ONLY
                self.phase = _DRAW
            elif self.up_top:
                self.choices = _DRAW_UP_ONLY
                self.phase = _DRAW
            else:
                self._next_turn()
        elif action == DRAW_DOWN and self.down:  # _DRAW: its card is a chance outcome
            log.append(_DRAW_DOWN_EVENT[seat])
            self.phase = _DRAWN
            self._actors = ()
        elif action == DRAW_UP and self.up_top:
            card = self.up_top
            self.hands[seat].append(card)
            self.known[seat].append(card)
            log.append(_DRAW_UP_EVENT[seat][card])
            self.up_top = 0
            if self.up_hidden:
                self.phase = _REVEAL
                self._actors = ()
            else:
                self._next_turn()
        elif action in (DRAW_DOWN, DRAW_UP):
            raise IllegalAction(f"the face-{'down' if action == DRAW_DOWN else 'up'} pile is empty: "
                                f"draw {'up' if action == DRAW_DOWN else 'down'}")
        else:
            raise IllegalAction(f"draw a card: draw down or draw up, not {GAME.action_name(action)}")

    def _other_step(self, action: int, seat: int | None) -> None:
        """A decision without its seat, or by a seat that may not act, or a seat at a chance step."""
        phase = self.phase
        if seat is not None:
            self.check_seat(seat)
        if phase == _OVER:
            raise IllegalAction("the game is over")
        if phase < _PLAY:
            if seat is not None:
                raise IllegalAction(f"it is a chance step ({self.chance_label()}), no seat acts")
            self._chance(action)
            return
        self.apply(action, self._seat_for(seat))

    # -- chance steps -----------------------------------------------------------------------------
    def _chance(self, card: int) -> None:
        stock = self.stock
        if self.sorted_stock:
            i = bisect_left(stock, card)
            found = i < len(stock) and stock[i] == card
        else:
            found = card in stock
            i = stock.index(card) if found else 0
        if not found:
            raise IllegalAction(f"{GAME.action_name(card)} is not an unseen card that can come up now")
        del stock[i]
        phase = self.phase  # the draws of play first: they come far more often than the setup
        if phase == _DRAWN:  # a face-down draw
            seat = self.turn
            self.down -= 1
            hands = self.hands
            hands[seat].append(card)
            self.log.append(_DREW_EVENT[seat][card])
            seat += 1
            if seat == self.players:
                seat = 0
            if hands[seat]:  # the next turn, as in _next_turn: while the piles last, every hand holds cards
                self.played = 0
                self.turn = seat
                self.phase = _PLAY
                self._actors = _ONLY[seat]
            else:
                self._next_turn()
        elif phase == _REVEAL:
            self.up_hidden -= 1
            self.up_top = card
            self.log.append(_REVEAL_EVENT[card][self.up_hidden + 1])
            if self.played:
                self._next_turn()
            else:  # the setup's first face-up card: the first turn begins
                self.phase = _PLAY
                self._actors = (self.turn,)
        elif phase == _DEAL:
            seat = self.deal_seat
            hand = self.hands[seat]
            hand.append(card)
            if len(hand) == self.hand_size:
                self.log.append({"type": "hand", "seat": seat, "cards": sorted(hand), "to": [seat]})
                self.deal_seat += 1
                if self.deal_seat == self.players:
                    self.phase = _DISPLAY
        else:  # _DISPLAY
            ring = self.ring
            ring.append(card)
            if len(ring) == self.display_size:
                ring.sort()
                rest = len(self.stock)
                self.down = (rest + 1) // 2  # the face-down pile gets the extra card
                self.up_hidden = rest // 2
                self.log.append({"type": "display", "cards": list(ring), "down": self.down,
                                 "up": self.up_hidden})
                if self.up_hidden:
                    self.phase = _REVEAL
                else:  # a research deck with one card or none left over: no face-up pile to show
                    self.phase = _PLAY
                    self._actors = (self.turn,)

    # -- a turn: its helpers ---------------------------------------------------------------------
    def _why_not_place(self, action: int, seat: int) -> str:
        cols = self.cols[seat]
        if action == NEW:
            if self.columns != MAX_COLUMNS:  # a research deck's limit
                most = f"{self.columns} column{'s' if self.columns != 1 else ''}, this game's most"
                return f"you have {most}: put the card on one or give one up"
            return "you have three columns: put the card on one or give one up"
        if COL < action <= COL + MAX_COLUMNS:
            col = cols[action - COL - 1]
            if not col:
                return f"you have no column {action - COL}: write new"
            way = "rising" if direction_of(col) > 0 else "falling"
            return f"{self.taken} does not continue column {action - COL} ({way}, last card {col[-1]})"
        if GIVE_UP < action <= GIVE_UP + MAX_COLUMNS:
            return f"you have no column {action - GIVE_UP} to give up"
        return f"put the taken card {self.taken} into a column (col K, new, give up K), not {GAME.action_name(action)}"

    def _choices(self) -> tuple[int, ...]:
        """What ``choices`` holds at this step, worked out from the position (the steps before a
        take, a place and a draw set it as they go; a world is built without them)."""
        phase = self.phase
        if phase == _TAKE:
            a, b = self._neighbours(self.played)
            return (TAKE + a, TAKE + b) if a < b else (TAKE + b, TAKE + a)
        if phase == _PLACE:
            at = MAX_COLUMNS * self.turn
            return self.place_actions[sum(row[self.taken] for row in self.rows[at:at + MAX_COLUMNS])]
        if phase == _DRAW:
            return (_DRAW_EITHER if self.up_top else _DRAW_DOWN_ONLY) if self.down else _DRAW_UP_ONLY
        return ()

    def _next_turn(self) -> None:
        self.played = 0
        n = self.players
        hands = self.hands
        seat = self.turn + 1
        if seat == n:
            seat = 0
        if hands[seat]:  # the usual case: while the piles last every hand holds cards
            self.turn = seat
            self.phase = _PLAY
            self._actors = _ONLY[seat]
            return
        for step in range(2, n + 1):
            seat = (self.turn + step) % n
            if hands[seat]:
                self.turn = seat
                self.phase = _PLAY
                self._actors = (seat,)
                return
        self.phase = _OVER
        self._actors = ()
        result = self.result()
        self.log.append({"type": "end", "scores": list(result.scores), "placings": list(result.placings)})

    def progress(self) -> Progress:
        """One game, no deals: each seat's score if play stopped now (columns and discards)."""
        return Progress(0, tuple(self.scores()))

    def result(self) -> Result:
        if self.phase != _OVER:
            raise IllegalAction("the game is not over")
        columns = [[column_score(c) for c in cols] for cols in self.cols]  # each scored once
        discards = [len(p) for p in self.piles]
        return Result.from_scores(
            [sum(c) + d for c, d in zip(columns, discards)],
            details={"columns": columns, "discards": discards},
        )

    # -- information ----------------------------------------------------------------------------
    def _set_options_view(self) -> dict[str, Any]:
        got = self._options_view = self.options.view()
        return got

    def _view(self, seat: int | None) -> View:
        if seat is not None and not 0 <= seat < self.players:
            self.check_seat(seat)  # raises, naming the seats (a call into interpreted code: only then)
        n = self.players
        discards = [len(p) for p in self.piles]
        # Each column scored once, in one pass with the columns' entries and each seat's score
        # (score_of: an empty column scores 0).
        columns: list[list[dict[str, Any] | None]] = []
        scores: list[int] = []
        for cols, d in zip(self.cols, discards):
            row: list[dict[str, Any] | None] = []
            total = 0
            for c in cols:
                if c:
                    x = column_score(c)
                    total += x
                    row.append({"cards": c[:], "direction": None if len(c) < 2 else "up" if c[1] > c[0] else "down",
                                "score": x})
                else:
                    row.append(None)
            columns.append(row)
            scores.append(total + d)
        v: View = {
            "game": GAME.id,
            "players": n,
            "seat": seat,
            "phase": _PHASE_NAMES[self.phase],
            "length": self.options.length,
            "highest": self.top,
            "turn": self.turn,
            "to_act": list(self._actors),
            "display": list(self.ring),
            "played": self.played or None,
            "taken": self.taken or None,
            "columns": columns,
            "discards": discards,
            "scores": scores,
            "hand_sizes": [len(h) for h in self.hands],
            "known": [sorted(k) for k in self.known],
            "down": self.down,
            "up": self.up_hidden + (1 if self.up_top else 0),
            "up_top": self.up_top or None,
            "options": self._options_view if self._options_view is not None else self._set_options_view(),
            "log": self.visible_log(seat),
        }
        if seat is not None:
            v["hand"] = sorted(self.hands[seat])
        if self.phase == _OVER:
            v["result"] = self.result().to_dict()
        return v

    def clone(self) -> UpOrDownState:
        # Every field is set here, so no __init__ runs; lists of lists are copied with list.copy
        # and without comprehensions' frames (pimc clones a state for every world it plays).
        c = UpOrDownState(self.game, self.players, self.options, _empty=True)  # type: ignore[arg-type]  # mypyc: __new__ runs __init__
        c._options_view = self._options_view
        c.game = self.game
        c.players = self.players
        c.options = self.options
        c.log = list(self.log)
        c.top = self.top
        c.cards = self.cards
        c.hand_size = self.hand_size
        c.display_size = self.display_size
        c.columns = self.columns
        c.place_actions = self.place_actions
        c.phase = self.phase
        c.stock = list(self.stock)
        c.sorted_stock = self.sorted_stock
        c.hands = list(map(list.copy, self.hands))
        c.known = list(map(list.copy, self.known))
        c.deal_seat = self.deal_seat
        c.ring = list(self.ring)
        c.cols = [[x.copy(), y.copy(), z.copy()] for x, y, z in self.cols]
        c.rows = list(self.rows)
        c.piles = list(map(list.copy, self.piles))
        c.down = self.down
        c.up_hidden = self.up_hidden
        c.up_top = self.up_top
        c.turn = self.turn
        c.played = self.played
        c.choices = self.choices
        c.taken = self.taken
        c._actors = self._actors
        c._frozen_upto = self._frozen_upto
        c._visible_base = self._visible_snapshot()
        return c


class UpOrDownWorlds(WorldSampler):
    """The worlds a seat's view allows. Hidden: the other hands' cards that were not drawn face
    up, and the unseen pile cards (one pool, as in the rules engine); nothing the table saw limits
    which of them a hand holds, so they are dealt uniformly. Each other seat's private history
    (its deal and its face-down draws) is retold too: the cards it obtained privately (those it
    has played since, and those it still hides) are shared out over its private events uniformly
    among the histories in which every card was obtained before it was played. So every
    consistent world, history included, is equally likely."""

    def __init__(self, view: View):
        if view.get("game") != GAME.id:
            raise IllegalAction(f"not an {GAME.name} view")
        n = view["players"]
        seat = view["seat"]
        if type(seat) is not int or not 0 <= seat < n:
            raise IllegalAction("worlds are drawn from a seat's view, not a spectator's")
        options = GAME.Options.from_dict(view["options"])
        st = UpOrDownState(GAME, n, options, _empty=True)
        log: list[Event] = view["log"]
        if not all(type(e) is FrozenDict for e in log):
            log = [freeze(e) for e in log]
        st._set_deck(options.deck_of(n))
        if st.top != view["highest"]:
            raise IllegalAction("not a consistent view: its highest card is not its deck's")
        hand_size = st.hand_size
        st.phase = phase = int(Phase[view["phase"].upper()])
        sizes = view["hand_sizes"]
        st.deal_seat = deal_seat = (next((s for s in range(n) if sizes[s] < hand_size), n)
                                    if phase == _DEAL else n)
        st.ring = list(view["display"])
        st.cols = [[list(c["cards"]) if c else [] for c in cols] for cols in view["columns"]]
        st.rows = [column_row(col, k) for cols in st.cols for k, col in enumerate(cols)]
        st.known = [list(k) for k in view["known"]]
        st.down = view["down"]
        st.up_top = view["up_top"] or 0
        st.up_hidden = view["up"] - (1 if st.up_top else 0)
        st.turn = view["turn"]
        st.played = view["played"] or 0
        st.taken = view["taken"] or 0
        st._actors = tuple(view["to_act"])
        st.choices = st._choices()
        hand = list(view["hand"])
        piles: list[list[int]] = [[] for _ in range(n)]
        # Each other seat's private slots (its deal, each face-down draw it has received) and the
        # cards it obtained privately and has played since, with when it played them.
        slot_at: list[list[int]] = [[] for _ in range(n)]  # one log position per card slot
        drew_at: list[list[int]] = [[] for _ in range(n)]  # world-log positions of drew events
        played_private: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # (deadline, card)
        face_up: list[set[int]] = [set() for _ in range(n)]
        world_log: list[Event | None] = []
        self.hand_event_at: list[int] = [-1] * n
        for s in range(deal_seat):
            if s != seat:
                self.hand_event_at[s] = s
                slot_at[s].extend([-1] * hand_size)
        own_hand_event = seat < deal_seat
        if own_hand_event and (not log or log[0]["type"] != "hand" or log[0]["seat"] != seat):
            raise IllegalAction("not a consistent view: its deal event is missing")
        world_log.extend(log[0] if s == seat else None for s in range(deal_seat))
        events = log[1:] if own_hand_event else log
        for i, e in enumerate(events):
            world_log.append(e)
            kind = e["type"]
            s = e.get("seat", -1)
            if kind == "give_up":
                piles[s].extend(e["cards"])
            elif s == seat or s < 0:
                continue
            elif kind == "play":
                if e["card"] not in face_up[s]:
                    played_private[s].append((i, e["card"]))
            elif kind == "draw":
                if e["pile"] == "up":
                    face_up[s].add(e["card"])
                elif not (phase == _DRAWN and i == len(events) - 1):  # not still waiting for its card
                    slot_at[s].append(i)
                    drew_at[s].append(len(world_log))
                    world_log.append(None)
        st.piles = piles
        seen = set(hand) | {c for k in st.known for c in k} | set(st.ring)
        seen |= {c for cols in st.cols for col in cols for c in col} | {c for p in piles for c in p}
        seen |= {st.up_top, st.taken}
        self.pool = [c for c in st.cards if c not in seen]
        self.others = [s for s in range(n) if s != seat]
        self.sizes = [sizes[s] - len(st.known[s]) for s in self.others]
        self.sizes.append(len(self.pool) - sum(self.sizes))
        if min(self.sizes) < 0:
            raise IllegalAction("not a consistent view: more cards held than there are")
        # For the histories: per other seat, its played private cards by when they were played,
        # each with the number of slots before that moment.
        self.stories: list[tuple[int, list[int], list[tuple[int, int]], list[int]]] = []
        for s in self.others:
            slots = slot_at[s]
            cards = sorted(played_private[s])
            limits = [(sum(1 for p in slots if p < deadline), card) for deadline, card in cards]
            if len(cards) > len(slots) or any(k <= i for i, (k, _) in enumerate(limits)):
                raise IllegalAction("not a consistent view: a card was played before it could be held")
            self.stories.append((s, slots, limits, drew_at[s]))
        st.hands = [list(hand) if s == seat else [] for s in range(n)]
        st.stock = []
        st.log = world_log  # type: ignore[assignment]  # the slots are filled by every draw
        self.skeleton = st

    def draw(self, rng: random.Random) -> UpOrDownState:
        world = self.skeleton.clone()
        parts = free_deal(self.pool, self.sizes, rng)
        log = world.log
        for (s, slots, limits, drew_at), hidden in zip(self.stories, parts):
            world.hands[s] = world.known[s] + hidden
            if not slots:
                continue
            # Played cards in the order they were played, each to a free slot before its play;
            # then the hidden cards to the slots left (any order is as likely).
            free = list(range(len(slots)))
            got = [0] * len(slots)
            for i, (k, card) in enumerate(limits):
                got[free.pop(rng.randrange(k - i))] = card
            rest = list(hidden)
            rng.shuffle(rest)
            for j, card in zip(free, rest):
                got[j] = card
            at = 0
            if self.skeleton.deal_seat > s:
                hand_size = self.skeleton.hand_size
                log[s] = FrozenDict({"type": "hand", "seat": s, "cards": FrozenList(sorted(got[:hand_size])),
                                     "to": FrozenList([s])})
                at = hand_size
            for index, card in zip(drew_at, got[at:]):
                log[index] = FrozenDict({"type": "drew", "seat": s, "card": card, "to": FrozenList([s])})
        world.stock = parts[-1]
        world._frozen_upto = len(log)
        return world


# -- explanations -------------------------------------------------------------------------------

def _card(n: int) -> str:
    return f"{n} ({colour_name(n)})"


def describe_event(event: Event, names: Sequence[str]) -> str:
    """One line that tells people what happened."""
    kind = event["type"]
    who = names[event["seat"]] if "seat" in event else ""
    if kind == "hand":
        return f"{who} is dealt {', '.join(_card(c) for c in event['cards'])}."
    if kind == "display":
        return (f"The display: {' '.join(map(str, event['cards']))}. Draw piles: {event['down']} cards "
                f"face down, {event['up']} face up.")
    if kind == "reveal":
        return f"The face-up pile shows {_card(event['card'])} ({event['up']} cards in it)."
    if kind == "play":
        a, b = event["between"]
        where = f"between {a} and {b}"
        if a > b:
            where += " (the wrap-around: " + ("lowest" if event["card"] < b else "highest") + " card)"
        return f"{who} plays {_card(event['card'])} into the display {where}."
    if kind == "take":
        return f"{who} takes {_card(event['card'])}."
    if kind == "new":
        return f"{who} starts column {event['column']} with {_card(event['card'])}."
    if kind == "place":
        way = {"up": ", rising", "down": ", falling"}.get(event["direction"] or "", "")
        return (f"{who} puts {_card(event['card'])} on column {event['column']} "
                f"({event['length']} cards{way}, {event['score']} points).")
    if kind == "give_up":
        gone = len(event["cards"])
        return (f"{who} gives up column {event['column']} ({gone} card{'s' if gone != 1 else ''} to the discard pile, "
                f"{event['discards']} there now) and starts it afresh with {_card(event['card'])}.")
    if kind == "draw":
        if event["pile"] == "up":
            return f"{who} draws {_card(event['card'])} from the face-up pile."
        return f"{who} draws from the face-down pile."
    if kind == "drew":
        return f"{who} draws {_card(event['card'])}."
    if kind == "end":
        scores, placings = event["scores"], event["placings"]
        ranking = sorted(range(len(scores)), key=lambda s: (placings[s], s))
        return "Final: " + ", ".join(f"{placings[s]}. {names[s]} {scores[s]}" for s in ranking) + "."
    return str(event)
