"""The observation encoders against a reference: the encoders as they were at commit 6bf338c
(``Encoder.fill`` writing a flat ``array("f")`` entry by entry), copied below unchanged but for the
names, are the reference; the encoders were then rewritten for speed. At every decision of many
random games (every game, player count and rule option that changes the vector, full matches),
every seat's vector must be bit for bit the reference's, layout (field names, sizes, offsets)
included; so must vectors of views whose numbers were pushed out of range (clipping) and the
vectors the OpenSpiel observer, the PettingZoo and the vector environments hand out.

(tests/test_adapters_encoders_reference.py keeps the first, plainer version, field by field through
numpy views; this file keeps the version the fast rewrite replaced.)"""

from __future__ import annotations

import copy
import random
from array import array
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pytest

from updown.adapters.observations import draw_chance, encoder_for
from updown.core.protocol import Event, View
from updown.core.registry import get_game

Buffer = array


class Layout:
    """The reference's field list: (name, size, start)."""

    def __init__(self) -> None:
        self.fields: list[tuple[str, int, int]] = []
        self.size = 0

    def add(self, name: str, size: int, doc: str) -> None:
        self.fields.append((name, size, self.size))
        self.size += size


def hot(v: Buffer, at: int, rel: list[int], seats: Iterable[int | None]) -> None:
    for s in seats:
        if s is not None:
            v[at + rel[s]] = 1.0


def per_seat(v: Buffer, at: int, rel: list[int], values: Sequence[float], scale: float) -> None:
    for s, x in enumerate(values):
        y = float(x) / scale
        v[at + rel[s]] = 0.0 if y < 0.0 else 1.0 if y > 1.0 else y


def scaled(value: float, scale: float) -> float:
    return min(max(float(value) / scale, 0.0), 1.0)


class _RefBase:
    """The reference's shared part (``Encoder.__init__`` and ``encode`` as they were)."""

    def __init__(self, game: Any, players: int, options: Any) -> None:
        self.game, self.players, self.options = game, players, options
        self.layout = Layout()
        self.build(self.layout)
        self.at = {name: start for name, _size, start in self.layout.fields}

    def build(self, layout: Layout) -> None:
        raise NotImplementedError

    def fill(self, view: View, v: Buffer) -> None:
        raise NotImplementedError

    def encode(self, view: View) -> np.ndarray:
        buf = array("f", bytes(4 * self.layout.size))
        self.fill(view, buf)
        return np.frombuffer(buf, dtype=np.float32)

    def relative(self, me: int) -> list[int]:
        n = self.players
        return [(s - me) % n for s in range(n)]


# ---- reference: updown/adapters/encoders/euchre.py as of 6bf338c --------------------

EU_PHASES = ("dealer", "deal", "upcard", "bid1", "discard", "bid2", "defend", "play", "over")
EU_PHASE_INDEX = {p: i for i, p in enumerate(EU_PHASES)}
EU_SUITS = "CDHS"
EU_CARDS = 24
EU_SEATS = 4


