"""Up or Down?'s research decks (issue 34): the option ``deck``, and OpenSpiel's CFR solving them.

* The default is the rulebook's game, unchanged: fixed-seed records, views, legal actions and drawn
  worlds hash as they did before the option existed, and the rulebook's numbers written as a
  research deck (``42:6:3:6:3`` for two players) play the same games.
* ``deck`` is a research option: not listed for play, not written at its default, refused for rated
  games and by the server on every table; a deck that names nothing, or cannot be dealt, is refused
  with an OptionsError that says what is wrong.
* A research deck plays by the rulebook's rules with its own cards, hand, display and columns: every
  card in one place, the display's size kept, no more columns than the deck allows, no face-up pile
  to show when the deck leaves none, worlds drawn from its cards, records that replay.
* OpenSpiel: the adapter takes the deck as a parameter and passes ``random_sim_test`` (serialize);
  C++ CFR and CFR+ on the exact export (``benchmarks/research_variants.py``) reach a stated
  exploitability within a bounded number of iterations; the bots as policies.
"""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest

from updown.bots import make_bot
from updown.core.driver import play_game
from updown.core.errors import IllegalAction, OptionsError
from updown.core.registry import get_game
from updown.games.up_or_down import (
    COL, COLOUR, DRAW_DOWN, DRAW_UP, GIVE_UP, NEW, TAKE, Phase, UpOrDownState, research_deck,
)

from bench_util import load_benchmark  # noqa: I001  (tests/ is on sys.path)
from test_research_variants import assert_same_games, game_digest, play_checked

GAME = get_game("up-or-down")


SETTINGS = {
    (2, "short"): {}, (2, "full"): {"length": "full"},
    (3, "short"): {}, (4, "full"): {"length": "full"}, (6, "short"): {},
}
# Computed with the engine as it was before any research option existed (up_or_down.py of commit b6f47fe).
BEFORE = {
    (2, "full"): "94c664ea51a18058", (2, "short"): "079961c958e33a14", (3, "short"): "581b55d941e6a012",
    (4, "full"): "966c0498c2830bd4", (6, "short"): "5c7ea645cc97f20e",
}


@pytest.mark.parametrize(("players", "length"), sorted(SETTINGS))
def test_the_rulebook_game_plays_exactly_as_before(players: int, length: str) -> None:
    assert game_digest(GAME, players, SETTINGS[(players, length)]) == BEFORE[(players, length)]
    assert game_digest(GAME, players, {**SETTINGS[(players, length)], "deck": "full"}) == BEFORE[(players, length)]


@pytest.mark.parametrize(("players", "spec"), [(2, "42:6:3:6:3"), (3, "60:6:3:6:3"), (6, "96:6:3:6:3")])
def test_the_rulebook_numbers_written_as_a_research_deck_are_the_same_game(players: int, spec: str) -> None:
    """The research machinery with the rulebook's numbers (the short range for the players, every
    colour, three cards each, a display of six, three columns) plays the very games of the default."""
    for seed in range(2):
        assert_same_games(GAME, players, seed, {}, spec)


# -- the option ------------------------------------------------------------------------------------

def test_deck_is_a_research_option_hidden_from_play_lists() -> None:
    assert [name for name, *_ in GAME.Options.fields()] == ["length"]  # what `updown games` and the lobby list
    every = {name: help_ for name, _t, _d, help_ in GAME.Options.fields(research=True)}
    assert every["deck"].startswith("research only") and "CARDS:COLOURS:HAND:DISPLAY:COLUMNS" in every["deck"]
    assert GAME.Options.research_fields() == ["deck"]
    assert GAME.options({}).to_dict() == {"length": "short"}
    assert GAME.options({"deck": "full"}).view() == {"length": "short"}
    small = GAME.options({"deck": "6:2:1:2:2"})
    assert small.to_dict() == {"length": "short", "deck": "6:2:1:2:2"}
    assert GAME.Options.from_dict(small.to_dict()) == small


