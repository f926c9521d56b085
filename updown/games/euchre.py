"""Euchre, rule 004 in ``shared/rules`` (with the Euchre readings of ``shared/rules/README.md``).

Rules in brief. Four players, partners sit across (seats 0 and 2 against 1 and 3), play runs
clockwise (seat ``s`` is followed by ``s + 1``). 24 cards: 9, 10, J, Q, K, A of each suit. The
jack of trumps (right bower) is the highest card, then the other jack of the same colour (left
bower, which belongs to the trump suit for every purpose), then A K Q 10 9 of trumps; the other
suits rank A K Q J 10 9. Five cards each; of the four left over (the kitty) the top one is turned
face up and proposes trump.

First bidding round, from the dealer's left: pass, or order the up-card up (the dealer takes it
and discards a card from the original hand face down); the dealer may pass or pick it up. If all
four pass the up-card is turned down and, in the second round, each player from the dealer's left
may name another suit; with *stick the dealer* (the text's rule, on by default) the dealer may not
pass last. Going alone is declared with the bid (``order up alone``, ``pick up alone``, ``name H
alone``); the maker's partner then sits out and the lead and the turn pass over the absent seat.
Players follow the suit led (the effective suit: the left bower is a trump); trump beats every other
suit; the trick's winner leads the next. Scoring per deal: the makers' team scores 1 for three or
four tricks, 2 for all five (4 when the maker went alone); makers with fewer than three tricks are
euchred and the defenders score 2 (4 against a lone defender, see below). The deal passes to the
left after every deal; the first team to ``target`` (10) points wins.

Readings the project takes where the text is silent (see ``docs/notes-euchre.md``):

* The first dealer is a chance outcome (label ``dealer``, outcome the seat: ``dealer: 2``), as if drawn by lot; later dealers rotate
  clockwise. The deal is recorded card by card: five to each seat from the dealer's left
  (``deal K``), then the up-card (``up-card``); the other three kitty cards are never looked at
  and stay undealt (their identity never matters to the play).
* The dealer's discard must come from the original five (the text: "replace it with a card from his
  own hand"); it is private to the dealer.
* When the dealer's partner orders up alone, the dealer sits out: the up-card is not picked up (it
  stays out of play) and the dealer does not discard. The suit is still trump.
* With stick the dealer off, if all eight bids pass the hand is thrown in: no score, the deal
  passes on.
* Lone defender (option, off by default): once trump is made (after the dealer's discard), each
  defender in turn from the dealer's left may ``defend alone``; the first who does plays without
  a partner; a lone defender who euchres the makers scores 4. This is OpenSpiel's rule, so the two
  engines agree with the option on.
* ``deals`` (option) caps the match at that many deals (``deals=1``: one deal, as OpenSpiel plays);
  a match otherwise ends when a team reaches ``target`` at the end of a deal. A seat's score is its
  team's points; the team with more points places first (both seats), the other second; equal
  points share first place.

Research decks (option ``deck``, never offered for play; ``docs/research-variants.md``): the same
rules with fewer cards, small enough for exact solvers. ``deck="RANKS:SUITS:HAND"`` holds the ranks
``RANKS`` (letters of ``9TJQKA`` in that order, T for 10) of the suits ``SUITS`` (letters of
``CDHS`` in that order) and deals ``HAND`` cards (1 to 5) to each seat, then the up-card; the rest
stays undealt. The makers make with more than half the tricks and march with all of them. A bower
whose card is not in the deck does not exist (the trump suit's other cards rank as usual); the
second round may still name any suit but the turned-down one's, as the rulebook says, even one
with no card in the deck. Card and action ids are the full deck's: a research deck is a subset of
it. The default, ``deck="full"``, is the rulebook's game (``9TJQKA:CDHS:5`` plays the same games).
"""

from __future__ import annotations

import dataclasses
import random
from bisect import insort
from collections.abc import Sequence
from enum import IntEnum
from typing import Any, Final, Optional

from updown.core.cards import Card, Suit, pretty_card, suit_symbol
from updown.core.compiled import mypyc_attr
from updown.core.errors import IllegalAction, NotationError, OptionsError, not_an_action
from updown.core.options import GameOptions, research_deck_spec
from updown.core.frozen import FrozenDict, FrozenList, freeze
from updown.core.protocol import Event, Game, Progress, Result, State, View, WorldSampler
from updown.core.worlds import ConstrainedDeal

_COMPILED: Final = not __file__.endswith(".py")
"""Whether mypyc compiled this module (an extension module's file is not a ``.py``): a few hot
loops are written one way for each (``_find``)."""
_FLOAT: Final[tuple[float, ...]] = tuple(float(n) for n in range(25))
"""``_FLOAT[n] == n``, a float: ``r * _FLOAT[n]`` is the number ``r * n`` is, and compiled a native
product (a float times an int is a generic one)."""
_RANDOM_CLASS: Final = random.Random
_RANDOM: Final = random.Random.random
"""``random.Random``'s ``random``, the C method it inherits: called on an exact ``random.Random``
it draws the same number as ``rng.random()`` without looking the method up on the instance (whose
class may be any subclass: those go through ``rng.random()``)."""

# -- the deck -----------------------------------------------------------------------------------

RANKS: Final = (9, 10, 11, 12, 13, 14)
DECK: Final[tuple[Card, ...]] = tuple(Card(r, s) for s in Suit for r in RANKS)
"""Card id ``i`` is ``DECK[i]``: suit-major (C, D, H, S), rank 9 10 J Q K A."""
NUM_CARDS: Final = len(DECK)  # 24
HAND: Final = 5
SUIT: Final[tuple[int, ...]] = tuple(int(c.suit) for c in DECK)
RANK: Final[tuple[int, ...]] = tuple(c.rank for c in DECK)
CARD_STR: Final[tuple[str, ...]] = tuple(str(c) for c in DECK)
_CARD_ID: Final[dict[Card, int]] = {c: i for i, c in enumerate(DECK)}
_ID_BY_STR: Final[dict[str, int]] = {text: i for i, text in enumerate(CARD_STR)}
"""Ids by canonical text: bots read the cards of a view many times a decision."""
JACK: Final = 2  # index of the jack within a suit
SAME_COLOUR: Final = (3, 2, 1, 0)  # C<->S, D<->H
SUIT_LETTERS: Final = "CDHS"

# -- action ids: one space for decisions and chance outcomes --------------------------------------

