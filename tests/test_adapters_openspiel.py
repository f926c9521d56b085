"""OpenSpiel games: OpenSpiel's own random simulation checks, its MCTS and ISMCTS bots playing to
the end, UP&DOWN's simultaneous node, information from the view, the same episode as PettingZoo."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from updown.adapters import openspiel as uo  # noqa: E402
from updown.adapters.observations import draw_chance, encoder_for  # noqa: E402
from updown.core.registry import get_game  # noqa: E402

SIMS = [
    ("python_updown", {"players": 2, "rounds": 1}, 3),
    ("python_updown", {"players": 3, "rounds": 1}, 3),
    ("python_updown", {"players": 4}, 1),  # four rounds
    ("python_updown_turns", {"players": 4, "rounds": 1}, 3),
    ("python_updown_turns", {"players": 2, "rounds": 2, "tiebreak_rounds": 2}, 2),
    ("python_euchre", {"deals": 1}, 5),
    ("python_euchre", {"stick_the_dealer": False, "lone_defender": True, "deals": 3}, 2),
    ("python_euchre", {}, 1),
    ("python_up_or_down", {"players": 2}, 2),
    ("python_up_or_down", {"players": 5}, 1),
    ("python_up_or_down", {"players": 3, "length": "full"}, 1),
    ("python_updown_sueca", {}, 1),
]


def test_every_game_is_registered() -> None:
    names = set(pyspiel.registered_names())
    assert set(uo.GAMES) <= names
    assert set(uo.GAMES) == {"python_updown", "python_updown_turns", "python_euchre", "python_up_or_down",
                             "python_updown_sueca"}
    assert pyspiel.load_game("python_updown").get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert pyspiel.load_game("python_updown_turns").get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL


@pytest.mark.parametrize("name,params,sims", SIMS)
def test_openspiel_random_simulation_checks(name: str, params: dict[str, Any], sims: int) -> None:
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)


def test_parameters_reach_the_engine_and_bad_ones_are_errors() -> None:
    game = uo.load("updown", 3, rounds=2)
    assert game.num_players() == 3 and game.engine_options.rounds == 2
    assert uo.load("updown").engine_options.rounds is None  # -1: one round per player
    with pytest.raises(Exception, match="rounds must be 1 to 50"):
        uo.load("updown", 3, rounds=0)
    with pytest.raises(Exception, match="2 to 4"):
        uo.load("updown", 5)


def test_the_secret_choice_is_a_simultaneous_node() -> None:
    game = uo.load("updown", 3, rounds=1)
    state = game.new_initial_state()
    rng = random.Random(1)
    while state.is_chance_node():
        state.apply_action(draw_chance(state.chance_outcomes(), rng))
    assert state.current_player() == state.engine.actors()[0]  # the leader alone
    state.apply_action(state.legal_actions()[0])
    assert state.is_simultaneous_node()
    hands = [state.legal_actions(p) for p in range(3)]
    assert all(len(h) == 14 for h in hands)
    flat_state = state.clone()
    joint = [h[0] for h in hands]
    state.apply_actions(joint)
    trick = [e for e in state.engine.log if e["type"] == "trick"][-1]
    assert trick["cards"] == [get_game("updown").action_to_str(a) for a in joint]
    # OpenSpiel's flat joint action: seat 0 is the least significant digit
    assert len(flat_state.legal_actions()) == 14 ** 3
    flat_state.apply_action(2 + 14 * 5 + 14 * 14 * 7)
    trick = [e for e in flat_state.engine.log if e["type"] == "trick"][-1]
    assert trick["cards"] == [get_game("updown").action_to_str(hands[s][i]) for s, i in enumerate((2, 5, 7))]


def test_information_comes_from_the_view_and_is_the_same_across_resampled_worlds() -> None:
    game = uo.load("updown", 4, turns=True, rounds=1)
    enc = encoder_for(get_game("updown"), 4, {"rounds": 1})
    state = game.new_initial_state()
    rng = random.Random(4)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(draw_chance(state.chance_outcomes(), rng))
            continue
        p = state.current_player()
        view = state.engine.view(p)
        assert json.loads(state.information_state_string(p)) == json.loads(json.dumps(view))
        assert "log" not in json.loads(state.observation_string(p))
        assert np.array_equal(np.array(state.observation_tensor(p), np.float32), enc.encode(view))
        assert np.array_equal(np.array(state.information_state_tensor(p), np.float32), enc.encode(view))
        if len(state.history()) % 5 == 0:
            world = state.resample_from_infostate(p, sampler)
            assert world.information_state_string(p) == state.information_state_string(p)
            assert world.observation_tensor(p) == state.observation_tensor(p)
            assert world.history() == []  # the real history would name the hidden cards
            checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 5
    assert sum(state.returns()) == pytest.approx(0.0)


def play(game: Any, bots: list[Any], seed: int) -> Any:
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(draw_chance(state.chance_outcomes(), rng))
        else:
            bot = bots[state.current_player()]
            state.apply_action(bot.step(state) if bot else rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("name,params", [
    ("python_updown_turns", {"players": 3, "rounds": 1}),
    ("python_euchre", {"deals": 1}),
    ("python_up_or_down", {"players": 2}),
    ("python_updown_sueca", {}),
])
def test_openspiel_mcts_and_ismcts_play_to_the_end(name: str, params: dict[str, Any]) -> None:
    game = pyspiel.load_game(name, params)
    n = game.num_players()
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    mcts_bot = mcts.MCTSBot(game, 2.0, 4, evaluator, random_state=np.random.RandomState(1))
    ismcts_bot = ismcts.ISMCTSBot(game, evaluator, 2.0, 4, random_state=np.random.RandomState(2))
    bots = [mcts_bot, ismcts_bot] + [None] * (n - 2)
    state = play(game, bots, seed=3)
    assert state.is_terminal()
    assert sum(state.returns()) == pytest.approx(0.0)
    assert state.returns() == uo.placing_utility(state.engine.result())


@pytest.mark.parametrize("game_id,players,options", [
    ("updown", 4, {"rounds": 1}), ("euchre", 4, {"deals": 1}), ("up-or-down", 3, {}),
])
def test_same_seed_same_episode_in_both_adapters(game_id: str, players: int, options: dict[str, Any]) -> None:
    from updown.adapters.pettingzoo import env

    e = env(game_id, players, options=options)
    e.reset(seed=21)
    acts = random.Random(5)
    pz_obs = []
    for agent in e.agent_iter():
        obs, _r, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        pz_obs.append(obs["observation"])
        e.step(acts.choice(np.flatnonzero(obs["action_mask"]).tolist()))

    game = uo.load(game_id, players, turns=game_id == "updown", **options)
    state = game.new_initial_state()
    chance, acts = random.Random(21), random.Random(5)
    os_obs = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(draw_chance(state.chance_outcomes(), chance))
        else:
            os_obs.append(np.array(state.observation_tensor(state.current_player()), np.float32))
            state.apply_action(acts.choice(state.legal_actions()))
    assert state.history() == [a for _seat, a in e.history]
    assert len(pz_obs) == len(os_obs) and all(np.array_equal(a, b) for a, b in zip(pz_obs, os_obs))
    assert state.engine.result() == e.state_.result()


@pytest.mark.parametrize("name, params", [("python_euchre", {"deals": 1}), ("python_up_or_down", {"players": 2}),
                                          ("python_updown", {"players": 2, "rounds": 1})])
def test_who_acts_follows_every_step_and_an_action_after_the_end_is_an_error(name: str, params: dict[str, Any]) -> None:
    # current_player is kept between steps (OpenSpiel asks it several times a step): after every
    # step, in the state and in its clone, it is what the engine says now.
    game = pyspiel.load_game(name, params)
    state = game.new_initial_state()
    rng = random.Random(3)
    while not state.is_terminal():
        engine = state.engine
        actors = engine.actors()
        if engine.is_chance():
            want = pyspiel.PlayerId.CHANCE
        elif len(actors) > 1:
            want = pyspiel.PlayerId.SIMULTANEOUS
        else:
            want = actors[0]
        assert state.current_player() == int(want)
        assert state.clone().current_player() == int(want)
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(game.num_players())])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.current_player() == int(pyspiel.PlayerId.TERMINAL)
    with pytest.raises(pyspiel.SpielError, match="the game is over"):
        state.apply_action(0)
