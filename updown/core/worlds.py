"""Exact uniform deals under constraints, for the games' world samplers.

A world sampler knows which cards are hidden from a seat and where they may be: each hidden card
may go to some of the *bins* (another seat's hand, a discard nobody saw, the undealt stock), and
every bin holds a known number of cards. :class:`ConstrainedDeal` counts the ways to place the
cards and draws one placement uniformly among all of them: cards that may go to the same bins
are interchangeable, so it draws how many of each such class go to each bin (weighted by the
number of placements it stands for), then shuffles each class into its share. Bins that every
card may either go to alike or not at all (the Sueca discards and stock) are counted as one bin
and split by a shuffle afterwards, which keeps the count small. The counting is done once per
view; each draw is cheap.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping, Sequence
from math import factorial

from updown.core.errors import IllegalAction

Composition = tuple[int, ...]


def multinomial(counts: Sequence[int]) -> int:
    """The number of ways to split ``sum(counts)`` distinct items into groups of these sizes."""
    out = factorial(sum(counts))
    for c in counts:
        out //= factorial(c)
    return out


def _compositions(n: int, caps: Sequence[int]) -> list[Composition]:
    """Every way to write ``n`` as a sum of ``len(caps)`` parts with part ``i`` at most ``caps[i]``."""
    if not caps:
        return [()] if n == 0 else []
    room = sum(caps[1:])
    out: list[Composition] = []
    for first in range(max(0, n - room), min(n, caps[0]) + 1):
        for rest in _compositions(n - first, caps[1:]):
            out.append((first, *rest))
    return out


class ConstrainedDeal:
    """Uniform placements of distinct cards into bins of fixed sizes, each card limited to some bins.

    ``allowed`` maps each card to the bins (indices into ``sizes``) it may go to. Raises
    IllegalAction when no placement exists (the view that asked is inconsistent).
    """

    def __init__(self, allowed: Mapping[int, Sequence[int]], sizes: Sequence[int]):
        self.original = tuple(sizes)
        if len(allowed) != sum(sizes):
            raise IllegalAction(f"no world fits this view: {len(allowed)} hidden cards for {sum(sizes)} places")
        # Bins with the same column (the same cards may go there) merge into one bin: the number of
        # placements is the merged count times a factor that does not depend on the placement, so
        # a uniform merged placement split uniformly is uniform.
        card_sets = {card: frozenset(bins) for card, bins in allowed.items()}
        columns: dict[frozenset[int], list[int]] = {}
        for b in range(len(sizes)):
            columns.setdefault(frozenset(c for c, bins in card_sets.items() if b in bins), []).append(b)
        self.merged: list[list[int]] = sorted(columns.values())
        index = {b: i for i, group in enumerate(self.merged) for b in group}
        full = tuple(range(len(self.merged)))
        groups: dict[tuple[int, ...], list[int]] = {}
        for card, bins in allowed.items():
            groups.setdefault(tuple(sorted({index[b] for b in bins})), []).append(card)
        # The free class (if any) last, and before it the others from the fewest bins and cards up:
        # the last class fills what is left, and the room the first ones leave varies least.
        self.classes: list[tuple[tuple[int, ...], list[int]]] = sorted(
            ((bins, sorted(cards)) for bins, cards in groups.items()),
            key=lambda g: (g[0] == full, len(g[0]), len(g[1]), g[0]),
        )
        # The last class fills whatever room the others leave: its placements are counted, never
        # enumerated (a uniform split of the room left over its bins, when no other bin has any).
        last_bins = set(self.classes[-1][0]) if self.classes else set()
        self._outside_last = tuple(b for b in range(len(self.merged)) if b not in last_bins)
        self._memo: dict[tuple[int, Composition], int] = {}
        self._options: dict[tuple[int, Composition], list[tuple[Composition, int]]] = {}
        self._size(self.original)
        if self.total == 0:
            raise IllegalAction("no world fits this view: the hidden cards cannot be placed as it requires")

    def _size(self, sizes: Sequence[int]) -> None:
        self.original = tuple(sizes)
        self.sizes = tuple(sum(self.original[b] for b in group) for group in self.merged)
        self.total = self._count(0, self.sizes)
        for group in self.merged:  # the ways to split each merged bin into its bins
            self.total *= multinomial([self.original[b] for b in group])

    def resized(self, sizes: Sequence[int]) -> ConstrainedDeal:
        """The same cards and constraints with other bin sizes (as many places in all), sharing
        the counts made so far: a model that weighs several splits of the same bins counts each
        part once. Its ``total`` is 0 if no placement fits."""
        if len(sizes) != len(self.original) or sum(sizes) != sum(self.original):
            raise IllegalAction(f"other sizes must have {len(self.original)} bins and {sum(self.original)} places")
        other = copy.copy(self)  # the classes, bins and counts are shared, not copied
        other._size(sizes)
        return other

    def _count(self, j: int, caps: Composition) -> int:
        """Placements of classes ``j``.. into bins with room ``caps``."""
        if j == len(self.classes):
            return 1 if not any(caps) else 0
        if j == len(self.classes) - 1:
            if sum(caps) != len(self.classes[j][1]) or any(caps[b] for b in self._outside_last):
                return 0
            return multinomial(caps)
        key = (j, caps)
        got = self._memo.get(key)
        if got is None:
            got = sum(w for _, w in self._choices(j, caps))
            self._memo[key] = got
        return got

    def _choices(self, j: int, caps: Composition) -> list[tuple[Composition, int]]:
        """How class ``j`` may split over the bins, each with the placements it leads to."""
        key = (j, caps)
        got = self._options.get(key)
        if got is not None:
            return got
        bins, cards = self.classes[j]
        out: list[tuple[Composition, int]] = []
        for part in _compositions(len(cards), [caps[b] for b in bins]):
            counts = [0] * len(caps)
            for b, k in zip(bins, part):
                counts[b] = k
            rest = tuple(c - k for c, k in zip(caps, counts))
            weight = multinomial(part) * self._count(j + 1, rest)
            if weight:
                out.append((tuple(counts), weight))
        self._options[key] = out
        return out

    def draw(self, rng: random.Random) -> list[list[int]]:
        """One placement, uniform among all: the cards of each bin, in random order."""
        merged = self._draw_merged(rng)
        if len(self.merged) == len(self.original):
            return [merged[i] for i in sorted(range(len(self.merged)), key=lambda i: self.merged[i][0])]
        out: list[list[int]] = [[] for _ in self.original]
        for group, cards in zip(self.merged, merged):
            if len(group) == 1:
                out[group[0]] = cards
                continue
            rng.shuffle(cards)
            at = 0
            for b in group:
                k = self.original[b]
                out[b] = cards[at:at + k]
                at += k
        return out

    def _draw_merged(self, rng: random.Random) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in self.sizes]
        caps = self.sizes
        last = len(self.classes) - 1
        for j, (bins, cards) in enumerate(self.classes):
            if j == last:
                counts = caps
            else:
                choices = self._choices(j, caps)
                if len(choices) == 1:
                    counts = choices[0][0]
                else:
                    r = rng.randrange(self._count(j, caps))
                    for counts, weight in choices:
                        if r < weight:
                            break
                        r -= weight
            shuffled = list(cards)
            rng.shuffle(shuffled)
            at = 0
            for b, k in enumerate(counts):
                if k:
                    out[b].extend(shuffled[at:at + k])
                    at += k
            caps = tuple(c - k for c, k in zip(caps, counts))
        return out


def free_deal(cards: Sequence[int], sizes: Sequence[int], rng: random.Random) -> list[list[int]]:
    """Unconstrained: ``cards`` shuffled and cut into bins of these sizes (uniform)."""
    pool = list(cards)
    rng.shuffle(pool)
    out: list[list[int]] = []
    at = 0
    for k in sizes:
        out.append(pool[at:at + k])
        at += k
    return out


class DealMixture:
    """Placements drawn from several :class:`ConstrainedDeal` objects, each with the chance its weight
    gives, their bins then joined: ``merge[i]`` lists the bins whose cards make the mixture's bin
    ``i``. For a model whose placements are counted in finer bins than the world has (the cards a
    seat kept and the cards it drew, both in its hand), one deal per way the known cards split."""

    def __init__(self, deals: Sequence[tuple[ConstrainedDeal, int]], merge: Sequence[Sequence[int]]):
        self.deals = [d for d, w in deals if w > 0]
        self.weights = [w for _, w in deals if w > 0]
        if not self.deals:
            raise IllegalAction("no world fits this view: every deal of the mixture is empty")
        self.total = sum(self.weights)
        self.merge = [tuple(group) for group in merge]

    def draw(self, rng: random.Random) -> list[list[int]]:
        r = rng.randrange(self.total)
        for deal, weight in zip(self.deals, self.weights):
            if r < weight:
                break
            r -= weight
        parts = deal.draw(rng)
        out = []
        for group in self.merge:
            cards = [c for b in group for c in parts[b]]
            if len(group) > 1:
                rng.shuffle(cards)  # in random order, as a ConstrainedDeal's bins
            out.append(cards)
        return out
