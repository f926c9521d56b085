"""Decisions per second through the research adapters, against the plain protocol loop, the
vector environments and OpenSpiel's C++ Euchre, interleaved in one process; and the observation
encoders against their first version.

    nice -n 10 .venv/bin/python benchmarks/adapters_steps.py [SECONDS_PER_RUN] [ROUNDS]

A *decision* is one seat's action applied (chance outcomes are not counted), in every loop, so
the units agree; games/s is printed too. Every loop plays uniformly random legal actions:

* ``plain``: the protocol directly (``is_chance``/``sample_chance``, ``actors``,
  ``legal_actions``, ``apply``), no observation: the reference of the ratios.
* ``plain+view``: the same, asking ``view(seat)`` at each decision: what any observation must be
  built from (an agent sees nothing else), so the floor of an environment's cost.
* ``pz-aec``: ``updown.adapters.pettingzoo.env``: per decision ``last()`` (observation vector and
  mask from the view) and ``step``; chance is resolved inside ``step``.
* ``pz-aec-first``: the same with the first version of the encoders and the mask (kept in
  ``tests/test_adapters_encoders_reference.py``): what the speed-up of the encoders gives.
* ``pz-par``: the Parallel env (UP&DOWN): every seat's observation at every step.
* ``vec-scalar``, ``vec-batched``: ``updown.adapters.vector`` with 64 / 256 games (the batched
  backend: UP&DOWN); every game's observation and mask at every step.
* ``os-py``: ``updown.adapters.openspiel`` through pyspiel with no observation requested;
  ``os-py+obs``: asking the actor's ``observation_tensor`` at each decision (UP&DOWN through
  ``python_updown_turns``; the state's own method, one encoding straight into the list);
  ``os-py+view`` (Euchre): asking only the engine's ``view`` of the actor, no encoding: the
  bound of any tensor made from the seat's view;
  ``os-py+obs-c++`` (Euchre): the same list through OpenSpiel's C++ method for Python games
  (``pyspiel.State.observation_tensor(state, p)``, which also builds and encodes a new initial
  state at every call to learn the tensor's size); ``os-py+observer`` (Euchre): OpenSpiel's
  Python observation API (``make_observation``, ``set_from``; the vector is the observer's
  ``tensor``, written in place); ``pyspiel``: OpenSpiel's own C++ ``euchre`` (Euchre only), and
  ``pyspiel+obs`` the same asking its C++ ``information_state_tensor`` at each decision (it has no
  observation tensor; the adapter's two tensors are one vector): issue 34's peer for ``os-py+obs``.

Each (game, loop) runs ``ROUNDS`` times in turn, round-robin; medians are printed with the ratio
to ``plain`` and to ``plain+view``. Then each game's encoder (``Encoder.encode``, and
``encode_list``) is timed against its first version (kept in
``tests/test_adapters_encoders_reference.py``) and the version before issue 34's rewrite (kept in
``tests/test_encoder_identity.py``; both tests check the same vectors) on the same views,
interleaved, and the median speed-ups are printed.

Time is this process's CPU time (``time.process_time``), not the wall clock: on this shared
2-core machine the wall clock also counts the time other processes hold the cores, and every loop
here (pyspiel's C++ ones included) is single-threaded (as in ``benchmarks/scalar_speed.py``).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from updown.core.registry import get_game

Loop = Callable[[float], tuple[int, int, float]]  # seconds -> (games, decisions, elapsed)
clock = time.process_time


def plain_loop(game_id: str, players: int, options: dict[str, Any], view: bool = False) -> Loop:
    game = get_game(game_id)
    opts = game.options(options)
    rng = random.Random(1)
    choice = rng.choice

    def run(seconds: float) -> tuple[int, int, float]:
        games = decisions = 0
        start = clock()
        while True:
            state = game.new_state(players, opts)
            while not state.is_terminal():
                if state.is_chance():
                    state.apply(state.sample_chance(rng))
                    continue
                seat = state.actors()[0]
                if view:
                    state.view(seat)
                state.apply(choice(state.legal_actions(seat)), seat)
                decisions += 1
            games += 1
            if clock() - start >= seconds:
                return games, decisions, clock() - start
    return run


def pick(mask: np.ndarray, rng: random.Random) -> int:
    """A uniformly random legal id of ``mask`` (about 2 µs; ``Generator.choice`` costs 9)."""
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * len(legal))])


def first_encoder(encoder: Any) -> None:
    """Put the first version of the encoder and mask on ``encoder`` (for ``pz-aec-first``)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from test_adapters_encoders_reference import REFERENCE

    ref = REFERENCE[encoder.game.id](encoder.game, encoder.players, encoder.options)

    def mask(legal: Any) -> np.ndarray:
        m = np.zeros(encoder.num_actions, dtype=np.int8)
        m[list(legal)] = 1
        return m

    encoder.encode = ref.encode
    encoder.mask = mask


