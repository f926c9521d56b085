"""What a Euchre level's playouts cost a decision: CPU time of one batch, loading and all.

    .venv/bin/python -P benchmarks/euchre_batch_cost.py [POSITIONS] [--worlds N] [--rounds R] [--profile]
        [--rules greedy,smart]

Positions: ``POSITIONS`` (150) decisions with a choice from greedy single deals (seeded, as in
``euchre_load.py``). At each, ``N`` worlds (100) are drawn from the seat's view; then, ``R``
rounds (2): every position's playouts as the levels run them (``endgame_margins(worlds, seat,
legal, 0, view=view)``: the worlds loaded with the decision's view, each once per legal action,
the deal played out by the batched greedy rule), and the loading alone
(``BatchedEuchre.from_states(worlds, view=view)``). The worlds are drawn afresh (untimed) before
each measurement, since a world's first views cost more than later ones, as in a decision. Times
are CPU seconds of this process (``time.process_time``), so the machine's load counts less; the
report gives the mean per decision of each round and names the engine module imported (run it
with a clone's directory first on ``sys.path`` to measure that clone: ``PYTHONPATH=$d python -P
$d/benchmarks/...``). With ``--profile``, a cProfile of one more round (the 25 functions with the
most time of their own). Compare two trees by running it in each, alternately. ``--rules
greedy,smart``: each round measures the playouts once per playout rule (``BatchedEuchre.rule``),
in that order, on the same worlds drawn afresh for each (the first rule alone by default).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import os
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from updown.batched.euchre import BatchedEuchre
from updown.bots.euchre_endgame import endgame_margins
from updown.core.registry import get_game

GAME = get_game("euchre")


def _positions(count: int) -> list[tuple[Any, int]]:
    spec = importlib.util.spec_from_file_location("euchre_load", Path(__file__).with_name("euchre_load.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.positions(count)  # type: ignore[no-any-return]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="A Euchre decision's batched playouts in CPU time.")
    parser.add_argument("positions", nargs="?", type=int, default=150)
    parser.add_argument("--worlds", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", action="store_true", help="a cProfile of one more round")
    parser.add_argument("--rules", default="greedy", help="the playout rules to measure, comma-separated")
    opts = parser.parse_args(argv)
    rules = opts.rules.split(",")
    for rule in rules:
        if rule not in ("greedy", "smart"):
            parser.error(f"a playout rule is greedy or smart, not {rule!r}")
    count, worlds, rounds, profile = opts.positions, opts.worlds, opts.rounds, opts.profile
    import updown.games.euchre as engine

    print(f"euchre batch cost: {count} positions, {worlds} worlds; engine {engine.__file__}; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    data = []
    for st, seat in _positions(count):
        view = st.view(seat)
        data.append((view, seat, st.legal_actions(seat), GAME.world_sampler(view)))

    def drawn(r: int) -> list[list[Any]]:
        sets = []
        for i, (_, _, _, sampler) in enumerate(data):
            rng = random.Random(r * 100_003 + i)
            sets.append([sampler.draw(rng) for _ in range(worlds)])
        return sets

    def playouts(sets: list[list[Any]], rule: str = rules[0]) -> None:
        for (view, seat, legal, _), w in zip(data, sets):
            endgame_margins(w, seat, legal, 0, rng=np.random.default_rng(1), view=view, rule=rule)

    def loading(sets: list[list[Any]]) -> None:
        for (view, _, _, _), w in zip(data, sets):
            BatchedEuchre.from_states(w, rng=np.random.default_rng(1), view=view)

    for r in range(rounds):
        for rule in rules[1:]:
            sets = drawn(r)
            t = time.process_time()
            playouts(sets, rule)
            print(f"  round {r + 1}, rule {rule}: a decision's playouts "
                  f"{1000 * (time.process_time() - t) / count:.2f} ms of CPU", flush=True)
        sets = drawn(r)
        t = time.process_time()
        playouts(sets)
        a = time.process_time() - t
        sets = drawn(r)
        t = time.process_time()
        loading(sets)
        b = time.process_time() - t
        print(f"  round {r + 1}, rule {rules[0]}: a decision's playouts {1000 * a / count:.2f} ms of CPU, of which loading "
              f"{1000 * b / count:.2f} ms (load average {os.getloadavg()[0]:.2f})", flush=True)
    if profile:
        prof = cProfile.Profile()
        prof.runcall(playouts, drawn(rounds))
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main(sys.argv[1:])
