"""Euchre's research decks (issue 34): the option ``deck``, and OpenSpiel's CFR solving them.

* The default deck is the rulebook's game, unchanged: fixed-seed records, views, legal actions and
  drawn worlds hash as they did before the option existed, and the full deck written as a research
  deck (``9TJQKA:CDHS:5``) plays the same games.
* ``deck`` is a research option: not listed for play, not written while it is the default, refused
  for rated games by the core check and by the server for every table.
* A research deck plays by the rulebook's rules with its own cards: every card in one place, hands
  of its size, makers by the majority of its tricks, bowers only where their cards are, worlds
  drawn from its cards.
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

from updown.core.errors import IllegalAction, OptionsError
from updown.core.registry import get_game
from updown.games.euchre import (
    CARD_STR, DISCARD, FULL_DECK, NAME, ORDER_UP, PASS, EuchreState, Phase, card_id, deck_of,
)

from bench_util import load_benchmark  # noqa: I001  (tests/ is on sys.path)
from test_research_variants import assert_same_games, game_digest, play_checked

GAME = get_game("euchre")


SETTINGS = {
    "match": {},
    "one deal": {"deals": 1},
    "lone defender": {"lone_defender": True, "stick_the_dealer": False, "target": 5},
}
# Computed with the engine as it was before the option ``deck`` existed (commit 44901bb).
BEFORE = {"match": "8a6e2c21a04d0855", "one deal": "f979989b0e2fc7e9", "lone defender": "9d01d673ce131943"}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_the_default_deck_plays_exactly_as_before(setting: str) -> None:
    options = SETTINGS[setting]
    assert game_digest(GAME, 4, options) == BEFORE[setting]
    assert game_digest(GAME, 4, {**options, "deck": "full"}) == BEFORE[setting]


def test_the_full_deck_written_as_a_research_deck_is_the_same_game() -> None:
    """The research machinery with the rulebook's numbers (all 24 cards, five each) plays the very
    games of the default deck."""
    for seed in range(3):
        assert_same_games(GAME, 4, seed, {"target": 5}, "9TJQKA:CDHS:5")


# -- the option ------------------------------------------------------------------------------------

def test_deck_is_a_research_option_hidden_from_play_lists() -> None:
    names = [name for name, *_ in GAME.Options.fields()]
    assert names == ["stick_the_dealer", "lone_defender", "target", "deals"]
    every = {name: help_ for name, _t, _d, help_ in GAME.Options.fields(research=True)}
    assert every["deck"].startswith("research only")
    assert GAME.Options.research_fields() == ["deck"]
    assert GAME.options({}).to_dict() == {"stick_the_dealer": True, "lone_defender": False, "target": 10,
                                          "deals": None}
    assert "deck" not in GAME.options({"deck": "full"}).view()
    small = GAME.options({"deals": 1, "deck": "9JA:DH:1"})
    assert small.to_dict()["deck"] == "9JA:DH:1"
    assert GAME.Options.from_dict(small.to_dict()) == small


def test_research_options_are_refused_for_rated_games() -> None:
    GAME.options({"deck": "full", "deals": 3}).check_rated()
    small = GAME.options({"deck": "9JA:DH:1"})
    assert small.research_in_use() == ["deck"]
    with pytest.raises(OptionsError, match=r"deck=9JA:DH:1: research option, not for rated games"):
        small.check_rated()


def test_the_server_refuses_a_research_deck(tmp_path: Path) -> None:
    """Euchre's research decks are for research tools: the server refuses them, rated or not (the
    generic check on research options of ``POST /api/tables``)."""
    from server_util import Server, User

    server = Server(f"sqlite:///{tmp_path / 'updown.db'}", log=tmp_path / "server.log").start()
    try:
        alice = User(server, "eurs")
        seats = ["me", "bot:random", "bot:random", "bot:random"]
        for rated in (False, True):
            r = alice.post("/api/tables", {"game": "euchre", "players": 4, "seats": seats,
                                            "options": {"deals": 1, "deck": "9JA:DH:1"}, "rated": rated})
            assert r.status_code == 400 and "research variant" in r.json()["detail"], r.text
        r = alice.post("/api/tables", {"game": "euchre", "players": 4, "seats": seats,
                                        "options": {"deals": 1, "deck": "full"}})
        assert r.status_code == 200, r.text
    finally:
        server.stop()


@pytest.mark.parametrize(("spec", "message"), [
    ("small", "deck must be full or RANKS:SUITS:HAND"),
    ("9JA:DH", "deck must be full or RANKS:SUITS:HAND"),
    ("9JA:DH:x", "deck must be full or RANKS:SUITS:HAND"),
    ("AJ9:DH:1", "ranks are distinct letters of 9TJQKA"),
    ("9JJ:DH:1", "ranks are distinct letters of 9TJQKA"),
    ("9J10:DH:1", "ranks are distinct letters of 9TJQKA"),
    (":DH:1", "ranks are distinct letters of 9TJQKA"),
    ("9JA:HD:1", "suits are distinct letters of CDHS in that order"),
    ("9JA:DX:1", "suits are distinct letters of CDHS"),
    ("9JA:DH:0", "1 to 5 cards"),
    ("9TJQKA:CDHS:6", "1 to 5 cards"),
    ("JA:DH:1", "has 4 cards: too few for 4 hands of 1 and the up-card"),
    ("9TJ:CDS:3", "has 9 cards: too few for 4 hands of 3"),
])
def test_a_deck_that_cannot_be_dealt_is_refused(spec: str, message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        GAME.new_state(4, GAME.options({"deck": spec}))


def test_a_research_deck_holds_its_cards() -> None:
    cards, hand = deck_of("9JA:DH:1")
    assert [CARD_STR[c] for c in cards] == ["9D", "JD", "AD", "9H", "JH", "AH"] and hand == 1
    assert deck_of("tjqka:cdhs:4")[1] == 4 and len(deck_of("TJQKA:CDHS:4")[0]) == 20
    assert deck_of(FULL_DECK) == (tuple(range(24)), 5)


# -- a research deck plays by the rules ------------------------------------------------------------

RESEARCH = [
    pytest.param("9TJQK:H:1", {"deals": 2}, id="9TJQK:H:1"),
    pytest.param("9JA:DH:1", {"deals": 3}, id="9JA:DH:1"),
    pytest.param("JA:CDS:1", {"target": 4, "lone_defender": True}, id="JA:CDS:1-lone"),
    pytest.param("9TJ:CDS:2", {"deals": 3, "stick_the_dealer": False}, id="9TJ:CDS:2-no-stick"),
    pytest.param("TJQKA:CDHS:4", {"target": 5, "lone_defender": True}, id="TJQKA:CDHS:4-lone"),
]


def _check_cards(state: EuchreState, cards: tuple[int, ...], hand: int) -> None:
    if state.phase in (Phase.DEALER, Phase.OVER):
        return
    everywhere = [c for h in state.hands for c in h] + [c for p in state.played for c in p] + state.deck
    if state.upcard >= 0 and not state.up_taken:
        everywhere.append(state.upcard)
    if state.discarded >= 0:
        everywhere.append(state.discarded)
    assert sorted(everywhere) == sorted(cards)
    if state.phase >= Phase.BID1:
        for s in range(4):
            playing = state.out != s and not (state.defender >= 0 and s == (state.defender + 2) & 3)
            held = len(state.hands[s]) + len(state.played[s])
            if s == state.dealer and state.phase == Phase.DISCARD:
                held -= 1  # the up-card, picked up, before the discard
            assert held == hand or (not playing and held <= hand)


@pytest.mark.parametrize(("spec", "extra"), RESEARCH)
def test_a_research_deck_keeps_the_protocol_and_its_cards(spec: str, extra: dict[str, Any]) -> None:
    cards, hand = deck_of(spec)
    for seed in range(4):
        state, _record = play_checked(GAME, 4, {**extra, "deck": spec}, seed, cards, hand, _check_cards)
        dealt = [e for e in state.log if e["type"] == "hand"]
        assert {c for e in dealt for c in e["cards"]} <= {CARD_STR[c] for c in cards}
        for e in state.log:
            if e["type"] == "score" and e["maker"] is not None:
                made = e["tricks"][e["maker"] % 2]
                assert e["outcome"] == ("march" if made == hand else "made" if 2 * made > hand else "euchred") \
                    or e["outcome"] in ("alone march", "euchred alone")


def _deal(spec: str, hands: list[list[str]], upcard: str, dealer: int = 3) -> EuchreState:
    """A deal of ``spec`` with these hands (seat 0 first) and up-card; the first dealer ``dealer``."""
    state = GAME.new_state(4, GAME.options({"deals": 1, "deck": spec}))
    assert isinstance(state, EuchreState)
    state.apply(state.chance_outcomes()[dealer][0])
    for i in range(4):
        seat = (dealer + 1 + i) & 3
        for c in hands[seat]:
            state.apply(card_id(c))
    state.apply(card_id(upcard))
    return state


def test_one_card_hands_score_by_their_single_trick_and_a_missing_bower_does_not_exist() -> None:
    # J and A of clubs, diamonds and spades, no hearts: with diamonds trump there is no left bower
    # (the jack of hearts is not in the deck); with clubs trump the jack of spades is the left bower.
    state = _deal("JA:CDS:1", [["AD"], ["JS"], ["AC"], ["AS"]], "JD")  # dealer 3, up-card JD
    assert state.legal_actions(0) == [PASS, ORDER_UP, ORDER_UP + 1]
    state.apply(ORDER_UP, 0)  # seat 0 orders the right bower up: the dealer (3) takes it
    assert state.phase == Phase.DISCARD and state.legal_actions(3) == [DISCARD + card_id("AS")]
    state.apply(DISCARD + card_id("AS"), 3)  # the dealer's original card: the only discard
    for seat in (0, 1, 2, 3):
        state.apply(state.legal_actions(seat)[0], seat)
    trick = next(e for e in state.log if e["type"] == "trick")
    assert trick["cards"] == ["AD", "JS", "AC", "JD"] and trick["winner"] == 3
    score = next(e for e in state.log if e["type"] == "score")
    assert score["tricks"] == [0, 1] and score["outcome"] == "euchred" and score["points"] == [0, 2]
    assert state.is_terminal() and state.result().placings == (2, 1, 2, 1)

    state = _deal("JA:CDS:1", [["AD"], ["JS"], ["AC"], ["AS"]], "JD")
    for seat in (0, 1, 2, 3):
        state.apply(PASS, seat)  # JD turned down: the second round may name C, H or S (H: no card)
    assert state.legal_actions(0) == [PASS, NAME, NAME + 2, NAME + 3, NAME + 4, NAME + 6, NAME + 7]
    state.apply(NAME, 0)  # clubs: JS is the left bower, above AC
    for seat in (0, 1, 2, 3):
        state.apply(state.legal_actions(seat)[0], seat)
    trick = next(e for e in state.log if e["type"] == "trick")
    assert trick["cards"] == ["AD", "JS", "AC", "AS"] and trick["winner"] == 1
    score = next(e for e in state.log if e["type"] == "score")
    assert score["maker"] == 0 and score["outcome"] == "euchred" and score["points"] == [0, 2]

    state = _deal("JA:CDS:1", [["AD"], ["JS"], ["AC"], ["AS"]], "JD")
    for seat in (0, 1, 2, 3):
        state.apply(PASS, seat)
    state.apply(NAME + 4 + 2, 0)  # hearts alone: no trump in play, the ace led wins; seat 2 sits out
    for seat in (0, 1, 3):
        state.apply(state.legal_actions(seat)[0], seat)
    score = next(e for e in state.log if e["type"] == "score")
    assert score["outcome"] == "alone march" and score["points"] == [4, 0]


def test_worlds_of_a_research_deck_come_from_its_cards() -> None:
    state = _deal("9JA:DH:1", [["9D"], ["JD"], ["AD"], ["9H"]], "JH")
    hidden = {card_id(c) for c in ("JD", "AD", "9H", "AH")}
    seen: set[tuple[int, ...]] = set()
    for k in range(200):
        world = state.resample(0, random.Random(k))
        assert world.hands[0] == state.hands[0] and world.upcard == state.upcard
        assert {c for s in (1, 2, 3) for c in world.hands[s]} | set(world.deck) == hidden
        seen.add(tuple(world.hands[s][0] for s in (1, 2, 3)))
    assert len(seen) == 24  # every placement of three of the four hidden cards turns up


def test_a_card_outside_the_deck_cannot_be_dealt() -> None:
    state = GAME.new_state(4, GAME.options({"deck": "9JA:DH:1"}))
    state.apply(state.chance_outcomes()[0][0])
    assert sorted(a for a, _ in state.chance_outcomes()) == list(deck_of("9JA:DH:1")[0])
    with pytest.raises(IllegalAction, match="not in the undealt deck"):
        state.apply(card_id("AS"))


# -- OpenSpiel ---------------------------------------------------------------------------------------

pyspiel = pytest.importorskip("pyspiel")


@pytest.fixture(scope="module")
def rv() -> Any:
    return load_benchmark("research_variants")


def test_the_adapter_takes_the_deck_and_passes_openspiel_checks() -> None:
    import updown.adapters.openspiel  # noqa: F401

    game = pyspiel.load_game("python_euchre(deals=1,deck=9JA:DH:1)")
    assert game.get_parameters()["deck"] == "9JA:DH:1"
    assert game.num_distinct_actions() == pyspiel.load_game("python_euchre").num_distinct_actions()
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    pyspiel.random_sim_test(pyspiel.load_game("python_euchre(deals=2,deck=9TJ:CDS:2,decisions=true)"),
                            num_sims=3, serialize=True, verbose=False)
    assert pyspiel.load_game("python_euchre").get_parameters()["deck"] == "full"


_EXPORTS: dict[str, Any] = {}


def _efg(rv: Any, deck: str, **kw: Any) -> tuple[Any, Any]:
    """The export of ``deck`` (Euchre, one deal) and its OpenSpiel game, made once per session."""
    if deck not in _EXPORTS or kw:
        export = rv.Export(deck, game_id="euchre", forced=False, **kw)
        if kw:
            return export, export.load()
        _EXPORTS[deck] = (export, export.load())
    return _EXPORTS[deck]  # type: ignore[no-any-return]


def test_the_export_of_the_smallest_deck(rv: Any) -> None:
    """9TJQK:H:1: 480 deals (4 dealers, 5 cards in 4 hands and the up-card), one trick, every
    decision a bid: 160 information sets a seat, each with a choice."""
    export, game = _efg(rv, "9TJQK:H:1")
    assert export.nodes == {"chance": 1, "decision": 3840, "terminal": 15360, "forced": 57120}
    assert [len(t) for t in export.infosets] == [160] * 4
    assert all(len(i.legal) > 1 for i in export.all_infosets())
    assert game.num_players() == 4
    assert math.isclose(rv.exploitability(game, rv.uniform_policy(export)), 0.0558457, abs_tol=1e-6)


@pytest.mark.parametrize(("solver", "iterations", "bound"), [("cfr", 20, 0.004), ("cfr+", 20, 0.0005)])
def test_cfr_reaches_a_stated_exploitability(rv: Any, solver: str, iterations: int, bound: float) -> None:
    """OpenSpiel's C++ CFR and CFR+ on the export of 9TJQK:H:1: the average policy's
    exploitability (NashConv / 4) after ``iterations`` is below ``bound``; uniform play's is 0.056
    (docs/research-variants.md has the curves)."""
    game = _efg(rv, "9TJQK:H:1")[1]
    curve = rv.cfr_curve(game, solver, iterations, (), log=lambda _line: None)
    assert len(curve) == 1 and curve[0][0] == iterations
    assert curve[0][1] < bound


def test_the_bots_are_policies_of_the_small_game(rv: Any) -> None:
    """greedy and easy asked at every information set of 9TJQK:H:1: complete policies, and further
    from equilibrium than 20 iterations of CFR."""
    asked = rv.BotPolicies(["greedy", "easy"], game_id="euchre")
    export, game = _efg(rv, "9TJQK:H:1", on_infoset=asked.visit)
    infosets = {i.key for i in export.all_infosets()}
    for name in ("greedy", "easy"):
        policy = asked.policies[name]
        assert set(policy) == infosets
        assert all(math.isclose(sum(p for _, p in row), 1.0) for row in policy.values())
    greedy, easy = (rv.exploitability(game, asked.policies[n]) for n in ("greedy", "easy"))
    assert 0.004 < greedy and 0.004 < easy
