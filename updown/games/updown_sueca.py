"""Up&Down with Sueca ranks (the Portuguese race from 20 points down to 0), rules 001 in ``shared/rules``.

Rules in brief. Four players, all against all, each starting at 20 points. 40 cards (no 8, 9, 10),
ranked in every suit A 7 K J Q 6 5 4 3 2. Play passes to the right. The dealer gives three cards to
each player, starting on his right; that first player chooses the trump: any suit, or "turn" the next
card they would receive (everyone sees it, its suit is trump, it stays in their hand). Then two more
cards each, in the same order. Hearts trump: everyone must play. Clubs trump: tricks count double.
In turn from the chooser, each player decides to play or sit out; a player who plays may exchange
cards with the stock (the 20 undealt cards), and a player who exchanges must play. Forced to play:
the trump chooser, anyone at 5 points or less, anyone who sat out the two previous deals, and
everyone when hearts are trump. If only one player plays, they take all five tricks without play.
The chooser leads; whoever leads holding the ace of trumps must lead it; follow suit if you can;
otherwise play a trump, unless you have none or only trumps lower than one already on the table; if
a trump is on the table and you cannot follow, play a higher trump if you have one. Highest trump
wins, else the highest card of the suit led; the winner leads the next trick. Scoring: each player
who played and took tricks subtracts their tricks (2 each with clubs); one who played and took none
adds 5 (10 with clubs); sitting out changes nothing. Deals repeat, the dealer moving to the right,
until someone is at 0 or less: the winner. RISCOS settlement: the winner receives the losers' final
scores, each loser pays their own; leaving a match costs 100 RISCOS.

Readings the project takes (see ``docs/notes-updown-sueca.md``):

* Seats are numbered in playing order, counter-clockwise: seat ``s + 1`` (mod 4) sits on seat
  ``s``'s right and acts after it. The first dealer is seat 0; the deal passes to ``dealer + 1``.
  The chooser is ``dealer + 1``.
* Each deal is dealt in packets: three cards to each seat from the chooser round to the dealer, the
  trump choice, then two each in the same order. Every card dealt, the turned card and every card
  drawn from the stock is a recorded chance outcome (labels ``deal S``, ``turn``, ``draw S``).
* The turned card is the first card of the chooser's second packet; the chooser then gets one more.
* Decisions go in turn from the chooser to the dealer; each player decides (``play``/``sit out``;
  a forced player does not decide, the ``plays`` event gives the reason), then, if playing,
  discards cards one at a time (``discard 3H``) and says ``done``; the stock then deals as many
  cards as were discarded. Discards are set aside face down, not returned to the stock (20 stock
  cards always cover four players exchanging five). Others see how many cards were exchanged.
* Whoever leads a trick holding the ace of trumps must lead it (every trick, not only the first).
* A player who cannot follow and holds only trumps lower than one on the table may play any card.
* Option ``regional``: hearts double the tricks (and the zero-trick penalty is 10) and clubs force
  everyone to play; clubs then count single. Option ``exchange_limit``: at most that many cards.
* End: after a deal's scoring, if any seat is at 0 or less the match ends. The winner is the lowest
  score; ties go to the one with more tricks in the last deal, then the first in playing order from
  that deal's chooser.
* Leaving: ``leave`` is accepted for any seat that has not left, at any point before the end. The
  seat goes on (a bot plays it) but its player pays 100 RISCOS to the house and takes no part in
  the settlement. The settlement winner is the best-placed seat that has not left (same ordering);
  every other seat that has not left pays ``max(score, 0)`` to that winner. Seats that left are
  placed after every seat that stayed. RISCOS and the house always sum to zero.

Research decks (options ``deck`` and ``deals``, never offered for play; ``docs/research-variants.md``):
the same rules with fewer cards, small enough for exact solvers. ``deck="RANKS:SUITS:HAND"`` holds the
ranks ``RANKS`` (letters of ``23456QJK7A``, Sueca's order from low to high, in that order) of the
suits ``SUITS`` (letters of ``CDHS`` in that order) and deals ``HAND`` cards (1 to 5) to each seat:
a first packet of ``min(3, HAND - 1)`` cards, the trump choice, then the rest (so the chooser can
always turn the next card: with one card each, it chooses before seeing any). The rest of the deck is
the stock. Where the deck changes a rule: a deal has ``HAND`` tricks (a lone player takes them
all); a player may exchange only as many cards as the stock holds when it exchanges (the full deck's
20 always cover four players exchanging five); the chooser may name any suit, even one with no card
in the deck (no trumps then, but hearts still make everyone play and clubs still count double).
``deals`` caps the match at that many deals (``deals=1``: one deal; the standing then is by score, as
at the end of a match); a research deck needs it (with fewer cards the race from 20 to 0 may not
end). Card and action ids are the full deck's: a research deck is a subset of it. The defaults
(``deck="full"``, no cap) are the rulebook's game; ``23456QJK7A:CDHS:5`` plays the same games.
"""

from __future__ import annotations

import dataclasses
import random
from bisect import bisect_left, bisect_right
from itertools import compress, product
from math import comb
from collections.abc import Sequence
from enum import IntEnum
from typing import Any, Callable, Final, NoReturn, Optional

from updown.core.cards import Card, Suit, pretty_card, suit_symbol
from updown.core.compiled import mypyc_attr
from updown.core.errors import IllegalAction, NotationError, OptionsError, not_an_action
from updown.core.options import GameOptions, research_deck_spec
from updown.core.frozen import FrozenDict, FrozenList, freeze
from updown.core.protocol import Event, Game, Progress, Result, State, View, WorldSampler
from updown.core.worlds import ConstrainedDeal, DealMixture

_COMPILED: Final = not __file__.endswith(".py")
"""Whether mypyc compiled this module (an extension module's file is not a ``.py``): a few hot
loops are written one way for each (``_find``)."""

# -- the deck -------------------------------------------------------------------------------------

RANKS: Final[tuple[int, ...]] = (2, 3, 4, 5, 6, 12, 11, 13, 7, 14)
"""Ranks from low to high in Sueca order: 2 3 4 5 6 Q J K 7 A."""
DECK: Final[tuple[Card, ...]] = tuple(Card(r, s) for s in Suit for r in RANKS)
"""Card id ``i`` is ``DECK[i]``: suit ``i // 10`` (C, D, H, S), strength ``i % 10`` (A is 9)."""
NUM_CARDS: Final = len(DECK)  # 40
_ALL_CARDS: Final = tuple(range(len(DECK)))
CARD_STR: Final[tuple[str, ...]] = tuple(str(c) for c in DECK)
_CARD_ID: Final[dict[Card, int]] = {c: i for i, c in enumerate(DECK)}
_ID_BY_STR: Final[dict[str, int]] = {text: i for i, text in enumerate(CARD_STR)}
"""Ids by canonical text: bots read the cards of a view many times a decision."""
PLAYERS: Final = 4
HAND: Final = 5
FIRST_PACKET: Final = 3
START_SCORE: Final = 20
LEAVE_PENALTY: Final = 100
CLUBS: Final = 0
DIAMONDS: Final = 1
HEARTS: Final = 2
SPADES: Final = 3
assert [CLUBS, DIAMONDS, HEARTS, SPADES] == [int(s) for s in Suit]

FULL_DECK: Final = "full"
"""The ``deck`` option's default: the rulebook's 40 cards, five to each seat."""
RANK_LETTERS: Final = "23456QJK7A"
"""The ranks of a research deck, in Sueca's order from low to high: a card's strength is ``id % 10``."""
SUIT_LETTERS: Final = "CDHS"
_DECKS: Final[dict[str, tuple[tuple[int, ...], int]]] = {FULL_DECK: (_ALL_CARDS, HAND)}


def deck_of(spec: str) -> tuple[tuple[int, ...], int]:
    """The deck that the option ``deck`` names: its card ids (ascending) and the hand size.
    Raises OptionsError for a spec that names no deck, or one too small to deal."""
    known = _DECKS.get(spec)
    if known is not None:
        return known
    ranks, suits, hand = research_deck_spec(spec, RANK_LETTERS, f"{RANK_LETTERS} (Sueca's order, low to high)", HAND,
                                            "K7A:DH:1")
    cards = tuple(s * 10 + r for s in range(4) if SUIT_LETTERS[s] in suits
                  for r in range(10) if RANK_LETTERS[r] in ranks)
    if len(cards) < PLAYERS * hand:
        raise OptionsError(f"the deck {spec} has {len(cards)} cards: too few for {PLAYERS} hands of {hand}")
    made = _DECKS[spec] = (cards, hand)
    return made


def first_packet(hand: int) -> int:
    """The cards each seat gets before the trump choice: three of five, and with smaller hands
    ``hand - 1``, so that the chooser can always turn the next card."""
    return min(FIRST_PACKET, hand - 1)