def pz_aec_loop(game_id: str, players: int, options: dict[str, Any], first: bool = False) -> Loop:
    from updown.adapters.pettingzoo import env

    e = env(game_id, players, options=options)
    if first:
        first_encoder(e._core.encoder)
    rng = random.Random(1)

    def run(seconds: float) -> tuple[int, int, float]:
        games = decisions = 0
        start = clock()
        while True:
            e.reset(seed=games)
            for _agent in e.agent_iter():
                obs, _r, term, trunc, _ = e.last()
                e.step(None if term or trunc else pick(obs["action_mask"], rng))
            decisions += sum(1 for seat, _ in e.history if seat is not None)
            games += 1
            if clock() - start >= seconds:
                return games, decisions, clock() - start
    return run


def pz_parallel_loop(game_id: str, players: int, options: dict[str, Any]) -> Loop:
    from updown.adapters.pettingzoo import parallel_env

    p = parallel_env(game_id, players, options=options)
    rng = random.Random(1)

    def run(seconds: float) -> tuple[int, int, float]:
        games = decisions = 0
        start = clock()
        while True:
            obs, _ = p.reset(seed=games)
            while p.agents:
                obs, *_ = p.step({a: pick(obs[a]["action_mask"], rng) for a in p.agents})
            decisions += sum(1 for seat, _ in p.history if seat is not None)
            games += 1
            if clock() - start >= seconds:
                return games, decisions, clock() - start
    return run


def vector_loop(game_id: str, players: int, options: dict[str, Any], num_envs: int, backend: str) -> Loop:
    from updown.adapters.vector import vector_env

    v = vector_env(game_id, players, num_envs, options=options, seed=1, backend=backend)
    rng = np.random.default_rng(1)
    _obs, info = v.reset()

    def run(seconds: float) -> tuple[int, int, float]:
        nonlocal info
        games = decisions = 0
        start = clock()
        while True:
            mask = info["action_mask"]
            _obs, _r, terminated, _t, info = v.step((rng.random(mask.shape) * mask).argmax(axis=1))
            decisions += num_envs
            games += int(terminated.sum())
            if clock() - start >= seconds:
                return games, decisions, clock() - start
    return run


def spiel_loop(load: Callable[[], Any], observe: bool = False, tensor: str = "observation_tensor",
               via: str = "state") -> Loop:
    """``observe``: ask the actor's ``tensor`` at each decision (OpenSpiel's C++ Euchre has only
    ``information_state_tensor``; the adapter's two tensors are the same vector). ``via``:
    ``state`` calls ``state.<tensor>(player)`` (for the adapter, its own method), ``c++`` calls
    pyspiel's C++ method on the same state (``pyspiel.State.observation_tensor``: OpenSpiel's
    path for a Python game, through the observer), ``observer`` OpenSpiel's Python observation
    API (``make_observation(game)``, ``set_from``, then the ``tensor`` array, no copy), ``view``
    the engine's ``view`` of the actor alone (no tensor)."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    game = load()
    rng = random.Random(1)
    choice = rng.choice
    observer = make_observation(game) if via == "observer" else None

    def run(seconds: float) -> tuple[int, int, float]:
        games = decisions = 0
        start = clock()
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(choice(state.chance_outcomes())[0])
                else:
                    if observer is not None:
                        observer.set_from(state, state.current_player())
                    elif via == "view":
                        state.engine.view(state.current_player())
                    elif via == "c++":
                        getattr(pyspiel.State, tensor)(state, state.current_player())
                    elif observe:
                        getattr(state, tensor)(state.current_player())
                    state.apply_action(choice(state.legal_actions()))
                    decisions += 1
            games += 1
            if clock() - start >= seconds:
                return games, decisions, clock() - start
    return run


def encoder_pairs(seconds: float, rounds: int) -> None:
    """Each game's encoder against its first version and the version of 6bf338c (before the
    rewrite of issue 34), on the same views, interleaved."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from test_adapters_encoders_reference import REFERENCE
    from test_encoder_identity import REFERENCE as REFERENCE_6BF338C

    from updown.adapters.observations import encoder_for

    print(f"\nobservation encoders on the same views, {rounds} interleaved rounds; medians")
    for game_id, players, options in (("euchre", 4, {"deals": 1}), ("updown", 4, {"rounds": 1}),
                                      ("updown-sueca", 4, {}), ("up-or-down", 4, {})):
        game = get_game(game_id)
        enc = encoder_for(game, players, options)
        ref = REFERENCE[game_id](game, players, enc.options)
        before = REFERENCE_6BF338C[game_id](game, players, enc.options)
        rng = random.Random(1)
        views = []
        while len(views) < 2000:
            state = game.new_state(players, enc.options)
            while not state.is_terminal():
                if state.is_chance():
                    state.apply(state.sample_chance(rng))
                    continue
                seat = state.actors()[0]
                views.append(state.view(seat))
                state.apply(rng.choice(state.legal_actions(seat)), seat)
        times: dict[str, list[float]] = {"first": [], "6bf338c": [], "now": [], "now-list": []}
        for _ in range(rounds):
            for name, encode in (("first", ref.encode), ("6bf338c", before.encode), ("now", enc.encode),
                                 ("now-list", enc.encode_list)):
                start, done = clock(), 0
                while clock() - start < seconds / 2:
                    for view in views[:200]:
                        encode(view)
                    done += 200
                times[name].append((clock() - start) / done * 1e6)
        med = {k: statistics.median(v) for k, v in times.items()}
        ratios = [a / b for a, b in zip(times["first"], times["now"])]
        since = [a / b for a, b in zip(times["6bf338c"], times["now"])]
        print(f"  {game_id:13s} per view: first version {med['first']:5.1f} µs, 6bf338c {med['6bf338c']:5.1f} µs, "
              f"now {med['now']:5.1f} µs (as a list {med['now-list']:5.1f} µs): "
              f"{statistics.median(ratios):.2f}x the first (rounds {min(ratios):.2f}-{max(ratios):.2f}), "
              f"{statistics.median(since):.2f}x 6bf338c (rounds {min(since):.2f}-{max(since):.2f})")


