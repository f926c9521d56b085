"""The batched Euchre ``smart`` playout rule (issue 33, tenth pass) against the scalar ``greedy``
bot it stands for: batched games and scalar states are fed the same chance and the same actions
(the rule's and random ones taking turns, so the games reach positions the rule alone would not),
and at every step every game's ``smart_actions`` choice is what ``EuchreGreedy.act`` chooses from
that seat's view of the scalar state, card by card (bids, discards, leads, follows, lone hands,
lone defenders); the rule's choices are legal; the whole-deal loop with ``rule="smart"`` is
stepping the rule; a level with ``playout="smart"`` held to a count of worlds is reproducible."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from test_batched_euchre_load import _assert_same, _positions  # noqa: E402

from updown.batched.euchre import BID1, BID2, DEFEND, DISCARD, PLAY, BatchedEuchre  # noqa: E402
from updown.bots.euchre_endgame import endgame_margins  # noqa: E402
from updown.bots.euchre_greedy import EuchreGreedy, EuchreHard, discard_choice, strength  # noqa: E402
from updown.core.registry import get_game  # noqa: E402
from updown.games import euchre as E  # noqa: E402
from updown.games.euchre import GAME  # noqa: E402

RUNS = [
    (300, 1, {"deals": 2}, 7.5),
    (200, 2, {"lone_defender": True, "deals": 2}, 7.5),
    (200, 3, {"stick_the_dealer": False, "deals": 2}, 7.5),
    (200, 4, {"deals": 2}, 6.0),
]


def _rounded_below(view: Any, seat: int, make: float) -> bool:
    """Whether the bot's bid value (its floating-point strength, as ``_bid1`` and ``_bid2`` work it
    out) lies just below a threshold it equals exactly: 6.7 + 0.8 is 7.4999999999999991 in floats,
    7.5 in the batch's twentieths, the one place where the two may bid apart."""
    hand = [E.card_id(c) for c in view["hand"]]
    up = E.card_id(view["upcard"])
    turned = E.SUIT[up]
    dealer = view["dealer"]
    if view["phase"] == "bid1":
        if seat == dealer:
            drop = discard_choice([*hand, up], turned, up)
            values = [strength([c for c in [*hand, up] if c != drop], turned)]
        else:
            worth = strength([up], turned)
            values = [strength(hand, turned) + (0.5 * worth if (dealer - seat) % 2 == 0 else -0.5 * worth)]
    else:
        values = [strength(hand, t) for t in range(4) if t != turned]
    return any(th - 1e-9 < v < th for v in values for th in (make, make - 0.5, EuchreGreedy.alone))


