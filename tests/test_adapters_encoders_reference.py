"""The observation encoders are fast rewrites of a first, plainer version kept here as the reference:
at every decision of many random games (every game and player count, full matches, options that
change the rules), every seat's vector must be bit for bit the reference's."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from updown.adapters.observations import draw_chance, encoder_for, one_hot, scaled
from updown.core.registry import get_game


class _Reference:
    """The first version's shared part: fields as numpy views, written one entry at a time."""

    def __init__(self, game: Any, players: int, options: Any) -> None:
        self.game, self.players, self.options = game, players, options
        self.layout = encoder_for(game, players, options).layout  # the fields (checked against the docs)
        if hasattr(self, "CARDS"):
            self.cards = {game.action_to_str(i): i for i in range(self.CARDS)}
        if game.id == "up-or-down":
            self.highest = int(game.new_state(players, options).view(0)["highest"])

    def encode(self, view: Any) -> np.ndarray:
        vector = np.zeros(self.layout.size, dtype=np.float32)
        self.fill(view, self.layout.split(vector))
        return vector

    def rel(self, view: Any, seat: int) -> int:
        return (seat - view["seat"]) % self.players

    def seats_hot(self, view: Any, out: np.ndarray, seats: Any) -> None:
        for s in seats:
            if s is not None:
                out[self.rel(view, s)] = 1.0

    def per_seat(self, view: Any, out: np.ndarray, values: Any, scale: float) -> None:
        for s, v in enumerate(values):
            out[self.rel(view, s)] = min(max(float(v) / scale, 0.0), 1.0)


class _Euchre(_Reference):
    PHASES = ("dealer", "deal", "upcard", "bid1", "discard", "bid2", "defend", "play", "over")
    SUITS = "CDHS"
    CARDS = 24
    SEATS = 4

    def fill(self, view: Any, out: dict[str, np.ndarray]) -> None:
        cards = self.cards
        me = view["seat"]
        one_hot(out["phase"], self.PHASES.index(view["phase"]))
        self.seats_hot(view, out["dealer"], [view["dealer"]])
        if view["upcard"] is not None:
            out["upcard"][cards[view["upcard"]]] = 1.0
        out["up_taken"][0] = float(bool(view["up_taken"]))
        if view["trump"] is not None:
            out["trump"][self.SUITS.index(view["trump"])] = 1.0
        self.seats_hot(view, out["maker"], [view["maker"]])
        out["alone"][0] = float(bool(view["alone"]))
        self.seats_hot(view, out["defender"], [view["defender"]])
        self.seats_hot(view, out["out"], view["out"] or [])
        self.seats_hot(view, out["leader"], [view["leader"]])
        self.seats_hot(view, out["to_act"], view["to_act"])
        for s, c in view["table"]:
            out["table"][self.rel(view, s) * self.CARDS + cards[c]] = 1.0
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
            elif kind == "bid" and e["bid"] == "pass" and e["round"]:
                # (the first version also took round 0, the lone defender's "pass", and wrote it
                # into another seat's round-2 entry: fixed with the rewrite)
                passes[2 * self.rel(view, e["seat"]) + e["round"] - 1] = 1.0
            elif kind == "trick":
                for s, c in zip(e["seats"], e["cards"]):
                    played[self.rel(view, s) * self.CARDS + cards[c]] = 1.0
        out["trick"][0] = scaled(view["trick"], 5)
        self.per_seat(view, out["tricks"], view["tricks"], 5)
        mine, theirs = me % 2, 1 - me % 2
        out["team_tricks"][:] = (scaled(view["team_tricks"][mine], 5), scaled(view["team_tricks"][theirs], 5))
        target = view["target"]
        out["totals"][:] = (scaled(view["totals"][mine], target), scaled(view["totals"][theirs], target))


