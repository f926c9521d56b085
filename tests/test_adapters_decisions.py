"""Decision-only action spaces: each game's compact space holds exactly the ids that can be a seat's
decision (every legal action of random games is in it, and every id in it turns up legal), and the
PettingZoo, vector and OpenSpiel adapters play the same games in it as in the full id space."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

from updown.adapters.observations import DecisionSpace, draw_chance, encoder_for
from updown.core.registry import all_games, get_game

SETTINGS = [(g.id, n, None) for g in all_games() for n in range(g.min_players, g.max_players + 1)] + [
    ("euchre", 4, {"lone_defender": True, "stick_the_dealer": False}),
    ("up-or-down", 3, {"length": "full"}),
    ("up-or-down", 6, {"length": "full"}),
]


@pytest.mark.parametrize("game_id,players,options", SETTINGS)
def test_the_space_is_exactly_the_decisions(game_id: str, players: int, options: dict[str, Any] | None) -> None:
    game = get_game(game_id)
    enc = encoder_for(game, players, options)
    space = enc.decisions
    ids = set(space.full_ids.tolist())
    rng = random.Random(players)
    seen: set[int] = set()
    chance_only: set[int] = set()
    games = 0
    while seen != ids and games < 60:
        games += 1
        state = game.new_state(players, enc.options)
        while not state.is_terminal():
            if state.is_chance():
                outcomes = state.chance_outcomes()
                chance_only.update(a for a, _ in outcomes)
                state.apply(draw_chance(outcomes, rng))
                continue
            seat = state.actors()[0]
            legal = state.legal_actions(seat)
            assert set(legal) <= ids, f"decisions outside the space: {set(legal) - ids}"
            seen.update(legal)
            state.apply(rng.choice(legal), seat)
    assert seen == ids, f"ids never legal in {games} games: {sorted(ids - seen)[:10]}"
    assert space.n <= enc.num_actions
    # the ids left out are chance outcomes or unused, never decisions; UP&DOWN's dice, toss and
    # orientation, and Euchre's first dealer, are such chance-only ids
    if game_id in ("updown", "euchre"):
        assert chance_only - ids and space.n < enc.num_actions


def test_the_mapping_both_ways() -> None:
    space = DecisionSpace([5, 0, 1, 5], 8)
    assert space.n == 3 and space.full_ids.tolist() == [0, 1, 5]
    assert [space.to_full(k) for k in range(3)] == [0, 1, 5]
    assert [space.to_compact(a) for a in range(8)] == [0, 1, -1, -1, -1, 2, -1, -1]
    assert space.compact_ids.tolist() == [0, 1, -1, -1, -1, 2, -1, -1]
    assert space.mask([5, 1]).tolist() == [0, 1, 1]
    full = np.array([[1, 0, 1, 0, 0, 1, 0, 0], [0, 1, 0, 0, 0, 0, 0, 1]], dtype=np.int8)
    assert space.compact_mask(full).tolist() == [[1, 0, 1], [0, 1, 0]]
    with pytest.raises(ValueError, match="not a decision id"):
        space.to_full(3)
    with pytest.raises(ValueError):
        DecisionSpace([8], 8)
    assert encoder_for(get_game("updown"), 3).decisions.n == 50  # 44 cards, flip, 4 rotations, roll
    assert encoder_for(get_game("euchre"), 4).decisions.n == 61  # cards, discards, bids (no lone defender)


# -- the adapters -------------------------------------------------------------------------------------

pettingzoo = pytest.importorskip("pettingzoo")


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("game_id,players,options", [("updown", 3, {"rounds": 1}), ("euchre", 4, {"deals": 2}),
                                                     ("up-or-down", 2, None), ("updown-sueca", 4, None)])
def test_pettingzoo_aec_in_decision_ids_plays_the_same_games(game_id: str, players: int,
                                                              options: dict[str, Any] | None) -> None:
    from pettingzoo.test import api_test

    from updown.adapters.pettingzoo import env

    compact = env(game_id, players, options=options, action_ids="decisions")
    full = env(game_id, players, options=options)
    space = compact.decision_space
    assert compact.action_space("player_0").n == space.n < full.action_space("player_0").n or game_id == "updown-sueca"
    for seed in range(3):
        compact.reset(seed=seed)
        full.reset(seed=seed)
        rng = random.Random(seed)
        for agent in compact.agent_iter():
            assert agent == full.agent_selection
            obs, reward, term, trunc, _ = compact.last()
            fobs, freward, *_ = full.last()
            assert np.array_equal(obs["observation"], fobs["observation"]) and reward == freward
            assert np.array_equal(obs["action_mask"], fobs["action_mask"][space.full_ids])
            if term or trunc:
                compact.step(None)
                full.step(None)
                continue
            k = rng.choice(np.flatnonzero(obs["action_mask"]).tolist())
            compact.step(k)
            full.step(space.to_full(k))
        assert compact.history == full.history  # full ids in both
    strict = env(game_id, players, options=options, action_ids="decisions", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="not a decision id"):
        strict.step(space.n)
    api_test(env(game_id, players, options=options, action_ids="decisions"), num_cycles=100)
    with pytest.raises(ValueError, match="action_ids"):
        env(game_id, players, action_ids="compact")


def test_pettingzoo_parallel_in_decision_ids() -> None:
    from pettingzoo.test import parallel_api_test

    from updown.adapters.pettingzoo import parallel_env

    p = parallel_env("updown", 3, options={"rounds": 1}, action_ids="decisions")
    assert p.NOOP == 50 and p.action_space("player_0").n == 51
    parallel_api_test(p, num_cycles=200)
    obs, _ = p.reset(seed=2)
    rng = random.Random(0)
    while p.agents:
        actions = {a: rng.choice(np.flatnonzero(obs[a]["action_mask"]).tolist()) for a in p.agents}
        obs, *_ = p.step(actions)
    assert p.state_.is_terminal()


@pytest.mark.parametrize("game_id,players,backend", [("updown", 3, "batched"), ("euchre", 4, "scalar")])
def test_vector_env_in_decision_ids(game_id: str, players: int, backend: str) -> None:
    from updown.adapters.vector import vector_env

    full = vector_env(game_id, players, 6, options={"updown": {"rounds": 1}}.get(game_id), seed=3, backend=backend)
    compact = vector_env(game_id, players, 6, options={"updown": {"rounds": 1}}.get(game_id), seed=3,
                         backend=backend, action_ids="decisions")
    space = compact.decision_space
    assert compact.num_actions == space.n and compact.single_action_space.n == space.n
    obs_f, info_f = full.reset()
    obs_c, info_c = compact.reset()
    rng = np.random.default_rng(0)
    for _ in range(150):
        assert np.array_equal(obs_f, obs_c)
        assert np.array_equal(info_c["action_mask"], info_f["action_mask"][:, space.full_ids])
        k = (rng.random(info_c["action_mask"].shape) * info_c["action_mask"]).argmax(axis=1)
        obs_f, r_f, t_f, _, info_f = full.step(space.full_ids[k])
        obs_c, r_c, t_c, _, info_c = compact.step(k)
        assert np.array_equal(r_f, r_c) and np.array_equal(t_f, t_c)
    with pytest.raises(ValueError, match="not a decision id"):
        compact.step(np.full(6, space.n))


pyspiel = pytest.importorskip("pyspiel")


@pytest.mark.parametrize("name,params", [("python_updown", {"players": 3, "rounds": 1}),
                                         ("python_updown_turns", {"players": 2, "rounds": 1}),
                                         ("python_euchre", {"deals": 1}),
                                         ("python_up_or_down", {"players": 2}),
                                         ("python_updown_sueca", {})])
def test_openspiel_decisions_parameter(name: str, params: dict[str, Any]) -> None:
    import updown.adapters.openspiel  # noqa: F401  (registers the games)

    compact = pyspiel.load_game(name, {**params, "decisions": True})
    full = pyspiel.load_game(name, params)
    space = compact.space
    assert compact.num_distinct_actions() == space.n and compact.max_chance_outcomes() == full.num_distinct_actions()
    pyspiel.random_sim_test(compact, num_sims=2, serialize=True, verbose=False)
    rng = random.Random(1)
    a, b = compact.new_initial_state(), full.new_initial_state()
    while not a.is_terminal():
        if a.is_chance_node():
            assert a.chance_outcomes() == b.chance_outcomes()  # chance keeps the full ids
            x = draw_chance(a.chance_outcomes(), rng)
            a.apply_action(x)
            b.apply_action(x)
        elif a.is_simultaneous_node():
            joint = [rng.choice(a.legal_actions(p)) if a.legal_actions(p) else -1 for p in range(a.num_players())]
            a.apply_actions(joint)
            b.apply_actions([space.to_full(k) if k >= 0 else -1 for k in joint])
        else:
            legal = a.legal_actions()
            assert [space.to_full(k) for k in legal] == b.legal_actions()
            k = rng.choice(legal)
            assert a.action_to_string(a.current_player(), k) == b.action_to_string(b.current_player(), space.to_full(k))
            a.apply_action(k)
            b.apply_action(space.to_full(k))
        assert a.engine.view(None) == b.engine.view(None)
    assert a.returns() == b.returns()
