"""Up or Down?: the observation of a seat's view (fields in ``docs/observations.md``).

Cards are numbered 1..H, where H (``highest`` in the view) depends on the player count and the
game length; card ``c`` is entry ``c - 1`` of every card field, so sizes below are in H.
"""

from __future__ import annotations

import numpy as np

from updown.adapters.observations import Buffer, Encoder as Base, Layout, hot, per_seat, scaled
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

    def fill(self, view: View, v: Buffer) -> None:
        n, h = self.players, self.highest
        at = self.at
        rel = self.relative(view["seat"])
        v[at["phase"] + PHASE_INDEX[view["phase"]]] = 1.0
        hot(v, at["turn"], rel, (view["turn"],))
        hot(v, at["to_act"], rel, view["to_act"])
        for field in ("hand", "display"):
            base = at[field] - 1
            for c in view[field]:
                v[base + c] = 1.0
        if view["played"]:
            v[at["played"] + view["played"] - 1] = 1.0
        if view["taken"]:
            v[at["taken"] + view["taken"] - 1] = 1.0
        known = at["known"] - 1
        for s, cards in enumerate(view["known"]):
            base = known + rel[s] * h
            for c in cards:
                v[base + c] = 1.0
        top, length, up, down = at["column_top"] - 1, at["column_length"], at["column_up"], at["column_down"]
        colours = at["column_colours"]
        for s, columns in enumerate(view["columns"]):
            r = rel[s]
            for k, col in enumerate(columns):
                if col is None:
                    continue
                slot = r * COLUMNS + k
                cards = col["cards"]
                v[top + slot * h + cards[-1]] = 1.0
                v[length + slot] = scaled(len(cards), 10)
                direction = col["direction"]
                if direction == "up":
                    v[up + slot] = 1.0
                elif direction == "down":
                    v[down + slot] = 1.0
                counts = [0] * COLOURS
                for c in cards:
                    counts[(c - 1) % COLOURS] += 1
                base = colours + slot * COLOURS
                for i, count in enumerate(counts):
                    if count:
                        v[base + i] = COLOUR_SHARE[count]
        per_seat(v, at["discards"], rel, view["discards"], 30)
        per_seat(v, at["scores"], rel, view["scores"], 60)
        per_seat(v, at["hand_sizes"], rel, view["hand_sizes"], 3)
        v[at["down"]] = scaled(view["down"], h)
        v[at["up"]] = scaled(view["up"], h)
        if view["up_top"]:
            v[at["up_top"] + view["up_top"] - 1] = 1.0
        del n

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
