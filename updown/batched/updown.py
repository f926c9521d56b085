"""UP&DOWN, many games at once: the rules of ``updown.games.updown`` over numpy arrays.

One :class:`BatchedUpDown` holds ``n`` matches for the same number of players (2 to 4) and options
(``rounds``, ``tiebreak_rounds``). Every game is always at a seat's decision or over: chance (the
deal, the dice, the toss, the orientation, a re-roll) is drawn from the engine's seeded
``numpy.random.Generator`` as soon as it is due, with the scalar engine's distributions (a re-roll
is uniform over the dice pairs whose sum differs from the old trump).

Action ids are the scalar engine's (cards 0-43, ``flip`` 44, ``rotate C..S`` 45-48, ``roll`` 49).
The secret simultaneous choice is taken one seat at a time, lowest seat first, as a driver asks
``actors()[0]``; a seat's choice stays in ``pending`` until the last is in, then the trick is
resolved for every game that completed one. With ``record=True`` the engine keeps, per game, the
chance outcomes it drew as scalar action ids (``chance_log``) in the order the scalar engine asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from updown.batched.base import BatchedGame, refuse_research
from updown.batched.bits import BIT, U64, BitArray, IntArray, expand
from updown.core.cards import Suit
from updown.core.protocol import State
from updown.games import updown as U

NUM_CARDS = U.NUM_CARDS  # 44
NUM_ACTIONS = U.NUM_ACTIONS
LEAD, CHOOSE, OVER = int(U.Phase.LEAD), int(U.Phase.CHOOSE), int(U.Phase.OVER)

VALUE_T: IntArray = np.array(U.VALUE, dtype=np.int64)
SUIT_T: IntArray = np.array(U.SUIT, dtype=np.int64)
_CLUBS_SIDE = U.SIDES.index(Suit.CLUBS)
_SIDE_OF_SUIT = [U.SIDES.index(Suit(s)) for s in range(4)]
_PAIRS = [(a, b) for a in range(1, 7) for b in range(1, 7)]  # pair k is the action DICE + k
_ALLOWED = np.zeros(13 * 36, dtype=np.int64)
"""``_ALLOWED[old * 36 + i]``: the i-th dice pair whose sum is not ``old`` (old 0: any pair)."""
_N_ALLOWED = np.zeros(13, dtype=np.int64)
for _old in range(13):
    _ok = [k for k, (a, b) in enumerate(_PAIRS) if a + b != _old]
    _ALLOWED[_old * 36: _old * 36 + len(_ok)] = _ok
    _N_ALLOWED[_old] = len(_ok)
_PAIR_SUM = np.array([a + b for a, b in _PAIRS], dtype=np.int64)
_LOWEST = np.array([(m & -m).bit_length() - 1 if m else -1 for m in range(16)], dtype=np.int64)
"""``_LOWEST[mask]``: the lowest seat in a 4-bit seat mask."""
_LEAD_BAND = U64(U.FLIP)
_WAYS = np.array([sum(1 for a, b in _PAIRS if a + b == t) for t in range(13)], dtype=np.float64)
_NEW_TRUMP = np.array([np.where(np.arange(13) == old, 0.0, _WAYS) / (36 - _WAYS[old]) for old in range(13)])
"""``_NEW_TRUMP[old, t]``: the chance that a re-roll from trump value ``old`` makes ``t`` the trump."""
_KEEP = np.abs(VALUE_T - 7) / 5.0
"""What the ``greedy`` bot counts a card worth keeping (``UpDownGreedy._keep_value``)."""
_COLUMN = VALUE_T - 2
"""A card's value as a column of a suit's row (card ids are suit-major, values 2 to 12)."""
_ALL_CARDS = U64((1 << NUM_CARDS) - 1)
SmallArray = npt.NDArray[np.int16]


def _tables(n: int) -> tuple[IntArray, IntArray, IntArray, BitArray]:
    """For ``n`` players: own suits ``[orient * 4 + seat]``, the first leader ``[orient]``, the
    orientation after a rotation ``[seat * 4 + suit]``, the leader's options ``[own suit]`` (from FLIP)."""
    pos = U.POSITIONS[n]
    own = np.zeros(16, dtype=np.int64)
    first = np.zeros(4, dtype=np.int64)
    for r in range(4):
        for seat, p in enumerate(pos):
            own[r * 4 + seat] = int(U.SIDES[(p + r) % 4])
        clubs = (_CLUBS_SIDE - r) % 4
        first[r] = next(pos.index((clubs + k) % 4) for k in range(4) if (clubs + k) % 4 in pos)
    rotation = np.zeros(16, dtype=np.int64)
    for seat, p in enumerate(pos):
        for suit in range(4):
            rotation[seat * 4 + suit] = (_SIDE_OF_SUIT[suit] - p) % 4
    lead = np.array([sum(1 << (a - U.FLIP) for a in (U.FLIP, *(U.ROTATE + o for o in range(4) if o != s), U.ROLL))
                     for s in range(4)], dtype=U64)
    return own, first, rotation, lead


