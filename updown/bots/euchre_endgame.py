"""Euchre's end of a deal solved exactly in each world (double dummy), for the search levels.

``pimc`` plays every world on with the batched engine's ``greedy`` rule to the end of the deal.
In a world every hand is known, so the last tricks can instead be played the way both sides
would play them knowing every card: an exact minimax over the remaining cards, the makers taking
as many tricks as they can and the defenders as few. The points of a deal only grow with the
makers' tricks (0 to 2 tricks: the defenders score; 3 or 4: one point; 5: two, or four alone), and
the minimax of a value that grows with the tricks is that value of the minimax of the tricks, so
solving for the makers' tricks is solving for the points.

:func:`makers_tricks` solves many positions at once over numpy arrays: each card play expands
every position into one branch per card the seat may play (the ``k``-th legal card, absent ones
marked), down to the end of the deal, then folds the values back up, a maximum where a maker
plays and a minimum where a defender plays. A position with ``t`` cards a hand costs about
``(t!)^4`` leaves (3 tricks: 1,296; 2 tricks: 16), so the levels solve the last two or three
tricks (:func:`endgame_margins`) and leave the earlier ones to the greedy playouts.

Everything here reads worlds (full states drawn from a seat's view), never the real game.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from updown.batched.bits import BIT, U64, BitArray, IntArray, popcount, select_bit
from updown.batched.euchre import NEXT, PLAY, SUITBITS, BatchedEuchre
from updown.batched.playout import batch_from_states
from updown.core.protocol import State, View
from updown.games import euchre as E

_EFF: IntArray = np.array([E.EFF[t][c] for t in range(4) for c in range(E.NUM_CARDS)], dtype=np.int64)
"""``_EFF[trump * 24 + card]``: the card's effective suit."""
_POWER: IntArray = np.array([E.POWER[t][led][c] for t in range(4) for led in range(4) for c in range(E.NUM_CARDS)],
                            dtype=np.int64)
"""``_POWER[(trump * 4 + led) * 24 + card]``: the card's power in a trick led in ``led``."""

LEAVES = 1_000_000
"""At most about this many leaves are expanded at once (positions are solved in chunks)."""


