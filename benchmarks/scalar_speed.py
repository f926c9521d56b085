"""The scalar engines' speed: uniformly random games through the public protocol, for all four
games, interleaved in one process with OpenSpiel's Euchre (one deal) in a plain pyspiel Python loop
and in its C++ loop.

    .venv/bin/python benchmarks/scalar_speed.py [--seconds S] [--rounds R] [--base DIR ...]

Each round plays every game for ``S`` seconds (and OpenSpiel's Euchre for ``S`` seconds in each of
its loops right after ours), so the machine's noise falls on all sides alike. Our loop is ``updown
bench``'s: every step goes through ``is_terminal``, ``is_chance``/``sample_chance``, ``actors``,
``legal_actions`` and ``apply``. pyspiel's Python loop is the plainest there is:
``random.choice(state.legal_actions())`` at chance nodes and decisions alike, then
``apply_action``. The C++ loop is ``pyspiel.evaluate_bots`` with four uniform random bots
(``make_uniform_random_bot``), a whole deal in C++ per call (as ``updown bench-batched`` runs it).

Time is this process's CPU time (``time.process_time``, read every ``CHECK_EVERY`` games in
the Python loops and every 100 deals in the C++ one), not the wall clock: on a shared machine
the wall clock also counts the time other processes hold the cores (at load averages of 8 to 16
on this 2-core machine, wall-clock rates were a third of CPU-time ones, and a run read the new
compiled Euchre at 1.00 times the old where CPU time gave 1.27), while every loop here is
single-threaded, OpenSpiel's C++ loop included.

``--base DIR`` also measures another checkout of the package (``DIR`` holds its ``updown``
folder, e.g. ``/work/main``); it may be given more than once (say a compiled copy of the code before
a change and a pure one). Each round then runs the same playouts with that code in a child process,
alternating with ours, and the table adds its figures and our ratio to them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from typing import Any

GAMES = ("euchre", "up-or-down", "updown", "updown-sueca")
CHECK_EVERY = 16
"""Games played between two readings of the CPU clock in the Python loops. ``time.process_time``
is a system call (about 0.9 us here, 4% of a compiled Euchre deal when read after every deal);
the C++ loop reads it once per 100 deals. The figures divide the games by the CPU time measured,
so a round's overrun past ``--seconds`` (under 16 games) does not bias them."""


def our_playouts(game_id: str, seconds: float, seed: int) -> tuple[int, float]:
    """(games, seconds) of uniformly random games, the loop of ``updown.bench.random_playouts``."""
    from updown.core.registry import get_game

    game = get_game(game_id)
    options = game.options(dict(game.bench_options))
    players = game.bench_players
    rng = random.Random(seed)
    choice = rng.choice
    games = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(CHECK_EVERY):
            state = game.new_state(players, options)
            while not state.is_terminal():
                if state.is_chance():
                    state.apply(state.sample_chance(rng))
                else:
                    seat = state.actors()[0]
                    state.apply(choice(state.legal_actions(seat)), seat)
        games += CHECK_EVERY
        if time.process_time() >= deadline:
            break
    return games, time.process_time() - start


def pyspiel_playouts(seconds: float, seed: int) -> tuple[int, float] | None:
    """(games, seconds) of one-deal Euchre through pyspiel's plain loop; None without open_spiel."""
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    game = pyspiel.load_game("euchre", {"stick_the_dealer": True, "allow_lone_defender": False})
    rng = random.Random(seed)
    choice = rng.choice
    games = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(CHECK_EVERY):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(choice(state.legal_actions()))
        games += CHECK_EVERY
        if time.process_time() >= deadline:
            break
    return games, time.process_time() - start


def cpp_playouts(seconds: float, seed: int) -> tuple[int, float] | None:
    """(games, seconds) of one-deal Euchre in OpenSpiel's C++ loop: ``evaluate_bots`` with four
    uniform random bots, 100 deals a call of this loop's; None without open_spiel."""
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    game = pyspiel.load_game("euchre", {"stick_the_dealer": True, "allow_lone_defender": False})
    bots = [pyspiel.make_uniform_random_bot(p, seed * 10 + p) for p in range(4)]
    evaluate = pyspiel.evaluate_bots
    games = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for k in range(100):
            evaluate(game.new_initial_state(), bots, seed * 1_000_003 + games + k)
        games += 100
        if time.process_time() >= deadline:
            break
    return games, time.process_time() - start


def one_round(seconds: float, seed: int, with_pyspiel: bool) -> dict[str, tuple[int, float]]:
    out: dict[str, tuple[int, float]] = {}
    for game_id in GAMES:
        out[game_id] = our_playouts(game_id, seconds, seed)
        if game_id == "euchre" and with_pyspiel:
            theirs = pyspiel_playouts(seconds, seed)
            if theirs is not None:
                out["pyspiel"] = theirs
            cpp = cpp_playouts(seconds, seed)
            if cpp is not None:
                out["cpp"] = cpp
    return out


