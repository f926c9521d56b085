"""The batched UP&DOWN engine's ``bot`` rule is the ``greedy`` bot, choice for choice.

``pimc``'s playouts stand for the other seats' play; against ``greedy`` they are exact only if the
batch plays what ``UpDownGreedy`` would. These tests compare the two at thousands of positions and
along whole batched matches (which also checks the engine's record of the cards played in a round).
"""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

from updown.batched.euchre import BatchedEuchre  # noqa: E402
from updown.batched.updown import BatchedUpDown  # noqa: E402
from updown.bots.updown_greedy import UpDownGreedy  # noqa: E402
from updown.core.registry import get_game  # noqa: E402
from updown.games.updown import FLIP, ROLL, card_id  # noqa: E402
from updown_walk import walk  # noqa: E402

GAME = get_game("updown")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_bot_rule_chooses_as_the_greedy_bot_at_every_position(players: int) -> None:
    """Along games played mostly by greedy (a random move one time in four), every decision: the
    batch built from the state picks exactly the greedy bot's action."""
    leads = 0
    changes: set[int] = set()
    states, wanted = [], []
    for st, _, _, want in walk(players, 12, seed=players, rounds=2, random_share=0.25):
        states.append(st.clone())
        wanted.append(want)
        if want >= FLIP:
            leads += 1
            changes.add(want if want in (FLIP, ROLL) else FLIP + 1)
    got = BatchedUpDown.from_states(states).bot_actions()
    mismatches = [(i, w, int(g)) for i, (w, g) in enumerate(zip(wanted, got)) if w != g]
    compared = len(states)
    assert compared > 1000 and leads > 100
    assert changes == {FLIP, FLIP + 1, ROLL}  # flips, rotations and re-rolls all compared
    assert not mismatches, f"{len(mismatches)} of {compared} differ, e.g. {mismatches[:3]}"


@pytest.mark.parametrize("players", [2, 4])
def test_a_batch_played_by_the_bot_rule_replays_with_greedy_bots(players: int) -> None:
    """Whole matches in a batch under ``bot``: the scalar engine fed the same chance outcomes and
    played by greedy bots ends with the same scores, game by game (this needs the batch to keep
    each round's played cards right from trick to trick and round to round)."""
    batch = BatchedUpDown(30, seed=players, players=players, record=True)
    batch.play("bot")
    assert batch.chance_log is not None
    for g in range(batch.n):
        outcomes = iter(batch.chance_log[g])
        st = GAME.new_state(players)
        bots = [UpDownGreedy(GAME, s, random.Random(s)) for s in range(players)]
        while not st.is_terminal():
            if st.is_chance():
                st.apply(next(outcomes))
                continue
            seat = st.actors()[0]
            st.apply(bots[seat].act(st.view(seat), st.legal_actions(seat)), seat)
        assert list(st.result().scores) == batch.scores()[g].tolist(), f"game {g}"
    # The simple rule is a different one: it does not give the same matches.
    simple = BatchedUpDown(30, seed=players, players=players)
    simple.play("greedy")
    assert (simple.scores() != batch.scores()).any()


def test_the_bot_policy_is_only_offered_where_an_engine_mirrors_the_bot() -> None:
    assert BatchedUpDown(2, seed=1).policy("bot") is not None
    with pytest.raises(ValueError, match="unknown playout policy 'bot' for euchre"):
        BatchedEuchre(2, 1).policy("bot")


def test_retracted_choices_are_made_again_by_the_rule_from_each_hand() -> None:
    """``retract(keep)``: the secret choices of this trick but ``keep``'s go back to their hands;
    played on by ``bot``, each seat then holds what greedy chooses from its whole hand."""
    checked = 0
    # random choices: the retracted ones differ from the rule's
    for st, seat, _, _ in walk(4, 25, seed=5, random_share=1.0):
        if st.view(seat)["phase"] == "choose" and seat > 0:  # seats 0 .. seat-1 have chosen
            batch = BatchedUpDown.from_states([st])
            batch.retract(seat)
            assert int(batch.to_act[0]) == 0
            assert all(int(batch.pending[s]) == -1 for s in range(seat))
            choose = batch.policy("bot")
            while int(batch.to_act[0]) != seat:
                batch.step(choose())
            for s in range(seat):
                view = st.view(s)
                whole = sorted(card_id(c) for c in [*view["hand"], view["choice"]])
                assert int(batch.pending[s]) == UpDownGreedy(GAME, s, random.Random(0))._choose(view, whole)
                checked += 1
    assert checked > 1000


def test_deal_values_rechoose_changes_only_worlds_with_choices_made() -> None:
    from updown.batched.playout import deal_values

    rng = random.Random(3)
    st = GAME.new_state(4, GAME.options({"rounds": 1}))
    while st.is_chance() or st.view(st.actors()[0])["phase"] != "choose":
        if st.is_chance():
            st.apply(st.sample_chance(rng))
        else:  # the first leader's change
            st.apply(st.legal_actions(st.actors()[0])[0], st.actors()[0])
    first = st.actors()[0]
    assert first == 0  # nobody has chosen: rechoose has nothing to take back
    worlds = [GAME.world_sampler(st.view(0)).draw(random.Random(k)) for k in range(20)]
    legal = st.legal_actions(0)
    same = [deal_values(worlds, 0, legal, "bot", rng=np.random.default_rng(1), rechoose=r)[0].tolist() for r in (False, True)]
    assert same[0] == same[1]
    st.apply(legal[0], 0)  # seat 0 has chosen: seat 1's worlds hold a random card for it
    worlds = [GAME.world_sampler(st.view(1)).draw(random.Random(k)) for k in range(20)]
    legal = st.legal_actions(1)
    differ = [deal_values(worlds, 1, legal, "bot", rng=np.random.default_rng(1), rechoose=r)[0].tolist() for r in (False, True)]
    assert differ[0] != differ[1]
    euchre = get_game("euchre").new_state(4)
    while euchre.is_chance():
        euchre.apply(euchre.sample_chance(rng))
    with pytest.raises(ValueError, match="rechoose is for games with secret choices"):
        deal_values([euchre], euchre.actors()[0], euchre.legal_actions(euchre.actors()[0]), rng=np.random.default_rng(0),
                    rechoose=True)