def makers_tricks(
    hands: npt.ArrayLike, trump: npt.ArrayLike, maker: npt.ArrayLike, turn: npt.ArrayLike,
    led: npt.ArrayLike, best: npt.ArrayLike, left: npt.ArrayLike, skip: npt.ArrayLike, won: npt.ArrayLike,
) -> IntArray:
    """The makers' tricks at the end of the deal with perfect play by both sides, per position.

    Each argument has one entry per position (``hands``: ``(m, 4)`` card masks of what each seat
    still holds): ``trump`` (0-3), ``maker`` (the seat that made trump), ``turn`` (the seat to
    play), ``led`` (the suit led in the trick under way, -1 before its lead), ``best`` (the best
    card's power times 4 plus its seat in that trick, 0 before the lead), ``left`` (the cards still
    to be played to it), ``skip`` (a mask of the seats out of play: a lone maker's partner, a lone
    defender's partner; what they hold is left out) and ``won`` (the makers' tricks so far)."""
    h = np.asarray(hands, dtype=U64).reshape(-1, 4)
    m = len(h)
    out = np.zeros(m, dtype=np.int64)
    if m == 0:
        return out
    cols = [np.asarray(x, dtype=np.int64).reshape(-1) for x in (trump, maker, turn, led, best, left, skip, won)]
    out_of_play = ((cols[6][:, None] >> np.arange(4)) & 1).astype(bool)
    h = np.where(out_of_play, U64(0), h)  # a lone hand's partner keeps its cards, out of play
    size = max(1, LEAVES // _leaves(int(popcount(h).max(initial=0))))
    for lo in range(0, m, size):
        hi = min(m, lo + size)
        out[lo:hi] = _solve(h[lo:hi].copy(), *(c[lo:hi].copy() for c in cols))
    return out


def _leaves(cards: int) -> int:
    """About how many leaves a position with ``cards`` cards in the fullest hand expands to."""
    n = 1
    for t in range(1, cards + 1):
        n *= t ** 4
    return n


def _solve(h: BitArray, trump: IntArray, maker: IntArray, turn: IntArray, led: IntArray, best: IntArray,
           left: IntArray, skip: IntArray, won: IntArray) -> IntArray:
    team = maker & 1
    nact = 4 - popcount(skip.astype(U64))
    steps: list[tuple[IntArray, npt.NDArray[np.bool_]]] = []
    while True:
        m = len(h)
        rows = np.arange(m)
        hand = h[rows, turn]
        live = hand != 0
        if not live.any():
            break
        if ((left == nact) | ~live).all() and (popcount(h) <= 1).all():
            _last_trick(h, trump, team, turn, live, won)
            break
        follow = np.where(led >= 0, hand & SUITBITS[(trump * 4 + np.maximum(led, 0)) & 15], U64(0))
        legal = np.where(follow != 0, follow, hand)
        count = np.maximum(popcount(legal), 1)  # a finished position: one branch, itself
        if int(count.max()) > 1:
            # One branch per legal card of each position (ragged): position i's branches are
            # rows starts[i] to starts[i] + count[i] - 1 of the expanded arrays.
            starts = np.cumsum(count) - count
            rep = np.repeat(rows, count)
            k = np.arange(len(rep)) - starts[rep]
            steps.append((starts, (turn & 1) == team))
            h, legal = h[rep], legal[rep]
            trump, team, turn, led, best, left, skip, won, nact, live = (
                x[rep] for x in (trump, team, turn, led, best, left, skip, won, nact, live))
        else:
            k = np.zeros(m, dtype=np.int64)
        g = np.flatnonzero(live)
        c = select_bit(legal[g], k[g])
        s = turn[g]
        h[g, s] &= ~BIT[c]
        t = trump[g]
        ld = np.where(led[g] < 0, _EFF[t * 24 + c], led[g])
        bs = np.maximum(best[g], _POWER[(t * 4 + ld) * 24 + c] * 4 + s)
        lf = left[g] - 1
        done = lf == 0
        winner = bs & 3
        won[g] += done & ((winner & 1) == team[g])
        turn[g] = np.where(done, winner, NEXT[skip[g] * 4 + s])
        led[g] = np.where(done, -1, ld)
        best[g] = np.where(done, 0, bs)
        left[g] = np.where(done, nact[g], lf)
    value = won
    for starts, maximise in reversed(steps):
        value = np.where(maximise, np.maximum.reduceat(value, starts), np.minimum.reduceat(value, starts))
    return value


def _last_trick(h: BitArray, trump: IntArray, team: IntArray, turn: IntArray, live: npt.NDArray[np.bool_],
                won: IntArray) -> None:
    """The last trick where every hand holds one card and ``turn`` leads: forced, so it is
    scored at once (``won`` gains the makers' trick) instead of played card by card."""
    m = len(h)
    rows = np.arange(m)
    has = h != 0
    card = np.where(has, np.bitwise_count(h ^ (h - np.where(has, U64(1), U64(0))) >> U64(1)).astype(np.int64), 0)
    led = _EFF[trump * 24 + card[rows, turn]]
    power = np.where(has, _POWER[((trump * 4 + led) * 24)[:, None] + card] * 4 + np.arange(4), -1)
    winner = power.argmax(axis=1)
    won += live & ((winner & 1) == team)


def deal_points(tricks: IntArray, alone: npt.NDArray[np.bool_], lone_defence: npt.NDArray[np.bool_]) -> IntArray:
    """The makers' points less the defenders' for the makers' tricks at the end of a deal."""
    pts: IntArray = np.where(tricks == 5, np.where(alone, 4, 2),
                             np.where(tricks >= 3, 1, -np.where(lone_defence, 4, 2)))
    return pts


def endgame_margins(
    worlds: Sequence[State], seat: int, actions: Sequence[int], tricks: int, *, rng: np.random.Generator,
    view: View | None = None, rule: str = "greedy", make: float = 7.5,
) -> npt.NDArray[np.float64]:
    """``(len(worlds), len(actions))``: ``seat``'s margin over the deal in each world after each
    action, as :func:`updown.batched.playout.deal_margins` measures it with ``greedy`` playouts,
    except that the last ``tricks`` tricks of the deal are solved exactly (:func:`makers_tricks`)
    instead of played by the rule. ``tricks=0`` is the greedy playout to the end, the same
    margins as ``deal_margins`` gives for the same generator.

    ``view``: the seat's view the worlds were drawn from, so that the batch reads the public state
    once from it and each world gives only the other seats' hands
    (``BatchedEuchre.from_states(..., view=view)``); the batch is the same as without it.

    ``rule``: the playouts' rule (``BatchedEuchre.rule``): ``greedy`` or ``smart`` (the ``greedy``
    bot's choices); ``make``: the smart rule's bid threshold (``BatchedEuchre.make``)."""
    if rule not in ("greedy", "smart"):
        raise ValueError(f"the playout rule is 'greedy' or 'smart', not {rule!r}")
    for world in worlds:
        if world.is_chance() or world.is_terminal() or seat not in world.actors():
            raise ValueError(f"the worlds are not all at a decision of seat {seat}")
    k = len(actions)
    if view is None:
        batch = batch_from_states(worlds, rng=rng, repeats=k)
    else:
        if not worlds:
            raise ValueError("playouts need at least one state")
        rng.integers(1 << 62)  # batch_from_states's draw for chance steps: the same generator after it
        batch = BatchedEuchre.from_states(worlds, rng=rng, view=view, repeats=k)
    assert isinstance(batch, BatchedEuchre)
    batch.rule = rule
    batch.make = make
    deal = batch.deals()
    start = batch.scores()
    batch.step(np.tile(np.asarray(actions, dtype=np.int64), len(worlds)))
    end_at = E.HAND - tricks
    if tricks <= 0:
        batch.greedy_to_deal_end(deal)
    while tricks > 0:
        live = (batch.deals() == deal) & ~batch.done & ~((batch.phase == PLAY) & (batch.tricks >= end_at))
        if not live.any():
            break
        a = batch.playout_actions()
        a[~live] = -1
        batch.step(a)
    gain = (batch.scores() - start).astype(np.float64)
    own = gain[:, seat]  # this deal's points: the seat's side, the other side
    other = gain[:, (seat + 1) & 3]
    solve = np.flatnonzero((batch.deals() == deal) & (batch.phase == PLAY)) if tricks > 0 else np.zeros(0, np.int64)
    if len(solve):
        g = solve
        hands = batch.hands.reshape(-1, 4)[g]
        maker = batch.maker[g]
        skip = batch.skip4[g] // 4
        team_won = batch.won.reshape(-1, 4)[g]
        won = np.where((maker & 1) == 0, team_won[:, 0] + team_won[:, 2], team_won[:, 1] + team_won[:, 3])
        led = np.where(batch.led24[g] >= 0, batch.led24[g] // 24, -1)
        made = makers_tricks(hands, batch.trump[g], maker, batch.turn[g], led, batch.best[g], batch.left[g],
                             skip, won)
        pts = deal_points(made, batch.alone[g], batch.defender[g] >= 0).astype(np.float64)
        ours = (maker & 1) == (seat & 1)
        makers, defenders = np.maximum(pts, 0.0), np.maximum(-pts, 0.0)
        own[g] = np.where(ours, makers, defenders)
        other[g] = np.where(ours, defenders, makers)
    # The margin of deal_margins, computed as it does (to the last bit): the seat's gain less the
    # mean of the other three seats' gains (its partner's is its own).
    out: npt.NDArray[np.float64] = (own - (own + 2 * other) / 3).reshape(len(worlds), k)
    return out


def brute_makers_tricks(hands: Sequence[int], trump: int, maker: int, turn: int, led: int, best: int, left: int,
                        skip: int, won: int) -> int:
    """:func:`makers_tricks` for one position by plain recursion over every legal card (for tests)."""
    team = maker & 1
    nact = 4 - bin(skip).count("1")
    if not any(hands[s] for s in range(4) if not skip >> s & 1):
        return won
    hand = hands[turn]
    follow = hand & int(SUITBITS[trump * 4 + led]) if led >= 0 else 0
    legal = follow or hand
    results = []
    for c in range(E.NUM_CARDS):
        if not legal >> c & 1:
            continue
        hs = list(hands)
        hs[turn] &= ~(1 << c)
        ld = E.EFF[trump][c] if led < 0 else led
        bs = max(best, E.POWER[trump][ld][c] * 4 + turn)
        if left == 1:
            w = bs & 3
            results.append(brute_makers_tricks(hs, trump, maker, w, -1, 0, nact, skip, won + ((w & 1) == team)))
        else:
            nxt = int(NEXT[skip * 4 + turn])
            results.append(brute_makers_tricks(hs, trump, maker, nxt, ld, bs, left - 1, skip, won))
    return max(results) if (turn & 1) == team else min(results)


__all__ = ["brute_makers_tricks", "deal_points", "endgame_margins", "makers_tricks"]
