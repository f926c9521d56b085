"""Euchre ``hard``'s model of the table (``updown.bots.euchre_model``, issue 33): the rule's bids
and cards are read exactly, the weights move towards the kind of player that really sits there,
a random-kind seat's bids do not move the worlds while a rule-kind seat's do, the playouts play
each seat by its kind, and ``hard`` is reproducible from its seed and sees only its view."""

from __future__ import annotations

import random
import statistics

import pytest

np = pytest.importorskip("numpy")

from updown.batched.euchre import BatchedEuchre  # noqa: E402
from updown.batched.playout import summarise  # noqa: E402
from updown.bots import make_bot  # noqa: E402
from updown.bots.euchre_greedy import EuchreHard  # noqa: E402
from updown.bots.euchre_model import (  # noqa: E402
    CARELESS, KINDS, RANDOM, RULE, DealRecord, ModelWorlds, TableModel, kind_margins, seat_decisions,
    weighted_summary,
)
from updown.core.registry import get_game  # noqa: E402
from updown.games.euchre import EFF, card_id  # noqa: E402

GAME = get_game("euchre")


def _play(kinds, seed, deals, stop=None):
    """A match of ``deals`` deals between bots of ``kinds``; with ``stop(view, seat)``, the state
    and view at the first decision where it holds (else the finished state and seat 0's view)."""
    st = GAME.new_state(4, GAME.options({"target": 99, "deals": deals}))
    rng = random.Random(seed)
    bots = [make_bot(k, GAME, s, random.Random(seed * 10 + s)) for s, k in enumerate(kinds)]
    while not st.is_terminal():
        if st.is_chance():
            st.apply(st.sample_chance(rng))
            continue
        s = st.actors()[0]
        v = st.view(s)
        if stop is not None and stop(v, s):
            return st, v
        st.apply(bots[s].act(v, st.legal_actions(s)), s)
    return st, st.view(0)


def _deals(log):
    out, cur = [], []
    for e in log:
        cur.append(e)
        if e["type"] == "score":
            out.append(cur)
            cur = []
    return out


def test_the_rule_s_bids_and_cards_are_read_exactly():
    """With every hand known (the full log), each decision of a ``greedy`` seat is the rule's, and
    a random seat's often are not."""
    greedy = other = 0
    missed = 0
    for seed in range(6):
        st, view = _play(["greedy", "random", "greedy", "greedy"], seed, deals=3)
        for seen, full in zip(_deals(view["log"]), _deals(st.log)):
            deal = DealRecord(seen, 0)
            deal.stuck = True
            hands = {e["seat"]: [card_id(c) for c in e["cards"]] for e in full if e["type"] == "hand"}
            for j in (2, 3):
                found = seat_decisions(deal, j, hands[j], ())
                greedy += len(found)
                assert all(r for r, _ in found)
            rand = seat_decisions(deal, 1, hands[1], ())
            other += len(rand)
            missed += sum(1 for r, _ in rand if not r)
    assert greedy > 60 and other > 20
    assert missed > other / 4


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_weights_follow_the_kind_that_sits_there(seed):
    """After two deals a random seat's heaviest kind is ``random`` and a greedy seat's the rule;
    before any deal both are the prior."""
    st, view = _play(["greedy", "random", "easy", "greedy"], seed, deals=2)
    model = TableModel(view, random.Random(1))
    assert model.prior[1][RANDOM] > 0.6
    assert model.prior[3][RULE] > 0.6
    assert model.prior[2][RANDOM] < 0.3  # easy: careless or the rule, not random
    _, first = _play(["greedy", "random", "easy", "greedy"], seed, deals=2, stop=lambda v, s: s == 0)
    fresh = TableModel(first, random.Random(1))
    assert fresh.prior[1] == pytest.approx(fresh.prior[3])


def test_the_deal_under_way_counts_too():
    """Within the first deal the weights already move: at seat 0's last decision of the deal,
    the random seat leans to ``random`` and the greedy seat to the rule, over a few games."""
    rand, rule = [], []
    for seed in range(8):
        _, view = _play(["greedy", "random", "greedy", "greedy"], seed, deals=1,
                        stop=lambda v, s: s == 0 and v["phase"] == "play" and v["trick"] >= 4)
        if view.get("phase") != "play" or view.get("trump") is None:
            continue
        sampler = GAME.world_sampler(view)
        weights = TableModel(view, random.Random(2)).weights(sampler, random.Random(3))
        rand.append(weights[1][RANDOM])
        rule.append(weights[3][RULE])
    assert len(rand) >= 4
    assert statistics.fmean(rand) > 0.5
    assert statistics.fmean(rule) > 0.5


