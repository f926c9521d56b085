"""The ``pimc`` bot and :func:`updown.batched.playout.deal_values`: legal, reproducible, from the
view alone, and valuing an action by exactly what it scores to the end of the deal."""

from __future__ import annotations

import json
import math
import random
import statistics
from collections import Counter
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from updown.batched.playout import ENGINES, deal_values  # noqa: E402
from updown.bots import bot_names, make_bot  # noqa: E402
from updown.bots import pimc as pimc_module  # noqa: E402
from updown.bots.pimc import PimcBot, _chunk_that_fits, _play_deal, _race_end, scalar_deal_values  # noqa: E402
from updown.bots.search import deal_rewards  # noqa: E402
from updown.bots.updown_sueca_greedy import UpDownSuecaGreedy  # noqa: E402
from updown.core.driver import play_game  # noqa: E402
from updown.core.protocol import State  # noqa: E402
from updown.core.records import Record, replay  # noqa: E402
from updown.core.registry import all_games, get_game  # noqa: E402
from updown.simulate import seeded  # noqa: E402

BATCHED = sorted(ENGINES)
SHORT: dict[str, dict[str, Any]] = {"euchre": {"target": 3}, "updown": {"rounds": 1}, "updown-sueca": {},
                                    "up-or-down": {}}
ALL = sorted(SHORT)


class SmallPimc(PimcBot):
    worlds = 12


def test_pimc_is_listed_for_every_game():
    for game in all_games():
        assert "pimc" in bot_names(game.id)
        assert isinstance(make_bot("pimc", game, 0, random.Random(0)), PimcBot)


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


def _standard_errors(values: list[list[float]]) -> list[float]:
    """Each row's standard error of the mean (sample standard deviation over the root of its size)."""
    return [statistics.stdev(row) / math.sqrt(len(row)) for row in values]


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
        # Each world's value is exact, so the standard errors are those of the exact values.
        assert errors.tolist() == pytest.approx(_standard_errors(exact), abs=1e-6)
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


