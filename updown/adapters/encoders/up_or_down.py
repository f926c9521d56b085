"""Up or Down?: the observation of a seat's view (fields in ``docs/observations.md``).

Cards are numbered 1..H, where H (``highest`` in the view) depends on the player count and the
game length; card ``c`` is entry ``c - 1`` of every card field, so sizes below are in H.
"""

from __future__ import annotations

from updown.adapters.observations import Array, Encoder as Base, Layout, one_hot, scaled
from updown.core.protocol import Event, View

GAME_ID = "up-or-down"
PHASES = ("deal", "display", "reveal", "drawn", "play", "take", "place", "draw", "over")
COLUMNS = 3
COLOURS = 6


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

    def fill(self, view: View, out: dict[str, Array]) -> None:
        n, h = self.players, self.highest
        one_hot(out["phase"], PHASES.index(view["phase"]))
        self.seats_hot(view, out["turn"], [view["turn"]])
        self.seats_hot(view, out["to_act"], view["to_act"])
        for c in view["hand"]:
            out["hand"][c - 1] = 1.0
        for c in view["display"]:
            out["display"][c - 1] = 1.0
        if view["played"]:
            out["played"][view["played"] - 1] = 1.0
        if view["taken"]:
            out["taken"][view["taken"] - 1] = 1.0
        for s, known in enumerate(view["known"]):
            r = self.rel(view, s)
            for c in known:
                out["known"][r * h + c - 1] = 1.0
        for s, columns in enumerate(view["columns"]):
            r = self.rel(view, s)
            for k, col in enumerate(columns):
                if col is None:
                    continue
                slot = r * COLUMNS + k
                cards = col["cards"]
                out["column_top"][slot * h + cards[-1] - 1] = 1.0
                out["column_length"][slot] = scaled(len(cards), 10)
                if col["direction"] == "up":
                    out["column_up"][slot] = 1.0
                elif col["direction"] == "down":
                    out["column_down"][slot] = 1.0
                colours = out["column_colours"][slot * COLOURS:(slot + 1) * COLOURS]
                for c in cards:
                    colours[(c - 1) % COLOURS] += 0.1
                colours.clip(0.0, 1.0, out=colours)
        self.per_seat(view, out["discards"], view["discards"], 30)
        self.per_seat(view, out["scores"], view["scores"], 60)
        self.per_seat(view, out["hand_sizes"], view["hand_sizes"], 3)
        out["down"][0] = scaled(view["down"], h)
        out["up"][0] = scaled(view["up"], h)
        one_hot(out["up_top"], view["up_top"] - 1 if view["up_top"] else None)
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