def main(seconds: float = 1.0, rounds: int = 5) -> None:
    import pyspiel

    from updown.adapters import openspiel as uo

    euchre_peer_name, euchre_peer_params = get_game("euchre").openspiel_peer  # type: ignore[misc]
    setups: list[tuple[str, dict[str, Loop]]] = [
        ("euchre, 4 players, one deal", {
            "plain": plain_loop("euchre", 4, {"deals": 1}),
            "plain+view": plain_loop("euchre", 4, {"deals": 1}, view=True),
            "pz-aec": pz_aec_loop("euchre", 4, {"deals": 1}),
            "pz-aec-first": pz_aec_loop("euchre", 4, {"deals": 1}, first=True),
            "vec-scalar": vector_loop("euchre", 4, {"deals": 1}, 64, "scalar"),
            "os-py": spiel_loop(lambda: uo.load("euchre", 4, deals=1)),
            "os-py+obs": spiel_loop(lambda: uo.load("euchre", 4, deals=1), observe=True),
            "os-py+view": spiel_loop(lambda: uo.load("euchre", 4, deals=1), via="view"),
            "os-py+obs-c++": spiel_loop(lambda: uo.load("euchre", 4, deals=1), observe=True, via="c++"),
            "os-py+observer": spiel_loop(lambda: uo.load("euchre", 4, deals=1), via="observer"),
            "pyspiel": spiel_loop(lambda: pyspiel.load_game(euchre_peer_name, euchre_peer_params)),
            "pyspiel+obs": spiel_loop(lambda: pyspiel.load_game(euchre_peer_name, euchre_peer_params), observe=True,
                                      tensor="information_state_tensor"),
        }),
        ("updown, 4 players, one round", {
            "plain": plain_loop("updown", 4, {"rounds": 1}),
            "plain+view": plain_loop("updown", 4, {"rounds": 1}, view=True),
            "pz-aec": pz_aec_loop("updown", 4, {"rounds": 1}),
            "pz-aec-first": pz_aec_loop("updown", 4, {"rounds": 1}, first=True),
            "pz-par": pz_parallel_loop("updown", 4, {"rounds": 1}),
            "vec-scalar": vector_loop("updown", 4, {"rounds": 1}, 64, "scalar"),
            "vec-batched": vector_loop("updown", 4, {"rounds": 1}, 256, "batched"),
            "os-py": spiel_loop(lambda: uo.load("updown", 4, rounds=1)),
            "os-py+obs": spiel_loop(lambda: uo.load("updown", 4, turns=True, rounds=1), observe=True),
        }),
        ("updown-sueca, 4 players", {
            "plain": plain_loop("updown-sueca", 4, {}),
            "plain+view": plain_loop("updown-sueca", 4, {}, view=True),
            "pz-aec": pz_aec_loop("updown-sueca", 4, {}),
            "pz-aec-first": pz_aec_loop("updown-sueca", 4, {}, first=True),
        }),
        ("up-or-down, 4 players", {
            "plain": plain_loop("up-or-down", 4, {}),
            "plain+view": plain_loop("up-or-down", 4, {}, view=True),
            "pz-aec": pz_aec_loop("up-or-down", 4, {}),
            "pz-aec-first": pz_aec_loop("up-or-down", 4, {}, first=True),
        }),
    ]
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(rounds):
        for title, loops in setups:
            for name, loop in loops.items():
                games, decisions, elapsed = loop(seconds)
                results.setdefault((title, name), []).append((decisions / elapsed, games / elapsed))
    print(f"{seconds:g} s per run, {rounds} rounds interleaved; medians; ratios of decisions/s")
    for title, loops in setups:
        print(f"\n{title}")
        print(f"  {'loop':12s} {'decisions/s':>12s} {'games/s':>10s}   {'/ plain':>8s} {'/ plain+view':>13s}")
        base = statistics.median(d for d, _ in results[(title, "plain")])
        viewed = statistics.median(d for d, _ in results[(title, "plain+view")])
        for name in loops:
            dps = statistics.median(d for d, _ in results[(title, name)])
            gps = statistics.median(g for _, g in results[(title, name)])
            print(f"  {name:12s} {dps:12,.0f} {gps:10,.1f}   {dps / base:8.3f} {dps / viewed:13.3f}")
    encoder_pairs(seconds, rounds)


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:2]), *(int(a) for a in sys.argv[2:3]))
