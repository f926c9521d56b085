"""UP&DOWN's research decks (issue 34): the option ``deck``, and OpenSpiel's CFR solving them.

* The default deck is the rulebook's game, unchanged: fixed-seed records and views hash as they did
  before the option existed, and the full deck written as a research deck plays the same games.
* ``deck`` is a research option: not listed for play, not written while it is the default,
  refused for rated games by the core check (:meth:`GameOptions.check_rated`).
* A research deck plays by the same rules with its own cards and dice: every card in one place,
  the dice of its faces, views that hide what they should, worlds drawn from the deck's cards.
* OpenSpiel: Python CFR on the adapter's game, and on its exact export
  (``benchmarks/research_variants.py``), the same average policy and exploitability; C++ CFR and
  CFR+ reaching a stated exploitability within a bounded number of iterations; the bots as policies.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections import Counter
from typing import Any

import pytest

from updown.bots.base import RandomBot
from updown.core.driver import play_game
from updown.core.errors import IllegalAction, OptionsError
from updown.core.records import Record, replay
from updown.core.registry import all_games, get_game
from updown.games.updown import CARD_STR, DICE, FULL_DECK, ROLL, SUIT, VALUE, Phase, UpDownState, deck_of, dice_of

from bench_util import load_benchmark  # noqa: I001  (tests/ is on sys.path)
from test_conformance import check_clone, check_node, check_rejections, check_views

GAME = get_game("updown")


def game_digest(game: Any, players: int, options: dict[str, Any], games: int = 3) -> str:
    """Random games of ``game`` (random bots, chance from Random(seed)): their records, every view
    and legal actions at every fifth step, a world drawn there for the seat to act, the final views.
    Each game's research-variant tests compare it with what the engine gave before its option
    existed: the full deck must play byte for byte as it did."""
    h = hashlib.sha256()
    for seed in range(games):
        steps = [0]

        def visit(state: Any, *_: Any) -> None:
            steps[0] += 1
            if steps[0] % 5:
                return
            for s in [None, *range(players)]:
                h.update(json.dumps(state.view(s), sort_keys=True).encode())
            h.update(repr([state.legal_actions(s) for s in range(players)]).encode())
            if state.actors():
                world = state.resample(state.actors()[0], random.Random(steps[0]))
                h.update(json.dumps([world.view(s) for s in range(players)], sort_keys=True).encode())

        agents = [RandomBot(game, s, random.Random(100 * seed + s)) for s in range(players)]
        state, record = play_game(game, players, agents, random.Random(seed), options=game.options(options),
                                  seed=seed, observer=visit)
        h.update(record.to_json().encode())
        for s in [None, *range(players)]:
            h.update(json.dumps(state.view(s), sort_keys=True).encode())
    return h.hexdigest()[:16]


# Computed with the engine as it was before the option ``deck`` existed (commit c2d21ed).
BEFORE = {
    (2, False): "4897d5d3e6917895", (2, True): "0d2464570ef5f619",
    (3, False): "c2e5b83161a2efc5", (3, True): "182567c0e65f3c46",
    (4, False): "3befb1297e2207cd", (4, True): "3bdedb39de205e85",
}


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("short", [False, True])
def test_the_default_deck_plays_exactly_as_before(players: int, short: bool) -> None:
    options = {"rounds": 1, "tiebreak_rounds": 2} if short else {}
    assert game_digest(GAME, players, options) == BEFORE[(players, short)]
    assert game_digest(GAME, players, {**options, "deck": "full"}) == BEFORE[(players, short)]


@pytest.mark.parametrize(("players", "spec"), [(2, "12:CDHS:15"), (3, "12:CDHS:14"), (4, "12:CDHS:11")])
def test_the_full_deck_written_as_a_research_deck_is_the_same_game(players: int, spec: str) -> None:
    """The research machinery with the rulebook's numbers (values 2..12, four suits, the rulebook's
    hands, two six-sided dice) plays the very games of the default deck."""
    for seed in range(3):
        assert_same_games(GAME, players, seed, {"rounds": 1}, spec)


def assert_same_games(game: Any, players: int, seed: int, options: dict[str, Any], spec: str) -> None:
    """The rulebook's deck written as a research deck (``spec``) plays the same game from one seed:
    the same steps, result, log and views (but the options). Shared with Euchre's tests."""
    games = []
    for deck in ("full", spec):
        agents = [RandomBot(game, s, random.Random(seed * 7 + s)) for s in range(players)]
        state, record = play_game(game, players, agents, random.Random(seed),
                                  options=game.options({**options, "deck": deck}), seed=seed)
        games.append((record.steps, record.result, state.log, [state.view(s) for s in range(players)]))
    (steps, result, log, views), (steps2, result2, log2, views2) = games
    assert steps == steps2 and result == result2 and log == log2
    for a, b in zip(views, views2):
        assert {k: v for k, v in a.items() if k != "options"} == {k: v for k, v in b.items() if k != "options"}


