"""Who sits at an UP&DOWN table: the other players learnt from the cards they played.

A level that models the others as one fixed player (the ``greedy`` rule) is strong against that
player and weak against others: against random players its playouts expect tricks to be taken
that nobody takes, and its worlds keep out cards that random players do hold. This module lets a
level learn each other seat from its own view alone: every seat is one of a few *kinds* of
player, each with a chance for every card it could have played, and the chance of each kind
follows the cards the seat played (Bayes' rule over the whole match so far).

**Kinds** (:data:`KINDS`). Each plays the rule's card (what ``greedy`` would play from its view)
with some chance ``alpha`` and otherwise a card of its hand at random:

* ``random``: ``alpha = 0``; any card of its hand, ``1/h`` each.
* ``careless``: ``alpha = 2/3`` (the ``easy`` level: the rule, a random card one time in three).
* ``rule``: ``alpha = 0.97`` (the rule, with a slack for the model's rounding of its scores).
* ``searching``: ``alpha = 0.4``: a player that thinks ahead agrees with the rule about a third
  of the time (``normal`` against ``normal``: 34% of its cards, 41% of its leads) and plays
  something else otherwise; the model cannot say what, so the rest is spread over the hand.

So a card costs kind ``k`` a factor ``alpha_k * R + (1 - alpha_k) / h``, where ``h`` is the
seat's hand then and ``R`` is 1 if the rule would have played that card, else 0.

**The evidence.** In a finished round every hand is known in hindsight (every card dealt is
played), so ``R`` is exact for each trick: the rule is run on the hand the seat held then and
the cards it had not seen. In the round under way the seat's cards are partly hidden: ``R`` at
an earlier trick is 1 when no hidden card of the seat would have scored better than the one it
played (by more than ``margin``, as :func:`updown.bots.updown_greedy._ruled_out` reads it), and
0 if a card it played later would have. The chance of the round's cards under each kind is the
mean over ``samples`` draws of the seat's hidden cards (uniform among the cards the viewer cannot
see). Leads are not weighed. The weights start at :data:`PRIOR`.

**What a level does with it** (:class:`ModelWorlds`): each world is drawn with a kind for every
other seat, from that seat's weights. A seat of a kind that follows the rule gets the cards the
rule rules out kept out of its hand, trick by trick: at each trick of this round with chance
``alpha q / (alpha q + (1 - alpha) / h)`` that it played the rule's card there (``q``: the chance
the rule would have, from the samples); a ``random`` or ``searching`` seat gets a uniform hand.
In the playouts (:func:`mixed_deal_values`) each seat plays by its kind in that world: a random
card, the rule with a random card one time in three, or the rule.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from updown.batched.bits import popcount, select_bit
from updown.batched.playout import deal_margins, summarise
from updown.core.cards import Suit
from updown.core.errors import IllegalAction
from updown.core.protocol import State, View, WorldSampler
from updown.core.worlds import ConstrainedDeal
from updown.games.updown import NUM_CARDS, SUIT, VALUE, UpDownState, UpDownWorlds, card_id

KINDS = ("random", "careless", "rule", "searching")
RANDOM, CARELESS, RULE, SEARCHING = range(4)
ALPHA = (0.0, 2 / 3, 0.97, 0.4)
"""Each kind's chance to play the rule's card."""
PRIOR = (0.25, 0.25, 0.45, 0.05)
READS = (False, True, True, False)
"""Whether a kind's worlds are read from its cards (the rule's choices rule cards out)."""
CARELESS_RANDOM = 1 / 3
"""A careless seat's chance to play a random card in a playout (the ``easy`` level's)."""
_KEEP_WEIGHT = 0.1
_ALL = range(NUM_CARDS)


def _rule_scores(players: int, seat: int, cards: Sequence[int], unseen: Sequence[int], suits: Sequence[int],
                 up: bool, trump: int, stake: int) -> tuple[dict[int, float], set[int]]:
    """The rule's score of each card (its chance to win times the stake, less what keeping it is
    worth, as ``greedy`` works them out, in the same floating-point steps), and the cards that
    cannot win. Counts by suit and value stand for ``greedy``'s loop over the unseen cards."""
    total = max(len(unseen), 1)
    by_value = [0] * 13
    count = [[0] * 13 for _ in range(4)]
    for d in unseen:
        by_value[VALUE[d]] += 1
        count[SUIT[d]][VALUE[d]] += 1
    # beyond[s][v]: unseen cards of suit s that beat value v in the direction of play (no trumps).
    beyond = []
    for s in range(4):
        row = [0] * 14
        if up:
            for v in range(12, 1, -1):
                row[v] = row[v + 1] + (count[s][v + 1] if v + 1 <= 12 and v + 1 != trump else 0)
        else:
            for v in range(2, 13):
                row[v] = row[v - 1] + (count[s][v - 1] if v - 1 >= 2 and v - 1 != trump else 0)
        beyond.append(row)
    scores: dict[int, float] = {}
    zero: set[int] = set()
    mine = suits[seat]
    for c in cards:
        v = VALUE[c]
        if v != trump and SUIT[c] != mine:
            p = 0.0
        else:
            p = 1.0
            for j in range(players):
                if j == seat:
                    continue
                lose = by_value[v]
                if v != trump:
                    lose += by_value[trump] + beyond[suits[j]][v]
                p *= max(0.0, 1.0 - lose / total)
        if p == 0.0:
            zero.add(c)
        scores[c] = p * stake - _KEEP_WEIGHT * (abs(VALUE[c] - 7) / 5.0)
    return scores, zero


