"""UP&DOWN: the observation of a seat's view (fields in ``docs/observations.md``)."""

from __future__ import annotations

from typing import Any

from updown.adapters.observations import Buffer, Encoder as Base, Fractions, Layout, fraction, fractions
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
        self._of_hand = fractions(HAND[n])
        per_round = HAND[n]
        most = (getattr(self.options, "rounds", None) or n) + getattr(self.options, "tiebreak_rounds", 0)
        self._by_scale = {s: Fractions(s, s) for s in {per_round, *(per_round * r for r in range(1, most + 1))}}
        """Fraction tables for the scales this game's views use (tricks per round, and per match
        as rounds are added); a view with another scale gets a table made for it there."""
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

    def tables(self, me: int) -> tuple[Any, ...]:
        """Seat ``me``'s absolute offsets: ``[s]`` per relative seat field, ``{card: offset}`` per
        card field, ``[s][card]`` per seat's card field (built once per seat)."""
        n, at, cards, rel = self.players, self.at, self.cards, self.relative(me)
        seat = {f: [at[f] + rel[s] for s in range(n)]
                for f in ("leader", "to_act", "submitted", "last_winner", "hand_sizes", "tricks", "totals")}
        card = {f: {c: at[f] + i for c, i in cards.items()} for f in ("hand", "choice")}
        seat_card = {f: [{c: at[f] + rel[s] * CARDS + i for c, i in cards.items()} for s in range(n)]
                     for f in ("played", "last_trick")}
        suits = [{letter: at["suits"] + 4 * rel[s] + i for letter, i in SUIT_INDEX.items()} for s in range(n)]
        phase = {p: at["phase"] + i for p, i in PHASE_INDEX.items()}
        trump = {t: at["trump"] + t - 2 for t in range(2, 13)}
        return (phase, at["up"], at["down"], trump, suits, seat["leader"], seat["to_act"], seat["submitted"],
                card["hand"], card["choice"], seat_card["played"], seat_card["last_trick"], seat["last_winner"],
                at["trick"], at["round"], at["pot"], seat["hand_sizes"], seat["tricks"], seat["totals"])

    def fill(self, view: View, v: Buffer | list[float]) -> None:
        (phase, up_at, down_at, trump_at, suits_at, leader, to_act, submitted, hand_at, choice_at, played,
         last_trick, last_winner, trick, round_at, pot, hand_sizes, tricks, totals) = self._tables[view["seat"]]
        v[phase[view["phase"]]] = 1.0
        up = view["up"]
        if up is not None:
            v[up_at if up else down_at] = 1.0
        t = view["trump"]
        if t is not None:
            v[trump_at[t] if t in trump_at else trump_at[2] + t - 2] = 1.0
        suits = view["suits"]
        if suits:
            for s, letter in enumerate(suits):
                v[suits_at[s][letter]] = 1.0
        s = view["leader"]
        if s is not None:
            v[leader[s]] = 1.0
        for s in view["to_act"]:
            if s is not None:
                v[to_act[s]] = 1.0
        for s in view["submitted"]:
            if s is not None:
                v[submitted[s]] = 1.0
        for c in view["hand"]:
            v[hand_at[c]] = 1.0
        c = view["choice"]
        if c is not None:
            v[choice_at[c]] = 1.0
        # This round's tricks: the log from its end back to the first event of an earlier round.
        this_round = view["round"]
        log = view["log"]
        last: Event | None = None
        i = len(log) - 1
        while i >= 0:
            e = log[i]
            r = e.get("round")
            if r is not None:
                if r < this_round:
                    break
                if r == this_round and e["type"] == "trick":
                    if last is None:
                        last = e
                    for s, c in enumerate(e["cards"]):
                        v[played[s][c]] = 1.0
            i -= 1
        if last is not None:
            for s, c in enumerate(last["cards"]):
                v[last_trick[s][c]] = 1.0
            s = last["winner"]
            if s is not None:
                v[last_winner[s]] = 1.0
        per_round = view["tricks_per_round"]
        by_scale = self._by_scale
        of_round = by_scale.get(per_round) or Fractions(per_round, 0)
        v[trick] = of_round[view["trick"]]
        v[round_at] = fraction(this_round, view["rounds"])
        v[pot] = of_round[view["pot"]]
        of_hand = self._of_hand
        for s, x in enumerate(view["hand_sizes"]):
            v[hand_sizes[s]] = of_hand[x]
        for s, x in enumerate(view["tricks"]):
            v[tricks[s]] = of_round[x]
        of_match = by_scale.get(per_round * view["rounds"]) or Fractions(per_round * view["rounds"], 0)
        for s, x in enumerate(view["totals"]):
            v[totals[s]] = of_match[x]

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
