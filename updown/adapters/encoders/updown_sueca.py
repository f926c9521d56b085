"""Up&Down with Sueca ranks: the observation of a seat's view (fields in ``docs/observations.md``)."""

from __future__ import annotations

from updown.adapters.observations import Buffer, Encoder as Base, Layout, hot, per_seat, scaled
from updown.core.protocol import Event, View

GAME_ID = "updown-sueca"
PHASES = ("deal", "turn", "deal2", "draw", "trump", "decide", "exchange", "trick", "over")
PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
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

    def fill(self, view: View, v: Buffer) -> None:
        at = self.at
        cards = self.cards
        rel = self.relative(view["seat"])
        v[at["phase"] + PHASE_INDEX[view["phase"]]] = 1.0
        hot(v, at["dealer"], rel, (view["dealer"],))
        hot(v, at["chooser"], rel, (view["chooser"],))
        hot(v, at["leader"], rel, (view["leader"],))
        hot(v, at["to_act"], rel, view["to_act"])
        trump = view["trump"]
        if trump is not None:
            v[at["trump"] + SUITS.index(trump)] = 1.0
        turned = view["turned"]
        if turned is not None:
            v[at["turned"] + cards[turned]] = 1.0
        v[at["double"]] = float(view["trick_value"] > 1)
        per_seat(v, at["scores"], rel, view["scores"], 40)
        per_seat(v, at["sat_out"], rel, view["sat_out"], 2)
        plays, sits_out = at["plays"], at["sits_out"]
        for s, d in enumerate(view["decisions"]):
            if d is not None:
                v[(plays if d == "play" else sits_out) + rel[s]] = 1.0
        forced = at["forced"]
        for s, f in enumerate(view["forced"]):
            if f:
                v[forced + rel[s]] = 1.0
        per_seat(v, at["discarded"], rel, view["discarded"], 5)
        per_seat(v, at["exchanged"], rel, [x or 0 for x in view["exchanged"]], 5)
        per_seat(v, at["hand_sizes"], rel, view["hand_sizes"], 5)
        v[at["stock"]] = scaled(view["stock"], 20)
        v[at["trick"]] = scaled(view["trick"], 5)
        table = at["table"]
        for s, c in view["table"]:
            v[table + rel[s] * CARDS + cards[c]] = 1.0
        hand = at["hand"]
        for c in view["hand"]:
            v[hand + cards[c]] = 1.0
        mine = at["my_discards"]
        for c in view["my_discards"]:
            v[mine + cards[c]] = 1.0
        # This deal's cards played: the log since the last deal began.
        played = at["played"]
        log = view["log"]
        start = len(log)
        while start > 0 and log[start - 1]["type"] != "deal":
            start -= 1
        for i in range(start, len(log)):
            e = log[i]
            if e["type"] == "trick":
                for s, c in e["cards"]:
                    v[played + rel[s] * CARDS + cards[c]] = 1.0
        per_seat(v, at["tricks"], rel, view["tricks"], 5)
        hot(v, at["left"], rel, view["left"])

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
