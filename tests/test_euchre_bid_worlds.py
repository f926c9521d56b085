"""Euchre's worlds read from the bidding (``BidReadWorlds``, a level's ``read_bids``): the rule's
bids are read exactly, the reading shifts the worlds towards hands that explain the bids, draws
repeat from the seed, and a level with it plays legal, reproducible games from its view alone."""

from __future__ import annotations

import random
import statistics

import pytest

pytest.importorskip("numpy")

from updown.bots import make_bot  # noqa: E402
from updown.bots.euchre_greedy import BidReadWorlds, EuchreHard  # noqa: E402
from updown.core.protocol import State  # noqa: E402
from updown.core.registry import get_game  # noqa: E402
from updown.games.euchre import EFF, SUIT, card_id  # noqa: E402

GAME = get_game("euchre")


def _greedy_positions(games: int, seed: int) -> list[tuple[State, dict, int]]:
    """(state, view, seat) at decisions after some bids, in games of four ``greedy`` bots."""
    rng = random.Random(seed)
    found = []
    for g in range(games):
        st = GAME.new_state(4, GAME.options({"target": 3}))
        bots = [make_bot("greedy", GAME, s, random.Random(100 * g + s)) for s in range(4)]
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            s = st.actors()[0]
            v = st.view(s)
            if v.get("upcard") is not None and v["phase"] in ("bid2", "discard", "play") and rng.random() < 0.2:
                found.append((st.clone(), v, s))
            st.apply(bots[s].act(v, st.legal_actions(s)), s)
    return found


def test_the_rule_s_own_bids_are_read_exactly():
    """At a table of ``greedy`` bots the real world explains every bid: it weighs exactly 1, while
    uniform worlds from the same view often do not."""
    positions = _greedy_positions(6, seed=1)
    assert len(positions) > 30
    uniform = []
    read = 0
    for st, v, _ in positions:
        r = BidReadWorlds(v, GAME.world_sampler(v), miss=0.2, tries=30)
        if not r.bids:
            continue
        read += 1
        assert r.weight(st) == 1.0
        rng = random.Random(5)
        uniform.extend(r.weight(r.base.draw(rng)) for _ in range(10))
    assert read > 20
    assert statistics.fmean(uniform) < 0.9  # the reading says something: many uniform worlds miss


def test_a_maker_holds_more_trumps_in_the_read_worlds():
    """Where another seat made trump, the read worlds give it more trumps than uniform worlds do,
    and the worlds drawn by rejection weigh more on average than the uniform ones."""
    more = 0
    heavier = 0
    cases = 0
    for st, v, seat in _greedy_positions(10, seed=2):
        maker = v.get("maker")
        if v["phase"] != "play" or maker is None or maker == seat or v["trump"] is None:
            continue
        trump = "CDHS".index(v["trump"])
        base = GAME.world_sampler(v)
        r = BidReadWorlds(v, base, miss=0.2, tries=30)
        if not r.bids:
            continue
        cases += 1
        rng = random.Random(7)

        def trumps(world: State) -> int:
            hand = world.view(maker)["hand"]
            return sum(1 for c in hand if EFF[trump][card_id(c)] == trump)

        plain = [base.draw(rng) for _ in range(60)]
        drawn = [r.draw(rng) for _ in range(60)]
        more += statistics.fmean(map(trumps, drawn)) > statistics.fmean(map(trumps, plain))
        heavier += statistics.fmean(map(r.weight, drawn)) >= statistics.fmean(map(r.weight, plain))
        if cases >= 12:
            break
    assert cases >= 8
    assert more >= cases * 3 // 4
    assert heavier == cases


def test_draws_repeat_from_the_seed_and_fit_the_view():
    st, v, seat = next(p for p in _greedy_positions(3, seed=3) if p[1]["phase"] == "play")
    r = BidReadWorlds(v, GAME.world_sampler(v), miss=0.2, tries=30)
    a = [w.view(seat) for w in (r.draw(random.Random(11)) for _ in range(5))]
    b = [w.view(seat) for w in (r.draw(random.Random(11)) for _ in range(5))]
    assert a == b
    for world in (r.draw(random.Random(k)) for k in range(20)):
        assert world.view(seat)["hand"] == v["hand"]
        assert world.legal_actions(seat) == st.legal_actions(seat)
        assert SUIT[card_id(world.view(seat)["upcard"])] == SUIT[card_id(v["upcard"])]


def test_a_level_reading_the_bids_plays_reproducible_legal_games():
    class Reading(EuchreHard):
        read_bids = True
        worlds = 16
        milliseconds = None

    def game(seed: int) -> list[int]:
        rng = random.Random(seed)
        st = GAME.new_state(4, GAME.options({"target": 3}))
        bots = [Reading(GAME, 0, random.Random(seed)), *(make_bot("greedy", GAME, s, random.Random(s))
                                                          for s in (1, 2, 3))]
        actions = []
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            s = st.actors()[0]
            legal = st.legal_actions(s)
            a = bots[s].act(st.view(s), legal)
            assert a in legal
            actions.append(a)
            st.apply(a, s)
        return actions

    assert game(4) == game(4)
