"""The benchmarks' bot specs (benchmarks/bots_strength.py) and the deal-by-deal comparison
(benchmarks/deal_pairs.py): what they build and that they compare like with like."""

from __future__ import annotations

import random

import pytest
from bench_util import load_benchmark

pytest.importorskip("numpy")

from updown.bots.updown_sueca_greedy import UpDownSuecaHard  # noqa: E402
from updown.core.registry import get_game  # noqa: E402



def test_a_level_with_settings_changed_keeps_the_level_and_changes_only_those():
    strength = load_benchmark("bots_strength")
    game = get_game("updown-sueca")
    bot = strength._bot("hard:worlds=8,ms=0,own=trick+decide", game, 1, random.Random(0))
    assert isinstance(bot, UpDownSuecaHard)  # the level's worlds (the exchange model) and anchors stay
    assert (bot.worlds, bot.milliseconds, bot.min_worlds) == (8, None, UpDownSuecaHard.min_worlds)
    assert bot.own_best_for({"phase": "trick"}) and bot.own_best_for({"phase": "decide"})
    assert not bot.own_best_for({"phase": "exchange"})
    plain = strength._bot("hard:worlds=8", game, 1, random.Random(0))
    assert plain.milliseconds == UpDownSuecaHard.milliseconds and not plain.own_best_for({"phase": "trick"})
    with pytest.raises(SystemExit, match="unknown setting colour"):
        strength._bot("hard:colour=3", game, 1, random.Random(0))
    # Any other setting the level has is set by its type (an optional one as a number).
    assert strength._bot("hard:depth=3", game, 1, random.Random(0)).depth == 3
    updown = strength._bot("hard:read=0,batch_games=200", get_game("updown"), 1, random.Random(0))
    assert (updown.read, updown.batch_games, updown.policy) == (False, 200, "bot")
    with pytest.raises(SystemExit, match="'greedy' is not a pimc level of updown-sueca"):
        strength._bot("greedy:worlds=3", game, 1, random.Random(0))


def test_deal_pairs_plays_the_same_deal_for_every_bot_and_greedy_scores_nothing(capsys):
    pairs = load_benchmark("deal_pairs")
    game = get_game("updown-sueca")
    start = pairs.deal_start(game, 4, 12345)
    assert not start.is_terminal() and start.is_chance()
    times: list[float] = []
    greedy = [pairs.play_deal(game, start, seat, pairs._bot("greedy", game, seat, random.Random(seat)), 12345, times)
              for seat in range(4)]
    # The same deal and chance for every seat, greedy everywhere: the seats' margins cancel (they
    # would not if each seat's game had its own cards).
    assert sum(greedy) == pytest.approx(0.0) and any(greedy)
    twice = [pairs.play_deal(game, start, 2, pairs._bot("hard:worlds=6,ms=0", game, 2, random.Random(7)), 12345,
                             times) for _ in range(2)]
    assert twice[0] == twice[1]  # a seeded bot on the same deal: the same margin
    pairs.main(["updown-sueca", "2", "greedy", "hard:worlds=4,ms=0"])
    out = capsys.readouterr().out
    assert "greedy: +0.000 ± 0.000 points a deal" in out and "less greedy" in out


def test_the_clairvoyant_bound_plays_from_copies_of_the_real_state():
    bound = load_benchmark("clairvoyant")
    game = get_game("updown")
    table = bound.Table()
    state = game.new_state(4, game.options({"rounds": 1}))
    rng = random.Random(1)
    while state.is_chance():
        state.apply(state.sample_chance(rng))
    table.observe(state, None, 0)
    world = bound.RealWorlds(table).draw(random.Random(0))
    assert world is not state
    assert all(world.view(s) == state.view(s) for s in range(4))  # every hand: it cheats
    won, diff = bound.play(game, 7, 0, 4, "greedy")
    assert won in (0.0, 1.0) and -44 <= diff <= 44


def test_the_in_process_table_of_the_server_benchmarks_plays_a_game_and_every_seat_hears_its_own_frames():
    import asyncio
    import json

    table = load_benchmark("inprocess_table")
    heard: dict[int, list[dict]] = {s: [] for s in range(4)}

    async def play() -> object:
        live = table.seated_table("updown", "t0", "s0", lambda seat, text: heard[seat].append(json.loads(text)))
        await live.broadcast()
        rng = random.Random(3)
        while not live.state.is_terminal():
            if live.state.is_chance():
                await live.chance_steps()
            else:
                seat = live.state.actors()[0]
                await live.submit(seat, rng.choice(live.state.legal_actions(seat)), None, "player")
            await live.broadcast()
        return live

    live = asyncio.run(play())
    for seat in range(4):
        frames = [m for m in heard[seat] if m["type"] in ("frame", "snapshot")]
        assert frames and frames[-1]["n"] == len(live.steps)  # every step reached every seat
        assert {m["view"]["seat"] for m in frames} == {seat}  # each socket is its seat's, not another's
