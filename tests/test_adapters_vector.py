"""Vector environments: for every game and player count, each game of the batch is the AEC
environment's episode, step for step (the same observations, masks, seats to act, rewards and
ends), with automatic reset; seeds repeat; illegal actions are refused before anything moves."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from updown.adapters.pettingzoo import env, env_ids  # noqa: E402
from updown.adapters.vector import VectorEnv, vector_env  # noqa: E402

SHORT = {"updown": {"rounds": 1}, "euchre": {"deals": 1}}


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def _compare(venv: VectorEnv, singles: list[Any], steps: int, seed: int, fed: list[Any] | None = None) -> dict[str, int]:
    """Step ``venv`` and the AEC environments ``singles`` (game i = singles[i]) with the same random
    actions; assert equality at every step. Returns counts of what was seen."""
    n = venv.num_envs
    obs, info = venv.reset(seed=seed)
    for i, e in enumerate(singles):
        if fed is not None:
            fed[i].k = 0
        e.reset(seed=None if fed is not None else seed + i)
    rng = np.random.default_rng(seed + 1000)
    seen = {"steps": 0, "episodes": 0, "rewarded": 0}
    for _ in range(steps):
        for i, e in enumerate(singles):
            agent = e.agent_selection
            assert info["to_act"][i] == e.possible_agents.index(agent)
            o = e.observe(agent)
            assert np.array_equal(obs[i], o["observation"]), f"game {i}: observations differ"
            assert np.array_equal(info["action_mask"][i], o["action_mask"]), f"game {i}: masks differ"
        assert obs.dtype == np.float32 and info["action_mask"].dtype == np.int8
        actions = _random_actions(info["action_mask"], rng)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert rewards.shape == (n, venv.players) and not truncated.any()
        for i, e in enumerate(singles):
            e.step(int(actions[i]))
            assert rewards[i].tolist() == [e.rewards[a] for a in e.possible_agents], f"game {i}: rewards differ"
            seen["rewarded"] += bool(rewards[i].any())
            ended = all(e.terminations.values())
            assert bool(terminated[i]) == ended
            if ended:
                assert info["final_scores"][i].tolist() == e.infos[e.possible_agents[0]]["result"]["scores"]
                seen["episodes"] += 1
                if fed is not None:
                    fed[i].k = 0
                e.reset()  # no seed: the same generator goes on, as the vector env's game does
            else:
                assert not info["final_scores"][i].any()
        seen["steps"] += n
    return seen


STEPS = {"euchre": 500, "updown-sueca": 600, "up-or-down": 400, "updown": 200}
"""Vector steps per setting: every game gets thousands of environment steps in all."""


@pytest.mark.parametrize("game_id,players", env_ids())
def test_scalar_backend_is_the_aec_env_game_for_game(game_id: str, players: int) -> None:
    venv = vector_env(game_id, players, 4, options=SHORT.get(game_id), backend="scalar")
    assert venv.backend == "scalar"
    singles = [env(game_id, players, options=SHORT.get(game_id)) for _ in range(4)]
    seen = _compare(venv, singles, STEPS[game_id], seed=17 * players)
    assert seen["episodes"] >= 4 and seen["rewarded"] >= 4


class _FedChance:
    """Chance for an AEC environment from a batched game's record (the outcomes the batch drew)."""

    def __init__(self, e: Any, venv: VectorEnv, i: int) -> None:
        self.e, self.venv, self.i, self.k = e, venv, i, 0
        e._core.resolve_chance = self.resolve

    def resolve(self) -> None:
        core = self.e._core
        while core.state.is_chance():
            outcome = self.venv.chance_log[self.i][self.k]
            core.state.apply(outcome)
            core.history.append((None, outcome))
            self.k += 1


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", [{"rounds": 1}, {"rounds": 2, "tiebreak_rounds": 2}])
def test_batched_updown_is_the_aec_env_fed_the_same_chance(players: int, options: dict[str, Any]) -> None:
    n = 8
    venv = vector_env("updown", players, n, options=options, record=True)
    assert venv.backend == "batched"
    singles = [env("updown", players, options=options) for _ in range(n)]
    fed = [_FedChance(e, venv, i) for i, e in enumerate(singles)]
    seen = _compare(venv, singles, STEPS["updown"] * (2 if options["rounds"] == 1 else 3), seed=players, fed=fed)
    assert seen["episodes"] >= n and seen["rewarded"] >= n


