"""``benchmarks/team_response.py``: bounds on what two seats gain by changing their play together.

* On hand-made games whose answers are known: a pair that can signal reaches what it would if it saw
  both partners' cards (lower = upper); a pair that cannot stays below (lower < upper); a policy that
  is already the team's best response leaves it nothing (both bounds 0).
* On the smallest research decks (the Sueca game's ``7A:DH:1``, Euchre's ``9TJQK:H:1``): the tree read
  back from the export is OpenSpiel's game (its values are ``expected_returns``' and each seat's gain
  is ``TabularBestResponse``'s, their mean OpenSpiel's ``exploitability``); lower <= upper; the lower
  bound's deviation is a policy of the EFG game (each partner's action a function of its own
  information set) whose value, computed by OpenSpiel, is the one reported; in Euchre a team gains at
  least what its better seat gains alone; and a policy made of a team best response leaves that team
  nothing to gain.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from bench_util import load_benchmark  # noqa: I001  (tests/ is on sys.path)

pyspiel = pytest.importorskip("pyspiel")


@pytest.fixture(scope="module")
def tr() -> Any:
    return load_benchmark("team_response")


# -- hand-made games ----------------------------------------------------------------------------------

def _signal_game(tr: Any, b_sees_a: bool) -> Any:
    """Two seats on one team (both paid the same): chance gives seat 0 a bit x (1/2 each); seat 0
    says 0 or 1; seat 1, who does not see x (and sees what seat 0 said if ``b_sees_a``), guesses x.
    Both get 1 for a right guess, 0 else."""
    tree = tr.Tree(2)
    root = tree.add(tr.CHANCE, None, chance=[0.5, 0.5])
    for x in (0, 1):
        a_node = tree.add(tr.DECISION, root, seat=0, key=(0, 1 + x), views=(("x", x), ("nothing",)))
        tree.actions[(0, 1 + x)] = 2
        for said in (0, 1):
            b_view = ("said", said) if b_sees_a else ("nothing",)
            b_key = (1, 1 + said if b_sees_a else 1)
            b_node = tree.add(tr.DECISION, a_node, seat=1, key=b_key, views=(("x", x, "said", said), b_view))
            tree.actions[b_key] = 2
            for guess in (0, 1):
                tree.add(tr.TERMINAL, b_node, payoff=[float(guess == x)] * 2)
    return tree


def test_a_pair_that_can_signal_plays_as_well_as_one_that_sees_both_hands(tr: Any) -> None:
    tree = _signal_game(tr, b_sees_a=True)
    uniform = tr.uniform(tree)
    bounds = tr.team_bounds(tree, uniform, (0, 1), restarts=4)
    assert bounds.base == pytest.approx(1.0)  # the summed utility: 1/2 each
    assert bounds.upper == pytest.approx(2.0) and bounds.lower == pytest.approx(2.0)
    assert bounds.start.startswith("random")
    # from the policy, the seats' own best responses and the projection, the alternation stops where
    # seat 0 says the same whatever x (every answer ties against a uniform guess): a local optimum
    assert all(bounds.starts[s] == pytest.approx(1.0) for s in bounds.starts if not s.startswith("random"))
    # the deviation: seat 0 tells x, seat 1 believes it (or both the other way round)
    dev = bounds.deviation
    assert set(dev) == {(0, 1), (0, 2), (1, 1), (1, 2)}
    told = [dev[(0, 1 + x)].index(1.0) for x in (0, 1)]
    assert told[0] != told[1] and all(dev[(1, 1 + told[x])].index(1.0) == x for x in (0, 1))
    # the seats' gains alone: seat 1 alone can only guess better than chance by nothing
    assert tr.seat_gains(tree, uniform) == pytest.approx([0.0, 0.0])


def test_a_pair_that_cannot_signal_stays_below_the_upper_bound(tr: Any) -> None:
    tree = _signal_game(tr, b_sees_a=False)
    bounds = tr.team_bounds(tree, tr.uniform(tree), (0, 1), restarts=2)
    assert bounds.upper == pytest.approx(2.0)  # one player seeing x and guessing
    assert bounds.lower == pytest.approx(1.0) and bounds.lower_gain == pytest.approx(0.0)  # seat 1 cannot know x


def test_a_team_best_response_leaves_the_team_nothing(tr: Any) -> None:
    tree = _signal_game(tr, b_sees_a=True)
    best = tr.team_bounds(tree, tr.uniform(tree), (0, 1), restarts=4)
    assert best.lower == pytest.approx(2.0)
    played = {**tr.uniform(tree), **best.deviation}
    again = tr.team_bounds(tree, played, (0, 1), restarts=2)
    assert again.base == pytest.approx(2.0)
    assert again.upper_gain == pytest.approx(0.0, abs=1e-12) and again.lower_gain == pytest.approx(0.0, abs=1e-12)


def test_the_upper_bound_needs_perfect_recall(tr: Any) -> None:
    """A player keyed so that it forgets (one information set at two depths of its own play) is
    refused rather than answered wrongly."""
    tree = _signal_game(tr, b_sees_a=True)
    keys = ["same" if tree.kind[h] == tr.DECISION else None for h in range(len(tree))]
    with pytest.raises(AssertionError, match="perfect recall"):
        tr.best_response(tree, tr.uniform(tree), [0, 1], tr.objective(tree, [0, 1]), keys)


# -- research decks ----------------------------------------------------------------------------------

_DECKS: dict[tuple[Any, str, str], Any] = {}


def _deck(tr: Any, game_id: str, deck: str) -> tuple[Any, Any, Any, dict[str, Any]]:
    """The tree, the OpenSpiel game and the export of a deck, with greedy asked: once a session for
    each loaded copy of the benchmark (``tr``; also used by tests/test_team_response_exact.py)."""
    if (tr, game_id, deck) not in _DECKS:
        asked = tr.rv.BotPolicies(["greedy"], 0, game_id)
        export = tr.AnnotatedExport(deck, on_infoset=asked.visit, game_id=game_id, forced=False)
        tree = tr.Tree.from_export(export)
        game = export.load()
        solver = pyspiel.CFRSolver(game)
        for _ in range(5):
            solver.evaluate_and_update_policy()
        policies = {"uniform": tr.uniform(tree), "greedy": tr.behaviour_of(tree, asked.policies["greedy"]),
                    "cfr 5": tr.behaviour_of(tree, solver.average_policy())}
        _DECKS[(tr, game_id, deck)] = (tree, game, export, policies)
    return _DECKS[(tr, game_id, deck)]  # type: ignore[no-any-return]


def _openspiel_values(tr: Any, tree: Any, game: Any, beh: Any) -> list[float]:
    policy = pyspiel.TabularPolicy(tr.policy_of(tree, beh))
    return list(pyspiel.expected_returns(game.new_initial_state(), policy, -1, True))


CASES = [("updown-sueca", "7A:DH:1", (0, 2)), ("updown-sueca", "7A:DH:1", (0, 3)),
         ("euchre", "9TJQK:H:1", (0, 2)), ("euchre", "9TJQK:H:1", (1, 3))]


@pytest.mark.parametrize(("game_id", "deck"), [("updown-sueca", "7A:DH:1"), ("euchre", "9TJQK:H:1")])
def test_the_tree_is_openspiels_game(tr: Any, game_id: str, deck: str) -> None:
    """Values on the tree read back from the EFG text are OpenSpiel's ``expected_returns``; each
    seat's gain alone is ``TabularBestResponse``'s, and their mean is the published exploitability."""
    tree, game, export, policies = _deck(tr, game_id, deck)
    assert len(tree) == sum(export.nodes[k] for k in ("chance", "decision", "terminal"))
    for name, beh in policies.items():
        values = _openspiel_values(tr, tree, game, beh)
        assert [tr.value(tree, beh, [s]) for s in range(4)] == pytest.approx(values, abs=1e-12), name
        gains = tr.seat_gains(tree, beh)
        policy = tr.policy_of(tree, beh)
        for s in range(4):
            best = pyspiel.TabularBestResponse(game, s, policy).value(game.new_initial_state().history_str())
            assert gains[s] == pytest.approx(best - values[s], abs=1e-12), (name, s)
        assert sum(gains) / 4 == pytest.approx(tr.rv.exploitability(game, policy), abs=1e-12)


@pytest.mark.parametrize(("game_id", "deck", "team"), CASES)
def test_the_bounds_on_a_research_deck(tr: Any, game_id: str, deck: str, team: tuple[int, int]) -> None:
    tree, game, _export, policies = _deck(tr, game_id, deck)
    for name, beh in policies.items():
        bounds = tr.team_bounds(tree, beh, team, restarts=1, kicks=2)
        assert -1e-12 <= bounds.lower_gain <= bounds.upper_gain + 1e-12, name
        # the lower bound is a real policy: pure at every information set of both partners (an
        # information set of the EFG game: the seat's own), the policy everywhere else
        played = {**beh, **bounds.deviation}
        assert set(bounds.deviation) == {k for k in tree.actions if k[0] in team}
        assert all(sorted(p) == [0.0] * (len(p) - 1) + [1.0] for p in bounds.deviation.values())
        assert all(played[k] == beh[k] for k in beh if k[0] not in team)
        values = _openspiel_values(tr, tree, game, played)
        assert values[team[0]] + values[team[1]] == pytest.approx(bounds.lower, abs=1e-12), name
        # what each partner gains alone, for the pair, the pair can gain together
        for s in team:
            alone = tr.best_response(tree, beh, [s], tr.objective(tree, team)).value
            assert bounds.lower >= alone - 1e-12, (name, s)
        if game_id == "euchre":  # partners share a utility: a team gains at least its better seat's gain
            gains = tr.seat_gains(tree, beh)
            assert bounds.lower_gain / 2 >= max(gains[s] for s in team) - 1e-12, name
            # and nothing the other team does for it: the other team's pair is zero-sum against it
            assert values[team[0]] == pytest.approx(values[team[1]], abs=1e-12)


def test_the_uniform_policys_playable_team_best_response_leaves_nothing(tr: Any) -> None:
    """On ``7A:DH:1`` the pair of seats 1 and 3 against uniform play reaches its upper bound with a
    deviation it can play; the policy made of that deviation (uniform elsewhere) is a team best
    response: neither bound finds a gain for the pair, while the other pairs still gain."""
    tree, game, _export, policies = _deck(tr, "updown-sueca", "7A:DH:1")
    first = tr.team_bounds(tree, policies["uniform"], (1, 3), restarts=1)
    assert first.upper_gain > 0.1 and first.lower == pytest.approx(first.upper, abs=1e-12)
    played = {**policies["uniform"], **first.deviation}
    again = tr.team_bounds(tree, played, (1, 3), restarts=1)
    assert again.base == pytest.approx(first.lower, abs=1e-12)
    assert abs(again.upper_gain) <= 1e-12 and abs(again.lower_gain) <= 1e-12
    assert tr.team_bounds(tree, played, (0, 2), restarts=0).upper_gain > 0.01
    assert math.isfinite(tr.rv.exploitability(game, tr.policy_of(tree, played)))