def test_research_options_are_refused_for_rated_games() -> None:
    GAME.options({"deck": "full", "length": "full"}).check_rated()
    small = GAME.options({"deck": "6:2:1:2:2"})
    assert small.research_in_use() == ["deck"]
    with pytest.raises(OptionsError, match=r"deck=6:2:1:2:2: research option, not for rated games"):
        small.check_rated()


def test_the_server_refuses_a_research_deck(tmp_path: Path) -> None:
    """Up or Down?'s research deck is for research tools: the server refuses it, rated or not (the
    generic check on research options of ``POST /api/tables``), and still takes the game itself."""
    from server_util import Server, User

    server = Server(f"sqlite:///{tmp_path / 'updown.db'}", log=tmp_path / "server.log").start()
    try:
        alice = User(server, "uodrs")
        seats = ["me", "bot:random"]
        for rated in (False, True):
            r = alice.post("/api/tables", {"game": "up-or-down", "players": 2, "seats": seats,
                                            "options": {"deck": "6:2:1:2:2"}, "rated": rated})
            assert r.status_code == 400 and "research variant" in r.json()["detail"], r.text
            assert "deck" in r.json()["detail"]
        r = alice.post("/api/tables", {"game": "up-or-down", "players": 2, "seats": seats,
                                        "options": {"deck": "full", "length": "full"}})
        assert r.status_code == 200, r.text
    finally:
        server.stop()


