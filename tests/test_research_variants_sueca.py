"""The Sueca game's research decks (issue 34): the options ``deck`` and ``deals``, and OpenSpiel's
CFR solving them.

* The defaults are the rulebook's game, unchanged: fixed-seed records, views, legal actions and
  drawn worlds hash as they did before the options existed, and the full deck written as a research
  deck (``23456QJK7A:CDHS:5``) plays the same games.
* ``deck`` and ``deals`` are research options: not listed for play, not written at their defaults,
  refused for rated games; a deck that cannot be dealt, or a research deck without ``deals``, is
  refused with an OptionsError that says what is wrong.
* A research deck plays by the rulebook's rules with its own cards: every card in one place, hands
  of its size in packets of ``min(3, HAND - 1)`` and the rest, as many tricks as cards in a hand,
  exchanges no larger than the stock, worlds drawn from its cards.
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

from updown.bots.base import RandomBot
from updown.core.driver import play_game
from updown.core.errors import IllegalAction, OptionsError
from updown.core.registry import get_game
from updown.games.updown_sueca import (
    CARD_STR, DISCARD, DONE, FULL_DECK, PLAY, SIT_OUT, TRUMP, TURN, Phase, UpDownSuecaState, card_id, deck_of,
    first_packet,
)

from bench_util import load_benchmark  # noqa: I001  (tests/ is on sys.path)
from test_research_variants import assert_same_games, game_digest, play_checked

GAME = get_game("updown-sueca")


SETTINGS = {
    "match": {},
    "regional": {"regional": True},
    "exchange limit": {"exchange_limit": 2},
}
# Computed with the engine as it was before the options ``deck`` and ``deals`` existed (updown_sueca.py
# of commit 6b46b7e).
BEFORE = {"match": "ea6d6a9080372840", "regional": "711ea830b3c97db9", "exchange limit": "a5e6c337f251140d"}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_the_default_deck_plays_exactly_as_before(setting: str) -> None:
    options = SETTINGS[setting]
    assert game_digest(GAME, 4, options) == BEFORE[setting]
    assert game_digest(GAME, 4, {**options, "deck": "full", "deals": None}) == BEFORE[setting]


def test_the_full_deck_written_as_a_research_deck_is_the_same_game() -> None:
    """The research machinery with the rulebook's numbers (all 40 cards, five each, packets of
    three and two) plays the very games of the default deck."""
    for seed in range(3):
        assert_same_games(GAME, 4, seed, {"deals": 3}, "23456QJK7A:CDHS:5")


# -- the options -----------------------------------------------------------------------------------

def test_deck_and_deals_are_research_options_hidden_from_play_lists() -> None:
    names = [name for name, *_ in GAME.Options.fields()]
    assert names == ["regional", "exchange_limit"]  # what `updown games` and the lobby list
    every = {name: help_ for name, _t, _d, help_ in GAME.Options.fields(research=True)}
    assert every["deck"].startswith("research only") and "as many cards as it holds" in every["deck"]
    assert every["deals"].startswith("research only")
    assert GAME.Options.research_fields() == ["deals", "deck"]
    assert GAME.options({}).to_dict() == {"regional": False, "exchange_limit": None}
    assert GAME.options({"deck": "full", "deals": None}).view() == {"regional": False, "exchange_limit": None}
    small = GAME.options({"deals": 1, "deck": "K7A:DH:1"})
    assert small.to_dict() == {"regional": False, "exchange_limit": None, "deals": 1, "deck": "K7A:DH:1"}
    assert GAME.Options.from_dict(small.to_dict()) == small


def test_research_options_are_refused_for_rated_games() -> None:
    GAME.options({"deck": "full", "regional": True}).check_rated()
    small = GAME.options({"deck": "K7A:DH:1", "deals": 1})
    assert small.research_in_use() == ["deals", "deck"]
    with pytest.raises(OptionsError, match=r"deals=1, deck=K7A:DH:1: research options, not for rated games"):
        small.check_rated()
    with pytest.raises(OptionsError, match=r"deals=2: research option, not for rated games"):
        GAME.options({"deals": 2}).check_rated()


def test_the_server_refuses_a_research_deck(tmp_path: Path) -> None:
    """The Sueca game's research options are for research tools: the server refuses them, rated or
    not (the generic check on research options of ``POST /api/tables``)."""
    from server_util import Server, User

    server = Server(f"sqlite:///{tmp_path / 'updown.db'}", log=tmp_path / "server.log").start()
    try:
        alice = User(server, "surs")
        seats = ["me", "bot:random", "bot:random", "bot:random"]
        for options in ({"deals": 1, "deck": "K7A:DH:1"}, {"deals": 3}):
            for rated in (False, True):
                r = alice.post("/api/tables", {"game": "updown-sueca", "players": 4, "seats": seats,
                                                "options": options, "rated": rated})
                assert r.status_code == 400 and "research variant" in r.json()["detail"], r.text
        r = alice.post("/api/tables", {"game": "updown-sueca", "players": 4, "seats": seats,
                                        "options": {"deck": "full", "regional": True}})
        assert r.status_code == 200, r.text
    finally:
        server.stop()


@pytest.mark.parametrize(("options", "message"), [
    ({"deck": "small", "deals": 1}, "deck must be full or RANKS:SUITS:HAND"),
    ({"deck": "K7A:DH", "deals": 1}, "deck must be full or RANKS:SUITS:HAND"),
    ({"deck": "K7A:DH:x", "deals": 1}, "deck must be full or RANKS:SUITS:HAND"),
    ({"deck": "AK7:DH:1", "deals": 1}, "ranks are distinct letters of 23456QJK7A .Sueca's order, low to high. "
                                        "in that order, not 'AK7'"),
    ({"deck": "7KA:DH:1", "deals": 1}, "ranks are distinct letters of 23456QJK7A"),
    ({"deck": "KK7A:DH:1", "deals": 1}, "ranks are distinct letters of 23456QJK7A"),
    ({"deck": "K10A:DH:1", "deals": 1}, "ranks are distinct letters of 23456QJK7A"),
    ({"deck": ":DH:1", "deals": 1}, "ranks are distinct letters"),
    ({"deck": "K7A:HD:1", "deals": 1}, "suits are distinct letters of CDHS in that order, not 'HD'"),
    ({"deck": "K7A:DX:1", "deals": 1}, "suits are distinct letters of CDHS"),
    ({"deck": "K7A:DH:0", "deals": 1}, "1 to 5 cards to each seat, not 0"),
    ({"deck": "23456QJK7A:CDHS:6", "deals": 1}, "1 to 5 cards to each seat, not 6"),
    ({"deck": "K7A:H:1", "deals": 1}, "the deck K7A:H:1 has 3 cards: too few for 4 hands of 1"),
    ({"deck": "QJK7A:DH:3", "deals": 1}, "has 10 cards: too few for 4 hands of 3"),
    ({"deck": "K7A:DH:1"}, r"deck=K7A:DH:1 needs deals \(1 to 1000\), a research deck's cap on the match"),
    ({"deck": "K7A:DH:1", "deals": 0}, "deals must be 1 to 1000, not 0"),
    ({"deals": 1001}, "deals must be 1 to 1000, not 1001"),
    ({"deals": "one"}, "option deals='one' must be a whole number or none"),
])
def test_bad_research_options_are_refused_by_name(options: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        GAME.new_state(4, GAME.options(options))


def test_a_research_deck_holds_its_cards() -> None:
    cards, hand = deck_of("K7A:DH:1")
    assert [CARD_STR[c] for c in cards] == ["KD", "7D", "AD", "KH", "7H", "AH"] and hand == 1
    assert deck_of("qjk7a:cdhs:4")[1] == 4 and len(deck_of("QJK7A:CDHS:4")[0]) == 20
    assert deck_of(FULL_DECK) == (tuple(range(40)), 5)
    assert deck_of("23456QJK7A:CDHS:5")[0] == tuple(range(40))
    assert [first_packet(h) for h in (1, 2, 3, 4, 5)] == [0, 1, 2, 3, 3]


# -- a research deck plays by the rules ------------------------------------------------------------

def _check_cards(state: UpDownSuecaState, cards: tuple[int, ...], hand: int) -> None:
    """Every card of the deck in exactly one place; every seat that plays holds a hand's worth."""
    if state.phase == Phase.OVER:
        return
    everywhere = ([c for h in state.hands for c in h] + [c for d in state.discards for c in d]
                  + [c for p in state.played for c in p] + state.deck)
    assert sorted(everywhere) == sorted(cards)
    if state.phase >= Phase.DECIDE:
        for s in range(4):
            held = len(state.hands[s]) + len(state.played[s])
            if state.phase == Phase.EXCHANGE and s == state.current:
                held += len(state.discards[s])
            assert held == hand or (state.phase == Phase.DRAW and s == state.current and held < hand)
        assert state.trick_no <= hand