DISCARD: Final = NUM_CARDS  # 24..47: the dealer discards card (a - DISCARD)
PASS: Final = DISCARD + NUM_CARDS  # 48
ORDER_UP: Final = PASS + 1  # 49: a non-dealer orders the up-card up (first round)
ORDER_UP_ALONE: Final = ORDER_UP + 1  # 50
PICK_UP: Final = ORDER_UP_ALONE + 1  # 51: the dealer accepts the up-card (first round)
PICK_UP_ALONE: Final = PICK_UP + 1  # 52
NAME: Final = PICK_UP_ALONE + 1  # 53..56: name suit (a - NAME) in the second round
NAME_ALONE: Final = NAME + 4  # 57..60
DEFEND_ALONE: Final = NAME_ALONE + 4  # 61 (lone defender option)
DEALER: Final = DEFEND_ALONE + 1  # 62..65: chance, the first dealer is seat (a - DEALER), written 0..3
NUM_ACTIONS: Final = DEALER + 4  # 66

_BID_NAMES: Final = {PASS: "pass", ORDER_UP: "order up", ORDER_UP_ALONE: "order up alone",
              PICK_UP: "pick up", PICK_UP_ALONE: "pick up alone", DEFEND_ALONE: "defend alone"}
_BID_ALIASES: Final = {**{v: k for k, v in _BID_NAMES.items()}, "accept": PICK_UP, "accept alone": PICK_UP_ALONE,
                "order it up": ORDER_UP, "order it up alone": ORDER_UP_ALONE, "i accept": PICK_UP}

# -- precomputed tables, so that play needs no arithmetic on cards --------------------------------


def _effective_suit(card: int, trump: int) -> int:
    s = SUIT[card]
    if card % 6 == JACK and s == SAME_COLOUR[trump]:
        return trump
    return s


def _power(card: int, trump: int, led: int) -> int:
    """How strongly ``card`` plays in a trick with this trump and led (effective) suit; 0 never wins."""
    eff = _effective_suit(card, trump)
    r = card % 6
    if eff == trump:
        if r == JACK:
            return 40 if SUIT[card] == trump else 39
        return 20 + r
    if eff == led:
        return 1 + r
    return 0


EFF: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(_effective_suit(c, t) for c in range(NUM_CARDS)) for t in range(4))
"""``EFF[trump][card]``: the suit the card belongs to for following and winning."""
POWER: Final[tuple[tuple[tuple[int, ...], ...], ...]] = tuple(
    tuple(tuple(_power(c, t, led) for c in range(NUM_CARDS)) for led in range(4)) for t in range(4)
)
"""``POWER[trump][led][card]``: the highest power in a trick wins it."""
RIGHT_BOWER: Final = tuple(s * 6 + JACK for s in range(4))
_ONLY: Final[tuple[tuple[int, ...], ...]] = tuple((s,) for s in range(4))
"""``_ONLY[seat]``: the actors when ``seat`` alone must act (typed as any tuple of ints: mypyc keeps
a ``tuple[int]`` unboxed and would build a new tuple at every store into ``_actors``)."""


def _seat_plan(out: int, defender: int) -> tuple[int, tuple[int, ...]]:
    """How many seats play a deal, and who plays after whom, when ``out`` sits out (-1: nobody)
    and ``defender`` defends alone (-1: nobody), so that the defender's partner sits out too."""
    absent = {out, (defender + 2) & 3 if defender >= 0 else -1}
    playing = [s for s in range(4) if s not in absent]
    after = tuple(next(n for n in ((s + k) & 3 for k in (1, 2, 3)) if n in playing) for s in range(4))
    return len(playing), after


SEAT_PLANS: Final = {(out, d): _seat_plan(out, d) for out in range(-1, 4) for d in range(-1, 4)}
"""``SEAT_PLANS[out, defender]``: (seats that play, the next seat in play after each seat)."""
_SEAT_PLAN: Final = tuple(SEAT_PLANS[out, d] for out in range(-1, 4) for d in range(-1, 4))
"""``SEAT_PLANS`` by ``5 * (out + 1) + defender + 1``: a tuple index rather than a tuple key to hash."""
LEFT_BOWER: Final = tuple(SAME_COLOUR[s] * 6 + JACK for s in range(4))


def _find(cards: list[int], card: int) -> int:
    """Where ``card`` is in ``cards``, or -1. Compiled, a loop on ints: cheaper than ``list.index``
    or ``in``, which compare Python objects one by one; in pure Python, ``list.index``'s C loop."""
    if not _COMPILED:
        try:
            return cards.index(card)
        except ValueError:
            return -1
    i = 0
    for c in cards:
        if c == card:
            return i
        i += 1
    return -1


def card_id(card: Card | str) -> int:
    """The id of a card in the Euchre deck; raises NotationError for cards not in it."""
    if isinstance(card, str):
        known = _ID_BY_STR.get(card)
        if known is not None:
            return known
    c = Card.parse(card) if isinstance(card, str) else card
    try:
        return _CARD_ID[c]
    except KeyError:
        raise NotationError(f"{c} is not in the Euchre deck (9, 10, J, Q, K, A)") from None


def team_of(seat: int) -> int:
    return seat & 1


FULL_DECK: Final = "full"
"""The ``deck`` option's default: the rulebook's 24 cards, five to each seat."""
RANK_LETTERS: Final = "9TJQKA"
"""The ranks of a research deck, in order (T for 10): a card's rank is ``id % 6``."""
_DECKS: Final[dict[str, tuple[tuple[int, ...], int]]] = {FULL_DECK: (tuple(range(NUM_CARDS)), HAND)}


def deck_of(spec: str) -> tuple[tuple[int, ...], int]:
    """The deck that the option ``deck`` names: its card ids (ascending) and the hand size.
    Raises OptionsError for a spec that names no deck, or one too small to deal."""
    known = _DECKS.get(spec)
    if known is not None:
        return known
    ranks, suits, hand = research_deck_spec(spec, RANK_LETTERS, "9TJQKA (T=10)", HAND, "9JA:DH:1")
    cards = tuple(s * 6 + r for s in range(4) if SUIT_LETTERS[s] in suits
                  for r in range(6) if RANK_LETTERS[r] in ranks)
    if len(cards) < 4 * hand + 1:
        raise OptionsError(f"the deck {spec} has {len(cards)} cards: too few for 4 hands of {hand} "
                           "and the up-card")
    made = _DECKS[spec] = (cards, hand)
    return made


