"""What a broadcast keeps between steps (issue 35) changes nothing a client receives.

The ``table`` message is encoded again only when something in it changed, and each event's line is
described once a language; these tests check both against the message and lines built afresh,
through whole games and through every change of the seats, the status and the result.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import pytest

from updown.core.registry import get_game
from updown.i18n import translator
from updown.i18n.events import describe as describe_event
from updown.server.live import SPECTATOR, Live, encode
from updown.server.models import Seat, Table
from updown.server.store import StepRow


async def _notify(_live: Live) -> None:
    return None


def _live(game_id: str, players: int = 4) -> Live:
    row = Table(id="t", game=game_id, players=players, options="{}", seed="seed", timer=None, grace=60.0,
                rated=False, private=False, status="running", created_at=time.time())
    seats = [Seat(table_id="t", seat=i, kind="person", account_id=i + 1, name=f"p{i}", left=False, away=False)
             for i in range(players)]
    return Live(row, seats, None, bot_delay=0.0, notify=_notify)  # type: ignore[arg-type]


def fresh_table(live: Live) -> str:
    return encode({"type": "table", "table": live.public()})


def fresh_lines(live: Live, events: list[dict[str, Any]], lang: str) -> list[str]:
    return [describe_event(live.game, e, live.names(), translator(lang)) for e in events]


def _step(live: Live, rng: random.Random) -> None:
    state = live.state
    if state.is_chance():
        seat, action = None, state.sample_chance(rng)
    else:
        seat = state.actors()[0]
        action = rng.choice(state.legal_actions(seat))
    n = len(live.steps) + 1
    live.absorb([StepRow(n, seat, None, live.game.action_to_str(action), None, "player", time.time())])


def test_the_table_message_is_the_fresh_one_after_every_change() -> None:
    live = _live("updown")
    rng = random.Random(3)
    changes: list[Callable[[], None]] = [
        lambda: setattr(live.seats[1], "connections", 1),
        lambda: setattr(live.seats[1], "connections", 0),
        lambda: setattr(live.seats[2], "away", True),
        lambda: setattr(live.seats[2], "left", True),
        lambda: setattr(live.seats[3], "name", "renamed"),
        lambda: setattr(live.seats[0], "kind", "bot"),
        lambda: setattr(live.seats[0], "bot", "greedy"),
        lambda: setattr(live, "timer", 30.0),
        lambda: setattr(live, "private", True),
        lambda: setattr(live, "status", "closed"),
        lambda: setattr(live, "result", {"placings": [1, 2, 3, 4]}),
    ]
    for change in changes:
        for _ in range(30):  # steps between changes: only the leave cost can move with them
            _step(live, rng)
            assert live.table_message() == fresh_table(live)
        before = live.table_message()
        change()
        after = live.table_message()
        assert after == fresh_table(live)
        assert after != before, "a change of the table was not sent"
    assert live.result is not None
    live.result["placings"] = [4, 3, 2, 1]  # even a result changed in place is not sent stale
    assert live.table_message() == fresh_table(live)


@pytest.mark.parametrize("game_id", ["updown", "euchre", "updown-sueca", "up-or-down"])
def test_event_lines_are_the_fresh_ones_in_every_language_and_follow_names(game_id: str) -> None:
    live = _live(game_id)
    rng = random.Random(9)
    for n in range(300):
        if live.state.is_terminal():
            break
        _step(live, rng)
        if n == 150:
            live.seats[0].name = "Zoë"  # a line names seats: a new name gives new lines
        for k in [*range(live.players), SPECTATOR]:
            for lang in ("en", "de", "pt"):
                frame = live.frame(k, max(live.frame_no(k) - 3, 0), lang)
                assert frame["lines"] == fresh_lines(live, frame["events"], lang), (k, lang, n)
    snapshot = live.frame(SPECTATOR, None, "de")
    assert snapshot["lines"] == fresh_lines(live, snapshot["view"]["log"], "de")
    if game_id == "updown":
        assert any("Zoë" in line for line in snapshot["lines"])
