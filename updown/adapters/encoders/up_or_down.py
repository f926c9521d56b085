"""Up or Down?: the observation of a seat's view (fields in ``docs/observations.md``).

Cards are numbered 1..H, where H (``highest`` in the view) depends on the player count and the
game length; card ``c`` is entry ``c - 1`` of every card field, so sizes below are in H.
"""

from __future__ import annotations

import numpy as np

from typing import Any

from updown.adapters.observations import Buffer, Encoder as Base, Layout, fractions
from updown.core.protocol import Event, View

GAME_ID = "up-or-down"
PHASES = ("deal", "display", "reveal", "drawn", "play", "take", "place", "draw", "over")
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
COLUMNS = 3
COLOURS = 6


def _colour_shares(most: int) -> list[float]:
    """``[k]``: a column colour's entry for ``k`` cards of that colour: 0.1 added ``k`` times in
    float32 (as the entry has always been summed), clipped to 1."""
    entry = np.zeros(1, dtype=np.float32)
    shares = [0.0]
    for _ in range(most):
        entry[0] += 0.1
        shares.append(float(min(entry[0], np.float32(1.0))))
    return shares


COLOUR_SHARE = _colour_shares(130)
TENTHS, THIRTIETHS, SIXTIETHS, THIRDS = fractions(10), fractions(30), fractions(60), fractions(3)
"""Counts as the fractions of the fields (a column's cards / 10, a discard pile / 30, a score / 60,
a hand / 3)."""