@mypyc_attr(native_class=False)  # mypyc: a native dataclass cannot subclass the interpreted GameOptions
@dataclasses.dataclass(frozen=True)
class EuchreOptions(GameOptions):
    stick_the_dealer: bool = dataclasses.field(
        default=True, metadata={"help": "the dealer may not pass in the second round (the text's rule)"}
    )
    lone_defender: bool = dataclasses.field(
        default=False, metadata={"help": "a defender may defend alone (euchre scores 4)"}
    )
    target: int = dataclasses.field(default=10, metadata={"help": "points that win the match"})
    # mypyc: a quoted Optional[...] keeps the text in __annotations__ (an unquoted union becomes `type`)
    deals: "Optional[int]" = dataclasses.field(  # noqa: UP007
        default=None, metadata={"help": "stop after this many deals (1: a single deal); default: play to target"}
    )
    deck: str = dataclasses.field(
        default=FULL_DECK,
        metadata={"help": "research only: full, or RANKS:SUITS:HAND, a reduced deck (ranks of 9TJQKA, "
                          "T=10, of SUITS, HAND cards each)", "research": True},
    )

    def check(self, players: int) -> None:
        if not 1 <= self.target <= 100:
            raise OptionsError(f"target must be 1 to 100, not {self.target}")
        if self.deals is not None and not 1 <= self.deals <= 1000:
            raise OptionsError(f"deals must be 1 to 1000, not {self.deals}")
        deck_of(self.deck)


class Phase(IntEnum):
    DEALER = 0
    DEAL = 1
    UPCARD = 2
    BID1 = 3
    DISCARD = 4
    BID2 = 5
    DEFEND = 6
    PLAY = 7
    OVER = 8


_PHASE_NAMES: Final = tuple(p.name.lower() for p in Phase)
"""A view's ``phase`` by phase number (``Phase(n).name.lower()`` costs half a microsecond a view)."""


# Final ints: mypyc compiles them into the code (a plain module global is a dict lookup per use).
_DEALER: Final = 0
_DEAL: Final = 1
_UPCARD: Final = 2
_BID1: Final = 3
_DISCARD: Final = 4
_BID2: Final = 5
_DEFEND: Final = 6
_PLAY: Final = 7
_OVER: Final = 8
assert [_DEALER, _DEAL, _UPCARD, _BID1, _DISCARD, _BID2, _DEFEND, _PLAY, _OVER] == [int(p) for p in Phase]


class EuchreGame(Game[EuchreOptions]):
    id = "euchre"
    name = "Euchre"
    min_players = 4
    max_players = 4
    rulebook = "004_210b218e4252c3d4.txt"
    Options = EuchreOptions
    bench_players = 4
    bench_options = {"deals": 1}
    openspiel_peer = ("euchre", {"stick_the_dealer": True, "allow_lone_defender": False})

    def teams(self, players: int) -> tuple[tuple[int, ...], ...]:
        return ((0, 2), (1, 3))

    def new_state(self, players: int, options: EuchreOptions | None = None) -> EuchreState:
        """``Game.new_state``'s checks in the same order, here so that mypyc compiles them (a new
        state per deal is a measurable part of a random deal's cost through the interpreted one)."""
        if players != 4:
            raise IllegalAction(f"{self.name} is for {self.player_range()} players, not {players}")
        opts = options if options is not None else EuchreOptions()
        opts.check(players)
        return self._new_state(players, opts)

    def _new_state(self, players: int, options: EuchreOptions) -> EuchreState:
        return EuchreState(self, players, options)

    def action_to_str(self, action: int) -> str:
        if 0 <= action < NUM_CARDS:
            return CARD_STR[action]
        if DISCARD <= action < PASS:
            return "discard " + CARD_STR[action - DISCARD]
        if action in _BID_NAMES:
            return _BID_NAMES[action]
        if NAME <= action < NAME + 4:
            return "name " + SUIT_LETTERS[action - NAME]
        if NAME_ALONE <= action < NAME_ALONE + 4:
            return "name " + SUIT_LETTERS[action - NAME_ALONE] + " alone"
        if DEALER <= action < DEALER + 4:
            return str(action - DEALER)
        raise NotationError(f"{action} is not a Euchre action id (0 to {NUM_ACTIONS - 1})")

    def parse_action(self, text: str) -> int:
        t = " ".join(text.strip().split())
        low = t.lower()
        if low in _BID_ALIASES:
            return _BID_ALIASES[low]
        words = low.split(" ")
        if words[0] == "discard" and len(words) == 2:
            return DISCARD + card_id(t.split(" ")[1])
        if words[0] == "name" and len(words) in (2, 3):
            if len(words) == 3 and words[2] != "alone":
                raise NotationError(f"{text!r}: write name H or name H alone")
            suit = int(Suit.parse(t.split(" ")[1]))
            return (NAME_ALONE if len(words) == 3 else NAME) + suit
        if low in ("0", "1", "2", "3"):
            return DEALER + int(low)
        if words[0] == "dealer" and len(words) == 2 and words[1] in ("0", "1", "2", "3"):
            return DEALER + int(words[1])
        try:
            card = Card.parse(t)
        except NotationError:
            raise NotationError(
                f"{text!r} is not a Euchre action (write a card like JH or 10S, pass, order up, "
                "pick up, discard 9S, name H, name H alone, defend alone)"
            ) from None
        return card_id(card)

    def describe(self, event: Event, names: Sequence[str]) -> str:
        return describe_event(event, names)

    def world_sampler(self, view: View) -> EuchreWorlds:
        return EuchreWorlds(view)


GAME: Final = EuchreGame()

# -- events built once ----------------------------------------------------------------------------
# Events that differ only by seat, card or bid are built once at import, read-only and shared by
# every game: views freeze logged events anyway and a logged event is never changed, so a step
# logs a table entry instead of building a dict (a measurable part of a random game's cost).

_DEALER_EVENT: Final = tuple(FrozenDict({"type": "dealer", "seat": s}) for s in range(4))
_BID_EVENT: Final = tuple(tuple(tuple(FrozenDict({"type": "bid", "seat": s, "bid": GAME.action_to_str(a), "round": r})
                               for a in range(PASS, DEFEND_ALONE + 1)) for s in range(4)) for r in range(3))
"""``_BID_EVENT[round][seat][action - PASS]``: a bid (round 0: the lone defender's question)."""
_PICKUP_EVENT: Final = tuple(tuple(FrozenDict({"type": "pickup", "seat": s, "card": CARD_STR[c]}) for c in range(NUM_CARDS))
                      for s in range(4))
_DISCARD_EVENT: Final = tuple(tuple(FrozenDict({"type": "discard", "seat": s, "card": CARD_STR[c], "to": FrozenList([s])})
                             for c in range(NUM_CARDS)) for s in range(4))