class _RefEuchre(_RefBase):
    def build(self, layout: Layout) -> None:
        self.cards = {self.game.action_to_str(i): i for i in range(EU_CARDS)}
        layout.add("phase", len(EU_PHASES), "one-hot: " + ", ".join(EU_PHASES))
        layout.add("dealer", EU_SEATS, "one-hot relative seat of the dealer")
        layout.add("upcard", EU_CARDS, "the up-card, by card id (suit-major C D H S, ranks 9 10 J Q K A)")
        layout.add("up_taken", 1, "1 once the up-card was ordered or picked up")
        layout.add("trump", 4, "one-hot trump suit (C, D, H, S)")
        layout.add("maker", EU_SEATS, "one-hot relative seat of the maker")
        layout.add("alone", 1, "1 if the maker goes alone")
        layout.add("defender", EU_SEATS, "one-hot relative seat of a lone defender")
        layout.add("out", EU_SEATS, "relative seats sitting out this deal")
        layout.add("passes", 2 * EU_SEATS, "per relative seat, [passed in round 1, passed in round 2] this deal")
        layout.add("leader", EU_SEATS, "one-hot relative seat that leads the current trick")
        layout.add("to_act", EU_SEATS, "relative seats that must act now")
        layout.add("table", EU_SEATS * EU_CARDS, "per relative seat, its card on the table in the current trick")
        layout.add("hand", EU_CARDS, "the observer's hand")
        layout.add("discard", EU_CARDS, "the observer's own discard as dealer, if any")
        layout.add("played", EU_SEATS * EU_CARDS, "per relative seat, the cards it has played this deal")
        layout.add("trick", 1, "trick number / 5")
        layout.add("tricks", EU_SEATS, "per relative seat, tricks won this deal / 5")
        layout.add("team_tricks", 2, "[observer's team, other team] tricks this deal / 5")
        layout.add("totals", 2, "[observer's team, other team] points / target, at most 1")

    def fill(self, view: View, v: Buffer) -> None:
        at = self.at
        cards = self.cards
        me = view["seat"]
        rel = self.relative(me)
        v[at["phase"] + EU_PHASE_INDEX[view["phase"]]] = 1.0
        hot(v, at["dealer"], rel, (view["dealer"],))
        upcard = view["upcard"]
        if upcard is not None:
            v[at["upcard"] + cards[upcard]] = 1.0
        v[at["up_taken"]] = float(bool(view["up_taken"]))
        trump = view["trump"]
        if trump is not None:
            v[at["trump"] + EU_SUITS.index(trump)] = 1.0
        hot(v, at["maker"], rel, (view["maker"],))
        v[at["alone"]] = float(bool(view["alone"]))
        hot(v, at["defender"], rel, (view["defender"],))
        hot(v, at["out"], rel, view["out"] or ())
        hot(v, at["leader"], rel, (view["leader"],))
        hot(v, at["to_act"], rel, view["to_act"])
        table = at["table"]
        for s, c in view["table"]:
            v[table + rel[s] * EU_CARDS + cards[c]] = 1.0
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
                    v[played + rel[s] * EU_CARDS + cards[c]] = 1.0
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



# ---- reference: updown/adapters/encoders/updown.py as of 6bf338c --------------------

UD_PHASES = ("deal", "dice", "toss", "orient", "lead", "choose", "over")
UD_PHASE_INDEX = {p: i for i, p in enumerate(UD_PHASES)}
UD_SUITS = "CDHS"
UD_SUIT_INDEX = {letter: i for i, letter in enumerate(UD_SUITS)}
UD_CARDS = 44
UD_HAND = {2: 15, 3: 14, 4: 11}


class _RefUpDown(_RefBase):
    simultaneous = True  # the secret card: every seat chooses at once
    def build(self, layout: Layout) -> None:
        n = self.players
        self.cards = {self.game.action_to_str(i): i for i in range(UD_CARDS)}
        layout.add("phase", len(UD_PHASES), "one-hot: " + ", ".join(UD_PHASES))
        layout.add("up", 1, "1 if the U&D card shows UP")
        layout.add("down", 1, "1 if it shows DOWN (both 0 before the toss)")
        layout.add("trump", 11, "one-hot trump value 2..12 (all 0 before the dice)")
        layout.add("suits", 4 * n, "per relative seat, one-hot of the suit facing it (C, D, H, S)")
        layout.add("leader", n, "one-hot relative seat of the leader")
        layout.add("to_act", n, "relative seats that must act now")
        layout.add("submitted", n, "relative seats whose secret card is in (not which card)")
        layout.add("hand", UD_CARDS, "the observer's hand, by card id (suit-major C D H S, values 2..Q)")
        layout.add("choice", UD_CARDS, "the observer's own submitted card, if any")
        layout.add("played", n * UD_CARDS, "per relative seat, the cards it has revealed this round")
        layout.add("last_trick", n * UD_CARDS, "per relative seat, its card in the last trick of this round")
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
        v[at["phase"] + UD_PHASE_INDEX[view["phase"]]] = 1.0
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
                v[base + 4 * rel[s] + UD_SUIT_INDEX[letter]] = 1.0
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
                    v[played + rel[s] * UD_CARDS + cards[c]] = 1.0
            i -= 1
        if last is not None:
            last_trick = at["last_trick"]
            for s, c in enumerate(last["cards"]):
                v[last_trick + rel[s] * UD_CARDS + cards[c]] = 1.0
            hot(v, at["last_winner"], rel, (last["winner"],))
        per_round = view["tricks_per_round"]
        v[at["trick"]] = scaled(view["trick"], per_round)
        v[at["round"]] = scaled(this_round, view["rounds"])
        v[at["pot"]] = scaled(view["pot"], per_round)
        per_seat(v, at["hand_sizes"], rel, view["hand_sizes"], UD_HAND[n])
        per_seat(v, at["tricks"], rel, view["tricks"], per_round)
        per_seat(v, at["totals"], rel, view["totals"], per_round * view["rounds"])



