"""Train a linear policy on Euchre (one deal) through the OpenSpiel adapter (``python_euchre``).

One policy (numpy REINFORCE) plays both seats of a team against two uniformly random seats; the
return is OpenSpiel's terminal utility (+2/3 for the team that wins the deal, -2/3 for the other).
Every few iterations it is measured on duplicate deals: each evaluation seed is played with the
policy's team as seats 0 and 2 and again as seats 1 and 3; a random team scores 0 by symmetry.
The learning curve goes to a PNG.

    .venv/bin/python examples/openspiel_euchre.py                  # about three minutes
    .venv/bin/python examples/openspiel_euchre.py --iterations 3   # a smoke run (CI)
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from linear_policy import LinearPolicy, mean_se, plot_curve
from updown.adapters import openspiel as uo
from updown.adapters.observations import draw_chance


def episode(game, policy, team: int, seed: int, rng: random.Random, learn: bool) -> float:
    """One deal; the policy's team's utility."""
    chance = random.Random(seed)
    state = game.new_initial_state()
    n = game.num_distinct_actions()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(draw_chance(state.chance_outcomes(), chance))
            continue
        p = state.current_player()
        legal = state.legal_actions()
        if p % 2 == team:
            mask = np.zeros(n, np.int8)
            mask[legal] = 1
            state.apply_action(policy.act(np.asarray(state.observation_tensor(p)), mask, learn=learn))
        else:
            state.apply_action(rng.choice(legal))
    return state.returns()[team]


def evaluate(game, policy, seeds: range) -> tuple[float, float]:
    rng = random.Random(12345)
    out = [(episode(game, policy, 0, s, rng, False) + episode(game, policy, 1, s, rng, False)) / 2 for s in seeds]
    policy.end_episode()
    return mean_se(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--batch", type=int, default=64, help="deals per update")
    ap.add_argument("--eval-every", type=int, default=15)
    ap.add_argument("--eval-deals", type=int, default=400)
    ap.add_argument("--out", default="openspiel_euchre_curve.png")
    args = ap.parse_args()

    game = uo.load("euchre", deals=1)
    policy = LinearPolicy(game.observation_tensor_size(), game.num_distinct_actions(), seed=0, lr=0.02)
    rng = random.Random(1)
    eval_seeds = range(10**6, 10**6 + args.eval_deals)
    xs, ys, es = [], [], []
    start = time.perf_counter()
    seed = 0
    for it in range(args.iterations + 1):
        if it % args.eval_every == 0 or it == args.iterations:
            m, se = evaluate(game, policy, eval_seeds)
            xs.append(it), ys.append(m), es.append(se)
            print(f"iteration {it:4d}: team utility against random {m:+.3f} ± {se:.3f} "
                  f"({args.eval_deals} duplicate deals, {time.perf_counter() - start:.0f}s)", flush=True)
        if it == args.iterations:
            break
        batch = []
        for _ in range(args.batch):
            seed += 1
            g = episode(game, policy, seed % 2, seed, rng, learn=True)
            batch.append((policy.end_episode(), g))
        policy.update(batch)
    plot_curve(args.out, xs, ys, es, "Euchre, one deal: linear REINFORCE team vs random (OpenSpiel)",
               "team utility (±2/3 a deal)")
    print(f"learning curve: {args.out}")


if __name__ == "__main__":
    main()