_TO: Final = tuple(FrozenList([s]) for s in range(4))
"""``_TO[seat]``: the audience of an event only ``seat`` sees (shared, read-only)."""
_TURN_DOWN_EVENT: Final = tuple(FrozenDict({"type": "turn-down", "card": CARD_STR[c]}) for c in range(NUM_CARDS))


class EuchreState(State):
    __slots__ = (
        "game", "players", "options", "log", "phase", "deal_no", "dealer", "hands", "deck",
        "deal_seat", "upcard", "up_taken", "passes", "trump", "maker", "alone", "defender",
        "out", "discarded", "leader", "turn", "trick", "trick_cards", "trick_seats", "won",
        "played", "totals", "history", "deal_log_start", "_actors", "eff", "led", "active", "next_seat",
        "cards", "hand_size", "_options_view",
    )

    def __init__(self, game: EuchreGame, players: int, options: EuchreOptions, *, _empty: bool = False):
        self.game = game
        self.players = players
        self.options = options
        self._options_view: dict[str, Any] | None = None
        """``options.view()``, asked once per state (it hashes the options at every call)."""
        if _empty:
            return
        self.cards, self.hand_size = deck_of(options.deck)
        """The deck's card ids and the hand size (the full deck's unless ``deck`` names a research deck)."""
        self.log: list[Event] = []
        self.deal_no = 0
        self.dealer = -1
        self.totals = [0, 0]
        self.history: list[dict[str, Any]] = []
        self._start_deal()
        self.phase = _DEALER

    # -- setup ----------------------------------------------------------------------------------
    def _start_deal(self) -> None:
        self.deal_no += 1
        self.deal_log_start = len(self.log)
        self.phase = _DEAL
        self.hands: list[list[int]] = [[], [], [], []]
        self.deck = list(self.cards)
        self.deal_seat = (self.dealer + 1) & 3
        self.upcard = -1
        self.up_taken = False
        self.passes = 0
        self.trump = -1
        self.maker = -1
        self.alone = False
        self.defender = -1  # a lone defender's seat
        self.out = -1  # the seat sitting out
        self.discarded = -1
        self.leader = -1
        self.turn = -1
        self.trick = 0
        self.trick_cards: list[int] = []
        self.trick_seats: list[int] = []
        self.won = [0, 0, 0, 0]
        self.played: list[list[int]] = [[], [], [], []]
        self._actors: tuple[int, ...] = ()
        self.eff: tuple[int, ...] = EFF[0]  # EFF[trump] once trump is made
        self.led = -1  # the effective suit led to the current trick, -1 before its first card
        self._plan_seats()

    # -- who acts -------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == _OVER

    def is_chance(self) -> bool:
        return self.phase <= _UPCARD

    def actors(self) -> tuple[int, ...]:
        return self._actors

    # -- chance ---------------------------------------------------------------------------------
    def chance_label(self) -> str:
        phase = self.phase
        if phase == _DEAL:
            return f"deal {self.deal_seat}"
        if phase == _UPCARD:
            return "up-card"
        if phase == _DEALER:
            return "dealer"
        raise IllegalAction("this is not a chance step")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        phase = self.phase
        if phase == _DEAL or phase == _UPCARD:
            p = 1.0 / len(self.deck)
            return [(c, p) for c in self.deck]
        if phase == _DEALER:
            return [(DEALER + s, 0.25) for s in range(4)]
        raise IllegalAction("this is not a chance step")

    def sample_chance(self, rng: random.Random) -> int:
        phase = self.phase
        if phase == _DEAL or phase == _UPCARD:
            deck = self.deck  # every undealt card equally likely
            return deck[int((_RANDOM(rng) if type(rng) is _RANDOM_CLASS else rng.random()) * _FLOAT[len(deck)])]
        if phase == _DEALER:
            return DEALER + int((_RANDOM(rng) if type(rng) is _RANDOM_CLASS else rng.random()) * 4.0)
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
        if seat is None:
            self._chance_step(action)
        else:
            self._act(action, seat if type(seat) is int else self.check_seat(seat))

    def view(self, seat: object) -> View:
        return self._view(seat if seat is None or type(seat) is int else self.check_seat(seat))

    def _legal_actions(self, seat: int) -> list[int]:
        if seat != self.turn or seat < 0:
            self.check_seat(seat)
            return []
        phase = self.phase
        if phase == _PLAY:
            hand = self.hands[seat]  # sorted
            led = self.led
            if led >= 0:
                eff = self.eff
                follow = []
                for c in hand:
                    if eff[c] == led:
                        follow.append(c)
                if follow:
                    return follow
            return hand[:]
        if phase == _BID1:
            if seat == self.dealer:
                return [PASS, PICK_UP, PICK_UP_ALONE]
            return [PASS, ORDER_UP, ORDER_UP_ALONE]
        if phase == _BID2:
            up = SUIT[self.upcard]
            names = [NAME + s for s in range(4) if s != up] + [NAME_ALONE + s for s in range(4) if s != up]
            if seat == self.dealer and self.options.stick_the_dealer:
                return names
            return [PASS, *names]
        if phase == _DISCARD:
            up = self.upcard
            return [DISCARD + c for c in self.hands[seat] if c != up]
        if phase == _DEFEND:
            return [PASS, DEFEND_ALONE]
        return []

    def _apply(self, action: int, seat: int | None = None) -> None:
        if seat is None:
            self._chance_step(action)
        else:
            self._act(action, seat)

    # mypyc: ``apply`` calls these two rather than ``_apply``, so that the seat is a plain int
    # (an ``int | None`` is a boxed object, and every comparison with it a generic one).
    def _chance_step(self, action: int) -> None:
        """``apply`` without a seat: a chance outcome, or the one seat to act's action."""
        phase = self.phase
        if phase == _DEAL:  # the next card of the deal, to deal_seat
            deck = self.deck
            at = _find(deck, action)
            if at < 0:
                raise self._not_in_deck(action)
            deck.pop(at)
            hand = self.hands[self.deal_seat]
            hand.append(action)
            if len(hand) == self.hand_size:
                self._dealt(hand)
            return
        if phase <= _UPCARD:
            self._chance(action)
            return
        self._act(action, self._seat_for(None))  # the game is over, or the one seat to act

    def _act(self, action: int, seat: int) -> None:
        """``seat``'s action (``apply`` has checked that both are ints)."""
        if seat != self.turn or seat < 0:
            seat = self._seat_for(seat)  # raises, naming why this seat cannot act now
        phase = self.phase
        if phase == _PLAY:
            # A card to the trick, written out here rather than in a helper: it is most of the
            # steps of a game, and a call per step is a measurable part of its cost.
            hand = self.hands[seat]
            at = _find(hand, action)
            if at < 0:
                raise IllegalAction(f"{GAME.action_name(action)} is not legal for seat {seat} now")
            cards = self.trick_cards
            eff = self.eff
            if cards:
                led = self.led
                if eff[action] != led:
                    for c in hand:
                        if eff[c] == led:
                            raise IllegalAction(f"{CARD_STR[action]}: follow suit ({CARD_STR[c]} is in hand)")
            else:
                self.led = eff[action]
            hand.pop(at)
            self.played[seat].append(action)
            cards.append(action)
            seats = self.trick_seats
            seats.append(seat)
            if len(cards) < self.active:
                nxt = self.next_seat[seat]
                self.turn = nxt
                self._actors = _ONLY[nxt]
                return
            self._end_trick(cards, seats)
            return
        if action in self._legal_actions(seat):
            if phase == _BID1 or phase == _BID2:
                self._bid(action, seat)
            elif phase == _DISCARD:
                self._discard(action, seat)
            else:
                self._defend(action, seat)
            return
        raise IllegalAction(f"{GAME.action_name(action)} is not legal for seat {seat} now")

    # -- chance steps ---------------------------------------------------------------------------
    def _dealt(self, hand: list[int]) -> None:
        """``deal_seat``'s hand is full: it is sorted (and kept so) and shown to its seat."""
        seat = self.deal_seat
        hand.sort()
        self.log.append({"type": "hand", "deal": self.deal_no, "seat": seat,
                         "cards": [CARD_STR[c] for c in hand], "to": _TO[seat]})
        if seat == self.dealer:
            self.phase = _UPCARD
        else:
            self.deal_seat = (seat + 1) & 3

    def _not_in_deck(self, action: int) -> IllegalAction:
        what = CARD_STR[action] if 0 <= action < NUM_CARDS else GAME.action_name(action)
        return IllegalAction(f"cannot deal {what}: it is not in the undealt deck")

    def _chance(self, action: int) -> None:
        """The first dealer or the up-card (``apply`` deals the hands itself)."""
        if self.phase == _DEALER:
            if not DEALER <= action < DEALER + 4:
                raise IllegalAction(f"{GAME.action_name(action)} is not a choice of the first dealer")
            self.dealer = action - DEALER
            self.deal_seat = (self.dealer + 1) & 3
            self.log.append(_DEALER_EVENT[self.dealer])
            self.phase = _DEAL
            return
        if action not in self.deck:
            raise self._not_in_deck(action)
        self.deck.remove(action)
        self.upcard = action
        self.log.append({"type": "upcard", "deal": self.deal_no, "dealer": self.dealer,
                         "card": CARD_STR[action]})
        self.phase = _BID1
        self._to((self.dealer + 1) & 3)

    def _to(self, seat: int) -> None:
        self.turn = seat
        self._actors = _ONLY[seat]

    # -- bidding --------------------------------------------------------------------------------
    def _bid(self, action: int, seat: int) -> None:
        log = self.log
        if action == PASS:
            self.passes += 1
            log.append(_BID_EVENT[1 if self.phase == _BID1 else 2][seat][0])
            if seat != self.dealer:
                self._to((seat + 1) & 3)
            elif self.phase == _BID1:
                self.phase = _BID2
                log.append(_TURN_DOWN_EVENT[self.upcard])
                self._to((seat + 1) & 3)
            else:  # all eight passed: the hand is thrown in
                log.append({"type": "thrown-in", "deal": self.deal_no})
                self._end_deal(None)
            return
        self.maker = seat
        log.append(_BID_EVENT[1 if self.phase == _BID1 else 2][seat][action - PASS])
        if self.phase == _BID1:
            self.trump = SUIT[self.upcard]
            self.alone = action in (ORDER_UP_ALONE, PICK_UP_ALONE)
        else:
            self.alone = action >= NAME_ALONE
            self.trump = action - (NAME_ALONE if self.alone else NAME)
        if self.alone:
            self.out = (seat + 2) & 3
        self.eff = EFF[self.trump]
        log.append({"type": "trump", "deal": self.deal_no, "maker": seat, "suit": SUIT_LETTERS[self.trump],
                    "alone": self.alone, "out": self.out if self.out >= 0 else None})
        dealer = self.dealer
        if self.phase == _BID1 and self.out != dealer:
            insort(self.hands[dealer], self.upcard)
            self.up_taken = True
            log.append(_PICKUP_EVENT[dealer][self.upcard])
            self.phase = _DISCARD
            self._to(dealer)
            return
        self._after_trump()

    def _discard(self, action: int, seat: int) -> None:
        card = action - DISCARD
        self.hands[seat].remove(card)
        self.discarded = card
        self.log.append(_DISCARD_EVENT[seat][card])
        self._after_trump()

    def _after_trump(self) -> None:
        if self.options.lone_defender:
            self.phase = _DEFEND
            first = (self.dealer + 1) & 3
            if team_of(first) == team_of(self.maker):
                first = (first + 1) & 3
            self._to(first)
        else:
            self._start_play()

    def _defend(self, action: int, seat: int) -> None:
        if action == DEFEND_ALONE:
            self.defender = seat
            self.log.append(_BID_EVENT[0][seat][DEFEND_ALONE - PASS])
            self._start_play()
            return
        self.log.append(_BID_EVENT[0][seat][0])
        partner = (seat + 2) & 3
        # Defenders are asked in order from the dealer's left: the partner is asked next unless
        # they were asked already.
        if (partner - self.dealer - 1) & 3 > (seat - self.dealer - 1) & 3:
            self._to(partner)
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = _PLAY
        self.trick = 0
        self._plan_seats()
        lead = self.next_seat[self.dealer]
        self.leader = lead
        self._to(lead)

    def _plan_seats(self) -> None:
        """How many seats play this deal, and who plays after whom (absent seats are passed over)."""
        self.active, self.next_seat = _SEAT_PLAN[5 * self.out + self.defender + 6]

    def _active(self, seat: int) -> bool:
        if self.out == seat:
            return False
        return not (self.defender >= 0 and seat == ((self.defender + 2) & 3))

    def _next_active(self, seat: int) -> int:
        seat = (seat + 1) & 3
        while not self._active(seat):
            seat = (seat + 1) & 3
        return seat

    # -- play -----------------------------------------------------------------------------------
    def _end_trick(self, cards: list[int], seats: list[int]) -> None:
        """Every seat in play has played to the trick: the highest power wins it."""
        power = POWER[self.trump][self.led]
        best = winner = 0
        for i, c in enumerate(cards):  # the highest power wins
            if power[c] > best:
                best, winner = power[c], i
        win_seat = seats[winner]
        won = self.won
        won[win_seat] = won[win_seat] + 1  # mypyc: an int sum (``+=`` on a list item is a generic one)
        self.trick += 1
        self.log.append({"type": "trick", "deal": self.deal_no, "trick": self.trick, "leader": self.leader,
                         "seats": seats, "cards": [CARD_STR[c] for c in cards],
                         "winner": win_seat, "trump": SUIT_LETTERS[self.trump]})
        self.trick_cards = []
        self.trick_seats = []
        self.led = -1
        if self.trick == self.hand_size:
            self._end_deal(self.maker)
            return
        self.leader = win_seat
        self.turn = win_seat
        self._actors = _ONLY[win_seat]

    def _end_deal(self, maker: int | None) -> None:
        points = [0, 0]
        won = self.won
        teams = [won[0] + won[2], won[1] + won[3]]
        outcome = "thrown in"
        if maker is not None:
            mt = team_of(maker)
            made = teams[mt]
            if made == self.hand_size:  # all the tricks (five in the rulebook's game)
                points[mt] = 4 if self.alone else 2
                outcome = "alone march" if self.alone else "march"
            elif 2 * made > self.hand_size:  # more than half (three or four)
                points[mt] = 1
                outcome = "made"
            else:
                points[1 - mt] = 4 if self.defender >= 0 else 2
                outcome = "euchred alone" if self.defender >= 0 else "euchred"
        totals = self.totals
        t0 = totals[0] + points[0]
        t1 = totals[1] + points[1]
        totals[0] = t0
        totals[1] = t1
        deal_no = self.deal_no
        dealer = self.dealer
        trump = SUIT_LETTERS[self.trump] if self.trump >= 0 else None
        alone = self.alone
        defender = self.defender if self.defender >= 0 else None
        # The history's summary, and the score event: the same items after its type, then the totals
        # (written out: a dict display with ``**summary`` is a dict update and a resize compiled).
        self.history.append({"deal": deal_no, "dealer": dealer, "maker": maker, "trump": trump, "alone": alone,
                             "defender": defender, "tricks": teams, "outcome": outcome, "points": points})
        self.log.append({"type": "score", "deal": deal_no, "dealer": dealer, "maker": maker, "trump": trump,
                         "alone": alone, "defender": defender, "tricks": teams, "outcome": outcome,
                         "points": points, "totals": [t0, t1]})
        opts = self.options
        deals = opts.deals
        target = opts.target
        if (deals is not None and deal_no >= deals) or t0 >= target or t1 >= target:
            self.phase = _OVER
            self.turn = -1
            self._actors = ()
            self.log.append({"type": "end", "totals": list(self.totals), "placings": list(self._team_places())})
            return
        self.dealer = (self.dealer + 1) & 3
        self._start_deal()

    def result(self) -> Result:
        if self.phase != _OVER:
            raise IllegalAction("the game is not over")
        t = self.totals
        team_place = self._team_places()
        return Result((t[0], t[1], t[0], t[1]), (team_place[0], team_place[1], team_place[0], team_place[1]),
                      {"teams": list(t), "deals": [dict(h) for h in self.history]})

    def progress(self) -> Progress:
        """Deals finished (thrown-in deals too) and each seat's team points."""
        t = self.totals
        return Progress(len(self.history), (t[0], t[1], t[0], t[1]))

    def _team_places(self) -> tuple[int, int]:
        """Each team's placing: more points place first, equal points share first place."""
        t = self.totals
        return (1 if t[0] >= t[1] else 2, 1 if t[1] >= t[0] else 2)

    # -- information ----------------------------------------------------------------------------
    def _set_options_view(self) -> dict[str, Any]:
        got = self._options_view = self.options.view()
        return got

    def _view(self, seat: int | None) -> View:
        if seat is not None and not 0 <= seat < self.players:
            self.check_seat(seat)  # raises, naming the seats (a call into interpreted code: only then)
        phase = self.phase
        in_deal = phase > _UPCARD and phase != _OVER
        v: View = {
            "game": GAME.id,
            "players": 4,
            "seat": seat,
            "phase": _PHASE_NAMES[phase],
            "deal": self.deal_no,
            "dealer": self.dealer if self.dealer >= 0 else None,
            "upcard": CARD_STR[self.upcard] if self.upcard >= 0 else None,
            "up_taken": self.up_taken,
            "trump": SUIT_LETTERS[self.trump] if self.trump >= 0 else None,
            "maker": self.maker if self.maker >= 0 else None,
            "alone": self.alone,
            "defender": self.defender if self.defender >= 0 else None,
            "out": [s for s in range(4) if not self._active(s)] if in_deal else [],
            "leader": self.leader if self.leader >= 0 else None,
            "table": [[s, CARD_STR[c]] for s, c in zip(self.trick_seats, self.trick_cards)],
            "trick": min(self.trick + 1, self.hand_size),
            "tricks": list(self.won),
            "team_tricks": [self.won[0] + self.won[2], self.won[1] + self.won[3]],
            "hand_sizes": [len(h) for h in self.hands],
            "to_act": list(self._actors),
            "totals": list(self.totals),
            "target": self.options.target,
            "options": self._options_view if self._options_view is not None else self._set_options_view(),
            "log": self.visible_log(seat),
        }
        if seat is not None:
            v["hand"] = [CARD_STR[c] for c in sorted(self.hands[seat])]
            v["discard"] = CARD_STR[self.discarded] if seat == self.dealer and self.discarded >= 0 else None
        if phase == _OVER:
            v["result"] = self.result().to_dict()
        return v

    def voids(self) -> list[set[int]]:
        """The effective suits each seat has shown it lacks (by not following) in this deal."""
        out: list[set[int]] = [set(), set(), set(), set()]
        if self.trump < 0:
            return out
        eff = EFF[self.trump]
        tricks: list[tuple[list[int], list[int]]] = []
        for e in self.log[self.deal_log_start:]:
            if e["type"] == "trick":
                tricks.append((e["seats"], [card_id(c) for c in e["cards"]]))
        tricks.append((self.trick_seats, self.trick_cards))
        for seats, cards in tricks:
            if not cards:
                continue
            led = eff[cards[0]]
            for s, c in zip(seats[1:], cards[1:]):
                if eff[c] != led:
                    out[s].add(led)
        return out

    def clone(self) -> EuchreState:
        c = EuchreState(self.game, self.players, self.options, _empty=True)  # type: ignore[arg-type]
        c._options_view = self._options_view
        c.cards = self.cards
        c.hand_size = self.hand_size
        c.log = list(self.log)
        c.phase = self.phase
        c.deal_no = self.deal_no
        c.dealer = self.dealer
        c.hands = [list(h) for h in self.hands]
        c.deck = list(self.deck)
        c.deal_seat = self.deal_seat
        c.upcard = self.upcard
        c.up_taken = self.up_taken
        c.passes = self.passes
        c.trump = self.trump
        c.maker = self.maker
        c.alone = self.alone
        c.defender = self.defender
        c.out = self.out
        c.discarded = self.discarded
        c.leader = self.leader
        c.turn = self.turn
        c.trick = self.trick
        c.trick_cards = list(self.trick_cards)
        c.trick_seats = list(self.trick_seats)
        c.won = list(self.won)
        c.played = [list(p) for p in self.played]
        c.totals = list(self.totals)
        c.history = list(self.history)
        c.deal_log_start = self.deal_log_start
        c._actors = self._actors
        c.eff = self.eff
        c.led = self.led
        c.active = self.active
        c.next_seat = self.next_seat
        c._frozen_upto = self._frozen_upto
        c._visible_base = self._visible_snapshot()
        return c


