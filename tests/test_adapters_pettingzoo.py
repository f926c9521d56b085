"""PettingZoo environments: PettingZoo's own API and seed tests, rewards at the end of each deal,
the Parallel environment's simultaneous choice, illegal actions, text rendering."""

from __future__ import annotations

import random
import re
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

from updown.adapters.pettingzoo import env, env_ids, parallel_env  # noqa: E402

SHORT = {"updown": {"rounds": 1}, "euchre": {"deals": 1}}


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo warns that dict observations are not arrays
        yield


@pytest.mark.parametrize("game_id,players", env_ids())
def test_aec_passes_pettingzoo_api_and_seed_tests(game_id: str, players: int) -> None:
    opts = SHORT.get(game_id)
    api_test(env(game_id, players, options=opts, render_mode="ansi"), num_cycles=200)
    seed_test(lambda: env(game_id, players, options=opts), num_cycles=200)


def test_aec_full_matches_pass_too() -> None:
    api_test(env("updown", 3), num_cycles=500)  # three rounds
    api_test(env("euchre", 4), num_cycles=500)  # to 10 points


@pytest.mark.parametrize("players", [2, 3, 4])
def test_parallel_passes_pettingzoo_api_and_seed_tests(players: int) -> None:
    parallel_api_test(parallel_env("updown", players, options={"rounds": 1}), num_cycles=400)
    parallel_seed_test(lambda: parallel_env("updown", players, options={"rounds": 1}))


def test_parallel_works_for_a_sequential_game() -> None:
    parallel_api_test(parallel_env("euchre", 4, options={"deals": 1}), num_cycles=200)


def play_aec(e: Any, seed: int, act_seed: int) -> dict[str, float]:
    """A random game through the AEC loop; the summed rewards per agent."""
    e.reset(seed=seed)
    rng = random.Random(act_seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _info = e.last()
        totals[agent] += reward
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize("game_id,players", [("updown", 3), ("euchre", 4), ("updown-sueca", 4), ("up-or-down", 2)])
def test_rewards_are_the_points_of_each_scored_deal(game_id: str, players: int) -> None:
    e = env(game_id, players, options=SHORT.get(game_id))
    totals = play_aec(e, seed=4, act_seed=5)
    result = e.state_.result()
    seen = [totals[f"player_{s}"] for s in range(players)]
    if game_id == "updown-sueca":  # a race to 0 from 20: points are what came off the score
        assert seen == [20.0 - s for s in result.scores]
    else:
        assert seen == [float(s) for s in result.scores]


def test_updown_rewards_arrive_only_when_a_round_is_scored() -> None:
    e = env("updown", 2, options={"rounds": 2})
    e.reset(seed=1)
    rng = random.Random(2)
    paid_at = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if reward:
            paid_at.append(e.state_.view(None)["round"])
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert paid_at and set(paid_at) <= {2}  # round 1's points are paid as round 2 starts, then the end
    assert len(paid_at) <= 4


def test_same_seed_same_episode_and_different_seed_different_deal() -> None:
    a, b, c = (env("updown", 4, options={"rounds": 1}) for _ in range(3))
    assert play_aec(a, 9, 1) == play_aec(b, 9, 1)
    assert a.history == b.history
    play_aec(c, 10, 1)
    assert c.history[:44] != a.history[:44]


def test_parallel_choice_is_simultaneous() -> None:
    """At the secret choice every seat acts at once, from a position where nobody has chosen."""
    p = parallel_env("updown", 3, options={"rounds": 1})
    obs, _ = p.reset(seed=3)
    rng = random.Random(0)
    choices = 0
    while p.agents:
        state = p.state_
        actors = state.actors()
        acting = {a for a in p.agents if obs[a]["action_mask"][p.NOOP] == 0}
        assert acting == {f"player_{s}" for s in actors}
        if len(actors) == 3:
            choices += 1
            assert state.view(0)["submitted"] == []
            before = len(state.log)
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in p.agents}
        obs, rewards, term, trunc, infos = p.step(actions)
        if len(actors) == 3:
            trick = next(e for e in p.state_.log[before:] if e["type"] == "trick")
            assert trick["cards"] == [p.state_.game.action_to_str(actions[f"player_{s}"]) for s in range(3)]
    assert choices == 14  # one per trick
    assert all(term.values())


def test_parallel_non_actors_see_only_noop_and_their_action_is_ignored() -> None:
    p = parallel_env("updown", 4, options={"rounds": 1})
    obs, _ = p.reset(seed=8)
    leader = p.state_.actors()[0]
    for s in range(4):
        mask = obs[f"player_{s}"]["action_mask"]
        if s == leader:
            assert mask[p.NOOP] == 0 and mask.sum() == 5  # flip, three rotations, roll
        else:
            assert mask.tolist() == [0] * p.NOOP + [1]
    lead = int(np.flatnonzero(obs[f"player_{leader}"]["action_mask"])[0])
    actions = {f"player_{s}": (lead if s == leader else 3) for s in range(4)}  # 3: a card id, ignored
    _, rewards, term, _, infos = p.step(actions)
    assert not any(term.values()) and "illegal_action" not in str(infos)


def test_illegal_actions_end_the_episode_or_raise() -> None:
    e = env("euchre", 4, options={"deals": 1})
    e.reset(seed=0)
    agent = e.agent_selection
    illegal = int(np.flatnonzero(e.observe(agent)["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e._cumulative_rewards[agent] == -1.0
    assert "not legal" in e.infos[agent]["illegal_action"]
    strict = env("euchre", 4, options={"deals": 1}, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)
    with pytest.raises(ValueError, match="not an integer"):
        strict.step(1.5)
    assert strict.state_.view(None)["phase"] == "bid1"  # nothing was applied
    with pytest.raises(ValueError, match="illegal_action"):
        env("euchre", illegal_action="ignore")


def test_render_is_text_from_the_spectators_view() -> None:
    e = env("updown", 4, options={"rounds": 1}, render_mode="ansi")
    e.reset(seed=2)
    text = e.render()
    assert isinstance(text, str) and "UP&DOWN" in text and "trump" in text
    for s in range(4):  # no seat's hand is drawn
        assert str(e.state_.view(s)["hand"]) not in text


@pytest.mark.parametrize("game_id,players", [("euchre", 4), ("updown", 2)])
def test_calls_before_reset_say_what_was_wrong(game_id: str, players: int) -> None:
    from updown.adapters.pettingzoo import ResetNeeded

    e = env(game_id, players)
    for call, name in ((lambda: e.step(0), "step()"), (e.last, "last()"), (lambda: e.observe("player_0"), "observe()")):
        with pytest.raises(ResetNeeded, match=rf"{re.escape(name)} called before reset\(\).*call reset\(\)"):
            call()
    assert e.history == []  # nothing was applied
    e.reset(seed=1)
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))  # and after reset it plays
    p = parallel_env(game_id, players)
    with pytest.raises(ResetNeeded, match=r"step\(\) called before reset\(\)"):
        p.step({})
    obs, _ = p.reset(seed=1)
    while p.agents:
        obs, *_ = p.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in p.agents})
    with pytest.raises(ValueError, match="the episode is over"):  # after the end: a different message
        p.step({})
