"""Environment steps per second through the research adapters, against the engine's own random
playouts and OpenSpiel's C++ Euchre through pyspiel, interleaved in one process.

    .venv/bin/python benchmarks/adapters_steps.py [SECONDS_PER_RUN] [ROUNDS]

A *step* is one chance outcome or one action applied, in every loop (so the units agree); games/s
is printed too. Every loop plays uniformly random legal actions and draws chance uniformly:

* ``engine``: ``updown.bench.random_playouts`` (the protocol directly: apply, legal_actions).
* ``pz-aec``: ``updown.adapters.pettingzoo.env``: per decision ``last()`` (observation vector
  and mask from the view) and ``step``; chance is resolved inside ``step``.
* ``pz-par``: the Parallel env (UP&DOWN): every seat's observation at every step.
* ``os-py``: ``updown.adapters.openspiel`` through pyspiel, ``apply_action`` with a random legal
  action and no observation requested (OpenSpiel's own loop).
* ``os-py+obs``: the same, asking the actor's ``observation_tensor`` at each decision (for
  UP&DOWN through ``python_updown_turns``: a simultaneous node has no single actor to observe;
  ``os-py`` plays ``python_updown``, whose simultaneous node takes a flat joint action).
* ``pyspiel``: OpenSpiel's own C++ ``euchre``, the same loop as ``os-py`` (Euchre only).

Each (game, loop) is run ``ROUNDS`` times in turn, round-robin, and the median is printed, with
the ratio to the engine's median.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from updown.bench import random_playouts
from updown.core.registry import get_game

Loop = Callable[[float], tuple[int, int, float]]  # seconds -> (games, steps, elapsed)


def engine_loop(game_id: str, players: int, options: dict[str, Any]) -> Loop:
    game = get_game(game_id)

    def run(seconds: float) -> tuple[int, int, float]:
        r = random_playouts(game, players, game.options(options), seconds, seed=1)
        return r.games, r.steps, r.seconds
    return run


def pz_aec_loop(game_id: str, players: int, options: dict[str, Any]) -> Loop:
    from updown.adapters.pettingzoo import env

    e = env(game_id, players, options=options)
    rng = np.random.default_rng(1)

    def run(seconds: float) -> tuple[int, int, float]:
        games = steps = 0
        start = time.perf_counter()
        while True:
            e.reset(seed=games)
            for agent in e.agent_iter():
                obs, _r, term, trunc, _ = e.last()
                e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += len(e.history)
            games += 1
            if time.perf_counter() - start >= seconds:
                return games, steps, time.perf_counter() - start
    return run


def pz_parallel_loop(game_id: str, players: int, options: dict[str, Any]) -> Loop:
    from updown.adapters.pettingzoo import parallel_env

    p = parallel_env(game_id, players, options=options)
    rng = np.random.default_rng(1)

    def run(seconds: float) -> tuple[int, int, float]:
        games = steps = 0
        start = time.perf_counter()
        while True:
            obs, _ = p.reset(seed=games)
            while p.agents:
                obs, *_ = p.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in p.agents})
            steps += len(p.history)
            games += 1
            if time.perf_counter() - start >= seconds:
                return games, steps, time.perf_counter() - start
    return run


def spiel_loop(load: Callable[[], Any], observe: bool = False) -> Loop:
    game = load()
    rng = random.Random(1)
    choice = rng.choice

    def run(seconds: float) -> tuple[int, int, float]:
        games = steps = 0
        start = time.perf_counter()
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(choice(state.chance_outcomes())[0])
                else:
                    if observe:
                        state.observation_tensor(state.current_player())
                    state.apply_action(choice(state.legal_actions()))
            steps += len(state.history())
            games += 1
            if time.perf_counter() - start >= seconds:
                return games, steps, time.perf_counter() - start
    return run


def main(seconds: float = 1.5, rounds: int = 3) -> None:
    import pyspiel

    from updown.adapters import openspiel as uo

    euchre_peer_name, euchre_peer_params = get_game("euchre").openspiel_peer  # type: ignore[misc]
    setups: list[tuple[str, dict[str, Loop]]] = [
        ("euchre, 4 players, one deal", {
            "engine": engine_loop("euchre", 4, {"deals": 1}),
            "pz-aec": pz_aec_loop("euchre", 4, {"deals": 1}),
            "os-py": spiel_loop(lambda: uo.load("euchre", 4, deals=1)),
            "os-py+obs": spiel_loop(lambda: uo.load("euchre", 4, deals=1), observe=True),
            "pyspiel": spiel_loop(lambda: pyspiel.load_game(euchre_peer_name, euchre_peer_params)),
        }),
        ("updown, 4 players, one round", {
            "engine": engine_loop("updown", 4, {"rounds": 1}),
            "pz-aec": pz_aec_loop("updown", 4, {"rounds": 1}),
            "pz-par": pz_parallel_loop("updown", 4, {"rounds": 1}),
            "os-py": spiel_loop(lambda: uo.load("updown", 4, rounds=1)),
            "os-py+obs": spiel_loop(lambda: uo.load("updown", 4, turns=True, rounds=1), observe=True),
        }),
    ]
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for r in range(rounds):
        for title, loops in setups:
            for name, loop in loops.items():
                games, steps, elapsed = loop(seconds)
                results.setdefault((title, name), []).append((steps / elapsed, games / elapsed))
    print(f"{seconds:g} s per run, {rounds} rounds interleaved; medians; ratio = steps/s over the engine's")
    for title, loops in setups:
        print(f"\n{title}")
        base = statistics.median(s for s, _ in results[(title, "engine")])
        for name in loops:
            sps = statistics.median(s for s, _ in results[(title, name)])
            gps = statistics.median(g for _, g in results[(title, name)])
            print(f"  {name:10s} {sps:11,.0f} steps/s {gps:9,.1f} games/s   ratio {sps / base:6.3f}")


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:2]), *(int(a) for a in sys.argv[2:3]))
