"""Train a linear policy on UP&DOWN (2 players, one round) through the PettingZoo Parallel env.

player_0 learns by REINFORCE (numpy only) against a uniformly random player_1; the return is
player_0's tricks minus player_1's. Every few iterations the policy is measured on duplicate
deals: each evaluation seed is played twice, the trained policy in seat 0 and then in seat 1
(the random player takes the other seat), so the deal's luck cancels; by symmetry a random
policy scores 0. The learning curve goes to a PNG.

    .venv/bin/python examples/pettingzoo_updown.py                  # about three minutes
    .venv/bin/python examples/pettingzoo_updown.py --iterations 3   # a smoke run (CI)
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from linear_policy import LinearPolicy, mean_se, plot_curve
from updown.adapters.pettingzoo import parallel_env


def episode(env, policy, learner: int, seed: int, rng: np.random.Generator, learn: bool) -> float:
    """One round; the learner's tricks minus the other seat's."""
    obs, _ = env.reset(seed=seed)
    me, other = f"player_{learner}", f"player_{1 - learner}"
    total = {me: 0.0, other: 0.0}
    while env.agents:
        actions = {}
        for agent in env.agents:
            mask = obs[agent]["action_mask"]
            if agent == me:  # NOOP (the last id) when it has nothing to decide
                actions[agent] = env.NOOP if mask[-1] else policy.act(obs[agent]["observation"], mask[:-1], learn=learn)
            else:
                actions[agent] = int(rng.choice(np.flatnonzero(mask)))
        obs, rewards, _, _, _ = env.step(actions)
        for agent, r in rewards.items():
            total[agent] += r
    return total[me] - total[other]


def evaluate(env, policy, seeds: range) -> tuple[float, float]:
    rng = np.random.default_rng(12345)
    diffs = []
    for seed in seeds:  # duplicate: the same deal from both seats
        pair = [episode(env, policy, seat, seed, rng, learn=False) for seat in (0, 1)]
        diffs.append(sum(pair) / 2)
    policy.end_episode()
    return mean_se(diffs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--batch", type=int, default=32, help="episodes per update")
    ap.add_argument("--eval-every", type=int, default=15)
    ap.add_argument("--eval-deals", type=int, default=200)
    ap.add_argument("--out", default="pettingzoo_updown_curve.png")
    args = ap.parse_args()

    env = parallel_env("updown", 2, options={"rounds": 1})
    obs_size = env.observation_space("player_0")["observation"].shape[0]
    policy = LinearPolicy(obs_size, env.NOOP, seed=0, lr=0.02)
    rng = np.random.default_rng(1)
    eval_seeds = range(10**6, 10**6 + args.eval_deals)
    xs, ys, es = [], [], []
    start = time.perf_counter()
    seed = 0
    for it in range(args.iterations + 1):
        if it % args.eval_every == 0 or it == args.iterations:
            m, se = evaluate(env, policy, eval_seeds)
            xs.append(it), ys.append(m), es.append(se)
            print(f"iteration {it:4d}: tricks ahead of random per round {m:+.2f} ± {se:.2f} "
                  f"({args.eval_deals} duplicate deals, {time.perf_counter() - start:.0f}s)", flush=True)
        if it == args.iterations:
            break
        batch = []
        for _ in range(args.batch):
            seed += 1
            g = episode(env, policy, seed % 2, seed, rng, learn=True)
            batch.append((policy.end_episode(), g))
        policy.update(batch)
    plot_curve(args.out, xs, ys, es, "UP&DOWN, 2 players: linear REINFORCE vs random (PettingZoo)",
               "tricks ahead per round")
    print(f"learning curve: {args.out}")


if __name__ == "__main__":
    main()