@pytest.mark.parametrize("game_id,players,backend", [("updown", 3, "batched"), ("updown", 3, "scalar"),
                                                     ("euchre", 4, "scalar"), ("up-or-down", 3, "scalar")])
def test_seeds_repeat_and_differ(game_id: str, players: int, backend: str) -> None:
    def run(v: VectorEnv, seed: int | None) -> list[bytes]:
        rng = np.random.default_rng(0)
        obs, info = v.reset(seed=seed)
        out = [obs.tobytes()]
        for _ in range(60):
            obs, rewards, terminated, _, info = v.step(_random_actions(info["action_mask"], rng))
            out.append(obs.tobytes() + rewards.tobytes() + terminated.tobytes())
        return out

    make = lambda seed=None: vector_env(game_id, players, 6, options=SHORT.get(game_id), backend=backend, seed=seed)  # noqa: E731
    a = run(make(), 5)
    assert run(make(), 5) == a
    v = make(5)
    assert run(v, None) == a  # the constructor's seed, at the first reset
    assert run(v, 5) == a  # reset(seed) starts over
    assert run(make(), 6)[0] != a[0]


@pytest.mark.parametrize("game_id,players,options,hand_size", [("euchre", 4, {"deals": 1}, 5),
                                                                ("updown", 2, {"rounds": 2, "tiebreak_rounds": 3}, 15)])
def test_auto_reset_restarts_only_the_games_that_ended(game_id: str, players: int, options: dict[str, Any],
                                                        hand_size: int) -> None:
    venv = vector_env(game_id, players, 16, options=options, seed=1)
    layout = {f.name: f for f in venv.encoder.layout.fields}
    hand, played = layout["hand"], layout["played"]
    obs, info = venv.reset()
    rng = np.random.default_rng(2)
    for _ in range(2000):
        obs, rewards, terminated, _, info = venv.step(_random_actions(info["action_mask"], rng))
        if terminated.any() and not terminated.all():
            # a restarted game is at its first decision: a full hand, nothing played yet
            assert np.all(obs[terminated, hand.start:hand.stop].sum(axis=1) == hand_size)
            assert not obs[terminated, played.start:played.stop].any()
            assert info["final_scores"][terminated].any(axis=1).all()
            assert not info["final_scores"][~terminated].any()
            return
    raise AssertionError("no step ended some games and not others")


@pytest.mark.parametrize("backend", ["batched", "scalar"])
def test_illegal_actions_are_refused_before_any_game_moves(backend: str) -> None:
    venv = vector_env("updown", 3, 4, options={"rounds": 1}, seed=0, backend=backend)
    obs, info = venv.reset()
    good = _random_actions(info["action_mask"], np.random.default_rng(0))
    bad = good.copy()
    bad[2] = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    with pytest.raises(ValueError, match="game 2"):
        venv.step(bad)
    with pytest.raises(ValueError, match="one integer action per game"):
        venv.step(good[:3])
    again = venv.action_masks()
    assert np.array_equal(again, info["action_mask"])  # nothing moved
    venv.step(good)
    with pytest.raises(RuntimeError, match="before reset"):
        vector_env("euchre", 4, 2).step(np.zeros(2, dtype=np.int64))


def test_backends_and_spaces() -> None:
    assert vector_env("updown", 4, 2).backend == "batched"
    assert vector_env("euchre", 4, 2).backend == "scalar"
    with pytest.raises(ValueError, match="no batched engine"):
        vector_env("euchre", 4, 2, backend="batched")
    with pytest.raises(ValueError, match="num_envs"):
        vector_env("updown", 2, 0)
    v = vector_env("up-or-down", 3, 5)
    assert v.single_observation_space.shape == (v.observation_size,)
    assert v.single_action_space.n == v.num_actions == 261
    assert v.observation_space.shape == (5, v.observation_size)
