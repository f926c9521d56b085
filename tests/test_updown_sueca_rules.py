"""Up&Down with Sueca ranks (``updown-sueca``), rule by rule, as scripted records replayed.

Seats are numbered in playing order (counter-clockwise): seat s + 1 sits on seat s's right and acts
after it. The first dealer is seat 0, so in deal 1 seat 1 is dealt first and chooses the trump, and
decisions go 1, 2, 3, 0. Hands below are written per seat; the first three cards of each are the first
packet, the last two the second (with ``turn``, the chooser's fourth card is the turned one).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from updown.core.errors import IllegalAction, RecordError
from updown.core.records import Record, replay
from updown.core.registry import get_game
from updown.games.updown_sueca import LEAVE, UpDownSuecaState, card_id

from conftest import random_playout  # noqa: I001  (tests/ is on sys.path)

GAME = get_game("updown-sueca")


# -- building records -------------------------------------------------------------------------

def deal(*hands: str, dealer: int = 0, trump: str = "S", turn: bool = False) -> list[str]:
    """The chance steps and the trump choice of one deal; ``hands`` are indexed by seat."""
    cs = [h.split() for h in hands]
    assert all(len(h) == 5 for h in cs)
    chooser = (dealer + 1) % 4
    order = [(chooser + i) % 4 for i in range(4)]
    steps = [f"deal {s}: {' '.join(cs[s][:3])}" for s in order]
    if turn:
        steps += [f"{chooser}: turn", f"turn: {cs[chooser][3]}", f"deal {chooser}: {cs[chooser][4]}"]
        steps += [f"deal {s}: {' '.join(cs[s][3:])}" for s in order[1:]]
    else:
        steps += [f"{chooser}: trump {trump}"]
        steps += [f"deal {s}: {' '.join(cs[s][3:])}" for s in order]
    return steps


def record(steps: list[str], **options: Any) -> Record:
    return Record("updown-sueca", 4, dict(options), ["s0", "s1", "s2", "s3"], steps)


def run(steps: list[str], **options: Any) -> UpDownSuecaState:
    state = replay(record(steps, **options))
    assert isinstance(state, UpDownSuecaState)
    return state


def apply_steps(state: UpDownSuecaState, steps: list[str]) -> None:
    """Apply record-style steps to a state built by hand (e.g. with preset scores)."""
    for step in steps:
        head, _, body = step.partition(":")
        if head.strip().isdigit():
            state.apply(GAME.parse_action(body), int(head))
        else:
            for token in body.split():
                assert state.chance_label() == head.strip()
                state.apply(GAME.parse_action(token))


def legal(state: UpDownSuecaState, seat: int) -> list[str]:
    return sorted(GAME.action_to_str(a) for a in state.legal_actions(seat))


def events(state: UpDownSuecaState, kind: str) -> list[dict[str, Any]]:
    return [e for e in state.log if e["type"] == kind]


# Four all-play hands with trump spades (seat 1 chooses): nobody holds the ace of spades.
H0 = "2H 3H 4H 2C 3C"
H1 = "KS 5S AH 7H 2D"
H2 = "AD 7D KD 4S 6C"
H3 = "QS JS 2S KH 6H"


def all_done(*seats: int) -> list[str]:
    return [f"{s}: done" for s in seats]


# -- the deal and the trump -------------------------------------------------------------------

def test_deal_packets_chooser_and_decision_order() -> None:
    state = run(deal(H0, H1, H2, H3)[:4])
    assert state.actors() == (1,) and legal(state, 1) == ["trump C", "trump D", "trump H", "trump S", "turn"]
    assert [len(h) for h in state.hands] == [3, 3, 3, 3]
    state = run(deal(H0, H1, H2, H3))
    assert [len(h) for h in state.hands] == [5] * 4 and len(state.deck) == 20
    assert state.view(0)["trump"] == "S" and state.view(0)["chooser"] == 1
    # The chooser must play: no decision, straight to the exchange; then 2, 3, 0 decide in turn.
    assert events(state, "plays")[-1] == {"type": "plays", "seat": 1, "forced": "chose the trump"}
    assert state.actors() == (1,) and "done" in legal(state, 1) and "sit out" not in legal(state, 1)
    apply_steps(state, ["1: done"])
    assert state.actors() == (2,) and legal(state, 2) == ["play", "sit out"]
    apply_steps(state, ["2: sit out", "3: play", "3: done"])
    assert state.actors() == (0,)


def test_turned_trump_card_is_public_and_stays_in_the_choosers_hand() -> None:
    state = run(deal("2C 3C 4C 5C 6C", "AD 7D KD 5H 2S", "QC JC KC 7C AC", "2H 3H 4H 6H QH", turn=True))
    assert state.view(None)["trump"] == "H" and state.view(None)["turned"] == "5H"
    for seat in range(4):
        assert state.view(seat)["turned"] == "5H"
    assert "5H" in state.view(1)["hand"] and len(state.hands[1]) == 5
    trump_event = events(state, "trump")[0]
    assert trump_event["turned"] == "5H" and "to" not in trump_event
    # the chooser got one more card after the turned one; the others two each
    assert [e["cards"] for e in events(state, "dealt") if e["packet"] == 2 and e["seat"] == 1] == [["5H", "2S"]]


def test_turning_is_recorded_as_a_chance_outcome() -> None:
    state = run(deal(H0, H1, H2, H3)[:4] + ["1: turn"])
    assert state.is_chance() and state.chance_label() == "turn"
    with pytest.raises(RecordError, match="turn"):
        run(deal(H0, H1, H2, H3)[:4] + ["1: turn", "deal 1: 7H"])


# -- who must play ----------------------------------------------------------------------------

def test_hearts_trump_forces_everyone_to_play() -> None:
    state = run(deal(H0, H1, H2, H3, trump="H"))
    apply_steps(state, all_done(1, 2, 3, 0))
    assert [e["forced"] for e in events(state, "plays")] == [
        "chose the trump", "Hearts are trump", "Hearts are trump", "Hearts are trump"]
    assert state.view(0)["phase"] == "trick"


def test_regional_variant_clubs_force_everyone_and_hearts_do_not() -> None:
    state = run(deal(H0, H1, H2, H3, trump="C"), regional=True)
    apply_steps(state, all_done(1, 2, 3, 0))
    assert [e["forced"] for e in events(state, "plays")][1:] == ["Clubs are trump"] * 3
    state = run(deal(H0, H1, H2, H3, trump="H"), regional=True)
    apply_steps(state, ["1: done"])
    assert legal(state, 2) == ["play", "sit out"]


def test_forced_play_by_score_and_by_two_sit_outs() -> None:
    steps = [
        # deal 1 (dealer 0): seat 1 chooses clubs and plays alone: 5 tricks, doubled: 20 -> 10
        *deal(H0, H1, H2, H3, trump="C"), "1: done", "2: sit out", "3: sit out", "0: sit out",
        # deal 2 (dealer 1, chooser 2, clubs): seats 3 and 0 sit out again; 1 plays against 2
        *deal("2H 3H 4H 2C 3C", "7D JD 6D 3D 4D", "AD KD QD 5D 2S", "QS JS KS KH 6H", dealer=1, trump="C"),
        "2: done", "3: sit out", "0: sit out", "1: play", "1: done",
        "2: AD", "1: 3D", "2: KD", "1: 7D", "1: JD", "2: QD", "1: 6D", "2: 5D", "1: 4D", "2: 2S",
    ]
    state = run(steps)
    assert state.scores == [20, 2, 18, 20]  # seat 1: 10 - 4 x 2; seat 2: 1 trick x 2
    assert state.sat_out == [2, 0, 0, 2]
    # deal 3 (dealer 2, chooser 3): 3 chose, 0 sat out twice, 1 has 5 points or less; 2 decides
    state = run(steps + deal(H0, H1, H2, H3, dealer=2, trump="D") + ["3: done", "0: done", "1: done"])
    assert [e["forced"] for e in events(state, "plays")[-3:]] == [
        "chose the trump", "sat out the two previous deals", "has 5 points or less"]
    assert state.actors() == (2,) and legal(state, 2) == ["play", "sit out"]


def test_six_points_is_not_forced() -> None:
    state = GAME.new_state(4)
    assert isinstance(state, UpDownSuecaState)
    state.scores = [20, 20, 6, 5]
    apply_steps(state, [*deal(H0, H1, H2, H3), "1: done"])
    assert legal(state, 2) == ["play", "sit out"]
    apply_steps(state, ["2: sit out"])
    assert events(state, "plays")[-1] == {"type": "plays", "seat": 3, "forced": "has 5 points or less"}


# -- the exchange -----------------------------------------------------------------------------

def test_exchange_discards_then_draws_from_the_stock_privately() -> None:
    state = run([*deal(H0, H1, H2, H3), "1: discard 2D", "1: discard AH", "1: done"])
    assert state.is_chance() and state.chance_label() == "draw 1"
    apply_steps(state, ["draw 1: AS 7S"])
    assert sorted(state.view(1)["hand"]) == sorted(["KS", "5S", "7H", "AS", "7S"])
    assert state.view(1)["my_discards"] == ["2D", "AH"]
    for seat in (0, 2, 3, None):
        v = state.view(seat)
        assert v["exchanged"][1] == 2
        text = json.dumps(v["log"])
        assert "AS" not in text and "2D" not in text and "AH" not in text
    assert state.actors() == (2,)
    assert len(state.deck) == 18


def test_a_player_who_sits_out_cannot_exchange() -> None:
    state = run([*deal(H0, H1, H2, H3), "1: done"])
    with pytest.raises(IllegalAction):
        state.apply(GAME.parse_action("discard AD"), 2)
    apply_steps(state, ["2: sit out"])
    assert state.actors() == (3,) and state.hands[2] == [card_id(c) for c in H2.split()]


def test_exchange_limit_option() -> None:
    state = run([*deal(H0, H1, H2, H3), "1: discard 2D", "1: discard AH"], exchange_limit=2)
    assert legal(state, 1) == ["done"]
    with pytest.raises(IllegalAction, match="at most 2"):
        state.apply(GAME.parse_action("discard 7H"), 1)
    state = run(deal(H0, H1, H2, H3), exchange_limit=0)
    assert state.actors() == (2,) and legal(state, 2) == ["play", "sit out"]
    with pytest.raises(RecordError):
        run([], exchange_limit=6)


def test_all_five_may_be_exchanged() -> None:
    state = run([*deal(H0, H1, H2, H3), *(f"1: discard {c}" for c in H1.split())])
    assert legal(state, 1) == ["done"]
    apply_steps(state, ["1: done", "draw 1: AS 7S AC 7C"])
    assert state.chance_label() == "draw 1"  # one more to draw


# -- a lone player ----------------------------------------------------------------------------

@pytest.mark.parametrize("trump, change", [("S", -5), ("C", -10)])
def test_a_lone_player_takes_all_five_tricks_without_play(trump: str, change: int) -> None:
    state = run([*deal(H0, H1, H2, H3, trump=trump), "1: done", "2: sit out", "3: sit out", "0: sit out"])
    assert events(state, "lone") == [{"type": "lone", "seat": 1, "tricks": 5}]
    assert not events(state, "trick")
    assert state.scores == [20, 20 + change, 20, 20]
    assert state.deal_no == 2 and state.dealer == 1 and state.chance_label() == "deal 2"


# -- the play rules ---------------------------------------------------------------------------

def playing(*hands: str, trump: str = "S", sit: tuple[int, ...] = (), **options: Any) -> UpDownSuecaState:
    """All four decided (seats in ``sit`` sit out, the rest play and keep their cards)."""
    steps = deal(*hands, trump=trump)
    steps.append("1: done")
    for s in (2, 3, 0):
        steps += [f"{s}: sit out"] if s in sit else [f"{s}: play", f"{s}: done"]
    return run(steps, **options)


def test_the_leader_must_lead_the_ace_of_trumps() -> None:
    state = playing("2H 3H 4H 2C 3C", "AS 5S AH 7H 2D", "AD 7D KD 4S 6C", "QS JS 2S KH 6H")
    assert legal(state, 1) == ["AS"]
    with pytest.raises(IllegalAction, match="ace of trumps"):
        state.apply(card_id("AH"), 1)


def test_the_ace_of_trumps_rule_applies_to_every_trick_led() -> None:
    # Seat 2 wins trick 1 and leads trick 2 holding the ace of trumps.
    state = playing("2H 3H 4H 2C 3C", "KH 5S QH 7H 2D", "AH 7D KD AS 6C", "QS JS 2S JH 6H")
    assert legal(state, 1) == sorted(["KH", "5S", "QH", "7H", "2D"])
    state2 = playing("2H 3H 4H 2C 3C", "KH 5S QH 7H 2D", "AH 7D KD AS 6C", "QS JS 2S JH 6H")
    apply_steps(state2, ["1: KH", "2: AH", "3: JH", "0: 2H"])
    assert events(state2, "trick")[0]["winner"] == 2 and legal(state2, 2) == ["AS"]


def test_follow_suit_when_possible() -> None:
    state = playing(H0, H1, H2, H3)
    apply_steps(state, ["1: 7H"])
    assert legal(state, 2) == ["4S"]  # no heart: must trump
    assert legal(state, 3) == []  # not to act
    state = playing(H0, H1, H2, H3)
    apply_steps(state, ["1: 2D"])
    assert legal(state, 2) == ["7D", "AD", "KD"]
    with pytest.raises(IllegalAction, match="follow suit"):
        state.apply(card_id("4S"), 2)


def test_cannot_follow_must_trump() -> None:
    state = playing(H0, "KS 5S AH 7H 6C", "AD 7D KD 4S 6D", H3)
    apply_steps(state, ["1: 6C"])
    assert legal(state, 2) == ["4S"]
    with pytest.raises(IllegalAction, match="play a trump"):
        state.apply(card_id("AD"), 2)


def test_a_trump_on_the_table_must_be_beaten_if_possible() -> None:
    # 1 leads 2C, 2 trumps with 4S; 3 has no club and trumps QS, JS, 2S: must play higher than 4S.
    state = playing("2H 3H 4H 3C 6H", "KS 5S AH 7H 2C", "AD 7D KD 4S 6D", "QS JS 2S KH QH")
    apply_steps(state, ["1: 2C", "2: 4S"])
    assert legal(state, 3) == ["JS", "QS"]
    with pytest.raises(IllegalAction, match="higher than"):
        state.apply(card_id("2S"), 3)
    with pytest.raises(IllegalAction):
        state.apply(card_id("KH"), 3)


def test_only_lower_trumps_than_the_table_means_a_free_card() -> None:
    state = playing("2H 3H 4H 3C 6H", "KS 5S AH 7H 2C", "AD 7D KD 7S 6D", "QS JS 2S KH QH")
    apply_steps(state, ["1: 2C", "2: 7S"])
    assert legal(state, 3) == ["2S", "JS", "KH", "QH", "QS"]


def test_no_trump_and_no_card_of_the_suit_means_a_free_card() -> None:
    state = playing("2H 3H 4H 3C 6H", "KS 5S AH 7H 2C", "AD 7D KD 5D 6D", "QS JS 2S KH QH")
    apply_steps(state, ["1: 2C"])
    assert legal(state, 2) == ["5D", "6D", "7D", "AD", "KD"]


def test_a_led_trump_is_followed_with_any_trump() -> None:
    state = playing("2H 3H 4H 3C 6H", "KS 5S AH 7H 2C", "AD 7D KD 4S 6D", "QS JS 2S KH QH")
    apply_steps(state, ["1: KS", "2: 4S"])
    assert legal(state, 3) == ["2S", "JS", "QS"]


def test_trick_winner_sueca_ranks_and_trumps() -> None:
    # No trump: the highest of the suit led, 7 above K; an off-suit ace never wins.
    state = playing("2H 3H 4H 3C 6H", "KD 5S AH 7H 2C", "AC 7D QD 4S 6D", "QC JC 5C KH 6C")
    apply_steps(state, ["1: KD", "2: 7D", "3: KH", "0: 2H"])
    assert events(state, "trick")[0]["winner"] == 2
    # The highest trump wins over the suit led.
    state = playing("2H 3H 4H 3C 6H", "KS 5S AH 7H 2C", "AD 7D KD 4S 6D", "QS JS 2S KH QH")
    apply_steps(state, ["1: 2C", "2: 4S", "3: JS", "0: 3C"])
    assert events(state, "trick")[0]["winner"] == 3 and state.actors() == (3,)


def test_sitting_out_seats_are_skipped_and_the_winner_leads() -> None:
    state = playing(H0, H1, H2, H3, sit=(3,))
    apply_steps(state, ["1: 2D", "2: AD", "0: 2C"])
    assert events(state, "trick")[0]["cards"] == [[1, "2D"], [2, "AD"], [0, "2C"]]
    assert state.actors() == (2,)


# -- scoring and the end ----------------------------------------------------------------------

FULL = ["1: 7H", "2: 4S", "3: KH", "0: 2H",     # 2 trumps: seat 2
        "2: AD", "3: QS", "0: 2C", "1: 2D",     # 3 trumps: seat 3
        "3: JS", "0: 3C", "1: KS", "2: KD",     # trump led: KS wins, seat 1
        "1: AH", "2: 7D", "3: 6H", "0: 3H",     # no heart from 2, no trump left: AH wins, seat 1
        "1: 5S", "2: 6C", "3: 2S", "0: 4H"]     # 5S over 2S: seat 1


def test_scoring_tricks_subtract_and_no_trick_adds_five() -> None:
    state = playing(H0, H1, H2, H3)
    apply_steps(state, FULL)
    score = events(state, "score")[0]
    assert score["tricks"] == [0, 3, 1, 1]
    assert score["changes"] == [5, -3, -1, -1] and state.scores == [25, 17, 19, 19]


def test_scoring_with_clubs_doubles_and_no_trick_adds_ten() -> None:
    h = [x.replace("S", "_").replace("C", "S").replace("_", "C") for x in (H0, H1, H2, H3)]
    steps = [m.replace("S", "_").replace("C", "S").replace("_", "C") for m in FULL]
    state = playing(*h, trump="C")
    apply_steps(state, steps)
    assert events(state, "score")[0]["changes"] == [10, -6, -2, -2]


def test_regional_hearts_double() -> None:
    h = [x.replace("S", "_").replace("H", "S").replace("_", "H") for x in (H0, H1, H2, H3)]
    steps = [m.replace("S", "_").replace("H", "S").replace("_", "H") for m in FULL]
    state = playing(*h, trump="H", regional=True)
    apply_steps(state, steps)
    assert events(state, "score")[0]["changes"] == [10, -6, -2, -2]


def test_sitting_out_changes_nothing() -> None:
    state = playing(H0, H1, H2, H3, sit=(0,))
    apply_steps(state, [m for m in FULL if not m.startswith("0:")])
    assert state.scores[0] == 20 and state.sat_out[0] == 1


MATCH = [
    *deal(H0, H1, H2, H3, trump="C"), "1: done", "2: sit out", "3: sit out", "0: sit out",  # 1: 10
    *deal("2H 3H 4H 2C 3C", "AD 7D JD 6D 4D", "KD QD 3D 5D 2S", "QS JS KS KH 6H", dealer=1, trump="C"),
    "2: done", "3: sit out", "0: sit out", "1: play", "1: done",
    "2: KD", "1: AD", "1: 7D", "2: QD", "1: JD", "2: 3D", "1: 6D", "2: 5D", "1: 4D", "2: 2S",
]


def test_the_match_ends_when_someone_reaches_zero_and_settles_in_riscos() -> None:
    state = run(MATCH)
    assert state.is_terminal()
    assert state.scores == [20, 0, 30, 20]
    result = state.result()
    assert result.placings == (2, 1, 4, 2) and result.winners == (1,)
    assert result.details["riscos"] == [-20, 70, -30, -20] and result.details["house"] == 0
    assert sum(result.details["riscos"]) + result.details["house"] == 0
    assert events(state, "end")[0]["riscos"] == [-20, 70, -30, -20]
    with pytest.raises(IllegalAction, match="over"):
        state.apply(card_id("AS"), 0)
    assert state.leave_action(0) is None


def _preset(scores: list[int]) -> UpDownSuecaState:
    state = GAME.new_state(4)
    assert isinstance(state, UpDownSuecaState)
    state.scores = list(scores)
    return state


@pytest.mark.parametrize("scores, play, winner", [
    ([20, 3, 1, 20], "two at 0 or less: the lowest score wins", 2),
    ([20, 3, 2, 20], "tied at 0: more tricks in the deal wins", 1),
])
def test_when_several_reach_zero_the_lowest_then_most_tricks_wins(
    scores: list[int], play: str, winner: int
) -> None:
    # Seats 1 and 2 play (forced by score), 3 and 0 sit out; seat 1 takes 3 tricks, seat 2 takes 2.
    state = _preset(scores)
    apply_steps(state, [*deal(H0, "AD 7D KD 2D 3D", "QD JD 6D 5D 4D", H3, trump="S"), "1: done", "2: done"])
    apply_steps(state, ["3: sit out", "0: sit out",
                        "1: AD", "2: 4D", "1: 7D", "2: 5D", "1: KD", "2: 6D", "1: 2D", "2: JD", "2: QD", "1: 3D"])
    assert state.is_terminal(), play
    assert state.tricks == [0, 3, 2, 0]
    assert state.result().placings[winner] == 1 and state.result().winners == (winner,)


def test_equal_score_and_tricks_go_to_the_first_in_playing_order() -> None:
    # Seats 1 and 2 are at 1 point and take one trick each: both at 0 with one trick; seat 1 comes
    # first in playing order from the chooser (seat 1) and wins.
    state = _preset([20, 1, 1, 20])
    apply_steps(state, [*deal("6H 7H KH 2C 3C", "KC 6C 5C 7D 4H", "AD 3D 4D AH 5H", "AC QC 2D 2S 3S"),
                        "1: done", "2: done", "3: play", "3: done", "0: sit out",
                        "1: 7D", "2: AD", "3: 2D",      # seat 2
                        "2: 3D", "3: 2S", "1: 5C",      # 3 must trump: seat 3
                        "3: AC", "1: 6C", "2: 4D",      # seat 3
                        "3: QC", "1: KC", "2: AH",      # seat 1
                        "1: 4H", "2: 5H", "3: 3S"])     # 3 must trump: seat 3
    assert state.tricks == [0, 1, 1, 3] and state.is_terminal()
    assert state.scores == [20, 0, 0, 17]
    assert state.result().winners == (1,) and state.result().placings == (4, 1, 2, 3)


def test_leave_settlement_without_and_with_a_leave() -> None:
    # A seat that is not to act may leave; the match goes on; it pays 100 to the house.
    steps = MATCH[:9] + ["3: leave"] + MATCH[9:]
    state = run(steps)
    assert state.is_terminal() and events(state, "leave") == [{"type": "leave", "seat": 3, "riscos": -100}]
    result = state.result()
    assert result.details["riscos"] == [-20, 50, -30, -100] and result.details["house"] == 100
    assert result.details["left"] == [3] and result.placings == (2, 1, 3, 4)
    assert sum(result.details["riscos"]) + result.details["house"] == 0
    assert state.view(0)["left"] == [3]


def test_a_leaver_whose_seat_finishes_first_is_not_the_settlement_winner() -> None:
    state = run(MATCH[:-1] + ["1: leave", MATCH[-1]])
    result = state.result()
    assert result.details["winner"] == 1 and result.details["settlement_winner"] in (0, 3)
    # 0 and 3 are both at 20; 0 comes first in playing order from chooser 2 (2, 3, 0, 1)? No: 3 does.
    assert result.details["settlement_winner"] == 3
    assert result.details["riscos"] == [-20, -100, -30, 50] and result.details["house"] == 100
    assert result.placings[1] == 4 and result.placings[3] == 1


def test_leave_rules() -> None:
    state = run(deal(H0, H1, H2, H3))
    assert state.leave_action(2) == LEAVE and LEAVE not in state.legal_actions(1)
    state.apply(LEAVE, 2)
    assert state.leave_action(2) is None
    with pytest.raises(IllegalAction, match="already left"):
        state.apply(LEAVE, 2)
    state = run(deal(H0, H1, H2, H3)[:2])
    assert state.is_chance()
    state.apply(LEAVE, 0)  # even at a chance step
    assert state.left[0] and state.is_chance()
    with pytest.raises(IllegalAction):
        state.apply(LEAVE)


def test_everyone_leaving_still_sums_to_zero() -> None:
    state = run(MATCH[:-1] + [f"{s}: leave" for s in range(4)] + [MATCH[-1]])
    result = state.result()
    assert result.details["riscos"] == [-100] * 4 and result.details["house"] == 400
    assert result.details["settlement_winner"] is None


# -- notation -------------------------------------------------------------------------------

def test_notation_round_trips() -> None:
    for a in [*range(88), LEAVE]:
        assert GAME.parse_action(GAME.action_to_str(a)) == a
    assert GAME.parse_action("swap 3h") == GAME.parse_action("discard 3H")
    assert GAME.parse_action("trump ♥") == GAME.parse_action("trump H")
    assert GAME.parse_action("keep") == GAME.parse_action("done")


# -- the foundation's properties --------------------------------------------------------------

OPTION_SETS: list[dict[str, Any]] = [{}, {"regional": True}, {"exchange_limit": 2}]


@pytest.mark.parametrize("options", OPTION_SETS)
@pytest.mark.parametrize("seed", range(6))
def test_conservation_at_every_step(options: dict[str, Any], seed: int) -> None:
    def check(state: Any, _seat: Any, _action: Any) -> None:
        cards = list(state.deck)
        for s in range(4):
            cards += state.hands[s] + state.discards[s] + state.played[s]
        assert sorted(cards) == list(range(40))
        for s in range(4):
            assert len(state.hands[s]) <= 5

    state, _ = random_playout(GAME, 4, seed, options, observer=check)
    result = state.result()
    assert sum(result.details["riscos"]) + result.details["house"] == 0


@pytest.mark.parametrize("seed", range(10))
def test_record_replay_is_equal(seed: int) -> None:
    state, rec = random_playout(GAME, 4, seed)
    again = replay(Record.from_json(rec.to_json()))
    assert again.result() == state.result() and again.log == state.log


@pytest.mark.parametrize("seed", range(4))
def test_resample_views_identical_and_hidden_cards_vary(seed: int) -> None:
    rng = random.Random(seed)
    varied = 0
    checked = 0

    def check(state: Any, _seat: Any, _action: Any) -> None:
        nonlocal varied, checked
        if state.is_terminal():
            return
        for me in range(4):
            world = state.resample(me, rng)
            assert world.view(me) == state.view(me)
            assert sorted(world.hands[me]) == sorted(state.hands[me])
            checked += 1
            varied += [sorted(h) for h in world.hands] != [sorted(h) for h in state.hands]
            # the world is consistent: its play history was legal for the hands it gives
            for s in range(4):
                assert not any(world.voids[s] and not world._may_hold(s, c) for c in world.hands[s])
            if state.turned >= 0 and state.chooser != me and state.turned not in state.played[state.chooser]:
                c = state.chooser
                assert state.turned in world.hands[c] + world.discards[c]

    random_playout(GAME, 4, seed, observer=check)
    assert checked > 100 and varied > checked // 2


# -- the greedy bot ---------------------------------------------------------------------------

def test_greedy_games_are_legal_and_reproducible() -> None:
    from updown.simulate import play_seeded

    first, rec = play_seeded(GAME, 4, ["greedy", "random", "greedy", "random"], seed=7)
    again, rec2 = play_seeded(GAME, 4, ["greedy", "random", "greedy", "random"], seed=7)
    assert rec.steps == rec2.steps
    assert replay(Record.from_json(rec.to_json())).result() == first.result()


def test_greedy_leads_the_ace_of_trumps_and_wins_cheaply_when_last() -> None:
    from updown.bots import make_bot

    state = playing("2H 3H 4H 2C 3C", "AS 5S AH 7H 2D", "AD 7D KD 4S 6C", "QS JS 2S KH 6H")
    bot = make_bot("greedy", GAME, 1, random.Random(0))
    assert GAME.action_to_str(bot.act(state.view(1), state.legal_actions(1))) == "AS"
    state = playing(H0, H1, H2, H3, sit=(0,))
    apply_steps(state, ["1: 2D", "2: 7D"])  # seat 3, last, cannot follow and must trump: any trump wins
    bot = make_bot("greedy", GAME, 3, random.Random(0))
    assert GAME.action_to_str(bot.act(state.view(3), state.legal_actions(3))) == "2S"


def test_every_event_is_described() -> None:
    state, _ = random_playout(GAME, 4, 3)
    for event in state.log:
        line = GAME.describe(event, ["a", "b", "c", "d"])
        assert line and not line.startswith("{")


# -- resample never hands a seat what it could not see (found in review) ----------------------

def test_resample_places_a_discarded_turned_card_without_falling_back_to_the_real_cards() -> None:
    # Seat 1 turns AS (trump), discards it, then leads without it: AS must be among its discards.
    steps = deal("2H 3H 4H 2C 3C", "KD 5D 6D AS 2D", "AD 7D QD 4S 6C", "QS JS 2S KH 6H", turn=True)
    steps += ["1: discard AS", "1: done", "draw 1: 3D", "2: play", "2: done", "3: play", "3: done",
              "0: play", "0: done", "1: KD"]
    state = run(steps)
    identical = 0
    for i in range(300):
        world = state.resample(2, random.Random(i))
        assert world.view(2) == state.view(2)
        assert card_id("AS") in world.discards[1]
        identical += all(world.hands[s] == state.hands[s] and world.discards[s] == state.discards[s]
                         for s in (0, 1, 3))
    assert identical < 30  # the real layout is one of many; a fallback to it would show up often


def test_resample_forgets_other_seats_private_events_of_earlier_deals() -> None:
    steps = [*deal(H0, H1, H2, H3, trump="C"), "1: discard 2D", "1: done", "draw 1: AS",
             "2: sit out", "3: sit out", "0: sit out"]
    steps += deal("2H 3H 4H 2C 3C", "7D JD 6D 3D 4D", "AD KD QD 5D 2S", "QS JS KS KH 6H", dealer=1, trump="C")
    state = run(steps)
    world = state.resample(0, random.Random(5))
    assert world.view(0) == state.view(0)
    real_earlier = state.log[: state.deal_log_start]
    assert [e for e in real_earlier if "to" in e and 0 not in e["to"]]  # there were some to forget
    earlier = world.log[: world.deal_log_start]
    assert not [e for e in earlier if "to" in e and 0 not in e["to"]]
    assert earlier == [e for e in real_earlier if "to" not in e or 0 in e["to"]]
