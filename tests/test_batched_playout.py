"""Playouts of scalar states in a batch: exact agreement when fed the same chance and actions,
agreement in distribution with scalar random playouts, and clear errors."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from batched_harness import drive  # noqa: E402

from updown.batched.playout import batch_from_states, playout  # noqa: E402
from updown.core.errors import IllegalAction  # noqa: E402
from updown.core.protocol import State  # noqa: E402
from updown.core.registry import get_game  # noqa: E402


def random_states(game_id: str, players: int, options: dict[str, Any], count: int, seed: int) -> list[State]:
    """``count`` states of randomly played games, each stopped at a random decision."""
    game = get_game(game_id)
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        st = game.new_state(players, game.options(options))
        stop = rng.randrange(1, 120)
        steps = 0
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            if steps == stop:
                break
            seat = st.actors()[0]
            st.apply(rng.choice(st.legal_actions(seat)), seat)
            steps += 1
        out.append(st)
    return out


CASES = [
    ("euchre", 4, {"deals": 1}),
    ("euchre", 4, {}),
    ("euchre", 4, {"lone_defender": True, "stick_the_dealer": False, "deals": 2}),
    ("updown", 4, {"rounds": 1}),
    ("updown", 3, {"rounds": 2, "tiebreak_rounds": 1}),
    ("updown", 2, {}),
]


@pytest.mark.parametrize("game_id, players, options", CASES)
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_a_batch_from_states_plays_on_exactly_as_the_scalar_engine(
    game_id: str, players: int, options: dict[str, Any], policy: str
) -> None:
    states = random_states(game_id, players, options, 150, seed=len(options) * 7 + players)
    phases = {st.view(None)["phase"] for st in states}
    assert len(phases) >= 2  # the states are at several kinds of decision
    batch = batch_from_states(states, seed=3, repeats=2, record=True)
    assert batch.n == 300
    twins = [st.clone() for st in states for _ in range(2)]
    compared, _ = drive(batch, twins, policy)
    assert compared > 0


@pytest.mark.parametrize("game_id, players, options", [CASES[1], CASES[3]])
def test_playout_means_agree_with_scalar_random_playouts(game_id: str, players: int, options: dict[str, Any]) -> None:
    states = [st for st in random_states(game_id, players, options, 12, seed=5) if not st.is_terminal()][:3]
    runs = 1500
    ours = playout(states, "random", seed=11, repeats=runs)
    assert ours.shape == (len(states), players)
    rng = random.Random(12)
    for i, st in enumerate(states):
        samples = []
        for _ in range(runs):
            w = st.clone()
            while not w.is_terminal():
                if w.is_chance():
                    w.apply(w.sample_chance(rng))
                else:
                    seat = w.actors()[0]
                    w.apply(rng.choice(w.legal_actions(seat)), seat)
            samples.append(w.result().scores)
        theirs = np.array(samples, dtype=float)
        se = np.sqrt(2 * theirs.var(axis=0) / runs) + 1e-9
        assert (np.abs(ours[i] - theirs.mean(axis=0)) < 5 * se).all(), (ours[i], theirs.mean(axis=0), se)


def test_playout_from_chance_nodes_and_its_errors() -> None:
    game = get_game("updown")
    st = game.new_state(4, game.options({"rounds": 1}))
    assert st.is_chance()
    scores = playout([st, st], "greedy", seed=1, repeats=3)
    assert scores.shape == (2, 4)
    assert (scores.sum(axis=1) <= 11).all() and (scores >= 0).all()
    with pytest.raises(ValueError, match="at least one"):
        playout([])
    with pytest.raises(ValueError, match="no batched engine for up-or-down"):
        playout([get_game("up-or-down").new_state(3)])
    with pytest.raises(ValueError, match="repeats"):
        playout([st], repeats=0)
    with pytest.raises(ValueError, match="unknown playout policy"):
        playout([st], "clever")
    other = game.new_state(3, game.options({"rounds": 1}))
    with pytest.raises(ValueError, match="share their player count"):
        batch_from_states([st.clone(), other], seed=1)


def test_a_batch_refuses_illegal_actions_and_stays_unchanged() -> None:
    from updown.batched.euchre import BatchedEuchre

    b = BatchedEuchre(3, 1, {"deals": 1})
    before = b.legal_bits().copy()
    bad = np.array([0, 0, 0])  # a card during the bidding
    with pytest.raises(IllegalAction, match="game 0: 9C is not legal for seat"):
        b.step(bad)
    assert (b.legal_bits() == before).all()
    with pytest.raises(ValueError, match="one integer action per game"):
        b.step(np.array([48, 48]))
    with pytest.raises(ValueError, match="one integer action per game"):
        b.step(np.array([48.0, 48.0, 48.0]))
    b.play("random")
    with pytest.raises(IllegalAction, match="game 0 is over"):
        b.step(np.array([48, -1, -1]))
    with pytest.raises(ValueError, match="at least one game"):
        BatchedEuchre(0)


@pytest.mark.parametrize("engine", ["euchre", "updown"])
def test_a_seed_replays_a_batch_exactly(engine: str) -> None:
    from updown.batched import BatchedEuchre, BatchedUpDown

    def run(seed: int) -> tuple[Any, Any]:
        b = BatchedEuchre(50, seed, record=True) if engine == "euchre" else BatchedUpDown(50, seed, 3, record=True)
        b.play("random")
        return b.scores().tolist(), b.chance_log

    assert run(8) == run(8)
    assert run(8) != run(9)
    states = random_states(engine, 4, {}, 10, seed=2)
    assert (playout(states, seed=4, repeats=3) == playout(states, seed=4, repeats=3)).all()