# -- action ids: one space for decisions and chance outcomes -------------------------------------

DISCARD: Final = NUM_CARDS  # 40..79: discard card ``a - DISCARD`` for the exchange
TRUMP: Final = DISCARD + NUM_CARDS  # 80..83: choose Suit(a - TRUMP) as trump
TURN: Final = TRUMP + 4  # 84: turn the next card
PLAY: Final = TURN + 1  # 85
SIT_OUT: Final = PLAY + 1  # 86
DONE: Final = SIT_OUT + 1  # 87: end of discarding
NUM_ACTIONS: Final = DONE + 1  # 88 actions that can be legal: 0..87
LEAVE: Final = 100
"""Leaving (``State.leave_action``) is never legal, so it stands apart from the legal ids."""
_TRUMP_ACTIONS: Final = (TRUMP, TRUMP + 1, TRUMP + 2, TRUMP + 3, TURN)


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
        raise NotationError(f"{c} is not in the Sueca deck (no 8, 9 or 10)") from None


def suit_of(card: int) -> int:
    return card // 10


def strength(card: int) -> int:
    return card % 10


@mypyc_attr(native_class=False)  # mypyc: a native dataclass cannot subclass the interpreted GameOptions
@dataclasses.dataclass(frozen=True)
class UpDownSuecaOptions(GameOptions):
    regional: bool = dataclasses.field(
        default=False, metadata={"help": "regional variant: hearts double the tricks, clubs force everyone to play"}
    )
    # mypyc: a quoted Optional[...] keeps the text in __annotations__ (an unquoted union becomes `type`)
    exchange_limit: "Optional[int]" = dataclasses.field(  # noqa: UP007
        default=None, metadata={"help": "most cards a player may exchange (default: all five)"}
    )
    deals: "Optional[int]" = dataclasses.field(  # noqa: UP007
        default=None,
        metadata={"help": "research only: stop after this many deals (1: a single deal); default: play "
                          "until a score is 0 or less", "research": True},
    )
    deck: str = dataclasses.field(
        default=FULL_DECK,
        metadata={"help": "research only: full, or RANKS:SUITS:HAND, a reduced deck (ranks of 23456QJK7A, "
                          "Sueca's order low to high, of SUITS, HAND cards each; the rest is the stock, and a "
                          "player may exchange only as many cards as it holds)", "research": True},
    )

    def check(self, players: int) -> None:
        if players != PLAYERS:
            raise OptionsError(f"Up&Down (Sueca) is for 4 players, not {players}")
        if self.exchange_limit is not None and not 0 <= self.exchange_limit <= HAND:
            raise OptionsError(f"exchange_limit must be 0 to {HAND}, not {self.exchange_limit}")
        if self.deals is not None and not 1 <= self.deals <= 1000:
            raise OptionsError(f"deals must be 1 to 1000, not {self.deals}")
        deck_of(self.deck)
        if self.deck != FULL_DECK and self.deals is None:
            raise OptionsError(f"deck={self.deck} needs deals (1 to 1000), a research deck's cap on the match: "
                               "with fewer cards a deal takes fewer points and the race from 20 to 0 may not end")

    @property
    def all_play_suit(self) -> int:
        return CLUBS if self.regional else HEARTS

    @property
    def double_suit(self) -> int:
        return HEARTS if self.regional else CLUBS

    @property
    def limit(self) -> int:
        return HAND if self.exchange_limit is None else self.exchange_limit


class Phase(IntEnum):
    DEAL = 0  # chance: the first packets (three cards each)
    TURN = 1  # chance: the turned card
    DEAL2 = 2  # chance: the second packets (two each)
    DRAW = 3  # chance: cards from the stock for an exchange
    TRUMP = 4  # the chooser names a suit or turns
    DECIDE = 5  # play or sit out
    EXCHANGE = 6  # discard cards one at a time, then done
    TRICK = 7  # play a card
    OVER = 8


# Final ints: mypyc compiles them into the code (a plain module global is a dict lookup per use).
_DEAL: Final = 0
_TURN: Final = 1
_DEAL2: Final = 2
_DRAW: Final = 3
_TRUMP: Final = 4
_DECIDE: Final = 5
_EXCHANGE: Final = 6
_TRICK: Final = 7
_OVER: Final = 8
assert [_DEAL, _TURN, _DEAL2, _DRAW, _TRUMP, _DECIDE, _EXCHANGE, _TRICK, _OVER] == [int(p) for p in Phase]
_PHASE_NAMES: Final = tuple(p.name.lower() for p in Phase)
"""A view's ``phase`` (looked up: making the enum member at every view costs more than the rest)."""
_DECISION_NAMES: Final[dict[int | None, str | None]] = {None: None, PLAY: "play", SIT_OUT: "sit out"}

# -- events built once ---------------------------------------------------------------------------
# Events that differ only by seat, card, suit or count are built once at import, read-only, and
# shared by every game: a view would freeze them anyway, and a logged event is never changed.
# This saves building a dict (and its "to" list) at every step.
_SEATS: Final = range(PLAYERS)
_DRAW_EVENT: Final = tuple(tuple(FrozenDict({"type": "draw", "seat": s, "card": CARD_STR[c], "to": FrozenList([s])})
                          for c in range(NUM_CARDS)) for s in _SEATS)
_DISCARD_EVENT: Final = tuple(tuple(FrozenDict({"type": "discard", "seat": s, "card": CARD_STR[c], "to": FrozenList([s])})
                             for c in range(NUM_CARDS)) for s in _SEATS)
_EXCHANGE_EVENT: Final = tuple(tuple(FrozenDict({"type": "exchange", "seat": s, "count": k}) for k in range(HAND + 1))
                        for s in _SEATS)
_SITS_OUT_EVENT: Final = tuple(FrozenDict({"type": "sits out", "seat": s}) for s in _SEATS)
_LONE_EVENT: Final = tuple(tuple(FrozenDict({"type": "lone", "seat": s, "tricks": n}) for s in _SEATS)
                    for n in range(HAND + 1))
"""``_LONE_EVENT[tricks][seat]``: a deal's tricks are the hand size (five but on a research deck)."""
_CHOSEN_TRUMP_EVENT: Final = tuple(tuple(FrozenDict({"type": "trump", "seat": s, "suit": "CDHS"[t], "turned": None})
                                  for t in range(4)) for s in _SEATS)
