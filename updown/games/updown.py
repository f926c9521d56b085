"""UP&DOWN (Jens Merkl & Jean-Claude Pellin), rules 000 and 002 in ``shared/rules``.

Rules in brief. 44 cards: 2..10, J (11), Q (12) in four suits. Each player is dealt 11 (4 players),
14 (3) or 15 (2); the rest is set aside unseen. Two dice set the trump *value* (2..12): every card
of that value is a trump, whatever its suit. The UP&DOWN card lands UP or DOWN and is turned so
that each player faces one suit, their own suit; the player facing clubs leads first.

Before each trick the leader must change the rules in exactly one way: flip the card (UP <-> DOWN),
rotate it so that another suit faces them (everyone's suit moves with it), or roll the dice again
(re-rolling until the value differs from the old trump). Then every player secretly chooses a card
and all are revealed at once. Every card whose value was played more than once is cancelled (trump
value too). Of the rest, a card is eligible only if it is of its player's own suit or of the trump
value. An eligible trump wins; otherwise the highest eligible value on UP, the lowest on DOWN. With no
eligible card the trick goes into the pot, which the next trick's winner takes too; a pot left after
the last trick is discarded. The leader role passes to the left (the next seat) after every trick.

Readings the project takes (see ``docs/rules-notes.md``):

* The card's sides, in cyclic order, are diamonds, hearts, spades, clubs. Seats sit clockwise at
  positions 0..3 (two players face opposite sides, positions 0 and 2; three players leave position 3
  empty). The orientation is a chance outcome, written as the suit that faces seat 0.
* Nobody faces clubs (possible with 2 or 3 players): the first leader is the first player clockwise
  from the clubs side, as if the leader role had passed over the empty place.
* The re-roll is recorded as the roll that counts: its outcomes are the dice pairs whose sum differs
  from the old trump, all equally likely (the same distribution as rolling until it differs).
* A match has ``rounds`` rounds (default one per player), each set up afresh (deal, dice, toss,
  orientation). Standings are by total tricks. With ``tiebreak_rounds`` > 0, while the lead is
  shared after the planned rounds, another round is played, up to that many.

Research decks (option ``deck``, never offered for play; ``docs/research-variants.md``): the same
rules with fewer cards, small enough for exact solvers. ``deck="TOP:SUITS:HAND"`` deals values 2 to
TOP of the suits named (letters in the order C D H S), HAND cards to each player, and sets the trump
value with two dice of ceil(TOP / 2) faces (so that, as two six-sided dice cover 2..12 on the full
deck, the dice cover the deck's values). Card and action ids are the full deck's: a research deck
is a subset of it. The default, ``deck="full"``, is the rulebook's game.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from enum import IntEnum
from typing import Any, Final, Optional

from updown.core.cards import Card, Suit, pretty_card, suit_symbol
from updown.core.compiled import mypyc_attr
from updown.core.errors import IllegalAction, NotationError, OptionsError, not_an_action
from updown.core.options import GameOptions
from updown.core.frozen import FrozenDict, FrozenList, freeze
from updown.core.protocol import Event, Game, Progress, Result, State, View, WorldSampler
from updown.core.worlds import free_deal

# -- the deck and the U&D card ------------------------------------------------------------------

VALUES = tuple(range(2, 13))
DECK: tuple[Card, ...] = tuple(Card(v, s) for s in Suit for v in VALUES)
"""Card id ``i`` is ``DECK[i]``: suit-major, value 2..12 (J=11, Q=12)."""
NUM_CARDS = len(DECK)
_ALL_CARDS = tuple(range(NUM_CARDS))
VALUE: tuple[int, ...] = tuple(c.rank for c in DECK)
SUIT: tuple[int, ...] = tuple(int(c.suit) for c in DECK)
CARD_STR: tuple[str, ...] = tuple(str(c) for c in DECK)
_CARD_ID: dict[Card, int] = {c: i for i, c in enumerate(DECK)}
_ID_BY_STR: dict[str, int] = {text: i for i, text in enumerate(CARD_STR)}
"""Ids by canonical text: bots read the cards of a view many times a decision."""

SIDES: tuple[Suit, ...] = (Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES, Suit.CLUBS)
"""The suits on the U&D card in cyclic (clockwise) order."""
POSITIONS: dict[int, tuple[int, ...]] = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}
HAND_SIZE: dict[int, int] = {2: 15, 3: 14, 4: 11}

# -- action ids: one space for decisions and chance outcomes --------------------------------------

FLIP = NUM_CARDS  # 44
ROTATE = FLIP + 1  # 45..48: rotate so that Suit(a - ROTATE) faces the leader
ROLL = ROTATE + 4  # 49
DICE = ROLL + 1  # 50..85: dice (d1, d2) is DICE + 6 * (d1 - 1) + (d2 - 1)
TOSS_UP = DICE + 36  # 86
TOSS_DOWN = TOSS_UP + 1  # 87
ORIENT = TOSS_DOWN + 1  # 88..91: Suit(a - ORIENT) faces seat 0
NUM_ACTIONS = ORIENT + 4


def _rolls(faces: int) -> dict[int | None, tuple[int, ...]]:
    """The dice outcomes by the trump they must differ from (``None``: the first roll of a round),
    for two dice of ``faces`` faces: every pair whose sum differs, all equally likely."""
    return {
        old: tuple(
            DICE + 6 * (a - 1) + (b - 1) for a in range(1, faces + 1) for b in range(1, faces + 1)
            if old is None or a + b != old
        )
        for old in (None, *range(2, 2 * faces + 1))
    }


_DICE_BY_TRUMP: dict[int | None, tuple[int, ...]] = _rolls(6)


# Orientation tables, so that play needs no enum arithmetic: for ``n`` players and orientation
# ``r`` (SIDES[r] faces position 0), the suit (as an int) facing each seat, and its letters.
_SEAT_SUITS: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple(int(SIDES[(p + r) % 4]) for p in POSITIONS[n]) for r in range(4)) for n in POSITIONS
}
_SEAT_LETTERS: dict[int, tuple[tuple[str, ...], ...]] = {
    n: tuple(tuple("CDHS"[x] for x in row) for row in rows) for n, rows in _SEAT_SUITS.items()
}
_LEAD_ACTIONS: tuple[tuple[int, ...], ...] = tuple(
    (FLIP, *(ROTATE + other for other in range(4) if other != own), ROLL) for own in range(4)
)
_ROTATION: dict[int, tuple[tuple[int, ...], ...]] = {
    n: tuple(tuple((SIDES.index(Suit(x)) - POSITIONS[n][seat]) % 4 for x in range(4)) for seat in range(n))
    for n in POSITIONS
}
"""``_ROTATION[n][seat][suit]``: the orientation in which ``suit`` faces ``seat``."""
_ONLY: tuple[tuple[int], ...] = tuple((s,) for s in range(4))
"""``_ONLY[seat]``: the actors when ``seat`` alone must act."""
_STRENGTH: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(99 if v == trump else (v if up else 20 - v) for v in VALUE) for trump in range(13))
    for up in (False, True)
)
"""``_STRENGTH[up][trump][card]``: how strong a card is if it is eligible, higher wins: 99 for the
trump value (it wins whenever it is not cancelled), else the value on UP, 20 minus it on DOWN."""

# Events that differ only by seat, suit or outcome, built once here and shared by every game: a view
# freezes the events it shows anyway, and a logged event is never changed, so they are read-only
# from the start (core/frozen.py) and a step only appends one (no dict built per step).
_SUITS_LIST: dict[int, tuple[FrozenList, ...]] = {
    n: tuple(FrozenList(letters) for letters in rows) for n, rows in _SEAT_LETTERS.items()
}
"""``_SUITS_LIST[n][orient]``: the events' ``suits`` (each seat's suit letter), shared."""


def _first_leader(players: int, orient: int) -> int:
    """The seat facing clubs or, with nobody there, the first seat clockwise from the clubs side (as
    if the leader role had passed over the empty place)."""
    clubs_position = (SIDES.index(Suit.CLUBS) - orient) % 4
    positions = POSITIONS[players]
    for step in range(4):
        position = (clubs_position + step) % 4
        if position in positions:
            return positions.index(position)
    raise AssertionError("unreachable")


_FIRST_LEADER: dict[int, tuple[int, ...]] = {n: tuple(_first_leader(n, r) for r in range(4)) for n in POSITIONS}
"""``_FIRST_LEADER[n][orient]``: the first leader of a round."""
_ORIENT_EVENT: dict[int, tuple[FrozenDict, ...]] = {
    n: tuple(FrozenDict({"type": "orient", "suits": _SUITS_LIST[n][orient], "leader": _FIRST_LEADER[n][orient]})
             for orient in range(4))
    for n in POSITIONS
}
_DICE_EVENT: dict[int, FrozenDict] = {
    DICE + 6 * (a - 1) + (b - 1): FrozenDict({"type": "dice", "dice": FrozenList([a, b]), "trump": a + b})
    for a in range(1, 7) for b in range(1, 7)
}
_TOSS_EVENT: tuple[FrozenDict, FrozenDict] = (
    FrozenDict({"type": "toss", "up": False}), FrozenDict({"type": "toss", "up": True})
)
_FLIP_EVENT: tuple[tuple[FrozenDict, FrozenDict], ...] = tuple(
    (FrozenDict({"type": "flip", "seat": s, "up": False}), FrozenDict({"type": "flip", "seat": s, "up": True}))
    for s in range(4)
)
"""``_FLIP_EVENT[seat][up]``, ``up`` as it is after the flip."""
_ROLL_EVENT: tuple[FrozenDict, ...] = tuple(FrozenDict({"type": "roll", "seat": s}) for s in range(4))
_ROTATE_EVENT: dict[int, tuple[tuple[FrozenDict, ...], ...]] = {
    n: tuple(tuple(FrozenDict({"type": "rotate", "seat": seat, "suit": "CDHS"[suit],
                               "suits": _SUITS_LIST[n][_ROTATION[n][seat][suit]]})
                   for suit in range(4))
             for seat in range(n))
    for n in POSITIONS
}
"""``_ROTATE_EVENT[n][seat][suit]``: ``seat`` turns the card so that ``suit`` faces it."""
_VALUE_BIT: tuple[int, ...] = tuple(1 << v for v in VALUE)
"""A bit per value, so that a trick finds its values played twice without counting."""
_CANCELLED: dict[int, FrozenList] = {
    mask: FrozenList([v for v in VALUES if mask >> v & 1])
    for mask in range(1 << 13) if mask & 3 == 0 and bin(mask).count("1") <= 2
}
"""The trick event's ``cancelled`` (sorted values, shared) by the bits of the values played twice
(at most two values with four players)."""


def _ascii_number(text: str) -> bool:
    t = text.strip()
    return t.isascii() and t.isdigit() and len(t) <= 2


def dice_of(action: int) -> tuple[int, int]:
    k = action - DICE
    return k // 6 + 1, k % 6 + 1


def card_id(card: Card | str) -> int:
    """The id of a card in this game's deck; raises NotationError for cards not in it."""
    if isinstance(card, str):
        known = _ID_BY_STR.get(card)
        if known is not None:
            return known
    c = Card.parse(card) if isinstance(card, str) else card
    try:
        return _CARD_ID[c]
    except KeyError:
        raise NotationError(f"{c} is not in the UP&DOWN deck (2 to Q, no kings or aces)") from None


