"""Euchre: the observation of a seat's view (fields in ``docs/observations.md``)."""

from __future__ import annotations

from typing import Any

from updown.adapters.observations import Array, Encoder as Base, Layout, one_hot, scaled
from updown.core.protocol import Event, View

GAME_ID = "euchre"
PHASES = ("dealer", "deal", "upcard", "bid1", "discard", "bid2", "defend", "play", "over")
SUITS = "CDHS"
CARDS = 24
SEATS = 4


class Encoder(Base):
    def build(self, layout: Layout) -> None:
        self.cards = {self.game.action_to_str(i): i for i in range(CARDS)}
        layout.add("phase", len(PHASES), "one-hot: " + ", ".join(PHASES))
        layout.add("dealer", SEATS, "one-hot relative seat of the dealer")
        layout.add("upcard", CARDS, "the up-card, by card id (suit-major C D H S, ranks 9 10 J Q K A)")
        layout.add("up_taken", 1, "1 once the up-card was ordered or picked up")
        layout.add("trump", 4, "one-hot trump suit (C, D, H, S)")
        layout.add("maker", SEATS, "one-hot relative seat of the maker")
        layout.add("alone", 1, "1 if the maker goes alone")
        layout.add("defender", SEATS, "one-hot relative seat of a lone defender")
        layout.add("out", SEATS, "relative seats sitting out this deal")
        layout.add("passes", 2 * SEATS, "per relative seat, [passed in round 1, passed in round 2] this deal")
        layout.add("leader", SEATS, "one-hot relative seat that leads the current trick")
        layout.add("to_act", SEATS, "relative seats that must act now")
        layout.add("table", SEATS * CARDS, "per relative seat, its card on the table in the current trick")
        layout.add("hand", CARDS, "the observer's hand")
        layout.add("discard", CARDS, "the observer's own discard as dealer, if any")
        layout.add("played", SEATS * CARDS, "per relative seat, the cards it has played this deal")
        layout.add("trick", 1, "trick number / 5")
        layout.add("tricks", SEATS, "per relative seat, tricks won this deal / 5")
        layout.add("team_tricks", 2, "[observer's team, other team] tricks this deal / 5")
        layout.add("totals", 2, "[observer's team, other team] points / target, at most 1")

    def fill(self, view: View, out: dict[str, Array]) -> None:
        cards = self.cards
        me = view["seat"]
        one_hot(out["phase"], PHASES.index(view["phase"]))
        self.seats_hot(view, out["dealer"], [view["dealer"]])
        if view["upcard"] is not None:
            out["upcard"][cards[view["upcard"]]] = 1.0
        out["up_taken"][0] = float(bool(view["up_taken"]))
        if view["trump"] is not None:
            out["trump"][SUITS.index(view["trump"])] = 1.0
        self.seats_hot(view, out["maker"], [view["maker"]])
        out["alone"][0] = float(bool(view["alone"]))
        self.seats_hot(view, out["defender"], [view["defender"]])
        self.seats_hot(view, out["out"], view["out"] or [])
        self.seats_hot(view, out["leader"], [view["leader"]])
        self.seats_hot(view, out["to_act"], view["to_act"])
        for s, c in view["table"]:
            out["table"][self.rel(view, s) * CARDS + cards[c]] = 1.0
        for c in view["hand"]:
            out["hand"][cards[c]] = 1.0
        if view["discard"] is not None:
            out["discard"][cards[view["discard"]]] = 1.0
        passes = out["passes"]
        played = out["played"]
        for e in view["log"]:
            kind = e["type"]
            if kind == "upcard":  # a new deal: forget the last one's bids and cards
                passes[:] = 0.0
                played[:] = 0.0
            elif kind == "bid" and e["bid"] == "pass":
                passes[2 * self.rel(view, e["seat"]) + e["round"] - 1] = 1.0
            elif kind == "trick":
                for s, c in zip(e["seats"], e["cards"]):
                    played[self.rel(view, s) * CARDS + cards[c]] = 1.0
        out["trick"][0] = scaled(view["trick"], 5)
        self.per_seat(view, out["tricks"], view["tricks"], 5)
        mine, theirs = me % 2, 1 - me % 2
        out["team_tricks"][:] = (scaled(view["team_tricks"][mine], 5), scaled(view["team_tricks"][theirs], 5))
        target = view["target"]
        out["totals"][:] = (scaled(view["totals"][mine], target), scaled(view["totals"][theirs], target))

    def deal_points(self, event: Event) -> list[float] | None:
        """The score of a deal: each seat gets its team's points."""
        if event["type"] == "score":
            return [float(event["points"][s % 2]) for s in range(SEATS)]
        return None

    def decision_ids(self) -> list[int]:
        # cards played, discards, bids; "defend alone" only with the lone defender; the first
        # dealer (62..65) is chance only
        from updown.games.euchre import DEFEND_ALONE

        return list(range(DEFEND_ALONE)) + ([DEFEND_ALONE] if self.options.lone_defender else [])

    def max_game_length(self) -> int:
        # A deal: 20 cards and the up-card, 8 bids, a discard, 2 lone-defender calls, 20 cards
        # played. With stick the dealer every deal scores, so a match to `target` has at most
        # 2 * target - 1 deals; without it thrown-in deals are unbounded and 100 deals is the cap.
        opts: Any = self.options
        deals = opts.deals or (2 * opts.target - 1 if opts.stick_the_dealer else 100)
        return 1 + deals * 52