@pytest.mark.parametrize("n, seed, options, make", RUNS)
def test_the_smart_rule_is_the_greedy_bot(n: int, seed: int, options: dict[str, Any], make: float,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """(With the threshold ``make`` of the batch and the bot's alike.)"""
    monkeypatch.setattr(EuchreGreedy, "make", make)
    batch = BatchedEuchre(n, seed, options, record=True)
    batch.make = make
    game = get_game("euchre")
    states = [game.new_state(4, batch.options) for _ in range(n)]
    fed = [0] * n
    bots = {s: EuchreGreedy(GAME, s, random.Random(0)) for s in range(4)}
    checked: Counter[int] = Counter()
    lone = 0
    mismatches: list[Any] = []
    rounded = 0
    step = 0
    while True:
        for g, st in enumerate(states):
            log = batch.chance_log[g]
            while st.is_chance():
                st.apply(log[fed[g]])
                fed[g] += 1
        if batch.all_done():
            break
        smart = batch.smart_actions()
        legal_bits = batch.legal_bits()
        phase = batch.phase.tolist()
        for g, st in enumerate(states):
            if st.is_terminal():
                assert smart[g] == -1
                continue
            seat = st.actors()[0]
            legal = st.legal_actions(seat)
            a = int(smart[g])
            assert a in legal and (int(legal_bits[g]) >> a) & 1, (g, a, legal)
            want = bots[seat].act(st.view(seat), legal)
            if a != want and phase[g] in (BID1, BID2) and _rounded_below(st.view(seat), seat, make):
                rounded += 1
            elif a != want:
                mismatches.append((step, g, phase[g], a, want))
            checked[phase[g]] += 1
            lone += want in (E.ORDER_UP_ALONE, E.PICK_UP_ALONE) or E.NAME_ALONE <= want < E.NAME_ALONE + 4
        actions = smart if step % 3 else batch.random_actions()
        batch.step(actions)
        for g, st in enumerate(states):
            if not st.is_terminal():
                st.apply(int(actions[g]))
        step += 1
    assert checked[PLAY] > 3000 and checked[DISCARD] > 30 and checked[BID1] > 500 and checked[BID2] > 50
    if options.get("lone_defender"):
        assert checked[DEFEND] > 20
    assert not mismatches, mismatches[:10]
    assert rounded <= 3
    assert lone >= 3  # the bot went alone (5 to 19 times a run at alone 7), and the rule with it


def test_greedy_to_deal_end_with_the_smart_rule_is_stepping_it() -> None:
    """From decisions of greedy and random matches, each world once per legal action: the
    whole-deal loop with ``rule="smart"`` leaves every array and the generator as stepping
    ``smart_actions`` through ``step`` (which checks legality), and plays otherwise than the
    simple rule."""
    states = [st for st in _positions({"deals": 3}, 12, seed=71) if not st.is_terminal()]
    worlds, actions = [], []
    for st in states:
        seat = st.actors()[0]
        for a in st.legal_actions(seat):
            worlds.append(st)
            actions.append(a)
    base = BatchedEuchre.from_states(worlds, seed=5)
    deal = base.deals()
    base.step(np.asarray(actions))
    fast, slow, simple = (base.take(np.arange(base.n)) for _ in range(3))
    for b in (fast, slow, simple):
        b.rng = np.random.default_rng(5)
    fast.rule = slow.rule = "smart"
    fast.greedy_to_deal_end(deal)
    simple.greedy_to_deal_end(deal)
    while True:
        live = (slow.deals() == deal) & ~slow.done
        if not live.any():
            break
        a = slow.playout_actions()
        a[~live] = -1
        slow.step(a)
    _assert_same(fast, slow)
    assert fast.rng.integers(1 << 62) == slow.rng.integers(1 << 62)
    assert (fast.totals != simple.totals).any()
    assert base.n > 500


def test_the_playout_rule_and_threshold_are_checked() -> None:
    st = next(s for s in _positions({}, 1, seed=3) if not s.is_terminal())
    seat = st.actors()[0]
    with pytest.raises(ValueError, match="the playout rule is 'greedy' or 'smart', not 'clever'"):
        endgame_margins([st], seat, st.legal_actions(seat), 0, rng=np.random.default_rng(1), rule="clever")
    batch = BatchedEuchre(4, seed=1)
    batch.make = 6.01
    with pytest.raises(ValueError, match="make threshold is a multiple of 0.05, not 6.01"):
        batch.smart_actions()
    batch.make, batch.go_alone = 6.0, 7.01
    with pytest.raises(ValueError, match="go_alone threshold is a multiple of 0.05, not 7.01"):
        batch.smart_actions()


def test_the_smart_rule_bids_with_the_bots_thresholds() -> None:
    """The batch's thresholds by default are the ``greedy`` bot's (the rule stands for the bot as it
    plays; the comparison above sets ``make`` on both sides alike, so it would not see them part)."""
    assert (BatchedEuchre.make, BatchedEuchre.go_alone) == (EuchreGreedy.make, EuchreGreedy.alone)


def test_hard_with_the_smart_playouts_held_to_a_count_is_reproducible() -> None:
    """``hard`` with ``playout="smart"``, no clock, 24 worlds: two bots of the same seed choose and
    value alike at every decision with a choice; the smart playouts value otherwise than the simple
    ones somewhere."""
    positions = [st for st in _positions({}, 2, seed=13)
                 if not st.is_terminal() and len(st.legal_actions(st.actors()[0])) > 1]
    assert len(positions) > 15
    differ = 0
    for i, st in enumerate(positions):
        seat = st.actors()[0]
        legal = st.legal_actions(seat)
        got = []
        for playout in ("smart", "smart", "greedy"):
            bot = EuchreHard(GAME, seat, random.Random(i))
            bot.milliseconds = None  # type: ignore[assignment]  # no clock: a count budget
            bot.worlds = 24
            bot.playout = playout
            got.append((bot.act(st.view(seat), legal), bot.estimates(st.view(seat), legal)))
        assert got[0] == got[1]
        differ += got[0][1] != got[2][1]
    assert differ > 0
