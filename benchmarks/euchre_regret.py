"""How well a Euchre ``pimc`` level uses a time budget: its choices' regret at equal CPU time.

    .venv/bin/python benchmarks/euchre_regret.py MS BOT [BOT ...] [--positions N] [--reference W]
        [--rounds R] [--seed S]

Positions: ``N`` (240) decisions with a choice from greedy single deals (seeded). At each, a
reference: every legal action's mean margin over ``W`` (1,500) worlds drawn from the seat's view,
played on by the batched greedy rule (the level's own objective, with about 1/sqrt(W) of the
noise of a decision's estimate). Each BOT (``normal``, or ``normal:key=value,...`` as in
``bots_strength.py``; one class per name for the run, so what a level learns per class is
shared) then decides at every position with a budget of ``MS`` milliseconds, ``R`` (3) rounds,
the bots interleaved position by position; the first round only lets the levels learn their
stretch and batch cost model. The bots' clock is this process's CPU time
(``time.process_time`` in place of ``perf_counter`` in ``updown.bots.pimc`` and
``updown.bots.euchre_greedy``), so the machine's load counts far less than with the wall clock.

A choice's regret is the reference's best mean less the reference mean of the action chosen. The
report gives per BOT the decision times (CPU ms: p50, p90, mean), the worlds used, the share of
decisions a ``settle`` rule ended, the mean regret with its standard error, and the mean regret
less the first BOT's, paired position by position and round by round, with its standard error.
The report names the engine module imported (compiled or pure).
"""

from __future__ import annotations

import importlib.util
import os
import random
import statistics
import sys
import time
import types
from pathlib import Path
from typing import Any

import numpy as np

import updown.bots.euchre_greedy as level
import updown.bots.pimc as pimc
from updown.bots.euchre_endgame import endgame_margins
from updown.core.registry import get_game

GAME = get_game("euchre")


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> None:
    args = list(argv)
    flags = {"--positions": "240", "--reference": "1500", "--rounds": "3", "--seed": "5"}
    for flag in list(flags):
        if flag in args:
            i = args.index(flag)
            flags[flag] = args[i + 1]
            del args[i:i + 2]
    if len(args) < 2:
        raise SystemExit(__doc__.split("\n\n")[1] if __doc__ else "usage: MS BOT [BOT ...]")
    ms, specs = float(args[0]), args[1:]
    count, reference, rounds = int(flags["--positions"]), int(flags["--reference"]), int(flags["--rounds"])
    import updown.games.euchre as engine

    print(f"euchre regret at {ms} ms of CPU time: {count} positions, reference {reference} worlds, "
          f"{rounds} rounds (the first to learn); engine {engine.__file__}; load average {os.getloadavg()[0]:.2f}",
          flush=True)
    clock = types.SimpleNamespace(perf_counter=time.process_time)
    level.time = clock  # type: ignore[assignment]
    pimc.time = clock  # type: ignore[assignment]
    positions = _load("euchre_load").positions(count, seed=int(flags["--seed"]))
    strength = _load("bots_strength")
    classes: dict[str, type] = {}

    def bot(spec: str, seat: int, rng: random.Random) -> Any:
        if spec not in classes:
            classes[spec] = type(strength._bot(spec, GAME, seat, random.Random(0)))
        return classes[spec](GAME, seat, rng)

    np_rng = np.random.default_rng(2)
    truth = []
    for i, (st, seat) in enumerate(positions):
        view = st.view(seat)
        sampler = GAME.world_sampler(view)
        r = random.Random(10_000 + i)
        m = endgame_margins([sampler.draw(r) for _ in range(reference)], seat, st.legal_actions(seat), 0,
                            rng=np_rng, view=view)
        truth.append(m.mean(axis=0))
    rows: dict[str, list[tuple[float, int, bool, float]]] = {s: [] for s in specs}
    for rnd in range(rounds):
        for i, (st, seat) in enumerate(positions):
            legal = st.legal_actions(seat)
            for spec in specs:
                b = bot(spec, seat, random.Random(rnd * 100_003 + i))
                b.milliseconds = ms
                t = time.process_time()
                a = b.act(st.view(seat), legal)
                took = time.process_time() - t
                if rnd > 0:
                    rows[spec].append((1000 * took, b.used, bool(getattr(b, "settled", False)),
                                       float(truth[i].max() - truth[i][legal.index(a)])))
    base = [r[3] for r in rows[specs[0]]]
    for spec in specs:
        xs = rows[spec]
        times = [r[0] for r in xs]
        q = statistics.quantiles(times, n=10, method="inclusive")
        regret = [r[3] for r in xs]
        se = statistics.stdev(regret) / len(regret) ** 0.5
        diff = [a - b for a, b in zip(regret, base)]
        dse = statistics.stdev(diff) / len(diff) ** 0.5 if spec != specs[0] else 0.0
        print(f"  {spec}: CPU ms p50 {q[4]:.1f} p90 {q[8]:.1f} mean {statistics.fmean(times):.1f}; worlds p50 "
              f"{statistics.median(r[1] for r in xs):.0f} mean {statistics.fmean(r[1] for r in xs):.0f}; settled "
              f"{statistics.fmean(r[2] for r in xs):.2f}; regret {statistics.fmean(regret):.4f} ± {se:.4f}, less "
              f"{specs[0]}'s {statistics.fmean(diff):+.4f} ± {dse:.4f}", flush=True)
    print(f"  load average {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
