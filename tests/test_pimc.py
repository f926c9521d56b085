"""The ``pimc`` bot and :func:`updown.batched.playout.deal_values`: legal, reproducible, from the
view alone, and valuing an action by exactly what it scores to the end of the deal."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from updown.batched.playout import ENGINES, deal_values  # noqa: E402
from updown.bots import bot_names, make_bot  # noqa: E402
from updown.bots.pimc import PimcBot  # noqa: E402
from updown.bots.search import deal_rewards  # noqa: E402
from updown.core.driver import play_game  # noqa: E402
from updown.core.protocol import State  # noqa: E402
from updown.core.records import Record, replay  # noqa: E402
from updown.core.registry import all_games, get_game  # noqa: E402
from updown.simulate import seeded  # noqa: E402

BATCHED = sorted(ENGINES)
SHORT = {"euchre": {"target": 3}, "updown": {"rounds": 1}}


class SmallPimc(PimcBot):
    worlds = 12


def test_pimc_is_listed_for_the_games_with_a_batched_engine_only():
    for game in all_games():
        assert ("pimc" in bot_names(game.id)) == (game.id in ENGINES)


@pytest.mark.parametrize("game_id", BATCHED)
def test_pimc_plays_whole_games_legally_and_reproducibly(game_id):
    game = get_game(game_id)
    players = game.bench_players

    def run() -> Any:
        agents = [SmallPimc(game, s, random.Random(f"9:{s}")) if s in (0, 1)
                  else make_bot("greedy", game, s, random.Random(f"9:{s}")) for s in range(players)]
        return play_game(game, players, agents, seeded(9), options=game.options(SHORT[game_id]), seed=9)

    state, record = run()  # play_game refuses any illegal action
    assert state.is_terminal()
    assert run()[1].steps == record.steps
    assert replay(Record.from_json(record.to_json())).result() == state.result()


def _decisions(game_id: str, seed: int) -> list[tuple[State, int]]:
    """Every decision of a randomly played game, as (a copy of the state, the seat to decide)."""
    game = get_game(game_id)
    rng = random.Random(seed)
    state = game.new_state(game.bench_players, game.options(SHORT[game_id]))
    out = []
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        for seat in state.actors():
            out.append((state.clone(), seat))
        seat = state.actors()[0]
        state.apply(rng.choice(state.legal_actions(seat)), seat)
    return out


def _forced_finish(world: State, seat: int, action: int) -> float | None:
    """``seat``'s margin over the rest of the deal after ``action``, if every later step of the
    deal is forced (no chance, one legal action for each seat that must act); None otherwise."""
    w = world.clone()
    start = w.progress()
    w.apply(action, seat)
    while not w.is_terminal() and w.progress().deals == start.deals:
        if w.is_chance():
            return None
        for s in w.actors():
            legal = w.legal_actions(s)
            if len(legal) != 1:
                return None
            w.apply(legal[0], s)
    return deal_rewards(start, w.progress())[seat]


@pytest.mark.parametrize("game_id", BATCHED)
def test_deal_values_are_the_mean_margin_to_the_end_of_the_deal(game_id):
    # Near a deal's end every later step is forced, so each world's value is known exactly: the
    # batch must give the mean of the scalar margins, no more (a next deal would add its points).
    game = get_game(game_id)
    checked = 0
    for state, seat in _decisions(game_id, 3) + _decisions(game_id, 4):
        view = state.view(seat)
        legal = state.legal_actions(seat)
        sampler = game.world_sampler(view)
        worlds = [sampler.draw(random.Random(k)) for k in range(6)]
        exact = [[_forced_finish(w, seat, a) for w in worlds] for a in legal]
        if any(v is None for row in exact for v in row):
            continue
        means, errors = deal_values(worlds, seat, legal, "random", rng=np.random.default_rng(1))
        assert means.tolist() == pytest.approx([sum(row) / len(row) for row in exact])  # type: ignore[arg-type]
        assert all(e >= 0 for e in errors.tolist())
        checked += 1
    assert checked >= 4


@pytest.mark.parametrize("game_id", BATCHED)
def test_deal_values_refuse_worlds_where_the_seat_does_not_decide(game_id):
    state, seat = next((s, k) for s, k in _decisions(game_id, 5) if len(s.actors()) == 1)
    other = (seat + 1) % state.players
    with pytest.raises(ValueError, match=f"not all at a decision of seat {other}"):
        deal_values([state], other, [0], rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="at least one action"):
        deal_values([state], seat, [], rng=np.random.default_rng(0))


@pytest.mark.parametrize("game_id", BATCHED)
def test_pimc_sees_only_the_view(game_id):
    # The same estimates from a JSON copy of the view: nothing but the view's data reaches the bot.
    game = get_game(game_id)
    for state, seat in _decisions(game_id, 6)[::15][:5]:
        view = state.view(seat)
        legal = state.legal_actions(seat)
        a = SmallPimc(game, seat, random.Random(2)).estimates(view, legal)
        b = SmallPimc(game, seat, random.Random(2)).estimates(json.loads(json.dumps(view)), legal)
        assert a == b


def test_updown_levels_play_a_round_legally_and_reproducibly():
    # UP&DOWN's normal and hard levels are pimc (200 and 600 worlds): legal, and the same seed
    # gives the same game.
    game = get_game("updown")

    def run() -> Any:
        names = ["normal", "hard", "greedy", "easy"]
        agents = [make_bot(name, game, s, random.Random(f"4:{s}")) for s, name in enumerate(names)]
        return play_game(game, 4, agents, seeded(4), options=game.options({"rounds": 1}), seed=4)

    state, record = run()
    assert state.is_terminal()
    assert run()[1].steps == record.steps
    assert isinstance(make_bot("hard", game, 0, random.Random(0)), PimcBot)
    assert PimcBot.worlds < type(make_bot("hard", game, 0, random.Random(0))).worlds
    assert isinstance(make_bot("normal", get_game("euchre"), 0, random.Random(0)), PimcBot)
