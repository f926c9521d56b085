"""The batched Euchre playout rules as players: ``smart`` (the ``greedy`` bot's choices) against
``greedy`` (the engine's simple rule), partners against partners, on duplicate single deals.

    .venv/bin/python -P benchmarks/euchre_rule_duel.py [DEALS] [--seed S]

``--make 7.5 6 5.5``: the smart rule's bid thresholds to try (``BatchedEuchre.make``). Three ways
for each: the smart side plays the smart rule at every decision (``all``), at its bids and
discard only (``bids``, the simple rule in the tricks), or in the tricks only (``play``).

Each of ``DEALS`` (20,000) single deals is played twice from the same cards and dealer (a batch
built with the same seed deals alike): once with ``smart`` in seats 0 and 2, once with it in seats
1 and 3. A deal's figure is ``smart``'s side's points less the other side's, the mean of its two
seatings; the report gives the mean, its 95% interval and how often each side made trump, which
says how much better a model of a table the smart rule is than the simple one (issue 33, tenth
pass).
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from updown.batched.euchre import BID1, BID2, DISCARD, PLAY, BatchedEuchre


PARTS = {"all": (BID1, BID2, DISCARD, PLAY), "bids": (BID1, BID2, DISCARD), "play": (PLAY,)}
"""The phases where the smart side plays the smart rule (elsewhere the simple one)."""


def _play(n: int, seed: int, smart_team: int, part: str, make: float = 7.5) -> tuple[np.ndarray, np.ndarray]:
    b = BatchedEuchre(n, seed, {"deals": 1})
    b.make = make
    phases = np.array(PARTS[part])
    while not b.all_done():
        smart = b.smart_actions()
        simple = b.greedy_actions()
        b.step(np.where(((b.turn & 1) == smart_team) & np.isin(b.phase, phases), smart, simple))
    t = b.totals.reshape(-1, 2)
    diff = (t[:, smart_team] - t[:, 1 - smart_team]).astype(np.float64)
    return diff, b.maker.copy()


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="The smart playout rule against the simple one, duplicate deals.")
    parser.add_argument("deals", nargs="?", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--make", type=float, nargs="*", default=[7.5],
                        help="the smart rule's bid thresholds to try (BatchedEuchre.make)")
    opts = parser.parse_args(argv)
    for make, part in [(mk, p) for mk in opts.make for p in PARTS]:
        (d0, m0), (d1, m1) = _play(opts.deals, opts.seed, 0, part, make), _play(opts.deals, opts.seed, 1, part, make)
        d = (d0 + d1) / 2
        m, se = float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d)))
        made = (float(((m0 >= 0) & ((m0 & 1) == 0)).mean()) + float(((m1 >= 0) & ((m1 & 1) == 1)).mean())) / 2
        print(f"smart ({part}, make {make}) less greedy (the simple rule), {len(d)} duplicate single deals, seed {opts.seed}: "
              f"{m:+.3f} [{m - 1.96 * se:+.3f}, {m + 1.96 * se:+.3f}] points a deal (s.e. {se:.3f}); "
              f"the smart side made trump in {made:.3f} of the deals", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