FULL_DECK = "full"
"""The ``deck`` option's default: the rulebook's 44 cards and two six-sided dice."""
_DECKS: dict[str, tuple[tuple[int, ...], int, dict[int | None, tuple[int, ...]]]] = {
    FULL_DECK: (_ALL_CARDS, 0, _DICE_BY_TRUMP)
}


def deck_of(spec: str) -> tuple[tuple[int, ...], int, dict[int | None, tuple[int, ...]]]:
    """The deck that the option ``deck`` names: its card ids (ascending), the hand size (0: the
    rulebook's, by the number of players) and the dice outcomes by the old trump (see
    :func:`_rolls`). Raises OptionsError for a spec that names no deck."""
    known = _DECKS.get(spec)
    if known is not None:
        return known
    parts = spec.split(":")
    if len(parts) != 3 or not all(_ascii_number(p) for p in (parts[0], parts[2])):
        raise OptionsError(f"deck must be full or TOP:SUITS:HAND (a research deck, like 4:DS:2), not {spec!r}")
    top, letters, hand = int(parts[0]), parts[1], int(parts[2])
    if not 3 <= top <= 12:
        raise OptionsError(f"a research deck's highest value is 3 to 12 (J=11, Q=12), not {top}")
    if not letters or not set(letters) <= set("CDHS") or letters != "".join(sorted(set(letters), key="CDHS".index)):
        raise OptionsError(f"a research deck's suits are distinct letters of CDHS in that order, not {letters!r}")
    if hand < 1:
        raise OptionsError("a research deck deals at least one card to each player")
    suits = ["CDHS".index(x) for x in letters]
    cards = tuple(c for c in _ALL_CARDS if SUIT[c] in suits and VALUE[c] <= top)
    made = _DECKS[spec] = (cards, hand, _rolls((top + 1) // 2))
    return made


@mypyc_attr(native_class=False)  # mypyc: a native dataclass cannot subclass the interpreted GameOptions
@dataclasses.dataclass(frozen=True)
class UpDownOptions(GameOptions):
    # mypyc: a quoted Optional[...] keeps the text in __annotations__ (an unquoted union becomes `type`)
    rounds: "Optional[int]" = dataclasses.field(  # noqa: UP007
        default=None, metadata={"help": "rounds in the match (default: one per player)"}
    )
    tiebreak_rounds: int = dataclasses.field(
        default=0, metadata={"help": "extra rounds, at most, while the lead is shared at the end"}
    )
    deck: str = dataclasses.field(
        default=FULL_DECK,
        metadata={"help": "research only: full, or TOP:SUITS:HAND, a reduced deck (values 2 to TOP of "
                          "SUITS, HAND cards each, dice of ceil(TOP/2) faces)", "research": True},
    )

    def check(self, players: int) -> None:
        if self.rounds is not None and not 1 <= self.rounds <= 50:
            raise OptionsError(f"rounds must be 1 to 50, not {self.rounds}")
        if not 0 <= self.tiebreak_rounds <= 20:
            raise OptionsError(f"tiebreak_rounds must be 0 to 20, not {self.tiebreak_rounds}")
        cards, hand, _ = deck_of(self.deck)
        if hand and players in HAND_SIZE:
            if hand > HAND_SIZE[players]:
                raise OptionsError(f"a research deck's hands are at most the rulebook's "
                                   f"({HAND_SIZE[players]} for {players} players), not {hand}")
            if hand * players > len(cards):
                raise OptionsError(f"the deck {self.deck} has {len(cards)} cards: too few for "
                                   f"{players} hands of {hand}")

    def planned_rounds(self, players: int) -> int:
        return self.rounds if self.rounds is not None else players


class Phase(IntEnum):
    DEAL = 0
    DICE = 1
    TOSS = 2
    ORIENT = 3
    LEAD = 4
    CHOOSE = 5
    OVER = 6


_PHASE_NAMES: Final = tuple(p.name.lower() for p in Phase)
"""A view's ``phase`` by phase number (``Phase(n).name.lower()`` costs half a microsecond a view)."""


_DEAL, _DICE, _TOSS, _ORIENT, _LEAD, _CHOOSE, _OVER = (int(p) for p in Phase)


class UpDownGame(Game[UpDownOptions]):
    id = "updown"
    name = "UP&DOWN"
    min_players = 2
    max_players = 4
    rulebook = "000_118184b70408f7ee.txt (English), 002_3d6a94e6d91e5853.txt (German)"
    Options = UpDownOptions
    bench_players = 4
    bench_options = {"rounds": 1}

    def _new_state(self, players: int, options: UpDownOptions) -> UpDownState:
        return UpDownState(self, players, options)

    def action_to_str(self, action: int) -> str:
        if 0 <= action < NUM_CARDS:
            return CARD_STR[action]
        if action == FLIP:
            return "flip"
        if ROTATE <= action < ROTATE + 4:
            return f"rotate {Suit(action - ROTATE).letter}"
        if action == ROLL:
            return "roll"
        if DICE <= action < DICE + 36:
            a, b = dice_of(action)
            return f"{a}+{b}"
        if action in (TOSS_UP, TOSS_DOWN):
            return "UP" if action == TOSS_UP else "DOWN"
        if ORIENT <= action < ORIENT + 4:
            return Suit(action - ORIENT).letter
        raise NotationError(f"{action} is not an UP&DOWN action id (0 to {NUM_ACTIONS - 1})")

    def parse_action(self, text: str) -> int:
        t = " ".join(text.strip().split())
        low = t.lower()
        if low == "flip":
            return FLIP
        if low == "roll":
            return ROLL
        if low in ("up", "down"):
            return TOSS_UP if low == "up" else TOSS_DOWN
        if low.startswith(("rotate ", "rot ")):
            return ROTATE + Suit.parse(t.split(" ", 1)[1])
        if "+" in t:
            left, _, right = t.partition("+")
            if _ascii_number(left) and _ascii_number(right):
                a, b = int(left), int(right)
                if 1 <= a <= 6 and 1 <= b <= 6:
                    return DICE + 6 * (a - 1) + (b - 1)
            raise NotationError(f"{text!r} is not a roll of two dice (write it like 3+4)")
        try:
            return ORIENT + Suit.parse(t)
        except NotationError:
            pass
        try:
            card = Card.parse(t)
        except NotationError:
            raise NotationError(
                f"{text!r} is not an UP&DOWN action (write a card like QH or 10S, flip, rotate S or roll)"
            ) from None
        return card_id(card)

    def describe(self, event: Event, names: Sequence[str]) -> str:
        return describe_event(event, names)

    def world_sampler(self, view: View) -> UpDownWorlds:
        return UpDownWorlds(view)


GAME = UpDownGame()


class UpDownState(State):
    __slots__ = (
        "game", "players", "options", "log", "hand_size", "rounds", "tiebreaks", "phase", "round",
        "hands", "deck", "deal_seat", "aside", "trump", "dice", "up", "orient", "leader", "trick",
        "pending", "pot", "tricks", "totals", "discarded", "tricks_played", "history", "round_log_start",
        "_actors", "_all_seats", "_own", "_cards", "_rolls", "_options_view",
    )

    def __init__(self, game: UpDownGame, players: int, options: UpDownOptions, *, _empty: bool = False):
        self.game = game
        self.players = players
        self.options = options
        self._options_view: dict[str, Any] | None = None
        """``options.view()``, asked once per state (it hashes the options at every call)."""
        if _empty:
            return
        self.log: list[Event] = []
        cards, hand, rolls = deck_of(options.deck)
        self._cards: tuple[int, ...] = cards
        """The deck's card ids (the full deck's unless ``deck`` names a research deck)."""
        self._rolls: dict[int | None, tuple[int, ...]] = rolls
        """The dice outcomes allowed, by the trump they must differ from."""
        self.hand_size = hand or HAND_SIZE[players]
        self.rounds = options.planned_rounds(players)
        self.tiebreaks = 0
        self.round = -1
        self.totals = [0] * players
        self.history: list[dict[str, Any]] = []
        self._all_seats = tuple(range(players))
        self._start_round()

    # -- setup ----------------------------------------------------------------------------------
    def _start_round(self) -> None:
        n = self.players
        self.round += 1
        self.round_log_start = len(self.log)
        self.phase = _DEAL
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.deck = list(self._cards)
        self.deal_seat = 0
        self.aside: list[int] = []
        self.trump: int | None = None
        self.dice: tuple[int, int] | None = None
        self.up: bool | None = None
        self.orient: int | None = None
        self.leader = -1
        self.trick = 0
        self.pending: list[int | None] = [None] * n
        self.pot = 0
        self.tricks = [0] * n
        self.discarded = 0
        # This round's finished tricks, each as its cards by seat (one append per trick; ``played``
        # reads them by seat).
        self.tricks_played: list[list[int]] = []
        self._actors: tuple[int, ...] = ()
        self._own: tuple[int, ...] = ()

    @property
    def played(self) -> list[list[int]]:
        """The cards each seat has played in this round's finished tricks, in order (new lists)."""
        return [[cards[seat] for cards in self.tricks_played] for seat in range(self.players)]

    def suit_of(self, seat: int) -> Suit:
        """The suit that faces ``seat`` now."""
        assert self.orient is not None
        return Suit(self._own[seat])

    def suits(self) -> list[Suit]:
        return [Suit(x) for x in self._own]

    def _letters(self) -> list[str]:
        return list(_SEAT_LETTERS[self.players][self.orient]) if self.orient is not None else []

    # -- who acts -------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == _OVER

    def is_chance(self) -> bool:
        return self.phase < _LEAD

    def actors(self) -> tuple[int, ...]:
        return self._actors  # kept up to date by every transition

    # -- chance ---------------------------------------------------------------------------------
    def chance_label(self) -> str:
        phase = self.phase
        if phase == _DEAL:
            return f"deal {self.deal_seat}"
        if phase == _DICE:
            return "dice"
        if phase == _TOSS:
            return "toss"
        if phase == _ORIENT:
            return "orient"
        raise IllegalAction("this is not a chance step")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        if phase == _DEAL:
            p = 1.0 / len(self.deck)
            return [(c, p) for c in self.deck]
        if phase == _DICE:
            allowed = self._rolls[self.trump]
            return [(a, 1.0 / len(allowed)) for a in allowed]
        if phase == _TOSS:
            return [(TOSS_UP, 0.5), (TOSS_DOWN, 0.5)]
        if phase == _ORIENT:
            return [(ORIENT + s, 0.25) for s in Suit]
        raise IllegalAction("this is not a chance step")

    def sample_chance(self, rng: random.Random) -> int:
        # Every outcome of every chance step here is equally likely.
        phase = self.phase
        if phase == _DEAL:
            deck = self.deck
            return deck[int(rng.random() * len(deck))]
        if phase == _DICE:
            rolls = self._rolls[self.trump]
            return rolls[int(rng.random() * len(rolls))]
        if phase == _TOSS:
            return TOSS_UP if rng.random() < 0.5 else TOSS_DOWN
        if phase == _ORIENT:
            return ORIENT + int(rng.random() * 4)
        raise IllegalAction("this is not a chance step")

    # -- decisions ------------------------------------------------------------------------------
    # -- entry points (for mypyc: compiled code checks a typed argument itself, with TypeError,
    # and a bool gets through as an int): they take any object, refuse what is not an int with
    # IllegalAction as the protocol says, and hand ints to the typed methods they call.
    def legal_actions(self, seat: object) -> list[int]:
        return self._legal_actions(seat if type(seat) is int else self.check_seat(seat))

    def apply(self, action: object, seat: object = None) -> None:
        if type(action) is not int:
            raise not_an_action(action)
        self._apply(action, seat if seat is None or type(seat) is int else self.check_seat(seat))

    def view(self, seat: object) -> View:
        return self._view(seat if seat is None or type(seat) is int else self.check_seat(seat))

    def _legal_actions(self, seat: int) -> list[int]:
        # The usual ask, by the first seat still to act, goes straight to its list. ``is`` (not
        # ``==``) so that only the very int in ``actors`` takes this path: anything else, a bool
        # included, gets the full checks below.
        actors = self._actors
        if actors and actors[0] is seat:
            if self.phase == _CHOOSE:
                return list(self.hands[seat])
            return list(_LEAD_ACTIONS[self._own[seat]])
        if self.phase == _CHOOSE and 0 <= seat < self.players:
            return list(self.hands[seat]) if self.pending[seat] is None else []
        if self.phase == _LEAD and seat == self.leader:
            return list(_LEAD_ACTIONS[self._own[seat]])
        self.check_seat(seat)
        return []

    def _apply(self, action: int, seat: int | None = None) -> None:
        # The usual steps go straight to their phase's work: a chance outcome with no seat, a card
        # chosen by the first seat still to choose, the leader's change by the leader. Anything
        # else (and any step they refuse) takes the full checks at the end, in their usual order,
        # which name what is wrong. ``is`` (not ``==``) so that only the very int in ``actors``
        # or ``leader`` is taken as that seat here.
        if type(action) is not int:  # a float or bool would slip through 'in hand' checks
            raise not_an_action(action)
        phase = self.phase
        if seat is None:
            if phase == _DEAL:
                try:
                    self.deck.remove(action)
                except ValueError:
                    what = CARD_STR[action] if 0 <= action < NUM_CARDS else repr(action)
                    raise IllegalAction(f"cannot deal {what}: it is not in the undealt deck") from None
                hand = self.hands[self.deal_seat]
                hand.append(action)
                if len(hand) == self.hand_size:
                    self._hand_dealt(hand)
                return
            if phase < _LEAD:
                self._chance(action)
                return
        elif phase == _CHOOSE:
            actors = self._actors
            if actors[0] is seat:
                hand = self.hands[seat]
                try:
                    hand.remove(action)
                except ValueError:
                    pass  # not in the hand: the full checks below say so
                else:
                    # No event: who has chosen is in every view's "submitted"; what, nobody sees
                    # until the reveal.
                    self.pending[seat] = action
                    self._actors = actors = actors[1:]
                    if not actors:
                        self._resolve()
                    return
        elif phase == _LEAD and seat is self.leader:
            self._lead(action, seat)
            return
        if seat is not None:
            self.check_seat(seat)
        if seat is None or seat not in self._actors:
            if phase == _CHOOSE or phase == _LEAD:
                seat = self._seat_for(seat)
        if phase == _CHOOSE:
            self._choose(action, seat)  # type: ignore[arg-type]
        elif phase == _LEAD:
            self._lead(action, seat)  # type: ignore[arg-type]
        elif phase == _OVER:
            raise IllegalAction("the game is over")
        else:
            if seat is not None:
                raise IllegalAction(f"it is a chance step ({self.chance_label()}), no seat acts")
            self._chance(action)

    def _hand_dealt(self, hand: list[int]) -> None:
        """The dealing seat's ``hand`` is complete: tell that seat, and pass to the next one."""
        hand.sort()  # kept sorted from here on: legal_actions lists it as it is
        seat = self.deal_seat
        self.log.append({"type": "hand", "round": self.round + 1, "seat": seat,
                         "cards": [CARD_STR[c] for c in hand], "to": [seat]})
        self.deal_seat = seat = seat + 1
        if seat == self.players:
            self.aside = self.deck
            self.deck = []
            self.phase = _DICE

    def _chance(self, action: int) -> None:
        phase = self.phase
        if phase == _DICE:
            if action not in self._rolls[self.trump]:
                if action in self._rolls[None]:
                    raise IllegalAction(
                        f"the roll {GAME.action_to_str(action)} repeats the trump {self.trump}: re-roll"
                    )
                if DICE <= action < DICE + 36:  # a research deck's dice have fewer faces
                    faces = dice_of(max(self._rolls[None]))[0]
                    raise IllegalAction(f"{GAME.action_to_str(action)} is not a roll of this deck's dice "
                                        f"(1 to {faces})")
                raise IllegalAction(f"{GAME.action_name(action)} is not a roll of the dice")
            self.dice = dice = dice_of(action)
            self.trump = dice[0] + dice[1]
            self.log.append(_DICE_EVENT[action])
            if self.up is None:
                self.phase = _TOSS
            else:
                self.phase = _CHOOSE
                self._actors = self._all_seats
        elif phase == _TOSS:
            if action not in (TOSS_UP, TOSS_DOWN):
                raise IllegalAction(f"{GAME.action_name(action)} is not a toss of the U&D card (UP or DOWN)")
            self.up = up = action == TOSS_UP
            self.log.append(_TOSS_EVENT[up])
            self.phase = _ORIENT
        else:  # ORIENT
            if not ORIENT <= action < ORIENT + 4:
                raise IllegalAction(f"{GAME.action_name(action)} is not an orientation (the suit facing seat 0)")
            self.orient = orient = SIDES.index(Suit(action - ORIENT))
            self._own = _SEAT_SUITS[self.players][orient]
            self.leader = leader = _FIRST_LEADER[self.players][orient]
            self.log.append(_ORIENT_EVENT[self.players][orient])
            self.phase = _LEAD
            self._actors = _ONLY[leader]

    def _lead(self, action: int, seat: int) -> None:
        if action == FLIP:
            self.up = up = not self.up
            self.log.append(_FLIP_EVENT[seat][up])
            self.phase = _CHOOSE
            self._actors = self._all_seats
        elif ROTATE <= action < ROTATE + 4:
            suit = action - ROTATE
            if suit == self._own[seat]:
                raise IllegalAction(f"rotate to a suit other than your own ({Suit(suit).symbol})")
            self.orient = orient = _ROTATION[self.players][seat][suit]
            self._own = _SEAT_SUITS[self.players][orient]
            self.log.append(_ROTATE_EVENT[self.players][seat][suit])
            self.phase = _CHOOSE
            self._actors = self._all_seats
        elif action == ROLL:
            self.log.append(_ROLL_EVENT[seat])
            self.phase = _DICE
            self._actors = ()
        else:
            raise IllegalAction(f"the leader must flip, rotate or roll, not {GAME.action_name(action)}")

    def _choose(self, action: int, seat: int) -> None:
        # No event: who has chosen is in every view's "submitted"; what, nobody sees until the reveal.
        try:
            self.hands[seat].remove(action)
        except ValueError:
            if 0 <= action < NUM_CARDS:
                raise IllegalAction(f"{CARD_STR[action]} is not in seat {seat}'s hand") from None
            raise IllegalAction(f"choose a card from your hand, not {GAME.action_name(action)}") from None
        self.pending[seat] = action
        actors = self._actors
        self._actors = actors[1:] if actors[0] == seat else tuple(s for s in actors if s != seat)
        if not self._actors:
            self._resolve()

    # -- trick resolution -----------------------------------------------------------------------
    def _resolve(self) -> None:
        n = self.players
        cards: list[int] = self.pending  # type: ignore[assignment]  # all submitted
        trump: int = self.trump  # type: ignore[assignment]
        up: bool = self.up  # type: ignore[assignment]
        # The values played more than once, as bits (a loop, with no list of values or counting).
        seen = twice = 0
        for card in cards:
            bit = _VALUE_BIT[card]
            twice |= seen & bit
            seen |= bit
        own_suits = self._own
        strength = _STRENGTH[up][trump]
        ineligible: list[int] = []
        winner: int | None = None
        best = -1
        seat = 0
        for card in cards:
            if not _VALUE_BIT[card] & twice:  # not cancelled
                score = strength[card]
                if score == 99 or SUIT[card] == own_suits[seat]:  # the trump value is always eligible
                    if score > best:
                        best, winner = score, seat
                else:
                    ineligible.append(seat)
            seat += 1
        last = self.trick == self.hand_size - 1
        pot = self.pot
        taken = discarded = 0
        if winner is not None:
            taken = pot + 1
            self.tricks[winner] += taken
            self.totals[winner] += taken
            pot = 0
        else:
            pot += 1
            if last:
                discarded = pot
                self.discarded += discarded
                pot = 0
        self.pot = pot
        leader = self.leader
        self.log.append({
            "type": "trick", "round": self.round + 1, "trick": self.trick + 1, "leader": leader,
            "up": up, "trump": trump, "suits": _SUITS_LIST[n][self.orient],  # type: ignore[index]
            "cards": [CARD_STR[c] for c in cards], "cancelled": _CANCELLED[twice], "ineligible": ineligible,
            "winner": winner, "taken": taken, "pot": pot, "discarded": discarded,
        })
        self.tricks_played.append(cards)  # the pending list itself: a new one follows
        self.pending = [None] * n
        self.leader = leader = (leader + 1) % n
        self.trick += 1
        if last:
            self._end_round()
        else:
            self.phase = _LEAD
            self._actors = _ONLY[leader]

    def _end_round(self) -> None:
        self.history.append({"tricks": list(self.tricks), "discarded": self.discarded})
        self.log.append({"type": "round", "round": self.round + 1, "tricks": list(self.tricks),
                         "discarded": self.discarded, "totals": list(self.totals)})
        if self.round + 1 < self.rounds:
            self._start_round()
            return
        best = max(self.totals)
        if self.totals.count(best) > 1 and self.tiebreaks < self.options.tiebreak_rounds:
            self.tiebreaks += 1
            self.rounds += 1
            self.log.append({"type": "tiebreak", "round": self.round + 2,
                             "tied": [s for s, t in enumerate(self.totals) if t == best]})
            self._start_round()
            return
        self.phase = _OVER
        self._actors = ()
        self.log.append({"type": "end", "totals": list(self.totals), "placings": _placings(self.totals)})

    def result(self) -> Result:
        if self.phase != _OVER:
            raise IllegalAction("the game is not over")
        return Result.from_scores(
            self.totals, details={"rounds": [dict(h) for h in self.history]}
        )

    def progress(self) -> Progress:
        """Rounds finished and each seat's tricks so far (the current round's count as they are won)."""
        return Progress(len(self.history), tuple(self.totals))

    # -- information ----------------------------------------------------------------------------
    def _set_options_view(self) -> dict[str, Any]:
        got = self._options_view = self.options.view()
        return got

    def _view(self, seat: int | None) -> View:
        if seat is not None and not 0 <= seat < self.players:
            self.check_seat(seat)  # raises, naming the seats (a call into interpreted code: only then)
        n = self.players
        v: View = {
            "game": GAME.id,
            "players": n,
            "seat": seat,
            "phase": _PHASE_NAMES[self.phase],
            "round": self.round + 1,
            "rounds": self.rounds,
            "trick": min(self.trick + 1, self.hand_size),
            "tricks_per_round": self.hand_size,
            "up": self.up,
            "trump": self.trump,
            "dice": list(self.dice) if self.dice else None,
            "suits": self._letters() or None,
            "leader": self.leader if self.leader >= 0 else None,
            "pot": self.pot,
            "hand_sizes": [len(h) for h in self.hands],
            "submitted": [s for s in range(n) if self.pending[s] is not None],
            "to_act": list(self.actors()),
            "tricks": list(self.tricks),
            "totals": list(self.totals),
            "discarded": self.discarded,
            "options": self._options_view if self._options_view is not None else self._set_options_view(),
            "log": self.visible_log(seat),
        }
        if seat is not None:
            v["hand"] = [CARD_STR[c] for c in sorted(self.hands[seat])]
            mine = self.pending[seat]
            v["choice"] = CARD_STR[mine] if mine is not None else None
        if self.phase == _OVER:
            v["result"] = self.result().to_dict()
        return v

    def clone(self) -> UpDownState:
        # Every field is set here, so no __init__ runs (pimc clones a state for every world it plays).
        c = UpDownState(self.game, self.players, self.options, _empty=True)  # type: ignore[arg-type]  # mypyc: __new__ runs __init__
        c._options_view = self._options_view
        c.game = self.game
        c.players = self.players
        c.options = self.options
        c.log = list(self.log)
        c.hand_size = self.hand_size
        c.rounds = self.rounds
        c.tiebreaks = self.tiebreaks
        c.phase = self.phase
        c.round = self.round
        c.hands = list(map(list.copy, self.hands))  # no comprehension's frame
        c.deck = list(self.deck)
        c.deal_seat = self.deal_seat
        c.aside = list(self.aside)
        c.trump = self.trump
        c.dice = self.dice
        c.up = self.up
        c.orient = self.orient
        c.leader = self.leader
        c.trick = self.trick
        c.pending = list(self.pending)
        c.pot = self.pot
        c.tricks = list(self.tricks)
        c.totals = list(self.totals)
        c.discarded = self.discarded
        c.tricks_played = list(self.tricks_played)  # a finished trick's list is never changed
        c.history = list(self.history)
        c.round_log_start = self.round_log_start
        c._actors = self._actors
        c._all_seats = self._all_seats
        c._own = self._own
        c._cards = self._cards
        c._rolls = self._rolls
        c._frozen_upto = self._frozen_upto
        c._visible_base = self._visible_snapshot()
        return c


def _placings(totals: list[int]) -> list[int]:
    """``Result.from_scores(totals).placings`` as a list, without building the Result: one more than
    the number of seats with more tricks (the first of equals in the sorted totals)."""
    ranked = sorted(totals, reverse=True)
    return [ranked.index(t) + 1 for t in totals]


def _fast_id(text: str) -> int:
    """``card_id`` for the notation the engine itself writes (a dict lookup), else parsed."""
    got = _ID_OF_STR.get(text)
    return got if got is not None else card_id(text)


_ID_OF_STR: dict[str, int] = {text: i for i, text in enumerate(CARD_STR)}


class UpDownWorlds(WorldSampler):
    """The worlds a seat's view allows. UP&DOWN shows nothing about the other hands but their sizes
    (any card may be chosen at any time), so the hidden cards (the other hands, their pending
    choices, the cards set aside or not yet dealt) are one pool, dealt uniformly into those places;
    every consistent world is equally likely. The other seats' deal events of the current round
    are retold from the new hands; those of earlier rounds are left out of the world's log."""

    def __init__(self, view: View):
        if view.get("game") != GAME.id:
            raise IllegalAction(f"not an {GAME.name} view")
        n = view["players"]
        seat = view["seat"]
        if type(seat) is not int or not 0 <= seat < n:
            raise IllegalAction("worlds are drawn from a seat's view, not a spectator's")
        options = GAME.Options.from_dict(view["options"])
        st = UpDownState(GAME, n, options, _empty=True)
        st._cards, _, st._rolls = deck_of(options.deck)
        st.hand_size = size = view["tricks_per_round"]
        st.rounds = view["rounds"]
        st.tiebreaks = st.rounds - options.planned_rounds(n)
        st.phase = phase = int(Phase[view["phase"].upper()])
        st.round = view["round"] - 1
        log: list[Event] = view["log"]
        if not all(type(e) is FrozenDict for e in log):
            log = [freeze(e) for e in log]
        start = len(log)
        if phase == _OVER:  # the last round's events end with its "round" and the "end" events
            start -= 2
        while start > 0 and log[start - 1]["type"] not in ("round", "tiebreak"):
            start -= 1
        segment = log[start:]
        sizes = list(view["hand_sizes"])
        deal_seat = next((s for s in range(n) if sizes[s] < size), n) if phase == _DEAL else n
        own_event = seat < deal_seat
        if own_event and (not segment or segment[0]["type"] != "hand" or segment[0]["seat"] != seat):
            raise IllegalAction("not a consistent view: its deal event is missing")
        tricks_played = [[_fast_id(c) for c in e["cards"]] for e in segment if e["type"] == "trick"]
        tricks = len(tricks_played)
        st.history = [{"tricks": list(e["tricks"]), "discarded": e["discarded"]}
                      for e in log if e["type"] == "round"]
        st.deal_seat = deal_seat
        st.trump = view["trump"]
        st.dice = (view["dice"][0], view["dice"][1]) if view["dice"] else None
        st.up = view["up"]
        suits = view["suits"]
        st.orient = None if suits is None else _SEAT_LETTERS[n].index(tuple(suits))
        st._own = _SEAT_SUITS[n][st.orient] if st.orient is not None else ()
        st.leader = view["leader"] if view["leader"] is not None else -1
        st.trick = tricks
        st.pot = view["pot"]
        st.tricks = list(view["tricks"])
        st.totals = list(view["totals"])
        st.discarded = view["discarded"]
        st.tricks_played = tricks_played
        st._actors = tuple(view["to_act"])
        st._all_seats = tuple(range(n))
        hand = [_fast_id(c) for c in view["hand"]]
        st.hands = [hand if s == seat else [] for s in range(n)]
        st.pending = [None] * n
        if view["choice"] is not None:
            st.pending[seat] = _fast_id(view["choice"])
        st.deck, st.aside = [], []
        # The hidden cards and where they may be: each other hand, each other pending choice,
        # then the rest (undealt during the deal, set aside after it).
        seen = set(hand) | {c for p in tricks_played for c in p}
        if st.pending[seat] is not None:
            seen.add(st.pending[seat])  # type: ignore[arg-type]
        self.pool = [c for c in st._cards if c not in seen]
        submitted = set(view["submitted"])
        self.bins: list[tuple[int, bool]] = []  # (seat, is its pending choice)
        self.sizes: list[int] = []
        for s in range(n):
            if s != seat:
                self.bins.append((s, False))
                self.sizes.append(sizes[s])
                if s in submitted:
                    self.bins.append((s, True))
                    self.sizes.append(1)
        self.sizes.append(len(self.pool) - sum(self.sizes))
        if self.sizes[-1] < 0:
            raise IllegalAction("not a consistent view: more cards held than there are")
        rest = segment[1:] if own_event else segment
        hands_dealt: list[Event | None] = [segment[0] if s == seat else None for s in range(deal_seat)]
        st.log = [*log[:start], *hands_dealt, *rest]  # type: ignore[list-item]  # slots filled by draw()
        st.round_log_start = start
        self.slots = [(start + s, s) for s in range(deal_seat) if s != seat]
        self.round_no = st.round + 1
        self.skeleton = st

    def draw(self, rng: random.Random) -> UpDownState:
        return self.build(free_deal(self.pool, self.sizes, rng))

    def build(self, parts: Sequence[Sequence[int]]) -> UpDownState:
        """The world in which the hidden cards are ``parts``: one list per place of :attr:`bins`
        (sizes :attr:`sizes`), then the rest (undealt or set aside). A model of how the others
        play may place them itself and build the world here."""
        world = self.skeleton.clone()
        for (s, is_choice), cards in zip(self.bins, parts):
            if is_choice:
                world.pending[s] = cards[0]
            else:
                world.hands[s] = sorted(cards)
        if world.phase == _DEAL:
            world.deck = list(parts[-1])
        else:
            world.aside = list(parts[-1])
        log = world.log
        played = world.played
        for index, s in self.slots:
            dealt = played[s] + world.hands[s]
            choice = world.pending[s]
            if choice is not None:
                dealt.append(choice)
            log[index] = FrozenDict({"type": "hand", "round": self.round_no, "seat": s,
                                     "cards": FrozenList([CARD_STR[c] for c in sorted(dealt)]),
                                     "to": FrozenList([s])})
        world._frozen_upto = len(log)
        return world


# -- explanations -------------------------------------------------------------------------------


def describe_event(event: Event, names: Sequence[str]) -> str:
    """One line that tells people what happened and, for a trick, why."""
    kind = event["type"]
    if kind == "hand":
        return f"{names[event['seat']]} is dealt {' '.join(pretty_card(c) for c in event['cards'])}."
    if kind == "dice":
        a, b = event["dice"]
        return f"Dice {a}+{b}: the trump value is {_value_name(event['trump'])}."
    if kind == "toss":
        return f"The U&D card lands {'UP' if event['up'] else 'DOWN'}."
    if kind == "orient":
        return f"Suits: {_suit_list(event['suits'], names)}. {names[event['leader']]} leads first."
    if kind == "flip":
        return f"{names[event['seat']]} flips the card: {'UP' if event['up'] else 'DOWN'}."
    if kind == "rotate":
        return (f"{names[event['seat']]} rotates the card to {suit_symbol(event['suit'])}: "
                f"{_suit_list(event['suits'], names)}.")
    if kind == "roll":
        return f"{names[event['seat']]} rolls the dice."
    if kind == "trick":
        return _describe_trick(event, names)
    if kind == "round":
        scores = ", ".join(f"{names[s]} {t}" for s, t in enumerate(event["tricks"]))
        extra = f"; {event['discarded']} discarded" if event["discarded"] else ""
        return f"Round {event['round']} over. Tricks: {scores}{extra}."
    if kind == "tiebreak":
        tied = " and ".join(names[s] for s in event["tied"])
        return f"{tied} are tied for the lead: tie-break round {event['round']}."
    if kind == "end":
        ranking = sorted(range(len(event["totals"])), key=lambda s: event["placings"][s])
        return "Final: " + ", ".join(
            f"{event['placings'][s]}. {names[s]} {event['totals'][s]}" for s in ranking
        ) + "."
    return str(event)


def _value_name(v: int) -> str:
    return {11: "11 (jacks)", 12: "12 (queens)"}.get(v, str(v))


def _plural(v: int) -> str:
    return {11: "jacks", 12: "queens"}.get(v, f"{v}s")


def _suit_list(letters: Sequence[str], names: Sequence[str]) -> str:
    return ", ".join(f"{names[s]} {suit_symbol(x)}" for s, x in enumerate(letters))


def _describe_trick(e: Event, names: Sequence[str]) -> str:
    cards = e["cards"]
    played = ", ".join(f"{names[s]} {pretty_card(c)}" for s, c in enumerate(cards))
    head = f"Trick {e['trick']} ({'UP' if e['up'] else 'DOWN'}, trump {e['trump']}): {played}."
    why: list[str] = []
    if e["cancelled"]:
        why.append("the " + " and the ".join(_plural(v) for v in e["cancelled"]) + " cancel")
    for s in e["ineligible"]:
        why.append(f"{pretty_card(cards[s])} is not {names[s]}'s suit ({suit_symbol(e['suits'][s])})")
    winner = e["winner"]
    if winner is not None:
        card = cards[winner]
        contenders = [s for s, c in enumerate(cards)
                      if s not in e["ineligible"] and Card.parse(c).rank not in e["cancelled"]]
        if Card.parse(card).rank == e["trump"]:
            how = "the trump"
        elif len(contenders) == 1:
            how = "the only card that can win"
        else:
            how = "the highest eligible card" if e["up"] else "the lowest eligible card"
        won = f"{names[winner]} wins with {pretty_card(card)}, {how}"
        if e["taken"] > 1:
            won += f", and takes the pot: {e['taken']} tricks"
    elif e["discarded"]:
        won = f"No card can win; the last trick and the pot ({e['discarded']} tricks in all) are discarded"
    else:
        won = f"No card can win: the trick goes into the pot ({e['pot']} in it)"
    reasons = ("; ".join(why) + ". ") if why else ""
    return f"{head} {reasons[:1].upper() + reasons[1:]}{won}."
