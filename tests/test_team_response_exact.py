"""``benchmarks/team_response.py``'s exact team best response (``team_exact``, a mixed-integer program).

* On small hand-made games (a signalling game, and random games of three seats with private signals
  whose team of two has 1,024 pure joint deviations): the program's value is the best of all pure
  joint deviations, enumerated one by one; it lies between the local search's lower bound and the
  coordinated upper bound; its deviation, played on the tree, is worth what the program says. The
  brief's plain linearisation (``strong=False``) reaches the same optimum.
* On the Sueca game's ``7A:DH:1``: for the pair of the chooser (one information set, five actions)
  and seat 2, the best over the chooser's five pure strategies of seat 2's exact best response is
  the program's value.
* On Euchre's ``9TJQK:H:1``: the deviation is a policy of the EFG game, and OpenSpiel's
  ``expected_returns`` gives it the program's value; against greedy the exact figure is above the
  local search's (which misses it), and against CFR's average after 5 iterations strictly below the
  coordinated upper bound (which the partners cannot reach on their own information).
* A time limit too short to prove the optimum still brackets it: the deviation found is at most the
  optimum and the solver's bound at least.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from bench_util import load_benchmark  # noqa: I001  (tests/ is on sys.path)
from test_team_response import _deck as team_deck

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("scipy")


@pytest.fixture(scope="module")
def tr() -> Any:
    return load_benchmark("team_response")


def _brute_force(tr: Any, tree: Any, beh: Any, team: tuple[int, int]) -> float:
    """The best summed utility of ``team`` over every pure joint deviation, one by one."""
    keys = sorted(k for k in tree.actions if k[0] in team)
    best = float("-inf")
    for picks in itertools.product(*(range(tree.actions[k]) for k in keys)):
        played = {**beh, **{k: tr.pure(tree.actions[k], a) for k, a in zip(keys, picks)}}
        best = max(best, tr.value(tree, played, team))
    return best


def _signal_game(tr: Any, b_sees_a: bool) -> Any:
    """Seat 0 sees a fair bit x and says 0 or 1; seat 1 (who hears what was said if ``b_sees_a``)
    guesses x; both get 1 for a right guess."""
    tree = tr.Tree(2)
    root = tree.add(tr.CHANCE, None, chance=[0.5, 0.5])
    for x in (0, 1):
        a_node = tree.add(tr.DECISION, root, seat=0, key=(0, 1 + x), views=(("x", x), ("nothing",)))
        tree.actions[(0, 1 + x)] = 2
        for said in (0, 1):
            b_key = (1, 1 + said if b_sees_a else 1)
            b_node = tree.add(tr.DECISION, a_node, seat=1, key=b_key,
                              views=(("x", x, "said", said), ("said", said) if b_sees_a else ("nothing",)))
            tree.actions[b_key] = 2
            for guess in (0, 1):
                tree.add(tr.TERMINAL, b_node, payoff=[float(guess == x)] * 2)
    return tree


def _random_game(tr: Any, seed: int) -> tuple[Any, Any]:
    """Three seats; seats 0 (A) and 1 (B) are the team. Chance deals A a signal s in {0, 1} and B
    one t in {0, 1} (not uniformly). A acts on s; then seat 2 (C, a random fixed policy) acts on
    nothing; B acts on t and C's action; if A's first action was 1, A acts again on s and C's action.
    Payoffs random for each seat (the team's two differ). A has 6 information sets of 2 actions, B 4:
    1,024 pure joint deviations. Returns the tree and the policy (uniform for the team)."""
    rng = random.Random(seed)
    tree = tr.Tree(3)
    weights = [rng.random() + 0.1 for _ in range(4)]
    root = tree.add(tr.CHANCE, None, chance=[w / sum(weights) for w in weights])

    def decide(parent: int, seat: int, key: tuple[int, int], views: tuple[Any, ...]) -> int:
        tree.actions[key] = 2
        return int(tree.add(tr.DECISION, parent, seat=seat, key=key, views=views))

    def leaf(parent: int) -> None:
        tree.add(tr.TERMINAL, parent, payoff=[rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)])

    for s, t in itertools.product((0, 1), (0, 1)):
        a = decide(root, 0, (0, s), (("s", s), ("t", t), ()))
        for a1 in (0, 1):
            c = decide(a, 2, (2, 0), (("s", s, a1), ("t", t), ()))
            for c1 in (0, 1):
                b = decide(c, 1, (1, 2 * t + c1), (("s", s, a1, c1), ("t", t, c1), ("c", c1)))
                for b1 in (0, 1):
                    if a1 == 0:
                        leaf(b)
                        continue
                    again = decide(b, 0, (0, 2 + 2 * s + c1), (("s", s, a1, c1), ("t", t, c1, b1), ("c", c1)))
                    leaf(again)
                    leaf(again)
    beh = tr.uniform(tree)
    p = rng.random()
    beh[(2, 0)] = [p, 1 - p]
    return tree, beh


def _check(tr: Any, tree: Any, beh: Any, team: tuple[int, int], truth: float) -> Any:
    exact = tr.team_exact(tree, beh, team)
    assert exact.optimal and exact.bound == exact.value
    assert exact.value == pytest.approx(truth, abs=1e-9)
    assert set(exact.deviation) == {k for k in tree.actions if k[0] in team}
    assert all(sorted(p) == [0.0] * (len(p) - 1) + [1.0] for p in exact.deviation.values())
    assert tr.value(tree, {**beh, **exact.deviation}, team) == pytest.approx(exact.value, abs=1e-12)
    bounds = tr.team_bounds(tree, beh, team, restarts=1, kicks=1)
    assert bounds.lower <= exact.value + 1e-9 and exact.value <= bounds.upper + 1e-9
    assert exact.base == pytest.approx(bounds.base, abs=1e-12)
    plain = tr.team_exact(tree, beh, team, strong=False)
    assert plain.optimal and plain.value == pytest.approx(truth, abs=1e-9)
    return exact, bounds


@pytest.mark.parametrize("b_sees_a", [True, False])
def test_the_signalling_game_against_every_deviation(tr: Any, b_sees_a: bool) -> None:
    tree = _signal_game(tr, b_sees_a)
    beh = tr.uniform(tree)
    exact, bounds = _check(tr, tree, beh, (0, 1), _brute_force(tr, tree, beh, (0, 1)))
    assert exact.value == pytest.approx(2.0 if b_sees_a else 1.0)
    assert bounds.upper == pytest.approx(2.0)  # seeing x, one player always guesses right


def test_random_games_against_every_deviation(tr: Any) -> None:
    """Over 12 random games the program is the brute force's best each time; in some the coordinated
    upper bound is strictly above it (B does not see A's signal), so the bracket alone did not
    give the figure."""
    above = 0
    for seed in range(12):
        tree, beh = _random_game(tr, seed)
        assert len([k for k in tree.actions if k[0] in (0, 1)]) == 10
        truth = _brute_force(tr, tree, beh, (0, 1))
        exact, bounds = _check(tr, tree, beh, (0, 1), truth)
        above += bounds.upper > exact.value + 1e-6
    assert above >= 3


def test_a_partner_that_forgets_is_refused(tr: Any) -> None:
    """Seat 0 meets one information set after either of its own two actions (it forgets what it
    did): no sequence form, refused rather than answered wrongly."""
    tree = tr.Tree(2)
    root = tree.add(tr.DECISION, None, seat=0, key=(0, 1), views=((), ()))
    tree.actions[(0, 1)] = 2
    for _a in (0, 1):
        node = tree.add(tr.DECISION, root, seat=0, key=(0, 2), views=((), ()))
        tree.add(tr.TERMINAL, node, payoff=[1.0, 1.0])
        tree.add(tr.TERMINAL, node, payoff=[0.0, 0.0])
    tree.actions[(0, 2)] = 2
    with pytest.raises(AssertionError, match="perfect recall"):
        tr.team_exact(tree, tr.uniform(tree), (0, 1))


# -- research decks -----------------------------------------------------------------------------------

def _deck(tr: Any, game_id: str, deck: str) -> tuple[Any, Any, dict[str, Any]]:
    """The tree, the OpenSpiel game and the policies (uniform, greedy, CFR after 5) of a deck."""
    tree, game, _export, policies = team_deck(tr, game_id, deck)
    return tree, game, policies


def _openspiel_value(tr: Any, tree: Any, game: Any, beh: Any, team: tuple[int, int]) -> float:
    policy = pyspiel.TabularPolicy(tr.policy_of(tree, beh))
    values = pyspiel.expected_returns(game.new_initial_state(), policy, -1, True)
    return float(values[team[0]] + values[team[1]])


def test_the_chooser_and_the_next_seat_by_enumeration(tr: Any) -> None:
    """Sueca ``7A:DH:1``, pair (1, 2): the chooser has one information set (five actions). For each
    of its five pure choices, seat 2's exact best response for the pair; the best of the five is
    the team's best response, and the program's value."""
    tree, game, policies = _deck(tr, "updown-sueca", "7A:DH:1")
    team = (1, 2)
    chooser = [k for k in tree.actions if k[0] == 1]
    assert len(chooser) == 1 and tree.actions[chooser[0]] == 5
    util = tr.objective(tree, team)
    for name, beh in policies.items():
        truth = max(tr.best_response(tree, {**beh, chooser[0]: tr.pure(5, a)}, [2], util).value for a in range(5))
        exact = tr.team_exact(tree, beh, team)
        assert exact.optimal and exact.value == pytest.approx(truth, abs=1e-9), name
        assert _openspiel_value(tr, tree, game, {**beh, **exact.deviation}, team) == pytest.approx(exact.value, abs=1e-9)


def test_euchre_exact_figures_say_what_the_bounds_did_not(tr: Any) -> None:
    tree, game, policies = _deck(tr, "euchre", "9TJQK:H:1")
    seen = {}
    for name in ("greedy", "cfr 5"):
        beh = policies[name]
        exact = tr.team_exact(tree, beh, (0, 2))
        bounds = tr.team_bounds(tree, beh, (0, 2), restarts=1, kicks=2)
        assert exact.optimal
        assert bounds.lower <= exact.value + 1e-9 <= bounds.upper + 2e-9, name
        played = {**beh, **exact.deviation}
        assert all(played[k] == beh[k] for k in beh if k[0] not in (0, 2))
        assert _openspiel_value(tr, tree, game, played, (0, 2)) == pytest.approx(exact.value, abs=1e-9), name
        seen[name] = (exact, bounds)
    exact, bounds = seen["greedy"]  # the local search stops short; the partners reach the coordinated bound
    assert exact.value > bounds.lower + 1e-3 and exact.value == pytest.approx(bounds.upper, abs=1e-9)
    exact, bounds = seen["cfr 5"]  # the coordinated bound is out of the partners' reach
    assert exact.value < bounds.upper - 1e-4


def test_a_time_limit_brackets_the_optimum(tr: Any) -> None:
    """The plain linearisation on ``9TJQK:H:1`` against greedy does not prove its optimum in a
    fraction of a second; what it returns still brackets the exact value."""
    tree, _game, policies = _deck(tr, "euchre", "9TJQK:H:1")
    beh = policies["greedy"]
    exact = tr.team_exact(tree, beh, (1, 3))
    quick = tr.team_exact(tree, beh, (1, 3), time_limit=0.5, strong=False)
    assert quick.value <= exact.value + 1e-9 <= quick.bound + 2e-9
    assert tr.value(tree, {**beh, **quick.deviation}, (1, 3)) == pytest.approx(quick.value, abs=1e-12)
    if not quick.optimal:
        assert "time limit" in quick.message.lower()


def test_the_benchmark_reports_the_exact_figure_between_the_bounds(tr: Any) -> None:
    """``measure`` (what the benchmark prints and writes): each pair's exact figure between its
    bounds, each split's exact figure the mean of its pairs', as the tables give them."""
    tree, game, policies = _deck(tr, "updown-sueca", "7A:DH:1")
    res = tr.measure(tree, game, policies["cfr 5"], tr.PARTITIONS["updown-sueca"], restarts=1, seed=0,
                     kicks=1, exact_seconds=60)
    for pair, p in res["pairs"].items():
        assert p["exact_optimal"] and p["exact_bound_per_seat"] == p["exact_gain_per_seat"], pair
        assert p["lower_gain_per_seat"] - 1e-12 <= p["exact_gain_per_seat"] <= p["upper_gain_per_seat"] + 1e-12, pair
    for split, s in res["partitions"].items():
        a, b = split.split("|")
        assert s["exact"] == pytest.approx((res["pairs"][a]["exact_gain_per_seat"] + res["pairs"][b]["exact_gain_per_seat"]) / 2)
        assert s["lower"] - 1e-12 <= s["exact"] <= s["upper"] + 1e-12
    # some pair's coordinated bound is out of its reach against this policy
    assert any(p["upper_gain_per_seat"] > p["exact_gain_per_seat"] + 1e-3 for p in res["pairs"].values())
    assert "exact" not in tr.measure(tree, game, policies["cfr 5"], [((0, 2), (1, 3))], 0, 0)["partitions"]["02|13"]