def _fast_id(text: str) -> int:
    """``card_id`` for the notation the engine itself writes (a dict lookup), else parsed."""
    got = _ID_OF_STR.get(text)
    return got if got is not None else card_id(text)


_ID_OF_STR: Final[dict[str, int]] = {text: i for i, text in enumerate(CARD_STR)}


class EuchreWorlds(WorldSampler):
    """The worlds a seat's view allows, uniform over every consistent placement of the hidden
    cards: the other hands (none holding an effective suit its seat failed to follow in this
    deal; the dealer holding the up-card it picked up until it plays it), the dealer's face-down
    discard and the undealt cards. The other seats' deal events and the dealer's discard event of
    the current deal are retold from the new cards; those of earlier deals are left out."""

    def __init__(self, view: View):
        if view.get("game") != GAME.id:
            raise IllegalAction(f"not a {GAME.name} view")
        seat = view["seat"]
        if type(seat) is not int or not 0 <= seat < 4:
            raise IllegalAction("worlds are drawn from a seat's view, not a spectator's")
        st = EuchreState(GAME, 4, GAME.Options.from_dict(view["options"]), _empty=True)
        st.cards, st.hand_size = deck_of(st.options.deck)
        log: list[Event] = view["log"]
        if not all(type(e) is FrozenDict for e in log):
            log = [freeze(e) for e in log]
        st.phase = phase = int(Phase[view["phase"].upper()])
        start = len(log) - (2 if phase == _OVER else 0)
        while start > 0 and log[start - 1]["type"] != "score":
            start -= 1
        segment = log[start:]
        st.deal_no = view["deal"]
        st.dealer = dealer = view["dealer"] if view["dealer"] is not None else -1
        st.totals = list(view["totals"])
        st.history = [{k: v for k, v in e.items() if k not in ("type", "totals")}
                      for e in log if e["type"] == "score"]
        st.upcard = upcard = _fast_id(view["upcard"]) if view["upcard"] is not None else -1
        st.up_taken = up_taken = view["up_taken"]
        st.trump = SUIT_LETTERS.index(view["trump"]) if view["trump"] is not None else -1
        st.maker = view["maker"] if view["maker"] is not None else -1
        st.alone = view["alone"]
        st.out = (st.maker + 2) & 3 if st.alone else -1
        st.defender = view["defender"] if view["defender"] is not None else -1
        st.leader = view["leader"] if view["leader"] is not None else -1
        st._actors = tuple(view["to_act"])
        st.turn = st._actors[0] if st._actors else -1
        st.trick_seats = [s for s, _ in view["table"]]
        st.trick_cards = [_fast_id(c) for _, c in view["table"]]
        st.eff = EFF[st.trump] if st.trump >= 0 else EFF[0]
        st.led = st.eff[st.trick_cards[0]] if st.trick_cards else -1
        st._plan_seats()
        st.won = list(view["tricks"])
        played: list[list[int]] = [[], [], [], []]
        tricks = passes = 0
        voids: list[set[int]] = [set(), set(), set(), set()]
        eff = EFF[st.trump] if st.trump >= 0 else None
        trick_list: list[tuple[list[int], list[int]]] = []
        for e in segment:
            kind = e["type"]
            if kind == "trick":
                tricks += 1
                trick_list.append((list(e["seats"]), [_fast_id(c) for c in e["cards"]]))
            elif kind == "bid" and e["bid"] == "pass" and e["round"] in (1, 2):
                passes += 1
        trick_list.append((st.trick_seats, st.trick_cards))
        for seats, cards in trick_list:
            for s, c in zip(seats, cards):
                played[s].append(c)
            if eff is not None and cards:
                led = eff[cards[0]]
                for s, c in zip(seats[1:], cards[1:]):
                    if eff[c] != led:
                        voids[s].add(led)
        st.played = played
        st.trick = tricks
        st.passes = passes
        sizes = view["hand_sizes"]
        order = [(dealer + 1 + i) & 3 for i in range(4)] if dealer >= 0 else []
        if phase == _DEALER:
            dealt = 0
        elif phase == _DEAL:
            dealt = next((i for i, s in enumerate(order) if sizes[s] < st.hand_size), 4)
        else:
            dealt = 4
        st.deal_seat = order[dealt] if dealt < len(order) else (dealer if dealer >= 0 else 0)
        hand = sorted(_fast_id(c) for c in view["hand"])
        own_discard = _fast_id(view["discard"]) if view.get("discard") else -1
        known_up = up_taken and upcard not in played[dealer]
        hidden_discard = up_taken and phase != _DISCARD and seat != dealer
        st.discarded = own_discard
        st.hands = [list(hand) if s == seat else [] for s in range(4)]
        st.deck = []
        seen = set(hand) | {c for p in played for c in p}
        if upcard >= 0:
            seen.add(upcard)
        if own_discard >= 0:
            seen.add(own_discard)
        pool = [c for c in st.cards if c not in seen]
        # Bins: each other seat's hand, then the hidden discard (if any), then the undealt cards.
        self.others = [s for s in range(4) if s != seat]
        bin_sizes = [sizes[s] - (1 if known_up and s == dealer else 0) for s in self.others]
        if hidden_discard:
            bin_sizes.append(1)
        bin_sizes.append(len(pool) - sum(bin_sizes))
        if bin_sizes[-1] < 0:
            raise IllegalAction("not a consistent view: more cards held than there are")
        free = list(range(len(bin_sizes)))
        allowed: dict[int, list[int]] = {}
        for c in pool:
            if eff is None:
                allowed[c] = free
            else:
                suit = eff[c]
                allowed[c] = [b for b in free if b >= 3 or suit not in voids[self.others[b]]]
        self.deal = ConstrainedDeal(allowed, bin_sizes)
        self.hidden_discard = hidden_discard
        self.known_up = known_up
        # The world's log: this deal's hand events in deal order (other seats' retold), and the
        # dealer's discard event after the pick-up.
        head = 1 if segment and segment[0]["type"] == "dealer" else 0
        rest = list(segment[head:])
        own_at = order.index(seat) if order else 4
        own_event = own_at < dealt
        if own_event:
            if not rest or rest[0]["type"] != "hand" or rest[0]["seat"] != seat:
                raise IllegalAction("not a consistent view: its deal event is missing")
            own = rest.pop(0)
        world_log: list[Event | None] = [*log[:start + head]]
        self.hand_slots: list[tuple[int, int]] = []
        for i in range(dealt):
            s = order[i]
            if s == seat:
                world_log.append(own)
            else:
                self.hand_slots.append((len(world_log), s))
                world_log.append(None)
        self.discard_slot = -1
        for e in rest:
            world_log.append(e)
            if hidden_discard and e["type"] == "pickup":
                self.discard_slot = len(world_log)
                world_log.append(None)
        st.log = world_log  # type: ignore[assignment]  # the slots are filled by every draw
        st.deal_log_start = start
        self.skeleton = st

    def draw(self, rng: random.Random) -> EuchreState:
        world = self.skeleton.clone()
        parts = self.deal.draw(rng)
        dealer = world.dealer
        for s, cards in zip(self.others, parts):
            if self.known_up and s == dealer:
                cards.append(world.upcard)
            cards.sort()  # hands are kept sorted
            world.hands[s] = cards
        if self.hidden_discard:
            world.discarded = parts[3][0]
        world.deck = parts[-1]
        log = world.log
        deal_no = world.deal_no
        for index, s in self.hand_slots:
            dealt = world.played[s] + world.hands[s]
            if s == dealer and world.up_taken:
                dealt = [c for c in dealt if c != world.upcard]
                if world.discarded >= 0:
                    dealt.append(world.discarded)
            log[index] = FrozenDict({"type": "hand", "deal": deal_no, "seat": s,
                                     "cards": FrozenList([CARD_STR[c] for c in sorted(dealt)]),
                                     "to": FrozenList([s])})
        if self.discard_slot >= 0:
            log[self.discard_slot] = FrozenDict({"type": "discard", "seat": dealer,
                                                 "card": CARD_STR[world.discarded], "to": FrozenList([dealer])})
        world._frozen_upto = len(log)
        return world