RESEARCH = [
    pytest.param("7A:DH:1", {"deals": 3}, id="7A:DH:1"),
    pytest.param("K7A:DH:1", {"deals": 4, "regional": True}, id="K7A:DH:1-regional"),
    pytest.param("QJK7A:CDHS:2", {"deals": 3}, id="QJK7A:CDHS:2"),
    pytest.param("JK7A:CDS:3", {"deals": 3, "exchange_limit": 2}, id="JK7A:CDS:3-limit"),
    pytest.param("56QJK7A:CDHS:4", {"deals": 2}, id="56QJK7A:CDHS:4"),
]


@pytest.mark.parametrize(("spec", "extra"), RESEARCH)
def test_a_research_deck_keeps_the_protocol_and_its_cards(spec: str, extra: dict[str, Any]) -> None:
    cards, hand = deck_of(spec)
    for seed in range(3):
        state, _record = play_checked(GAME, 4, {**extra, "deck": spec}, seed, cards, hand, _check_cards,
                                     hands_logged=False)  # its hands are in the views, not the log
        assert len(state.history) == extra["deals"] or min(state.scores) <= 0
        names = {CARD_STR[c] for c in cards}
        packets = {1: first_packet(hand), 2: hand - first_packet(hand)}
        for e in state.log:
            if e["type"] == "dealt":
                assert len(e["cards"]) == packets[e["packet"]] and set(e["cards"]) <= names
            elif e["type"] in ("draw", "discard"):
                assert e["card"] in names
            elif e["type"] == "score":
                assert sum(e["tricks"]) == hand
        assert not any(e["type"] == "dealt" and e["packet"] == 1 for e in state.log) or hand > 1