@pytest.mark.parametrize(("options", "players", "message"), [
    ({"deck": "small"}, 2, r"deck must be full or CARDS:COLOURS:HAND:DISPLAY:COLUMNS \(a research deck, like "
                          r"8:2:1:3:2\), not 'small'"),
    ({"deck": "6:2:1:2"}, 2, "deck must be full or CARDS:COLOURS:HAND:DISPLAY:COLUMNS"),
    ({"deck": "6:2:1:2:x"}, 2, "deck must be full or CARDS:COLOURS:HAND:DISPLAY:COLUMNS"),
    ({"deck": "6:2:-1:2:2"}, 2, "deck must be full or CARDS:COLOURS:HAND:DISPLAY:COLUMNS"),
    ({"deck": "6:0:1:2:2"}, 2, "a research deck has 1 to 6 colours .the first of ruby, gold, pink, blue, purple, "
                               "green., not 0"),
    ({"deck": "6:7:1:2:2"}, 2, "1 to 6 colours"),
    ({"deck": "43:2:1:2:2"}, 2, r"a research deck of 2 colours has 1 to 42 cards \(the lowest of those colours\), "
                                "not 43"),
    ({"deck": "22:1:1:2:2"}, 2, "of 1 colour has 1 to 21 cards"),
    ({"deck": "0:2:1:2:2"}, 2, "has 1 to 42 cards"),
    ({"deck": "6:2:0:2:2"}, 2, "a research deck deals 1 to 3 cards to each player, not 0"),
    ({"deck": "20:2:4:2:2"}, 2, "deals 1 to 3 cards to each player, not 4"),
    ({"deck": "6:2:1:1:2"}, 2, r"a research deck's display holds 2 to 6 cards \(a played card needs two "
                               r"neighbours\), not 1"),
    ({"deck": "20:2:1:7:2"}, 2, "display holds 2 to 6 cards"),
    ({"deck": "6:2:1:2:0"}, 2, "a research deck allows 1 to 3 columns a player, not 0"),
    ({"deck": "6:2:1:2:4"}, 2, "1 to 3 columns a player, not 4"),
    ({"deck": "6:2:2:3:2"}, 2, "the deck 6:2:2:3:2 has 6 cards: too few for 2 hands of 2 and a display of 3"),
    ({"deck": "8:2:1:3:2"}, 6, "has 8 cards: too few for 6 hands of 1 and a display of 3"),
    ({"deck": "6:2:1:2:2", "length": "full"}, 2, "length=full does not apply to a research deck "
                                                 r"\(deck=6:2:1:2:2 names its cards\)"),
])
def test_bad_research_decks_are_refused_by_name(options: dict[str, Any], players: int, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        GAME.new_state(players, GAME.options(options))


def test_a_research_deck_holds_the_lowest_cards_of_its_colours() -> None:
    cards, hand, display, columns = research_deck("8:2:1:3:2")
    assert cards == (1, 2, 7, 8, 13, 14, 19, 20) and (hand, display, columns) == (1, 3, 2)
    assert {COLOUR[c] for c in cards} == {0, 1}  # ruby and gold, four of each
    assert research_deck("42:6:3:6:3")[0] == tuple(range(1, 43))
    assert research_deck("5:1:1:2:1")[0] == (1, 7, 13, 19, 25)
    assert research_deck("126:6:3:6:3")[0] == tuple(range(1, 127))
    state = GAME.new_state(2, GAME.options({"deck": "8:2:1:3:2"}))
    assert state.view(0)["highest"] == 20 and sorted(a for a, _ in state.chance_outcomes()) == list(cards)
    with pytest.raises(IllegalAction, match="3 is not an unseen card that can come up now"):
        state.apply(3)  # card 3 (pink) is not in the deck


# -- a research deck plays by the rules ------------------------------------------------------------

def _check_cards(state: UpOrDownState, cards: tuple[int, ...], hand: int) -> None:
    """Every card of the deck in exactly one place; the display, hands and columns in the deck's
    bounds."""
    _all, _hand, display, columns = research_deck(state.options.deck)
    everywhere = ([c for h in state.hands for c in h] + list(state.ring) + [c for p in state.piles for c in p]
                  + [c for cols in state.cols for col in cols for c in col] + list(state.stock))
    everywhere += [c for c in (state.up_top, state.taken) if c]
    assert sorted(everywhere) == sorted(cards)
    assert all(len(h) <= hand for h in state.hands)
    for cols in state.cols:
        assert all(not col for col in cols[columns:])  # only the first COLUMNS slots are ever used
    if state.phase in (Phase.PLAY, Phase.DRAW, Phase.OVER) or (state.phase == Phase.REVEAL and state.played):
        assert len(state.ring) == display
    if state.phase in (Phase.DEAL, Phase.DISPLAY):
        return
    view = state.view(None)  # the piles' counts, as everyone sees them, account for every card
    assert view["down"] + view["up"] + len(state.ring) + sum(view["hand_sizes"]) + sum(
        len(col) for cols in state.cols for col in cols) + sum(view["discards"]) + bool(state.taken) == len(cards)


RESEARCH = [
    pytest.param(2, "5:2:1:2:2", id="2p-5:2:1:2:2"),
    pytest.param(2, "6:2:2:2:2", id="2p-6:2:2:2:2"),
    pytest.param(2, "8:2:1:3:2", id="2p-8:2:1:3:2"),
    pytest.param(2, "12:3:3:4:1", id="2p-12:3:3:4:1"),
    pytest.param(3, "11:2:2:4:3", id="3p-11:2:2:4:3"),
    pytest.param(4, "30:6:3:6:2", id="4p-30:6:3:6:2"),
]


@pytest.mark.parametrize(("players", "spec"), RESEARCH)
def test_a_research_deck_keeps_the_protocol_and_its_cards(players: int, spec: str) -> None:
    cards, hand, display, columns = research_deck(spec)
    rest = len(cards) - players * hand - display
    for seed in range(3):
        state, _record = play_checked(GAME, players, {"deck": spec}, seed, cards, hand, _check_cards)
        assert state.is_terminal() and len(state.ring) == display and not any(state.hands)
        kinds = [e["type"] for e in state.log]
        assert kinds.count("play") == len(cards) - display  # every card but the display's is played once
        # a face-up pile is shown (at setup and after each face-up draw with cards beneath) only if
        # the deck leaves it a card
        assert ("reveal" in kinds) == (rest >= 2)
        display_event = next(e for e in state.log if e["type"] == "display")
        assert (display_event["down"], display_event["up"]) == ((rest + 1) // 2, rest // 2)
        held = [sum(1 for col in cols if col) for cols in state.cols]
        assert max(held) <= columns
        names = set(cards)
        assert all(e["card"] in names for e in state.log if "card" in e)


def _play_until(state: UpOrDownState, rng: random.Random, done: Any, limit: int = 10_000) -> bool:
    for _ in range(limit):
        if done(state):
            return True
        if state.is_terminal():
            return False
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            seat = state.actors()[0]
            state.apply(rng.choice(state.legal_actions(seat)), seat)
    return False


def test_no_new_column_beyond_the_decks_columns() -> None:
    """12:3:3:4:1 allows one column: once a player holds it, the taken card goes on it (if it fits)
    or the column is given up; 'new' is refused with the deck's own words."""
    found = 0
    for seed in range(40):
        state = GAME.new_state(2, GAME.options({"deck": "12:3:3:4:1"}))
        assert isinstance(state, UpOrDownState)
        rng = random.Random(seed)
        if not _play_until(state, rng, lambda s: s.phase == Phase.PLACE and s.cols[s.turn][0]):
            continue
        seat = state.turn
        legal = state.legal_actions(seat)
        assert NEW not in legal and GIVE_UP + 1 in legal and set(legal) <= {COL + 1, GIVE_UP + 1}
        with pytest.raises(IllegalAction, match="you have 1 column, this game's most: put the card on one or "
                                                "give one up"):
            state.apply(NEW, seat)
        found += 1
        if found == 5:
            break
    assert found == 5
    # with two, a second column may be started, a third not
    state = GAME.new_state(2, GAME.options({"deck": "20:2:3:4:2"}))
    assert isinstance(state, UpOrDownState)
    assert _play_until(state, random.Random(1), lambda s: s.phase == Phase.PLACE and s.cols[s.turn][0]
                       and s.cols[s.turn][1])
    assert NEW not in state.legal_actions(state.turn)
    with pytest.raises(IllegalAction, match="you have 2 columns, this game's most"):
        state.apply(NEW, state.turn)


def test_no_face_up_pile_when_the_deck_leaves_one_card_or_none() -> None:
    """5:2:1:2:2 leaves one card after the deal and the display: it is the face-down pile, nothing is
    shown, seat 0 plays at once and draws face down; 6:2:2:2:2 leaves none: nobody draws."""
    state = GAME.new_state(2, GAME.options({"deck": "5:2:1:2:2"}))
    assert isinstance(state, UpOrDownState)
    for card in (1, 2, 7, 8):  # hands 1 and 2, display 7 and 8
        state.apply(card)
    assert state.phase == Phase.PLAY and state.actors() == (0,) and state.stock == [13]
    assert state.log[-1] == {"type": "display", "cards": [7, 8], "down": 1, "up": 0}
    assert state.legal_actions(0) == [1]
    state.apply(1, 0)  # between 8 and 7 (the wrap-around: lowest card)
    assert state.legal_actions(0) == [TAKE + 7, TAKE + 8]
    state.apply(TAKE + 8, 0)
    assert state.legal_actions(0) == [NEW]
    state.apply(NEW, 0)
    assert state.legal_actions(0) == [DRAW_DOWN]
    with pytest.raises(IllegalAction, match="the face-up pile is empty: draw down"):
        state.apply(DRAW_UP, 0)
    state.apply(DRAW_DOWN, 0)
    assert state.chance_outcomes() == [(13, 1.0)]
    state.apply(13)
    assert state.hands[0] == [13] and state.actors() == (1,)
    state = GAME.new_state(2, GAME.options({"deck": "6:2:2:2:2"}))
    assert isinstance(state, UpOrDownState)
    assert _play_until(state, random.Random(0), lambda s: s.is_terminal())
    assert not any(e["type"] in ("draw", "drew", "reveal") for e in state.log)


def test_worlds_of_a_research_deck_come_from_its_cards() -> None:
    """8:2:1:3:2 after the setup: seat 0 sees its card, the display and the face-up top; the other
    hand and the face-down pile hold the rest of the deck, every way round."""
    state = GAME.new_state(2, GAME.options({"deck": "8:2:1:3:2"}))
    assert isinstance(state, UpOrDownState)
    for card in (1, 20, 7, 13, 19, 8):  # hands 1 and 20, display 7 13 19, face-up 8
        state.apply(card)
    assert state.up_top == 8 and state.actors() == (0,)
    hidden = {2, 14, 20}
    seen = set()
    for k in range(200):
        world = state.resample(0, random.Random(k))
        assert isinstance(world, UpOrDownState)
        assert world.hands[0] == [1] and world.view(0) == state.view(0)
        assert set(world.hands[1]) | set(world.stock) == hidden
        seen.add(world.hands[1][0])
    assert seen == hidden


def test_the_games_bots_play_a_research_deck() -> None:
    """Up or Down?'s bots play through the protocol (its normal and hard search the engine itself,
    with worlds from the view): each plays research decks to the end."""
    for spec, players in (("6:2:1:2:2", 2), ("12:3:3:4:1", 2), ("11:2:2:4:3", 3)):
        for names in (["greedy", "easy", "random"][:players], ["normal", "hard", "greedy"][:players]):
            bots = [make_bot(name, GAME, s, random.Random(s)) for s, name in enumerate(names)]
            state, record = play_game(GAME, players, bots, random.Random(7), options=GAME.options({"deck": spec}),
                                      seed=7)
            assert state.is_terminal() and record.options["deck"] == spec


def test_the_vector_env_plays_a_research_deck_on_the_scalar_backend() -> None:
    from updown.adapters.vector import VectorEnv

    env = VectorEnv("up-or-down", 2, num_envs=2, options={"deck": "6:2:1:2:2"}, seed=1)
    assert env.backend == "scalar"
    with pytest.raises(ValueError, match="no batched engine for research options deck"):
        VectorEnv("up-or-down", 2, num_envs=2, options={"deck": "6:2:1:2:2"}, backend="batched")


@pytest.mark.filterwarnings("ignore:Observation:UserWarning")  # dict observations are not arrays, PettingZoo warns
def test_the_pettingzoo_environments_play_a_research_deck() -> None:
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test, parallel_api_test

    from updown.adapters.pettingzoo import env, parallel_env

    aec = env("up-or-down", 2, options={"deck": "6:2:1:2:2"})
    api_test(aec, num_cycles=200)
    aec.reset(seed=3)
    state = aec.unwrapped.state_
    assert state.options.deck == "6:2:1:2:2" and state.view(0)["highest"] == 14
    view = state.view(0)
    assert set(view["hand"]) | set(view["display"]) <= {1, 2, 7, 8, 13, 14}
    parallel_api_test(parallel_env("up-or-down", 2, options={"deck": "8:2:1:3:2"}), num_cycles=200)


# -- OpenSpiel ---------------------------------------------------------------------------------------

pyspiel = pytest.importorskip("pyspiel")


@pytest.fixture(scope="module")
def rv() -> Any:
    return load_benchmark("research_variants")


def test_the_adapter_takes_the_deck_and_passes_openspiel_checks() -> None:
    import updown.adapters.openspiel  # noqa: F401

    game = pyspiel.load_game("python_up_or_down(players=2,deck=6:2:1:2:2)")
    params = game.get_parameters()
    assert params["deck"] == "6:2:1:2:2" and params["players"] == 2
    assert game.num_distinct_actions() == pyspiel.load_game("python_up_or_down(players=2)").num_distinct_actions()
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    pyspiel.random_sim_test(pyspiel.load_game("python_up_or_down(players=3,deck=11:2:2:4:3,decisions=true)"),
                            num_sims=3, serialize=True, verbose=False)
    assert pyspiel.load_game("python_up_or_down").get_parameters()["deck"] == "full"


_EXPORTS: dict[str, Any] = {}
UNIFORM = 0.71875  # uniform play's exploitability on 6:2:2:2:1
CFR_20, CFR_PLUS_20 = 0.06, 0.01  # above what 20 iterations reach there (0.051, 0.0074)


def _efg(rv: Any, deck: str, **kw: Any) -> tuple[Any, Any]:
    """The export of ``deck`` (two players) and its OpenSpiel game, made once per session."""
    if deck not in _EXPORTS or kw:
        export = rv.Export(deck, game_id="up-or-down", forced=False, **kw)
        if kw:
            return export, export.load()
        _EXPORTS[deck] = (export, export.load())
    return _EXPORTS[deck]  # type: ignore[no-any-return]


def test_the_export_of_a_small_deck(rv: Any) -> None:
    """6:2:2:2:1: six cards, two each, a display of two, no piles, one column: every card is seen
    from the start (a game of perfect information but for the deal). Each seat has two turns: the
    first card starts its column, the second goes on it or gives it up, so what is played is which
    card goes into the ring and which neighbour is taken, for a column of one colour (4 points)."""
    export, game = _efg(rv, "6:2:2:2:1")
    assert export.nodes == {"chance": 1, "decision": 22950, "terminal": 23040, "forced": 9000}
    assert [len(t) for t in export.infosets] == [4590, 18360]
    assert game.num_players() == 2
    assert math.isclose(rv.exploitability(game, rv.uniform_policy(export)), UNIFORM, abs_tol=1e-6)


@pytest.mark.parametrize(("solver", "iterations", "bound"), [("cfr", 20, CFR_20), ("cfr+", 20, CFR_PLUS_20)])
def test_cfr_reaches_a_stated_exploitability(rv: Any, solver: str, iterations: int, bound: float) -> None:
    """OpenSpiel's C++ CFR and CFR+ on the export of 6:2:2:2:1: the average policy's exploitability
    after ``iterations`` is below ``bound``, uniform play's is UNIFORM (docs/research-variants.md has
    the curves)."""
    game = _efg(rv, "6:2:2:2:1")[1]
    curve = rv.cfr_curve(game, solver, iterations, (), log=lambda _line: None)
    assert len(curve) == 1 and curve[0][0] == iterations
    assert curve[0][1] < bound < UNIFORM


def test_the_bots_are_policies_of_the_small_game(rv: Any) -> None:
    """greedy and easy asked at every information set of 6:2:2:2:1: complete policies, and further
    from equilibrium than 20 iterations of CFR+, closer than uniform play (0.394 and 0.522)."""
    asked = rv.BotPolicies(["greedy", "easy"], game_id="up-or-down")
    export, game = _efg(rv, "6:2:2:2:1", on_infoset=asked.visit)
    infosets = {i.key for i in export.all_infosets()}
    for name in ("greedy", "easy"):
        policy = asked.policies[name]
        assert set(policy) == infosets
        assert all(math.isclose(sum(p for _, p in row), 1.0) for row in policy.values())
    greedy, easy = (rv.exploitability(game, asked.policies[n]) for n in ("greedy", "easy"))
    assert CFR_PLUS_20 < greedy < UNIFORM and CFR_PLUS_20 < easy < UNIFORM


def test_a_level_held_to_a_count_is_a_reproducible_policy(rv: Any) -> None:
    """``level:NAME@N`` asks the game's own level (Up or Down?'s ``pimc``) with N worlds and no
    clock: the same choices from the same seed at every information set asked, its worlds as given,
    and a count that is not a count is refused by name."""
    seen: list[tuple[Any, Any]] = []

    def keep(info: Any, view: Any) -> None:
        if len(info.legal) > 1 and len(seen) < 600:
            seen.append((info, view))

    rv.Export("6:2:2:2:1", game_id="up-or-down", forced=False, on_infoset=keep)
    sample = seen[::15]
    runs = []
    for _ in range(2):
        asked = rv.BotPolicies(["level:normal@12", "level:hard@6"], 5, "up-or-down")
        bots = [asked._bots["level:normal@12"][s] for s in range(2)]
        assert all(b.worlds == 12 and b.milliseconds is None and b.name == "normal" for b in bots)
        assert all(b.worlds == 6 and b.milliseconds is None and b.name == "hard" for b in asked._bots["level:hard@6"])
        runs.append([asked.probabilities(name, info.seat, view, info.legal)
                     for info, view in sample for name in ("level:normal@12", "level:hard@6")])
    assert runs[0] == runs[1]
    assert all(sorted(p) == [0.0] * (len(p) - 1) + [1.0] for p in runs[0])  # pure choices
    with pytest.raises(ValueError, match="at least 1"):
        rv.BotPolicies(["level:normal@0"], 0, "up-or-down")