def _segments(log: Sequence[Any]) -> tuple[list[list[Any]], list[Any]]:
    """The trick events of each finished round, and those of the round under way."""
    done: list[list[Any]] = []
    current: list[Any] = []
    for e in log:
        kind = e["type"]
        if kind in ("round", "tiebreak"):
            if current:
                done.append(current)
            current = []
        elif kind == "trick":
            current.append(e)
    return done, current


def finished_round_evidence(tricks: Sequence[Any], players: int) -> list[list[tuple[bool, int]]]:
    """For each seat, per trick of a finished round with a choice: (the rule would have played the
    card played, the hand's size then)."""
    plays = [[card_id(c) for c in e["cards"]] for e in tricks]
    out: list[list[tuple[bool, int]]] = [[] for _ in range(players)]
    before: set[int] = set()
    pot = 0
    for t, e in enumerate(tricks):
        suits = [int(Suit.parse(x)) for x in e["suits"]]
        for j in range(players):
            hand = [plays[u][j] for u in range(t, len(plays))]
            if len(hand) < 2:
                continue
            held = set(hand)
            unseen = [c for c in _ALL if c not in held and c not in before]
            scores, _ = _rule_scores(players, j, hand, unseen, suits, bool(e["up"]), int(e["trump"]), 1 + pot)
            best = max(hand, key=lambda c: (scores[c], -c))
            out[j].append((best == plays[t][j], len(hand)))
        before.update(plays[t])
        pot = e["pot"]
    return out


def _kind_log_likelihood(evidence: Sequence[tuple[bool, int]], alpha: float) -> float:
    return sum(math.log(alpha * r + (1 - alpha) / h) for r, h in evidence)


