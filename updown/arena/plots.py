"""The plots of a run, as PNG files drawn by matplotlib without a display (the Agg backend).

* ``ratings.png``: each side's openskill rating (μ) as the games go on, shaded over μ ± 1.96σ;
* ``differences.png``: the distribution of each side's score difference against its opponents,
  one game at a time, with the mean marked. The differences lie on a lattice (half points with
  three players: a score minus the mean of two; thirds with four), so each bin is one lattice
  point (:func:`lattice_step`; merged by whole multiples when there would be too many), and the
  sides' bars stand side by side in each bin, in opaque colours that do not blend
  (:func:`grouped_bars`).

A side is an entry, or a team of partners (partners have the same ratings and scores).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

RATINGS = "ratings.png"
DIFFERENCES = "differences.png"
MOST_BINS = 60
"""At most this many bins in ``differences.png``: finer lattices are merged by whole multiples."""
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
"""The sides' colours: opaque and far apart (blue, red, green, orange, purple, brown)."""


def lattice_step(values: Sequence[float], most_bins: int = MOST_BINS) -> float:
    """The step of the lattice the values lie on (the largest ``s`` with every value a whole
    multiple of it, as a fraction with denominator at most 1,000), made a whole multiple
    larger if the values would span more than ``most_bins`` steps; 1 for a single value.

    >>> lattice_step([-1.5, 0.0, 2.5, 1.0]), lattice_step([1 / 3, -2 / 3, 2.0]), lattice_step([4.0, 8.0])
    (0.5, 0.3333333333333333, 4.0)
    """
    fractions = {Fraction(v).limit_denominator(1000) for v in values}
    step = Fraction(0)
    for f in fractions:  # gcd of fractions: gcd of numerators over the lcm of denominators
        if f:
            step = Fraction(math.gcd(step.numerator * f.denominator, f.numerator * step.denominator),
                            step.denominator * f.denominator) if step else abs(f)
    if not step:
        return 1.0
    span = (max(fractions) - min(fractions)) / step
    if span + 1 > most_bins:
        step *= math.ceil((span + 1) / most_bins)
    return float(step)


def grouped_bars(series: Sequence[Sequence[float]], step: float) -> list[list[tuple[float, float, int]]]:
    """For each series, its histogram on the lattice of ``step`` as bars ``(left, width, count)``:
    one bin per lattice point (centred on it), the series' bars side by side within the bin, so
    no two bars overlap. Bins where a series has no value get no bar for it."""
    k = len(series)
    width = step * 0.9 / k
    out = []
    for i, values in enumerate(series):
        counts: dict[int, int] = {}
        for v in values:
            b = math.floor(v / step + 0.5)  # the nearest lattice point (halves up, whichever the sign)
            counts[b] = counts.get(b, 0) + 1
        out.append([(b * step - step * 0.45 + i * width, width, c) for b, c in sorted(counts.items())])
    return out


def _sides(results: dict[str, Any]) -> list[tuple[int, str]]:
    """One entry per side, with the side's name (partners joined by '+')."""
    entries = results["entries"]
    sides: dict[int, list[dict[str, Any]]] = {}
    for entry in entries:
        sides.setdefault(entry["team"], []).append(entry)
    return [(members[0]["entry"], " + ".join(m["label"] for m in members)) for members in sides.values()]


def write_plots(results: dict[str, Any], folder: Path) -> list[Path]:
    """Draw both plots into ``folder``; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lineup = results["lineup"]
    title = f"{lineup['game']}: {results['games']} games ({results['deals']} deals × {results['seatings']} seatings)"
    sides = _sides(results)
    colours = {entry: COLOURS[i % len(COLOURS)] for i, (entry, _) in enumerate(sides)}
    history = results["rating_history"]
    games = [point["games"] for point in history]

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    for entry, name in sides:
        mu = [point["mu"][entry] for point in history]
        sigma = [point["sigma"][entry] for point in history]
        ax.plot(games, mu, label=name, linewidth=1.5, color=colours[entry])
        ax.fill_between(games, [m - 1.96 * s for m, s in zip(mu, sigma)],
                        [m + 1.96 * s for m, s in zip(mu, sigma)], color=colours[entry], alpha=0.2)
    ax.set_xlabel("games played")
    ax.set_ylabel("openskill μ (band: μ ± 1.96σ)")
    ax.set_title(title)
    ax.legend(loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    ratings = folder / RATINGS
    fig.savefig(ratings)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    diffs = results["score_diffs"]
    series = [diffs[entry] for entry, _ in sides]
    step = lattice_step([v for values in series for v in values])
    for (entry, name), bars, values in zip(sides, grouped_bars(series, step), series):
        mean = sum(values) / len(values)
        ax.bar([x for x, _, _ in bars], [c for _, _, c in bars], width=[w for _, w, _ in bars], align="edge",
               color=colours[entry], edgecolor="white", linewidth=0.3,
               label=f"{name} (mean {mean:+.3g})")
        ax.axvline(mean, color=colours[entry], linewidth=1.5, linestyle="--")
    ax.set_xlabel(f"score minus the opponents' mean score, per game (bins of {step:g})")
    ax.set_ylabel("games")
    ax.set_title(title)
    ax.legend(loc="best")
    ax.grid(alpha=0.3, axis="y")
    ax.set_axisbelow(True)
    fig.tight_layout()
    differences = folder / DIFFERENCES
    fig.savefig(differences)
    plt.close(fig)
    return [ratings, differences]