def engines() -> str:
    """Whether the game modules loaded here are mypyc's extension modules (``make fast``) or not.

    Read from the modules themselves, not from ``updown.core.compiled``, which a base checkout may lack.
    """
    import importlib.machinery

    import updown.games  # noqa: F401

    compiled = sorted(
        name.rsplit(".", 1)[1]
        for name, module in list(sys.modules.items())
        if name.startswith("updown.games.")
        and str(getattr(module, "__file__", "")).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    )
    return f"engines: compiled (mypyc): {', '.join(compiled)}" if compiled else "engines: pure Python"


BASE_ENGINES: dict[str, list[str]] = {}  # what each base checkout's child processes ran


def base_round(base: str, seconds: float, seed: int) -> dict[str, tuple[int, float]]:
    """One round of the other checkout's engines, in a child process that imports them first."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(base))
    got = subprocess.run(
        [sys.executable, __file__, "--worker", "--seconds", str(seconds), "--seed", str(seed)],
        env=env, check=True, capture_output=True, text=True,
    )
    data = json.loads(got.stdout)
    expected = os.path.join(os.path.abspath(base), "updown")
    if not data["module"].startswith(expected):
        raise SystemExit(f"the child imported {data['module']}, not the code in {base}")
    seen = BASE_ENGINES.setdefault(base, [])
    if data["engines"] not in seen:
        seen.append(data["engines"])
    return {k: (v[0], v[1]) for k, v in data["figures"].items()}


def add(total: dict[str, list[float]], figures: dict[str, tuple[int, float]]) -> None:
    for key, (games, secs) in figures.items():
        entry = total.setdefault(key, [0.0, 0.0])
        entry[0] += games
        entry[1] += secs


def rate(total: dict[str, list[float]], key: str) -> float | None:
    entry = total.get(key)
    return entry[0] / entry[1] if entry else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per game per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base", action="append", default=[],
                        help="root of another checkout to compare with (its updown/ folder); may be repeated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        import updown

        one_round(args.seconds, args.seed, with_pyspiel=False)  # warm up, as the parent is warm
        figures = one_round(args.seconds, args.seed, with_pyspiel=False)
        print(json.dumps({"module": os.path.abspath(updown.__file__), "figures": figures, "engines": engines()}))
        return
    import updown

    ours: dict[str, list[float]] = {}
    bases: list[dict[str, list[float]]] = [{} for _ in args.base]
    one_round(min(args.seconds, 0.3), 0, with_pyspiel=True)  # warm up
    for r in range(args.rounds):
        seed = args.seed + r
        for base, total in zip(args.base, bases):
            add(total, base_round(base, args.seconds, seed))
        add(ours, one_round(args.seconds, seed, with_pyspiel=True))
    print(f"ours: {os.path.dirname(os.path.abspath(updown.__file__))} ({engines()})")
    for i, base in enumerate(args.base, 1):
        print(f"base{i}: {os.path.abspath(base)}/updown ({'; '.join(BASE_ENGINES[base])})")
    print(f"{args.rounds} rounds x {args.seconds:g} CPU s per loop, interleaved; games per CPU second (one deal "
          "of Euchre, one round of updown, whole games otherwise)")
    head = f"{'game':14} {'ours':>9}"
    for i in range(1, len(args.base) + 1):
        head += f" {f'base{i}':>9} {f'ours/base{i}':>11}"
    print(head)
    for game_id in GAMES:
        mine = rate(ours, game_id)
        assert mine is not None
        line = f"{game_id:14} {mine:9.0f}"
        for total in bases:
            theirs = rate(total, game_id)
            assert theirs is not None
            line += f" {theirs:9.0f} {mine / theirs:11.2f}"
        print(line)
    for key, name in (("pyspiel", "pyspiel Python loop"), ("cpp", "OpenSpiel C++ loop")):
        spiel = rate(ours, key)
        if spiel is None:
            continue
        mine = rate(ours, "euchre")
        assert mine is not None
        line = f"euchre against {name} ({spiel:.0f} deals/s): ours {mine / spiel:.2f}"
        for i, total in enumerate(bases, 1):
            theirs = rate(total, "euchre")
            assert theirs is not None
            line += f", base{i} {theirs / spiel:.2f}"
        print(line)
    if rate(ours, "pyspiel") is None:
        print("open_spiel is not installed: pip install open_spiel==2.0.2 for the comparison")


if __name__ == "__main__":
    main()