class TableModel:
    """Each other seat's kind weights and, for this round's tricks, what the rule rules out.

    ``cache`` (kept by the bot between decisions) holds the evidence of finished rounds, keyed by
    their cards; it changes nothing but the time taken.
    """

    def __init__(self, view: View, pool: Sequence[int], hidden_counts: Mapping[int, int], rng: random.Random,
                 cache: dict[Any, Any] | None = None, samples: int = 32, margin: float = 0.05,
                 prior: Sequence[float] = PRIOR):
        n, me = view["players"], view["seat"]
        self.players, self.seat = n, me
        done, current = _segments(view["log"])
        log_past = [[0.0] * len(KINDS) for _ in range(n)]
        for tricks in done:
            key = tuple((tuple(e["cards"]), tuple(e["suits"]), e["up"], e["trump"], e["pot"]) for e in tricks)
            evidence = cache.get(key) if cache is not None else None
            if evidence is None:
                evidence = finished_round_evidence(tricks, n)
                if cache is not None:
                    cache[key] = evidence
            for j in range(n):
                if j != me:
                    for k, alpha in enumerate(ALPHA):
                        log_past[j][k] += _kind_log_likelihood(evidence[j], alpha)
        # This round: per seat and trick, the hidden cards that beat the card played, as a mask.
        self.beaten: list[list[tuple[int, bool, int]]] = [[] for _ in range(n)]  # (mask, deviated, hand size)
        self.q: list[list[float]] = [[] for _ in range(n)]
        plays = [[card_id(c) for c in e["cards"]] for e in current]
        pool_set = set(pool)
        before: set[int] = set()
        pot = 0
        for t, e in enumerate(current):
            suits = [int(Suit.parse(x)) for x in e["suits"]]
            for j in range(n):
                if j == me:
                    continue
                chosen = plays[t][j]
                held = {plays[u][j] for u in range(t, len(plays))}
                size = len(held) + hidden_counts[j]
                if size < 2:
                    continue
                unseen = [c for c in _ALL if c not in before and c not in held]
                cards = [chosen, *sorted(held - {chosen}), *sorted(pool_set)]
                scores, zero = _rule_scores(n, j, cards, unseen, suits, bool(e["up"]), int(e["trump"]), 1 + pot)
                deviated = any(_better(c, chosen, scores, zero, margin) for c in held if c != chosen)
                mask = 0
                for c in pool_set:
                    if _better(c, chosen, scores, zero, margin):
                        mask |= 1 << c
                self.beaten[j].append((mask, deviated, size))
            before.update(plays[t])
            pot = e["pot"]
        # The chance of this round's cards under each kind: a mean over draws of the hidden cards.
        self.weights: list[list[float]] = [[0.0] * len(KINDS) for _ in range(n)]
        pool_list = sorted(pool_set)
        for j in range(n):
            if j == me:
                continue
            m = hidden_counts[j]
            tricks_j = self.beaten[j]
            sums = [0.0] * len(KINDS)
            hits = [0] * len(tricks_j)
            for _ in range(samples if tricks_j else 1):
                hand = 0
                for c in rng.sample(pool_list, min(m, len(pool_list))):
                    hand |= 1 << c
                rs = [not dev and not (mask & hand) for mask, dev, _ in tricks_j]
                for i, r in enumerate(rs):
                    hits[i] += r
                for k, alpha in enumerate(ALPHA):
                    p = 1.0
                    for r, (_, _, h) in zip(rs, tricks_j):
                        p *= alpha * r + (1 - alpha) / h
                    sums[k] += p
            draws = samples if tricks_j else 1
            self.q[j] = [x / draws for x in hits]
            logs = [math.log(prior[k]) + log_past[j][k] + math.log(max(sums[k] / draws, 1e-300))
                    for k in range(len(KINDS))]
            top = max(logs)
            raw = [math.exp(x - top) for x in logs]
            total = sum(raw)
            self.weights[j] = [x / total for x in raw]

    def draw_kinds(self, rng: random.Random) -> list[int]:
        """A kind for every seat (the viewer's own: ``rule``), each from its seat's weights."""
        out = []
        for j in range(self.players):
            if j == self.seat:
                out.append(RULE)
                continue
            r = rng.random()
            k = 0
            for k, w in enumerate(self.weights[j]):
                r -= w
                if r < 0:
                    break
            out.append(k)
        return out

    def ruled_out(self, kinds: Sequence[int], rng: random.Random) -> tuple[int, ...]:
        """For each seat of these kinds, the cards kept out of its hidden hand, as a mask: at each
        trick of this round, the cards that beat its card if it played the rule's card there."""
        out = []
        for j in range(self.players):
            mask = 0
            k = kinds[j]
            if j != self.seat and READS[k]:
                alpha = ALPHA[k]
                for (beaten, dev, h), q in zip(self.beaten[j], self.q[j]):
                    if dev:
                        continue
                    p = alpha * q / (alpha * q + (1 - alpha) / h) if q > 0 else 0.0
                    if p >= 1.0 or rng.random() < p:
                        mask |= beaten
            out.append(mask)
        return tuple(out)


def _better(c: int, chosen: int, scores: Mapping[int, float], zero: set[int], margin: float) -> bool:
    """Whether the rule takes ``c`` over ``chosen``: exactly between two cards that cannot win,
    by more than ``margin`` otherwise."""
    if c in zero and chosen in zero:
        return scores[c] > scores[chosen] or (scores[c] == scores[chosen] and c < chosen)
    return scores[c] > scores[chosen] + margin