def _start(spec: str, **extra: Any) -> UpDownSuecaState:
    state = GAME.new_state(4, GAME.options({"deals": 1, "deck": spec, **extra}))
    assert isinstance(state, UpDownSuecaState)
    return state


def test_one_card_each_the_chooser_names_the_trump_before_any_card_and_may_turn() -> None:
    state = _start("K7A:DH:1")  # dealer 0, chooser 1, playing order 1 2 3 0
    assert state.phase == Phase.TRUMP and state.legal_actions(1) == [TRUMP, TRUMP + 1, TRUMP + 2, TRUMP + 3, TURN]
    assert not any(e["type"] == "dealt" for e in state.log)
    state.apply(TURN, 1)
    assert sorted(a for a, _ in state.chance_outcomes()) == list(deck_of("K7A:DH:1")[0])
    state.apply(card_id("KD"))  # turned: diamonds are trump, and KD is seat 1's whole hand
    assert state.trump == 1 and state.hands[1] == [card_id("KD")] and state.current == 2
    assert [e["type"] for e in state.log[-2:]] == ["trump", "dealt"] and state.log[-1]["cards"] == ["KD"]
    for c in ("AD", "7H", "AH"):  # seats 2, 3, 0
        state.apply(card_id(c))
    assert state.phase == Phase.EXCHANGE and state.current == 1  # the chooser plays, may exchange
    assert state.view(1)["stock"] == 2 and sorted(state.deck) == [card_id("7D"), card_id("KH")]
    state.apply(DONE, 1)
    state.apply(PLAY, 2)
    assert state.legal_actions(2) == [DONE, DISCARD + card_id("AD")]  # may exchange its card
    state.apply(DONE, 2)
    state.apply(SIT_OUT, 3)
    state.apply(SIT_OUT, 0)
    assert state.phase == Phase.TRICK and state.legal_actions(1) == [card_id("KD")]
    state.apply(card_id("KD"), 1)
    state.apply(card_id("AD"), 2)
    assert state.is_terminal()
    score = next(e for e in state.log if e["type"] == "score")
    assert score["tricks"] == [0, 0, 1, 0] and score["changes"] == [0, 5, -1, 0]
    assert state.result().placings == (2, 4, 1, 2)  # one deal (deals=1): standing by score