# ---- reference: updown/adapters/encoders/updown_sueca.py as of 6bf338c --------------------

SU_PHASES = ("deal", "turn", "deal2", "draw", "trump", "decide", "exchange", "trick", "over")
SU_PHASE_INDEX = {p: i for i, p in enumerate(SU_PHASES)}
SU_SUITS = "CDHS"
SU_CARDS = 40
SU_SEATS = 4
SU_DEAL_STEPS = 90
"""A deal's steps at most: 20 cards dealt and the turned card, the trump call, 4 decisions, up to
5 discards, a ``done`` and 5 draws per seat, 20 cards played."""
SU_DEALS = 200
"""The match has no bound in the rules (a seat that plays and takes nothing goes back up); random
play ends in about 15 deals, and OpenSpiel's ``max_game_length`` takes this many as the cap."""


class _RefSueca(_RefBase):
    def build(self, layout: Layout) -> None:
        self.cards = {self.game.action_to_str(i): i for i in range(SU_CARDS)}
        layout.add("phase", len(SU_PHASES), "one-hot: " + ", ".join(SU_PHASES))
        layout.add("dealer", SU_SEATS, "one-hot relative seat of the dealer")
        layout.add("chooser", SU_SEATS, "one-hot relative seat of the trump chooser")
        layout.add("leader", SU_SEATS, "one-hot relative seat that leads the current trick")
        layout.add("to_act", SU_SEATS, "relative seats that must act now")
        layout.add("trump", 4, "one-hot trump suit (C, D, H, S)")
        layout.add("turned", SU_CARDS, "the turned card, if the chooser turned (card ids suit-major, 2..7 J Q K A)")
        layout.add("double", 1, "1 if tricks count double this deal")
        layout.add("scores", SU_SEATS, "per relative seat, score / 40, clipped to [0, 1] (the race is to 0)")
        layout.add("sat_out", SU_SEATS, "per relative seat, consecutive deals sat out before this one / 2, at most 1")
        layout.add("plays", SU_SEATS, "relative seats that play this deal")
        layout.add("sits_out", SU_SEATS, "relative seats that sit this deal out")
        layout.add("forced", SU_SEATS, "relative seats forced to play")
        layout.add("discarded", SU_SEATS, "per relative seat, cards discarded this deal / 5")
        layout.add("exchanged", SU_SEATS, "per relative seat, cards exchanged this deal / 5")
        layout.add("hand_sizes", SU_SEATS, "per relative seat, cards in hand / 5, at most 1")
        layout.add("stock", 1, "cards left in the stock / 20")
        layout.add("trick", 1, "trick number / 5")
        layout.add("table", SU_SEATS * SU_CARDS, "per relative seat, its card on the table in the current trick")
        layout.add("hand", SU_CARDS, "the observer's hand")
        layout.add("my_discards", SU_CARDS, "the observer's own discards this deal")
        layout.add("played", SU_SEATS * SU_CARDS, "per relative seat, the cards it has played this deal")
        layout.add("tricks", SU_SEATS, "per relative seat, tricks taken this deal / 5")
        layout.add("left", SU_SEATS, "relative seats whose player left the match (a bot plays them)")

    def fill(self, view: View, v: Buffer) -> None:
        at = self.at
        cards = self.cards
        rel = self.relative(view["seat"])
        v[at["phase"] + SU_PHASE_INDEX[view["phase"]]] = 1.0
        hot(v, at["dealer"], rel, (view["dealer"],))
        hot(v, at["chooser"], rel, (view["chooser"],))
        hot(v, at["leader"], rel, (view["leader"],))
        hot(v, at["to_act"], rel, view["to_act"])
        trump = view["trump"]
        if trump is not None:
            v[at["trump"] + SU_SUITS.index(trump)] = 1.0
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
            v[table + rel[s] * SU_CARDS + cards[c]] = 1.0
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
                    v[played + rel[s] * SU_CARDS + cards[c]] = 1.0
        per_seat(v, at["tricks"], rel, view["tricks"], 5)
        hot(v, at["left"], rel, view["left"])



