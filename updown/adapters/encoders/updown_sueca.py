"""Up&Down with Sueca ranks: the observation of a seat's view (fields in ``docs/observations.md``)."""

from __future__ import annotations

from updown.adapters.observations import Array, Encoder as Base, Layout, one_hot, scaled
from updown.core.protocol import Event, View

GAME_ID = "updown-sueca"
PHASES = ("deal", "turn", "deal2", "draw", "trump", "decide", "exchange", "trick", "over")
SUITS = "CDHS"
CARDS = 40
SEATS = 4
DEAL_STEPS = 90
"""A deal's steps at most: 20 cards dealt and the turned card, the trump call, 4 decisions, up to
5 discards, a ``done`` and 5 draws per seat, 20 cards played."""
DEALS = 200
"""The match has no bound in the rules (a seat that plays and takes nothing goes back up); random
play ends in about 15 deals, and OpenSpiel's ``max_game_length`` takes this many as the cap."""


class Encoder(Base):
    def build(self, layout: Layout) -> None:
        self.cards = {self.game.action_to_str(i): i for i in range(CARDS)}
        layout.add("phase", len(PHASES), "one-hot: " + ", ".join(PHASES))
        layout.add("dealer", SEATS, "one-hot relative seat of the dealer")
        layout.add("chooser", SEATS, "one-hot relative seat of the trump chooser")
        layout.add("leader", SEATS, "one-hot relative seat that leads the current trick")
        layout.add("to_act", SEATS, "relative seats that must act now")
        layout.add("trump", 4, "one-hot trump suit (C, D, H, S)")
        layout.add("turned", CARDS, "the turned card, if the chooser turned (card ids suit-major, 2..7 J Q K A)")
        layout.add("double", 1, "1 if tricks count double this deal")
        layout.add("scores", SEATS, "per relative seat, score / 40, clipped to [0, 1] (the race is to 0)")
        layout.add("sat_out", SEATS, "per relative seat, consecutive deals sat out before this one / 2, at most 1")
        layout.add("plays", SEATS, "relative seats that play this deal")
        layout.add("sits_out", SEATS, "relative seats that sit this deal out")
        layout.add("forced", SEATS, "relative seats forced to play")
        layout.add("discarded", SEATS, "per relative seat, cards discarded this deal / 5")
        layout.add("exchanged", SEATS, "per relative seat, cards exchanged this deal / 5")
        layout.add("hand_sizes", SEATS, "per relative seat, cards in hand / 5, at most 1")
        layout.add("stock", 1, "cards left in the stock / 20")
        layout.add("trick", 1, "trick number / 5")
        layout.add("table", SEATS * CARDS, "per relative seat, its card on the table in the current trick")
        layout.add("hand", CARDS, "the observer's hand")
        layout.add("my_discards", CARDS, "the observer's own discards this deal")
        layout.add("played", SEATS * CARDS, "per relative seat, the cards it has played this deal")
        layout.add("tricks", SEATS, "per relative seat, tricks taken this deal / 5")
        layout.add("left", SEATS, "relative seats whose player left the match (a bot plays them)")

    def fill(self, view: View, out: dict[str, Array]) -> None:
        cards = self.cards
        one_hot(out["phase"], PHASES.index(view["phase"]))
        self.seats_hot(view, out["dealer"], [view["dealer"]])
        self.seats_hot(view, out["chooser"], [view["chooser"]])
        self.seats_hot(view, out["leader"], [view["leader"]])
        self.seats_hot(view, out["to_act"], view["to_act"])
        if view["trump"] is not None:
            out["trump"][SUITS.index(view["trump"])] = 1.0
        if view["turned"] is not None:
            out["turned"][cards[view["turned"]]] = 1.0
        out["double"][0] = float(view["trick_value"] > 1)
        self.per_seat(view, out["scores"], view["scores"], 40)
        self.per_seat(view, out["sat_out"], view["sat_out"], 2)
        for s, d in enumerate(view["decisions"]):
            if d is not None:
                out["plays" if d == "play" else "sits_out"][self.rel(view, s)] = 1.0
        self.seats_hot(view, out["forced"], [s for s, f in enumerate(view["forced"]) if f])
        self.per_seat(view, out["discarded"], view["discarded"], 5)
        self.per_seat(view, out["exchanged"], [x or 0 for x in view["exchanged"]], 5)
        self.per_seat(view, out["hand_sizes"], view["hand_sizes"], 5)
        out["stock"][0] = scaled(view["stock"], 20)
        out["trick"][0] = scaled(view["trick"], 5)
        for s, c in view["table"]:
            out["table"][self.rel(view, s) * CARDS + cards[c]] = 1.0
        for c in view["hand"]:
            out["hand"][cards[c]] = 1.0
        for c in view["my_discards"]:
            out["my_discards"][cards[c]] = 1.0
        played = out["played"]
        for e in view["log"]:
            if e["type"] == "deal":
                played[:] = 0.0
            elif e["type"] == "trick":
                for s, c in e["cards"]:
                    played[self.rel(view, s) * CARDS + cards[c]] = 1.0
        self.per_seat(view, out["tricks"], view["tricks"], 5)
        self.seats_hot(view, out["left"], view["left"])

    def deal_points(self, event: Event) -> list[float] | None:
        """The scoring of a deal: points come off a seat's score, so a seat's reward is minus its
        change (taking 2 tricks is +2; playing and taking none is -5)."""
        if event["type"] == "score":
            return [-float(c) for c in event["changes"]]
        return None

    def decision_ids(self) -> list[int]:
        # every id is some decision (cards played, discards, trump, turn, play, sit out, done);
        # the cards dealt and drawn (chance) reuse the card ids
        return list(range(self.num_actions))

    def max_game_length(self) -> int:
        return DEALS * DEAL_STEPS
