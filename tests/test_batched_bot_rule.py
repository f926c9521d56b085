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
from updown.games.updown import FLIP, ROLL  # noqa: E402

GAME = get_game("updown")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_bot_rule_chooses_as_the_greedy_bot_at_every_position(players: int) -> None:
    """Along games played mostly by greedy (a random move one time in four), every decision: the
    batch built from the state picks exactly the greedy bot's action."""
    rng = random.Random(players)
    compared = leads = 0
    changes: set[int] = set()
    states, wanted = [], []
    for _ in range(12):
        st = GAME.new_state(players, GAME.options({"rounds": 2}))
        bots = [UpDownGreedy(GAME, s, random.Random(s)) for s in range(players)]
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            seat = st.actors()[0]
            legal = st.legal_actions(seat)
            want = bots[seat].act(st.view(seat), legal)
            states.append(st.clone())
            wanted.append(want)
            if want >= FLIP:
                leads += 1
                changes.add(want if want in (FLIP, ROLL) else FLIP + 1)
            st.apply(want if rng.random() < 0.75 else rng.choice(legal), seat)
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