_CARD_IDS = {text: i for i, text in enumerate(U.CARD_STR)}


def _card(text: str) -> int:
    """A card id from a view's notation (fast for the ASCII notation views use)."""
    i = _CARD_IDS.get(text)
    return i if i is not None else U.card_id(text)


class BatchedUpDown(BatchedGame):
    """``n`` UP&DOWN matches for ``players`` seats, stepped together.

    Per-game arrays (length ``n``): ``phase`` (the scalar ``Phase`` values LEAD, CHOOSE, OVER),
    ``turn`` (the leader, or the next seat to choose), ``leader``, ``up``, ``orient`` (the side
    facing position 0, as the scalar engine numbers it), ``trump``, ``dice`` (the scalar action of
    the roll that counts), ``trick``, ``pot``, ``discarded``, ``round``, ``rounds``, ``tiebreaks``,
    ``waiting`` (the seats yet to choose, a mask). Per-seat arrays are flat, ``x[g * players +
    seat]``: ``hands`` (card masks), ``pending`` (the secret choice, or -1), ``tricks`` (this
    round), ``totals``; ``played`` (per game): the cards of this round's finished tricks.

    Two playout rules besides random play: ``greedy`` (:meth:`greedy_actions`, a simple fast
    rule) and ``bot`` (:meth:`bot_actions`, exactly what the ``greedy`` bot of
    ``updown.bots.updown_greedy`` plays in each seat's place)."""

    game_id = "updown"
    num_actions = NUM_ACTIONS
    _scalar = U.GAME
    _over = OVER

    def __init__(
        self,
        n: int,
        seed: int | None = None,
        players: int = 4,
        options: U.UpDownOptions | dict[str, Any] | None = None,
        *,
        rng: np.random.Generator | None = None,
        record: bool = False,
        _deal: bool = True,
    ) -> None:
        if players not in U.POSITIONS:
            raise ValueError(f"UP&DOWN is for 2 to 4 players, not {players!r}")
        if options is None:
            options = U.UpDownOptions()
        elif isinstance(options, dict):
            options = U.GAME.options(options)
        options.check(players)
        refuse_research("UP&DOWN", options)
        self.options = options
        self.players = players
        self.hand_size = U.HAND_SIZE[players]
        self._init_batch(n, rng, seed, record)
        self._own, self._first, self._rotation, self._lead = _tables(players)

        def z() -> IntArray:
            return np.zeros(n, dtype=np.int64)

        self.phase, self.turn, self.leader, self.orient, self.trump, self.dice = z(), z(), z(), z(), z(), z()
        self.up = np.zeros(n, dtype=bool)
        self.played = np.zeros(n, dtype=U64)
        self.trick, self.pot, self.discarded, self.round, self.tiebreaks, self.waiting = z(), z(), z(), z(), z(), z()
        self.rounds = np.full(n, options.planned_rounds(players), dtype=np.int64)
        self.hands = np.zeros(players * n, dtype=U64)
        self.pending = np.full(players * n, -1, dtype=np.int64)
        self.tricks = np.zeros(players * n, dtype=np.int64)
        self.totals = np.zeros(players * n, dtype=np.int64)
        self._seats = np.arange(players, dtype=np.int64)
        self._all_waiting = (1 << players) - 1
        if _deal:
            self.restart(self._all)

    def restart(self, games: npt.ArrayLike) -> None:
        """Start a new match in each of ``games`` (numbers in this batch): the first round's
        setup, no score (with a record, the game's chance log starts afresh)."""
        idx = np.asarray(games, dtype=np.int64).reshape(-1)
        self._legal = None
        self.round[idx] = -1
        self.rounds[idx] = self.options.planned_rounds(self.players)
        self.tiebreaks[idx] = 0
        self.totals[((idx * self.players)[:, None] + self._seats).reshape(-1)] = 0
        if self.chance_log is not None:
            for g in idx.tolist():
                self.chance_log[g] = []
        self._new_round(idx)

    # -- what the games are at ------------------------------------------------------------------
    def own_suits(self) -> IntArray:
        """``(n, players)``: the suit (0-3, C D H S) facing each seat now."""
        own: IntArray = self._own[(self.orient * 4)[:, None] + self._seats]
        return own

    def _legal_small(self) -> tuple[BitArray, BitArray]:
        if self._legal is not None:
            return self._legal
        phase = self.phase
        hand = self.hands[self._all * self.players + self.turn]
        lead = self._lead[self._own[self.orient * 4 + self.turn]]
        choose = phase == CHOOSE
        small = np.where(choose, hand, np.where(phase == LEAD, lead, U64(0)))
        self._legal = (small, np.where(choose, U64(0), _LEAD_BAND))
        return self._legal

    def scores(self) -> npt.NDArray[np.int64]:
        """``(n, players)``: each seat's total tricks, as the scalar ``Result.scores`` gives them."""
        return self.totals.reshape(-1, self.players).copy()

    def deals(self) -> IntArray:
        """Each game's round number (tie-break rounds count on)."""
        return self.round.copy()

    # -- stepping --------------------------------------------------------------------------------
    def _layout(self) -> dict[str, int]:
        one = ("phase", "turn", "leader", "orient", "trump", "dice", "up", "trick", "pot", "discarded", "round",
               "tiebreaks", "waiting", "rounds", "played")
        n = self.players
        return {**{f: 1 for f in one}, "hands": n, "pending": n, "tricks": n, "totals": n}

    def _apply(self, move: npt.NDArray[np.bool_], a: IntArray) -> None:
        phase = self.phase
        choose = move & (phase == CHOOSE)
        lead = np.flatnonzero(move & (phase == LEAD))
        if choose.all():
            self._choose(self._all, a)
        elif choose.any():
            idx = np.flatnonzero(choose)
            self._choose(idx, a[idx])
        if len(lead):
            self._lead_action(lead, a[lead])

    def greedy_actions(self) -> IntArray:
        """A simple rule per game (-1 for games over): the leader takes the change that leaves
        its hand strongest (:meth:`_lead_strength`); a seat choosing plays a card of the trump
        value if it holds one, else its best card of its own suit (the highest on UP, the lowest
        on DOWN), else its lowest card id."""
        out = self.random_actions()
        lead = self.phase == LEAD
        if lead.any():
            out[lead] = self._greedy_lead(np.flatnonzero(lead))
        choose = self.phase == CHOOSE
        if choose.any():
            hand = self.hands[self._all * self.players + self.turn]
            own = self._own[self.orient * 4 + self.turn]
            rank = np.where(self.up[:, None], VALUE_T[None, :], 20 - VALUE_T[None, :])
            score = np.where(VALUE_T[None, :] == self.trump[:, None], 100,
                             np.where(SUIT_T[None, :] == own[:, None], rank, -1))
            best = np.argmax(np.where(expand(hand, NUM_CARDS), score, -2), axis=1)
            out = np.where(choose, best, out)
        return out

    def _greedy_lead(self, g: IntArray) -> IntArray:
        """The leader's change in games ``g``: flip, a rotation to each other suit, or the re-roll
        (its expectation over the new trump value), whichever scores the hand best. A card scores
        1 if it is of the trump value, else, in the leader's own suit, the square of how extreme
        it is in the direction of play (a queen on UP, a 2 on DOWN: 1), else 0."""
        seat = self.turn[g]
        hand = expand(self.hands[g * self.players + seat], NUM_CARDS).astype(np.float64)  # (m, 44)
        own = self._own[self.orient[g] * 4 + seat]
        up, trump = self.up[g], self.trump[g]
        high = ((VALUE_T - 2) / 10.0) ** 2  # per card: its extremeness on UP
        low = ((12 - VALUE_T) / 10.0) ** 2

        def suited(suit: IntArray, on_up: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
            rank = np.where(on_up[:, None], high[None, :], low[None, :])
            return np.where(SUIT_T[None, :] == suit[:, None], rank, 0.0)

        is_trump = VALUE_T[None, :] == trump[:, None]
        scores = np.full((len(g), 6), -np.inf)  # flip, rotations to suits 0..3, roll
        scores[:, 0] = (hand * np.where(is_trump, 1.0, suited(own, ~up))).sum(axis=1)
        for s in range(4):
            to = np.full(len(g), s)
            value = (hand * np.where(is_trump, 1.0, suited(to, up))).sum(axis=1)
            scores[:, 1 + s] = np.where(own == s, -np.inf, value)
        p = _NEW_TRUMP[trump][:, VALUE_T]  # (m, 44): the chance each card's value becomes trump
        scores[:, 5] = (hand * (p + (1 - p) * suited(own, up))).sum(axis=1)
        best = np.argmax(scores, axis=1)
        actions: IntArray = np.where(best == 0, U.FLIP, np.where(best == 5, U.ROLL, U.ROTATE + best - 1))
        return actions

    def retract(self, keep: int) -> None:
        """Take back every secret choice of this trick but seat ``keep``'s: the cards go back to
        their hands and those seats must choose again (the lowest first). A search that drew the
        others' hidden choices at random from its view can have them made by its playout rule
        instead, from the hands of each world."""
        n = self.players
        slots = (self._all * n)[:, None] + self._seats
        pending = self.pending[slots]
        back = (pending >= 0) & (self._seats[None, :] != keep)
        if not back.any():
            return
        rows, seats = np.nonzero(back)
        flat = slots[rows, seats]
        self.hands[flat] |= BIT[pending[rows, seats]]
        self.pending[flat] = -1
        np.bitwise_or.at(self.waiting, rows, np.left_shift(1, seats))
        g = np.unique(rows)
        self.turn[g] = _LOWEST[self.waiting[g]]
        self._legal = None

    # -- the greedy bot's rule, exactly ------------------------------------------------------------
    def bot_actions(self) -> IntArray:
        """What ``updown.bots.updown_greedy.UpDownGreedy`` plays in each game's seat to act, from
        that seat's view of the game (-1 for games over): the same estimates, in the same
        floating-point steps, so the same choice, ties included (the lowest card, the lowest
        action). Its cost is about that of a few random steps; the tests check it against the bot."""
        out = np.full(self.n, -1, dtype=np.int64)
        lead = np.flatnonzero(self.phase == LEAD)
        if len(lead):
            out[lead] = self._bot_lead(lead)
        choose = np.flatnonzero(self.phase == CHOOSE)
        if len(choose):
            out[choose] = self._bot_choose(choose)
        return out

    def _seen_by_turn(self, g: IntArray) -> tuple[BitArray, SmallArray, SmallArray, IntArray]:
        """For the seat to act in games ``g``: its hand, and the cards it has not seen this round
        as ``(m, 4, 11)`` counts by suit and value, their counts by value and their number (at
        least 1, as the bot divides by it)."""
        hand = self.hands[g * self.players + self.turn[g]]
        unseen = expand(_ALL_CARDS & ~(hand | self.played[g]), NUM_CARDS)
        count = unseen.reshape(len(g), 4, 11).astype(np.int16)  # small counts: less memory to stream
        by_value = count.sum(axis=1, dtype=np.int16)
        total = np.maximum(by_value.sum(axis=1, dtype=np.int64), 1)[:, None]
        return hand, count, by_value, total

    def _value_chances(self, count: SmallArray, by_value: SmallArray, total: IntArray, suits: IntArray,
                       me: IntArray, up: npt.NDArray[np.bool_], trump: IntArray, source: IntArray | None = None,
                       ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``UpDownGreedy._win_chances`` by value: ``(r, 11)`` the chance that seat ``me``'s card
        of its own suit and each value (2 to 12; not the trump value) wins the trick against
        opponents playing random unseen cards, and ``(r,)`` the chance for a card of the trump
        value. ``suits``: ``(r, players)``, each seat's own suit. The products are taken in the
        bot's order, seat by seat, so the floats are the bot's own. With ``source``, row ``i`` reads
        the unseen cards (``count``, ``by_value``, ``total``) of row ``source[i]``."""
        r = len(me)
        rows = np.arange(r)
        counted = rows if source is None else source
        if source is not None:
            by_value, total = by_value[source], total[source]
        column = trump - 2
        trumps = by_value[rows, column][:, None]
        off_trump = np.arange(11)[None, :] != column[:, None]
        trump_factor = np.maximum(0.0, 1.0 - trumps[:, 0] / total[:, 0])
        p = np.ones((r, 11))
        p_trump = np.ones(r)
        base = by_value + trumps
        up_ = up[:, None]
        for k in range(self.players):
            row = count[counted, suits[:, k]] * off_trump  # seat k's suit, the trump value left out
            upto = np.cumsum(row, axis=1, dtype=np.int16)  # below a value: upto - row; above it: all - upto
            better = np.where(up_, upto[:, -1:] - upto, upto - row)
            factor = np.maximum(0.0, 1.0 - (base + better) / total)
            mine = me == k
            factor[mine] = 1.0  # the seat's own place in the bot's product: skipped
            p *= factor
            p_trump = np.where(mine, p_trump, p_trump * trump_factor)
        return p, p_trump

    def _bot_choose(self, g: IntArray) -> IntArray:
        hand, count, by_value, total = self._seen_by_turn(g)
        me, trump = self.turn[g], self.trump[g]
        suits = self._own[(self.orient[g] * 4)[:, None] + self._seats]
        p, p_trump = self._value_chances(count, by_value, total, suits, me, self.up[g], trump)
        own = suits[np.arange(len(g)), me]
        chances = np.where(VALUE_T[None, :] == trump[:, None], p_trump[:, None],
                           np.where(SUIT_T[None, :] == own[:, None], p[:, _COLUMN], 0.0))
        stake = (1 + self.pot[g])[:, None]
        keep = np.where(self.trick[g] + 1 < self.hand_size, 0.1, 0.0)[:, None]
        score = np.where(expand(hand, NUM_CARDS), chances * stake - keep * _KEEP[None, :], -np.inf)
        best: IntArray = np.argmax(score, axis=1)  # ties: the lowest card, as the bot
        return best

    def _bot_lead(self, g: IntArray) -> IntArray:
        """The bot's change: every option (flip, a rotation to each other suit, the re-roll to each
        new trump value) is one row of a stacked batch, scored by the hand's best card then."""
        m = len(g)
        hand, count, by_value, total = self._seen_by_turn(g)
        me, up, trump = self.turn[g], self.up[g], self.trump[g]
        seats = self._seats[None, :]
        suits = self._own[(self.orient[g] * 4)[:, None] + seats]
        own = suits[np.arange(m), me]
        # Rows: flip; rotations so that suit 0..3 faces the leader; re-rolls to trump 2..12.
        option_suits = [suits] + [self._own[(self._rotation[me * 4 + s] * 4)[:, None] + seats] for s in range(4)]
        option_suits += [suits] * 11
        option_up = [~up] + [up] * 15
        option_trump = [trump] * 5 + [np.full(m, t) for t in range(2, 13)]
        k = 16
        st_suits = np.concatenate(option_suits)
        st_trump = np.concatenate(option_trump)
        st_me = np.tile(me, k)
        p, p_trump = self._value_chances(count, by_value, total, st_suits, st_me, np.concatenate(option_up), st_trump,
                                         source=np.arange(k * m) % m)
        # The hand's chances, best first: its cards of its own suit (not of the trump value) and
        # its cards of the trump value; every other card has no chance.
        held = expand(hand, NUM_CARDS).reshape(m, 4, 11)
        rows = np.arange(k * m)
        source = rows % m
        column = st_trump - 2
        suited = held[source, st_suits[rows, st_me]] & (np.arange(11)[None, :] != column[:, None])
        trumps_held = held[source, :, column].sum(axis=1)
        ranked = np.concatenate([np.where(suited, p, -1.0),
                                 np.where(np.arange(4)[None, :] < trumps_held[:, None], p_trump[:, None], -1.0)], axis=1)
        top = np.maximum(-np.sort(-ranked, axis=1)[:, :4], 0.0)  # fewer than four: nothing to add
        stake = np.tile((1 + self.pot[g]).astype(np.float64), k)
        value = (top[:, 0] * stake + 0.1 * ((top[:, 1] + top[:, 2]) + top[:, 3])).reshape(k, m)
        values = np.empty((m, 6))  # flip, rotations to suits 0..3, roll: ascending action ids
        values[:, 0] = value[0]
        values[:, 1:5] = np.where(np.arange(4)[None, :] == own[:, None], -np.inf, value[1:5].T)
        roll = np.zeros(m)
        ways_left = 36 - _WAYS[trump]
        for t in range(2, 13):  # summed in the bot's order
            roll = np.where(trump == t, roll, roll + (_WAYS[t] / ways_left) * value[5 + t - 2])
        values[:, 5] = roll
        pick = np.argmax(values, axis=1)  # ties: the lowest action id, as the bot
        actions: IntArray = U.FLIP + pick
        return actions

    # -- chance ----------------------------------------------------------------------------------
    def _roll(self, idx: IntArray, old: IntArray) -> None:
        """Roll the dice for games ``idx`` until the sum differs from ``old`` (0: any roll)."""
        k = (self.rng.random(len(idx)) * _N_ALLOWED[old]).astype(np.int64)
        pair = _ALLOWED[old * 36 + k]
        self.dice[idx] = U.DICE + pair
        self.trump[idx] = _PAIR_SUM[pair]
        if self.chance_log is not None:
            for g, p in zip(idx.tolist(), pair.tolist()):
                self.chance_log[g].append(U.DICE + p)

    def _new_round(self, idx: IntArray) -> None:
        """Set up a round for games ``idx``: deal, dice, toss, orientation, the first leader."""
        m = len(idx)
        n, hs = self.players, self.hand_size
        perm = np.argsort(self.rng.random((m, NUM_CARDS)), axis=1)[:, : n * hs]
        slots = (idx * n)[:, None] + self._seats
        self.hands[slots] = BIT[perm].reshape(m, n, hs).sum(axis=2, dtype=U64)  # distinct bits: sum = or
        if self.chance_log is not None:
            for g, cards in zip(idx.tolist(), perm.tolist()):
                self.chance_log[g].extend(cards)
        self._roll(idx, np.zeros(m, dtype=np.int64))
        up = self.rng.random(m) < 0.5
        orient = self.rng.integers(0, 4, size=m)
        if self.chance_log is not None:
            for g, u, r in zip(idx.tolist(), up.tolist(), orient.tolist()):
                self.chance_log[g].extend((U.TOSS_UP if u else U.TOSS_DOWN, U.ORIENT + int(U.SIDES[r])))
        self.up[idx] = up
        self.orient[idx] = orient
        leader = self._first[orient]
        self.leader[idx] = leader
        self.turn[idx] = leader
        self.phase[idx] = LEAD
        self.round[idx] += 1
        self.trick[idx] = 0
        self.pot[idx] = 0
        self.discarded[idx] = 0
        self.played[idx] = 0
        flat = slots.reshape(-1)
        self.pending[flat] = -1
        self.tricks[flat] = 0

    # -- the leader's change -----------------------------------------------------------------------
    def _lead_action(self, idx: IntArray, a: IntArray) -> None:
        flip = a == U.FLIP
        self.up[idx[flip]] = ~self.up[idx[flip]]
        rot = (a >= U.ROTATE) & (a < U.ROTATE + 4)
        if rot.any():
            g = idx[rot]
            self.orient[g] = self._rotation[self.turn[g] * 4 + (a[rot] - U.ROTATE)]
        roll = a == U.ROLL
        if roll.any():
            g = idx[roll]
            self._roll(g, self.trump[g])
        self.phase[idx] = CHOOSE
        self.waiting[idx] = self._all_waiting
        self.turn[idx] = 0

    # -- the secret choice and the trick -------------------------------------------------------------
    def _choose(self, idx: IntArray, card: IntArray) -> None:
        seat = self.turn[idx]
        slot = idx * self.players + seat
        self.hands[slot] &= ~BIT[card]
        self.pending[slot] = card
        waiting = self.waiting[idx] & ~(1 << seat)
        self.waiting[idx] = waiting
        self.turn[idx] = _LOWEST[waiting]
        complete = waiting == 0
        if complete.any():
            self._resolve(idx[complete])

    def _resolve(self, idx: IntArray) -> None:
        n = self.players
        m = len(idx)
        rows = np.arange(m)
        slots = (idx * n)[:, None] + self._seats
        cards = self.pending[slots]
        self.played[idx] |= BIT[cards].sum(axis=1, dtype=U64)  # distinct bits: sum = or
        values = VALUE_T[cards]
        cancelled = (values[:, :, None] == values[:, None, :]).sum(axis=2) > 1
        is_trump = ~cancelled & (values == self.trump[idx][:, None])
        own = self._own[(self.orient[idx] * 4)[:, None] + self._seats]
        eligible = ~cancelled & ~is_trump & (SUIT_T[cards] == own)
        rank = np.where(self.up[idx][:, None], values, 20 - values)
        score = np.where(is_trump, 99, np.where(eligible, rank, -1))
        winner = np.argmax(score, axis=1)
        has = score[rows, winner] >= 0
        pot = self.pot[idx]
        last = self.trick[idx] == self.hand_size - 1
        w = slots[rows, winner][has]
        taken = pot[has] + 1
        self.tricks[w] += taken
        self.totals[w] += taken
        new_pot = np.where(has, 0, pot + 1)
        self.discarded[idx] += np.where(last, new_pot, 0)
        self.pot[idx] = np.where(last, 0, new_pot)
        self.pending[slots.reshape(-1)] = -1
        self.leader[idx] = (self.leader[idx] + 1) % n
        self.trick[idx] += 1
        going = idx[~last]
        self.phase[going] = LEAD
        self.turn[going] = self.leader[going]
        ended = idx[last]
        if len(ended):
            self._end_round(ended)

    def _end_round(self, idx: IntArray) -> None:
        more = self.round[idx] + 1 < self.rounds[idx]
        if not more.all():
            final = idx[~more]
            totals = self.totals[(final * self.players)[:, None] + self._seats]
            best = totals.max(axis=1)
            tied = (totals == best[:, None]).sum(axis=1) > 1
            extra = tied & (self.tiebreaks[final] < self.options.tiebreak_rounds)
            e = final[extra]
            self.tiebreaks[e] += 1
            self.rounds[e] += 1
            over = final[~extra]
            self.phase[over] = OVER
            self.turn[over] = -1
            idx = np.concatenate([idx[more], e])
        if len(idx):
            self._new_round(idx)

    # -- from scalar states -------------------------------------------------------------------------
    @classmethod
    def from_states(
        cls, states: Sequence[State], seed: int | None = None, *, rng: np.random.Generator | None = None,
        record: bool = False,
    ) -> BatchedUpDown:
        """A batch that continues each of ``states`` (scalar UP&DOWN states at a decision or over).

        Everything is read through the protocol: each seat's ``view`` (its hand and its secret
        choice) and the spectator's (the public state). All states must share their player count
        and options. Later chance (re-rolls, later rounds) is drawn from ``rng``."""
        if not states:
            raise ValueError("from_states needs at least one state")
        players = states[0].players
        options = getattr(states[0], "options", None)
        for st in states:
            if st.game.id != "updown":
                raise ValueError(f"BatchedUpDown continues updown states, not {st.game.id}")
            if st.is_chance():
                raise ValueError("a state to continue must be at a decision or over, not at chance "
                                 f"({st.chance_label()}): resolve chance first")
            if st.players != players or getattr(st, "options", None) != options:
                raise ValueError("all states in a batch must share their player count and options")
        assert isinstance(options, U.UpDownOptions)
        b = cls(len(states), players=players, options=options,
                rng=rng if rng is not None else np.random.default_rng(seed), record=record, _deal=False)
        for g, st in enumerate(states):
            b._load(g, st)
        return b

    def _load(self, g: int, st: State) -> None:
        n = self.players
        v = st.view(None)
        phase = int(U.Phase[v["phase"].upper()])
        self.phase[g] = phase
        self.round[g] = v["round"] - 1
        self.rounds[g] = v["rounds"]
        self.tiebreaks[g] = v["rounds"] - self.options.planned_rounds(n)
        self.totals[g * n: g * n + n] = v["totals"]
        self.tricks[g * n: g * n + n] = v["tricks"]
        self.discarded[g] = v["discarded"]
        if phase == OVER:
            self.turn[g] = -1
            return
        self.trick[g] = v["trick"] - 1
        played = 0
        for e in reversed(v["log"]):  # this round's events are the last ones
            if e["type"] in ("round", "tiebreak") or e.get("round", v["round"]) != v["round"]:
                break
            if e["type"] == "trick":
                played |= sum(1 << _card(c) for c in e["cards"])
        self.played[g] = played
        self.pot[g] = v["pot"]
        self.up[g] = v["up"]
        self.trump[g] = v["trump"]
        a, b = v["dice"]
        self.dice[g] = U.DICE + 6 * (a - 1) + (b - 1)
        suits = ["CDHS".index(x) for x in v["suits"]]
        self.orient[g] = next(r for r in range(4) if list(self._own[r * 4: r * 4 + n]) == suits)
        self.leader[g] = v["leader"]
        self.turn[g] = v["to_act"][0]
        waiting = 0
        for s in range(n):
            sv = st.view(s)
            self.hands[g * n + s] = sum(1 << _card(c) for c in sv["hand"])
            choice = sv["choice"]
            self.pending[g * n + s] = _card(choice) if choice is not None else -1
            if choice is None:
                waiting |= 1 << s
        self.waiting[g] = waiting if phase == CHOOSE else 0
