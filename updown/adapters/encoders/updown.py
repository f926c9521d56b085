"""UP&DOWN: the observation of a seat's view (fields in ``docs/observations.md``)."""

from __future__ import annotations

from updown.adapters.observations import Array, Encoder as Base, Layout, one_hot, scaled
from updown.core.protocol import Event, View

GAME_ID = "updown"
PHASES = ("deal", "dice", "toss", "orient", "lead", "choose", "over")
SUITS = "CDHS"
CARDS = 44
HAND = {2: 15, 3: 14, 4: 11}


class Encoder(Base):
    simultaneous = True  # the secret card: every seat chooses at once
    def build(self, layout: Layout) -> None:
        n = self.players
        self.cards = {self.game.action_to_str(i): i for i in range(CARDS)}
        layout.add("phase", len(PHASES), "one-hot: " + ", ".join(PHASES))
        layout.add("up", 1, "1 if the U&D card shows UP")
        layout.add("down", 1, "1 if it shows DOWN (both 0 before the toss)")
        layout.add("trump", 11, "one-hot trump value 2..12 (all 0 before the dice)")
        layout.add("suits", 4 * n, "per relative seat, one-hot of the suit facing it (C, D, H, S)")
        layout.add("leader", n, "one-hot relative seat of the leader")
        layout.add("to_act", n, "relative seats that must act now")
        layout.add("submitted", n, "relative seats whose secret card is in (not which card)")
        layout.add("hand", CARDS, "the observer's hand, by card id (suit-major C D H S, values 2..Q)")
        layout.add("choice", CARDS, "the observer's own submitted card, if any")
        layout.add("played", n * CARDS, "per relative seat, the cards it has revealed this round")
        layout.add("last_trick", n * CARDS, "per relative seat, its card in the last trick of this round")
        layout.add("last_winner", n, "one-hot relative seat that won the last trick (all 0: none, or pot)")
        layout.add("trick", 1, "trick number / tricks per round")
        layout.add("round", 1, "round number / rounds")
        layout.add("pot", 1, "tricks in the pot / tricks per round")
        layout.add("hand_sizes", n, "per relative seat, cards in hand / hand size")
        layout.add("tricks", n, "per relative seat, tricks taken this round / tricks per round")
        layout.add("totals", n, "per relative seat, tricks over the match / (tricks per round x rounds), at most 1")

    def fill(self, view: View, out: dict[str, Array]) -> None:
        n = self.players
        cards = self.cards
        one_hot(out["phase"], PHASES.index(view["phase"]))
        if view["up"] is not None:
            out["up" if view["up"] else "down"][0] = 1.0
        if view["trump"] is not None:
            out["trump"][view["trump"] - 2] = 1.0
        if view["suits"]:
            for s, letter in enumerate(view["suits"]):
                out["suits"][4 * self.rel(view, s) + SUITS.index(letter)] = 1.0
        self.seats_hot(view, out["leader"], [view["leader"]])
        self.seats_hot(view, out["to_act"], view["to_act"])
        self.seats_hot(view, out["submitted"], view["submitted"])
        for c in view["hand"]:
            out["hand"][cards[c]] = 1.0
        if view["choice"] is not None:
            out["choice"][cards[view["choice"]]] = 1.0
        last: Event | None = None
        played = out["played"]
        for e in view["log"]:
            if e["type"] == "trick" and e["round"] == view["round"]:
                last = e
                for s, c in enumerate(e["cards"]):
                    played[self.rel(view, s) * CARDS + cards[c]] = 1.0
        if last is not None:
            for s, c in enumerate(last["cards"]):
                out["last_trick"][self.rel(view, s) * CARDS + cards[c]] = 1.0
            self.seats_hot(view, out["last_winner"], [last["winner"]])
        per_round = view["tricks_per_round"]
        out["trick"][0] = scaled(view["trick"], per_round)
        out["round"][0] = scaled(view["round"], view["rounds"])
        out["pot"][0] = scaled(view["pot"], per_round)
        self.per_seat(view, out["hand_sizes"], view["hand_sizes"], HAND[n])
        self.per_seat(view, out["tricks"], view["tricks"], per_round)
        self.per_seat(view, out["totals"], view["totals"], per_round * view["rounds"])

    def deal_points(self, event: Event) -> list[float] | None:
        """The end of a round: each seat's tricks in it."""
        if event["type"] == "round":
            return [float(t) for t in event["tricks"]]
        return None

    def decision_ids(self) -> list[int]:
        # a card (the secret choice), then the leader's flip, rotations and roll; the ids above
        # (the dice, the toss, the orientation) are chance only
        from updown.games.updown import ROLL

        return list(range(ROLL + 1))

    def max_game_length(self) -> int:
        # A round: the deal (at most 44 cards), dice, toss, orientation, then per trick a lead
        # (a roll adds a chance step) and one choice per seat.
        rounds = getattr(self.options, "rounds", None) or self.players
        rounds += getattr(self.options, "tiebreak_rounds", 0)
        return rounds * (CARDS + 3 + HAND[self.players] * (self.players + 2))