def test_a_lone_player_takes_every_trick_of_a_research_hand() -> None:
    state = _start("QJK7A:CDHS:2")
    while state.phase != Phase.TRUMP:
        state.apply(state.chance_outcomes()[0][0])
    state.apply(TRUMP + 1, 1)  # diamonds
    while state.is_chance():
        state.apply(state.chance_outcomes()[0][0])
    state.apply(DONE, 1)
    for seat in (2, 3, 0):
        state.apply(SIT_OUT, seat)
    assert state.is_terminal()
    assert any(e["type"] == "lone" and e["tricks"] == 2 for e in state.log)
    assert "takes all 2 tricks" in GAME.describe(next(e for e in state.log if e["type"] == "lone"),
                                                  ["a", "b", "c", "d"])
    assert next(e for e in state.log if e["type"] == "score")["changes"] == [0, -2, 0, 0]


def test_the_stock_limits_the_exchange() -> None:
    """QJK7A:DH:2: ten cards, eight dealt, two in the stock. The chooser may exchange two; then the
    stock is empty and the next player may only keep its cards."""
    state = _start("QJK7A:DH:2")
    while state.phase != Phase.TRUMP:
        state.apply(state.chance_outcomes()[0][0])
    state.apply(TRUMP + 3, 1)  # spades: no card of them in the deck, no trumps
    while state.is_chance():
        state.apply(state.chance_outcomes()[0][0])
    assert len(state.deck) == 2 and state.phase == Phase.EXCHANGE
    hand = list(state.hands[1])
    assert state.legal_actions(1) == [DONE] + [DISCARD + c for c in hand]
    state.apply(DISCARD + hand[0], 1)
    state.apply(DISCARD + hand[1], 1)
    state.apply(DONE, 1)
    while state.is_chance():
        state.apply(state.chance_outcomes()[0][0])
    assert state.deck == [] and len(state.hands[1]) == 2
    state.apply(PLAY, 2)
    assert state.legal_actions(2) == [DONE]
    with pytest.raises(IllegalAction, match="the stock holds 0 cards: no more may be exchanged"):
        state.apply(DISCARD + state.hands[2][0], 2)


def test_worlds_of_a_research_deck_come_from_its_cards() -> None:
    state = _start("K7A:DH:1")
    state.apply(TRUMP + 2, 1)  # hearts: everyone plays
    for c in ("KD", "AD", "7H", "AH"):  # seats 1, 2, 3, 0
        state.apply(card_id(c))
    assert state.phase == Phase.EXCHANGE and state.current == 1
    hidden = {card_id(c) for c in ("AD", "7H", "AH", "7D", "KH")}
    seen: set[tuple[int, ...]] = set()
    for k in range(300):
        world = state.resample(1, random.Random(k))
        assert world.hands[1] == state.hands[1]
        assert {c for s in (0, 2, 3) for c in world.hands[s]} | set(world.deck) == hidden
        seen.add(tuple(world.hands[s][0] for s in (2, 3, 0)))
    assert len(seen) == 60  # every placement of three of the five hidden cards turns up


def test_a_card_outside_the_deck_cannot_be_dealt() -> None:
    state = _start("7A:DH:1")
    state.apply(TRUMP, 1)
    with pytest.raises(IllegalAction, match="not in the undealt deck"):
        state.apply(card_id("KD"))


# -- OpenSpiel ---------------------------------------------------------------------------------------

pyspiel = pytest.importorskip("pyspiel")


@pytest.fixture(scope="module")
def rv() -> Any:
    return load_benchmark("research_variants")


def test_the_adapter_takes_the_deck_and_passes_openspiel_checks() -> None:
    import updown.adapters.openspiel  # noqa: F401

    game = pyspiel.load_game("python_updown_sueca(deals=1,deck=K7A:DH:1)")
    params = game.get_parameters()
    assert params["deck"] == "K7A:DH:1" and params["deals"] == 1
    assert game.num_distinct_actions() == pyspiel.load_game("python_updown_sueca").num_distinct_actions()
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    pyspiel.random_sim_test(pyspiel.load_game("python_updown_sueca(deals=2,deck=QJK7A:CDHS:2,decisions=true)"),
                            num_sims=3, serialize=True, verbose=False)
    assert pyspiel.load_game("python_updown_sueca").get_parameters()["deck"] == "full"


_EXPORTS: dict[str, Any] = {}
UNIFORM_7A = 0.1913194444  # uniform play's exploitability on 7A:DH:1 (NashConv / 4)


def _efg(rv: Any, deck: str, **kw: Any) -> tuple[Any, Any]:
    """The export of ``deck`` (one deal) and its OpenSpiel game, made once per session."""
    if deck not in _EXPORTS or kw:
        export = rv.Export(deck, game_id="updown-sueca", forced=False, **kw)
        if kw:
            return export, export.load()
        _EXPORTS[deck] = (export, export.load())
    return _EXPORTS[deck]  # type: ignore[no-any-return]


