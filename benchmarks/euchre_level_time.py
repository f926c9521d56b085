"""Whether a Euchre level keeps its time at its own budget: wall-clock time per decision.

    .venv/bin/python benchmarks/euchre_level_time.py [LEVEL ...] [--positions N] [--seed S]

Positions: ``N`` (300) decisions with a choice from greedy single deals (seeded, as in
``euchre_load.py``). Each LEVEL (``normal`` and ``hard`` by default; ``normal:key=value`` as in
``bots_strength.py``, one class per name, so what a level learns per class is shared) decides at
every position with its own budget and the wall clock, as users get it, the levels interleaved
position by position after a first pass over 30 positions that only lets them learn their stretch
and batch cost model. The report gives per level the decision times (p50, p90, p99, max, in ms),
how many decisions took longer than the level's ``ceiling`` (its promise: ``normal`` 100 ms,
``hard`` 1 s), the worlds used (p10, p50, p90) and the load average at the start and the end, and
names the engine module imported (compiled or pure).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from updown.core.registry import get_game

GAME = get_game("euchre")


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="Whether the Euchre levels keep their time at their own budgets.")
    parser.add_argument("levels", nargs="*", default=["normal", "hard"])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=3)
    opts = parser.parse_args(argv)
    specs = opts.levels
    import updown.games.euchre as engine

    print(f"euchre levels at their own budget (wall clock): {opts.positions} positions; engine "
          f"{engine.__file__}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    positions = _load("euchre_load").positions(opts.positions, seed=opts.seed)
    strength = _load("bots_strength")
    classes: dict[str, type] = {}

    def bot(spec: str, seat: int, rng: random.Random) -> Any:
        if spec not in classes:
            classes[spec] = type(strength._bot(spec, GAME, seat, random.Random(0)))
        return classes[spec](GAME, seat, rng)

    rows: dict[str, list[tuple[float, int]]] = {s: [] for s in specs}
    warm = positions[:30]
    for learn, batch in ((True, warm), (False, positions)):
        for i, (st, seat) in enumerate(batch):
            legal = st.legal_actions(seat)
            for spec in specs:
                b = bot(spec, seat, random.Random(i))
                t = time.perf_counter()
                b.act(st.view(seat), legal)
                took = time.perf_counter() - t
                if not learn:
                    rows[spec].append((1000 * took, b.used))
    for spec in specs:
        times = sorted(r[0] for r in rows[spec])
        worlds = sorted(r[1] for r in rows[spec])
        q = statistics.quantiles(times, n=100, method="inclusive")
        w = statistics.quantiles(worlds, n=10, method="inclusive")
        ceiling = getattr(classes[spec], "ceiling", None)
        over = sum(t > ceiling for t in times) if ceiling is not None else 0
        print(f"  {spec}: ms p50 {q[49]:.1f} p90 {q[89]:.1f} p99 {q[98]:.1f} max {times[-1]:.1f}; over its ceiling "
              f"({ceiling} ms) {over} of {len(times)}; worlds p10 {w[0]:.0f} p50 {w[4]:.0f} p90 {w[8]:.0f}", flush=True)
    print(f"  load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
