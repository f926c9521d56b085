"""The vectorised Euchre environment: shapes and masks, rewards that add up to the match margins,
opponents played inside step, and observations that show a seat nothing it may not see."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from updown.batched.env import OBS_SIZE, EuchreVectorEnv, observe  # noqa: E402
from updown.batched.euchre import BatchedEuchre  # noqa: E402
from updown.batched.updown import BatchedUpDown  # noqa: E402
from updown.core.errors import OptionsError  # noqa: E402
from updown.games.euchre import GAME, card_id  # noqa: E402


def _random_agent(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


@pytest.mark.parametrize("opponent", ["random", "greedy", None])
def test_episodes_rewards_and_masks(opponent: str | None) -> None:
    env = EuchreVectorEnv(200, seed=3, opponent=opponent, options={"deals": 2})
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(5)
    running = np.zeros(200)
    episodes = 0
    for _ in range(120):
        assert obs.shape == (200, OBS_SIZE) and obs.dtype == np.float32
        mask = info["action_mask"]
        assert mask.shape == (200, 66) and mask.any(axis=1).all()
        if opponent is not None:
            assert set(np.unique(info["to_act"]).tolist()) <= {0, 2}
        # the observed hand is the hand of the seat to act
        seat = info["to_act"]
        hands = env.engine.hands.reshape(200, 4)[np.arange(200), seat]
        observed = (obs[:, :24] > 0) @ (np.uint64(1) << np.arange(24, dtype=np.uint64))
        assert (observed == hands).all()
        obs, reward, terminated, truncated, info = env.step(_random_agent(mask, rng))
        running += reward
        final = info["final_scores"]
        for g in np.flatnonzero(terminated):
            assert running[g] == final[g, 0] - final[g, 1]  # an episode's rewards add up to its margin
            running[g] = 0
            episodes += 1
        assert not truncated.any()
    assert episodes > 200
    with pytest.raises(ValueError, match="one integer action per game"):
        env.step(np.zeros(3, dtype=np.int64))


def test_a_greedy_opponent_beats_a_random_agent() -> None:
    env = EuchreVectorEnv(1000, seed=1, opponent="greedy")
    _, info = env.reset()
    rng = np.random.default_rng(2)
    total = episodes = 0
    for _ in range(60):
        _, reward, terminated, _, info = env.step(_random_agent(info["action_mask"], rng))
        total += reward.sum()
        episodes += terminated.sum()
    assert total / episodes < -0.5  # measured about -0.94 points per deal


def test_observations_are_the_same_in_every_world_a_seat_cannot_tell_apart() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(150):
        st = GAME.new_state(4, GAME.options({"deals": 2}))
        stop = rng.randrange(0, 40)
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
        if st.is_terminal():
            continue
        seat = st.actors()[0]
        worlds = [st.resample(seat, rng) for _ in range(3)]
        obs = observe(BatchedEuchre.from_states([st, *worlds]))
        assert (obs == obs[0]).all(), "an observation depends on cards the seat cannot see"
        hand = sorted(card_id(c) for c in st.view(seat)["hand"])
        assert np.flatnonzero(obs[0, :24]).tolist() == hand
        checked += 1
    assert checked > 100


def test_bad_opponent_is_refused() -> None:
    with pytest.raises(ValueError, match="opponent must be"):
        EuchreVectorEnv(2, opponent="smart")


@pytest.mark.parametrize("make", [
    lambda: EuchreVectorEnv(2, 1, {"deals": 1, "deck": "9JA:DH:1"}),
    lambda: BatchedEuchre(2, seed=1, options={"deck": "9JA:DH:1"}),
    lambda: BatchedUpDown(2, seed=1, players=2, options={"rounds": 1, "deck": "4:DS:2"}),
])
def test_the_batched_engines_refuse_a_research_deck_naming_it(make: Any) -> None:
    """They deal the full deck: taking a reduced one would silently play another game."""
    with pytest.raises(OptionsError, match=r"deck=.*research option.*full deck"):
        make()
