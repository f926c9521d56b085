"""Differential test: our Euchre against OpenSpiel's, deal by deal, decision by decision.

For each random deal the same dealer and the same 20 + 1 cards are given to both engines; then
the same decisions, chosen at random among *our* legal ones, are applied to both. At every step
both engines must offer the same decisions (through the mapping below), and at the end both must
give the same tricks and points.

The action mapping (ours -> OpenSpiel):

==========================  ==============================  ====================================
ours                        OpenSpiel                       note
==========================  ==============================  ====================================
chance ``dealer`` 62+s      chance 0..3 (N E S W = 0..3)    same seat numbers, clockwise
card ``c`` = suit*6+rank    card ``rank*4 + suit``          suits C D H S, ranks 9 10 J Q K A
deal 5 per seat from the    card ``k`` to seat               we feed OpenSpiel each seat's cards
dealer's left, then the     ``(dealer + k) % 4``, then the   in its order
up-card                     21st card is the up-card
``pass`` 48                 ``Pass`` 24
``order up``/``pick up``    ``<suit of up-card>`` 25+s,     OpenSpiel asks "alone?" after the
49/51 (``alone`` 50/52)     later ``Partner``/``Alone``     dealer's discard; ours with the bid
``name X`` 53+x (57+x)      ``<X>`` 25+x, then Partner/Alone
``discard c`` 24+c          card ``c``                      the dealer's discard
``defend alone`` 61         ``Alone`` 29                    lone defender option
``pass`` (defender) 48      ``Partner`` 30
==========================  ==============================  ====================================

One difference on purpose: when the dealer's partner orders up alone, our dealer sits out without
picking up the up-card (docs/notes-euchre.md); OpenSpiel still has the dealer pick it up and
discard before the "alone?" question. There the test lets OpenSpiel's dealer discard at random
(checking it is offered exactly the dealer's original five cards): the dealer sits out, so the
discard cannot change the play.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from updown.games.euchre import (
    DEALER, DEFEND_ALONE, DISCARD, GAME, NAME, NAME_ALONE, NUM_CARDS, ORDER_UP, ORDER_UP_ALONE, PASS,
    PICK_UP, PICK_UP_ALONE, EuchreState, Phase,
)

pyspiel = pytest.importorskip("pyspiel")

OS_PASS, OS_SUIT, OS_ALONE, OS_PARTNER = 24, 25, 29, 30
DEALS = 4000


def os_card(card: int) -> int:
    """OpenSpiel's id of our card ``suit * 6 + rank``."""
    return (card % 6) * 4 + card // 6


def our_card(os: int) -> int:
    return (os & 3) * 6 + (os >> 2)


def os_bid(action: int, upsuit: int) -> int:
    """The OpenSpiel bidding action behind one of our bids (alone or not)."""
    if action == PASS:
        return OS_PASS
    if action in (ORDER_UP, ORDER_UP_ALONE, PICK_UP, PICK_UP_ALONE):
        return OS_SUIT + upsuit
    if NAME <= action < NAME + 4:
        return OS_SUIT + action - NAME
    if NAME_ALONE <= action < NAME_ALONE + 4:
        return OS_SUIT + action - NAME_ALONE
    raise AssertionError(f"not a bid: {action}")


def is_alone(action: int) -> bool:
    return action in (ORDER_UP_ALONE, PICK_UP_ALONE) or NAME_ALONE <= action < NAME_ALONE + 4


def os_actions(state: EuchreState, legal: list[int]) -> set[int]:
    """Our legal decisions, seen through the mapping."""
    phase = state.phase
    if phase in (Phase.BID1, Phase.BID2):
        upsuit = state.upcard // 6
        return {os_bid(a, upsuit) for a in legal}
    if phase == Phase.DISCARD:
        return {os_card(a - DISCARD) for a in legal}
    if phase == Phase.DEFEND:
        return {OS_ALONE if a == DEFEND_ALONE else OS_PARTNER for a in legal}
    return {os_card(a) for a in legal}


