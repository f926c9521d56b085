"""UP&DOWN's vector environment on the batched engine: what the observation needs besides the
engine's arrays, and the observation itself, computed for the whole batch at once.

:class:`TrackedUpDown` is :class:`~updown.batched.updown.BatchedUpDown` with the same rules (every
step is the engine's own) and a few more arrays, kept as tricks are resolved and rounds end:
each seat's cards revealed in this round's finished tricks (``seat_played``), the last trick's
cards and winner (``last_cards``, ``last_winner``), and each seat's tricks of the rounds that ended
since :meth:`TrackedUpDown.take_points` was last called (the environment's rewards).

:func:`observe_updown` writes, for each game, the observation vector of its seat to act exactly
as ``updown.adapters.encoders.updown.Encoder`` encodes that seat's view (the fields of
``docs/observations.md``); the layout (each field's offsets) is passed in by the adapter, so this
package does not import the adapters. ``tests/test_adapters_vector.py`` compares the two at every
step of thousands.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from updown.batched.bits import BIT, U64, BitArray, IntArray, expand, popcount
from updown.batched.updown import CHOOSE, LEAD, NUM_CARDS, BatchedUpDown
from updown.games import updown as U


class TrackedUpDown(BatchedUpDown):
    """The batched engine plus the per-round record an observation needs (see the module)."""

    seat_played: BitArray
    last_cards: IntArray
    last_winner: IntArray
    points: IntArray

    def __init__(self, n: int, seed: int | None = None, players: int = 4,
                 options: U.UpDownOptions | dict[str, Any] | None = None, *,
                 rng: np.random.Generator | None = None, record: bool = False) -> None:
        super().__init__(n, seed, players, options, rng=rng, record=record, _deal=False)
        self.seat_played = np.zeros(players * n, dtype=U64)
        self.last_cards = np.full(players * n, -1, dtype=np.int64)
        self.last_winner = np.full(n, -1, dtype=np.int64)
        self.points = np.zeros(players * n, dtype=np.int64)
        self.restart(self._all)

    def take_points(self) -> npt.NDArray[np.int64]:
        """``(n, players)``: each seat's tricks in the rounds that ended since the last call."""
        out = self.points.reshape(self.n, self.players).copy()
        self.points[:] = 0
        return out

    def _layout(self) -> dict[str, int]:
        n = self.players
        return {**super()._layout(), "seat_played": n, "last_cards": n, "last_winner": 1, "points": n}

    def _new_round(self, idx: IntArray) -> None:
        super()._new_round(idx)
        slots = ((idx * self.players)[:, None] + self._seats).reshape(-1)
        self.seat_played[slots] = 0
        self.last_cards[slots] = -1
        self.last_winner[idx] = -1

    def _resolve(self, idx: IntArray) -> None:
        n = self.players
        slots = (idx * n)[:, None] + self._seats
        cards = self.pending[slots]
        before = self.tricks[slots]
        going = self.trick[idx] != self.hand_size - 1  # the last trick ends the round: all is cleared
        super()._resolve(idx)
        if not going.any():
            return
        s, c = slots[going], cards[going]
        self.seat_played[s] |= BIT[c]
        self.last_cards[s] = c
        gained = self.tricks[s] - before[going]
        self.last_winner[idx[going]] = np.where(gained.max(axis=1) > 0, gained.argmax(axis=1), -1)

    def _end_round(self, idx: IntArray) -> None:
        slots = ((idx * self.players)[:, None] + self._seats).reshape(-1)
        self.points[slots] += self.tricks[slots]
        super()._end_round(idx)


def observe_updown(b: TrackedUpDown, layout: dict[str, tuple[int, int]], size: int) -> npt.NDArray[np.float32]:
    """``(n, size)``: each game's observation from its seat to act, field by field as the UP&DOWN
    encoder writes it from that seat's view (``layout``: each field's start and stop)."""
    n, p, hs = b.n, b.players, b.hand_size
    rows = np.arange(n)
    seat = np.where(b.turn >= 0, b.turn, 0)
    # abs_of[g, r]: the absolute seat at relative place r from game g's observer.
    abs_of = (seat[:, None] + np.arange(p)) % p
    flat = (rows * p)[:, None] + abs_of
    out = np.zeros((n, size), dtype=np.float32)

    def block(name: str) -> npt.NDArray[np.float32]:
        start, stop = layout[name]
        return out[:, start:stop]

    def rel(x: IntArray) -> IntArray:
        rel_seat: IntArray = (x - seat) % p
        return rel_seat

    block("phase")[rows, b.phase] = 1.0
    block("up")[:, 0] = b.up
    block("down")[:, 0] = ~b.up
    block("trump")[rows, b.trump - 2] = 1.0
    own = b.own_suits()[rows[:, None], abs_of]  # (n, p): the suit facing each relative seat
    block("suits")[rows[:, None], 4 * np.arange(p)[None, :] + own] = 1.0
    block("leader")[rows, rel(b.leader)] = 1.0
    lead, choose = b.phase == LEAD, b.phase == CHOOSE
    waiting = ((b.waiting[:, None] >> abs_of) & 1).astype(bool)  # (n, p) relative
    to_act = np.where(choose[:, None], waiting, lead[:, None] & (abs_of == b.leader[:, None]))
    block("to_act")[:] = to_act
    pending = b.pending[flat]  # (n, p) relative
    block("submitted")[:] = choose[:, None] & (pending >= 0)
    mine = b.hands[rows * p + seat]
    block("hand")[:] = expand(mine, NUM_CARDS)
    choice = b.pending[rows * p + seat]
    has = choice >= 0
    block("choice")[rows[has], choice[has]] = 1.0
    block("played")[:] = expand(b.seat_played[flat].reshape(-1), NUM_CARDS).reshape(n, p * NUM_CARDS)
    last = b.last_cards[flat]  # (n, p)
    r, k = np.nonzero(last >= 0)
    block("last_trick")[r, k * NUM_CARDS + last[r, k]] = 1.0
    won = b.last_winner >= 0
    block("last_winner")[rows[won], rel(b.last_winner)[won]] = 1.0
    block("trick")[:, 0] = np.minimum(b.trick + 1, hs) / hs
    rounds = b.rounds.astype(np.float64)
    block("round")[:, 0] = np.clip((b.round + 1) / rounds, 0.0, 1.0)
    block("pot")[:, 0] = np.clip(b.pot / hs, 0.0, 1.0)
    block("hand_sizes")[:] = np.clip(popcount(b.hands[flat].reshape(-1)).reshape(n, p) / hs, 0.0, 1.0)
    block("tricks")[:] = np.clip(b.tricks[flat] / hs, 0.0, 1.0)
    block("totals")[:] = np.clip(b.totals[flat] / (hs * rounds)[:, None], 0.0, 1.0)
    return out