def _maker_positions(games, seed):
    """Views of seat 0 at its first card after seat 1 or 3 made trump, at tables of greedy bots."""
    found = []
    for g in range(games):
        st, view = _play(["greedy"] * 4, seed * 100 + g, deals=1,
                         stop=lambda v, s: s == 0 and v["phase"] == "play" and v["maker"] in (1, 3)
                         and sum(v["tricks"]) == 0)
        if view.get("phase") == "play" and view.get("maker") in (1, 3) and not view["alone"]:
            found.append((view, st.legal_actions(0)))
    return found


def test_a_random_seat_s_bid_does_not_move_the_worlds():
    """A maker taken for a random player weighs every world alike (its order says nothing); taken
    for the rule, the worlds that give it more trumps weigh more."""
    views = _maker_positions(30, seed=1)
    assert len(views) >= 4
    lifts = []
    for view, _ in views:
        maker = view["maker"]
        trump = "CDHS".index(view["trump"])
        worlds = ModelWorlds(view, GAME.world_sampler(view), random.Random(1))
        rng = random.Random(4)
        drawn = [worlds.base.draw(rng) for _ in range(200)]
        trumps = np.array([sum(1 for c in w.hands[maker] if EFF[trump][c] == trump) for w in drawn], dtype=float)
        for kind in (RANDOM, RULE):
            for j in (1, 2, 3):
                worlds.model.prior[j] = [1.0 if k == kind else 0.0 for k in range(len(KINDS))]
            weights = np.array([worlds.weigh(w)[0] for w in drawn])
            if kind == RANDOM:
                assert np.all(weights == 1.0)
            else:
                assert weights.min() < weights.max()
                lifts.append(float((weights * trumps).sum() / weights.sum() - trumps.mean()))
    assert statistics.fmean(lifts) > 0.3


def test_kinds_drawn_in_a_world_follow_its_evidence():
    """A seat whose weights are split between random and the rule is drawn as the rule in worlds
    where its decisions are the rule's and as random where they are not."""
    views = _maker_positions(20, seed=2)
    assert views
    view = views[0][0]
    worlds = ModelWorlds(view, GAME.world_sampler(view), random.Random(1))
    maker = view["maker"]
    worlds.model.prior[maker] = [0.5, 0.0, 0.5, 0.0]
    rng = random.Random(6)
    seen = {True: [], False: []}
    for _ in range(300):
        world, kinds, weight = worlds.draw_weighted(rng)
        like, best = worlds.model.world_likelihoods(world, maker)
        seen[like[RULE] == best[RULE]].append(kinds[maker])
    assert seen[True] and seen[False]
    # where the rule would not have bid so, the seat is mostly random (a miss costs the rule 0.01
    # against a random bidder's 1/3 or 1/7), where it would have, mostly the rule
    assert sum(k == RANDOM for k in seen[False]) > 0.7 * len(seen[False])
    assert sum(k == RULE for k in seen[True]) > len(seen[True]) / 2


def test_mixed_playouts_by_kind():
    """``mixed_to_deal_end`` with no random share plays the deal as ``greedy_to_deal_end``; with
    random seats it plays other, legal games (the deal ends in every game, points as the rules
    give)."""
    a = BatchedEuchre(64, seed=3)
    b = BatchedEuchre(64, seed=3)
    c = BatchedEuchre(64, seed=3)
    a.greedy_to_deal_end()
    b.mixed_to_deal_end(np.zeros((64, 4)))
    np.testing.assert_array_equal(a.last_points, b.last_points)
    c.mixed_to_deal_end(np.tile([1.0, 0.0, 1.0, 0.0], (64, 1)))
    assert (c.deal_no == a.deal_no).all()
    assert not np.array_equal(a.last_points, c.last_points)
    assert set(np.abs(c.last_points.reshape(-1, 2)).sum(axis=1).tolist()) <= {1, 2, 4}
    with pytest.raises(ValueError, match="random_share"):
        c.mixed_to_deal_end(np.zeros((3, 4)))


def test_random_seats_in_the_playouts_change_the_values():
    """The same worlds played on with the others as random players value the actions otherwise
    than with them as the rule; with every seat the rule, the margins are the plain playouts'."""
    views = _maker_positions(10, seed=3)
    view, legal = views[0]
    sampler = GAME.world_sampler(view)
    rng = random.Random(2)
    worlds = [sampler.draw(rng) for _ in range(100)]
    rule = kind_margins(worlds, [[RULE] * 4] * 100, 0, legal, rng=np.random.default_rng(1), view=view)
    careless = kind_margins(worlds, [[RULE, CARELESS, RANDOM, RANDOM]] * 100, 0, legal,
                            rng=np.random.default_rng(1), view=view)
    assert not np.array_equal(rule, careless)
    from updown.bots.euchre_endgame import endgame_margins

    plain = endgame_margins(worlds, 0, legal, 0, rng=np.random.default_rng(1), view=view)
    np.testing.assert_array_equal(rule, plain)


