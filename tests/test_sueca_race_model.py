"""The fitter of the Sueca race model (benchmarks/sueca_race_model.py) and the model it produced."""

from __future__ import annotations


import pytest
from bench_util import load_benchmark

np = pytest.importorskip("numpy")

from updown.bots.updown_sueca_greedy import _RACE, UpDownSuecaGreedy  # noqa: E402



def test_the_fit_recovers_a_known_race_and_beats_a_uniform_guess():
    # Winners drawn from a known model (each point left costs 0.12): the fit must find its slope,
    # keep it non-increasing, and predict held-out winners better than ln 4.
    fitter = load_benchmark("sueca_race_model")
    rng = np.random.default_rng(3)
    truth = -0.12 * np.arange(fitter.HIGH - fitter.LOW + 1)
    scores = rng.integers(1, 31, size=(40000, 4))
    winners = np.array([rng.choice(4, p=p) for p in fitter.chances(truth, scores)])
    g = fitter.fit(scores[:30000], winners[:30000], steps=800)
    assert np.all(np.diff(g) <= 0)
    assert g[20 - fitter.LOW] == 0.0
    slope = (g[25 - fitter.LOW] - g[5 - fitter.LOW]) / 20
    assert slope == pytest.approx(-0.12, abs=0.02)
    test = fitter.log_loss(fitter.chances(g, scores[30000:]), winners[30000:])
    assert test < fitter.log_loss(np.full((10000, 4), 0.25), winners[30000:]) - 0.05


def test_the_data_are_deal_starts_of_finished_greedy_matches():
    fitter = load_benchmark("sueca_race_model")
    scores, winners, ids = fitter.matches(3, 1)
    assert sorted(set(ids.tolist())) == [0, 1, 2]
    for m in range(3):
        rows = scores[ids == m]
        assert rows[0].tolist() == [20, 20, 20, 20]  # every match starts at 20 points each
        assert len(set(winners[ids == m].tolist())) == 1  # one winner per match


def test_the_shipped_model_is_a_race():
    # Non-increasing (a point more to lose never helps) and a chance for every seat.
    assert all(a >= b for a, b in zip(_RACE, _RACE[1:]))
    got = UpDownSuecaGreedy.chances([2, 10, 20, 40])
    assert sum(got) == pytest.approx(1.0) and got == sorted(got, reverse=True)
    assert UpDownSuecaGreedy.chances([-3, 50, 20, 20]) == UpDownSuecaGreedy.chances([1, 40, 20, 20])