class ModelWorlds(WorldSampler):
    """Worlds drawn with a kind for every seat (:meth:`draw_with_kinds`): see the module docstring.
    ``draw`` alone gives the world."""

    def __init__(self, view: View, rng: random.Random, cache: dict[Any, Any] | None = None, samples: int = 32):
        self.base = base = UpDownWorlds(view)
        me = view["seat"]
        counts = {s: 0 for s in range(view["players"])}
        for (s, _), size in zip(base.bins, base.sizes):
            counts[s] += size
        self.model = TableModel(view, base.pool, counts, rng, cache=cache, samples=samples)
        self.seat = me
        self._deals: dict[tuple[int, ...], ConstrainedDeal | None] = {}

    def _deal(self, masks: tuple[int, ...]) -> ConstrainedDeal | None:
        if masks in self._deals:
            return self._deals[masks]
        base = self.base
        rest = len(base.bins)
        allowed = {card: [b for b, (s, _) in enumerate(base.bins) if not masks[s] >> card & 1] + [rest]
                   for card in base.pool}
        try:
            deal: ConstrainedDeal | None = ConstrainedDeal(allowed, base.sizes)
        except IllegalAction:
            deal = None
        self._deals[masks] = deal
        return deal

    def draw_with_kinds(self, rng: random.Random) -> tuple[UpDownState, list[int]]:
        kinds = self.model.draw_kinds(rng)
        masks = self.model.ruled_out(kinds, rng)
        deal = self._deal(masks) if any(masks) else None
        world = self.base.build(deal.draw(rng)) if deal is not None else self.base.draw(rng)
        return world, kinds

    def draw(self, rng: random.Random) -> UpDownState:
        return self.draw_with_kinds(rng)[0]


def mixed_deal_values(
    worlds: Sequence[State], kinds: Sequence[Sequence[int]], seat: int, actions: Sequence[int], *,
    rng: np.random.Generator, rechoose: bool = True, against: int | None = None, paired: bool = False,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """As :func:`updown.batched.playout.deal_values` with the ``bot`` rule, but in world ``i`` seat
    ``j`` plays by its kind ``kinds[i][j]``: ``random`` a random card, ``careless`` the rule or one
    time in three a random card, ``rule`` and ``searching`` the rule; ``seat`` plays the rule.
    With ``rechoose``, the others' secret cards of this trick are chosen again so, from each world's
    hands. With ``against`` (an index into ``actions``), the standard errors are those of each
    action's mean less that action's, world by world (0 for that action itself).

    With ``paired`` (common random numbers), the copies of one world (one per action) share their
    random draws: at every step each world draws one number for whether a careless seat plays at
    random and one for which card a random choice takes (the ``k``-th of the legal cards, ``k``
    from that number), and all its copies use them. So where an action does not change what the
    others hold, they play the same cards after every action, and the actions' difference in a
    world is not drowned in the others' random play."""
    k = len(actions)
    codes = np.repeat(np.asarray(kinds, dtype=np.int64).reshape(len(worlds), -1), k, axis=0)
    codes[:, seat] = RULE
    mixed = bool((codes == RANDOM).any() or (codes == CARELESS).any())

    def chooser(batch: Any) -> Any:
        rows = np.arange(batch.n)

        def draws() -> npt.NDArray[np.float64]:
            if not paired:
                u: npt.NDArray[np.float64] = batch.rng.random(batch.n)
                return u
            return np.repeat(batch.rng.random(len(worlds)), k)

        def choose() -> npt.NDArray[np.int64]:
            a: npt.NDArray[np.int64] = batch.bot_actions()
            if not mixed:
                return a
            code = codes[rows, np.maximum(batch.to_act, 0)]
            use = (code == RANDOM) | ((code == CARELESS) & (draws() < CARELESS_RANDOM))
            if not use.any():
                return a
            small, band = batch._legal_small()  # the legal cards as a mask (as random_actions reads them)
            count = popcount(small)
            pick = select_bit(small, (draws() * count).astype(np.int64)) + band.astype(np.int64)
            out: npt.NDArray[np.int64] = np.where(use & (count > 0), pick, a)
            return out

        return choose

    margins = deal_margins(worlds, seat, actions, chooser, rng=rng, rechoose=rechoose)
    return summarise(margins, against)