# -- the option ------------------------------------------------------------------------------------

def test_deck_is_a_research_option_hidden_from_play_lists() -> None:
    names = [name for name, *_ in GAME.Options.fields()]
    assert names == ["rounds", "tiebreak_rounds"]  # what `updown games` and the lobby list
    every = {name: help_ for name, _t, _d, help_ in GAME.Options.fields(research=True)}
    assert "deck" in every and every["deck"].startswith("research only")
    assert GAME.Options.research_fields() == ["deck"]
    for game in all_games():
        if game.id not in ("updown", "euchre", "updown-sueca", "up-or-down"):  # theirs: tests/test_research_variants_*.py
            assert game.Options.research_fields() == []
            assert game.Options.fields(research=True) == game.Options.fields()


def test_a_default_research_option_is_not_written() -> None:
    assert GAME.options({}).to_dict() == {"rounds": None, "tiebreak_rounds": 0}
    assert "deck" not in GAME.options({"deck": "full"}).view()
    small = GAME.options({"rounds": 1, "deck": "4:DS:2"})
    assert small.to_dict() == {"rounds": 1, "tiebreak_rounds": 0, "deck": "4:DS:2"}
    assert GAME.Options.from_dict(small.to_dict()) == small
    assert GAME.Options.from_dict(GAME.options({}).to_dict()) == GAME.options({"deck": "full"})


def test_research_options_are_refused_for_rated_games() -> None:
    for game in all_games():
        game.Options().check_rated()  # every game's defaults are fine
    GAME.options({"deck": "full", "rounds": 3}).check_rated()
    small = GAME.options({"deck": "4:DS:2"})
    assert small.research_in_use() == ["deck"]
    with pytest.raises(OptionsError, match=r"deck=4:DS:2: research option, not for rated games"):
        small.check_rated()


