"""``greedy``: a rule-based Up or Down? player that reads only its own view.

It values its play area as the score so far plus each column's promise: a column that still has
room to grow in its direction is worth more, the more so the longer it is and the more of it is one
colour (a card of the column's main colour adds length *and* count). The promise shrinks as the
game nears its end. Every decision compares play areas:

* Placing the taken card: the legal option (a column, a new column, or giving a column up) that
  leaves the most valuable play area, counting a discarded card's point.
* Taking: the neighbour whose best placement is worth most.
* Playing a hand card: the card whose two neighbours in the ring offer the best take.
* Drawing: the face-up card when, played into the ring now, it would open a better take than any
  card already in hand; otherwise the face-down pile.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

from updown.bots.base import Bot
from updown.bots.pimc import PimcBot
from updown.core.protocol import View
from updown.games.up_or_down import (
    COL, COLOUR, DRAW_DOWN, DRAW_UP, GIVE_UP, NEW, TAKE,
)

_PROMISE = 0.9
"""Weight of a column's room to grow; measured against random players."""


def _counts(cards: Sequence[int]) -> list[int]:
    counts = [0] * 6
    for c in cards:
        counts[COLOUR[c]] += 1
    return counts


@functools.lru_cache(maxsize=1 << 16)
def _shape(col: tuple[int, ...]) -> tuple[int, int, int, bool | None]:
    """A column's length, the count of its main colour, its last card and its direction (None
    while it has one card): what its value depends on, kept since playouts value the same columns
    over and over."""
    return len(col), max(_counts(col)), col[-1], None if len(col) == 1 else col[1] > col[0]


class UpOrDownGreedy(Bot):
    name = "greedy"
    description = "rule-based: grows long single-colour columns, gives up weak ones when stuck"

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        phase = view["phase"]
        cols = self._columns(view)
        ctx = self._context(view)
        if phase == "place":
            return self._best_place(cols, int(view["taken"]), ctx, legal)[1]
        if phase == "take":
            return max(legal, key=lambda a: (self._best_place(cols, a - TAKE, ctx)[0], -a))
        if phase == "play":
            ring = list(view["display"])
            return max(legal, key=lambda c: (self._play_value(ring, c, cols, ctx), -c))
        if phase == "draw":
            return self._draw(view, cols, ctx, legal)
        return legal[0]

    def ranked(self, view: View, legal: Sequence[int]) -> list[int]:
        """``legal`` in the order this rule prefers them, its own choice first: placements by what
        they gain, takes by the best placement of the card, hand cards by the take they open.
        ``pimc`` with ``widest`` searches only the first few."""
        phase = view["phase"]
        cols = self._columns(view)
        ctx = self._context(view)
        if phase == "place":
            gains = self._place_gains(cols, int(view["taken"]), ctx, legal)
            values = [g if g is not None else -math.inf for g in gains]
            return [a for _, _, a in sorted(zip((-v for v in values), range(len(legal)), legal))]
        if phase == "take":
            return sorted(legal, key=lambda a: (-self._best_place(cols, a - TAKE, ctx)[0], a))
        if phase == "play":
            ring = list(view["display"])
            return sorted(legal, key=lambda c: (-self._play_value(ring, c, cols, ctx), c))
        first = self.act(view, legal)
        return [first, *(a for a in legal if a != first)]

    def evaluate(self, view: View) -> float:
        """This seat's final score as the rule sees it from ``view``: its columns' scores plus their
        promise (which fades to nothing as the game ends) and its discarded cards' points."""
        ctx = self._context(view)
        cols = self._columns(view)
        return sum(self._column_value(c, ctx) for c in cols) + float(view["discards"][self.seat])

    # -- reading the view ---------------------------------------------------------------------------
    def _columns(self, view: View) -> list[list[int]]:
        return [list(c["cards"]) if c else [] for c in view["columns"][self.seat]]

    @staticmethod
    def _context(view: View) -> dict[str, Any]:
        players = view["players"]
        cards_left = view["down"] + view["up"] + sum(view["hand_sizes"])
        # Placements this seat still makes, roughly: one per turn while cards last.
        turns_left = cards_left / players
        return {"top": view["highest"], "late": min(1.0, turns_left / 10.0)}

    # -- valuing a play area ------------------------------------------------------------------------
    @staticmethod
    def _column_value(col: Sequence[int], ctx: dict[str, Any]) -> float:
        if not col:
            return 0.0
        length, main, last, rising = _shape(tuple(col))
        return UpOrDownGreedy._shape_value(length, main, last, rising, ctx)

    @staticmethod
    def _shape_value(length: int, main: int, last: int, rising: bool | None, ctx: dict[str, Any]) -> float:
        """A column's value from its :func:`_shape`: its score, and its promise while it can grow."""
        top: int = ctx["top"]
        if rising is None:
            room = max(top - last, last - 1)
        elif rising:
            room = top - last
        else:
            room = last - 1
        # About one card in six fits the column's main colour; room counts how many may come.
        future = room / 6.0
        late: float = ctx["late"]
        return main * length + _PROMISE * late * min(future, 4.0) * (main + length) * (main / length)

    def _best_place(
        self, cols: list[list[int]], card: int, ctx: dict[str, Any], legal: Sequence[int] | None = None
    ) -> tuple[float, int]:
        """The value gained by the best placement of ``card`` and its action."""
        if legal is None:  # a card the seat might take: the same ones come up more than once a decision
            seen: dict[int, tuple[float, int]] = ctx.setdefault("best", {})
            found = seen.get(card)
            if found is None:
                found = seen[card] = self._best_place(cols, card, ctx, self._place_options(cols, card))
            return found
        best: tuple[float, int] | None = None
        for value, action in zip(self._place_gains(cols, card, ctx, legal), legal):
            if value is not None and (best is None or value > best[0]):
                best = (value, action)
        assert best is not None
        return best

    def _place_gains(
        self, cols: list[list[int]], card: int, ctx: dict[str, Any], options: Sequence[int]
    ) -> list[float | None]:
        """What each placement of ``card`` gains (None for an action that is not a placement)."""
        # A placement changes one column: its gain is that column's new value less its old one.
        # Each column's value and shape are worked out once a decision; a card put on a column
        # changes its shape by a step (one longer, this card last), not counted again.
        shapes: list[tuple[int, list[int], int, int, bool | None] | None] | None = ctx.get("shapes")
        values: list[float]
        if shapes is None:  # once per decision (setdefault would build the lists on every call)
            shapes = ctx["shapes"] = [
                (len(c), counts, max(counts), c[0], None if len(c) == 1 else c[1] > c[0]) if c else None
                for c, counts in zip(cols, map(_counts, cols))]
            values = ctx["values"] = [self._column_value(c, ctx) for c in cols]
        else:
            values = ctx["values"]
        alone = self._shape_value(1, 1, card, None, ctx)
        gains: list[float | None] = []
        for action in options:
            if action == NEW:
                k = next(i for i, c in enumerate(cols) if not c)
                gains.append(alone - values[k])
            elif COL < action <= COL + 3:
                k = action - COL - 1
                shape = shapes[k]
                assert shape is not None
                length, counts, main, first, rising = shape
                main = max(main, counts[COLOUR[card]] + 1)
                grown = self._shape_value(length + 1, main, card, card > first if rising is None else rising, ctx)
                gains.append(grown - values[k])
            elif GIVE_UP < action <= GIVE_UP + 3:
                k = action - GIVE_UP - 1
                gains.append(alone - values[k] + len(cols[k]))
            else:
                gains.append(None)
        return gains

    @staticmethod
    def _place_options(cols: list[list[int]], card: int) -> list[int]:
        out: list[int] = []
        for k, col in enumerate(cols):
            if not col:
                continue
            if len(col) < 2 or (card > col[-1]) == (col[1] > col[0]):
                out.append(COL + k + 1)
            out.append(GIVE_UP + k + 1)
        if any(not c for c in cols):
            out.append(NEW)
        return out

    # -- the ring -----------------------------------------------------------------------------------
    def _play_value(self, ring: list[int], card: int, cols: list[list[int]], ctx: dict[str, Any]) -> float:
        i = 0
        while i < len(ring) and ring[i] < card:
            i += 1
        left = ring[i - 1]
        right = ring[i % len(ring)]
        return max(self._best_place(cols, left, ctx)[0], self._best_place(cols, right, ctx)[0])

    def _draw(self, view: View, cols: list[list[int]], ctx: dict[str, Any], legal: Sequence[int]) -> int:
        top = view["up_top"]
        if DRAW_UP not in legal or top is None:
            return DRAW_DOWN
        ring = list(view["display"])
        hand = list(view["hand"])
        mine = max((self._play_value(ring, c, cols, ctx) for c in hand), default=-1e9)
        if self._play_value(ring, top, cols, ctx) > mine + 0.5:
            return DRAW_UP
        return DRAW_DOWN if DRAW_DOWN in legal else DRAW_UP


