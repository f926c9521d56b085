"""Euchre: the observation of a seat's view (fields in ``docs/observations.md``)."""

from __future__ import annotations

from typing import Any

from updown.adapters.observations import Buffer, Encoder as Base, Fractions, Layout, fractions
from updown.core.protocol import Event, View

GAME_ID = "euchre"
PHASES = ("dealer", "deal", "upcard", "bid1", "discard", "bid2", "defend", "play", "over")
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
SUITS = "CDHS"
CARDS = 24
SEATS = 4
FIFTHS = Fractions(5, 5)
"""Tricks (a deal has five) as fractions."""


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

    def tables(self, me: int) -> tuple[Any, ...]:
        """Seat ``me``'s absolute offsets (built once per seat): per field, ``[s]`` for relative
        seat fields, ``{card: offset}`` for card fields, ``[s][card]`` for per-seat card fields."""
        at, cards, rel = self.at, self.cards, self.relative(me)
        seat = {f: [at[f] + rel[s] for s in range(SEATS)] for f in ("dealer", "maker", "defender", "out",
                                                                    "leader", "to_act", "tricks")}
        card = {f: {c: at[f] + i for c, i in cards.items()} for f in ("upcard", "hand", "discard")}
        per_seat_card = {f: [{c: at[f] + rel[s] * CARDS + i for c, i in cards.items()} for s in range(SEATS)]
                         for f in ("table", "played")}
        passes = [(None, at["passes"] + 2 * rel[s], at["passes"] + 2 * rel[s] + 1) for s in range(SEATS)]
        phase = {p: at["phase"] + i for p, i in PHASE_INDEX.items()}
        trump = {suit: at["trump"] + i for i, suit in enumerate(SUITS)}
        mine, theirs = me % 2, 1 - me % 2
        return (phase, seat["dealer"], card["upcard"], at["up_taken"], trump, seat["maker"], at["alone"],
                seat["defender"], seat["out"], seat["leader"], seat["to_act"], per_seat_card["table"],
                card["hand"], card["discard"], passes, per_seat_card["played"], at["trick"], seat["tricks"],
                at["team_tricks"], at["totals"], mine, theirs)

    def fill(self, view: View, v: Buffer | list[float]) -> None:
        (phase, dealer, upcard_at, up_taken, trump_at, maker, alone, defender, out, leader, to_act, table,
         hand_at, discard_at, passes, played, trick, tricks, team, totals, mine, theirs) = self._tables[view["seat"]]
        v[phase[view["phase"]]] = 1.0
        s = view["dealer"]
        if s is not None:
            v[dealer[s]] = 1.0
        c = view["upcard"]
        if c is not None:
            v[upcard_at[c]] = 1.0
        if view["up_taken"]:
            v[up_taken] = 1.0
        t = view["trump"]
        if t is not None:
            v[trump_at[t]] = 1.0
        s = view["maker"]
        if s is not None:
            v[maker[s]] = 1.0
        if view["alone"]:
            v[alone] = 1.0
        s = view["defender"]
        if s is not None:
            v[defender[s]] = 1.0
        for s in view["out"] or ():
            if s is not None:
                v[out[s]] = 1.0
        s = view["leader"]
        if s is not None:
            v[leader[s]] = 1.0
        for s in view["to_act"]:
            if s is not None:
                v[to_act[s]] = 1.0
        for s, c in view["table"]:
            v[table[s][c]] = 1.0
        for c in view["hand"]:
            v[hand_at[c]] = 1.0
        c = view["discard"]
        if c is not None:
            v[discard_at[c]] = 1.0
        # This deal's passes and cards played: the log back to the last up-card (a new deal).
        log = view["log"]
        i = len(log) - 1
        while i >= 0:
            e = log[i]
            kind = e["type"]
            if kind == "trick":
                for s, c in zip(e["seats"], e["cards"]):
                    v[played[s][c]] = 1.0
            elif kind == "bid":
                # a pass in bidding round 1 or 2; round 0 is the lone defender's decision, not a bid
                if e["bid"] == "pass":
                    r = e["round"]
                    if r:
                        v[passes[e["seat"]][r]] = 1.0
            elif kind == "upcard":
                break
            i -= 1
        v[trick] = FIFTHS[view["trick"]]
        for s, x in enumerate(view["tricks"]):
            v[tricks[s]] = FIFTHS[x]
        x = view["team_tricks"]
        v[team] = FIFTHS[x[mine]]
        v[team + 1] = FIFTHS[x[theirs]]
        of_target = fractions(view["target"])  # a table per target: one call, not two
        x = view["totals"]
        v[totals] = of_target[x[mine]]
        v[totals + 1] = of_target[x[theirs]]

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
