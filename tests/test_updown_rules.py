"""UP&DOWN rules, situation by situation, written as game records and replayed.

Every test builds a record (a list of step strings, as in a saved game), replays it with
:func:`updown.core.records.replay`, and checks the trick events, the tricks and the pot. The
seat names follow the rulebook's examples: Kim, Leah, Alex, and Ben as the fourth player.

With ``orient: C`` and four players the suits are Kim clubs, Leah diamonds, Alex hearts,
Ben spades (the card's sides in cyclic order are D, H, S, C), and Kim, facing clubs, leads first.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from updown.core.cards import Card
from updown.core.errors import IllegalAction, RecordError
from updown.core.protocol import State
from updown.core.records import Record, replay
from updown.core.registry import get_game
from updown.games.updown import CARD_STR, HAND_SIZE, NUM_CARDS, UpDownState, card_id

from conftest import random_playout, snapshot  # noqa: I001  (tests/ is on sys.path)

GAME = get_game("updown")
NAMES = ["Kim", "Leah", "Alex", "Ben"]
KIM, LEAH, ALEX, BEN = range(4)


# -- building records -------------------------------------------------------------------------

def cards(text: str) -> list[str]:
    """Card notation, normalised (``"9c 10H"`` -> ``["9C", "10H"]``)."""
    return [str(Card.parse(t)) for t in text.split()]


def full_deal(*hands: str) -> list[str]:
    """The deal steps for complete hands, one string per seat, exactly as dealt."""
    size = HAND_SIZE[len(hands)]
    steps = []
    for seat, hand in enumerate(hands):
        cs = cards(hand)
        assert len(cs) == size, f"seat {seat} must get {size} cards, not {len(cs)}"
        steps.append(f"deal {seat}: {' '.join(cs)}")
    return steps


def deal(*hands: str) -> list[str]:
    """The deal steps for hands that name only the cards a test is about.

    Each hand is completed to the hand size with the lowest cards (deck order) that no hand
    names, so the named cards are in the hands and everything else is filler.
    """
    size = HAND_SIZE[len(hands)]
    named = [cards(h) for h in hands]
    taken = {c for h in named for c in h}
    assert len(taken) == sum(len(h) for h in named), "a card is named twice"
    spare = [c for c in CARD_STR if c not in taken]
    full = []
    for h in named:
        assert len(h) <= size
        extra, spare = spare[: size - len(h)], spare[size - len(h):]
        full.append(" ".join(h + extra))
    return full_deal(*full)


def setup(*hands: str, dice: str = "1+1", toss: str = "UP", orient: str = "C") -> list[str]:
    """Deal (completing the hands), roll the trump, toss and orient the U&D card."""
    return [*deal(*hands), f"dice: {dice}", f"toss: {toss}", f"orient: {orient}"]


def trick(leader: int, change: str, *played: str) -> list[str]:
    """One trick: the leader's change (``flip``, ``rotate S`` or ``roll 3+4``), then every seat's card."""
    if change.startswith("roll "):
        steps = [f"{leader}: roll", f"dice: {change.split(' ', 1)[1]}"]
    else:
        steps = [f"{leader}: {change}"]
    return steps + [f"{seat}: {card}" for seat, card in enumerate(played)]


def play(steps: list[str], players: int = 4, **options: Any) -> UpDownState:
    state = replay(Record(game="updown", players=players, options=dict(options),
                          seats=NAMES[:players], steps=list(steps)))
    assert isinstance(state, UpDownState)
    return state


def tricks_of(state: State) -> list[dict[str, Any]]:
    return [e for e in state.log if e["type"] == "trick"]


def last_trick(state: State) -> dict[str, Any]:
    return tricks_of(state)[-1]


def random_match(players: int, seed: int, options: dict[str, Any] | None = None) -> tuple[UpDownState, Record]:
    """A whole match played by random bots, seeded (see ``conftest.random_playout``)."""
    state, record = random_playout(GAME, players, seed, options)
    assert isinstance(state, UpDownState)
    return state, record


def new_state(players: int = 4, **options: Any) -> UpDownState:
    state = GAME.new_state(players, GAME.options(options))
    assert isinstance(state, UpDownState)
    return state


# -- the rulebook's scoring examples ------------------------------------------------------------

@pytest.mark.parametrize("players", [3, 4])
def test_example_a_own_suit_nine_beats_five_and_off_suit_ten(players: int) -> None:
    # Kim clubs, Leah diamonds, Alex hearts (Ben spades). Trump 2, the card lands DOWN and Kim
    # flips it UP. Kim's 9 of clubs is hers; Leah's 5 of diamonds is hers; Alex's 10 is a club,
    # not his suit, so it cannot win although it is the highest card.
    hands = ["9C", "5D", "10C", "4S"][:players]
    state = play(setup(*hands, dice="1+1", toss="DOWN") + trick(KIM, "flip", *hands), players)
    e = last_trick(state)
    assert e["up"] is True and e["trump"] == 2
    assert e["suits"][:3] == ["C", "D", "H"]
    assert e["cards"] == hands
    assert e["cancelled"] == []
    assert e["ineligible"] == [ALEX]
    assert e["winner"] == KIM
    assert e["taken"] == 1 and e["pot"] == 0
    assert state.tricks == [1] + [0] * (players - 1)
    assert state.pot == 0


@pytest.mark.parametrize("players", [3, 4])
def test_example_b_two_queens_cancel_and_the_jack_wins(players: int) -> None:
    # UP, trump 2. Kim's queen of clubs, in her own suit, would be the best card, but Alex plays
    # a queen too: both cancel, and Leah's jack of diamonds (her suit), the next highest, wins.
    hands = ["QC", "JD", "QS", "8S"][:players]
    state = play(setup(*hands, dice="1+1", toss="DOWN") + trick(KIM, "flip", *hands), players)
    e = last_trick(state)
    assert e["up"] is True
    assert e["cancelled"] == [12]
    assert e["ineligible"] == []  # cancelled cards are not listed again as ineligible
    assert e["winner"] == LEAH
    assert e["taken"] == 1
    assert state.tricks[LEAH] == 1 and sum(state.tricks) == 1


@pytest.mark.parametrize("players", [3, 4])
def test_example_c_cancelled_trumps_and_an_off_suit_card_go_into_the_pot(players: int) -> None:
    # Kim rolls the trump to 7 (3+4). Kim's and Leah's 7s would be trumps but cancel each other;
    # Alex's 10 of spades is not his suit (hearts); Ben's 5 of clubs is not his (spades) either.
    hands = ["7C", "7H", "10S", "5C"][:players]
    state = play(setup(*hands, dice="1+1") + trick(KIM, "roll 3+4", *hands), players)
    e = last_trick(state)
    assert e["trump"] == 7
    assert e["cancelled"] == [7]
    assert e["ineligible"] == [ALEX, BEN][: players - 2]
    assert e["winner"] is None
    assert e["taken"] == 0 and e["pot"] == 1 and e["discarded"] == 0
    assert state.pot == 1
    assert state.tricks == [0] * players


# -- trumps, cancellation and the pot -----------------------------------------------------------

@pytest.mark.parametrize(
    ("toss", "dice", "played", "winner"),
    [
        # Trump queens, flipped to DOWN: Kim's 2 of clubs is the lowest card of its player's
        # suit, but Leah's queen of hearts (not her suit) is a trump and wins on DOWN too.
        ("UP", "6+6", ["2C", "QH", "5H", "3S"], LEAH),
        # Trump 2s, flipped to UP: Ben's 2 of diamonds (not his suit) beats Kim's queen of clubs.
        ("DOWN", "1+1", ["QC", "10D", "JH", "2D"], BEN),
    ],
    ids=["down", "up"],
)
def test_an_eligible_trump_wins_whatever_its_suit(toss: str, dice: str, played: list[str], winner: int) -> None:
    state = play(setup(*played, dice=dice, toss=toss) + trick(KIM, "flip", *played))
    e = last_trick(state)
    assert e["up"] is (toss == "DOWN")
    assert e["cancelled"] == []
    assert e["winner"] == winner
    assert winner not in e["ineligible"]
    assert state.tricks[winner] == 1


def test_a_trump_in_someone_elses_suit_is_eligible() -> None:
    # Trump 7 on UP: Alex's 7 of spades is not his suit (hearts) but is a trump.
    played = ["QC", "JD", "7S", "10S"]
    state = play(setup(*played, dice="3+4", toss="DOWN") + trick(KIM, "flip", *played))
    e = last_trick(state)
    assert e["ineligible"] == []
    assert e["winner"] == ALEX


@pytest.mark.parametrize(("toss", "winner"), [("DOWN", ALEX), ("UP", BEN)])
def test_trump_values_cancel_like_any_other(toss: str, winner: int) -> None:
    # Trump queens. Kim's and Leah's queens cancel although both are trumps; of Alex's 6 of
    # hearts and Ben's 4 of spades (both in their own suit) the highest wins on UP (Kim flips
    # DOWN -> UP), the lowest on DOWN.
    played = ["QC", "QD", "6H", "4S"]
    state = play(setup(*played, dice="6+6", toss=toss) + trick(KIM, "flip", *played))
    e = last_trick(state)
    assert e["trump"] == 12
    assert e["up"] is (toss == "DOWN")
    assert e["cancelled"] == [12]
    assert e["winner"] == winner


def test_several_values_cancel_at_once() -> None:
    played = ["5C", "5D", "9H", "9S"]
    state = play(setup(*played, dice="1+1") + trick(KIM, "rotate H", *played))
    e = last_trick(state)
    assert e["cancelled"] == [5, 9]
    assert e["winner"] is None and e["pot"] == 1


def test_the_pot_carries_over_two_tricks_and_goes_to_the_next_winner() -> None:
    hands = ["5C 9C 2C", "5D 9D 3D", "5H 9H 4H", "5S 9S 6S"]
    steps = setup(*hands, dice="6+6")
    steps += trick(KIM, "flip", "5C", "5D", "5H", "5S")  # all 5s cancel: pot 1
    steps += trick(LEAH, "flip", "9C", "9D", "9H", "9S")  # all 9s cancel: pot 2
    steps += trick(ALEX, "flip", "2C", "3D", "4H", "6S")  # DOWN: Kim's 2 is lowest
    state = play(steps)
    t1, t2, t3 = tricks_of(state)
    assert [t["winner"] for t in (t1, t2, t3)] == [None, None, KIM]
    assert [t["pot"] for t in (t1, t2, t3)] == [1, 2, 0]
    assert [t["taken"] for t in (t1, t2, t3)] == [0, 0, 3]
    assert t3["up"] is False
    assert state.tricks == [3, 0, 0, 0]
    assert state.totals == [3, 0, 0, 0]
    assert state.pot == 0


def test_example_c_pot_goes_to_the_next_trick_winner() -> None:
    hands = ["7C 2C", "7H 8D", "10S 3H", "5C 4S"]
    steps = setup(*hands, dice="1+1") + trick(KIM, "roll 3+4", "7C", "7H", "10S", "5C")
    steps += trick(LEAH, "flip", "2C", "8D", "3H", "4S")  # DOWN: Kim's 2 of clubs
    state = play(steps)
    first, second = tricks_of(state)
    assert first["winner"] is None and first["pot"] == 1
    assert second["winner"] == KIM and second["taken"] == 2 and second["pot"] == 0
    assert state.tricks == [2, 0, 0, 0]


# -- a whole round, scripted --------------------------------------------------------------------

SUITED = (
    "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC",
    "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD",
    "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH",
    "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS",
)
"""Every player holds one whole suit; with ``orient: C`` it is their own."""

# (values Kim, Leah, Alex, Ben play; winner; taken; pot after) for tricks 1..11. The leader flips
# every time, so the card starts UP and trick 1 is DOWN, trick 2 UP, and so on. Trump: queens.
ROUND_PLAN = [
    ((2, 2, 2, 2), None, 0, 1),
    ((3, 3, 3, 3), None, 0, 2),
    ((4, 5, 6, 7), KIM, 3, 0),  # DOWN: 4 is lowest, and Kim takes the pot
    ((5, 4, 7, 6), ALEX, 1, 0),  # UP
    ((6, 7, 4, 5), ALEX, 1, 0),  # DOWN
    ((7, 6, 5, 4), KIM, 1, 0),  # UP
    ((8, 9, 10, 10), KIM, 1, 0),  # DOWN, the 10s cancel
    ((9, 10, 8, 9), LEAH, 1, 0),  # UP, the 9s cancel
    ((10, 8, 9, 8), ALEX, 1, 0),  # DOWN, the 8s cancel
    ((11, 11, 11, 11), None, 0, 1),  # UP, all jacks cancel
    ((12, 12, 12, 12), None, 0, 0),  # DOWN, the four trumps cancel: the pot (2) is discarded
]


def _scripted_round(plan: list[Any] = ROUND_PLAN, orient: str = "C", first_leader: int = KIM) -> list[str]:
    steps = [*full_deal(*SUITED), "dice: 6+6", "toss: UP", f"orient: {orient}"]
    for k, (values, _, _, _) in enumerate(plan):
        leader = (first_leader + k) % 4
        played = [f"{'J' if v == 11 else 'Q' if v == 12 else v}{'CDHS'[s]}" for s, v in enumerate(values)]
        steps += trick(leader, "flip", *played)
    return steps


def test_a_scripted_round_scores_tricks_pot_and_discard() -> None:
    state = play(_scripted_round(), rounds=1)
    events = tricks_of(state)
    assert len(events) == 11
    for k, (e, (_, winner, taken, pot)) in enumerate(zip(events, ROUND_PLAN, strict=True), start=1):
        assert e["trick"] == k
        assert e["up"] is (k % 2 == 0), k
        assert e["winner"] == winner, k
        assert e["taken"] == taken, k
        assert e["pot"] == pot, k
    last = events[-1]
    assert last["cancelled"] == [12]
    assert last["discarded"] == 2  # trick 10 from the pot and the last trick itself
    assert sum(e["discarded"] for e in events) == 2
    assert state.tricks == [5, 1, 3, 0]
    assert state.discarded == 2
    assert sum(state.tricks) + state.discarded == HAND_SIZE[4]
    assert state.pot == 0
    round_event = next(e for e in state.log if e["type"] == "round")
    assert round_event["tricks"] == [5, 1, 3, 0] and round_event["discarded"] == 2
    assert state.is_terminal()
    result = state.result()
    assert result.scores == (5, 1, 3, 0)
    assert result.placings == (1, 3, 2, 4)


# The same round, but the jacks and the queens (all cancelled) come in tricks 9 and 10, and the
# last trick has a winner: Alex takes it and the pot of two.
LAST_POT_PLAN = ROUND_PLAN[:8] + [
    ((11, 11, 11, 11), None, 0, 1),  # DOWN
    ((12, 12, 12, 12), None, 0, 2),  # UP
    ((10, 8, 9, 8), ALEX, 3, 0),  # DOWN, the 8s cancel, Alex's 9 beats Kim's 10
]


def test_the_winner_of_the_last_trick_takes_the_pot() -> None:
    state = play(_scripted_round(LAST_POT_PLAN), rounds=1)
    events = tricks_of(state)
    for k, (e, (_, winner, taken, pot)) in enumerate(zip(events, LAST_POT_PLAN, strict=True), start=1):
        assert (e["winner"], e["taken"], e["pot"], e["discarded"]) == (winner, taken, pot, 0), k
    assert state.tricks == [5, 1, 5, 0]
    assert state.discarded == 0
    assert sum(state.tricks) == HAND_SIZE[4]
    assert state.result().placings == (1, 3, 1, 4)


def test_leader_passes_to_the_next_seat_after_every_trick_whoever_wins() -> None:
    state = play(_scripted_round(), rounds=1)
    events = tricks_of(state)
    assert [e["leader"] for e in events] == [k % 4 for k in range(11)]
    # Kim won trick 3 (led by Alex), but Ben, not Kim, leads trick 4.
    assert events[2]["winner"] == KIM and events[3]["leader"] == BEN


def test_leader_rotation_starts_from_the_clubs_seat() -> None:
    # Oriented D: Kim D, Leah H, Alex S, Ben C. Ben leads first, then Kim, Leah, ...
    steps = [*full_deal(*SUITED), "dice: 6+6", "toss: UP", "orient: D"]
    steps += trick(BEN, "flip", "2C", "2D", "2H", "2S")
    steps += trick(KIM, "flip", "3C", "3D", "3H", "3S")
    steps += trick(LEAH, "flip", "4C", "4D", "4H", "4S")
    state = play(steps)
    assert [e["leader"] for e in tricks_of(state)] == [BEN, KIM, LEAH]
    assert state.actors() == (ALEX,)
    with pytest.raises(RecordError, match="seat 0 cannot act now"):
        play(steps + ["0: flip"])


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(6))
def test_leader_passes_on_in_random_games(players: int, seed: int) -> None:
    state, _ = random_match(players, seed)
    leader = None
    for e in state.log:
        if e["type"] == "orient":
            leader = e["leader"]
            assert e["suits"][leader] == "C" or "C" not in e["suits"]
        elif e["type"] == "trick":
            assert e["leader"] == leader
            leader = (leader + 1) % players
        elif e["type"] in ("flip", "rotate", "roll"):
            assert e["seat"] == leader


# -- the leader's three options -----------------------------------------------------------------

def test_flip_changes_up_and_down_only() -> None:
    base = setup("9C", "5D", "10C", "4S", dice="3+4", toss="UP")
    before = play(base)
    after = play(base + ["0: flip"])
    assert before.up is True and after.up is False
    assert after.suits() == before.suits()
    assert after.trump == before.trump == 7
    assert after.log[-1] == {"type": "flip", "seat": KIM, "up": False}
    assert after.actors() == (KIM, LEAH, ALEX, BEN)
    # Flipping again in the next trick turns it back.
    again = play(base + trick(KIM, "flip", "9C", "5D", "10C", "4S") + ["1: flip"])
    assert again.up is True


def test_rotate_moves_every_players_suit() -> None:
    base = setup("9C", "5D", "10C", "4S", dice="3+4")
    state = play(base)
    assert [s.letter for s in state.suits()] == ["C", "D", "H", "S"]
    state = play(base + ["0: rotate S"])
    # Kim now faces spades; the others follow in the card's cyclic order D, H, S, C.
    assert [s.letter for s in state.suits()] == ["S", "C", "D", "H"]
    assert state.log[-1] == {"type": "rotate", "seat": KIM, "suit": "S", "suits": ["S", "C", "D", "H"]}
    assert state.up is True and state.trump == 7
    # Leah, leading next, turns hearts to herself.
    state = play(base + trick(KIM, "rotate S", "9C", "5D", "10C", "4S") + ["1: rotate H"])
    assert [s.letter for s in state.suits()] == ["D", "H", "S", "C"]
    # And the next trick is judged with the new suits: Kim's 9 of clubs is no longer hers.
    e = last_trick(play(base + trick(KIM, "rotate S", "9C", "5D", "10C", "4S")))
    assert e["suits"] == ["S", "C", "D", "H"]
    assert e["ineligible"] == [KIM, LEAH, ALEX, BEN]
    assert e["winner"] is None


def test_rotate_to_your_own_suit_is_rejected() -> None:
    base = setup("9C", "5D", "10C", "4S", dice="3+4")
    state = play(base)
    legal = [GAME.action_to_str(a) for a in state.legal_actions(KIM)]
    assert sorted(legal) == ["flip", "roll", "rotate D", "rotate H", "rotate S"]
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="other than your own"):
        state.apply(GAME.parse_action("rotate C"), KIM)
    assert snapshot(state) == before
    with pytest.raises(RecordError, match=r"step \d+ \('0: rotate C'\).*other than your own"):
        play(base + ["0: rotate C"])


@pytest.mark.parametrize(("players", "orient", "leader", "own"), [
    (2, "H", 1, "C"), (3, "S", 1, "C"), (2, "C", 0, "C"), (2, "S", 1, "D"),
])
def test_rotate_with_fewer_players(players: int, orient: str, leader: int, own: str) -> None:
    hands = [""] * players
    state = play(setup(*hands, orient=orient), players)
    assert state.leader == leader and state.suit_of(leader).letter == own
    others = sorted({"C", "D", "H", "S"} - {own})
    assert sorted(GAME.action_to_str(a) for a in state.legal_actions(leader)) == [
        "flip", "roll", *(f"rotate {s}" for s in others)]
    for target in others:
        turned = play(setup(*hands, orient=orient) + [f"{leader}: rotate {target}"], players)
        assert turned.suit_of(leader).letter == target
        letters = [s.letter for s in turned.suits()]
        assert len(set(letters)) == players
        if players == 2:  # two players always face opposite sides
            opposite = {"D": "S", "S": "D", "H": "C", "C": "H"}
            assert letters[1] == opposite[letters[0]]


def test_roll_sets_a_new_trump_that_differs_from_the_old() -> None:
    base = setup("9C", "5D", "10C", "4S", dice="3+4", toss="DOWN")
    state = play(base + ["0: roll"])
    assert state.is_chance() and state.chance_label() == "dice"
    assert state.actors() == ()
    outcomes = state.chance_outcomes()
    sums = {sum(map(int, GAME.action_to_str(a).split("+"))) for a, _ in outcomes}
    assert 7 not in sums and sums == set(range(2, 13)) - {7}
    assert len(outcomes) == 36 - 6
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert len({p for _, p in outcomes}) == 1  # all remaining pairs equally likely
    # The roll that counts repeats the old trump: rejected.
    with pytest.raises(RecordError, match="repeats the trump 7"):
        play(base + ["0: roll", "dice: 3+4"])
    with pytest.raises(RecordError, match="repeats the trump 7"):
        play(base + ["0: roll", "dice: 6+1"])
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="repeats the trump 7"):
        state.apply(GAME.parse_action("5+2"))
    assert snapshot(state) == before
    # A different sum is the new trump; UP/DOWN and the suits stay.
    rolled = play(base + ["0: roll", "dice: 2+2"])
    assert rolled.trump == 4 and rolled.dice == (2, 2)
    assert rolled.up is False
    assert [s.letter for s in rolled.suits()] == ["C", "D", "H", "S"]
    assert rolled.actors() == (KIM, LEAH, ALEX, BEN)
    assert rolled.log[-2:] == [{"type": "roll", "seat": KIM}, {"type": "dice", "dice": [2, 2], "trump": 4}]
    # Nobody may choose a card before the dice are in.
    with pytest.raises(RecordError, match="a chance step comes first"):
        play(base + ["0: roll", "0: 9C"])


def test_the_leader_must_change_the_rules_before_anyone_plays() -> None:
    base = setup("9C", "5D", "10C", "4S")
    with pytest.raises(RecordError, match="the leader must flip, rotate or roll, not 9C"):
        play(base + ["0: 9C"])
    with pytest.raises(RecordError, match="seat 1 cannot act now"):
        play(base + ["1: 5D"])


# -- the first leader -----------------------------------------------------------------------------

# (players, suit facing seat 0) -> (every seat's suit, first leader). The card's sides in cyclic
# order are D, H, S, C; seats sit clockwise at positions 0..3 (two players at 0 and 2, three at
# 0, 1, 2). With nobody facing clubs, the first leader is the first seat clockwise (the next seat
# index, wrapping) after the clubs side.
FIRST_LEADER = {
    (4, "C"): ("CDHS", 0), (4, "D"): ("DHSC", 3), (4, "H"): ("HSCD", 2), (4, "S"): ("SCDH", 1),
    (3, "C"): ("CDH", 0), (3, "S"): ("SCD", 1), (3, "H"): ("HSC", 2),
    (3, "D"): ("DHS", 0),  # clubs side at the empty place 3: the next place clockwise is seat 0
    (2, "C"): ("CH", 0), (2, "H"): ("HC", 1),
    (2, "D"): ("DS", 0),  # clubs at the empty place 3 -> place 0 (seat 0)
    (2, "S"): ("SD", 1),  # clubs at the empty place 1 -> place 2 (seat 1)
}


@pytest.mark.parametrize(("players", "orient"), sorted(FIRST_LEADER))
def test_first_leader(players: int, orient: str) -> None:
    suits, leader = FIRST_LEADER[(players, orient)]
    state = play(setup(*[""] * players, orient=orient), players)
    assert "".join(s.letter for s in state.suits()) == suits
    assert state.leader == leader
    assert state.actors() == (leader,)
    assert state.log[-1] == {"type": "orient", "suits": list(suits), "leader": leader}
    if "C" in suits:
        assert suits[leader] == "C"


def test_every_round_starts_with_the_clubs_seat() -> None:
    steps = _scripted_round() + [*full_deal(*SUITED), "dice: 2+3", "toss: DOWN", "orient: H"]
    state = play(steps, rounds=2)
    assert state.round == 1
    assert state.leader == 2 and state.actors() == (2,)
    assert state.tricks == [0, 0, 0, 0] and state.totals == [5, 1, 3, 0]
    assert state.trump == 5 and state.up is False


# -- the deal -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("players", "size", "aside"), [(2, 15, 14), (3, 14, 2), (4, 11, 0)])
def test_hand_sizes_and_the_cards_set_aside(players: int, size: int, aside: int) -> None:
    assert HAND_SIZE[players] == size
    state = new_state(players)
    rng = random.Random(players)
    labels = []
    while state.is_chance() and state.chance_label().startswith("deal"):
        labels.append(state.chance_label())
        state.apply(state.sample_chance(rng))
    assert labels == [f"deal {s}" for s in range(players) for _ in range(size)]
    assert state.chance_label() == "dice"
    assert [len(h) for h in state.hands] == [size] * players
    assert len(state.aside) == aside
    everything = sorted(state.aside + [c for h in state.hands for c in h])
    assert everything == list(range(NUM_CARDS))
    for seat in range(players):
        hand_events = [e for e in state.log if e["type"] == "hand" and e["seat"] == seat]
        assert len(hand_events) == 1 and hand_events[0]["to"] == [seat]
        assert hand_events[0]["cards"] == [CARD_STR[c] for c in sorted(state.hands[seat])]
    # The set-aside cards are in nobody's view.
    for seat in [None, *range(players)]:
        text = json.dumps(state.view(seat))
        for c in state.aside:
            assert f'"{CARD_STR[c]}"' not in text
    # Each round is played out with exactly that many tricks.
    played, _ = random_match(players, seed=players, options={"rounds": 1})
    assert len(tricks_of(played)) == size


def test_a_deal_must_give_each_player_exactly_their_hand() -> None:
    too_many = full_deal(*SUITED)
    too_many[0] += " QS"  # Kim's deal is 12 cards: the 12th card is the first of Leah's deal
    with pytest.raises(RecordError, match="expected the chance step 'deal 1', not 'deal 0'"):
        play(too_many)


# -- rejections ---------------------------------------------------------------------------------

def test_a_card_not_in_hand_is_rejected() -> None:
    base = setup("9C", "5D", "10C", "4S") + ["0: flip"]
    with pytest.raises(RecordError, match=r"step \d+ \('0: 5D'\): 5D is not in seat 0's hand"):
        play(base + ["0: 5D"])
    state = play(base)
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="5D is not in seat 0's hand"):
        state.apply(card_id("5D"), KIM)
    assert snapshot(state) == before
    with pytest.raises(IllegalAction, match="choose a card from your hand, not flip"):
        state.apply(GAME.parse_action("flip"), KIM)
    assert snapshot(state) == before


def test_an_action_by_a_seat_that_is_not_to_act_is_rejected() -> None:
    base = setup("9C", "5D", "10C", "4S")
    state = play(base)
    before = snapshot(state)
    for seat in (LEAH, ALEX, BEN):
        with pytest.raises(IllegalAction, match=f"seat {seat} cannot act now \\(to act: 0\\)"):
            state.apply(GAME.parse_action("flip"), seat)
        assert snapshot(state) == before
    with pytest.raises(RecordError, match=r"step \d+ \('2: flip'\): seat 2 cannot act now"):
        play(base + ["2: flip"])
    # A chance step is nobody's: a seat may not apply it, and a chance outcome needs no seat.
    dealing = new_state()
    before = snapshot(dealing)
    with pytest.raises(IllegalAction, match=r"it is a chance step \(deal 0\), no seat acts"):
        dealing.apply(card_id("2C"), KIM)
    assert snapshot(dealing) == before


def test_a_second_choice_in_the_same_trick_is_rejected() -> None:
    base = setup("9C 8C", "5D", "10C", "4S") + ["0: flip", "0: 9C"]
    with pytest.raises(RecordError, match=r"step \d+ \('0: 8C'\): seat 0 cannot act now \(to act: 1, 2, 3\)"):
        play(base + ["0: 8C"])
    state = play(base)
    before = snapshot(state)
    with pytest.raises(IllegalAction, match=r"seat 0 cannot act now \(to act: 1, 2, 3\)"):
        state.apply(card_id("8C"), KIM)
    assert snapshot(state) == before
    assert state.pending[KIM] == card_id("9C") and card_id("8C") in state.hands[KIM]
    # With several seats to act, an action without a seat is ambiguous.
    with pytest.raises(IllegalAction, match="say which seat acts"):
        state.apply(card_id("5D"))
    assert snapshot(state) == before


def test_dealing_a_card_twice_is_rejected() -> None:
    twice = full_deal(*SUITED)
    twice[1] = twice[1].replace("QD", "2C")  # 2C is already in Kim's hand
    with pytest.raises(RecordError, match=r"step 2 \('deal 1: .*'\): cannot deal 2C: it is not in the undealt deck"):
        play(twice)
    again = full_deal(*SUITED)
    again[0] = again[0].replace("3C", "2C")  # 2C twice in Kim's own deal
    with pytest.raises(RecordError, match="cannot deal 2C"):
        play(again)
    state = new_state()
    state.apply(card_id("2C"))
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="cannot deal 2C: it is not in the undealt deck"):
        state.apply(card_id("2C"))
    assert snapshot(state) == before


def test_out_of_place_chance_outcomes_are_rejected() -> None:
    dealt = full_deal(*SUITED)
    with pytest.raises(RecordError, match="expected the chance step 'dice', not 'toss'"):
        play(dealt + ["toss: UP"])
    with pytest.raises(RecordError, match="is one outcome too many"):
        play(dealt + ["dice: 3+4", "toss: UP", "orient: C D"])
    state = play(dealt)
    before = snapshot(state)
    for wrong in ("UP", "C", "2C", "flip"):
        with pytest.raises(IllegalAction):
            state.apply(GAME.parse_action(wrong))
        assert snapshot(state) == before


def test_after_the_end_nothing_more_is_accepted() -> None:
    steps = _scripted_round()
    state = play(steps, rounds=1)
    assert state.is_terminal()
    with pytest.raises(RecordError, match="the game is already over"):
        play(steps + ["0: flip"], rounds=1)
    before = snapshot(state)
    with pytest.raises(IllegalAction, match="the game is over"):
        state.apply(GAME.parse_action("flip"), KIM)
    assert snapshot(state) == before


# -- the match ----------------------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_match_has_one_round_per_player_by_default(players: int) -> None:
    state, record = random_match(players, seed=11)
    assert isinstance(state, UpDownState)
    rounds = [e for e in state.log if e["type"] == "round"]
    assert len(rounds) == players
    assert [e["round"] for e in rounds] == list(range(1, players + 1))
    assert len(state.result().details["rounds"]) == players
    assert sum(1 for s in record.steps if s.startswith("orient:")) == players
    size = HAND_SIZE[players]
    for e in rounds:
        assert sum(e["tricks"]) + e["discarded"] == size
    assert [sum(col) for col in zip(*(e["tricks"] for e in rounds), strict=True)] == state.totals
    assert list(state.result().scores) == state.totals


@pytest.mark.parametrize(("players", "rounds"), [(4, 1), (2, 3), (3, 5)])
def test_the_rounds_option(players: int, rounds: int) -> None:
    state, _ = random_match(players, seed=5, options={"rounds": rounds})
    assert sum(1 for e in state.log if e["type"] == "round") == rounds
    assert state.is_terminal()


def test_bad_options_are_rejected() -> None:
    from updown.core.errors import OptionsError

    for bad in ({"rounds": 0}, {"rounds": 51}, {"tiebreak_rounds": -1}, {"tiebreak_rounds": 21}, {"colour": 1}):
        with pytest.raises(OptionsError):
            GAME.new_state(4, GAME.options(bad))
        with pytest.raises(RecordError, match="header"):
            play([], **bad)
    with pytest.raises(IllegalAction, match="2 to 4 players"):
        GAME.new_state(5)


def _tied_seeds(players: int, rounds: int) -> Iterator[int]:
    """Seeds whose random match of ``rounds`` rounds ends with the lead shared."""
    for seed in range(3000):
        state, _ = random_match(players, seed, {"rounds": rounds})
        if state.totals.count(max(state.totals)) > 1:
            yield seed


def _seeds_with_tied_lead(players: int, rounds: int, want: int) -> list[int]:
    found = list(itertools.islice(_tied_seeds(players, rounds), want))
    assert len(found) == want, f"only {len(found)} tied matches found"
    return found


def test_tiebreak_rounds_are_played_while_the_lead_is_shared() -> None:
    players, planned, extra = 3, 1, 4
    for seed in _seeds_with_tied_lead(players, planned, 6):
        plain, _ = random_match(players, seed, {"rounds": planned})
        tied, _ = random_match(players, seed, {"rounds": planned, "tiebreak_rounds": extra})
        assert isinstance(plain, UpDownState) and isinstance(tied, UpDownState)
        # The planned rounds are the same game; then the tie-breaks follow.
        plain_rounds = [e for e in plain.log if e["type"] == "round"]
        tied_rounds = [e for e in tied.log if e["type"] == "round"]
        assert tied_rounds[:planned] == plain_rounds
        breaks = [e for e in tied.log if e["type"] == "tiebreak"]
        assert 1 <= len(breaks) <= extra
        assert len(tied_rounds) == planned + len(breaks) == tied.rounds
        best = max(plain.totals)
        assert breaks[0]["tied"] == [s for s, t in enumerate(plain.totals) if t == best]
        assert breaks[0]["round"] == planned + 1
        # Every tie-break round was needed: the lead was shared after the round before it.
        for e, brk in zip(tied_rounds[planned - 1:], breaks, strict=False):
            top = max(e["totals"])
            assert brk["tied"] == [s for s, t in enumerate(e["totals"]) if t == top]
            assert len(brk["tied"]) > 1
        # It stops when the lead is no longer shared, or when the tie-breaks are used up.
        final_best = max(tied.totals)
        assert tied.totals.count(final_best) == 1 or len(breaks) == extra
        assert tied.result().details["rounds"] == [
            {"tricks": e["tricks"], "discarded": e["discarded"]} for e in tied_rounds]


@pytest.mark.parametrize("players", [3, 4])
def test_tiebreak_rounds_stop_at_the_limit(players: int) -> None:
    # Find a match that is still tied after its one tie-break round.
    for seed in range(3000):
        state, _ = random_match(players, seed, {"rounds": 1, "tiebreak_rounds": 1})
        assert isinstance(state, UpDownState)
        best = max(state.totals)
        if state.rounds == 2 and state.totals.count(best) > 1:
            assert sum(1 for e in state.log if e["type"] == "tiebreak") == 1
            assert sum(1 for e in state.log if e["type"] == "round") == 2
            placings = state.result().placings
            assert state.result().winners == tuple(s for s in range(players) if state.totals[s] == best)
            assert all(placings[s] == 1 for s in state.result().winners)
            assert state.log[-1]["type"] == "end"
            return
    pytest.fail("no match still tied after a tie-break round")


def test_without_tiebreak_rounds_a_tie_shares_the_place() -> None:
    for seed in _seeds_with_tied_lead(4, 1, 3):
        state, record = random_match(4, seed, {"rounds": 1})
        totals = state.totals
        placings = state.result().placings
        for s in range(4):
            assert placings[s] == 1 + sum(1 for t in totals if t > totals[s])
        best = max(totals)
        assert [s for s in range(4) if placings[s] == 1] == [s for s in range(4) if totals[s] == best]
        assert len(state.result().winners) > 1
        assert not any(e["type"] == "tiebreak" for e in state.log)
        end = state.log[-1]
        assert end == {"type": "end", "totals": totals, "placings": list(placings)}
        assert record.result is not None and record.result["placings"] == list(placings)


def test_placings_skip_after_a_shared_place() -> None:
    # The scripted round with Alex's trick 5 moved to Leah would be fiddly; use the Result rule.
    from updown.core.protocol import Result

    assert Result.from_scores([4, 4, 2, 1]).placings == (1, 1, 3, 4)
    assert Result.from_scores([3, 5, 3, 0]).placings == (2, 1, 2, 4)
    assert Result.from_scores([2, 2, 2, 2]).placings == (1, 1, 1, 1)