# ---- reference: updown/adapters/encoders/up_or_down.py as of 6bf338c --------------------

UO_PHASES = ("deal", "display", "reveal", "drawn", "play", "take", "place", "draw", "over")
UO_PHASE_INDEX = {p: i for i, p in enumerate(UO_PHASES)}
UO_COLUMNS = 3
UO_COLOURS = 6


def UO_colour_shares(most: int) -> list[float]:
    """``[k]``: a column colour's entry for ``k`` cards of that colour: 0.1 added ``k`` times in
    float32 (as the entry has always been summed), clipped to 1."""
    entry = np.zeros(1, dtype=np.float32)
    shares = [0.0]
    for _ in range(most):
        entry[0] += 0.1
        shares.append(float(min(entry[0], np.float32(1.0))))
    return shares


UO_COLOUR_SHARE = UO_colour_shares(130)


class _RefUpOrDown(_RefBase):
    def build(self, layout: Layout) -> None:
        n = self.players
        h = self.highest = int(self.game.new_state(n, self.options).view(0)["highest"])
        layout.add("phase", len(UO_PHASES), "one-hot: " + ", ".join(UO_PHASES))
        layout.add("turn", n, "one-hot relative seat whose turn it is")
        layout.add("to_act", n, "relative seats that must act now")
        layout.add("hand", h, "the observer's hand, card c at c - 1")
        layout.add("display", h, "the cards in the ring")
        layout.add("played", h, "the card just played into the ring this turn")
        layout.add("taken", h, "the card just taken from the ring this turn")
        layout.add("known", n * h, "per relative seat, the hand cards everyone knows it holds")
        layout.add("column_top", n * UO_COLUMNS * h, "per relative seat and column slot 1..3, the column's last card")
        layout.add("column_length", n * UO_COLUMNS, "per relative seat and slot, cards in the column / 10, at most 1")
        layout.add("column_up", n * UO_COLUMNS, "per relative seat and slot, 1 if the column rises")
        layout.add("column_down", n * UO_COLUMNS, "per relative seat and slot, 1 if the column falls")
        layout.add("column_colours", n * UO_COLUMNS * UO_COLOURS,
                   "per relative seat and slot, cards of each colour (ruby gold pink blue purple green) / 10")
        layout.add("discards", n, "per relative seat, cards on its discard pile / 30, at most 1")
        layout.add("scores", n, "per relative seat, its score now / 60, at most 1")
        layout.add("hand_sizes", n, "per relative seat, cards in hand / 3")
        layout.add("down", 1, "cards in the face-down pile / H")
        layout.add("up", 1, "cards in the face-up pile / H")
        layout.add("up_top", h, "the face-up pile's top card")

    def fill(self, view: View, v: Buffer) -> None:
        n, h = self.players, self.highest
        at = self.at
        rel = self.relative(view["seat"])
        v[at["phase"] + UO_PHASE_INDEX[view["phase"]]] = 1.0
        hot(v, at["turn"], rel, (view["turn"],))
        hot(v, at["to_act"], rel, view["to_act"])
        for field in ("hand", "display"):
            base = at[field] - 1
            for c in view[field]:
                v[base + c] = 1.0
        if view["played"]:
            v[at["played"] + view["played"] - 1] = 1.0
        if view["taken"]:
            v[at["taken"] + view["taken"] - 1] = 1.0
        known = at["known"] - 1
        for s, cards in enumerate(view["known"]):
            base = known + rel[s] * h
            for c in cards:
                v[base + c] = 1.0
        top, length, up, down = at["column_top"] - 1, at["column_length"], at["column_up"], at["column_down"]
        colours = at["column_colours"]
        for s, columns in enumerate(view["columns"]):
            r = rel[s]
            for k, col in enumerate(columns):
                if col is None:
                    continue
                slot = r * UO_COLUMNS + k
                cards = col["cards"]
                v[top + slot * h + cards[-1]] = 1.0
                v[length + slot] = scaled(len(cards), 10)
                direction = col["direction"]
                if direction == "up":
                    v[up + slot] = 1.0
                elif direction == "down":
                    v[down + slot] = 1.0
                counts = [0] * UO_COLOURS
                for c in cards:
                    counts[(c - 1) % UO_COLOURS] += 1
                base = colours + slot * UO_COLOURS
                for i, count in enumerate(counts):
                    if count:
                        v[base + i] = UO_COLOUR_SHARE[count]
        per_seat(v, at["discards"], rel, view["discards"], 30)
        per_seat(v, at["scores"], rel, view["scores"], 60)
        per_seat(v, at["hand_sizes"], rel, view["hand_sizes"], 3)
        v[at["down"]] = scaled(view["down"], h)
        v[at["up"]] = scaled(view["up"], h)
        if view["up_top"]:
            v[at["up_top"] + view["up_top"] - 1] = 1.0
        del n



