"""UP&DOWN: the observation of a seat's view (fields in ``docs/observations.md``)."""

from __future__ import annotations

from updown.adapters.observations import Buffer, Encoder as Base, Layout, hot, per_seat, scaled
from updown.core.protocol import Event, View

GAME_ID = "updown"
PHASES = ("deal", "dice", "toss", "orient", "lead", "choose", "over")
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
SUITS = "CDHS"
SUIT_INDEX = {letter: i for i, letter in enumerate(SUITS)}
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

    def fill(self, view: View, v: Buffer) -> None:
        n = self.players
        at = self.at
        cards = self.cards
        rel = self.relative(view["seat"])
        v[at["phase"] + PHASE_INDEX[view["phase"]]] = 1.0
        up = view["up"]
        if up is not None:
            v[at["up"] if up else at["down"]] = 1.0
        trump = view["trump"]
        if trump is not None:
            v[at["trump"] + trump - 2] = 1.0
        suits = view["suits"]
        if suits:
            base = at["suits"]
            for s, letter in enumerate(suits):
                v[base + 4 * rel[s] + SUIT_INDEX[letter]] = 1.0
        hot(v, at["leader"], rel, (view["leader"],))
        hot(v, at["to_act"], rel, view["to_act"])
        hot(v, at["submitted"], rel, view["submitted"])
        hand = at["hand"]
        for c in view["hand"]:
            v[hand + cards[c]] = 1.0
        choice = view["choice"]
        if choice is not None:
            v[at["choice"] + cards[choice]] = 1.0
        # This round's tricks: the log from its end back to the first event of an earlier round.
        this_round = view["round"]
        played = at["played"]
        log = view["log"]
        last: Event | None = None
        i = len(log) - 1
        while i >= 0:
            e = log[i]
            r = e.get("round")
            if r is not None and r < this_round:
                break
            if e["type"] == "trick" and r == this_round:
                if last is None:
                    last = e
                for s, c in enumerate(e["cards"]):
                    v[played + rel[s] * CARDS + cards[c]] = 1.0
            i -= 1
        if last is not None:
            last_trick = at["last_trick"]
            for s, c in enumerate(last["cards"]):
                v[last_trick + rel[s] * CARDS + cards[c]] = 1.0
            hot(v, at["last_winner"], rel, (last["winner"],))
        per_round = view["tricks_per_round"]
        v[at["trick"]] = scaled(view["trick"], per_round)
        v[at["round"]] = scaled(this_round, view["rounds"])
        v[at["pot"]] = scaled(view["pot"], per_round)
        per_seat(v, at["hand_sizes"], rel, view["hand_sizes"], HAND[n])
        per_seat(v, at["tricks"], rel, view["tricks"], per_round)
        per_seat(v, at["totals"], rel, view["totals"], per_round * view["rounds"])

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