# -- explanations -------------------------------------------------------------------------------


def describe_event(event: Event, names: Sequence[str]) -> str:
    """One line that tells people what happened and, for a trick, why."""
    kind = event["type"]
    if kind == "dealer":
        return f"{names[event['seat']]} deals first."
    if kind == "hand":
        return f"{names[event['seat']]} is dealt {' '.join(pretty_card(c) for c in event['cards'])}."
    if kind == "upcard":
        return f"Deal {event['deal']}, dealer {names[event['dealer']]}: the up-card is {pretty_card(event['card'])}."
    if kind == "bid":
        return f"{names[event['seat']]}: {event['bid']}."
    if kind == "turn-down":
        return f"Everyone passed: {pretty_card(event['card'])} is turned down; name another suit."
    if kind == "thrown-in":
        return "Everyone passed again: the hand is thrown in and the deal passes on."
    if kind == "trump":
        alone = f", going alone ({names[event['out']]} sits out)" if event["alone"] else ""
        return f"Trump is {suit_symbol(event['suit'])}, made by {names[event['maker']]}{alone}."
    if kind == "pickup":
        return f"{names[event['seat']]} picks up {pretty_card(event['card'])} and discards a card face down."
    if kind == "discard":
        return f"{names[event['seat']]} discards {pretty_card(event['card'])}."
    if kind == "trick":
        return _describe_trick(event, names)
    if kind == "score":
        return _describe_score(event, names)
    if kind == "end":
        t = event["totals"]
        winner = 0 if t[0] > t[1] else 1
        if t[0] == t[1]:
            return f"Final: {t[0]} to {t[1]}, a tie."
        return (f"Final: {names[winner]} and {names[winner + 2]} win {t[winner]} to {t[1 - winner]}.")
    return str(event)