REFERENCE: dict[str, type[_RefBase]] = {
    "euchre": _RefEuchre, "updown": _RefUpDown, "updown-sueca": _RefSueca, "up-or-down": _RefUpOrDown,
}

# (game, players, options, games): every player count, options that change the vector or the
# course of a game (lone defender, thrown-in deals, tie-break rounds, game length), full matches.
SETTINGS = [
    ("euchre", 4, {"deals": 1}, 120), ("euchre", 4, {}, 8),
    ("euchre", 4, {"lone_defender": True, "stick_the_dealer": False}, 8),
    ("euchre", 4, {"target": 5, "lone_defender": True}, 10),
    ("updown", 2, {"rounds": 1}, 25), ("updown", 3, {"rounds": 1}, 20), ("updown", 3, {}, 4),
    ("updown", 4, {"rounds": 1}, 20), ("updown", 4, {"rounds": 2, "tiebreak_rounds": 3}, 6),
    ("updown-sueca", 4, {}, 4), ("updown-sueca", 4, {"regional": True, "exchange_limit": 2}, 3),
    ("up-or-down", 2, {}, 8), ("up-or-down", 3, {}, 4), ("up-or-down", 3, {"length": "full"}, 2),
    ("up-or-down", 4, {}, 3), ("up-or-down", 4, {"length": "full"}, 2),
    ("up-or-down", 5, {}, 2), ("up-or-down", 6, {}, 2), ("up-or-down", 6, {"length": "full"}, 1),
]


def _views(game_id: str, players: int, options: dict[str, Any], games: int, seed: int) -> Any:
    """(encoder, views): every seat's view at every decision and at the end of ``games`` random games."""
    game = get_game(game_id)
    enc = encoder_for(game, players, options)
    rng = random.Random(seed)
    views = []
    for _ in range(games):
        state = game.new_state(players, enc.options)
        views.extend(state.view(seat) for seat in range(players))  # the first position (chance)
        while True:
            if state.is_chance():
                state.apply(draw_chance(state.chance_outcomes(), rng))
                continue
            views.extend(state.view(seat) for seat in range(players))
            if state.is_terminal():
                break
            seat = rng.choice(state.actors())
            state.apply(rng.choice(state.legal_actions(seat)), seat)
    return enc, views


def _same(enc: Any, ref: _RefBase, fast: np.ndarray, slow: np.ndarray, what: str) -> None:
    assert fast.dtype == np.float32 and fast.shape == slow.shape, what
    if fast.tobytes() != slow.tobytes():
        bad = [name for name, size, start in ref.layout.fields
               if fast[start:start + size].tobytes() != slow[start:start + size].tobytes()]
        raise AssertionError(f"{what}: fields {bad} differ from the reference")