class _UpDown(_Reference):
    PHASES = ("deal", "dice", "toss", "orient", "lead", "choose", "over")
    SUITS = "CDHS"
    CARDS = 44
    HAND = {2: 15, 3: 14, 4: 11}

    def fill(self, view: Any, out: dict[str, np.ndarray]) -> None:
        n = self.players
        cards = self.cards
        one_hot(out["phase"], self.PHASES.index(view["phase"]))
        if view["up"] is not None:
            out["up" if view["up"] else "down"][0] = 1.0
        if view["trump"] is not None:
            out["trump"][view["trump"] - 2] = 1.0
        if view["suits"]:
            for s, letter in enumerate(view["suits"]):
                out["suits"][4 * self.rel(view, s) + self.SUITS.index(letter)] = 1.0
        self.seats_hot(view, out["leader"], [view["leader"]])
        self.seats_hot(view, out["to_act"], view["to_act"])
        self.seats_hot(view, out["submitted"], view["submitted"])
        for c in view["hand"]:
            out["hand"][cards[c]] = 1.0
        if view["choice"] is not None:
            out["choice"][cards[view["choice"]]] = 1.0
        last: Any = None
        played = out["played"]
        for e in view["log"]:
            if e["type"] == "trick" and e["round"] == view["round"]:
                last = e
                for s, c in enumerate(e["cards"]):
                    played[self.rel(view, s) * self.CARDS + cards[c]] = 1.0
        if last is not None:
            for s, c in enumerate(last["cards"]):
                out["last_trick"][self.rel(view, s) * self.CARDS + cards[c]] = 1.0
            self.seats_hot(view, out["last_winner"], [last["winner"]])
        per_round = view["tricks_per_round"]
        out["trick"][0] = scaled(view["trick"], per_round)
        out["round"][0] = scaled(view["round"], view["rounds"])
        out["pot"][0] = scaled(view["pot"], per_round)
        self.per_seat(view, out["hand_sizes"], view["hand_sizes"], self.HAND[n])
        self.per_seat(view, out["tricks"], view["tricks"], per_round)
        self.per_seat(view, out["totals"], view["totals"], per_round * view["rounds"])


class _Sueca(_Reference):
    PHASES = ("deal", "turn", "deal2", "draw", "trump", "decide", "exchange", "trick", "over")
    SUITS = "CDHS"
    CARDS = 40
    SEATS = 4

    def fill(self, view: Any, out: dict[str, np.ndarray]) -> None:
        cards = self.cards
        one_hot(out["phase"], self.PHASES.index(view["phase"]))
        self.seats_hot(view, out["dealer"], [view["dealer"]])
        self.seats_hot(view, out["chooser"], [view["chooser"]])
        self.seats_hot(view, out["leader"], [view["leader"]])
        self.seats_hot(view, out["to_act"], view["to_act"])
        if view["trump"] is not None:
            out["trump"][self.SUITS.index(view["trump"])] = 1.0
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
            out["table"][self.rel(view, s) * self.CARDS + cards[c]] = 1.0
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
                    played[self.rel(view, s) * self.CARDS + cards[c]] = 1.0
        self.per_seat(view, out["tricks"], view["tricks"], 5)
        self.seats_hot(view, out["left"], view["left"])


class _UpOrDown(_Reference):
    PHASES = ("deal", "display", "reveal", "drawn", "play", "take", "place", "draw", "over")
    COLUMNS = 3
    COLOURS = 6

    def fill(self, view: Any, out: dict[str, np.ndarray]) -> None:
        n, h = self.players, self.highest
        one_hot(out["phase"], self.PHASES.index(view["phase"]))
        self.seats_hot(view, out["turn"], [view["turn"]])
        self.seats_hot(view, out["to_act"], view["to_act"])
        for c in view["hand"]:
            out["hand"][c - 1] = 1.0
        for c in view["display"]:
            out["display"][c - 1] = 1.0
        if view["played"]:
            out["played"][view["played"] - 1] = 1.0
        if view["taken"]:
            out["taken"][view["taken"] - 1] = 1.0
        for s, known in enumerate(view["known"]):
            r = self.rel(view, s)
            for c in known:
                out["known"][r * h + c - 1] = 1.0
        for s, columns in enumerate(view["columns"]):
            r = self.rel(view, s)
            for k, col in enumerate(columns):
                if col is None:
                    continue
                slot = r * self.COLUMNS + k
                cards = col["cards"]
                out["column_top"][slot * h + cards[-1] - 1] = 1.0
                out["column_length"][slot] = scaled(len(cards), 10)
                if col["direction"] == "up":
                    out["column_up"][slot] = 1.0
                elif col["direction"] == "down":
                    out["column_down"][slot] = 1.0
                colours = out["column_colours"][slot * self.COLOURS:(slot + 1) * self.COLOURS]
                for c in cards:
                    colours[(c - 1) % self.COLOURS] += 0.1
                colours.clip(0.0, 1.0, out=colours)
        self.per_seat(view, out["discards"], view["discards"], 30)
        self.per_seat(view, out["scores"], view["scores"], 60)
        self.per_seat(view, out["hand_sizes"], view["hand_sizes"], 3)
        out["down"][0] = scaled(view["down"], h)
        out["up"][0] = scaled(view["up"], h)
        one_hot(out["up_top"], view["up_top"] - 1 if view["up_top"] else None)
        del n


