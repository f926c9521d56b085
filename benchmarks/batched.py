"""Batched engines against the scalar engines and OpenSpiel's loops, interleaved in one run.

    .venv/bin/python benchmarks/batched.py [SECONDS] [ROUNDS]

Needs numpy (``pip install -e '.[batched]'``) and, for the OpenSpiel rows, open_spiel. What each
row measures: ``updown/batched/bench.py``.
"""

from __future__ import annotations

import sys

from updown.batched.bench import run

if __name__ == "__main__":
    run(float(sys.argv[1]) if len(sys.argv) > 1 else 0.3, int(sys.argv[2]) if len(sys.argv) > 2 else 10)
