"""A masked linear softmax policy trained by REINFORCE, in numpy only (shared by the examples).

logits = obs @ W + b over the whole action space; illegal actions are masked out. After each
batch of episodes, every decision's log-probability gradient is weighted by its episode's return
minus the batch mean (a baseline), and W, b take one Adam step.
"""

from __future__ import annotations

import numpy as np


class LinearPolicy:
    def __init__(self, obs_size: int, num_actions: int, seed: int = 0, lr: float = 0.01) -> None:
        self.rng = np.random.default_rng(seed)
        self.W = np.zeros((obs_size, num_actions))
        self.b = np.zeros(num_actions)
        self.lr = lr
        self._m = [np.zeros_like(self.W), np.zeros_like(self.b)]
        self._v = [np.zeros_like(self.W), np.zeros_like(self.b)]
        self._t = 0
        self.trace: list[tuple[np.ndarray, np.ndarray, int]] = []

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = obs @ self.W + self.b
        logits = np.where(mask > 0, logits, -np.inf)
        p = np.exp(logits - logits.max())
        return p / p.sum()

    def act(self, obs: np.ndarray, mask: np.ndarray, learn: bool = True, greedy: bool = False) -> int:
        p = self.probs(obs, mask)
        a = int(np.argmax(p)) if greedy else int(self.rng.choice(len(p), p=p))
        if learn:
            self.trace.append((obs, p, a))
        return a

    def end_episode(self) -> list[tuple[np.ndarray, np.ndarray, int]]:
        steps, self.trace = self.trace, []
        return steps

    def update(self, episodes: list[tuple[list[tuple[np.ndarray, np.ndarray, int]], float]]) -> None:
        returns = np.array([g for _, g in episodes])
        baseline = returns.mean()
        gW = np.zeros_like(self.W)
        gb = np.zeros_like(self.b)
        n = 0
        for steps, g in episodes:
            adv = g - baseline
            for obs, p, a in steps:
                d = -p
                d[a] += 1.0
                gW += adv * np.outer(obs, d)
                gb += adv * d
                n += 1
        if n == 0:
            return
        self._t += 1
        for i, (param, grad) in enumerate(((self.W, gW / n), (self.b, gb / n))):
            self._m[i] = 0.9 * self._m[i] + 0.1 * grad
            self._v[i] = 0.999 * self._v[i] + 0.001 * grad * grad
            mhat = self._m[i] / (1 - 0.9 ** self._t)
            vhat = self._v[i] / (1 - 0.999 ** self._t)
            param += self.lr * mhat / (np.sqrt(vhat) + 1e-8)  # ascent: maximise the return


def mean_se(xs: list[float]) -> tuple[float, float]:
    a = np.asarray(xs, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / np.sqrt(len(a))) if len(a) > 1 else 0.0


def plot_curve(path: str, xs: list[int], ys: list[float], es: list[float], title: str, ylabel: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.errorbar(xs, ys, yerr=es, marker="o", capsize=3)
    ax.axhline(0.0, color="grey", lw=0.8, ls="--", label="random (0 by symmetry)")
    ax.set_xlabel("training iteration")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
