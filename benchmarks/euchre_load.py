"""What loading worlds into a batch costs in a Euchre decision, before and after the one-pass loader.

    .venv/bin/python benchmarks/euchre_load.py [POSITIONS] [--worlds N] [--rounds R]

Positions: decisions with a choice from greedy single deals (seeded). At each, ``N`` worlds (60) are
drawn from the seat's view, then, interleaved position by position and ``R`` rounds (3):

* loading: the old loader (kept in ``tests/test_batched_euchre_load.py``: one spectator and four
  seat views a world, numpy set element by element), ``BatchedEuchre.from_states`` (four seat
  views a world, each array set once) and ``from_states(..., view=)`` (the public state and the
  seat's hand read once from its view; three seat views a world);
* a whole ``normal`` decision with ``N`` worlds and no clock: its playouts through ``deal_values``
  (the old loading) against through the view (the new).

Fresh worlds are drawn for every measurement (a world's first views cost more than later ones).
Times are CPU seconds of this process (``time.process_time``), so the machine's load counts less.
The report names the engine module imported (compiled or pure).
"""

from __future__ import annotations

import importlib.util
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

from updown.batched.euchre import BatchedEuchre
from updown.bots import make_bot
from updown.bots.euchre_greedy import EuchreNormal
from updown.bots.pimc import PimcBot
from updown.core.registry import get_game

GAME = get_game("euchre")


def _old_loader() -> Callable[[list[Any], int], Any]:
    path = Path(__file__).resolve().parent.parent / "tests" / "test_batched_euchre_load.py"
    spec = importlib.util.spec_from_file_location("test_batched_euchre_load", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._old_batch  # type: ignore[no-any-return]


class OldNormal(EuchreNormal):
    """``normal`` with the playouts it had before: ``deal_values``, worlds loaded one by one."""

    def batch_values(self, sampler: Any, n: int, legal: Any) -> tuple[Any, Any]:
        return PimcBot.batch_values(self, sampler, n, legal)


def positions(count: int, seed: int = 1) -> list[tuple[Any, int]]:
    rng = random.Random(seed)
    out: list[tuple[Any, int]] = []
    opts = GAME.options({"deals": 1})
    while len(out) < count:
        st = GAME.new_state(4, opts)
        bots = [make_bot("greedy", GAME, s, random.Random(rng.getrandbits(32))) for s in range(4)]
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            s = st.actors()[0]
            legal = st.legal_actions(s)
            if len(legal) > 1:
                out.append((st.clone(), s))
            st.apply(bots[s].act(st.view(s), legal), s)
    return out[:count]


def main(argv: list[str]) -> None:
    args = list(argv)
    flags = {"--worlds": "60", "--rounds": "3"}
    for flag in list(flags):
        if flag in args:
            i = args.index(flag)
            flags[flag] = args[i + 1]
            del args[i:i + 2]
    count = int(args[0]) if args else 150
    worlds, rounds = int(flags["--worlds"]), int(flags["--rounds"])
    import updown.games.euchre as engine

    print(f"euchre loading: {count} positions, {worlds} worlds, {rounds} rounds; engine {engine.__file__}; "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    old_batch = _old_loader()
    pos = positions(count)
    cost: dict[str, list[float]] = {k: [] for k in ("old", "states", "view", "decision old", "decision new")}
    for r in range(rounds):
        for i, (st, seat) in enumerate(pos):
            view = st.view(seat)
            sampler = GAME.world_sampler(view)
            rng = random.Random(r * 100_003 + i)
            for name in ("old", "states", "view"):
                drawn = [sampler.draw(rng) for _ in range(worlds)]
                t = time.process_time()
                if name == "old":
                    old_batch(drawn, 1)
                elif name == "states":
                    BatchedEuchre.from_states(drawn, seed=1)
                else:
                    BatchedEuchre.from_states(drawn, seed=1, view=view)
                cost[name].append(time.process_time() - t)
            legal = st.legal_actions(seat)
            for name, cls in (("decision old", OldNormal), ("decision new", EuchreNormal)):
                bot = cls(GAME, seat, random.Random(i))
                bot.milliseconds = None  # type: ignore[assignment]  # no clock: fixed worlds
                bot.worlds = worlds
                t = time.process_time()
                bot.act(view, legal)
                cost[name].append(time.process_time() - t)
    for name, xs in cost.items():
        print(f"  {name:13s} mean {1000 * statistics.fmean(xs):6.2f} ms, median {1000 * statistics.median(xs):6.2f} ms "
              f"({len(xs)} measurements)")
    o, v = statistics.fmean(cost["old"]), statistics.fmean(cost["view"])
    do, dn = statistics.fmean(cost["decision old"]), statistics.fmean(cost["decision new"])
    print(f"  loading with the view: {v / o:.2f} of the old loading; a decision: {dn / do:.2f} of before "
          f"({1000 * (do - dn):.2f} ms saved of {1000 * do:.2f}); load average {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
