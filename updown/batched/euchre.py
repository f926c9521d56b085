"""Euchre, many games at once: the rules of ``updown.games.euchre`` over numpy arrays.

One :class:`BatchedEuchre` holds ``n`` games, each a full match with the scalar engine's options
(``stick_the_dealer``, ``lone_defender``, ``target``, ``deals``). Every game is always at a seat's
decision or over: chance (the first dealer, each deal, the up-card) is drawn from the engine's
seeded ``numpy.random.Generator`` as soon as it is due, the way a driver would resolve it.

Action ids are the scalar engine's (``updown.games.euchre``: cards 0-23, ``discard`` 24-47,
``pass`` 48, ..., ``defend alone`` 61), so a batched action can be applied to a scalar state as it
is. Decisions fit in 62 ids, so each game's legal set is one ``uint64`` mask
(:meth:`BatchedEuchre.legal_bits`); :meth:`BatchedEuchre.legal_mask` expands it to booleans.

Per game, ``hands`` and ``dealt`` are card masks per seat; the trick in progress is resolved as it
is played (the led suit, the best power so far and its seat), using the scalar engine's ``EFF``
and ``POWER`` tables, so a trick needs no sorting. With ``record=True`` the engine keeps, per game,
the chance outcomes it drew as scalar action ids (``chance_log``), in the order the scalar engine
asks for them, so a scalar state fed the same outcomes and actions plays the same game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from updown.batched.base import BatchedGame, refuse_research
from updown.batched.bits import BIT, U64, BitArray, IntArray, popcount, select_bit
from updown.core.protocol import State, View
from updown.games import euchre as E

# -- tables (flat, indexed by small integers) ----------------------------------------------------

NUM_CARDS = E.NUM_CARDS
NUM_ACTIONS = E.NUM_ACTIONS
BID1, DISCARD, BID2, DEFEND, PLAY, OVER = (int(E.Phase[p]) for p in ("BID1", "DISCARD", "BID2", "DEFEND", "PLAY", "OVER"))

SUIT_T: IntArray = np.array(E.SUIT, dtype=np.int64)
SUITBITS: BitArray = np.array(
    [sum(1 << c for c in range(NUM_CARDS) if E.EFF[t][c] == s) for t in range(4) for s in range(4)], dtype=U64
)
"""``SUITBITS[trump * 4 + suit]``: the cards whose effective suit is ``suit``."""

# In play a game keeps ``trow = trump * 96`` and ``led24 = led * 24`` (-1 before the lead), so that
# one addition indexes these tables:
EFF96: IntArray = np.array([E.EFF[t][c] * 24 if c < NUM_CARDS else 0 for t in range(4) for c in range(96)],
                           dtype=np.int64)
"""``EFF96[trow + card]``: ``led24`` when ``card`` leads."""
POWER96: IntArray = np.array([E.POWER[t][led][c] for t in range(4) for led in range(4) for c in range(NUM_CARDS)],
                             dtype=np.int64)
"""``POWER96[trow + led24 + card]``: the card's power in the trick; the highest wins it."""
SUITBITS96: BitArray = np.array([SUITBITS[t * 4 + i // 24] if i % 24 == 0 else 0 for t in range(4) for i in range(96)],
                                dtype=U64)
"""``SUITBITS96[trow + led24]``: the cards that follow the suit led."""
_ROWS: IntArray = np.array(
    [[E.POWER[t][led][c] for c in range(NUM_CARDS)] for t in range(4) for led in range(4)]
    + [[E.POWER[t][E.EFF[t][c]][c] for c in range(NUM_CARDS)] for t in range(4)],
    dtype=np.int64,
)
"""Rows 0-15: ``POWER`` for (trump, led); rows 16-19: each card's power when it leads (greedy play)."""
_THROW: IntArray = np.array(
    [[40 + E.POWER[t][t][c] if E.EFF[t][c] == t else c % 6 for c in range(NUM_CARDS)] for t in range(4)],
    dtype=np.int64,
)
"""``_THROW[trump]``: what a card costs to throw away: an off-suit card its rank, a trump more than
any off-suit card, by its power (greedy play)."""
_TRUMPBITS: BitArray = np.array([SUITBITS[t * 5] for t in range(4)], dtype=U64)
"""``_TRUMPBITS[trump]``: the trump cards as a mask."""
_BEATS: BitArray = np.array(
    [sum(1 << c for c in range(NUM_CARDS) if _ROWS[row][c] > top) for row in range(20) for top in range(41)],
    dtype=U64,
)
"""``_BEATS[row * 41 + top]``: the cards whose power in row ``row`` of ``_ROWS`` is above ``top``."""
_KEYS: IntArray = np.concatenate([_ROWS, -_ROWS, -_THROW[[r // 4 if r < 16 else r - 16 for r in range(20)]]])
"""``_KEYS[kind * 20 + row]``: what greedy play maximises over its candidate cards: the power
(kind 0: the strongest card), less the power (1: the cheapest winning card) or less the cost to
throw (2: the cheapest card to throw) under row ``row`` of ``_ROWS``; ties go to the lowest card, as
``argmax`` and ``argmin`` have them."""
_KEYS8: npt.NDArray[np.uint8] = (_KEYS - _KEYS.min() + 1).astype(np.uint8)
"""``_KEYS`` shifted to 1 and up, in bytes: times a 0/1 byte per card, a card that is no candidate
is below every candidate."""


def _pick(cands: BitArray, keys: IntArray) -> IntArray:
    """Per game, the candidate card (of the mask ``cands``, which must not be empty) with the
    largest key in row ``keys`` of ``_KEYS``, the lowest card among equal keys: one product and
    one ``argmax`` over the 24 cards, in bytes."""
    out: IntArray = (_KEYS8[keys] * _bits(cands)).argmax(axis=1)
    return out

_BAND: BitArray = np.array([0, E.DISCARD, E.PASS], dtype=U64)

# -- the smart rule's tables (``BatchedEuchre.smart_actions``: the scalar ``greedy`` bot's choices) --
_RANK: IntArray = np.array([c % 6 for c in range(NUM_CARDS)], dtype=np.int64)
"""A card's rank in its suit: 9, 10, J, Q, K, A as 0 to 5."""
_ACES: BitArray = np.array([sum(1 << c for c in range(NUM_CARDS) if c % 6 == 5 and E.EFF[t][c] != t) for t in range(4)],
                           dtype=U64)
"""``_ACES[trump]``: the off-suit aces."""
_HIGHER: BitArray = np.array(
    [[sum(1 << u for u in range(NUM_CARDS) if E.EFF[t][u] == E.EFF[t][c] and u % 6 > c % 6) for c in range(NUM_CARDS)]
     for t in range(4)], dtype=U64)
"""``_HIGHER[trump, card]``: the cards of the card's effective suit of a higher rank (for an
off-suit card: the cards that beat it in its suit)."""
_VAL20: IntArray = np.array(
    [[(60 if E.SUIT[c] == t else 50) if c % 6 == E.JACK and E.EFF[t][c] == t
      else {0: 20, 1: 24, 3: 28, 4: 32, 5: 40}[c % 6] if E.EFF[t][c] == t
      else 20 if c % 6 == 5 else 0 for t in range(4)] for c in range(NUM_CARDS)],
    dtype=np.int64)
"""``_VAL20[card, trump]``: the card's worth to a hand bidding ``trump``, in twentieths (the
``greedy`` bot's strength: right bower 3, left 2.5, ace 2, king 1.6, queen 1.4, 10 1.2, 9 1 as
trumps, an off-suit ace 1), so the sums and halves are exact integers."""
_VOID20 = 12
"""0.6 a void with two trumps or more (the bid thresholds: ``BatchedEuchre.make`` and ``.go_alone``)."""
_LOW = np.int64(-(1 << 40))
_ALL24 = U64((1 << NUM_CARDS) - 1)


def _bits(cards: BitArray) -> npt.NDArray[np.uint8]:
    """``(games, 24)``: each game's card mask as 0/1 bytes."""
    return np.unpackbits(cards.astype("<u8", copy=False).view(np.uint8).reshape(-1, 8)[:, :3], axis=1,
                         bitorder="little")


def _best(cands: BitArray, keys: IntArray) -> IntArray:
    """Per game, the card of the mask ``cands`` with the largest key (``keys``: ``(games, 24)`` or
    ``(24,)``), the lowest card among equal keys (an empty mask: card 0)."""
    out: IntArray = np.where(_bits(cands).astype(bool), keys, _LOW).argmax(axis=1)
    return out


def strengths(hand: BitArray) -> IntArray:
    """``(games, 4)``: each hand's strength with each suit as trump, in twentieths: the ``greedy``
    bot's :func:`updown.bots.euchre_greedy.strength` (trumps, off-suit aces, and 0.6 a void in
    an off suit when holding two trumps or more)."""
    val = _bits(hand).astype(np.int64) @ _VAL20
    present = (hand[:, None] & SUITBITS[None, :]) != 0  # (games, trump * 4 + suit)
    n_trumps = popcount(hand[:, None] & SUITBITS[_SEATS * 5][None, :])
    off_present = present.reshape(-1, 4, 4).sum(axis=2) - present[:, _SEATS * 5]
    out: IntArray = val + np.where(n_trumps >= 2, _VOID20 * (3 - off_present), 0)
    return out


def smart_discard(hand: BitArray, trump: IntArray, keep: IntArray) -> IntArray:
    """The ``greedy`` bot's discard (:func:`updown.bots.euchre_greedy.discard_choice`) per game: of
    ``hand`` less ``keep``, a losing off-suit card (a non-ace first, one that leaves a void first,
    then the lowest rank), a trump (the weakest) only when all are trumps."""
    t = trump & 3
    cands = hand & ~BIT[keep & 63]
    off = cands & ~_TRUMPBITS[t]
    counts = popcount(hand[:, None] & SUITBITS[(t * 4)[:, None] + _SEATS[None, :]])
    single = (SUITBITS[(t * 4)[:, None] + _SEATS[None, :]] * (counts == 1)).sum(axis=1, dtype=U64)
    key = -((_RANK == 5) * 100 + (1 - _bits(single).astype(np.int64)) * 10 + _RANK)
    weakest = _best(cands, -_ROWS[16 + t])
    return np.where(off != 0, _best(off, key), weakest)

_SEATS = np.arange(4, dtype=np.int64)


def _next_active(skip: int, seat: int) -> int:
    s = (seat + 1) & 3
    while skip >> s & 1:
        s = (s + 1) & 3
    return s


NEXT: IntArray = np.array([_next_active(k, s) if k != 15 else 0 for k in range(16) for s in range(4)], dtype=np.int64)
"""``NEXT[skip * 4 + seat]``: the next seat after ``seat`` that is not in the mask ``skip``."""


def _bid_table(stick: bool) -> BitArray:
    """``[phase * 8 + dealer * 4 + upsuit]``: the legal bids, shifted down by ``PASS`` (0 where the
    phase is not a bid)."""
    t = np.zeros(9 * 8, dtype=U64)
    for up in range(4):
        names = [E.NAME + s for s in range(4) if s != up] + [E.NAME_ALONE + s for s in range(4) if s != up]
        for dealer in (0, 1):
            bid1 = (E.PASS, E.PICK_UP, E.PICK_UP_ALONE) if dealer else (E.PASS, E.ORDER_UP, E.ORDER_UP_ALONE)
            bid2 = names if (dealer and stick) else [E.PASS, *names]
            for phase, acts in ((BID1, bid1), (BID2, bid2), (DEFEND, (E.PASS, E.DEFEND_ALONE))):
                t[phase * 8 + dealer * 4 + up] = sum(1 << (a - E.PASS) for a in acts)
    return t


_CARD_IDS = {text: i for i, text in enumerate(E.CARD_STR)}


def _card(text: str) -> int:
    """A card id from a view's notation (fast for the ASCII notation views use)."""
    i = _CARD_IDS.get(text)
    return i if i is not None else E.card_id(text)


class BatchedEuchre(BatchedGame):
    """``n`` Euchre matches stepped together. Build one with a seed, then ``step`` or ``play``.

    Per-game arrays (length ``n``) follow the scalar state's fields: ``phase`` (the scalar
    ``Phase`` values), ``dealer``, ``turn``, ``upcard``, ``up_taken``, ``trump``, ``maker``,
    ``alone``, ``defender``, ``out``, ``discarded``, ``leader``, ``tricks`` (played in this deal),
    ``deal_no``; -1 stands for None. Per-seat arrays are flat, ``x[g * 4 + seat]``: ``hands`` and
    ``dealt`` (card masks), ``table`` (the card on the table, or -1), ``won`` (tricks this deal);
    per-team ones too, ``totals[g * 2 + team]`` and ``last_points`` (the latest deal's points)."""

    game_id = "euchre"
    num_actions = NUM_ACTIONS
    _scalar = E.GAME
    _over = OVER
    players = 4
    rule: str = "greedy"
    """The playout rule of :meth:`playout_actions` and :meth:`greedy_to_deal_end`: ``greedy`` (the
    simple rule, :meth:`greedy_actions`) or ``smart`` (the ``greedy`` bot's, :meth:`smart_actions`).
    Set it on a batch after building it."""
    make: float = 7.5
    """The smart rule's bids: make trump at this strength in round 1 and half a point less in round 2
    (the ``greedy`` bot's ``MAKE``), in twentieths of a point."""
    go_alone: float = 7.0
    """The smart rule goes alone at this strength with no losing off-suit card (the ``greedy`` bot's
    ``ALONE``), in twentieths of a point."""

    def __init__(
        self,
        n: int,
        seed: int | None = None,
        options: E.EuchreOptions | dict[str, Any] | None = None,
        *,
        rng: np.random.Generator | None = None,
        record: bool = False,
        _deal: bool = True,
    ) -> None:
        if options is None:
            options = E.EuchreOptions()
        elif isinstance(options, dict):
            options = E.GAME.options(options)
        options.check(4)
        refuse_research("Euchre", options)
        self.options = options
        self._init_batch(n, rng, seed, record)
        self._bids = _bid_table(options.stick_the_dealer)
        self._target = options.target
        self._deals = options.deals if options.deals is not None else 1 << 30

        def z() -> IntArray:
            return np.zeros(n, dtype=np.int64)

        self.phase, self.dealer, self.turn, self.upcard = z(), z(), z(), z()
        self.up_taken = np.zeros(n, dtype=bool)
        self.alone = np.zeros(n, dtype=bool)
        self.trump, self.maker, self.defender, self.out, self.discarded = z(), z(), z(), z(), z()
        self.leader, self.tricks, self.deal_no = z(), z(), z()
        # the trick in progress: see EFF96 and POWER96; ``best`` is power * 4 + seat of the best card
        self.trow, self.led24, self.best, self.left, self.nactive, self.skip4 = z(), z(), z(), z(), z(), z()
        self.hands = np.zeros(4 * n, dtype=U64)
        self.dealt = np.zeros(4 * n, dtype=U64)
        self.table = np.full(4 * n, -1, dtype=np.int64)
        self.won = np.zeros(4 * n, dtype=np.int64)
        self.totals = np.zeros(2 * n, dtype=np.int64)
        self.last_points = np.zeros(2 * n, dtype=np.int64)
        self._all4 = self._all * 4
        if _deal:
            self.restart(self._all)

    def restart(self, games: npt.ArrayLike) -> None:
        """Start a new match in each of ``games`` (numbers in this batch): a new first dealer, a
        new deal, no score (with a record, the game's chance log starts afresh)."""
        idx = np.asarray(games, dtype=np.int64).reshape(-1)
        self._legal = None
        dealers = self.rng.integers(0, 4, size=len(idx))
        self.dealer[idx] = dealers
        self.deal_no[idx] = 0
        pairs = ((idx * 2)[:, None] + np.arange(2)).reshape(-1)
        self.totals[pairs] = 0
        self.last_points[pairs] = 0
        if self.chance_log is not None:
            for g, d in zip(idx.tolist(), dealers.tolist()):
                self.chance_log[g] = [E.DEALER + d]
        self._new_deal(idx)

    # -- what the games are at ------------------------------------------------------------------
    def played(self) -> BitArray:
        """Flat, like ``hands``: the cards each seat has played in this deal."""
        played = self.dealt & ~self.hands
        dealer = self._all4 + self.dealer
        played[dealer] &= ~BIT[self.discarded & 63]
        return played

    def _legal_small(self) -> tuple[BitArray, BitArray]:
        """The legal actions as ``(mask, band)``: the set is ``mask << band``, and ``mask`` fits in
        24 bits (cards from 0, discards from 24, bids from 48). Cached until the next step."""
        if self._legal is not None:
            return self._legal
        phase = self.phase
        hand = self.hands[self._all4 + self.turn]
        led24 = self.led24
        follow = hand & SUITBITS96[self.trow + led24]
        is_play = phase == PLAY
        play = np.where((led24 >= 0) & (follow != 0), follow, hand)
        if is_play.all():
            self._legal = (play, _BAND[0:1])
            return self._legal
        is_discard = phase == DISCARD
        bids = self._bids[phase * 8 + (self.turn == self.dealer) * 4 + SUIT_T[self.upcard]]
        small = np.where(is_play, play, np.where(is_discard, hand & ~BIT[self.upcard & 63], bids))
        self._legal = (small, _BAND[np.where(is_play, 0, np.where(is_discard, 1, 2))])
        return self._legal

    def scores(self) -> npt.NDArray[np.int64]:
        """``(n, 4)``: each seat's score as the scalar ``Result.scores`` gives it (its team's points)."""
        t = self.totals.reshape(-1, 2)
        return np.stack([t[:, 0], t[:, 1], t[:, 0], t[:, 1]], axis=1)

    def deals(self) -> IntArray:
        """Each game's deal number (``deal_no``)."""
        return self.deal_no.copy()

    # -- stepping --------------------------------------------------------------------------------
    def _layout(self) -> dict[str, int]:
        one = ("phase", "dealer", "turn", "upcard", "up_taken", "alone", "trump", "maker", "defender", "out",
               "discarded", "leader", "tricks", "deal_no", "trow", "led24", "best", "left", "nactive", "skip4")
        return {**{f: 1 for f in one}, "hands": 4, "dealt": 4, "table": 4, "won": 4, "totals": 2, "last_points": 2}

    def _after_take(self) -> None:
        self._all4 = self._all * 4

    def _apply(self, move: npt.NDArray[np.bool_], a: IntArray) -> None:
        phase = self.phase
        play = move & (phase == PLAY)
        if play.all():
            self._play_all(a)
            return
        idx = np.flatnonzero(play)
        rest = move & ~play
        if rest.any():
            # each game moves once: take every phase's games before any of them changes phase
            bid, discard, defend = (np.flatnonzero(rest & m) for m in
                                    ((phase == BID1) | (phase == BID2), phase == DISCARD, phase == DEFEND))
            for group, fn in ((bid, self._bid), (discard, self._discard), (defend, self._defend)):
                if len(group):
                    fn(group, a[group])
        if len(idx):
            self._play(idx, a[idx])

    def greedy_actions(self) -> IntArray:
        """A simple rule per game (-1 for games over). Bids: take the up-card (round 1) or name
        the longest other suit (round 2) with three or more cards of it, counting the left bower
        (and the up-card, for the dealer), else pass; the stuck dealer names the longest suit;
        never alone, never defend alone. Discard: the weakest card. Play, following: when the
        partner's card is winning the trick, or no legal card can win it, the cheapest card to
        throw (the lowest off-suit rank, a trump only when it must); else the cheapest winning
        card when last to play, the strongest legal card otherwise. Leading: the makers lead
        their strongest card (the highest trump first); the defenders their strongest off-suit
        card, a trump only when they hold nothing else."""
        phase = self.phase
        if (phase == PLAY).all():
            return self._greedy_play()
        legal = self.legal_bits()
        n = self.n
        hand = self.hands[self._all4 + self.turn]
        out = np.full(n, -1, dtype=np.int64)
        up = SUIT_T[self.upcard]
        dealer = self.turn == self.dealer
        is_play = phase == PLAY
        if is_play.any():
            out = np.where(is_play, self._greedy_play(), out)
        is_discard = phase == DISCARD
        if is_discard.any():
            # the weakest card: the least power when it leads (a card of ``_KEYS`` kind 1)
            out = np.where(is_discard, E.DISCARD + _pick(legal >> U64(E.DISCARD), 36 + (self.trump & 3)), out)
        # round 1: take the up-card with three of its suit
        n_up = popcount(hand & SUITBITS[up * 5]) + dealer
        out = np.where(phase == BID1, np.where(n_up >= 3, np.where(dealer, E.PICK_UP, E.ORDER_UP), E.PASS), out)
        # round 2: name the longest other suit
        if (phase == BID2).any():
            counts = popcount(hand[:, None] & SUITBITS[_SEATS * 5][None, :])
            counts[self._all, up] = -1
            suit = np.argmax(counts, axis=1)
            longest = counts[self._all, suit]
            must = dealer & self.options.stick_the_dealer
            out = np.where(phase == BID2, np.where((longest >= 3) | must, E.NAME + suit, E.PASS), out)
        out = np.where(phase == DEFEND, E.PASS, out)
        return np.where(phase == OVER, -1, out)

    def _greedy_play(self) -> IntArray:
        """The rule's card in every game in play (what :meth:`greedy_actions` returns for them; the
        entries of games in other phases mean nothing), alone when every game is in play (most
        steps of a playout), without the work for the other phases, in one pass over the cards: each
        game's candidates (a card mask) and what it maximises over them (a row of ``_KEYS``) are
        worked out per game first, then one ``argmax`` over the 24 cards picks every game's card."""
        small, _ = self._legal_small()
        t = self.trump & 3
        led24 = self.led24
        best = self.best
        turn = self.turn
        following = led24 >= 0
        row = np.where(following, t * 4 + led24 // 24, 16 + t)
        top = best >> 2
        beats = small & _BEATS[row * 41 + top]
        # following: throw when the partner wins or nothing can win, else the cheapest winner when
        # last to play, the strongest card otherwise; leading: a defender with an off-suit card leads
        # its strongest off-suit card, everyone else the strongest card
        throw = following & ((((best & 3) == ((turn + 2) & 3)) & (top > 0)) | (beats == 0))
        cheap = following & ~throw & (self.left == 1)
        off = small & ~_TRUMPBITS[t]
        lead_off = ~following & ((turn & 1) != (self.maker & 1)) & (off != 0)
        cands = np.where(cheap, beats, np.where(lead_off, off, small))
        return _pick(cands, np.where(throw, 40, np.where(cheap, 20, 0)) + row)

    def smart_actions(self) -> IntArray:
        """The scalar ``greedy`` bot's choices (:class:`updown.bots.euchre_greedy.EuchreGreedy`) per
        game, -1 for games over: the playout rule ``rule="smart"`` (issue 33, tenth pass). Bids by
        the bot's strength (trumps, off-suit aces, voids; the up-card for or against the dealer's
        team in round 1, the dealer's after its discard), alone with no losing off-suit card; its
        discard; leads that draw trump while it pays and cash winners; second hand low unless it
        can win safely, a partner's card trusted when nobody after can beat it. It reads the cards
        played this deal (what the bot reads from its view's log); the bot's strengths are in
        twentieths here, so its floating-point sums can differ from these exact ones at a bid's
        threshold only."""
        phase = self.phase
        out = np.full(self.n, -1, dtype=np.int64)
        is_play = phase == PLAY
        if is_play.any():
            out = np.where(is_play, self._smart_play(), out)
        if is_play.all():
            return out
        hand = self.hands[self._all4 + self.turn]
        up = self.upcard & 63
        is_discard = phase == DISCARD
        if is_discard.any():
            out = np.where(is_discard, E.DISCARD + smart_discard(hand, self.trump, up), out)
        dealer = self.turn == self.dealer
        make20, alone20 = round(self.make * 20), round(self.go_alone * 20)
        for name, value, twentieths in (("make", self.make, make20), ("go_alone", self.go_alone, alone20)):
            if twentieths != value * 20:
                raise ValueError(f"the smart rule's {name} threshold is a multiple of 0.05, not {value!r}")
        bid1 = phase == BID1
        if bid1.any():
            t = SUIT_T[up]
            mine = np.where(dealer, (hand | BIT[up]) & ~BIT[smart_discard(hand | BIT[up], t, up)], hand)
            worth = _VAL20[up, t] // 2
            side = np.where(dealer, 0, np.where(((self.dealer - self.turn) & 1) == 0, worth, -worth))
            s = strengths(mine)[self._all, t] + side
            losers = mine & ~_TRUMPBITS[t] & ~_ACES[t]
            alone = (s >= alone20) & (losers == 0) & (self.turn != ((self.dealer + 2) & 3))
            make = np.where(dealer, np.where(alone, E.PICK_UP_ALONE, E.PICK_UP),
                            np.where(alone, E.ORDER_UP_ALONE, E.ORDER_UP))
            out = np.where(bid1, np.where(alone | (s >= make20), make, E.PASS), out)
        bid2 = phase == BID2
        if bid2.any():
            st = strengths(hand)
            st[self._all, SUIT_T[up]] = _LOW
            best = st.argmax(axis=1)
            s = st[self._all, best]
            losers = hand & ~_TRUMPBITS[best] & ~_ACES[best]
            alone = (s >= alone20) & (losers == 0)
            must = dealer & self.options.stick_the_dealer
            name = np.where(alone, E.NAME_ALONE + best, E.NAME + best)
            out = np.where(bid2, np.where(alone | (s >= make20 - 10) | must, name, E.PASS), out)
        out = np.where(phase == DEFEND, E.PASS, out)
        return np.where(phase == OVER, -1, out)

    def _smart_play(self) -> IntArray:
        """:meth:`smart_actions`' card in every game in play (the entries of other games mean
        nothing)."""
        small, _ = self._legal_small()
        t = self.trump & 3
        led24 = self.led24
        best = self.best
        turn = self.turn
        hand = self.hands[self._all4 + turn]
        played = np.bitwise_or.reduce(self.played().reshape(-1, 4), axis=1)
        hidden_up = np.where(self.up_taken, U64(0), BIT[self.upcard & 63])
        unseen = _ALL24 & ~hand & ~played & ~hidden_up
        following = led24 >= 0
        row = np.where(following, t * 4 + led24 // 24, 16 + t)
        top = best >> 2
        above = _BEATS[row * 41 + top]
        beats = small & above
        last = self.left == 1
        # following: a partner's winning card is trusted when last or no unseen card beats it; else
        # the cheapest winner that no unseen card beats (not last), else the cheapest winner; a
        # throw (the cheapest card to lose) when nothing wins
        partner = ((best & 3) == ((turn + 2) & 3)) & (top > 0)
        trust = partner & (last | ((unseen & above) == 0))
        strongest_unseen = _pick(unseen, row)
        upow = np.where(unseen != 0, _ROWS.reshape(-1)[row * NUM_CARDS + strongest_unseen], 0)
        safe = beats & _BEATS[row * 41 + upow]
        win = np.where(last | (safe == 0), beats, safe)
        throw = trust | (beats == 0)
        follow = _pick(np.where(throw, small, win), np.where(throw, 40, 20) + row)
        if following.all():
            return follow
        # leading: the makers draw trump with their highest while it is the highest left, or while
        # they hold two trumps or more and the others have some; then an off-suit ace, the highest
        # off-suit card nobody unseen beats in its suit, the lowest off-suit card; with trumps only,
        # the makers their highest, the defenders their lowest
        trumps = small & _TRUMPBITS[t]
        off = small & ~_TRUMPBITS[t]
        makers = (turn & 1) == (self.maker & 1)
        top_trump = _pick(trumps, 16 + t)
        others = unseen & _TRUMPBITS[t]
        boss = (others & _BEATS[(16 + t) * 41 + _ROWS[16 + t, top_trump]]) == 0
        draw = makers & (trumps != 0) & (others != 0) & (boss | (popcount(trumps) >= 2))
        aces = off & _ACES[t]
        bosses = (_bits(off).astype(bool) & ((_HIGHER[t] & unseen[:, None]) == 0)).astype(np.uint8)
        boss_off = np.packbits(bosses, axis=1, bitorder="little")
        boss_bits = (boss_off[:, 0].astype(U64) | (boss_off[:, 1].astype(U64) << U64(8))
                     | (boss_off[:, 2].astype(U64) << U64(16)))
        lead = np.where(
            draw, top_trump, np.where(
                aces != 0, _best(aces, np.zeros(NUM_CARDS, dtype=np.int64)), np.where(
                    boss_bits != 0, _best(boss_bits, _RANK), np.where(
                        off != 0, _best(off, -_RANK), np.where(makers, top_trump, _pick(trumps, 36 + t))))))
        return np.where(following, follow, lead)

    def playout_actions(self) -> IntArray:
        """The playout rule's actions: :meth:`greedy_actions`, or with ``rule="smart"``
        :meth:`smart_actions`."""
        return self.smart_actions() if self.rule == "smart" else self.greedy_actions()

    def greedy_to_deal_end(self, deal: IntArray | None = None) -> None:
        """Play every game by :meth:`greedy_actions` (with ``rule="smart"``: :meth:`smart_actions`) while its deal number is ``deal``'s (by default
        the one it is at; a game already past it does not move) and it is not over: the same games
        and the same draws from the generator as stepping ``greedy_actions()`` with -1 for the games
        whose deal is over, in fewer numpy calls. The rule's actions are legal by construction, so
        they are not checked again (as :meth:`step` does; the tests play both ways), and while every
        game is in play a step has no gathers."""
        deal = self.deal_no.copy() if deal is None else np.asarray(deal, dtype=np.int64)
        if deal.shape != (self.n,):
            raise ValueError(f"greedy_to_deal_end takes one deal number per game: shape ({self.n},), not {deal.shape}")
        over = OVER
        smart = self.rule == "smart"
        while True:
            phase = self.phase
            live = (self.deal_no == deal) & (phase != over)
            if live.all():
                if smart:
                    a = self.smart_actions()
                else:
                    a = self._greedy_play() if (phase == PLAY).all() else self.greedy_actions()
                self._legal = None
                self._apply(live, a)
                continue
            if not live.any():
                return
            a = self.smart_actions() if smart else self.greedy_actions()
            a[~live] = -1
            self._legal = None
            self._apply(live, a)

    def mixed_to_deal_end(self, random_share: npt.ArrayLike, deal: IntArray | None = None) -> None:
        """:meth:`greedy_to_deal_end` with seats that play at random some of the time: at each step
        the seat to act in game ``g`` plays a uniformly random legal action with chance
        ``random_share[g, seat]`` (1: a random player; 1/3: the ``easy`` level; 0: the rule), else
        the playout rule's (:meth:`playout_actions`). Each step draws one number per game from the
        batch's generator for whether to play at random and one for which action, so a batch's
        games are reproducible from its seed (issue 33: Euchre ``hard``'s model of the table,
        :mod:`updown.bots.euchre_model`)."""
        share = np.asarray(random_share, dtype=np.float64)
        if share.shape != (self.n, 4):
            raise ValueError(f"random_share takes one chance per game and seat: shape ({self.n}, 4), not {share.shape}")
        if ((share < 0) | (share > 1)).any():
            raise ValueError("random_share holds chances: every entry between 0 and 1")
        deal = self.deal_no.copy() if deal is None else np.asarray(deal, dtype=np.int64)
        if deal.shape != (self.n,):
            raise ValueError(f"mixed_to_deal_end takes one deal number per game: shape ({self.n},), not {deal.shape}")
        flat = share.reshape(-1)
        over = OVER
        while True:
            live = (self.deal_no == deal) & (self.phase != over)
            if not live.any():
                return
            a = self.playout_actions()
            u = self.rng.random(self.n)
            pick = self.rng.random(self.n)
            use = live & (u < flat[self._all4 + np.maximum(self.turn, 0)])
            if use.any():
                small, band = self._legal_small()
                count = popcount(small)
                k = np.minimum((pick * count).astype(np.int64), np.maximum(count.astype(np.int64) - 1, 0))
                chosen = select_bit(small, k) + band.astype(np.int64)
                a = np.where(use & (count > 0), chosen, a)
            a[~live] = -1
            self._legal = None
            self._apply(live, a)

    # -- chance ----------------------------------------------------------------------------------
    def _new_deal(self, idx: IntArray) -> None:
        """Deal to games ``idx`` (their ``dealer`` set): 5 cards to each seat from the dealer's
        left, then the up-card; the other three cards stay undealt, as in the scalar engine."""
        m = len(idx)
        perm = np.argsort(self.rng.random((m, NUM_CARDS)), axis=1)[:, :21]
        blocks = BIT[perm[:, :20]].reshape(m, 4, 5).sum(axis=2, dtype=U64)  # distinct bits: sum = or
        dealer = self.dealer[idx]
        slots = (idx * 4)[:, None] + ((dealer[:, None] + 1 + _SEATS) & 3)
        self.hands[slots] = blocks
        self.dealt[slots] = blocks
        self.upcard[idx] = perm[:, 20]
        if self.chance_log is not None:
            for g, cards in zip(idx.tolist(), perm.tolist()):
                self.chance_log[g].extend(cards)
        self.phase[idx] = BID1
        self.turn[idx] = (dealer + 1) & 3
        self.deal_no[idx] += 1
        self.up_taken[idx] = False
        self.alone[idx] = False
        for arr in (self.trump, self.maker, self.defender, self.out, self.discarded, self.leader):
            arr[idx] = -1
        self.tricks[idx] = 0
        all_seats = slots.reshape(-1)
        self.table[all_seats] = -1
        self.won[all_seats] = 0

    # -- bidding ---------------------------------------------------------------------------------
    def _bid(self, idx: IntArray, a: IntArray) -> None:
        seat = self.turn[idx]
        dealer = self.dealer[idx]
        first_round = self.phase[idx] == BID1
        passed = a == E.PASS
        if passed.any():
            p = idx[passed]
            last = seat[passed] == dealer[passed]
            self.turn[p] = (seat[passed] + 1) & 3  # the next bidder, or the dealer's left in round 2
            self.phase[p[last & first_round[passed]]] = BID2
            thrown = p[last & ~first_round[passed]]
            if len(thrown):
                self._end_deal(thrown)
        made = ~passed
        if not made.any():
            return
        g, s, a, first = idx[made], seat[made], a[made], first_round[made]
        alone = np.where(first, (a == E.ORDER_UP_ALONE) | (a == E.PICK_UP_ALONE), a >= E.NAME_ALONE)
        self.maker[g] = s
        self.alone[g] = alone
        self.trump[g] = np.where(first, SUIT_T[self.upcard[g]], a - np.where(alone, E.NAME_ALONE, E.NAME))
        out = np.where(alone, (s + 2) & 3, -1)
        self.out[g] = out
        pick = first & (out != self.dealer[g])
        if pick.any():
            p = g[pick]
            slot = p * 4 + self.dealer[p]
            up = BIT[self.upcard[p]]
            self.hands[slot] |= up
            self.dealt[slot] |= up
            self.up_taken[p] = True
            self.phase[p] = DISCARD
            self.turn[p] = self.dealer[p]
        if not pick.all():
            self._after_trump(g[~pick])

    def _discard(self, idx: IntArray, a: IntArray) -> None:
        card = a - E.DISCARD
        self.hands[idx * 4 + self.dealer[idx]] &= ~BIT[card]
        self.discarded[idx] = card
        self._after_trump(idx)

    def _after_trump(self, idx: IntArray) -> None:
        if not self.options.lone_defender:
            self._start_play(idx)
            return
        self.phase[idx] = DEFEND
        first = (self.dealer[idx] + 1) & 3
        self.turn[idx] = np.where((first & 1) == (self.maker[idx] & 1), (first + 1) & 3, first)

    def _defend(self, idx: IntArray, a: IntArray) -> None:
        seat = self.turn[idx]
        alone = a == E.DEFEND_ALONE
        self.defender[idx[alone]] = seat[alone]
        partner = (seat + 2) & 3
        dealer = self.dealer[idx]
        ask_partner = ~alone & (((partner - dealer - 1) & 3) > ((seat - dealer - 1) & 3))
        self.turn[idx[ask_partner]] = partner[ask_partner]
        start = idx[~ask_partner]
        if len(start):
            self._start_play(start)

    # -- play ------------------------------------------------------------------------------------
    def _start_play(self, idx: IntArray) -> None:
        out = self.out[idx]
        defender = self.defender[idx]
        skip = np.where(out >= 0, 1 << (out & 3), 0) | np.where(defender >= 0, 1 << ((defender + 2) & 3), 0)
        self.skip4[idx] = skip * 4
        nactive = 4 - popcount(skip.astype(U64))
        self.nactive[idx] = nactive
        self.left[idx] = nactive
        lead = NEXT[skip * 4 + self.dealer[idx]]
        self.leader[idx] = lead
        self.turn[idx] = lead
        self.phase[idx] = PLAY
        self.trow[idx] = self.trump[idx] * 96
        self.led24[idx] = -1
        self.best[idx] = 0

    def _play(self, idx: IntArray, card: IntArray) -> None:
        """Seat ``turn`` plays ``card`` in each game ``idx``; the trick is resolved as it goes."""
        seat = self.turn[idx]
        slot = self._all4[idx] + seat
        self.hands[slot] &= ~BIT[card]
        self.table[slot] = card
        trow = self.trow[idx]
        led24 = self.led24[idx]
        led24 = np.where(led24 < 0, EFF96[trow + card], led24)
        self.led24[idx] = led24
        best = np.maximum(self.best[idx], POWER96[trow + led24 + card] * 4 + seat)
        self.best[idx] = best
        left = self.left[idx] - 1
        self.left[idx] = left
        complete = left == 0
        self.turn[idx] = np.where(complete, best & 3, NEXT[self.skip4[idx] + seat])
        if not complete.any():
            return
        self._close_tricks(idx[complete], best[complete] & 3)

    def _close_tricks(self, g: IntArray, w: IntArray) -> None:
        """The tricks of games ``g`` are complete, won by seats ``w``: count them, lead the next
        from the winner, clear the table, and end the deals that have no trick left."""
        self.won[g * 4 + w] += 1
        self.leader[g] = w
        self.best[g] = 0
        self.led24[g] = -1
        self.left[g] = self.nactive[g]
        self.table[((g * 4)[:, None] + _SEATS).reshape(-1)] = -1
        tricks = self.tricks[g] + 1
        self.tricks[g] = tricks
        over = g[tricks == E.HAND]
        if len(over):
            self._end_deal(over)

    def _play_all(self, card: IntArray) -> None:
        """:meth:`_play` when every game plays (most steps of a playout): the same, on whole arrays."""
        seat = self.turn
        slot = self._all4 + seat
        self.hands[slot] &= ~BIT[card]
        self.table[slot] = card
        trow = self.trow
        led24 = self.led24
        self.led24 = led24 = np.where(led24 < 0, EFF96[trow + card], led24)
        self.best = best = np.maximum(self.best, POWER96[trow + led24 + card] * 4 + seat)
        self.left = left = self.left - 1
        complete = left == 0
        if not complete.any():
            self.turn = NEXT[self.skip4 + seat]
            return
        self.turn = np.where(complete, best & 3, NEXT[self.skip4 + seat])
        g = np.flatnonzero(complete)
        self._close_tricks(g, best[g] & 3)

    def _end_deal(self, idx: IntArray) -> None:
        won = self.won[(idx * 4)[:, None] + _SEATS]
        teams = np.stack([won[:, 0] + won[:, 2], won[:, 1] + won[:, 3]], axis=1)
        maker = self.maker[idx]
        mt = maker & 1
        made = teams[np.arange(len(idx)), mt]
        alone = self.alone[idx]
        lone_def = self.defender[idx] >= 0
        thrown = maker < 0
        maker_pts = np.where(thrown, 0, np.where(made == 5, np.where(alone, 4, 2), np.where(made >= 3, 1, 0)))
        defender_pts = np.where(~thrown & (made < 3), np.where(lone_def, 4, 2), 0)
        pts0 = np.where(mt == 0, maker_pts, defender_pts)
        pts1 = np.where(mt == 0, defender_pts, maker_pts)
        self.last_points[idx * 2] = pts0
        self.last_points[idx * 2 + 1] = pts1
        t0 = self.totals[idx * 2] + pts0
        t1 = self.totals[idx * 2 + 1] + pts1
        self.totals[idx * 2] = t0
        self.totals[idx * 2 + 1] = t1
        over = (self.deal_no[idx] >= self._deals) | (np.maximum(t0, t1) >= self._target)
        self.phase[idx[over]] = OVER
        self.turn[idx[over]] = -1
        rest = idx[~over]
        if len(rest):
            self.dealer[rest] = (self.dealer[rest] + 1) & 3
            self._new_deal(rest)

    # -- from scalar states -------------------------------------------------------------------------
    @classmethod
    def from_states(
        cls, states: Sequence[State], seed: int | None = None, *, rng: np.random.Generator | None = None,
        record: bool = False, view: View | None = None, repeats: int = 1,
    ) -> BatchedEuchre:
        """A batch that continues each of ``states`` (scalar Euchre states at a decision or over).

        Everything is read through the protocol: each seat's ``view`` (its hand, the dealer's
        discard and the public state). All states must share their options. Later deals are drawn
        from ``rng``.

        ``view``: the view of one seat from which every state was drawn (worlds of one decision's
        information set, as ``game.world_sampler(view)`` draws them). The public state and that
        seat's hand are then read once, from it, and each state gives only the other three seats'
        views (their hands, the dealer's discard); a state whose public state is not the view's
        (its phase, deal, seats to act, table or tricks) is refused. ``repeats`` (with ``view``): each
        state ``repeats`` times in a row (game ``i * repeats + r``), as ``take`` of each state's game
        that many times would give, without the copy."""
        if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
            raise ValueError(f"repeats must be a positive integer, not {repeats!r}")
        if repeats > 1 and view is None:
            raise ValueError("from_states repeats states only with view= (else take the batch's games)")
        if not states:
            raise ValueError("from_states needs at least one state")
        options = getattr(states[0], "options", None)
        for st in states:
            if st.game.id != "euchre":
                raise ValueError(f"BatchedEuchre continues euchre states, not {st.game.id}")
            if st.is_chance():
                raise ValueError("a state to continue must be at a decision or over, not at chance "
                                 f"({st.chance_label()}): resolve chance first")
            if getattr(st, "options", None) != options:
                raise ValueError("all states in a batch must share their options")
        assert isinstance(options, E.EuchreOptions)
        b = cls(len(states) * repeats, options=options, rng=rng if rng is not None else np.random.default_rng(seed),
                record=record, _deal=False)
        if view is None:
            publics, hands, discards = [], [], []
            for st in states:
                views = [st.view(s) for s in range(4)]
                pub = _Public(views[0])
                publics.append(pub)
                if pub.over:
                    hands.append([0, 0, 0, 0])
                    discards.append(-1)
                    continue
                hands.append([_hand(v["hand"]) for v in views])
                discards.append(_card(views[pub.dealer]["discard"]) if views[pub.dealer].get("discard") else -1)
            b._fill(publics, hands, discards)
            return b
        seat = view.get("seat")
        if type(seat) is not int or not 0 <= seat < 4:
            raise ValueError("from_states(view=...) needs a seat's view, not a spectator's")
        pub = _Public(view)
        n = b.n
        if pub.over:
            b._fill([pub] * n, [[0, 0, 0, 0]] * n, [-1] * n)
            return b
        own = _hand(view["hand"])
        dealer = pub.dealer
        own_discard = _card(view["discard"]) if view.get("discard") else -1
        others = [s for s in range(4) if s != seat]
        hands, discards = [], []
        public = (view["phase"], view["deal"], view["to_act"], view["table"], view["tricks"])
        for st in states:
            h = [own, own, own, own]
            d = own_discard
            for s in others:
                v = st.view(s)
                if (v["phase"], v["deal"], v["to_act"], v["table"], v["tricks"]) != public:
                    raise ValueError("a state's public state is not the view's: worlds drawn from another "
                                     "view, or the state moved on")
                h[s] = _hand(v["hand"])
                if s == dealer and v.get("discard"):
                    d = _card(v["discard"])
            hands.append(h)
            discards.append(d)
        if repeats > 1:
            hands = [h for h in hands for _ in range(repeats)]
            discards = [d for d in discards for _ in range(repeats)]
        b._fill([pub] * n, hands, discards)
        return b

    def _fill(self, publics: Sequence[_Public], hands: Sequence[Sequence[int]], discards: Sequence[int]) -> None:
        """Set every game's arrays at once: game ``g`` has the public state ``publics[g]``, the
        hands ``hands[g]`` (card masks by seat) and the dealer's discard ``discards[g]`` (-1: none
        or hidden from nobody, since no seat's view shows one)."""
        n = self.n
        shared = all(p is publics[0] for p in publics)

        def col(name: str) -> IntArray:
            if shared:
                return np.full(n, getattr(publics[0], name), dtype=np.int64)
            return np.array([getattr(p, name) for p in publics], dtype=np.int64)

        def flat(name: str, width: int) -> IntArray:
            if shared:
                return np.tile(np.asarray(getattr(publics[0], name), dtype=np.int64), n)
            return np.array([getattr(p, name) for p in publics], dtype=np.int64).reshape(n * width)

        for name in ("phase", "turn", "dealer", "upcard", "trump", "maker", "defender", "out", "leader", "tricks",
                     "skip4", "nactive", "left", "trow", "led24", "best"):
            setattr(self, name, col(name))
        self.deal_no = col("deal")
        self.up_taken = col("up_taken").astype(bool)
        self.alone = col("alone").astype(bool)
        self.totals = flat("totals", 2)
        self.won = flat("won", 4)
        self.table = flat("table", 4)
        self.discarded = np.array(discards, dtype=np.int64)
        self.hands = np.array(hands, dtype=U64).reshape(4 * n)
        played = flat("played", 4).astype(U64)
        disc = self.discarded
        dealt_discard = np.where(disc >= 0, BIT[disc & 63], U64(0))
        is_dealer = (np.arange(4)[None, :] == col("dealer")[:, None]).reshape(4 * n) & ~np.repeat(col("over") != 0, 4)
        self.dealt = self.hands | played | np.where(is_dealer, np.repeat(dealt_discard, 4), U64(0))
        self._legal = None


_CARD_BITS = {text: 1 << i for i, text in enumerate(E.CARD_STR)}


def _hand(cards: Sequence[str]) -> int:
    """A card mask from a view's hand (one dict look-up a card for the ASCII notation views use)."""
    bits = _CARD_BITS
    mask = 0
    try:
        for c in cards:
            mask |= bits[c]
    except KeyError:
        mask = 0
        for c in cards:
            mask |= 1 << _card(c)
    return mask


class _Public:
    """What a batched game's arrays hold of a scalar state's public part, read once from a view
    (any seat's or the spectator's): the fields of :class:`BatchedEuchre` that no hand changes, and
    per seat the cards it has played in this deal (``played``, the tricks and the table)."""

    __slots__ = ("over", "phase", "deal", "totals", "won", "turn", "dealer", "upcard", "up_taken", "trump", "maker",
                 "alone", "defender", "out", "leader", "tricks", "played", "table", "skip4", "nactive", "left",
                 "trow", "led24", "best")

    def __init__(self, v: View) -> None:
        phase = int(E.Phase[v["phase"].upper()])
        self.phase = phase
        self.over = phase == OVER
        self.deal = v["deal"]
        self.totals = list(v["totals"])
        self.won = list(v["tricks"])
        self.table = [-1, -1, -1, -1]
        self.played = [0, 0, 0, 0]
        # A game over keeps the rest as a new batch has it (0), its turn -1.
        self.turn = -1
        self.dealer = self.upcard = self.trump = self.maker = self.defender = self.out = self.leader = 0
        self.up_taken = self.alone = False
        self.tricks = self.skip4 = self.nactive = self.left = self.trow = self.led24 = self.best = 0
        if self.over:
            return
        self.dealer = v["dealer"]
        self.turn = v["to_act"][0]
        self.upcard = _card(v["upcard"])
        self.up_taken = v["up_taken"]
        trump = "CDHS".index(v["trump"]) if v["trump"] else -1
        self.trump = trump
        maker = v["maker"]
        self.maker = maker if maker is not None else -1
        self.alone = v["alone"]
        self.defender = v["defender"] if v["defender"] is not None else -1
        self.out = (maker + 2) & 3 if v["alone"] else -1
        self.leader = v["leader"] if v["leader"] is not None else -1
        self.tricks = sum(v["tricks"])
        played = self.played
        deal = v["deal"]
        for e in reversed(v["log"]):  # this deal's tricks are at the log's end
            kind = e["type"]
            if kind == "trick":
                if e["deal"] != deal:
                    break
                for s, c in zip(e["seats"], e["cards"]):
                    played[s] |= 1 << _card(c)
            elif kind in ("score", "dealer", "upcard"):
                break
        for s, c in v["table"]:
            played[s] |= 1 << _card(c)
        if phase == PLAY:
            skip = 0
            for s in v["out"]:
                skip |= 1 << s
            self.skip4 = skip * 4
            self.nactive = 4 - bin(skip).count("1")
            self.left = self.nactive - len(v["table"])
            self.trow = trump * 96
            led24 = -1
            best = 0
            for s, c in v["table"]:
                card = _card(c)
                self.table[s] = card
                if led24 < 0:
                    led24 = E.EFF[trump][card] * 24
                best = max(best, E.POWER[trump][led24 // 24][card] * 4 + s)
            self.led24 = led24
            self.best = best