def test_weighted_summary():
    m = np.array([[1.0, 0.0], [3.0, 2.0], [5.0, 1.0]])
    means, errors = weighted_summary(m, [1, 1, 1])
    ref_means, _ = summarise(m)
    np.testing.assert_allclose(means, ref_means)
    means, _ = weighted_summary(m, [0, 0, 1])
    np.testing.assert_allclose(means, [5.0, 1.0])
    assert (errors > 0).all()
    with pytest.raises(ValueError, match="weight"):
        weighted_summary(m, [1, -1, 1])


class _Counted(EuchreHard):
    milliseconds = None
    worlds = 60
    model = True


def test_hard_is_reproducible_and_reads_only_its_view():
    """Two ``hard`` bots with one seed choose alike at every decision of a mixed table, and their
    choice does not change when the hidden cards of the real state do (a state with the same view
    for the seat)."""
    checked = 0
    for seed in range(2):
        st = GAME.new_state(4, GAME.options({"target": 99, "deals": 2}))
        rng = random.Random(seed)
        others = [make_bot(k, GAME, s, random.Random(s)) for s, k in enumerate(["greedy", "random", "easy", "greedy"])]
        a, b = _Counted(GAME, 0, random.Random(9)), _Counted(GAME, 0, random.Random(9))
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            s = st.actors()[0]
            v = st.view(s)
            legal = st.legal_actions(s)
            if s == 0 and len(legal) > 1:
                # another state with the same view for seat 0: its hidden cards drawn anew
                other = GAME.world_sampler(v).draw(random.Random(checked))
                assert other.view(0) == v
                x = a.act(v, legal)
                y = b.act(other.view(0), other.legal_actions(0))
                assert x == y
                checked += 1
                st.apply(x, s)
                continue
            st.apply(others[s].act(v, legal), s)
    assert checked > 10


def test_worlds_read_from_bids_only_leave_the_cards_out():
    """With ``cards`` off a world reads only this deal's bids: fewer decisions, so the most a
    random seat's decisions can weigh (the product of 1/n) is larger; the kinds before the deal
    are the same."""
    _, view = _play(["greedy"] * 4, 5, deals=2,
                    stop=lambda v, s: s == 0 and v["deal"] == 2 and v["phase"] == "play" and sum(v["tricks"]) >= 3)
    assert view["phase"] == "play"
    world = GAME.world_sampler(view).draw(random.Random(1))
    both = TableModel(view, random.Random(1))
    bids = TableModel(view, random.Random(1), cards=False)
    assert both.prior == bids.prior
    fewer = 0
    for j in (1, 2, 3):
        full, only = both.world_likelihoods(world, j)[1], bids.world_likelihoods(world, j)[1]
        assert only[RANDOM] >= full[RANDOM]
        fewer += only[RANDOM] > full[RANDOM]
    assert fewer >= 1


class _Resampled(_Counted):
    model_draws = 3.0


def test_hard_with_resampled_worlds_is_reproducible_and_legal():
    """With three weighed worlds drawn per world played on, ``hard`` still plays legal,
    reproducible games."""
    for seed in range(2):
        results = []
        for _ in range(2):
            st = GAME.new_state(4, GAME.options({"target": 99, "deals": 1}))
            rng = random.Random(seed)
            bots = [_Resampled(GAME, 0, random.Random(3)),
                    *(make_bot(k, GAME, s, random.Random(s)) for s, k in ((1, "random"), (2, "greedy"), (3, "easy")))]
            chosen = []
            while not st.is_terminal():
                if st.is_chance():
                    st.apply(st.sample_chance(rng))
                    continue
                s = st.actors()[0]
                a = bots[s].act(st.view(s), st.legal_actions(s))
                if s == 0:
                    chosen.append(a)
                st.apply(a, s)  # apply refuses an illegal action
            results.append(chosen)
        assert results[0] == results[1]


def test_told_kinds_replace_the_learnt_ones():
    """``told`` (a measuring option of the level, ``model_known``) sets every other seat's kind;
    an unknown kind is refused by name."""
    _, view = _play(["greedy", "random", "easy", "greedy"], 1, deals=2, stop=lambda v, s: s == 0 and v["deal"] == 2)
    worlds = ModelWorlds(view, GAME.world_sampler(view), random.Random(1))
    worlds.told("random")
    rng = random.Random(2)
    for _ in range(20):
        _, kinds, weight = worlds.draw_weighted(rng)
        assert kinds == [RULE, RANDOM, RANDOM, RANDOM]
        assert weight == 1.0  # random players' decisions weigh every world alike
    with pytest.raises(ValueError, match="sloppy"):
        worlds.told("sloppy")
