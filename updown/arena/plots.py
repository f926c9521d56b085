"""The plots of a run, as PNG files drawn by matplotlib without a display (the Agg backend).

* ``ratings.png``: each side's openskill rating (μ) as the games go on, shaded over μ ± 1.96σ;
* ``differences.png``: the distribution of each side's score difference against its opponents,
  one game at a time, with the mean marked.

A side is an entry, or a team of partners (partners have the same ratings and scores).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

RATINGS = "ratings.png"
DIFFERENCES = "differences.png"


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
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    colours = {entry: palette[i % len(palette)] for i, (entry, _) in enumerate(sides)}
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
    low = min(min(diffs[e]) for e, _ in sides)
    high = max(max(diffs[e]) for e, _ in sides)
    bins = 40 if high > low else 1
    for entry, name in sides:
        values = diffs[entry]
        mean = sum(values) / len(values)
        ax.hist(values, bins=bins, range=(low, high) if high > low else None, alpha=0.45,
                color=colours[entry], label=f"{name} (mean {mean:+.3g})")
        ax.axvline(mean, color=colours[entry], linewidth=1.5)
    ax.set_xlabel("score minus the opponents' mean score, per game")
    ax.set_ylabel("games")
    ax.set_title(title)
    ax.legend(loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    differences = folder / DIFFERENCES
    fig.savefig(differences)
    plt.close(fig)
    return [ratings, differences]