def play_both(
    game: Any, rng: random.Random, options: dict[str, Any], pass_bias: float = 0.0
) -> tuple[EuchreState, Any, int]:
    """One random deal in both engines; returns the two final states and the steps checked.

    Decisions are uniform among our legal ones, except that with ``pass_bias`` a bidder passes
    with that probability first (so that thrown-in hands occur).
    """
    ours = GAME.new_state(4, GAME.options({"deals": 1, **options}))
    assert isinstance(ours, EuchreState)
    theirs = game.new_initial_state()
    dealer = rng.randrange(4)
    assert theirs.is_chance_node()
    assert sorted(a for a, _ in theirs.chance_outcomes()) == [0, 1, 2, 3]
    ours.apply(DEALER + dealer)
    theirs.apply_action(dealer)
    cards = list(range(NUM_CARDS))
    rng.shuffle(cards)
    hands = {(dealer + 1 + i) % 4: cards[5 * i: 5 * i + 5] for i in range(4)}
    upcard = cards[20]
    for c in cards[:21]:
        assert ours.is_chance()
        ours.apply(c)
    next_of = {s: iter(h) for s, h in hands.items()}
    for k in range(20):
        theirs.apply_action(os_card(next(next_of[(dealer + k) % 4])))
    theirs.apply_action(os_card(upcard))
    assert not ours.is_chance() and not theirs.is_chance_node()
    assert theirs.upcard() == os_card(upcard)
    for s in range(4):
        assert sorted(os_card(c) for c in ours.hands[s]) == sorted(
            c for c in range(NUM_CARDS) if theirs.card_holder()[c] == s
        )

    pending_alone: bool | None = None  # our bid said alone or not; OpenSpiel asks later
    steps = 0
    while not ours.is_terminal():
        seat = ours.actors()[0]
        legal = ours.legal_actions(seat)
        # OpenSpiel's "alone?" question and, when our dealer sits out, its dealer's discard come
        # between our steps: answer them from our bid.
        while pending_alone is not None and ours.phase != Phase.DISCARD:
            who = theirs.current_player()
            os_legal = theirs.legal_actions()
            if os_legal == [OS_ALONE, OS_PARTNER] and who == ours.maker:
                theirs.apply_action(OS_ALONE if pending_alone else OS_PARTNER)
                pending_alone = None
            else:  # OpenSpiel's dealer discards though our dealer sits out
                assert ours.out == who == ours.dealer, (who, ours.out, ours.dealer)
                assert sorted(os_legal) == sorted(os_card(c) for c in hands[who])
                theirs.apply_action(rng.choice(os_legal))
        assert theirs.current_player() == seat, (theirs.current_player(), seat, str(theirs))
        assert os_actions(ours, legal) == set(theirs.legal_actions()), (legal, theirs.legal_actions(), str(theirs))
        action = rng.choice(legal)
        phase = ours.phase
        if pass_bias and PASS in legal and phase in (Phase.BID1, Phase.BID2) and rng.random() < pass_bias:
            action = PASS
        if phase in (Phase.BID1, Phase.BID2):
            theirs.apply_action(os_bid(action, upcard // 6))
            if action != PASS:
                pending_alone = is_alone(action)
        elif phase == Phase.DISCARD:
            theirs.apply_action(os_card(action - DISCARD))
        elif phase == Phase.DEFEND:
            theirs.apply_action(OS_ALONE if action == DEFEND_ALONE else OS_PARTNER)
        else:
            theirs.apply_action(os_card(action))
        ours.apply(action, seat)
        steps += 1
    assert pending_alone is None
    assert theirs.is_terminal()
    return ours, theirs, steps


def check_same_outcome(ours: EuchreState, theirs: Any) -> None:
    result = ours.result()
    returns = theirs.returns()
    deal = result.details["deals"][0]
    if deal["maker"] is None:  # thrown in (stick the dealer off)
        assert returns == [0.0, 0.0, 0.0, 0.0]
        return
    maker = deal["maker"]
    assert theirs.declarer() == maker
    # Tricks per seat, from OpenSpiel's trick list.
    won = [0, 0, 0, 0]
    for trick in theirs.tricks():
        won[trick.winner()] += 1
    assert won == ours.won, (won, ours.won, str(theirs))
    mt = maker & 1
    signed = deal["points"][mt] - deal["points"][1 - mt]
    assert returns[maker] == signed, (returns, deal, str(theirs))
    assert list(result.scores) == [deal["points"][s & 1] for s in range(4)]


@pytest.mark.parametrize(
    ("options", "count", "pass_bias"),
    [
        pytest.param({}, DEALS, 0.0, id="stick-the-dealer"),
        pytest.param({"lone_defender": True}, DEALS // 4, 0.0, id="lone-defender"),
        pytest.param({"stick_the_dealer": False}, DEALS // 4, 0.6, id="no-stick"),
    ],
)
def test_same_legal_decisions_and_outcome_as_openspiel(
    options: dict[str, Any], count: int, pass_bias: float
) -> None:
    game = pyspiel.load_game("euchre", {
        "stick_the_dealer": options.get("stick_the_dealer", True),
        "allow_lone_defender": options.get("lone_defender", False),
    })
    rng = random.Random(f"euchre vs openspiel {sorted(options.items())}")
    outcomes: dict[str, int] = {}
    for _ in range(count):
        ours, theirs, _steps = play_both(game, rng, options, pass_bias)
        check_same_outcome(ours, theirs)
        key = ours.history[0]["outcome"]
        outcomes[key] = outcomes.get(key, 0) + 1
    # The random decisions reach every way a deal can end.
    expected = {"made", "march", "alone march", "euchred"}
    if options.get("lone_defender"):
        expected.add("euchred alone")
    if options.get("stick_the_dealer") is False:
        expected.add("thrown in")
    assert expected <= set(outcomes), outcomes