def test_the_export_of_the_smallest_deck(rv: Any) -> None:
    """7A:DH:1: four cards, one each, no stock. The chooser (seat 1) names the trump blind (one
    information set, five choices); the others decide to play or sit out (the play is forced)."""
    export, game = _efg(rv, "7A:DH:1")
    assert export.nodes == {"chance": 5, "decision": 589, "terminal": 708, "forced": 2556}
    assert [len(t) for t in export.infosets] == [72, 1, 18, 36]
    chooser = next(iter(export.infosets[1].values()))
    assert [GAME.action_to_str(a) for a in chooser.legal] == ["trump C", "trump D", "trump H", "trump S", "turn"]
    assert game.num_players() == 4
    assert math.isclose(rv.exploitability(game, rv.uniform_policy(export)), UNIFORM_7A, abs_tol=1e-6)


@pytest.mark.parametrize(("solver", "iterations", "bound"), [("cfr", 20, 0.02), ("cfr+", 20, 0.003)])
def test_cfr_reaches_a_stated_exploitability(rv: Any, solver: str, iterations: int, bound: float) -> None:
    """OpenSpiel's C++ CFR and CFR+ on the export of 7A:DH:1: the average policy's exploitability
    (NashConv / 4) after ``iterations`` is below ``bound``, uniform play's is 0.19
    (docs/research-variants.md has the curves)."""
    game = _efg(rv, "7A:DH:1")[1]
    curve = rv.cfr_curve(game, solver, iterations, (), log=lambda _line: None)
    assert len(curve) == 1 and curve[0][0] == iterations
    assert curve[0][1] < bound < UNIFORM_7A


def test_the_bots_are_policies_of_the_small_game(rv: Any) -> None:
    """greedy and easy asked at every information set of 7A:DH:1: complete policies, and further
    from equilibrium than 20 iterations of CFR."""
    asked = rv.BotPolicies(["greedy", "easy"], game_id="updown-sueca")
    export, game = _efg(rv, "7A:DH:1", on_infoset=asked.visit)
    infosets = {i.key for i in export.all_infosets()}
    for name in ("greedy", "easy"):
        policy = asked.policies[name]
        assert set(policy) == infosets
        assert all(math.isclose(sum(p for _, p in row), 1.0) for row in policy.values())
    greedy, easy = (rv.exploitability(game, asked.policies[n]) for n in ("greedy", "easy"))
    assert 0.02 < greedy and 0.02 < easy


def test_a_lone_player_on_a_short_hand_is_told_the_tricks_there_are() -> None:
    """A research deck's lone player takes as many tricks as the hand holds, and the line says so in
    each language (the full game's line, "all five tricks", is unchanged)."""
    from updown.i18n import translator
    from updown.i18n.events_updown_sueca import describe

    names = ["Ana", "Bea", "Cid", "Dora"]
    lines = {(lang, n): describe({"type": "lone", "seat": 1, "tricks": n}, names, translator(lang))
             for lang in ("en", "de", "pt") for n in (1, 3, 5)}
    assert lines["en", 5] == "Bea is the only one playing and takes all five tricks."
    assert lines["en", 3] == "Bea is the only one playing and takes all 3 tricks."
    assert lines["en", 1] == "Bea is the only one playing and takes the one trick."
    assert lines["de", 3] == "Bea spielt als Einziger mit und bekommt alle 3 Stiche."
    assert lines["pt", 1] == "Bea é o único a jogar e leva a única vaza."
    assert lines["de", 5].endswith("alle fünf Stiche.") and lines["pt", 5].endswith("as cinco vazas.")
    # The events of a short deal's lone player carry the deal's tricks.
    for seed in range(300):
        agents = [RandomBot(GAME, s, random.Random(f"lone {seed} {s}")) for s in range(4)]
        state, _record = play_game(GAME, 4, agents, random.Random(seed),
                                   options=GAME.options({"deck": "K7A:DH:1", "deals": 1}))
        lone = [ev for ev in state.view(None)["log"] if ev["type"] == "lone"]
        if lone:
            assert lone[0]["tricks"] == 1
            assert describe(lone[0], names, translator("en")).endswith("takes the one trick.")
            return
    pytest.skip("no lone player in 300 short deals played this way")
