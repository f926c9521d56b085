"""Euchre rules, deal by deal, written as game records in card notation and replayed.

Most tests use one deal (dealer seat 0; seats 0 and 2 against 1 and 3):

====  =================  ========================================================
seat  hand               note
====  =================  ========================================================
0     JH AH KH 9C 9S     the dealer; picks up QH and discards 9C when ordered up
1     AC KC QC AS KS     leads first (the dealer's left)
2     JD 10H AD KD QD    JD is the left bower when hearts are trump
3     10C JC 10S QS JS   JC is the left bower when spades are trump
—     up-card QH         the kitty's other cards (9H 9D 10D) are never dealt
====  =================  ========================================================
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from updown.core.cards import Card
from updown.core.errors import IllegalAction, NotationError, RecordError
from updown.core.protocol import State
from updown.core.records import Record, replay
from updown.core.registry import get_game
from updown.games.euchre import (
    CARD_STR, DEFEND_ALONE, EFF, NAME, NAME_ALONE, NUM_CARDS, PASS, PICK_UP, PICK_UP_ALONE, EuchreState,
    Phase, card_id,
)

from conftest import random_playout  # noqa: I001  (tests/ is on sys.path)

GAME = get_game("euchre")

HANDS = {0: "JH AH KH 9C 9S", 1: "AC KC QC AS KS", 2: "JD 10H AD KD QD", 3: "10C JC 10S QS JS"}
UP = "QH"


def deal_steps(hands: dict[int, str] = HANDS, up: str = UP, dealer: int = 0) -> list[str]:
    steps = [f"dealer: {dealer}"]
    for i in range(1, 5):
        seat = (dealer + i) % 4
        steps.append(f"deal {seat}: {hands[seat]}")
    steps.append(f"up-card: {up}")
    return steps


def tricks(*plays: str) -> list[str]:
    """Tricks written ``"1:AC 2:10H 3:10C 0:9S"`` -> one decision step per card."""
    steps = []
    for trick in plays:
        for token in trick.split():
            seat, _, card = token.partition(":")
            steps.append(f"{seat}: {card}")
    return steps


def run(steps: list[str], **options: Any) -> EuchreState:
    state = replay(Record("euchre", 4, {"deals": 1, **options}, [f"seat {i}" for i in range(4)], steps))
    assert isinstance(state, EuchreState)
    return state


def events(state: State, kind: str) -> list[dict[str, Any]]:
    return [e for e in state.log if e["type"] == kind]


def names(state: State, seat: int) -> list[str]:
    return [GAME.action_to_str(a) for a in state.legal_actions(seat)]


# -- scoring --------------------------------------------------------------------------------------

def test_march_scores_two_and_the_left_bower_is_led_and_followed_as_trump() -> None:
    state = run([
        *deal_steps(), "1: pass", "2: order up", "0: discard 9C",
        *tricks("1:AC 2:10H 3:10C 0:9S",   # seat 2 trumps the club lead
                "2:JD 3:QS 0:JH 1:KC",     # JD led is a trump: the dealer must follow with JH
                "0:AH 1:QC 2:QD 3:JC",
                "0:KH 1:KS 2:KD 3:10S",
                "0:QH 1:AS 2:AD 3:JS"),
    ])
    assert state.is_terminal()
    score = events(state, "score")[0]
    assert score["outcome"] == "march" and score["tricks"] == [5, 0] and score["points"] == [2, 0]
    assert state.result().scores == (2, 0, 2, 0)
    assert state.result().placings == (1, 2, 1, 2)
    assert [e["winner"] for e in events(state, "trick")] == [2, 0, 0, 0, 0]


def test_made_with_four_tricks_scores_one() -> None:
    state = run([
        *deal_steps(), "1: pass", "2: order up", "0: discard 9C",
        *tricks("1:AC 2:QD 3:10C 0:9S",    # seat 2, void in clubs, throws off a loser
                "1:KC 2:10H 3:JC 0:QH",    # the dealer overtrumps
                "0:JH 1:QC 2:JD 3:JS",     # right bower led; seat 2's only trump is the left bower
                "0:AH 1:AS 2:AD 3:QS",
                "0:KH 1:KS 2:KD 3:10S"),
    ])
    score = events(state, "score")[0]
    assert score["outcome"] == "made" and score["tricks"] == [4, 1] and score["points"] == [1, 0]


def test_euchred_makers_give_the_defenders_two() -> None:
    state = run([
        *deal_steps(), "1: order up", "0: discard 9C",
        *tricks("1:AC 2:10H 3:10C 0:9S", "2:JD 3:QS 0:JH 1:KC", "0:AH 1:QC 2:QD 3:JC",
                "0:KH 1:KS 2:KD 3:10S", "0:QH 1:AS 2:AD 3:JS"),
    ])
    score = events(state, "score")[0]
    assert score["maker"] == 1
    assert score["outcome"] == "euchred" and score["points"] == [2, 0]


def test_alone_march_by_the_dealers_partner_scores_four_and_the_dealer_does_not_pick_up() -> None:
    steps = [*deal_steps(), "1: pass", "2: order up alone"]
    state = run(steps)
    # The dealer sits out: no pick-up, no discard; seat 1 (the dealer's left) leads.
    assert state.phase == Phase.PLAY and state.actors() == (1,)
    assert not state.up_taken and card_id(UP) not in state.hands[0]
    assert events(state, "pickup") == [] and events(state, "discard") == []
    assert state.view(1)["out"] == [0]
    state = run([*steps, *tricks("1:AC 2:10H 3:10C", "2:AD 3:QS 1:KC", "2:KD 3:JS 1:QC",
                                 "2:QD 3:10S 1:AS", "2:JD 3:JC 1:KS")])
    assert [e["seats"] for e in events(state, "trick")][1] == [2, 3, 1]  # the lead passes over seat 0
    score = events(state, "score")[0]
    assert score["outcome"] == "alone march" and score["points"] == [4, 0]
    assert len(state.hands[0]) == 5  # the dealer's hand stays face down


def test_alone_when_the_absent_partner_is_the_dealers_left_the_next_seat_leads() -> None:
    state = run([
        *deal_steps(), "1: pass", "2: pass", "3: pass", "0: pass",
        "1: pass", "2: pass", "3: name S alone",
        *tricks("2:AD 3:10S 0:9S", "3:JS 0:JH 2:KD", "3:JC 0:AH 2:QD", "3:QS 0:KH 2:JD", "3:10C 0:9C 2:10H"),
    ])
    trick_events = events(state, "trick")
    assert trick_events[0]["leader"] == 2 and trick_events[0]["seats"] == [2, 3, 0]
    assert [e["winner"] for e in trick_events] == [3] * 5
    score = events(state, "score")[0]
    assert score["maker"] == 3 and score["alone"] and score["points"] == [0, 4]


def test_going_alone_but_taking_four_scores_one() -> None:
    # Seat 3 names spades alone; seat 2 takes the first trick with AD.
    state = run([
        *deal_steps(), "1: pass", "2: pass", "3: pass", "0: pass",
        "1: pass", "2: pass", "3: name S alone",
        *tricks("2:AD 3:10C 0:9C", "2:KD 3:10S 0:9S", "3:JS 0:JH 2:QD", "3:JC 0:AH 2:JD", "3:QS 0:KH 2:10H"),
    ])
    score = events(state, "score")[0]
    assert score["tricks"] == [1, 4] and score["outcome"] == "made" and score["points"] == [0, 1]


def test_stick_the_dealer_the_dealer_must_name_another_suit() -> None:
    steps = [*deal_steps(), "1: pass", "2: pass", "3: pass", "0: pass", "1: pass", "2: pass", "3: pass"]
    state = run(steps)
    assert state.actors() == (0,)
    assert names(state, 0) == ["name C", "name D", "name S", "name C alone", "name D alone", "name S alone"]
    with pytest.raises(IllegalAction):
        state.apply(PASS, 0)
    with pytest.raises(IllegalAction):
        state.apply(NAME + 2, 0)  # hearts was turned down
    # Elsewhere in the second round a pass and every other suit are open.
    early = run(steps[:-1])
    assert names(early, 3)[0] == "pass" and "name H" not in names(early, 3)
    play = [*steps, "0: name D", *tricks("1:AC 2:10H 3:10C 0:9C", "1:KC 2:QD 3:JC 0:9S"), "2: JD", "3: QS"]
    state = run(play)
    assert names(state, 0) == ["JH"]  # with diamonds trump JH is the left bower: it must follow JD
    state = run([*play, *tricks("0:JH 1:QC", "2:AD 3:10S 0:AH 1:AS", "2:KD 3:JS 0:KH 1:KS")])
    score = events(state, "score")[0]
    assert score["maker"] == 0 and score["trump"] == "D" and score["tricks"] == [4, 1]
    assert score["outcome"] == "made" and score["points"] == [1, 0]


def test_without_stick_the_dealer_eight_passes_throw_the_hand_in() -> None:
    passes = ["1: pass", "2: pass", "3: pass", "0: pass"] * 2
    state = run([*deal_steps(), *passes], stick_the_dealer=False)
    assert state.is_terminal()
    assert events(state, "thrown-in") and state.result().scores == (0, 0, 0, 0)
    assert state.result().placings == (1, 1, 1, 1)
    # In a match the deal passes to the next dealer.
    match = replay(Record("euchre", 4, {"stick_the_dealer": False}, [], [*deal_steps(), *passes]))
    assert isinstance(match, EuchreState)
    assert match.chance_label() == "deal 2" and match.dealer == 1 and match.deal_no == 2


# -- the dealer's pick-up and discard ----------------------------------------------------------------

def test_the_dealer_discards_one_of_the_original_five_and_only_the_dealer_sees_it() -> None:
    state = run([*deal_steps(), "1: pass", "2: pass", "3: pass"])
    assert names(state, 0) == ["pass", "pick up", "pick up alone"]
    state.apply(PICK_UP, 0)
    assert names(state, 0) == ["discard 9C", "discard JH", "discard KH", "discard AH", "discard 9S"]
    state.apply(GAME.parse_action("discard 9s"), 0)
    assert state.view(0)["discard"] == "9S"
    for seat in (None, 1, 2, 3):
        view = state.view(seat)
        assert view.get("discard") is None
        assert "9S" not in str(view["log"])
    assert state.view(1)["up_taken"] is True
    assert sorted(state.hands[0]) == sorted(card_id(c) for c in ("JH", "AH", "KH", "9C", "QH"))


def test_the_dealer_may_go_alone_with_the_pick_up() -> None:
    state = run([*deal_steps(), "1: pass", "2: pass", "3: pass"])
    state.apply(PICK_UP_ALONE, 0)
    state.apply(GAME.parse_action("discard 9C"), 0)
    assert state.phase == Phase.PLAY and state.out == 2 and state.actors() == (1,)


# -- lone defender -------------------------------------------------------------------------------

def test_a_lone_defender_who_euchres_the_makers_scores_four() -> None:
    steps = [*deal_steps(), "1: order up", "0: discard 9C"]
    state = run(steps, lone_defender=True)
    # Defenders are asked from the dealer's left: seat 2, then seat 0.
    assert state.actors() == (2,) and names(state, 2) == ["pass", "defend alone"]
    state = run([*steps, "2: pass"], lone_defender=True)
    assert state.actors() == (0,)
    state.apply(DEFEND_ALONE, 0)
    assert state.view(None)["out"] == [2] and state.actors() == (1,)
    state = run([*steps, "2: pass", "0: defend alone",
                 *tricks("1:AC 3:10C 0:QH", "0:JH 1:QC 3:JS", "0:AH 1:KC 3:QS", "0:KH 1:AS 3:10S",
                         "0:9S 1:KS 3:JC")], lone_defender=True)
    score = events(state, "score")[0]
    assert score["tricks"] == [4, 1] and score["outcome"] == "euchred alone" and score["points"] == [4, 0]


def test_without_the_option_nobody_defends_alone() -> None:
    state = run([*deal_steps(), "1: order up", "0: discard 9C"])
    assert state.phase == Phase.PLAY
    assert GAME.parse_action("defend alone") not in state.legal_actions(1)


# -- following suit with the bowers ----------------------------------------------------------------

BOWER_HANDS = {0: "10H QH KH AH 10D", 1: "JD KD 9C 10C JC", 2: "AD 9S 10S JS QC", 3: "9H QD KC AC 9D"}


def test_a_left_bower_led_calls_for_trumps_not_diamonds() -> None:
    hearts = 2
    assert EFF[hearts][card_id("JD")] == hearts and EFF[hearts][card_id("JC")] == 0
    start = [*deal_steps(BOWER_HANDS, "JH"), "1: order up", "0: discard 10D", "1: JD"]
    state = run(start)
    assert names(state, 2) == ["QC", "AD", "9S", "10S", "JS"]  # no trump: anything, AD is not called for
    state = run([*start, "2: AD"])
    assert names(state, 3) == ["9H"]  # a trump must follow the left bower, not a diamond
    state = run([*start, "2: AD", "3: 9H"])
    assert len(names(state, 0)) == 5  # all trumps, the right bower among them
    state = run([*start, "2: AD", "3: 9H", "0: JH"])
    assert events(state, "trick")[0]["winner"] == 0  # the right bower beats the left


def test_a_diamond_led_does_not_call_for_the_left_bower() -> None:
    state = run([*deal_steps(BOWER_HANDS, "JH"), "1: order up", "0: discard AH",
                 *tricks("1:9C 2:QC 3:AC 0:10D"), "3: QD", "0: 10H"])
    assert events(state, "trick")[0]["winner"] == 3
    assert names(state, 1) == ["KD"]  # JD is a heart now: KD is seat 1's only diamond
    state.apply(card_id("KD"), 1)
    assert names(state, 2) == ["AD"]


def test_notation_round_trips() -> None:
    for text in ("pass", "order up", "order up alone", "pick up", "pick up alone", "name H", "name S alone",
                 "discard 10D", "defend alone", "JH", "9C", "3"):
        assert GAME.action_to_str(GAME.parse_action(text)) == text
    assert GAME.parse_action("accept") == PICK_UP
    assert GAME.parse_action("name ♥ alone") == NAME_ALONE + 2
    assert GAME.parse_action("J♥") == card_id("JH")
    with pytest.raises(NotationError, match=r"^8H is not in the Euchre deck \(9, 10, J, Q, K, A\)$"):
        GAME.parse_action("8H")  # a real card, but not one of Euchre's


def test_a_wrong_record_step_is_refused() -> None:
    with pytest.raises(RecordError):
        run([*deal_steps(), "1: pick up"])  # only the dealer picks up
    with pytest.raises(RecordError):
        run([*deal_steps(), "2: pass"])  # seat 1 bids first


# -- the match ---------------------------------------------------------------------------------------

def test_a_match_runs_to_ten_and_the_deal_rotates() -> None:
    for seed in range(10):
        state, _record = random_playout(GAME, 4, seed)
        assert isinstance(state, EuchreState)
        scores = events(state, "score")
        dealers = [e["dealer"] for e in scores]
        assert all((b - a) % 4 == 1 for a, b in zip(dealers, dealers[1:]))
        totals = scores[-1]["totals"]
        assert max(totals) >= 10 and all(max(e["totals"]) < 10 for e in scores[:-1])
        winner = 0 if totals[0] > totals[1] else 1
        assert state.result().placings[winner] == 1 == state.result().placings[winner + 2]
        assert state.result().placings[1 - winner] == 2
        for e in scores:
            assert sum(e["points"]) in (0, 1, 2, 4) and sum(e["tricks"]) in (0, 5)


def test_target_and_deals_options() -> None:
    state, _ = random_playout(GAME, 4, 3, {"target": 3})
    assert isinstance(state, EuchreState)
    assert max(state.totals) >= 3 and max(events(state, "score")[-2]["totals"]) < 3
    state, _ = random_playout(GAME, 4, 3, {"deals": 2})
    assert len(events(state, "score")) <= 2


# -- properties ---------------------------------------------------------------------------------------

def check_cards(state: EuchreState) -> None:
    """Every card is in exactly one place: a hand, played, the undealt kitty, the discard, the up-card."""
    places = [c for h in state.hands for c in h] + [c for p in state.played for c in p] + state.deck
    if state.discarded >= 0:
        places.append(state.discarded)
    if state.upcard >= 0 and not state.up_taken:
        places.append(state.upcard)
    assert sorted(places) == list(range(NUM_CARDS)), Counter(places) - Counter(range(NUM_CARDS))
    if state.phase == Phase.PLAY:
        for s in range(4):
            assert len(state.hands[s]) + len(state.played[s]) == 5


@pytest.mark.parametrize("options", [{}, {"lone_defender": True}, {"stick_the_dealer": False}])
def test_cards_are_conserved_and_resampled_worlds_agree_with_the_seat(options: dict[str, Any]) -> None:
    rng = random.Random(7)
    for seed in range(12):
        def visit(state: State, seat: int | None, action: int) -> None:
            assert isinstance(state, EuchreState)
            check_cards(state)
            if rng.random() < 0.3 and not state.is_terminal():
                for me in range(4):
                    world = state.resample(me, rng)
                    assert isinstance(world, EuchreState)
                    check_cards(world)
                    assert world.view(me) == state.view(me)
                    if state.up_taken and state.upcard in state.hands[state.dealer]:
                        assert state.upcard in world.hands[state.dealer]
                    voids = state.voids()
                    for s in range(4):
                        if s != me and state.trump >= 0:
                            assert not any(EFF[state.trump][c] in voids[s] for c in world.hands[s])
                    # The world's private events agree with its own hands.
                    for e in world.log[world.deal_log_start:]:
                        if e["type"] == "hand":
                            s = e["seat"]
                            dealt = world.hands[s] + world.played[s]
                            if s == world.dealer and world.up_taken:
                                dealt = [c for c in dealt if c != world.upcard]
                                dealt += [world.discarded] if world.discarded >= 0 else []
                            assert e["cards"] == [CARD_STR[c] for c in sorted(dealt)]

        random_playout(GAME, 4, seed, options, observer=visit)


def test_a_record_replays_to_the_same_views() -> None:
    state, record = random_playout(GAME, 4, 11)
    again = replay(Record.from_json(record.to_json()))
    for seat in [None, 0, 1, 2, 3]:
        assert again.view(seat) == state.view(seat)
    assert any(step.startswith("up-card: ") for step in record.steps)
    assert Card.parse(record.steps[-1].split(": ")[1])  # the last step is a card played
