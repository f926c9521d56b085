"""Euchre's end of a deal solved exactly in each world (``updown.bots.euchre_endgame``, a level's
``endgame``): the batched solver gives the brute-force minimax on random and hand-made positions
(lone hands and tricks under way too), with no tricks solved the playouts are the greedy ones, and
a level that solves the end plays legal, reproducible games from its view alone."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy")

import numpy as np  # noqa: E402

from updown.batched.euchre import NEXT  # noqa: E402
from updown.batched.playout import deal_margins  # noqa: E402
from updown.bots import make_bot  # noqa: E402
from updown.bots.euchre_endgame import (  # noqa: E402
    brute_makers_tricks, deal_points, endgame_margins, makers_tricks,
)
from updown.bots.euchre_greedy import EuchreHard  # noqa: E402
from updown.core.protocol import State  # noqa: E402
from updown.core.registry import get_game  # noqa: E402
from updown.games.euchre import EFF, POWER, card_id  # noqa: E402

GAME = get_game("euchre")

Position = tuple[list[int], int, int, int, int, int, int, int, int]


def _mask(*cards: str) -> int:
    return sum(1 << card_id(c) for c in cards)


def _random_position(rng: random.Random, cards: int) -> Position:
    """Hands of ``cards`` cards (a lone hand's partner out at times), then 0 to 3 cards of the
    trick under way played at random by the rules (each seat then holds one card less)."""
    deck = list(range(24))
    rng.shuffle(deck)
    trump, maker = rng.randrange(4), rng.randrange(4)
    skip = 1 << ((maker + 2) & 3) if rng.random() < 0.3 else 0
    hands = [0] * 4
    for s in range(4):
        if not skip >> s & 1:
            for _ in range(cards):
                hands[s] |= 1 << deck.pop()
    turn = rng.randrange(4)
    while skip >> turn & 1:
        turn = (turn + 1) & 3
    nact = 4 - bin(skip).count("1")
    led, best, left = -1, 0, nact
    for _ in range(rng.randrange(nact)):
        hand = hands[turn]
        follow = [c for c in range(24) if hand >> c & 1 and led >= 0 and EFF[trump][c] == led]
        options = follow or [c for c in range(24) if hand >> c & 1]
        c = rng.choice(options)
        hands[turn] &= ~(1 << c)
        led = EFF[trump][c] if led < 0 else led
        best = max(best, POWER[trump][led][c] * 4 + turn)
        left -= 1
        turn = int(NEXT[skip * 4 + turn])
    return hands, trump, maker, turn, led, best, left, skip, rng.randrange(0, 6 - cards)


def _solve(positions: list[Position]) -> list[int]:
    cols = list(zip(*positions))
    return [int(x) for x in makers_tricks(np.array(cols[0], dtype=np.uint64), *cols[1:])]


@pytest.mark.parametrize("cards", [1, 2, 3])
def test_the_solver_is_the_brute_force_minimax(cards):
    rng = random.Random(cards)
    positions = [_random_position(rng, cards) for _ in range(150 if cards < 3 else 40)]
    assert _solve(positions) == [brute_makers_tricks(*p) for p in positions]
    # A seat out of play (a lone maker's partner) may still hold its cards: they do not count.
    rng2 = random.Random(99)
    held = [([rng2.getrandbits(24) if p[7] >> s & 1 else h for s, h in enumerate(p[0])], *p[1:]) for p in positions]
    assert _solve(held) == _solve(positions)  # type: ignore[arg-type]
    # Positions of both sizes at once (chunks, lone hands, tricks under way) change nothing.
    assert len({p[6] for p in positions}) > 1 and any(p[7] for p in positions)


def test_hand_made_positions():
    # Hearts trump, seat 0 made it and leads its last two cards: the right bower first pulls the
    # left bower, then the ace of clubs wins; the ace first is ruffed by the left bower and only
    # the right bower wins. Perfect play: both tricks.
    hands = [_mask("JH", "AC"), _mask("JD", "9S"), _mask("9C", "10C"), _mask("KC", "QC")]
    assert brute_makers_tricks(hands, 2, 0, 0, -1, 0, 4, 0, 1) == 3
    assert _solve([(hands, 2, 0, 0, -1, 0, 4, 0, 1)]) == [3]
    # The same cards with seat 1 (a defender) to lead: the left bower would be taken by the right
    # bower and the ace would follow, but the nine of spades makes seat 0 ruff with the right
    # bower, and then the left bower ruffs the ace: the makers get one trick.
    assert brute_makers_tricks(hands, 2, 0, 1, -1, 0, 4, 0, 0) == 1
    assert _solve([(hands, 2, 0, 1, -1, 0, 4, 0, 0)]) == [1]
    # With seat 1 the maker and seat 0 to lead, the right bower and the ace take both: none left
    # for the makers.
    assert _solve([(hands, 2, 1, 0, -1, 0, 4, 0, 0)]) == [0]
    # A trick under way: seat 3 led the king of clubs; seat 0 must follow with the ace, and seat
    # 1 (a defender) ruffs it with the left bower rather than throw the nine of spades (which
    # would let the makers take both): one trick to the makers.
    hands = [_mask("JH", "AC"), _mask("JD", "9S"), _mask("9C", "10C"), _mask("QC")]
    led = EFF[2][card_id("KC")]
    best = POWER[2][led][card_id("KC")] * 4 + 3
    assert brute_makers_tricks(hands, 2, 0, 0, led, best, 3, 0, 0) == 1
    assert _solve([(hands, 2, 0, 0, led, best, 3, 0, 0)]) == [1]


def test_deal_points():
    tricks = np.array([0, 2, 3, 4, 5, 5])
    alone = np.array([False, False, False, False, False, True])
    assert list(deal_points(tricks, alone, np.zeros(6, dtype=bool))) == [-2, -2, 1, 1, 2, 4]
    assert list(deal_points(np.array([1]), np.array([False]), np.array([True]))) == [-4]


def _positions(games: int, seed: int) -> list[tuple[State, int, list[int]]]:
    """(state, seat, legal) at decisions with a choice, in single deals of four ``greedy`` bots."""
    rng = random.Random(seed)
    found = []
    for g in range(games):
        st = GAME.new_state(4, GAME.options({"deals": 1}))
        bots = [make_bot("greedy", GAME, s, random.Random(100 * g + s)) for s in range(4)]
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            s = st.actors()[0]
            legal = st.legal_actions(s)
            if len(legal) > 1:
                found.append((st.clone(), s, legal))
            st.apply(bots[s].act(st.view(s), legal), s)
    return found


def test_no_tricks_solved_is_the_greedy_playout_and_solving_changes_values():
    changed = 0
    positions = _positions(3, seed=2)
    assert len(positions) > 15
    for st, s, legal in positions:
        sampler = GAME.world_sampler(st.view(s))
        r = random.Random(7)
        worlds = [sampler.draw(r) for _ in range(12)]
        greedy = deal_margins(worlds, s, legal, lambda b: b.policy("greedy"), rng=np.random.default_rng(3))
        assert np.allclose(endgame_margins(worlds, s, legal, 0, rng=np.random.default_rng(3)), greedy, atol=1e-12)
        solved = endgame_margins(worlds, s, legal, 2, rng=np.random.default_rng(3))
        assert solved.shape == greedy.shape
        # a margin is two thirds of a deal's points, the seat's side less the other
        assert set(np.round(1.5 * solved.ravel()).astype(int)) <= {-4, -2, -1, 1, 2, 4, 0}
        changed += int(not np.allclose(solved, greedy))
    assert changed > 0


def test_solving_only_the_forced_last_trick_is_the_greedy_playout():
    for st, s, legal in _positions(2, seed=4):
        sampler = GAME.world_sampler(st.view(s))
        worlds = [sampler.draw(random.Random(1)) for _ in range(8)]
        one = endgame_margins(worlds, s, legal, 1, rng=np.random.default_rng(5))
        greedy = endgame_margins(worlds, s, legal, 0, rng=np.random.default_rng(5))
        assert np.array_equal(one, greedy)


class _Solving(EuchreHard):
    worlds = 40
    milliseconds = None
    endgame = 2


def test_a_solving_level_is_reproducible_and_decides_from_its_view():
    seen = 0
    for st, s, legal in _positions(2, seed=6)[::3]:
        view = st.view(s)
        a = _Solving(GAME, s, random.Random(9)).act(view, legal)
        assert a in legal
        assert _Solving(GAME, s, random.Random(9)).act(view, legal) == a
        # Another world the seat cannot tell from this one: the same view, the same choice.
        other = GAME.world_sampler(view).draw(random.Random(11))
        assert other.view(s) == view
        assert _Solving(GAME, s, random.Random(9)).act(other.view(s), other.legal_actions(s)) == a
        seen += 1
    assert seen > 3
