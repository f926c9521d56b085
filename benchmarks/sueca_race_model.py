"""Fit the race model that the Sueca Up&Down's ``greedy.evaluate`` reads: a seat's chance to win the
match from the scores alone.

The model: seat ``i`` wins with probability ``exp(g[s_i]) / sum_j exp(g[s_j])``, where ``s_j`` is
seat ``j``'s score (clipped to 1..40) and ``g`` is one number per score. The data: matches of four
``greedy`` players, one row per deal start (the four scores, and who went on to win). ``g`` is
fitted by maximum likelihood with a small smoothness penalty, then made non-increasing (a point
more to lose never helps). Half the matches fit, the other half test; the script prints both
log-losses against the uniform guess (ln 4) and the earlier hand-made rule, and the table to paste
into ``updown/bots/updown_sueca_greedy.py`` (``_RACE``).

    .venv/bin/python benchmarks/sueca_race_model.py [MATCHES]   # default 20000, about 4 minutes
"""

from __future__ import annotations

import math
import random
import sys
import time

import numpy as np

from updown.bots import make_bot
from updown.core.registry import get_game

LOW, HIGH = 1, 40


def matches(count: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores at every deal start, the match's winner, and the match's number, for ``count``
    greedy matches."""
    game = get_game("updown-sueca")
    rows: list[list[int]] = []
    winners: list[int] = []
    ids: list[int] = []
    master = random.Random(seed)
    for m in range(count):
        rng = random.Random(master.getrandbits(64))
        bots = [make_bot("greedy", game, s, random.Random(rng.getrandbits(64))) for s in range(4)]
        state = game.new_state(4)
        seen = -1
        starts: list[list[int]] = []
        while not state.is_terminal():
            if state.is_chance():
                progress = state.progress()
                assert progress is not None
                if progress.deals != seen:
                    seen = progress.deals
                    starts.append(list(progress.scores))
                state.apply(state.sample_chance(rng))
                continue
            for k in state.actors():
                legal = state.legal_actions(k)
                state.apply(legal[0] if len(legal) == 1 else bots[k].act(state.view(k), legal), k)
        winner = state.result().placings.index(1)
        rows += starts
        winners += [winner] * len(starts)
        ids += [m] * len(starts)
    return np.array(rows), np.array(winners), np.array(ids)


def _index(scores: np.ndarray) -> np.ndarray:
    return np.clip(scores, LOW, HIGH) - LOW


def chances(g: np.ndarray, scores: np.ndarray) -> np.ndarray:
    z = g[_index(scores)]
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def log_loss(p: np.ndarray, winners: np.ndarray) -> float:
    return float(-np.mean(np.log(np.maximum(p[np.arange(len(winners)), winners], 1e-12))))


def fit(scores: np.ndarray, winners: np.ndarray, steps: int = 3000, smooth: float = 0.01) -> np.ndarray:
    """``g`` by maximum likelihood (Adam on the mean log-loss plus ``smooth`` times the squared
    second differences), made non-increasing, with ``g[20 - LOW] = 0``."""
    n = len(scores)
    idx = _index(scores)
    onehot = np.zeros((n, 4))
    onehot[np.arange(n), winners] = 1.0
    g = np.zeros(HIGH - LOW + 1)
    m = np.zeros_like(g)
    v = np.zeros_like(g)
    for t in range(1, steps + 1):
        r = (chances(g, scores) - onehot) / n
        grad = np.bincount(idx.ravel(), weights=r.ravel(), minlength=len(g))
        curve = g[:-2] - 2 * g[1:-1] + g[2:]
        grad[:-2] += 2 * smooth * curve
        grad[1:-1] -= 4 * smooth * curve
        grad[2:] += 2 * smooth * curve
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        g -= 0.05 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-9)
    g = np.minimum.accumulate(g)  # a point more to lose never helps
    return g - g[20 - LOW]


def hand_made(scores: np.ndarray) -> np.ndarray:
    """The rule ``evaluate`` used before this model (session 5)."""
    low = scores.min(axis=1, keepdims=True)
    scale = 1.0 + np.maximum(low, 0) / 4.0
    w = np.exp(-(scores - low) / scale)
    return w / w.sum(axis=1, keepdims=True)


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else 20000
    began = time.perf_counter()
    scores, winners, ids = matches(count, 20261124)
    test = ids % 2 == 1
    train = ~test
    print(f"{count} greedy matches, {len(scores)} deal starts ({time.perf_counter() - began:.0f} s)")
    g = fit(scores[train], winners[train])
    for name, rows in (("fit half", train), ("test half", test)):
        print(f"  {name}: log-loss uniform {math.log(4):.4f}, hand-made {log_loss(hand_made(scores[rows]), winners[rows]):.4f}, "
              f"model {log_loss(chances(g, scores[rows]), winners[rows]):.4f}")
    print("_RACE = (" + ", ".join(f"{x:.3f}" for x in g) + ")")


if __name__ == "__main__":
    main(sys.argv[1:])