_TURNED_TRUMP_EVENT: Final = tuple(tuple(FrozenDict({"type": "trump", "seat": s, "suit": "CDHS"[c // 10],
                                              "turned": CARD_STR[c]}) for c in range(NUM_CARDS)) for s in _SEATS)
_TRICK_KEY: Final = tuple(tuple(tuple(100 + c if c // 10 == trump else (c if c // 10 == led else -1) for c in range(NUM_CARDS))
                         for led in range(4)) for trump in range(4))
"""``_TRICK_KEY[trump][led][card]``: what a card is worth in a trick, the highest winning: a trump
above every other card, then a card of the suit led; any other card cannot win (-1)."""
_ONE_ACTOR: Final = tuple((s,) for s in _SEATS)
"""``actors()`` when ``s`` acts (built once: asked at every decision)."""
_TO: Final = tuple(FrozenList([s]) for s in _SEATS)
"""The ``to`` of a seat's private events (read-only, so shared)."""
_PLAYED_PAIR: Final = tuple(tuple(FrozenList([s, CARD_STR[c]]) for c in range(NUM_CARDS)) for s in _SEATS)
"""A trick event's ``[seat, card]`` entries."""
# Why a seat has to play (``_forced_reason``), and its ``plays`` event for each reason (None: it chose to).
_CHOSE: Final = "chose the trump"
_ALL_PLAY: Final = tuple(f"{Suit(t).title.capitalize()} are trump" for t in range(4))
_FIVE_OR_LESS: Final = "has 5 points or less"
_SAT_OUT_TWICE: Final = "sat out the two previous deals"
_PLAYS_EVENT: Final[tuple[dict[str | None, FrozenDict], ...]] = tuple(
    {reason: FrozenDict({"type": "plays", "seat": s, "forced": reason})
     for reason in (None, _CHOSE, *_ALL_PLAY, _FIVE_OR_LESS, _SAT_OUT_TWICE)} for s in _SEATS)


class UpDownSuecaGame(Game[UpDownSuecaOptions]):
    id = "updown-sueca"
    name = "Up&Down (Sueca)"
    min_players = 4
    max_players = 4
    rulebook = "001_5d1047c9428b4060.txt"
    Options = UpDownSuecaOptions
    bench_players = 4

    def _new_state(self, players: int, options: UpDownSuecaOptions) -> UpDownSuecaState:
        return UpDownSuecaState(self, players, options)

    def action_to_str(self, action: int) -> str:
        if 0 <= action < NUM_CARDS:
            return CARD_STR[action]
        if DISCARD <= action < DISCARD + NUM_CARDS:
            return f"discard {CARD_STR[action - DISCARD]}"
        if TRUMP <= action < TRUMP + 4:
            return f"trump {Suit(action - TRUMP).letter}"
        names = {TURN: "turn", PLAY: "play", SIT_OUT: "sit out", DONE: "done", LEAVE: "leave"}
        if action in names:
            return names[action]
        raise NotationError(f"{action} is not an Up&Down (Sueca) action id (0 to {NUM_ACTIONS - 1}, {LEAVE})")

    def parse_action(self, text: str) -> int:
        t = " ".join(text.strip().split())
        low = t.lower()
        words = {"turn": TURN, "play": PLAY, "sit out": SIT_OUT, "sit": SIT_OUT, "sitout": SIT_OUT,
                 "pass": SIT_OUT, "done": DONE, "keep": DONE, "leave": LEAVE}
        if low in words:
            return words[low]
        head, _, rest = t.partition(" ")
        if head.lower() in ("discard", "swap", "exchange") and rest:
            return DISCARD + card_id(rest)
        if head.lower() == "trump" and rest:
            return TRUMP + Suit.parse(rest)
        try:
            card = Card.parse(t)
        except NotationError:
            raise NotationError(
                f"{text!r} is not an Up&Down (Sueca) action (write a card like 7S, trump H, turn, "
                "play, sit out, discard 3H, done or leave)"
            ) from None
        return card_id(card)

    def describe(self, event: Event, names: Sequence[str]) -> str:
        return describe_event(event, names)

    def world_sampler(self, view: View) -> SuecaWorlds:
        return SuecaWorlds(view)


GAME: Final = UpDownSuecaGame()


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


def overtrump_bounds(table: Sequence[tuple[int, int]], trump: int) -> tuple[int, int]:
    """Bounds (exclusive) of the trumps that a seat unable to follow must play if it holds one:
    those above the best trump on ``table`` (``(seat, card)`` pairs), or any trump when there is none."""
    return _overtrump(table if type(table) is list else list(table), trump)


def _overtrump(table: list[tuple[int, int]], trump: int) -> tuple[int, int]:
    """``overtrump_bounds`` of a list (mypyc: typed, so read without generic sequence calls)."""
    low = trump * 10 - 1
    for _, c in table:
        if c > low and c // 10 == trump:
            low = c
    return low, trump * 10 + 10


def playable(hand: list[int], table: Sequence[tuple[int, int]], trump: int) -> list[int]:
    """The cards of ``hand`` (card ids, sorted) that the play rules allow with ``table`` (the
    ``(seat, card)`` pairs played to this trick, in order) and ``trump`` (a suit): lead the ace of
    trumps if it is in hand; follow suit; else play a trump above the best one on the table if
    possible; else anything. Always a new list. The engine's legal cards, and what a bot reads
    a seat could have played in an earlier trick."""
    return _playable(hand, table if type(table) is list else list(table), trump)


def _playable(hand: list[int], table: list[tuple[int, int]], trump: int) -> list[int]:
    """``playable`` with a list for ``table`` (mypyc: typed, so read without generic sequence calls)."""
    if not table:
        ace = trump * 10 + 9
        if (_find(hand, ace) >= 0) if _COMPILED else ace in hand:
            return [ace]
        return hand[:]
    # A suit's cards are ten consecutive ids, so the cards of the suit led, or the trumps above
    # the table's, are a run of the sorted hand: bisect finds it in pure Python, and compiled, a
    # loop over five cards or so finds it faster than bisect (a call through Python).
    led = table[0][1] // 10 * 10
    if not _COMPILED:  # pure Python: bisect's C loops
        run = hand[bisect_left(hand, led):bisect_left(hand, led + 10)]
        if run:
            return run
        low, high = _overtrump(table, trump)
        return hand[bisect_right(hand, low):bisect_left(hand, high)] or hand[:]
    top = led + 10
    follow: list[int] = []
    for c in hand:
        if led <= c < top:
            follow.append(c)
    if follow:
        return follow
    low, high = _overtrump(table, trump)
    over: list[int] = []
    for c in hand:
        if low < c < high:
            over.append(c)
    return over or hand[:]


class UpDownSuecaState(State):
    # Slots: a state has more attributes than an instance dict shares keys for (30), and reading
    # a slot is faster than a dict lookup at every step.
    __slots__ = (
        "game", "players", "options", "options_view", "limit", "all_play_suit", "double_suit", "log",
        "scores", "sat_out", "left", "dealer", "deal_no", "history", "winner", "chooser", "deal_log_start",
        "phase", "deck", "hands", "discards", "played", "current", "trump", "turned", "decision",
        "forced", "exchanged", "to_draw", "leader", "trick_no", "table", "next_player", "tricks", "voids",
        "cards", "hand_size", "first_packet", "max_deals",
    )

    def __init__(self, game: UpDownSuecaGame, players: int, options: UpDownSuecaOptions, *,
                 _empty: bool = False):
        self.game = game
        self.players = players
        self.options = options
        self.options_view = options.view()  # read-only and made once per options: kept for every view
        # The options' derived figures, read at every exchange and every deal's decisions and score.
        self.all_play_suit = options.all_play_suit
        self.double_suit = options.double_suit
        self.cards, self.hand_size = deck_of(options.deck)
        """The deck's card ids and the hand size (the full deck's unless ``deck`` names a research deck)."""
        self.limit = min(options.limit, self.hand_size)
        self.first_packet = first_packet(self.hand_size)
        self.max_deals = 0 if options.deals is None else options.deals
        """The deals the match lasts at most (0: no cap, the rulebook's match)."""
        if _empty:
            return
        self.log: list[Event] = []
        self.scores = [START_SCORE] * PLAYERS
        self.sat_out = [0] * PLAYERS  # consecutive deals sat out, up to the previous deal
        self.left: list[bool] = [False] * PLAYERS
        self.dealer = PLAYERS - 1  # _start_deal moves it on to seat 0
        self.deal_no = 0
        self.history: list[dict[str, Any]] = []
        self.winner = -1
        self._start_deal()

    # -- setup ----------------------------------------------------------------------------------
    def _start_deal(self) -> None:
        self.deal_no += 1
        self.dealer = (self.dealer + 1) % PLAYERS
        self.chooser = (self.dealer + 1) % PLAYERS
        self.deal_log_start = len(self.log)
        self.phase = _DEAL
        self.deck = list(self.cards)  # undealt cards; after the deal, the stock
        # One list per seat (four seats), written out: cheaper than a comprehension at every deal.
        # A hand is kept in the order its cards came: its first three cards are the first packet
        # and the rest the second (the turned card first). It is sorted when its seat begins to
        # exchange (the stock's cards are added at the end) and again when the tricks begin.
        self.hands: list[list[int]] = [[], [], [], []]
        self.discards: list[list[int]] = [[], [], [], []]
        self.played: list[list[int]] = [[], [], [], []]
        self.current = self.chooser  # seat being dealt to, deciding, exchanging, or to play
        self.trump = -1
        self.turned = -1
        self.decision: list[int | None] = [None] * PLAYERS  # PLAY / SIT_OUT
        self.forced: list[str | None] = [None] * PLAYERS
        self.exchanged: list[int | None] = [None] * PLAYERS
        self.to_draw = 0
        self.leader = -1
        self.trick_no = 0
        self.table: list[tuple[int, int]] = []
        self.next_player: tuple[int, ...] = ()  # set when the tricks begin (``_next_players``)
        self.tricks = [0] * PLAYERS
        # What each seat's play revealed it does not hold: per seat, (suit, above) pairs meaning
        # "no card of ``suit`` stronger than ``above``" (above -1: none of the suit at all).
        self.voids: list[list[tuple[int, int]]] = [[], [], [], []]
        self.log.append({"type": "deal", "deal": self.deal_no, "dealer": self.dealer,
                         "chooser": self.chooser, "scores": list(self.scores)})
        if self.first_packet == 0:  # a research deck of one card each: the trump comes first
            self.phase = _TRUMP

    # -- who acts -------------------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.phase == _OVER

    def is_chance(self) -> bool:
        return self.phase <= _DRAW

    def actors(self) -> tuple[int, ...]:
        if _TRUMP <= self.phase < _OVER:
            return _ONE_ACTOR[self.current]
        return ()

    # -- chance ---------------------------------------------------------------------------------
    def chance_label(self) -> str:
        phase = self.phase
        if phase == _DEAL or phase == _DEAL2:
            return f"deal {self.current}"
        if phase == _TURN:
            return "turn"
        if phase == _DRAW:
            return f"draw {self.current}"
        raise IllegalAction("this is not a chance step")

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.is_chance():
            raise IllegalAction("this is not a chance step")
        p = 1.0 / len(self.deck)
        return [(c, p) for c in self.deck]

    def sample_chance(self, rng: random.Random) -> int:
        if self.phase > _DRAW:
            raise IllegalAction("this is not a chance step")
        deck = self.deck  # every undealt card equally likely
        return deck[int(rng.random() * len(deck))]

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
            if action != LEAVE and self.phase <= _DRAW:  # the usual chance step
                self._chance(action)
            else:
                self._apply(action, None)
        else:
            self._act(action, seat if type(seat) is int else self.check_seat(seat))

    def _act(self, action: int, seat: int) -> None:
        """``apply`` with a seat, both ints. mypyc: the seat is a plain int here (an ``int | None``
        is a boxed object, and every comparison with it a generic one)."""
        if seat == self.current and action != LEAVE:  # the seat to act naming itself
            phase = self.phase
            if phase == _TRICK:
                self._play(action, seat)
                return
            if phase == _EXCHANGE:
                self._exchange(action, seat)
                return
            if phase == _DECIDE:
                self._decide(action, seat)
                return
            if phase == _TRUMP:
                self._choose_trump(action, seat)
                return
        self._apply(action, seat)

    def view(self, seat: object) -> View:
        return self._view(seat if seat is None or type(seat) is int else self.check_seat(seat))

    def leave_action(self, seat: object) -> int | None:
        return self._leave_action(seat if type(seat) is int else self.check_seat(seat))

    def leave_cost(self, seat: object) -> int:
        return LEAVE_PENALTY if self.leave_action(seat) is not None else 0

    def _legal_actions(self, seat: int) -> list[int]:
        phase = self.phase
        if seat != self.current or phase < _TRUMP or phase == _OVER:
            self.check_seat(seat)
            return []
        if phase == _TRICK:
            return self._playable(seat)
        if phase == _DECIDE:
            return [PLAY, SIT_OUT]
        if phase == _EXCHANGE:
            out = [DONE]
            if len(self.discards[seat]) < self.limit and len(self.discards[seat]) < len(self.deck):
                for c in self.hands[seat]:  # sorted (_enter_exchange); a loop: cheaper than a comprehension
                    out.append(DISCARD + c)
            return out
        return list(_TRUMP_ACTIONS)  # _TRUMP

    def _playable(self, seat: int) -> list[int]:
        return _playable(self.hands[seat], self.table, self.trump)

    def _overtrump(self) -> tuple[int, int]:
        return _overtrump(self.table, self.trump)

    def _leave_action(self, seat: int) -> int | None:
        self.check_seat(seat)
        if self.phase == _OVER or self.left[seat]:
            return None
        return LEAVE

    def _apply(self, action: int, seat: int | None = None) -> None:
        # The usual steps (a chance outcome given with no seat, the seat to act naming itself) went
        # straight to their phase's work in ``apply`` and ``_act``; what comes here takes the full
        # checks, in their order.
        phase = self.phase
        if type(action) is not int:  # a float or bool would slip through 'in hand' checks
            raise not_an_action(action)
        if seat is not None:
            self.check_seat(seat)
        if action == LEAVE:
            if seat is None:
                raise IllegalAction("say which seat leaves")
            self._leave(seat)
            return
        if phase == _OVER:
            raise IllegalAction("the game is over")
        if phase <= _DRAW:
            if seat is not None:
                raise IllegalAction(f"it is a chance step ({self.chance_label()}), no seat acts")
            self._chance(action)
            return
        seat = self._seat_for(seat)
        if phase == _TRICK:
            self._play(action, seat)
        elif phase == _EXCHANGE:
            self._exchange(action, seat)
        elif phase == _DECIDE:
            self._decide(action, seat)
        else:
            self._choose_trump(action, seat)

    def _leave(self, seat: int) -> None:
        if self.phase == _OVER:
            raise IllegalAction("the game is over")
        if not 0 <= seat < PLAYERS:
            raise IllegalAction(f"there is no seat {seat}")
        if self.left[seat]:
            raise IllegalAction(f"seat {seat} has already left")
        self.left[seat] = True
        self.log.append({"type": "leave", "seat": seat, "riscos": -LEAVE_PENALTY})

    # -- chance ---------------------------------------------------------------------------------
    def _chance(self, action: int) -> None:
        deck = self.deck  # it holds only card ids, so a card found in it is one
        if _COMPILED:
            at = _find(deck, action)
        else:  # pure Python: list.index's C loop, without the cost of a call to _find
            try:
                at = deck.index(action)
            except ValueError:
                at = -1
        if at >= 0:
            deck.pop(at)
        else:
            what = CARD_STR[action] if 0 <= action < NUM_CARDS else GAME.action_name(action)
            where = "stock" if self.phase == _DRAW else "undealt deck"
            raise IllegalAction(f"cannot deal {what}: it is not in the {where}")
        seat = self.current
        hand = self.hands[seat]
        hand.append(action)
        phase = self.phase
        if phase == _DEAL:
            if len(hand) == self.first_packet:  # the hand is the first packet
                if len(hand) == FIRST_PACKET:
                    a, b, c = sorted(hand)  # three cards, written out: cheaper than a comprehension
                    cards = [CARD_STR[a], CARD_STR[b], CARD_STR[c]]
                else:  # a research deck's smaller packet
                    cards = [CARD_STR[x] for x in sorted(hand)]
                self.log.append({"type": "dealt", "seat": seat, "packet": 1, "cards": cards, "to": _TO[seat]})
                seat = self.current = (seat + 1) % PLAYERS
                if seat == self.chooser:
                    self.phase = _TRUMP
        elif phase == _DEAL2:
            if len(hand) == self.hand_size:
                self._second_packet_dealt(seat)
        elif phase == _DRAW:
            self.log.append(_DRAW_EVENT[seat][action])
            self.to_draw -= 1
            if self.to_draw == 0:
                self._next_decider()
        else:  # TURN
            self.turned = action
            self.trump = action // 10
            self.log.append(_TURNED_TRUMP_EVENT[seat][action])
            self.phase = _DEAL2
            if len(hand) == self.hand_size:  # a research deck's second packet of one: the turned card
                self._second_packet_dealt(seat)

    def _second_packet_dealt(self, seat: int) -> None:
        """``seat``'s hand is full: its second packet (the hand after the first packet) is logged,
        and the deal goes on to the next seat, or the decisions begin."""
        hand = self.hands[seat]
        fp = self.first_packet
        if fp == FIRST_PACKET and self.hand_size == HAND:
            cards = [CARD_STR[hand[3]], CARD_STR[hand[4]]]  # written out: cheaper than a comprehension
        else:
            cards = [CARD_STR[c] for c in hand[fp:]]
        self.log.append({"type": "dealt", "seat": seat, "packet": 2, "cards": cards, "to": _TO[seat]})
        seat = self.current = (seat + 1) % PLAYERS
        if seat == self.chooser:
            self._begin_decisions()

    # -- the trump, the decisions, the exchange -------------------------------------------------
    def _choose_trump(self, action: int, seat: int) -> None:
        if TRUMP <= action < TRUMP + 4:
            self.trump = action - TRUMP
            self.log.append(_CHOSEN_TRUMP_EVENT[seat][self.trump])
            self.phase = _DEAL2
        elif action == TURN:
            self.phase = _TURN
        else:
            raise IllegalAction(f"choose the trump (trump C/D/H/S) or turn the next card, not {GAME.action_name(action)}")

    def _begin_decisions(self) -> None:
        self.current = self.chooser
        self._enter_decision()

    def _forced_reason(self, seat: int) -> str | None:
        if seat == self.chooser:
            return _CHOSE
        if self.trump == self.all_play_suit:
            return _ALL_PLAY[self.trump]  # "Hearts are trump"
        if self.scores[seat] <= 5:
            return _FIVE_OR_LESS
        if self.sat_out[seat] >= 2:
            return _SAT_OUT_TWICE
        return None

    def _enter_decision(self) -> None:
        """``self.current`` is the next seat to decide: decide for it if it is forced."""
        seat = self.current
        reason = self._forced_reason(seat)
        if reason is None:
            self.phase = _DECIDE
            return
        self.decision[seat] = PLAY
        self.forced[seat] = reason
        self.log.append(_PLAYS_EVENT[seat][reason])
        self._enter_exchange()

    def _enter_exchange(self) -> None:
        if self.limit == 0:
            self.exchanged[self.current] = 0
            self._next_decider()
        else:
            self.phase = _EXCHANGE
            self.hands[self.current].sort()  # sorted from its exchange on: see legal_actions

    def _decide(self, action: int, seat: int) -> None:
        if action == PLAY:
            self.decision[seat] = PLAY
            self.log.append(_PLAYS_EVENT[seat][None])
            self._enter_exchange()
        elif action == SIT_OUT:
            self.decision[seat] = SIT_OUT
            self.log.append(_SITS_OUT_EVENT[seat])
            self._next_decider()
        else:
            raise IllegalAction(f"say play or sit out, not {GAME.action_name(action)}")

    def _exchange(self, action: int, seat: int) -> None:
        if action == DONE:
            k = len(self.discards[seat])
            self.exchanged[seat] = k
            self.log.append(_EXCHANGE_EVENT[seat][k])
            if k:
                self.to_draw = k
                self.phase = _DRAW
            else:
                self._next_decider()
            return
        if not DISCARD <= action < DISCARD + NUM_CARDS:
            raise IllegalAction(f"discard a card (discard 3H) or say done, not {GAME.action_name(action)}")
        card = action - DISCARD
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction(f"{CARD_STR[card]} is not in seat {seat}'s hand")
        discards = self.discards[seat]
        if len(discards) >= self.limit:
            raise IllegalAction(f"at most {self.limit} cards may be exchanged")
        if len(discards) >= len(self.deck):
            raise IllegalAction(f"the stock holds {len(self.deck)} cards: no more may be exchanged")
        hand.remove(card)
        discards.append(card)
        self.log.append(_DISCARD_EVENT[seat][card])

    def _next_decider(self) -> None:
        self.current = (self.current + 1) % PLAYERS
        if self.current != self.chooser:
            self._enter_decision()
            return
        decision = self.decision
        playing = (decision[0] == PLAY, decision[1] == PLAY, decision[2] == PLAY, decision[3] == PLAY)
        if playing.count(True) == 1:
            lone = playing.index(True)
            self.tricks[lone] = self.hand_size
            self.log.append(_LONE_EVENT[self.hand_size][lone])
            self._score()
            return
        self.phase = _TRICK
        self.leader = self.current = self.chooser
        self.trick_no = 1
        self.table = []
        self.next_player = _NEXT_PLAYERS[playing]
        for hand in self.hands:
            hand.sort()  # from now on hands are sorted (cards only leave them): see _playable

    # -- the tricks -----------------------------------------------------------------------------
    def _play(self, action: int, seat: int) -> None:
        hand = self.hands[seat]
        if _COMPILED:
            at = _find(hand, action)  # -1: not in hand
        else:  # pure Python: list.index's C loop, without the cost of a call to _find
            try:
                at = hand.index(action)
            except ValueError:
                at = -1
        table = self.table
        # A hand holds only card ids: a card in it that the rules allow is legal. The usual cases
        # (following suit, leading) are told first; a card that does not follow is checked against
        # the hand, and what it shows the seat lacks is noted in ``voids``.
        if table:
            led = table[0][1] // 10
            if action // 10 != led:
                if at < 0:
                    self._refuse_play(action, seat)
                for c in hand:
                    if c // 10 == led:  # could follow suit
                        self._refuse_play(action, seat)
                trump = self.trump
                low, high = self._overtrump()
                overtrumps = low < action < high
                if not overtrumps:
                    for c in hand:
                        if low < c < high:  # could trump (or overtrump)
                            self._refuse_play(action, seat)
                voids = self.voids[seat]
                voids.append((led, -1))
                if not overtrumps:
                    # Had to trump and did not: holds no trump (-1), or none above the best on the table.
                    voids.append((trump, low - trump * 10))
            elif at < 0:
                self._refuse_play(action, seat)
        else:
            trump = self.trump
            ace = trump * 10 + 9
            if action != ace:
                if at < 0 or ((_find(hand, ace) >= 0) if _COMPILED else ace in hand):
                    self._refuse_play(action, seat)
                self.voids[seat].append((trump, 8))  # led without the ace of trumps: does not hold it
            elif at < 0:
                self._refuse_play(action, seat)
        hand.pop(at)
        self.played[seat].append(action)
        table.append((seat, action))
        nxt = self.next_player[seat]
        if nxt != self.leader:
            self.current = nxt
            return
        self._resolve()

    def _refuse_play(self, action: int, seat: int) -> NoReturn:
        """Why ``action`` cannot be played by ``seat``, checked in order."""
        if not 0 <= action < NUM_CARDS:
            raise IllegalAction(f"play a card, not {GAME.action_name(action)}")
        if action not in self.hands[seat]:
            raise IllegalAction(f"{CARD_STR[action]} is not in seat {seat}'s hand")
        raise IllegalAction(f"{CARD_STR[action]} breaks the play rules: {self._why(seat)}")

    def _why(self, seat: int) -> str:
        legal = self._playable(seat)
        if not self.table:
            return "whoever leads holding the ace of trumps must lead it"
        led = suit_of(self.table[0][1])
        if suit_of(legal[0]) == led:
            return f"follow suit ({Suit(led).symbol})"
        on_table = [c for _, c in self.table if c // 10 == self.trump]
        if on_table:
            return f"play a trump higher than {Card.parse(CARD_STR[max(on_table)]).pretty}"
        return f"without {Suit(led).symbol}, play a trump"

    def _resolve(self) -> None:
        table = self.table
        led = table[0][1] // 10
        trump = self.trump
        keys = _TRICK_KEY[trump][led]
        best_seat, best_key, best_card = -1, -1, -1
        cards = []  # the event's [seat, card] entries, in the same loop
        for seat, card in table:
            cards.append(_PLAYED_PAIR[seat][card])
            key = keys[card]
            if key > best_key:
                best_seat, best_key, best_card = seat, key, card
        self.tricks[best_seat] += 1
        self.log.append({"type": "trick", "deal": self.deal_no, "trick": self.trick_no,
                         "leader": self.leader, "trump": "CDHS"[trump],
                         "cards": cards, "winner": best_seat,
                         "by_trump": best_card // 10 == trump and led != trump})
        self.table = []
        if self.trick_no == self.hand_size:
            self._score()
            return
        self.trick_no += 1
        self.leader = self.current = best_seat

    # -- scoring and the end --------------------------------------------------------------------
    def _score(self) -> None:
        trump = self.trump
        factor = 2 if trump == self.double_suit else 1
        decision, tricks, scores, sat_out = self.decision, self.tricks, self.scores, self.sat_out
        # Four seats, written out: cheaper than a comprehension at every deal.
        playing = [decision[0] == PLAY, decision[1] == PLAY, decision[2] == PLAY, decision[3] == PLAY]
        changes = [0, 0, 0, 0]
        for s in _SEATS:
            if playing[s]:
                taken = tricks[s]
                changes[s] = change = -taken * factor if taken else 5 * factor
                scores[s] += change
                sat_out[s] = 0
            else:
                sat_out[s] += 1
        suit = "CDHS"[trump]
        self.history.append({"deal": self.deal_no, "dealer": self.dealer, "trump": suit,
                             "playing": list(compress(_SEATS, playing)),
                             "tricks": list(tricks), "changes": changes})
        self.log.append({"type": "score", "deal": self.deal_no, "trump": suit, "factor": factor,
                         "playing": playing, "tricks": list(tricks), "changes": changes, "scores": list(scores)})
        if min(self.scores) > 0 and (self.max_deals == 0 or self.deal_no < self.max_deals):
            self._start_deal()
            return
        self.phase = _OVER
        self.current = -1
        order = self._order()
        self.winner = order[0]
        result = self.result()
        self.log.append({"type": "end", "winner": self.winner, "scores": list(self.scores),
                         "placings": list(result.placings), "riscos": result.details["riscos"],
                         "house": result.details["house"]})

    def _order(self) -> list[int]:
        """Seats by standing: lowest score, then more tricks in the last deal, then playing order."""
        chooser = self.chooser
        return sorted(range(PLAYERS), key=lambda s: (self.scores[s], -self.tricks[s], (s - chooser) % PLAYERS))

    def result(self) -> Result:
        if self.phase != _OVER:
            raise IllegalAction("the game is not over")
        order = self._order()
        stayed = [s for s in order if not self.left[s]]
        ranked = stayed + [s for s in order if self.left[s]]
        placings = [0] * PLAYERS
        for i, s in enumerate(ranked):
            if i == 0:
                placings[s] = 1
            else:
                # equal standing (score, and whether the seat left) shares a place, except the winner's
                ahead = sum(1 for o in ranked[1:] if (self.left[o], self.scores[o]) < (self.left[s], self.scores[s]))
                placings[s] = 2 + ahead
        riscos = [-LEAVE_PENALTY if self.left[s] else 0 for s in range(PLAYERS)]
        house = LEAVE_PENALTY * sum(self.left)
        settle_winner: int | None = stayed[0] if stayed else None
        if settle_winner is not None:
            for s in stayed[1:]:
                pay = max(self.scores[s], 0)
                riscos[s] -= pay
                riscos[settle_winner] += pay
        details = {"winner": self.winner, "settlement_winner": settle_winner, "riscos": riscos,
                   "house": house, "left": [s for s in range(PLAYERS) if self.left[s]],
                   "deals": [dict(h) for h in self.history]}
        return Result(tuple(self.scores), tuple(placings), details)

    def progress(self) -> Progress:
        """Deals scored and each seat's points (counting down: the lower, the better)."""
        return Progress(len(self.history), tuple(self.scores), higher_wins=False)

    # -- information ----------------------------------------------------------------------------
    def _view(self, seat: int | None) -> View:
        if seat is not None and not 0 <= seat < self.players:
            self.check_seat(seat)  # raises, naming the seats (a call into interpreted code: only then)
        v: View = {
            "game": GAME.id,
            "players": PLAYERS,
            "seat": seat,
            "phase": _PHASE_NAMES[self.phase],
            "deal": self.deal_no,
            "dealer": self.dealer,
            "chooser": self.chooser,
            "trump": "CDHS"[self.trump] if self.trump >= 0 else None,
            "turned": CARD_STR[self.turned] if self.turned >= 0 else None,
            "trick_value": 2 if self.trump == self.double_suit else 1,
            "scores": list(self.scores),
            "sat_out": list(self.sat_out),
            "decisions": list(map(_DECISION_NAMES.__getitem__, self.decision)),
            "forced": list(self.forced),
            "discarded": list(map(len, self.discards)),
            "exchanged": list(self.exchanged),
            "hand_sizes": list(map(len, self.hands)),
            "stock": len(self.deck),
            "trick": self.trick_no,
            "leader": self.leader if self.leader >= 0 else None,
            "table": [[s, CARD_STR[c]] for s, c in self.table],
            "tricks": list(self.tricks),
            "to_act": list(self.actors()),
            "left": list(compress(_SEATS, self.left)),
            "options": self.options_view,
            "log": self.visible_log(seat),
        }
        if seat is not None:
            v["hand"] = [CARD_STR[c] for c in sorted(self.hands[seat])]
            v["my_discards"] = [CARD_STR[c] for c in self.discards[seat]]
        if self.phase == _OVER:
            v["result"] = self.result().to_dict()
        return v

    def _may_hold(self, seat: int, card: int) -> bool:
        s, st = suit_of(card), strength(card)
        return not any(s == vs and st > above for vs, above in self.voids[seat])

    def clone(self) -> UpDownSuecaState:
        # Made without __init__ and the lists of four written out: a search clones at every step.
        c = UpDownSuecaState(self.game, self.players, self.options, _empty=True)  # type: ignore[arg-type]  # mypyc: __new__ runs __init__
        c.game = self.game
        c.players = self.players
        c.options = self.options
        c.options_view = self.options_view
        c.limit = self.limit
        c.cards = self.cards
        c.hand_size = self.hand_size
        c.first_packet = self.first_packet
        c.max_deals = self.max_deals
        c.all_play_suit = self.all_play_suit
        c.double_suit = self.double_suit
        c.log = list(self.log)
        c.scores = list(self.scores)
        c.sat_out = list(self.sat_out)
        c.left = list(self.left)
        c.dealer = self.dealer
        c.deal_no = self.deal_no
        c.history = list(self.history)
        c.winner = self.winner
        c.chooser = self.chooser
        c.deal_log_start = self.deal_log_start
        c.phase = self.phase
        c.deck = list(self.deck)
        h = self.hands
        c.hands = [h[0][:], h[1][:], h[2][:], h[3][:]]
        h = self.discards
        c.discards = [h[0][:], h[1][:], h[2][:], h[3][:]]
        h = self.played
        c.played = [h[0][:], h[1][:], h[2][:], h[3][:]]
        c.current = self.current
        c.trump = self.trump
        c.turned = self.turned
        c.decision = list(self.decision)
        c.forced = list(self.forced)
        c.exchanged = list(self.exchanged)
        c.to_draw = self.to_draw
        c.leader = self.leader
        c.trick_no = self.trick_no
        c.table = list(self.table)
        c.next_player = self.next_player  # a tuple, replaced (never changed) at each deal's tricks
        c.tricks = list(self.tricks)
        v = self.voids
        c.voids = [v[0][:], v[1][:], v[2][:], v[3][:]]
        c._frozen_upto = self._frozen_upto
        c._visible_base = self._visible_snapshot()
        return c


def _voids_of(tricks: Sequence[Sequence[tuple[int, int]]], trump: int) -> list[list[tuple[int, int]]]:
    """What the plays of these tricks showed each seat does not hold (as ``State.voids``)."""
    voids: list[list[tuple[int, int]]] = [[] for _ in range(PLAYERS)]
    for table in tricks:
        for i, (seat, card) in enumerate(table):
            if i == 0:
                if suit_of(card) != trump or strength(card) != 9:
                    voids[seat].append((trump, 8))
                continue
            led = suit_of(table[0][1])
            s = suit_of(card)
            if s == led:
                continue
            voids[seat].append((led, -1))
            on_table = [c for _, c in table[:i] if c // 10 == trump]
            if not on_table:
                if s != trump:
                    voids[seat].append((trump, -1))
            elif s != trump or card < max(on_table):
                voids[seat].append((trump, strength(max(on_table))))
    return voids


def _next_players(decision: Sequence[int | None]) -> tuple[int, ...]:
    """For each seat, the next seat in playing order that plays this deal."""
    nxt = []
    for seat in range(PLAYERS):
        after = (seat + 1) % PLAYERS
        while decision[after] != PLAY:
            after = (after + 1) % PLAYERS
        nxt.append(after)
    return tuple(nxt)


_NEXT_PLAYERS: Final[dict[tuple[bool, ...], tuple[int, ...]]] = {
    playing: _next_players([PLAY if p else SIT_OUT for p in playing])
    for playing in product((False, True), repeat=PLAYERS) if sum(playing) >= 2}
"""``_next_players`` for each way two or more seats can play (``playing[seat]``), made once."""


def _holds(voids: list[tuple[int, int]], card: int) -> bool:
    s, st = suit_of(card), strength(card)
    return not any(s == vs and st > above for vs, above in voids)


def _fast_id(text: str) -> int:
    """``card_id`` for the notation the engine itself writes (a dict lookup), else parsed."""
    got = _ID_OF_STR.get(text)
    return got if got is not None else card_id(text)


_ID_OF_STR: Final[dict[str, int]] = {text: i for i, text in enumerate(CARD_STR)}


class SuecaWorlds(WorldSampler):
    """The worlds a seat's view allows. Hidden: the other hands (none holding a card its play
    showed it lacks), their discards (set aside face down), the stock, and where the turned card
    is once the chooser may have discarded it. The other seats' private events of the deal (their
    packets, discards and draws) are retold to match. Every consistent world (placement of the
    hidden cards together with its private history) is equally likely: a placement is weighted
    by the number of private histories that lead to it, which only differs with where the turned
    card is (a turned card kept in hand cannot have been drawn). Other seats' private events of
    earlier deals are left out of the world's log.

    With ``keeps(card, trump)``, a model of how players exchange (a bot's rule, e.g. "trumps and
    aces"), the worlds are weighted by it instead: each other seat that has exchanged ``k`` cards
    kept ``5 - k`` cards that ``keeps`` accepts and drew ``k`` cards from the stock. A world weighs
    as many as the ways to say which of that seat's cards (in hand or played, a turned card always
    among them) were the kept ones, times the uniform weight: so a seat that threw four cards holds
    at least one accepted card, and one that threw none holds only accepted cards. Its discards are
    not modelled (any card). Counting the kept cards on their own is what makes the draw exact and
    cheap (:meth:`_exchange_model`). If no world of the model fits the view (a player who kept
    a card the model would not), the worlds are the uniform ones and :attr:`modelled` is False."""

    def __init__(self, view: View, keeps: Callable[[int, int], bool] | None = None):
        if view.get("game") != GAME.id:
            raise IllegalAction(f"not an {GAME.name} view")
        seat = view["seat"]
        if type(seat) is not int or not 0 <= seat < PLAYERS:
            raise IllegalAction("worlds are drawn from a seat's view, not a spectator's")
        self.seat = seat
        st = UpDownSuecaState(GAME, PLAYERS, GAME.Options.from_dict(view["options"]), _empty=True)
        log: list[Event] = view["log"]
        if not all(type(e) is FrozenDict for e in log):
            log = [freeze(e) for e in log]
        start = len(log)
        while start > 0 and log[start - 1]["type"] != "deal":
            start -= 1
        start = max(start - 1, 0)
        segment = log[start:]
        st.phase = phase = int(Phase[view["phase"].upper()])
        st.scores = list(view["scores"])
        st.sat_out = list(view["sat_out"])
        st.left = [s in view["left"] for s in range(PLAYERS)]
        st.dealer = view["dealer"]
        st.chooser = chooser = view["chooser"]
        st.deal_no = view["deal"]
        st.deal_log_start = start
        history: list[dict[str, Any]] = []
        dealer = 0
        for e in log:
            kind = e["type"]
            if kind == "deal":
                dealer = e["dealer"]
            elif kind == "score":
                history.append({"deal": e["deal"], "dealer": dealer, "trump": e["trump"],
                                "playing": [s for s in range(PLAYERS) if e["playing"][s]],
                                "tricks": list(e["tricks"]), "changes": list(e["changes"])})
        st.history = history
        st.winner = log[-1]["winner"] if phase == _OVER else -1
        st.trump = trump = "CDHS".index(view["trump"]) if view["trump"] is not None else -1
        st.turned = turned = _fast_id(view["turned"]) if view["turned"] is not None else -1
        st.decision = [None if d is None else (PLAY if d == "play" else SIT_OUT) for d in view["decisions"]]
        st.forced = list(view["forced"])
        st.exchanged = list(view["exchanged"])
        st.leader = view["leader"] if view["leader"] is not None else -1
        st.trick_no = view["trick"]
        st.table = [(s, _fast_id(c)) for s, c in view["table"]]
        st.next_player = _next_players(st.decision) if phase == _TRICK else ()
        st.tricks = list(view["tricks"])
        sizes = view["hand_sizes"]
        discarded = view["discarded"]
        order = [(chooser + i) % PLAYERS for i in range(PLAYERS)]
        # Where the deal stands, in the order things happen: first packets, the trump, second packets.
        if phase == _DEAL:
            p1_done = next((i for i, s in enumerate(order) if sizes[s] < st.first_packet), PLAYERS)
            p2_done = 0
        elif phase in (_TRUMP, _TURN):
            p1_done, p2_done = PLAYERS, 0
        elif phase == _DEAL2:
            p1_done = PLAYERS
            p2_done = next((i for i, s in enumerate(order) if sizes[s] < st.hand_size), PLAYERS)
        else:
            p1_done = p2_done = PLAYERS
        if st.first_packet == 0:  # a research deck of one card each: no first packets
            p1_done = 0
        last_exchange = -1
        tricks: list[list[tuple[int, int]]] = []
        own_events: dict[tuple[str, int], Event] = {}
        for e in segment:
            kind = e["type"]
            if kind == "trick":
                tricks.append([(s, _fast_id(c)) for s, c in e["cards"]])
            elif kind == "exchange":
                last_exchange = e["seat"]
            elif kind == "dealt" and e["seat"] == seat:
                own_events[("dealt", e["packet"])] = e
        if st.table:
            tricks.append(st.table)
        st.voids = voids = _voids_of(tricks, trump) if trump >= 0 else [[] for _ in range(PLAYERS)]
        played: list[list[int]] = [[] for _ in range(PLAYERS)]
        for table in tricks:
            for s, c in table:
                played[s].append(c)
        st.played = played
        if phase == _DEAL:
            current = order[p1_done]
        elif phase == _DEAL2:
            current = order[p2_done]
        elif phase in (_TRUMP, _TURN):
            current = chooser
        elif phase == _DRAW:
            current = last_exchange
        elif phase == _OVER:
            current = -1
        else:
            current = view["to_act"][0]
        st.current = current
        st.to_draw = st.hand_size - sizes[current] if phase == _DRAW else 0
        # The seat's own cards and history.
        hand = [_fast_id(c) for c in view["hand"]]
        mine = [_fast_id(c) for c in view["my_discards"]]
        p1_event = own_events.get(("dealt", 1))
        p2_event = own_events.get(("dealt", 2))
        own_p1 = [_fast_id(c) for c in p1_event["cards"]] if p1_event else list(hand)
        if p2_event:
            own_p2 = [_fast_id(c) for c in p2_event["cards"]]
        else:
            own_p2 = [c for c in hand if c not in own_p1]
            if turned in own_p2:
                own_p2.remove(turned)
                own_p2.insert(0, turned)
        if not p1_event and phase != _DEAL:
            own_p1 = []
        if phase in (_DEAL, _TRUMP, _TURN, _DEAL2):
            hand = own_p1 + own_p2  # during the deal a hand is its packets, in order (see _start_deal)
        st.hands = [list(hand) if s == seat else [] for s in range(PLAYERS)]
        st.discards = [list(mine) if s == seat else [] for s in range(PLAYERS)]
        st.deck = []
        # Draws each other seat has made: all its discards' worth, unless it is drawing now.
        self.draws = [discarded[s] - (st.hand_size - sizes[s] if phase == _DRAW and s == current else 0)
                      if st.exchanged[s] is not None else 0 for s in range(PLAYERS)]
        self.others = [s for s in range(PLAYERS) if s != seat]
        seen = set(hand) | set(mine) | {c for p in played for c in p}
        if turned >= 0:
            seen.add(turned)
        pool = [c for c in st.cards if c not in seen]
        self.hidden_turn = turned >= 0 and chooser != seat and turned not in played[chooser]
        # Bins: the hidden part of each other hand (0..2), each other seat's discards (3..5), the stock (6).
        hand_sizes = [sizes[s] for s in self.others]
        bin_sizes = hand_sizes + [discarded[s] for s in self.others]
        bin_sizes.append(len(pool) - sum(bin_sizes) + (1 if self.hidden_turn else 0))
        if bin_sizes[-1] < 0:
            raise IllegalAction("not a consistent view: more cards held than there are")
        allowed = {c: [b for b in range(7) if b >= 3 or _holds(voids[self.others[b]], c)] for c in pool}
        self.deals: list[tuple[ConstrainedDeal | DealMixture, int]] = []  # (deal, bin of the turned card or -1)
        weights: list[int] = []
        if self.hidden_turn:
            k = self.others.index(chooser)
            held = sizes[chooser] + len(played[chooser])
            draws = self.draws[chooser]
            in_hand = comb(held - 1, draws) if held > 0 else 0  # the turned card itself was not drawn
            for where, stories in ((k, in_hand), (k + 3, comb(held, draws))):
                if where == k and not _holds(voids[chooser], turned):
                    continue
                less = list(bin_sizes)
                less[where] -= 1
                if less[where] < 0 or not stories:
                    continue
                try:
                    deal = ConstrainedDeal(allowed, less)
                except IllegalAction:
                    continue
                self.deals.append((deal, where))
                weights.append(deal.total * stories)
            if not self.deals:
                raise IllegalAction("no world fits this view: the turned card has no place")
        else:
            self.deals.append((ConstrainedDeal(allowed, bin_sizes), -1))
            weights.append(1)
        self.weights = weights
        self.total = sum(weights)
        # The world's log: this deal's private events of other seats get slots, in the order they
        # happen; the seat's own are kept as its view shows them.
        world_log: list[Event | None] = list(log[:start])
        self.slots: list[tuple[int, str, int, int]] = []  # (index, kind, seat, packet or n-th)

        def slot(kind: str, s: int, n: int) -> None:
            self.slots.append((len(world_log), kind, s, n))
            world_log.append(None)

        for e in segment:
            kind = e["type"]
            if kind == "dealt" and e["seat"] == seat:
                continue  # put in place below
            world_log.append(e)
            if kind == "deal":
                for s in order[:p1_done]:
                    if s == seat:
                        world_log.append(own_events[("dealt", 1)])
                    else:
                        slot("dealt", s, 1)
            elif kind == "trump":
                for s in order[:p2_done]:
                    if s == seat:
                        world_log.append(own_events[("dealt", 2)])
                    else:
                        slot("dealt", s, 2)
            elif kind == "plays" and e["seat"] != seat:
                for n in range(discarded[e["seat"]]):
                    slot("discard", e["seat"], n)
            elif kind == "exchange" and e["seat"] != seat:
                for n in range(self.draws[e["seat"]]):
                    slot("draw", e["seat"], n)
        st.log = world_log  # type: ignore[assignment]  # the slots are filled by every draw
        self.skeleton = st
        self.modelled = False
        """Whether the worlds follow ``keeps`` (False: it cannot explain what the view shows)."""
        if keeps is not None and trump >= 0:
            modelled = self._exchange_model(keeps, view, pool, allowed, bin_sizes)
            if modelled is not None:
                self.deals, self.weights, self.total, self.modelled = [modelled], [1], 1, True

    def _exchange_model(
        self, keeps: Callable[[int, int], bool], view: View, pool: list[int],
        allowed: dict[int, list[int]], bin_sizes: list[int],
    ) -> tuple[DealMixture, int] | None:
        """The deals of the exchange model (see :class:`SuecaWorlds`), or None if it explains no
        world. Each other seat that exchanged gets two bins for its hidden hand: cards it kept
        (only cards ``keeps`` accepts) and cards it drew (any); its discards take only cards
        ``keeps`` rejects. Its played cards were kept or drawn: each way of saying which is a deal
        of its own, weighed by its count."""
        st = self.skeleton
        trump, turned, chooser = st.trump, st.turned, st.chooser
        sizes, discarded = view["hand_sizes"], view["discarded"]
        n = len(self.others)
        splits: list[list[tuple[int, int, int]]] = []  # each seat's (kept, drawn, ways) options
        modelled = [False] * n
        for i, s in enumerate(self.others):
            hidden = bin_sizes[i] - (1 if self.hidden_turn and s == chooser else 0)  # it is put back by draw
            if st.exchanged[s] is None or self.draws[s] != discarded[s] or st.decision[s] != PLAY:
                splits.append([(hidden, 0, 1)])  # no exchange to read (or drawing now): one hand bin
                continue
            known = list(st.played[s])
            dealt_kept = 0  # the turned card: dealt, not drawn, and kept if the model holds
            if turned >= 0 and s == chooser:
                if not keeps(turned, trump):
                    return None
                dealt_kept = 1
                if turned in known:
                    known.remove(turned)
            k = discarded[s]
            accepted = sum(1 for c in known if keeps(c, trump))
            rejected = len(known) - accepted
            options = []
            for j in range(accepted + 1):  # j of its accepted played cards were kept
                kept = st.hand_size - k - dealt_kept - j
                drawn = k - rejected - (accepted - j)
                if kept >= 0 and drawn >= 0 and kept + drawn == hidden:
                    options.append((kept, drawn, comb(accepted, j)))
            if not options:
                return None
            splits.append(options)
            modelled[i] = True
        if not any(modelled):
            return None
        # Bins: as the uniform worlds' (0..6), then each modelled seat's drawn cards (7..9).
        model_allowed: dict[int, list[int]] = {}
        for c in pool:
            # mypyc: not `accepted` again, an int above (compiled, the bool stored there failed `if`)
            kept_here = bool(keeps(c, trump))
            bins = []
            for b in allowed[c]:
                i = b if b < 3 else b - 3
                if b < 3 and modelled[i]:
                    if kept_here:
                        bins.append(b)
                    bins.append(7 + i)
                else:
                    bins.append(b)
            model_allowed[c] = bins
        deals: list[tuple[ConstrainedDeal, int]] = []
        base: ConstrainedDeal | None = None  # the splits share one count of their parts
        for choice in product(*splits):
            sizes_now = list(bin_sizes) + [0, 0, 0]
            ways = 1
            for i, (kept, drawn, w) in enumerate(choice):
                sizes_now[i], sizes_now[7 + i] = kept, drawn
                ways *= w
            if base is None:
                try:
                    deal = base = ConstrainedDeal(model_allowed, sizes_now)
                except IllegalAction:
                    continue
            else:
                deal = base.resized(sizes_now)
            deals.append((deal, deal.total * ways))
        if not deals:
            return None
        merge = [[i, 7 + i] for i in range(n)] + [[b] for b in range(3, 7)]
        turned_bin = self.others.index(chooser) if self.hidden_turn else -1
        return DealMixture(deals, merge), turned_bin

    def draw(self, rng: random.Random) -> UpDownSuecaState:
        world = self.skeleton.clone()
        r = rng.randrange(self.total)
        for (deal, turned_bin), weight in zip(self.deals, self.weights):
            if r < weight:
                break
            r -= weight
        parts = deal.draw(rng)
        if turned_bin >= 0:
            parts[turned_bin].append(world.turned)
        chooser, turned = world.chooser, world.turned
        dealing = world.phase in (_DEAL, _TRUMP, _TURN, _DEAL2)
        packet1: dict[int, list[int]] = {}
        packet2: dict[int, list[int]] = {}
        drawn: dict[int, list[int]] = {}
        for i, s in enumerate(self.others):
            held, gone = parts[i], parts[i + 3]
            rng.shuffle(gone)
            world.hands[s] = held
            world.discards[s] = gone
            # Its story: which kept cards were drawn, and how the deal fell into packets.
            kept = [c for c in held + world.played[s] if c != turned or s != chooser]
            rng.shuffle(kept)
            draws = self.draws[s]
            drawn[s] = kept[:draws]
            dealt = kept[draws:] + gone
            dealt = [c for c in dealt if c != turned or s != chooser]
            rng.shuffle(dealt)
            n1 = min(world.first_packet, len(dealt))
            packet1[s] = dealt[:n1]
            packet2[s] = ([turned] if s == chooser and turned >= 0 else []) + dealt[n1:]
            if dealing:  # the deal goes on from the hand: its packets, in order (see _start_deal)
                world.hands[s] = packet1[s] + packet2[s]
            elif world.phase in (_EXCHANGE, _TRICK):
                world.hands[s] = sorted(held)  # as in the real states (see _enter_exchange, _playable)
        world.deck = parts[-1]
        log = world.log
        for index, kind, s, n in self.slots:
            if kind == "dealt":
                cards = sorted(packet1[s]) if n == 1 else packet2[s]
                log[index] = FrozenDict({"type": "dealt", "seat": s, "packet": n,
                                         "cards": FrozenList([CARD_STR[c] for c in cards]), "to": FrozenList([s])})
            else:
                source = world.discards[s] if kind == "discard" else drawn[s]
                log[index] = FrozenDict({"type": kind, "seat": s, "card": CARD_STR[source[n]],
                                         "to": FrozenList([s])})
        world._frozen_upto = len(log)
        return world


# -- explanations -------------------------------------------------------------------------------


def describe_event(event: Event, names: Sequence[str]) -> str:
    """One line that tells people what happened and, for a trick or a score, why."""
    kind = event["type"]
    if kind == "hidden":
        return f"({names[event['seat']]}: a private {event['of']} event, not known in this world)"
    if kind == "deal":
        return (f"Deal {event['deal']}: {names[event['dealer']]} deals; "
                f"{names[event['chooser']]} chooses the trump.")
    if kind == "dealt":
        return f"{names[event['seat']]} is dealt {' '.join(pretty_card(c) for c in event['cards'])}."
    if kind == "trump":
        suit = Suit.parse(event["suit"])
        if event["turned"]:
            head = (f"{names[event['seat']]} turns the next card, {pretty_card(event['turned'])}, "
                    f"and keeps it: {suit.title} ({suit.symbol}) are trump")
        else:
            head = f"{names[event['seat']]} chooses {suit.title} ({suit.symbol}) as trump"
        return head + "."
    if kind == "plays":
        why = f" ({event['forced']})" if event["forced"] else ""
        return f"{names[event['seat']]} plays{why}."
    if kind == "sits out":
        return f"{names[event['seat']]} sits out."
    if kind == "discard":
        return f"{names[event['seat']]} discards {pretty_card(event['card'])}."
    if kind == "exchange":
        n = event["count"]
        return f"{names[event['seat']]} exchanges {n} card{'s' if n != 1 else ''}." if n else \
            f"{names[event['seat']]} keeps their cards."
    if kind == "draw":
        return f"{names[event['seat']]} draws {pretty_card(event['card'])}."
    if kind == "lone":
        n = event["tricks"]
        if n != HAND:  # a research deck's deal
            return f"{names[event['seat']]} is the only one playing and takes all {n} trick{'s' if n != 1 else ''}."
        return f"{names[event['seat']]} is the only one playing and takes all five tricks."
    if kind == "trick":
        played = ", ".join(f"{names[s]} {pretty_card(c)}" for s, c in event["cards"])
        winner = event["winner"]
        card = next(c for s, c in event["cards"] if s == winner)
        how = "the highest trump" if Card.parse(card).suit.letter == event["trump"] else "the highest of the suit led"
        return f"Trick {event['trick']}: {played}. {names[winner]} wins with {pretty_card(card)}, {how}."
    if kind == "score":
        parts = []
        for s, change in enumerate(event["changes"]):
            if not event["playing"][s]:
                parts.append(f"{names[s]} sat out ({event['scores'][s]})")
            else:
                parts.append(f"{names[s]} {event['tricks'][s]} trick{'s' if event['tricks'][s] != 1 else ''} "
                             f"{change:+d} -> {event['scores'][s]}")
        double = f" ({Suit.parse(event['trump']).title}: tricks count double)" if event["factor"] == 2 else ""
        return f"Deal {event['deal']} scored{double}: " + "; ".join(parts) + "."
    if kind == "leave":
        return f"{names[event['seat']]} leaves the match and pays {-event['riscos']} RISCOS; a bot takes the seat."
    if kind == "end":
        riscos = ", ".join(f"{names[s]} {r:+d}" for s, r in enumerate(event["riscos"]))
        house = f", house {event['house']:+d}" if event["house"] else ""
        head = f"{names[event['winner']]} finishes first with {event['scores'][event['winner']]} points"
        return f"{head}. RISCOS: {riscos}{house}."
    return str(event)
