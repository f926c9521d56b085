"""Why a greyed card cannot be played (``updown/server/reasons.py``), for each game.

Each game is played at random from fixed seeds; at every decision, every seat's frame gets a reason
for each hand card no legal action plays, built from that seat's view and legal actions alone (what
the seat is sent anyway). The reasons are the terminal's words (``why`` of the game's screen) in
the seat's language, and they never name a card that is not in the seat's own view.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from updown.core.protocol import Game, State
from updown.core.registry import get_game
from updown.i18n import translator
from updown.server.reasons import why_not

PRETTY = re.compile(r"(10|[2-9JQKA])([♣♦♥♠])")
LETTER = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
CARD = re.compile(r'"(10|[2-9JQKA])([CDHS])"')

EXPECTED = {
    # Reasons each game must give at least once over the seeded games below (English).
    "euchre": ["it is not your turn", "first the bidding", "you must follow"],
    "updown": ["first the trick leader changes the rules", "you lead this trick: first change the rules",
               "you have chosen your card for this trick"],
    "updown-sueca": ["it is not your turn", "first the trump is chosen", "say play or sit out first",
                     "you must follow", "so you must play a trump"],
    "up-or-down": ["it is not your turn", "you have played a card this turn already"],
}


def legal_of(game: Game[Any], state: State, seat: int) -> list[dict[str, Any]]:
    """The frame's ``legal`` for ``seat`` (as ``Live.legal``)."""
    if state.is_terminal() or seat not in state.actors():
        return []
    return [{"id": a, "notation": game.action_to_str(a)} for a in state.legal_actions(seat)]


def frames(game_id: str, seeds: range) -> Any:
    """(game, view without its log, legal) of every seat at every decision of seeded random games."""
    game = get_game(game_id)
    for seed in seeds:
        state = game.new_state(4, game.Options.from_dict({}))
        rng = random.Random(f"{game_id}:{seed}")
        for _step in range(5000):
            if state.is_terminal():
                break
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            for seat in range(4):
                view = state.view(seat)
                view.pop("log")
                yield game, view, legal_of(game, state, seat)
            actor = state.actors()[0]
            state.apply(rng.choice(state.legal_actions(actor)), actor)
        assert state.is_terminal(), f"{game_id} seed {seed} did not finish"


@pytest.mark.parametrize("game_id", sorted(EXPECTED))
def test_every_greyed_card_has_a_reason_that_names_only_cards_in_the_seats_view(game_id: str) -> None:
    said: set[str] = set()
    checked = 0
    for game, view, legal in frames(game_id, range(4)):
        reasons = why_not(game, view, legal, "en")
        notations = {a["notation"] for a in legal}
        greyed = {str(c) for c in view["hand"] if str(c) not in notations and f"discard {c}" not in notations}
        # A reason for every greyed card, and for no card that can be played.
        assert set(reasons) == greyed, (view["phase"], sorted(greyed), reasons)
        visible = {m.group(1) + m.group(2) for m in CARD.finditer(json.dumps(view))}
        for card, reason in reasons.items():
            assert reason and reason == reason.strip()
            named = {m.group(1) + LETTER[m.group(2)] for m in PRETTY.finditer(reason)}
            assert named <= visible, f"{game_id}: {card}: {reason!r} names {sorted(named - visible)}, not in the view"
            said.add(reason)
            checked += 1
    assert checked > 100
    for words in EXPECTED[game_id]:
        assert any(words in reason for reason in said), f"{game_id}: never said {words!r}: {sorted(said)[:20]}"


def test_reasons_follow_suit_with_the_cards_that_follow() -> None:
    """Euchre: the led suit and the seat's own cards of it (the left bower counts as trump)."""
    seen = 0
    for game, view, legal in frames("euchre", range(6)):
        if view["phase"] != "play" or not view["table"] or not legal:
            continue
        reasons = why_not(game, view, legal, "en")
        playable = [a["notation"] for a in legal]
        for reason in reasons.values():
            match = re.fullmatch(r"you must follow (clubs|diamonds|hearts|spades) \((.+)\)", reason)
            assert match, reason
            named = [m.group(1) + LETTER[m.group(2)] for m in PRETTY.finditer(match.group(2))]
            assert sorted(named) == sorted(playable)  # exactly the cards that may be played
            seen += 1
    assert seen > 20


def test_the_euchre_dealer_is_told_why_the_up_card_cannot_be_discarded() -> None:
    seen = 0
    for game, view, legal in frames("euchre", range(30)):
        if view["phase"] == "discard" and legal:
            reasons = why_not(game, view, legal, "en")
            assert reasons == {view["upcard"]: "you keep the card you picked up; discard one of your own five"}
            assert why_not(game, view, legal, "pt")[view["upcard"]] == \
                translator("pt")("you keep the card you picked up; discard one of your own five")
            seen += 1
    assert seen >= 1


def test_reasons_are_in_the_seats_language_and_empty_for_spectators_and_at_the_end() -> None:
    game = get_game("euchre")
    state = game.new_state(4, game.Options.from_dict({}))
    rng = random.Random(1)
    while state.is_chance():
        state.apply(state.sample_chance(rng))
    waiting = next(s for s in range(4) if s not in state.actors())
    view = state.view(waiting)
    assert set(why_not(game, view, [], "de").values()) == {"du bist nicht am Zug"}
    assert set(why_not(game, view, [], "pt").values()) == {"não é a tua vez"}
    assert set(why_not(game, view, [], "en").values()) == {"it is not your turn"}
    assert why_not(game, state.view(None), [], "en") == {}  # a spectator has no hand
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            actor = state.actors()[0]
            state.apply(rng.choice(state.legal_actions(actor)), actor)
    assert all(why_not(game, state.view(s), [], "en") == {} for s in range(4))
