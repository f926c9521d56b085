"""Up&Down with Sueca ranks: the observation of a seat's view (fields in ``docs/observations.md``)."""

from __future__ import annotations

from typing import Any

from updown.adapters.observations import Buffer, Encoder as Base, Layout, fractions
from updown.core.protocol import Event, View

GAME_ID = "updown-sueca"
PHASES = ("deal", "turn", "deal2", "draw", "trump", "decide", "exchange", "trick", "over")
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
SUITS = "CDHS"
CARDS = 40
SEATS = 4
FIFTHS, HALVES, TWENTIETHS, FORTIETHS = fractions(5), fractions(2), fractions(20), fractions(40)
"""Counts as the fractions of the fields (tricks, cards and hand sizes / 5, deals sat out / 2,
the stock / 20, scores / 40)."""
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

    def tables(self, me: int) -> tuple[Any, ...]:
        """Seat ``me``'s absolute offsets: ``[s]`` per relative seat field, ``{card: offset}`` per
        card field, ``[s][card]`` per seat's card field (built once per seat)."""
        at, cards, rel = self.at, self.cards, self.relative(me)
        seat = {f: [at[f] + rel[s] for s in range(SEATS)]
                for f in ("dealer", "chooser", "leader", "to_act", "scores", "sat_out", "plays", "sits_out",
                          "forced", "discarded", "exchanged", "hand_sizes", "tricks", "left")}
        card = {f: {c: at[f] + i for c, i in cards.items()} for f in ("turned", "hand", "my_discards")}
        seat_card = {f: [{c: at[f] + rel[s] * CARDS + i for c, i in cards.items()} for s in range(SEATS)]
                     for f in ("table", "played")}
        phase = {p: at["phase"] + i for p, i in PHASE_INDEX.items()}
        trump = {suit: at["trump"] + i for i, suit in enumerate(SUITS)}
        return (phase, seat["dealer"], seat["chooser"], seat["leader"], seat["to_act"], trump, card["turned"],
                at["double"], seat["scores"], seat["sat_out"], seat["plays"], seat["sits_out"], seat["forced"],
                seat["discarded"], seat["exchanged"], seat["hand_sizes"], at["stock"], at["trick"],
                seat_card["table"], card["hand"], card["my_discards"], seat_card["played"], seat["tricks"],
                seat["left"])

    def fill(self, view: View, v: Buffer | list[float]) -> None:
        (phase, dealer, chooser, leader, to_act, trump_at, turned_at, double, scores, sat_out, plays, sits_out,
         forced, discarded, exchanged, hand_sizes, stock, trick, table, hand_at, mine, played, tricks,
         left) = self._tables[view["seat"]]
        v[phase[view["phase"]]] = 1.0
        s = view["dealer"]
        if s is not None:
            v[dealer[s]] = 1.0
        s = view["chooser"]
        if s is not None:
            v[chooser[s]] = 1.0
        s = view["leader"]
        if s is not None:
            v[leader[s]] = 1.0
        for s in view["to_act"]:
            if s is not None:
                v[to_act[s]] = 1.0
        t = view["trump"]
        if t is not None:
            v[trump_at[t]] = 1.0
        c = view["turned"]
        if c is not None:
            v[turned_at[c]] = 1.0
        if view["trick_value"] > 1:
            v[double] = 1.0
        for s, x in enumerate(view["scores"]):
            v[scores[s]] = FORTIETHS[x]
        for s, x in enumerate(view["sat_out"]):
            v[sat_out[s]] = HALVES[x]
        for s, d in enumerate(view["decisions"]):
            if d is not None:
                v[plays[s] if d == "play" else sits_out[s]] = 1.0
        for s, f in enumerate(view["forced"]):
            if f:
                v[forced[s]] = 1.0
        for s, x in enumerate(view["discarded"]):
            v[discarded[s]] = FIFTHS[x]
        for s, x in enumerate(view["exchanged"]):
            v[exchanged[s]] = FIFTHS[x or 0]
        for s, x in enumerate(view["hand_sizes"]):
            v[hand_sizes[s]] = FIFTHS[x]
        v[stock] = TWENTIETHS[view["stock"]]
        v[trick] = FIFTHS[view["trick"]]
        for s, c in view["table"]:
            v[table[s][c]] = 1.0
        for c in view["hand"]:
            v[hand_at[c]] = 1.0
        for c in view["my_discards"]:
            v[mine[c]] = 1.0
        # This deal's cards played: the trick events since the last deal began.
        log = view["log"]
        i = len(log) - 1
        while i >= 0:
            e = log[i]
            kind = e["type"]
            if kind == "trick":
                for s, c in e["cards"]:
                    v[played[s][c]] = 1.0
            elif kind == "deal":
                break
            i -= 1
        for s, x in enumerate(view["tricks"]):
            v[tricks[s]] = FIFTHS[x]
        for s in view["left"]:
            if s is not None:
                v[left[s]] = 1.0

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