GAME_ID = "up-or-down"


class UpOrDownNormal(PimcBot):
    """``pimc`` with playouts of 80 decisions (five rounds at four players) scored by the greedy
    bot's own valuation (columns' scores plus promise). Against greedy in the other seats the
    playout's reach mattered more than the worlds (docs/bots.md): 30 worlds won 0.45 of games with
    16-decision playouts, 0.575 with 40, and 20 worlds 0.81 with 80; 8 worlds with 80 decisions,
    about this level's budget, won 0.60, where the anchored tree search, in practice greedy, won
    0.25. At least one world, not 16: a world costs a playout per option, and with six options
    four worlds took 150 to 300 ms (the budget is kept by not starting a world that would end
    past it). It searches only the rule's two favourite actions (``widest``): over 40 duplicate
    deals, with the time kept, all actions gained +2.9 points a game against greedy, the three
    favourites +5.3, the two favourites +7.0 (docs/bots.md, eighth pass)."""

    name = "normal"
    description = ("flat Monte Carlo from its own view: up to 100 drawn worlds or 90 ms per decision, the "
                   "greedy rule's two favourite actions each played on 80 decisions by the greedy rule and "
                   "judged by its valuation")
    worlds = 100
    depth = 80
    milliseconds = 90.0
    min_worlds = 1
    widest: int | None = 2


class UpOrDownHard(UpOrDownNormal):
    """Up to ten times the time and six times the worlds."""

    name = "hard"
    description = ("flat Monte Carlo from its own view: up to 600 drawn worlds or 900 ms per decision, each "
                   "legal action played on 80 decisions by the greedy rule and judged by its valuation")
    worlds = 600
    milliseconds = 900.0
    min_worlds = 4
    widest = None


BOTS = {"greedy": UpOrDownGreedy, "normal": UpOrDownNormal, "hard": UpOrDownHard}