@pytest.mark.parametrize(("spec", "players", "message"), [
    ("small", 2, "deck must be full or TOP:SUITS:HAND"),
    ("4:DS", 2, "deck must be full or TOP:SUITS:HAND"),
    ("4:DS:x", 2, "deck must be full or TOP:SUITS:HAND"),
    ("2:DS:1", 2, "highest value is 3 to 12"),
    ("13:DS:1", 2, "highest value is 3 to 12"),
    ("4:SD:2", 2, "in that order"),
    ("4:DD:1", 2, "distinct letters"),
    ("4:DX:1", 2, "distinct letters"),
    ("4::1", 2, "distinct letters"),
    ("4:DS:0", 2, "at least one card"),
    ("4:DS:4", 2, "too few for 2 hands of 4"),
    ("4:DS:2", 4, "too few for 4 hands of 2"),
    ("12:CDHS:12", 4, "at most the rulebook's .11 for 4 players"),
])
def test_a_deck_that_cannot_be_dealt_is_refused(spec: str, players: int, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        GAME.new_state(players, GAME.options({"deck": spec}))


def test_a_research_deck_holds_its_cards_and_dice() -> None:
    cards, hand, rolls = deck_of("4:DS:2")
    assert [CARD_STR[c] for c in cards] == ["2D", "3D", "4D", "2S", "3S", "4S"]
    assert hand == 2
    assert [dice_of(a) for a in rolls[None]] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert [dice_of(a) for a in rolls[3]] == [(1, 1), (2, 2)]
    cards, hand, rolls = deck_of("5:CH:1")  # dice of 3 faces: sums 2..6, and no card of 6
    assert sorted({VALUE[c] for c in cards}) == [2, 3, 4, 5] and {SUIT[c] for c in cards} == {0, 2}
    assert len(rolls[None]) == 9 and all(max(dice_of(a)) <= 3 for a in rolls[None])
    assert deck_of(FULL_DECK)[1] == 0 and len(deck_of(FULL_DECK)[0]) == 44 and len(deck_of(FULL_DECK)[2][None]) == 36


def test_a_research_deck_rolls_its_own_dice() -> None:
    state = GAME.new_state(2, GAME.options({"rounds": 1, "deck": "4:DS:2"}))
    rng = random.Random(3)
    while state.phase != Phase.DICE:
        state.apply(state.sample_chance(rng))
    assert [dice_of(a) for a, _ in state.chance_outcomes()] == [(1, 1), (1, 2), (2, 1), (2, 2)]
    with pytest.raises(IllegalAction, match=r"3\+4 is not a roll of this deck's dice \(1 to 2\)"):
        state.apply(DICE + 6 * 2 + 3)
    state.apply(DICE + 1)  # 1+2: trump 3
    while not state.actors():
        state.apply(state.sample_chance(rng))
    leader = state.actors()[0]
    state.apply(ROLL, leader)
    assert [dice_of(a) for a, p in state.chance_outcomes()] == [(1, 1), (2, 2)]
    assert all(p == 0.5 for _, p in state.chance_outcomes())
    with pytest.raises(IllegalAction, match=r"the roll 2\+1 repeats the trump 3"):
        state.apply(DICE + 6)


# -- a research deck plays by the rules ------------------------------------------------------------

RESEARCH = [
    pytest.param(2, "3:DS:1", id="2p-3:DS:1"), pytest.param(2, "4:DS:2", id="2p-4:DS:2"),
    pytest.param(3, "7:DHS:3", id="3p-7:DHS:3"), pytest.param(4, "5:CDHS:4", id="4p-5:CDHS:4"),
    pytest.param(2, "11:C:5", id="2p-11:C:5"),
]


def _check_cards(state: UpDownState, cards: tuple[int, ...], hand: int) -> None:
    pending = [c for c in state.pending if c is not None]
    everywhere = [c for h in state.hands for c in h] + pending + [c for p in state.played for c in p]
    everywhere += state.deck + state.aside
    assert sorted(everywhere) == sorted(cards)
    assert state.hand_size == hand
    if state.phase in (Phase.LEAD, Phase.CHOOSE, Phase.DICE) and state.orient is not None:
        assert len(state.aside) == len(cards) - state.players * hand
        for s in range(state.players):
            assert len(state.hands[s]) + (state.pending[s] is not None) + len(state.played[s]) == hand
    if state.dice is not None:
        faces = max(dice_of(a)[0] for a in deck_of(state.options.deck)[2][None])
        assert max(state.dice) <= faces and state.trump == sum(state.dice)


def play_checked(game: Any, players: int, options: dict[str, Any], seed: int, cards: Any, hand: int,
                 check_cards: Any, hands_logged: bool = True) -> tuple[Any, Record]:
    """One game of random players on a research deck, its nodes checked as the conformance suite
    checks them, ``check_cards(state, cards, hand)`` at every node and in drawn worlds; the record
    replays it, and (``hands_logged``: the game logs each hand dealt) every hand dealt holds ``hand``
    of the deck's cards. Shared with Euchre's and the Sueca game's tests."""
    rng = random.Random(seed)

    def visit(s: Any, *_: Any) -> None:
        check_node(s)
        check_cards(s, cards, hand)
        if rng.random() < 0.2:
            check_views(s)
            if not s.is_terminal():
                check_rejections(s, rng)
        if rng.random() < 0.03:
            check_clone(s, rng)
        if s.actors() and rng.random() < 0.3:
            for seat in range(players):
                world = s.resample(seat, rng)
                assert world.view(seat) == s.view(seat)
                assert world.legal_actions(seat) == s.legal_actions(seat)
                check_cards(world, cards, hand)

    agents = [RandomBot(game, s, random.Random(seed * 10 + s)) for s in range(players)]
    state, record = play_game(game, players, agents, random.Random(seed), options=game.options(options),
                              seed=seed, observer=visit)
    assert record.options["deck"] == options["deck"]
    again = replay(Record.from_json(record.to_json()))
    assert again.log == state.log and again.result() == state.result()
    if hands_logged:
        dealt = [e for e in state.log if e["type"] == "hand"]
        assert dealt and all(len(e["cards"]) == hand for e in dealt)
    return state, record


@pytest.mark.parametrize(("players", "spec"), RESEARCH)
def test_a_research_deck_keeps_the_protocol_and_its_cards(players: int, spec: str) -> None:
    cards, hand, _ = deck_of(spec)
    options = {"rounds": 2, "tiebreak_rounds": 1, "deck": spec}
    for seed in range(4):
        state, _record = play_checked(GAME, players, options, seed, cards, hand, _check_cards)
        assert sum(state.totals) + sum(h["discarded"] for h in state.history) == state.rounds * hand
        dealt = [e for e in state.log if e["type"] == "hand"]
        assert {c for e in dealt for c in e["cards"]} <= {CARD_STR[c] for c in cards}


def test_worlds_of_a_research_deck_come_from_its_cards() -> None:
    """Seat 0's worlds put the cards it cannot see, and only those, in the other hand and aside."""
    state = GAME.new_state(2, GAME.options({"rounds": 1, "deck": "4:DS:2"}))
    rng = random.Random(5)
    while not state.actors():
        state.apply(state.sample_chance(rng))
    mine = set(state.hands[0])
    hidden = set(deck_of("4:DS:2")[0]) - mine
    seen = Counter[tuple[int, ...]]()
    for k in range(300):
        world = state.resample(0, random.Random(k))
        assert world.hands[0] == state.hands[0]
        assert set(world.hands[1]) | set(world.aside) == hidden
        seen[tuple(world.hands[1])] += 1
    assert len(seen) == math.comb(4, 2)  # every hand of two of the four hidden cards turns up


# -- OpenSpiel ---------------------------------------------------------------------------------------

pyspiel = pytest.importorskip("pyspiel")


@pytest.fixture(scope="module")
def rv() -> Any:
    return load_benchmark("research_variants")


def test_the_adapter_takes_the_deck_and_passes_openspiel_checks() -> None:
    import updown.adapters.openspiel  # noqa: F401

    for name in ("python_updown", "python_updown_turns"):
        game = pyspiel.load_game(f"{name}(players=2,rounds=1,deck=3:DS:2)")
        assert game.get_parameters()["deck"] == "3:DS:2"
        pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    assert pyspiel.load_game("python_updown").get_parameters()["deck"] == "full"


def test_python_cfr_on_the_adapter_and_on_its_export_agree(rv: Any) -> None:
    """OpenSpiel's Python CFR on ``python_updown_turns(deck=3:DS:1)`` itself and on its export
    (``benchmarks/research_variants.py``): the same average policy after three iterations,
    information set by information set, and the same exploitability (the export is the same game)."""
    from open_spiel.python.algorithms import cfr
    from open_spiel.python.algorithms import exploitability

    import updown.adapters.openspiel  # noqa: F401

    adapter = pyspiel.load_game("python_updown_turns", {"players": 2, "rounds": 1, "deck": "3:DS:1"})
    export, efg = _efg(rv, "3:DS:1")
    on_adapter, on_export = cfr.CFRSolver(adapter), cfr.CFRSolver(efg)
    for _ in range(3):
        on_adapter.evaluate_and_update_policy()
        on_export.evaluate_and_update_policy()
    mine, theirs = on_adapter.average_policy(), on_export.average_policy()
    compared = mixed = 0
    for text, row in mine.state_lookup.items():
        view = json.loads(text)
        info = export.infosets[view["seat"]][hashlib.blake2b(text.encode(), digest_size=16).digest()]
        probs = mine.action_probability_array[row]
        other = theirs.action_probability_array[theirs.state_lookup[info.key]]
        for action, efg_action in zip(info.legal, info.efg):
            assert math.isclose(probs[action], other[efg_action], abs_tol=1e-12)
        compared += 1
        mixed += 0.01 < max(probs) < 0.99
    assert compared == sum(len(t) for t in export.infosets) == 1792
    assert mixed > 50  # the average policies compared are not all trivial
    value = exploitability.exploitability(adapter, mine)
    assert math.isclose(value, exploitability.exploitability(efg, theirs), abs_tol=1e-12)
    assert 0.05 < value < 0.1  # 0.0823: falling from 0.243 (uniform) as CFR's do


@pytest.mark.parametrize(("deck", "solver", "iterations", "bound"), [
    ("3:DS:1", "cfr", 100, 0.0025), ("3:DS:1", "cfr+", 100, 1e-4),
    ("3:DS:2", "cfr", 20, 0.03), ("3:DS:2", "cfr+", 10, 0.015),
])
def test_cfr_reaches_a_stated_exploitability(rv: Any, deck: str, solver: str, iterations: int, bound: float) -> None:
    """OpenSpiel's C++ CFR and CFR+ on the export: the average policy's exploitability after
    ``iterations`` is below ``bound`` (docs/research-variants.md has the curves)."""
    game = _efg(rv, deck)[1]
    curve = rv.cfr_curve(game, solver, iterations, (), log=lambda _line: None)
    assert len(curve) == 1 and curve[0][0] == iterations
    assert curve[0][1] < bound


_EXPORTS: dict[str, Any] = {}


def _efg(rv: Any, deck: str) -> tuple[Any, Any]:
    """The export of ``deck`` and its OpenSpiel game, made once per test session."""
    if deck not in _EXPORTS:
        export = rv.Export(deck)
        _EXPORTS[deck] = (export, export.load())
    return _EXPORTS[deck]  # type: ignore[no-any-return]


def test_the_bots_are_policies_of_the_small_game(rv: Any) -> None:
    """greedy and easy asked at every information set of 3:DS:1: complete policies, easy's mixture
    as the bot draws it, and both further from equilibrium than 100 iterations of CFR."""
    asked = rv.BotPolicies(["greedy", "easy"])
    views: list[tuple[Any, Any]] = []

    def visit(info: Any, view: Any) -> None:
        asked.visit(info, view)
        if len(info.legal) > 1 and len(views) < 6:
            views.append((info, view))

    export = rv.Export("3:DS:1", on_infoset=visit)
    game = export.load()
    infosets = {i.key for i in export.all_infosets()}
    for name in ("greedy", "easy"):
        policy = asked.policies[name]
        assert set(policy) == infosets
        assert all(math.isclose(sum(p for _, p in row), 1.0) for row in policy.values())
    # easy's probabilities are what the bot itself draws
    from updown.bots import make_bot

    for info, view in views:
        bot = make_bot("easy", GAME, info.seat, random.Random(info.number))
        draws = Counter(bot.act(view, list(info.legal)) for _ in range(600))
        expected = dict(zip(info.legal, (p for _, p in asked.policies["easy"][info.key])))
        for action, p in expected.items():
            assert abs(draws[action] / 600 - p) < 0.07, (action, draws, expected)
    greedy, easy = (rv.exploitability(game, asked.policies[n]) for n in ("greedy", "easy"))
    uniform = rv.exploitability(game, rv.uniform_policy(export))
    assert 0.0025 < greedy < easy < uniform  # CFR is below 0.0025 after 100 iterations (above)


def test_the_vector_env_plays_a_research_deck_on_the_scalar_backend() -> None:
    """The batched engine deals the full deck: 'auto' must not pick it for a research deck (it would
    silently play the full game), and asking for it by name is refused."""
    from updown.adapters.vector import VectorEnv

    small = {"rounds": 1, "deck": "4:DS:2"}
    assert VectorEnv("updown", 2, num_envs=2, options=small, seed=1).backend == "scalar"
    assert VectorEnv("updown", 2, num_envs=2, options={"rounds": 1}, seed=1).backend == "batched"
    with pytest.raises(ValueError, match="research"):
        VectorEnv("updown", 2, num_envs=2, options=small, backend="batched")