@pytest.mark.parametrize("game_id,players,options,games", SETTINGS)
def test_every_vector_is_the_reference_vector(game_id: str, players: int, options: dict[str, Any], games: int) -> None:
    enc, views = _views(game_id, players, options, games, seed=players * 31 + games)
    ref = REFERENCE[game_id](enc.game, players, enc.options)
    assert [(f.name, f.size, f.start) for f in enc.layout.fields] == ref.layout.fields
    assert enc.size == ref.layout.size
    buf = enc.new_buffer()
    for i, view in enumerate(views):
        slow = ref.encode(view)
        what = f"view {i} (seat {view['seat']}, {view['phase']})"
        _same(enc, ref, enc.encode(view), slow, what)
        enc.encode_into(view, buf)  # over the last view's vector: every entry rewritten
        _same(enc, ref, np.frombuffer(buf, dtype=np.float32), slow, what + ", encode_into")
        assert enc.encode_list(view) == slow.tolist(), what + ", encode_list"  # float32 values, exactly
    assert len(views) >= 1000


def _push(value: Any, rng: random.Random) -> Any:
    """A number of a view pushed out of its range (negative, or far above), or left as it is."""
    if isinstance(value, bool) or not isinstance(value, int):
        return value
    return rng.choice([value, -1 - value, value * 7 + 100, 0])


@pytest.mark.parametrize("game_id,players,options", [
    ("euchre", 4, {}), ("updown", 3, {}), ("updown-sueca", 4, {}), ("up-or-down", 5, {}),
])
def test_numbers_out_of_range_clip_as_the_reference(game_id: str, players: int, options: dict[str, Any]) -> None:
    """Scores, counts and sizes outside their usual range (which the rules never give, but the
    fields promise to clip) are clipped to [0, 1] exactly as the reference clipped them."""
    enc, views = _views(game_id, players, options, 2, seed=5)
    ref = REFERENCE[game_id](enc.game, players, enc.options)
    rng = random.Random(11)
    keep = {"seat", "players", "round", "trump", "turn", "leader", "dealer", "maker", "defender", "chooser",
            "played", "taken", "up_top", "highest", "deal", "trick_value"}  # ids and indices, not amounts
    checked = 0
    for view in views[::3]:
        pushed = copy.deepcopy(view)
        for key, value in view.items():
            if key in keep:
                continue
            if isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
                if key in ("to_act", "out", "left", "submitted", "hand", "display") or key.endswith("cards"):
                    continue
                pushed[key] = [_push(x, rng) for x in value]
            elif isinstance(value, int) and not isinstance(value, bool):
                pushed[key] = _push(value, rng)
        try:
            slow = ref.encode(pushed)
        except (IndexError, KeyError, ZeroDivisionError):
            continue  # a number the reference itself could not encode (an index, not an amount)
        _same(enc, ref, enc.encode(pushed), slow, f"pushed view of seat {view['seat']}, {view['phase']}")
        checked += 1
    assert checked > 50


@pytest.mark.parametrize("game_id,players,options", [
    ("euchre", 4, {"deals": 1}), ("updown", 3, {"rounds": 1}), ("updown-sueca", 4, {}), ("up-or-down", 4, {}),
])
def test_vectors_handed_out_are_fresh_and_stay_put(game_id: str, players: int, options: dict[str, Any]) -> None:
    """Each vector is its own writable float32 array: encoding the next view (or writing into one)
    changes no vector handed out before."""
    enc, views = _views(game_id, players, options, 1, seed=2)
    ref = REFERENCE[game_id](enc.game, players, enc.options)
    got = [enc.encode(v) for v in views[:200]]
    for v, a in zip(views, got):
        assert a.flags.writeable and a.flags.c_contiguous
        _same(enc, ref, a, ref.encode(v), "a vector kept while others were encoded")
    got[0][:] = 0.5
    _same(enc, ref, enc.encode(views[0]), ref.encode(views[0]), "after writing into an earlier vector")