@pytest.mark.parametrize("game_id", ALL)
def test_pimc_is_reproducible_and_sees_only_the_view(game_id):
    # The same estimates from a JSON copy of the view: nothing but the view's data reaches the bot
    # (batched playouts in Euchre and UP&DOWN, through the protocol in the other two).
    game = get_game(game_id)
    bot_class = SmallPimc if game_id in ENGINES else type(
        "Small", (PimcBot,), {"worlds": 4, "depth": 6 if game_id == "up-or-down" else None})
    wanted = 5 if game_id in ENGINES else 4
    # Decisions with a choice, spread over the game (a forced one would compare nothing).
    positions = [(state, seat) for state, seat in _decisions(game_id, 6) if len(state.legal_actions(seat)) > 1]
    assert len(positions) >= wanted
    checked = 0
    for state, seat in positions[::len(positions) // wanted][:wanted]:
        view = state.view(seat)
        legal = state.legal_actions(seat)
        a = bot_class(game, seat, random.Random(2)).estimates(view, legal)
        b = bot_class(game, seat, random.Random(2)).estimates(json.loads(json.dumps(view)), legal)
        assert len(a[0]) == len(legal) and a == b
        checked += 1
    assert checked == wanted


def test_updown_levels_play_a_round_legally_and_reproducibly():
    # UP&DOWN's normal and hard levels are pimc (200 and 600 worlds, with the greedy bot's own
    # rule in their playouts, read worlds and the others' secret cards chosen again): legal, and
    # the same seed gives the same game.
    game = get_game("updown")

    def run() -> Any:
        names = ["normal", "hard", "greedy", "easy"]
        agents = [make_bot(name, game, s, random.Random(f"4:{s}")) for s, name in enumerate(names)]
        for agent in agents[:2]:  # their time budgets off: then the seed alone decides
            assert agent.milliseconds in (90.0, 800.0)
            agent.milliseconds = None
            # A fifth of their worlds (40 and 120, still past min_worlds' first batch): the same code
            # paths (the model, read, rechoose, the batches) at a fifth of the CPU (110 s at load).
            agent.worlds = agent.worlds // 5
            assert agent.worlds > agent.min_worlds
        return play_game(game, 4, agents, seeded(4), options=game.options({"rounds": 1}), seed=4)

    state, record = run()
    assert state.is_terminal()
    assert run()[1].steps == record.steps
    assert isinstance(make_bot("hard", game, 0, random.Random(0)), PimcBot)
    for level in ("normal", "hard"):
        bot = type(make_bot(level, game, 0, random.Random(0)))
        assert bot.policy == "bot" and bot.rechoose and bot.read
    assert PimcBot.worlds < type(make_bot("hard", game, 0, random.Random(0))).worlds
    assert isinstance(make_bot("normal", get_game("euchre"), 0, random.Random(0)), PimcBot)


def _greedy_match(game_id: str, seed: int) -> State:
    """A whole match of the game's greedy bots, finished."""
    game = get_game(game_id)
    state = game.new_state(game.bench_players)
    rng = random.Random(seed)
    table = _greedy_table(game_id, game.bench_players)
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            k = state.actors()[0]
            state.apply(table[k].act(state.view(k), state.legal_actions(k)), k)
    return state


def _greedy_table(game_id: str, players: int) -> list[Any]:
    game = get_game(game_id)
    return [make_bot("greedy", game, k, random.Random(k)) for k in range(players)]


@pytest.mark.parametrize("game_id", ALL)
def test_scalar_deal_values_are_the_mean_margin_to_the_end_of_the_deal(game_id):
    # The protocol playouts, checked as the batched ones: where the rest of the deal is forced,
    # the value of each action is exactly its margin, whatever the policy.
    game = get_game(game_id)
    checked = 0
    for state, seat in _decisions(game_id, 3) + _decisions(game_id, 4) + _decisions(game_id, 10):
        view = state.view(seat)
        legal = state.legal_actions(seat)
        sampler = game.world_sampler(view)
        worlds = [sampler.draw(random.Random(k)) for k in range(5)]
        exact = [[_forced_finish(w, seat, a) for w in worlds] for a in legal]
        if any(v is None for row in exact for v in row):
            continue
        means, errors, used = scalar_deal_values(worlds, seat, legal, _greedy_table(game_id, state.players),
                                                 random.Random(1))
        assert used == len(worlds)
        assert means == pytest.approx([sum(row) / len(row) for row in exact])
        assert errors == pytest.approx(_standard_errors(exact), abs=1e-6)
        checked += 1
    assert checked >= 3


def test_scalar_playouts_stop_at_the_end_of_the_deal():
    # A Sueca match runs over many deals; a playout from a deal's first decision ends with it.
    game = get_game("updown-sueca")
    state, seat = _decisions("updown-sueca", 7)[0]
    assert state.progress().deals == 0
    world = game.world_sampler(state.view(seat)).draw(random.Random(1))
    world.apply(state.legal_actions(seat)[0], seat)
    _play_deal(world, _greedy_table("updown-sueca", 4), random.Random(3), 0)
    assert world.progress().deals == 1 and not world.is_terminal()
    assert world.is_chance()  # the next deal's first step, not taken


def test_scalar_deal_values_refuse_bad_worlds_and_depth_without_valuations():
    state, seat = next((s, k) for s, k in _decisions("updown-sueca", 5) if len(s.actors()) == 1)
    other = (seat + 1) % state.players
    table = _greedy_table("updown-sueca", 4)
    with pytest.raises(ValueError, match=f"seat {other} does not decide"):
        scalar_deal_values([state], other, [0], table, random.Random(0))
    with pytest.raises(ValueError, match="no worlds"):
        scalar_deal_values([], seat, state.legal_actions(seat), table, random.Random(0))
    e_state, e_seat = next((s, k) for s, k in _decisions("euchre", 5) if len(s.legal_actions(k)) > 1)
    with pytest.raises(ValueError, match="needs policies that value a view: EuchreGreedy has no evaluate"):
        scalar_deal_values([e_state], e_seat, e_state.legal_actions(e_seat), _greedy_table("euchre", 4),
                           random.Random(0), depth=3)
    with pytest.raises(ValueError, match="needs policies that value a view: EuchreGreedy has no evaluate"):
        scalar_deal_values([e_state], e_seat, e_state.legal_actions(e_seat), _greedy_table("euchre", 4),
                           random.Random(0), valued=True)


def test_depth_zero_values_each_action_by_the_policies_valuations():
    # Up or Down?: with depth 0 a playout stops right after the tried action, so each value is the
    # seat's valuation gain less the others' mean gain (theirs do not change: zero).
    game = get_game("up-or-down")
    table = _greedy_table("up-or-down", 4)
    places = [(s, k) for s, k in _decisions("up-or-down", 8) if s.view(k)["phase"] == "place"
              and len(s.legal_actions(k)) > 2]
    assert places
    for state, seat in places[:5]:
        legal = state.legal_actions(seat)
        means, _, _ = scalar_deal_values([state], seat, legal, table, random.Random(0), depth=0)
        before = table[seat].evaluate(state.view(seat))
        for action, value in zip(legal, means):
            after = state.clone()
            after.apply(action, seat)
            assert value == pytest.approx(table[seat].evaluate(after.view(seat)) - before)
        # The greedy rule places by the same valuation: its choice is the best-valued action.
        assert legal[means.index(max(means))] == table[seat].act(state.view(seat), legal) or \
            max(means) == pytest.approx(means[legal.index(table[seat].act(state.view(seat), legal))])


def test_pimc_time_budget_uses_the_minimum_worlds_when_time_is_up():
    game = get_game("updown-sueca")
    state, seat = next((s, k) for s, k in _decisions("updown-sueca", 9) if len(s.legal_actions(k)) > 2)
    bot = type("Timed", (PimcBot,), {"worlds": 500, "milliseconds": 0.0, "min_worlds": 3})(
        game, seat, random.Random(1))
    bot.estimates(state.view(seat), state.legal_actions(seat))
    assert bot.used == 3
    batched = type("Timed", (PimcBot,), {"worlds": 500, "milliseconds": 0.0, "min_worlds": 3, "chunk": 7})(
        get_game("euchre"), 0, random.Random(1))
    e_state, e_seat = next((s, k) for s, k in _decisions("euchre", 9) if len(s.legal_actions(k)) > 2)
    batched.seat = e_seat
    batched.estimates(e_state.view(e_seat), e_state.legal_actions(e_seat))
    assert batched.used == 7  # one chunk: the minimum is reached within it


def test_up_or_down_greedy_ranks_the_legal_actions_its_own_choice_first():
    table = _greedy_table("up-or-down", 4)
    seen = Counter()
    for state, seat in _decisions("up-or-down", 8)[:400]:
        legal = state.legal_actions(seat)
        if len(legal) < 2:
            continue
        view = state.view(seat)
        ranked = table[seat].ranked(view, legal)
        assert sorted(ranked) == sorted(legal)
        assert ranked[0] == table[seat].act(view, legal)
        seen[view["phase"]] += 1
        if view["phase"] == "place":
            # In the order of what each placement gains by the rule's valuation, best first.
            means, _, _ = scalar_deal_values([state], seat, ranked, table, random.Random(0), depth=0)
            assert all(a >= b - 1e-9 for a, b in zip(means, means[1:]))
    assert {"place", "take", "play", "draw"} <= set(seen)


def test_pimc_with_widest_searches_only_the_rules_favourites(monkeypatch):
    game = get_game("up-or-down")
    state, seat = next((s, k) for s, k in _decisions("up-or-down", 8)
                       if s.view(k)["phase"] == "place" and len(s.legal_actions(k)) > 3)
    bot = type("Narrow", (PimcBot,), {"worlds": 3, "depth": 4, "widest": 2})(game, seat, random.Random(2))
    searched = []
    monkeypatch.setattr(bot, "estimates", lambda view, legal, against=None: (
        searched.append(list(legal)) or ([0.0, 1.0], [0.0, 0.0])))
    view, legal = state.view(seat), state.legal_actions(seat)
    favourites = make_bot("greedy", game, seat, random.Random(0)).ranked(view, legal)[:2]
    assert bot.act(view, legal) == favourites[1]
    assert searched == [favourites]


def test_scalar_pimc_starts_no_world_that_would_end_past_the_deadline(monkeypatch):
    """Each world takes 10 ms of a fake clock: with 35 ms, three worlds end in time and a fourth
    would end at 40 ms, so it is not started (a check of the clock alone would start it)."""
    state, seat = next((s, k) for s, k in _decisions("updown-sueca", 9) if len(s.legal_actions(k)) > 2)
    clock = [0.0]
    monkeypatch.setattr(pimc_module.time, "perf_counter", lambda: clock[0])
    game = get_game("updown-sueca")
    sampler = game.world_sampler(state.view(seat))
    rng = random.Random(3)
    policies = [make_bot("greedy", game, k, random.Random(k)) for k in range(state.players)]
    drawn = 0

    def worlds():
        nonlocal drawn
        for _ in range(10):
            clock[0] += 0.010
            drawn += 1
            yield sampler.draw(rng)

    _, _, used = scalar_deal_values(worlds(), seat, state.legal_actions(seat), policies, rng,
                                    deadline=0.035, min_worlds=1)
    assert (used, drawn) == (3, 3)
    clock[0], drawn = 0.0, 0
    _, _, used = scalar_deal_values(worlds(), seat, state.legal_actions(seat), policies, rng,
                                    deadline=0.035, min_worlds=5)
    assert (used, drawn) == (5, 5)  # the minimum comes first


def test_a_batch_under_a_time_budget_fits_the_time_left_by_what_the_batches_so_far_cost():
    # One batch seen: its pace per world, at most twice its size.
    assert _chunk_that_fits([(25, 0.020)], 1.0) == 50
    assert _chunk_that_fits([(25, 0.020)], 0.030) == 37
    # Two sizes (a line of 6 ms fixed and 0.2 ms a world): the last pace (0.32 ms a world) binds.
    assert _chunk_that_fits([(25, 0.011), (50, 0.016)], 0.0301) == 94
    # A batch smaller than the last costs at most the cheapest batch so far plus the last pace per
    # world: 11 ms + 9 x 0.32 ms fits in 14 ms.
    assert _chunk_that_fits([(25, 0.011), (50, 0.016)], 0.014) == 9
    # Less than the cheapest batch left: no batch, however small (the line would have said 10
    # worlds in 8.1 ms; a small batch is mostly its fixed part, and lines through noisy batches
    # can put that part near 0).
    assert _chunk_that_fits([(25, 0.011), (50, 0.016)], 0.0081) == 0
    assert _chunk_that_fits([(25, 0.020)], 0.016) == 0
    # Measured in UP&DOWN's `normal` (2 worlds then cost 25 ms): 10 ms left after two batches of
    # 10 worlds at about 40 ms start nothing.
    assert _chunk_that_fits([(10, 0.0364), (10, 0.0420)], 0.010) == 0
    # A batch that cost more per world the larger it was: the next one is smaller, priced whole.
    assert _chunk_that_fits([(25, 0.020), (50, 0.050)], 0.040) == 20
    # Not smaller than a fifth of the first batch.
    assert _chunk_that_fits([(25, 0.010), (50, 0.040)], 0.013) == 0


def test_scalar_pimc_plays_a_whole_game_of_up_or_down_legally_and_reproducibly():
    game = get_game("up-or-down")
    small = type("Small", (PimcBot,), {"worlds": 3, "depth": 4})

    def run() -> Any:
        agents = [small(game, 0, random.Random("5:0")), make_bot("greedy", game, 1, random.Random("5:1"))]
        return play_game(game, 2, agents, seeded(5), options=game.options({}), seed=5)

    state, record = run()
    assert state.is_terminal()
    assert run()[1].steps == record.steps


def test_sueca_greedy_values_the_race_by_the_scores():
    # The Sueca policy's valuation: a chance to win the match, summing to 1 over the seats, higher
    # the fewer points a seat has left, sharper near the end, and exact once the match is over.
    bots = _greedy_table("updown-sueca", 4)

    def chances(scores: list[int]) -> list[float]:
        return [b.evaluate({"scores": scores}) for b in bots]

    for scores in ([20, 20, 20, 20], [18, 19, 20, 20], [3, 4, 8, 10], [1, 6, 6, 6]):
        got = chances(scores)
        assert sum(got) == pytest.approx(1.0)
        assert all((a > b) == (sa < sb) for a, sa in zip(got, scores) for b, sb in zip(got, scores) if sa != sb)
    assert chances([20, 20, 20, 20]) == pytest.approx([0.25] * 4)
    # The same one-point lead counts for more at 3 points left than at 18.
    assert chances([3, 4, 4, 4])[0] > chances([18, 19, 19, 19])[0]
    state = _greedy_match("updown-sueca", 2)
    winner = state.result().winners[0]
    assert [b.evaluate(state.view(k)) for k, b in enumerate(bots)] == [float(k == winner) for k in range(4)]


@pytest.mark.parametrize("game_id", ALL)
def test_every_games_levels_are_pimc_within_their_time_and_legal(game_id):
    game = get_game(game_id)
    normal = make_bot("normal", game, 0, random.Random(0))
    hard = make_bot("hard", game, 0, random.Random(0))
    assert isinstance(normal, PimcBot) and isinstance(hard, PimcBot)
    # UP&DOWN's hard keeps 800 ms: its playouts (the greedy bot's own rule) cost more per batch.
    assert (normal.milliseconds, hard.milliseconds) == (90.0, 800.0 if game_id == "updown" else 900.0)
    # The Sueca levels keep the greedy rule's choice unless clearly beaten (with few worlds the
    # best of noisy means lost to greedy); the others play the best mean.
    assert (normal.anchor, hard.anchor) == ((2.0, 2.0) if game_id == "updown-sueca" else (None, None))
    assert normal.worlds < hard.worlds
    for state, seat in [(s, k) for s, k in _decisions(game_id, 12) if len(s.legal_actions(k)) > 1][:40:8]:
        picks = []
        for _ in range(2):
            bot = make_bot("normal", game, seat, random.Random(3))
            bot.milliseconds, bot.worlds = None, 6  # the seed alone decides
            picks.append(bot.act(state.view(seat), state.legal_actions(seat)))
        assert picks[0] == picks[1] and picks[0] in state.legal_actions(seat)


def _sueca_greedy_game(seed: int, deviate: Any = None) -> list[tuple[State, list[Any]]]:
    """A Sueca match of greedy bots, as (state, bots) before each decision; ``deviate(state, seat,
    legal, pick)`` may replace a pick (returning another action) to make a seat leave the rule."""
    game = get_game("updown-sueca")
    table = _greedy_table("updown-sueca", 4)
    state = game.new_state(4)
    rng = random.Random(seed)
    out = []
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        k = state.actors()[0]
        legal = state.legal_actions(k)
        pick = table[k].act(state.view(k), legal)
        if deviate is not None:
            pick = deviate(state, k, legal, pick)
        out.append((state.clone(), table))
        state.apply(pick, k)
    return out


def test_sueca_greedy_likelihood_explains_its_own_choices_and_no_others():
    # Where every seat plays by the rule, each seat's view is fully explained (1.0) at every step.
    for state, table in _sueca_greedy_game(4):
        assert [table[k].likelihood(state.view(k)) for k in range(4)] == [1.0] * 4
    # One choice off the rule costs exactly one slip: the opposite play/sit-out (the rule's trump
    # is its own choice, so it is explained); the other seats stay explained.
    from updown.games.updown_sueca import PLAY, SIT_OUT

    for seed in range(5, 25):  # the first match whose changed deal goes on to its tricks
        changed: list[tuple[int, int]] = []

        def deviate(state: State, seat: int, legal: Any, pick: int) -> int:
            view = state.view(seat)
            if changed or view["deal"] < 2 or view["phase"] != "decide":
                return pick
            changed.append((seat, view["deal"]))
            return {PLAY: SIT_OUT, SIT_OUT: PLAY}[pick]

        steps = _sueca_greedy_game(seed, deviate)
        seat, deal = changed[0]
        later = [(s, t) for s, t in steps if s.view(seat)["deal"] == deal and s.view(seat)["phase"] == "trick"]
        if later:
            break
    assert later
    slip = steps[0][1][seat].slip
    for state, table in later:
        assert [table[k].likelihood(state.view(k)) for k in range(4)] == [
            slip if k == seat else 1.0 for k in range(4)]
    # Before the deal and after it, the choice is not weighed.
    assert all(t[seat].likelihood(s.view(seat)) == 1.0 for s, t in steps if s.view(seat)["deal"] != deal)


def test_sueca_greedy_likelihood_weighs_each_card_played_off_the_rule_once():
    # A seat plays a card the rule would not have played: from then on in that deal its view
    # costs one slip (its later cards, played by the rule from the hand it then had, are explained),
    # the other seats stay explained, and the next deal is not weighed by it.
    changed: list[tuple[int, int, int]] = []

    def deviate(state: State, seat: int, legal: Any, pick: int) -> int:
        view = state.view(seat)
        if changed or view["deal"] < 1 or view["phase"] != "trick" or len(legal) < 2 or view["trick"] > 2:
            return pick
        changed.append((seat, view["deal"], len(steps_so_far)))
        return next(a for a in legal if a != pick)

    steps_so_far: list[Any] = []
    steps = _sueca_greedy_game(8, lambda *a: (steps_so_far.append(1), deviate(*a))[1])
    seat, deal, at = changed[0]
    slip = steps[0][1][seat].slip
    later = [(s, t) for s, t in steps[at:] if s.view(seat)["deal"] == deal]
    assert len(later) > 2
    for state, table in later:
        assert [table[k].likelihood(state.view(k)) for k in range(4)] == [
            slip if k == seat else 1.0 for k in range(4)]
    assert all(t[seat].likelihood(s.view(seat)) == 1.0 for s, t in steps[:at])
    assert all(t[seat].likelihood(s.view(seat)) == 1.0 for s, t in steps if s.view(seat)["deal"] > deal)


def test_pimc_inference_draws_worlds_the_others_choices_explain():
    # Worlds drawn with inference are explained by the rule much more often than uniform ones (a
    # world off the rule is still kept with the slip's chance), and the bot stays reproducible and
    # reads only its view.
    game = get_game("updown-sueca")
    inferring = type("Infer", (PimcBot,), {"worlds": 6, "infer": True})
    points = {}  # the first trick decision of seat 0 with a choice, in each deal
    for s, t in _sueca_greedy_game(6):
        if s.view(0)["phase"] == "trick" and 0 in s.actors() and len(s.legal_actions(0)) > 1:
            points.setdefault(s.view(0)["deal"], (s, t))
    assert len(points) >= 6
    uniform_fit = inferred_fit = 0.0
    for state, table in list(points.values())[:6]:
        view = state.view(0)
        bot = inferring(game, 0, random.Random(1))
        sampler = game.world_sampler(view)
        policies = bot._scalar_policies(4)
        rng = random.Random(2)
        for _ in range(40):
            u, w = sampler.draw(rng), bot._inferred(sampler, policies, rng)
            uniform_fit += all(policies[k].likelihood(u.view(k)) == 1.0 for k in (1, 2, 3)) / 240
            inferred_fit += all(policies[k].likelihood(w.view(k)) == 1.0 for k in (1, 2, 3)) / 240
        legal = state.legal_actions(0)
        a = inferring(game, 0, random.Random(3)).estimates(view, legal)
        b = inferring(game, 0, random.Random(3)).estimates(json.loads(json.dumps(view)), legal)
        assert a == b
    # With the cards played weighed too, few uniform worlds explain everything (about 5%).
    assert inferred_fit > 0.3 and inferred_fit > 5 * uniform_fit, (inferred_fit, uniform_fit)


class _Seeds(random.Random):
    """A generator whose 64-bit draws are all one given seed."""

    def __init__(self, seed: int):
        super().__init__(0)
        self.seed_value = seed

    def getrandbits(self, k: int) -> int:
        return self.seed_value


def test_anchored_pimc_leaves_the_policys_choice_only_on_clear_evidence():
    # Paired errors: the same means, no error for the anchor itself, and each other action's error
    # is the spread of its difference from the anchor world by world, not its own spread.
    game = get_game("updown-sueca")
    policies = _greedy_table("updown-sueca", 4)
    points = [(s, k) for s, k in _decisions("updown-sueca", 14) if len(s.legal_actions(k)) > 2][:4]
    assert points
    for state, seat in points:
        legal = state.legal_actions(seat)
        sampler = game.world_sampler(state.view(seat))
        worlds = [sampler.draw(random.Random(i)) for i in range(8)]
        plain = scalar_deal_values(worlds, seat, legal, policies, random.Random(5))
        paired = scalar_deal_values(worlds, seat, legal, policies, random.Random(5), against=1)
        assert paired[0] == pytest.approx(plain[0]) and paired[1][1] == 0.0
        rng = random.Random(5)
        singles = []
        for w in worlds:  # one world at a time, with the chance seed it had in the whole run
            singles.append(scalar_deal_values([w], seat, legal, policies, _Seeds(rng.getrandbits(64)))[0])
        diffs = [[v[j] - v[1] for v in singles] for j in range(len(legal))]
        for j, d in enumerate(diffs):
            mean = sum(d) / len(d)
            se = (sum((x - mean) ** 2 for x in d) / len(d) / (len(d) - 1)) ** 0.5
            assert paired[1][j] == pytest.approx(se, abs=1e-9)
    # An anchor no evidence can beat plays the policy's own choice; no anchor plays the best mean.
    stubborn = type("Stubborn", (PimcBot,), {"worlds": 6, "anchor": 1e9})
    free = type("Free", (PimcBot,), {"worlds": 6})
    moved = 0
    for state, seat in points:
        view, legal = state.view(seat), state.legal_actions(seat)
        own = make_bot("greedy", game, seat, random.Random(0)).act(view, legal)
        assert stubborn(game, seat, random.Random(1)).act(view, legal) == own
        means, _ = free(game, seat, random.Random(1)).estimates(view, legal)
        best = free(game, seat, random.Random(1)).act(view, legal)
        assert means[legal.index(best)] == max(means)
        moved += best != own
    assert moved, "no point where the best mean is not the policy's choice: the anchor test proves nothing"


def test_sueca_levels_draw_worlds_by_the_exchange_model_and_anchor_only_trump_and_exchange():
    """Along a greedy match, once another seat has exchanged, the Sueca levels draw worlds by the
    greedy rule's exchange model (a plain pimc's are uniform); the anchor holds the trump choice
    and the exchange only, and a level's decision still comes from its own seat's view."""
    game = get_game("updown-sueca")
    rng = random.Random(2)
    state = game.new_state(4)
    greedy = [make_bot("greedy", game, k, random.Random(k)) for k in range(4)]
    phases = Counter()
    while not state.is_terminal() and state.view(None)["deal"] <= 3:
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        seat = state.actors()[0]
        view, legal = state.view(seat), state.legal_actions(seat)
        for name in ("normal", "hard"):
            level = make_bot(name, game, seat, random.Random(1))
            assert level.anchor_for(view) == (None if view["phase"] in ("decide", "trick") else 2.0)
        if any(view["exchanged"][k] is not None for k in range(4) if k != seat):
            level = make_bot("normal", game, seat, random.Random(1))
            assert level.sampler(view).modelled
            assert not PimcBot(game, seat, random.Random(1)).sampler(view).modelled
            if len(legal) > 1 and phases[view["phase"]] < 2:
                level.milliseconds, level.worlds = None, 6
                assert level.act(view, legal) in legal
            phases[view["phase"]] += 1
        state.apply(greedy[seat].act(view, legal), seat)
    assert phases["trick"] and phases["decide"] and phases["exchange"], phases


def test_race_scoring_reads_the_chances_at_the_deals_end():
    # A linear "race model" (minus each score) must give exactly the points margin while the match
    # goes on; a flat one gives 0 for every action; and a finished match gives its winners the win.
    table = _greedy_table("updown-sueca", 4)
    early = [(s, k) for s, k in _decisions("updown-sueca", 4) if len(s.legal_actions(k)) > 1
             and s.progress().deals == 0][:6]
    assert early
    for state, seat in early:
        legal = state.legal_actions(seat)
        points, _, _ = scalar_deal_values([state.clone() for _ in range(3)], seat, legal, table, random.Random(5))
        linear, _, _ = scalar_deal_values([state.clone() for _ in range(3)], seat, legal, table, random.Random(5),
                                          race=lambda scores: [-s for s in scores])
        flat, _, _ = scalar_deal_values([state.clone() for _ in range(3)], seat, legal, table, random.Random(5),
                                        race=lambda scores: [0.25] * len(scores))
        assert linear == pytest.approx(points)
        assert flat == pytest.approx([0.0] * len(legal))
        assert any(abs(p) > 0 for p in points)  # the comparison above is not between zeros
    state = _greedy_match("updown-sueca", 7)
    winner = state.result().winners[0]
    got = _race_end(state, state.progress(), UpDownSuecaGreedy.chances)
    assert list(got) == [float(k == winner) for k in range(4)]


def test_race_scoring_needs_a_policy_with_a_race_model():
    game = get_game("up-or-down")
    state, seat = next((s, k) for s, k in _decisions("up-or-down", 3) if len(s.legal_actions(k)) > 1)
    bot = type("P", (PimcBot,), {"race": True, "worlds": 2})(game, seat, random.Random(0))
    with pytest.raises(ValueError, match="race scoring needs a policy with a race model: UpOrDownGreedy has no chances"):
        bot.act(state.view(seat), state.legal_actions(seat))


def test_own_best_tries_every_later_choice_of_the_seat_and_never_does_worse_than_the_policy():
    # In one world with the chance seed fixed, the policy's own later choices are one of the
    # sequences own_best tries: so its value is at least the policy's, world by world, equal where
    # the seat has no later choice, and above it somewhere (or nothing is being tried).
    table = _greedy_table("updown-sueca", 4)
    game = get_game("updown-sueca")
    higher = equal_forced = 0
    for seed in (3, 4):
        for state, seat in _decisions("updown-sueca", seed):
            legal = state.legal_actions(seat)
            if len(legal) < 2 or state.view(seat)["phase"] != "trick":  # the exchange's tree is large
                continue
            world = game.world_sampler(state.view(seat)).draw(random.Random(seed))
            plain, _, _ = scalar_deal_values([world.clone()], seat, legal, table, random.Random(1))
            best, _, _ = scalar_deal_values([world.clone()], seat, legal, table, random.Random(1), own_best=True)
            for p, b in zip(plain, best):
                assert b >= p - 1e-9
            if len(state.view(seat)["hand"]) == 2 and state.view(seat)["phase"] == "trick":
                assert best == pytest.approx(plain)  # one card left after this one: nothing to choose
                equal_forced += 1
            higher += any(b > p + 1e-9 for p, b in zip(plain, best))
    assert higher > 0 and equal_forced > 0


def test_own_best_scores_by_the_points_only():
    table = _greedy_table("updown-sueca", 4)
    state, seat = next((s, k) for s, k in _decisions("updown-sueca", 3) if len(s.legal_actions(k)) > 1)
    for kwargs in ({"depth": 2}, {"valued": True}, {"race": UpDownSuecaGreedy.chances}):
        with pytest.raises(ValueError, match="own_best scores playouts by the points"):
            scalar_deal_values([state.clone()], seat, state.legal_actions(seat), table, random.Random(0),
                               own_best=True, **kwargs)