def _describe_trick(e: Event, names: Sequence[str]) -> str:
    cards = e["cards"]
    played = ", ".join(f"{names[s]} {pretty_card(c)}" for s, c in zip(e["seats"], cards))
    trump = int(Suit.parse(e["trump"]))
    ids = [card_id(c) for c in cards]
    win_card = ids[e["seats"].index(e["winner"])]
    if win_card == RIGHT_BOWER[trump]:
        how = "the right bower"
    elif win_card == LEFT_BOWER[trump]:
        how = "the left bower"
    elif EFF[trump][win_card] == trump:
        how = "the highest trump" if any(EFF[trump][c] == trump for c in ids if c != win_card) else "the only trump"
    else:
        how = "the highest card of the suit led"
    return (f"Trick {e['trick']}: {played}. {names[e['winner']]} wins with "
            f"{pretty_card(cards[e['seats'].index(e['winner'])])}, {how}.")


def _describe_score(e: Event, names: Sequence[str]) -> str:
    t0, t1 = e["totals"]
    if e["maker"] is None:
        return f"Deal {e['deal']} thrown in, no score. Score {t0}-{t1}."
    maker = e["maker"]
    mt = maker & 1
    team = f"{names[mt]} and {names[mt + 2]}"
    made = e["tricks"][mt]
    pts = e["points"]
    if e["outcome"].startswith("euchred"):
        d = 1 - mt
        what = f"euchred with {made} tricks: {names[d]} and {names[d + 2]} score {pts[d]}"
    else:
        what = f"take {made} tricks ({e['outcome']}): {pts[mt]} point{'s' if pts[mt] != 1 else ''}"
    return f"Deal {e['deal']}: {team} {what}. Score {t0}-{t1}."
