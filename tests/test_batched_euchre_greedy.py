"""The batched Euchre greedy rule and its whole-deal loop (issue 33, ninth pass) against their
references: ``greedy_actions`` (one ``argmax`` over the cards per step, from tables) chooses what
the rule written out card array by card array chose before (kept here), at every step of many
playouts from every kind of position; ``greedy_to_deal_end`` (no legality check, no gathers while
every game is in play) leaves every array and the generator exactly as stepping the rule through
``step`` does; and a level held to a count of worlds decides the same twice for the same seed."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from test_batched_euchre_load import OPTIONS, _assert_same, _positions  # noqa: E402

from updown.batched.bits import U64, expand, popcount  # noqa: E402
from updown.batched.euchre import (  # noqa: E402
    _ROWS, _SEATS, _THROW, BID1, BID2, DEFEND, DISCARD, NUM_CARDS, OVER, PLAY, SUIT_T, SUITBITS, BatchedEuchre,
)
from updown.bots.euchre_greedy import EuchreNormal  # noqa: E402
from updown.games import euchre as E  # noqa: E402
from updown.games.euchre import GAME  # noqa: E402

_TRUMPS = np.array([[E.EFF[t][c] == t for c in range(NUM_CARDS)] for t in range(4)])


def _reference_greedy(b: BatchedEuchre) -> Any:
    """``greedy_actions`` as it was written before the ninth pass (2026-11-29): every candidate
    set and every choice as a (games, 24) array, one ``argmax``/``argmin`` each."""
    phase = b.phase
    legal = b.legal_bits()
    n = b.n
    hand = b.hands[b._all4 + b.turn]
    out = np.full(n, -1, dtype=np.int64)
    up = SUIT_T[b.upcard]
    dealer = b.turn == b.dealer
    cardlike = (phase == PLAY) | (phase == DISCARD)
    if cardlike.any():
        t = b.trump & 3
        row = np.where((phase == PLAY) & (b.led24 >= 0), t * 4 + b.led24 // 24, 16 + t)
        power = _ROWS[row]
        ok = expand(legal >> np.where(phase == DISCARD, U64(E.DISCARD), U64(0)), NUM_CARDS)
        strongest = np.argmax(np.where(ok, power, -1), axis=1)
        weakest = np.argmin(np.where(ok, power, 99), axis=1)
        play = strongest
        if (phase == PLAY).any():
            throw = np.argmin(np.where(ok, _THROW[t], 999), axis=1)
            following = b.led24 >= 0
            top = b.best >> 2
            partner_wins = following & ((b.best & 3) == ((b.turn + 2) & 3)) & (top > 0)
            beats = ok & (power > top[:, None])
            can_win = beats.any(axis=1)
            cheapest_win = np.argmin(np.where(beats, power, 999), axis=1)
            follow = np.where(partner_wins | ~can_win, throw, np.where(b.left == 1, cheapest_win, strongest))
            off = ok & ~_TRUMPS[t]
            defends = (b.turn & 1) != (b.maker & 1)
            lead_off = np.argmax(np.where(off, power, -1), axis=1)
            lead = np.where(defends & off.any(axis=1), lead_off, strongest)
            play = np.where(following, follow, lead)
        out = np.where(phase == PLAY, play, np.where(phase == DISCARD, E.DISCARD + weakest, out))
    n_up = popcount(hand & SUITBITS[up * 5]) + dealer
    out = np.where(phase == BID1, np.where(n_up >= 3, np.where(dealer, E.PICK_UP, E.ORDER_UP), E.PASS), out)
    if (phase == BID2).any():
        counts = popcount(hand[:, None] & SUITBITS[_SEATS * 5][None, :])
        counts[b._all, up] = -1
        suit = np.argmax(counts, axis=1)
        longest = counts[b._all, suit]
        must = dealer & b.options.stick_the_dealer
        out = np.where(phase == BID2, np.where((longest >= 3) | must, E.NAME + suit, E.PASS), out)
    out = np.where(phase == DEFEND, E.PASS, out)
    return np.where(phase == OVER, -1, out)


@pytest.mark.parametrize("options", OPTIONS)
def test_the_greedy_rule_is_the_rule_written_out_card_by_card(options: dict[str, Any]) -> None:
    """At every step of playouts from every decision of random and greedy matches (mixed phases,
    play only, and every game at its own phase), in batches where the rule and random play take
    turns so that the games reach positions the rule alone would not, the rule chooses what the
    reference chooses."""
    states = [st for st in _positions(options, 12, seed=40 + len(options))]
    checked = {PLAY: 0, DISCARD: 0, BID1: 0, BID2: 0, DEFEND: 0}
    play_only = 0
    in_play = [st for st in states if st.view(None)["phase"] == "play"]
    groups = [states[start:start + 97] for start in range(0, len(states), 97)]
    for start, group in enumerate([*groups, in_play[:150], in_play[150:300]]):
        batch = BatchedEuchre.from_states(group, seed=start)
        step = 0
        while not batch.all_done():
            got, want = batch.greedy_actions(), _reference_greedy(batch)
            assert np.array_equal(got, want), (step, np.flatnonzero(got != want)[:5])
            for p in checked:
                checked[p] += int((batch.phase == p).sum())
            play_only += bool((batch.phase == PLAY).all())
            batch.step(got if step % 3 else batch.random_actions())
            step += 1
    assert checked[PLAY] > 5000 and checked[DISCARD] > 20 and checked[BID1] > 500 and checked[BID2] > 100
    assert play_only > 0
    if options.get("lone_defender"):
        assert checked[DEFEND] > 20


@pytest.mark.parametrize("options", [*OPTIONS, {"deals": 1}, {"stick_the_dealer": False, "deals": 2}])
def test_greedy_to_deal_end_is_stepping_the_rule(options: dict[str, Any]) -> None:
    """From every decision of random and greedy matches, each world continued once per legal action
    (as the levels' playouts are, thrown-in deals and lone hands included): the whole-deal loop
    leaves every array, the scores and the generator exactly as stepping ``greedy_actions`` with -1
    for the games whose deal is over; with the deal numbers given from before the first action,
    a game whose deal that action ended does not move."""
    opts = {"deals": 3, **options}
    states = [st for st in _positions(opts, 30 // opts["deals"], seed=60 + len(options)) if not st.is_terminal()]
    compared = 0
    for start in range(0, len(states), 50):
        chunk = states[start:start + 50]
        worlds, actions = [], []
        for st in chunk:
            seat = st.actors()[0]
            for a in st.legal_actions(seat):
                worlds.append(st)
                actions.append(a)
        base = BatchedEuchre.from_states(worlds, seed=start)
        deal = base.deals()
        base.step(np.asarray(actions))
        fast, slow = base.take(np.arange(base.n)), base.take(np.arange(base.n))
        fast.rng, slow.rng = np.random.default_rng(start), np.random.default_rng(start)
        fast.greedy_to_deal_end(deal)
        while True:
            live = (slow.deals() == deal) & ~slow.done
            if not live.any():
                break
            a = slow.greedy_actions()
            a[~live] = -1
            slow.step(a)
        _assert_same(fast, slow)
        assert fast.rng.integers(1 << 62) == slow.rng.integers(1 << 62)
        assert ((fast.deals() != deal) | fast.done).all()
        compared += base.n
    assert compared > 1000


def test_greedy_to_deal_end_checks_its_deal_numbers() -> None:
    batch = BatchedEuchre(3, seed=1)
    with pytest.raises(ValueError, match=r"one deal number per game: shape \(3,\)"):
        batch.greedy_to_deal_end(np.zeros(2, dtype=np.int64))


def test_a_level_held_to_a_count_of_worlds_decides_the_same_for_the_same_seed() -> None:
    """``normal`` and ``hard`` with no clock and a fixed count of worlds: two bots of the same seed
    make the same choices (and use the same worlds) at every decision with a choice; bots of other
    seeds differ somewhere (the seed is used)."""
    from updown.bots.euchre_greedy import EuchreHard

    positions = [st for st in _positions({}, 3, seed=11)
                 if not st.is_terminal() and len(st.legal_actions(st.actors()[0])) > 1]
    assert len(positions) > 20
    differ = 0
    for cls in (EuchreNormal, EuchreHard):
        for i, st in enumerate(positions):
            seat = st.actors()[0]
            legal = st.legal_actions(seat)
            picks = []
            for seed in (i, i, i + 1000):
                bot = cls(GAME, seat, random.Random(seed))
                bot.milliseconds = None  # type: ignore[assignment]  # no clock: a count budget
                bot.worlds = 24
                picks.append((bot.act(st.view(seat), legal), bot.estimates(st.view(seat), legal)))
            assert picks[0][0] == picks[1][0] and picks[0][1] == picks[1][1]
            differ += picks[0][1] != picks[2][1]
    assert differ > 0


def test_worlds_loaded_with_repeats_are_the_batch_taken_game_by_game() -> None:
    """``from_states(worlds, view=, repeats=k)`` (the levels' playouts: each world once per action)
    is the batch of the worlds with each game taken ``k`` times in a row, array for array."""
    rng = random.Random(3)
    checked = 0
    for st in _positions({"lone_defender": True}, 3, seed=21):
        seat = st.actors()[0] if not st.is_terminal() else None
        if seat is None:
            continue
        view = st.view(seat)
        sampler = GAME.world_sampler(view)
        worlds = [sampler.draw(rng) for _ in range(5)]
        for k in (1, 2, 3):
            direct = BatchedEuchre.from_states(worlds, seed=1, view=view, repeats=k)
            taken = BatchedEuchre.from_states(worlds, seed=1, view=view).take(np.repeat(np.arange(5), k))
            _assert_same(direct, taken)
            checked += 1
    assert checked > 50
    with pytest.raises(ValueError, match="repeats must be a positive integer, not 0"):
        BatchedEuchre.from_states(worlds, seed=1, view=view, repeats=0)
    with pytest.raises(ValueError, match="only with view="):
        BatchedEuchre.from_states(worlds, seed=1, repeats=2)
