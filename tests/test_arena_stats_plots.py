"""differences.png: one bin per lattice point of the differences (half points with three players),
the sides' bars side by side in opaque colours that stay apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from updown.arena import make_lineup, run_arena
from updown.arena.plots import COLOURS, DIFFERENCES, grouped_bars, lattice_step, write_plots
from updown.core.registry import get_game


def test_the_lattice_of_the_differences() -> None:
    assert lattice_step([-1.5, 0.0, 2.5, 1.0]) == 0.5  # three players: a score minus the mean of two
    assert lattice_step([1 / 3, -2 / 3, 2.0, 0.0]) == pytest.approx(1 / 3)  # four players
    assert lattice_step([-2.0, 4.0, 0.0]) == 2.0
    assert lattice_step([0.0, 0.0]) == 1.0
    wide = lattice_step([k / 2 for k in range(-200, 201)])  # 401 half points: merged into at most 60 bins
    assert wide == 3.5 and 400 * 0.5 / wide + 1 <= 60


def test_bars_are_centred_on_their_lattice_point_and_never_overlap() -> None:
    series = [[-1.5, 0.0, 0.0, 2.5], [0.0, 0.5, -1.5], [2.5]]
    bars = grouped_bars(series, 0.5)
    assert [sum(c for _, _, c in b) for b in bars] == [4, 3, 1]
    spans = []
    for values, side in zip(series, bars):
        for left, width, count in side:
            centre = round((left + width / 2) / 0.5) * 0.5  # the bin this bar belongs to
            assert centre - 0.25 <= left and left + width <= centre + 0.25  # inside its bin
            assert count == sum(1 for v in values if v == centre)
            spans.append((left, left + width))
    spans.sort()
    assert all(a_end <= b_start + 1e-12 for (_, a_end), (b_start, _) in zip(spans, spans[1:]))


def test_the_plot_draws_each_side_in_its_own_opaque_colour(tmp_path: Path) -> None:
    import matplotlib.image
    import numpy as np

    game = get_game("updown")
    results = run_arena(make_lineup(game, ["greedy", "random", "random"], seed=2, options=game.options({"rounds": 1})),
                        20, workers=1)
    write_plots(results, tmp_path)
    image = matplotlib.image.imread(tmp_path / DIFFERENCES)[:, :, :3]
    pixels = (image * 255).round().astype(int).reshape(-1, 3)
    for colour in COLOURS[:3]:  # each side's colour appears as it is (no blending with another)
        rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
        assert (pixels == rgb).all(axis=1).sum() > 50, colour