class Encoder(Base):
    def build(self, layout: Layout) -> None:
        n = self.players
        h = self.highest = int(self.game.new_state(n, self.options).view(0)["highest"])
        layout.add("phase", len(PHASES), "one-hot: " + ", ".join(PHASES))
        layout.add("turn", n, "one-hot relative seat whose turn it is")
        layout.add("to_act", n, "relative seats that must act now")
        layout.add("hand", h, "the observer's hand, card c at c - 1")
        layout.add("display", h, "the cards in the ring")
        layout.add("played", h, "the card just played into the ring this turn")
        layout.add("taken", h, "the card just taken from the ring this turn")
        layout.add("known", n * h, "per relative seat, the hand cards everyone knows it holds")
        layout.add("column_top", n * COLUMNS * h, "per relative seat and column slot 1..3, the column's last card")
        layout.add("column_length", n * COLUMNS, "per relative seat and slot, cards in the column / 10, at most 1")
        layout.add("column_up", n * COLUMNS, "per relative seat and slot, 1 if the column rises")
        layout.add("column_down", n * COLUMNS, "per relative seat and slot, 1 if the column falls")
        layout.add("column_colours", n * COLUMNS * COLOURS,
                   "per relative seat and slot, cards of each colour (ruby gold pink blue purple green) / 10")
        layout.add("discards", n, "per relative seat, cards on its discard pile / 30, at most 1")
        layout.add("scores", n, "per relative seat, its score now / 60, at most 1")
        layout.add("hand_sizes", n, "per relative seat, cards in hand / 3")
        layout.add("down", 1, "cards in the face-down pile / H")
        layout.add("up", 1, "cards in the face-up pile / H")
        layout.add("up_top", h, "the face-up pile's top card")

    def tables(self, me: int) -> tuple[Any, ...]:
        """Seat ``me``'s absolute offsets: ``[s]`` per relative seat field, ``[s][k]`` per column
        slot field, and each card ``c``'s entry ``base + c`` as ``base`` (built once per seat)."""
        n, h, at, rel = self.players, self.highest, self.at, self.relative(me)
        seat = {f: [at[f] + rel[s] for s in range(n)] for f in ("turn", "to_act", "discards", "scores", "hand_sizes")}
        known = [at["known"] - 1 + rel[s] * h for s in range(n)]
        slots = [[rel[s] * COLUMNS + k for k in range(COLUMNS)] for s in range(n)]
        top = [[at["column_top"] - 1 + slot * h for slot in row] for row in slots]
        length = [[at["column_length"] + slot for slot in row] for row in slots]
        up = [[at["column_up"] + slot for slot in row] for row in slots]
        down = [[at["column_down"] + slot for slot in row] for row in slots]
        colours = [[at["column_colours"] + slot * COLOURS for slot in row] for row in slots]
        phase = {p: at["phase"] + i for p, i in PHASE_INDEX.items()}
        return (phase, seat["turn"], seat["to_act"], at["hand"] - 1, at["display"] - 1, at["played"] - 1,
                at["taken"] - 1, known, top, length, up, down, colours, seat["discards"], seat["scores"],
                seat["hand_sizes"], at["down"], at["up"], at["up_top"] - 1)

    def fill(self, view: View, v: Buffer | list[float]) -> None:
        (phase, turn, to_act, hand_at, display_at, played_at, taken_at, known_at, top_at, length_at, up_at,
         down_at, colours_at, discards, scores, hand_sizes, down, up, up_top) = self._tables[view["seat"]]
        v[phase[view["phase"]]] = 1.0
        s = view["turn"]
        if s is not None:
            v[turn[s]] = 1.0
        for s in view["to_act"]:
            if s is not None:
                v[to_act[s]] = 1.0
        for c in view["hand"]:
            v[hand_at + c] = 1.0
        for c in view["display"]:
            v[display_at + c] = 1.0
        c = view["played"]
        if c:
            v[played_at + c] = 1.0
        c = view["taken"]
        if c:
            v[taken_at + c] = 1.0
        for s, cards in enumerate(view["known"]):
            base = known_at[s]
            for c in cards:
                v[base + c] = 1.0
        h = self.highest
        tens = TENTHS
        for s, columns in enumerate(view["columns"]):
            top, length, rising, falling, colours = top_at[s], length_at[s], up_at[s], down_at[s], colours_at[s]
            for k, col in enumerate(columns):
                if col is None:
                    continue
                cards = col["cards"]
                v[top[k] + cards[-1]] = 1.0
                v[length[k]] = tens[len(cards)]
                direction = col["direction"]
                if direction == "up":
                    v[rising[k]] = 1.0
                elif direction == "down":
                    v[falling[k]] = 1.0
                counts = [0] * COLOURS
                for c in cards:
                    counts[(c - 1) % COLOURS] += 1
                base = colours[k]
                for i, count in enumerate(counts):
                    if count:
                        v[base + i] = COLOUR_SHARE[count]
        for s, x in enumerate(view["discards"]):
            v[discards[s]] = THIRTIETHS[x]
        for s, x in enumerate(view["scores"]):
            v[scores[s]] = SIXTIETHS[x]
        for s, x in enumerate(view["hand_sizes"]):
            v[hand_sizes[s]] = THIRDS[x]
        of_highest = fractions(h)
        v[down] = of_highest[view["down"]]
        v[up] = of_highest[view["up"]]
        c = view["up_top"]
        if c:
            v[up_top + c] = 1.0

    def deal_points(self, event: Event) -> list[float] | None:
        """One round per game: each seat's final score."""
        if event["type"] == "end":
            return [float(x) for x in event["scores"]]
        return None

    def decision_ids(self) -> list[int]:
        # a new column, a hand card 1..H played, a display card 1..H taken, a column to place on or
        # give up, a pile to draw from; cards above H (no deck has them) are left out
        from updown.games.up_or_down import COL, DRAW_DOWN, DRAW_UP, GIVE_UP, MAX_COLUMNS, NEW, TAKE

        h = self.highest
        return ([NEW] + list(range(1, h + 1)) + [TAKE + c for c in range(1, h + 1)]
                + [COL + k for k in range(1, MAX_COLUMNS + 1)] + [GIVE_UP + k for k in range(1, MAX_COLUMNS + 1)]
                + [DRAW_DOWN, DRAW_UP])

    def max_game_length(self) -> int:
        # Every card is dealt, shown or drawn once (a chance step each, plus reveals), and each
        # card played makes at most four decisions (play, take, place, draw).
        return 10 + 6 * self.highest
