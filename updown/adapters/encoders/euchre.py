"""Euchre: the observation of a seat's view (fields in ``docs/observations.md``)."""

from __future__ import annotations

from typing import Any

from updown.adapters.observations import Buffer, Encoder as Base, Layout, hot, per_seat, scaled
from updown.core.protocol import Event, View

GAME_ID = "euchre"
PHASES = ("dealer", "deal", "upcard", "bid1", "discard", "bid2", "defend", "play", "over")
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
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

    def fill(self, view: View, v: Buffer) -> None:
        at = self.at
        cards = self.cards
        me = view["seat"]
        rel = self.relative(me)
        v[at["phase"] + PHASE_INDEX[view["phase"]]] = 1.0
        hot(v, at["dealer"], rel, (view["dealer"],))
        upcard = view["upcard"]
        if upcard is not None:
            v[at["upcard"] + cards[upcard]] = 1.0
        v[at["up_taken"]] = float(bool(view["up_taken"]))
        trump = view["trump"]
        if trump is not None:
            v[at["trump"] + SUITS.index(trump)] = 1.0
        hot(v, at["maker"], rel, (view["maker"],))
        v[at["alone"]] = float(bool(view["alone"]))
        hot(v, at["defender"], rel, (view["defender"],))
        hot(v, at["out"], rel, view["out"] or ())
        hot(v, at["leader"], rel, (view["leader"],))
        hot(v, at["to_act"], rel, view["to_act"])
        table = at["table"]
        for s, c in view["table"]:
            v[table + rel[s] * CARDS + cards[c]] = 1.0
        hand = at["hand"]
        for c in view["hand"]:
            v[hand + cards[c]] = 1.0
        discard = view["discard"]
        if discard is not None:
            v[at["discard"] + cards[discard]] = 1.0
        # This deal's passes and cards played: the log since the last up-card (a new deal).
        passes, played = at["passes"], at["played"]
        log = view["log"]
        start = len(log)
        while start > 0 and log[start - 1]["type"] != "upcard":
            start -= 1
        for i in range(start, len(log)):
            e = log[i]
            kind = e["type"]
            if kind == "bid":
                # a pass in bidding round 1 or 2; round 0 is the lone defender's decision, not a bid
                if e["bid"] == "pass" and e["round"]:
                    v[passes + 2 * rel[e["seat"]] + e["round"] - 1] = 1.0
            elif kind == "trick":
                for s, c in zip(e["seats"], e["cards"]):
                    v[played + rel[s] * CARDS + cards[c]] = 1.0
        v[at["trick"]] = scaled(view["trick"], 5)
        per_seat(v, at["tricks"], rel, view["tricks"], 5)
        mine, theirs = me % 2, 1 - me % 2
        team = at["team_tricks"]
        v[team] = scaled(view["team_tricks"][mine], 5)
        v[team + 1] = scaled(view["team_tricks"][theirs], 5)
        target = view["target"]
        totals = at["totals"]
        v[totals] = scaled(view["totals"][mine], target)
        v[totals + 1] = scaled(view["totals"][theirs], target)

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