@pytest.mark.parametrize("game_id,players,params", [
    ("euchre", 4, {"deals": 1}), ("updown", 3, {"rounds": 1, "turns": True}), ("updown-sueca", 4, {}),
    ("up-or-down", 3, {}),
])
def test_openspiel_tensors_are_the_reference_vector(game_id: str, players: int, params: dict[str, Any]) -> None:
    """OpenSpiel's observation and information-state tensors (through pyspiel, and the Python
    observer's own tensor and its per-field dict) are the reference vector of the seat's view."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.observation import make_observation

    from updown.adapters import openspiel as uo

    spiel = uo.load(game_id, players, **params)
    ref = REFERENCE[game_id](spiel.encoder.game, players, spiel.encoder.options)
    observer = make_observation(spiel)
    rng = random.Random(4)
    checked = 0
    for _ in range(2):
        state = spiel.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(draw_chance(state.chance_outcomes(), rng))
                continue
            for seat in range(players):
                want = ref.encode(state.engine.view(seat))
                obs_list = state.observation_tensor(seat)
                assert obs_list == want.tolist()  # the float32 values exactly, as a list (pyspiel's type)
                obs = np.array(obs_list, dtype=np.float32)
                info = np.array(state.information_state_tensor(seat), dtype=np.float32)
                # OpenSpiel's C++ path (what C++ code calls): through the observer's set_from and dict
                assert pyspiel.State.observation_tensor(state, seat) == obs_list
                assert pyspiel.State.information_state_tensor(state, seat) == obs_list
                _same(spiel.encoder, ref, obs, want, "observation_tensor")
                _same(spiel.encoder, ref, info, want, "information_state_tensor")
                observer.set_from(state, seat)
                _same(spiel.encoder, ref, np.asarray(observer.tensor), want, "the observer's tensor")
                for name, size, start in ref.layout.fields:
                    assert observer.dict[name].tobytes() == want[start:start + size].tobytes(), name
                checked += 1
            if state.current_player() >= 0:  # the current player's, as pyspiel's own method gives
                assert state.observation_tensor() == state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 100
    for bad in (-1, players):
        with pytest.raises(Exception, match="not a seat|player"):
            state.observation_tensor(bad)


@pytest.mark.parametrize("game_id,players,options", [
    ("euchre", 4, {"deals": 1}), ("updown", 4, {"rounds": 1}), ("updown-sueca", 4, {}), ("up-or-down", 2, {}),
])
def test_environment_observations_are_the_reference_vector(game_id: str, players: int, options: dict[str, Any]) -> None:
    """The PettingZoo AEC and Parallel environments and the vector environment (scalar backend)
    give the reference vector of the acting seat's view."""
    from updown.adapters.pettingzoo import env, parallel_env
    from updown.adapters.vector import vector_env

    aec = env(game_id, players, options=options)
    ref = REFERENCE[game_id](aec.unwrapped._core.encoder.game, players, aec.unwrapped._core.encoder.options)
    rng = random.Random(6)
    checked = 0
    for episode in range(3):
        aec.reset(seed=episode)
        kept = []
        for agent in aec.agent_iter():
            obs, _r, term, trunc, _ = aec.last()
            seat = aec.unwrapped._core.seat_of[agent]
            want = ref.encode(aec.unwrapped._core.state.view(seat))
            _same(aec.unwrapped._core.encoder, ref, obs["observation"], want, f"AEC {agent}")
            kept.append((obs["observation"], want))
            legal = np.flatnonzero(obs["action_mask"])
            aec.step(None if term or trunc else int(legal[rng.randrange(len(legal))]))
            checked += 1
        for got, want in kept:  # observations handed out earlier are unchanged
            assert got.tobytes() == want.tobytes()
    par = parallel_env(game_id, players, options=options)
    obs, _ = par.reset(seed=9)
    while par.agents:
        for agent in par.agents:
            seat = par.unwrapped._core.seat_of[agent]
            want = ref.encode(par.unwrapped._core.state.view(seat))
            _same(par.unwrapped._core.encoder, ref, obs[agent]["observation"], want, f"parallel {agent}")
            checked += 1
        actions = {}
        for agent in par.agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            actions[agent] = int(legal[rng.randrange(len(legal))])
        obs, *_ = par.step(actions)
    vec = vector_env(game_id, players, 8, options=options, seed=3, backend="scalar")
    batch, info = vec.reset()
    impl = vec._impl
    for _ in range(60):
        for i, core in enumerate(impl.cores):
            st = core.state
            _same(impl.encoder, ref, batch[i], ref.encode(st.view(st.actors()[0])), f"vector game {i}")
            checked += 1
        mask = info["action_mask"]
        batch, _r, _t, _tr, info = vec.step((np.random.default_rng(checked).random(mask.shape) * mask).argmax(axis=1))
    assert checked > 500