REFERENCE = {"euchre": _Euchre, "updown": _UpDown, "updown-sueca": _Sueca, "up-or-down": _UpOrDown}

SETTINGS = [
    ("euchre", 4, {"deals": 1}, 60), ("euchre", 4, {}, 6),  # matches to 10
    ("euchre", 4, {"lone_defender": True, "stick_the_dealer": False}, 6),
    ("updown", 2, {"rounds": 1}, 20), ("updown", 3, {}, 5), ("updown", 4, {"rounds": 2, "tiebreak_rounds": 3}, 8),
    ("updown-sueca", 4, {}, 4),
    ("up-or-down", 2, {}, 6), ("up-or-down", 3, {"length": "full"}, 2), ("up-or-down", 4, {"length": "full"}, 2),
    ("up-or-down", 5, {}, 2), ("up-or-down", 6, {}, 2),
]


@pytest.mark.parametrize("game_id,players,options,games", SETTINGS)
def test_every_vector_is_the_reference_vector(game_id: str, players: int, options: dict[str, Any], games: int) -> None:
    game = get_game(game_id)
    enc = encoder_for(game, players, options)
    ref = REFERENCE[game_id](game, players, enc.options)
    rng = random.Random(players * 7 + games)
    compared = 0
    for _ in range(games):
        state = game.new_state(players, enc.options)
        while True:
            if state.is_chance():
                state.apply(draw_chance(state.chance_outcomes(), rng))
                continue
            for seat in range(players):
                view = state.view(seat)
                fast, slow = enc.encode(view), ref.encode(view)
                assert fast.dtype == np.float32 and fast.shape == slow.shape
                if fast.tobytes() != slow.tobytes():
                    bad = [f.name for f in enc.layout.fields
                           if fast[f.start:f.stop].tobytes() != slow[f.start:f.stop].tobytes()]
                    raise AssertionError(f"seat {seat}: fields {bad} differ from the reference")
                compared += 1
            if state.is_terminal():
                break
            seat = state.actors()[0]
            state.apply(rng.choice(state.legal_actions(seat)), seat)
    assert compared > 200


def test_declining_to_defend_alone_is_no_bidding_pass() -> None:
    game = get_game("euchre")
    enc = encoder_for(game, 4, {"lone_defender": True})
    rng = random.Random(3)
    for _ in range(400):
        state = game.new_state(4, enc.options)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(draw_chance(state.chance_outcomes(), rng))
                continue
            seat = state.actors()[0]
            if state.view(None)["phase"] == "defend":
                before = enc.layout.split(enc.encode(state.view(seat)))["passes"].copy()
                state.apply(state.legal_actions(seat)[0], seat)  # pass: no lone defence
                after = enc.layout.split(enc.encode(state.view(seat)))["passes"]
                assert np.array_equal(after, before)  # the decline set no bidding pass
                return
            state.apply(rng.choice(state.legal_actions(seat)), seat)
    raise AssertionError("no lone defender was asked")


def test_a_vector_is_a_fresh_float32_array() -> None:
    enc = encoder_for(get_game("updown"), 3, {"rounds": 1})
    state = get_game("updown").new_state(3, enc.options)
    rng = random.Random(0)
    while state.is_chance():
        state.apply(draw_chance(state.chance_outcomes(), rng))
    a, b = enc.encode(state.view(0)), enc.encode(state.view(0))
    assert a.dtype == np.float32 and a.flags.writeable and np.array_equal(a, b)
    a[:] = 0.5  # writing one vector leaves the next untouched
    assert not np.array_equal(a, b) and np.array_equal(b, enc.encode(state.view(0)))
