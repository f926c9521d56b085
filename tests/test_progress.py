"""``State.progress()``: deals finished and match scores, the search's horizon (all four games)."""

from __future__ import annotations

import random

import pytest

from updown.core.registry import all_games

GAMES = [g.id for g in all_games()]
SETTINGS = {"euchre": {"target": 5}, "updown": {"rounds": 3}, "up-or-down": {}, "updown-sueca": {}}


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("seed", range(6))
def test_progress_counts_deals_at_their_end_and_ends_at_the_result(game_id, seed):
    game = next(g for g in all_games() if g.id == game_id)
    rng = random.Random(seed)
    state = game.new_state(game.bench_players, game.options(SETTINGS[game_id]))
    before = state.progress()
    assert before is not None and before.deals == 0 and len(before.scores) == state.players
    scored = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            seat = state.actors()[0]
            state.apply(rng.choice(state.legal_actions(seat)), seat)
        now = state.progress()
        assert now is not None
        assert now.deals in (before.deals, before.deals + 1)
        if now.deals > before.deals:
            scored += 1
            # a deal ends with its scoring step: the next deal starts with chance, or the match is over
            assert state.is_chance() or state.is_terminal()
        before = now
    result = state.result()
    assert before.scores == tuple(result.scores)
    best = min(range(state.players), key=lambda s: result.placings[s])
    assert result.scores[best] == (max if before.higher_wins else min)(result.scores)
    if game_id in ("updown", "updown-sueca", "euchre"):
        assert scored >= 1
    if game_id == "updown":
        assert scored == state.rounds  # every round, tie-breaks included
