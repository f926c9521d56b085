"""An action is tried on a spare copy of the table's state, not on a fresh clone (issue 35).

``Live.submit`` tries each action on a copy of the state, stores it, then takes the copy as the
table's state. The copy is now the state before the previous step with that step applied again (the
"spare"), since cloning the whole game was the step's largest single cost. These tests play whole
games of every game through ``submit`` and ``chance_steps`` and check after every step that the
table's state, and the spare it will try the next action on, are the game rebuilt from the stored
steps, also across a step another process stored (a conflict, then a catch-up) and a commit that
failed after the action was applied to the spare.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from typing import Any

import pytest

from updown.core.protocol import State
from updown.core.registry import get_game
from updown.server.live import SPECTATOR, ActionError, Live
from updown.server.models import Seat, Table
from updown.server.store import Conflict, Finish, Posting, StepRow


class Store:
    """What ``Live`` asks of the store for these steps: a list of rows, a conflict or a failure on demand."""

    def __init__(self) -> None:
        self.rows: list[StepRow] = []
        self.conflict_with: StepRow | None = None
        """Stored by "another process" when the next commit comes: that commit is a conflict."""
        self.fail_next = False

    async def commit_async(self, table_id: str, rows: Sequence[StepRow], finish: Finish | Posting | None,
                           actor: Any = None) -> None:
        if self.conflict_with is not None:
            self.rows.append(self.conflict_with)
            self.conflict_with = None
            raise Conflict("step taken")
        if self.fail_next:
            self.fail_next = False
            raise RuntimeError("disk full")
        assert [r.n for r in rows] == list(range(len(self.rows) + 1, len(self.rows) + 1 + len(rows)))
        self.rows.extend(rows)

    def steps(self, table_id: str, after: int) -> list[StepRow]:
        return [r for r in self.rows if r.n > after]

    def table(self, table_id: str) -> None:
        return None


def rebuilt(live: Live) -> State:
    state = live.game.new_state(live.players, live.options)
    for row in live.steps:
        state.apply(live.game.parse_action(row.notation), row.seat)
    return state


def same(a: State, b: State, players: int) -> None:
    assert a.is_terminal() == b.is_terminal() and a.is_chance() == b.is_chance()
    for k in [*range(players), None]:
        assert a.view(k) == b.view(k), k
        if k is not None and not a.is_terminal():
            assert a.legal_actions(k) == b.legal_actions(k), k


@pytest.mark.parametrize("game_id", ["updown", "euchre", "updown-sueca", "up-or-down"])
def test_every_action_is_tried_on_a_spare_that_is_the_stored_game(game_id: str) -> None:
    game = get_game(game_id)
    players = 4
    row = Table(id="t", game=game_id, players=players, options="{}", seed="seed", timer=None, grace=60.0,
                rated=False, private=False, status="running", created_at=time.time())
    seats = [Seat(table_id="t", seat=i, kind="person", account_id=i + 1, name=f"p{i}", left=False, away=False)
             for i in range(players)]
    rng = random.Random(11)

    async def notify(_live: Live) -> None:
        return None

    async def play() -> None:
        store = Store()
        live = Live(row, seats, store, bot_delay=0.0, notify=notify)  # type: ignore[arg-type]
        live.shared = True  # a conflict is followed by reading the stored steps
        spared = conflicts = failures = 0
        while not live.state.is_terminal() and len(live.steps) < 600:
            if live.state.is_chance():
                await live.chance_steps()
            else:
                seat = live.state.actors()[0]
                action = rng.choice(live.state.legal_actions(seat))
                spare = live._spare
                if spare is not None and spare[0] == len(live.steps):
                    spared += 1
                n = len(live.steps)
                if n % 37 == 5:
                    # Another process stores this seat's action first: the commit is a conflict, the
                    # step is read (applied to the state in place) and the action judged again.
                    other = rng.choice(live.state.legal_actions(seat))
                    store.conflict_with = StepRow(n + 1, seat, None, game.action_to_str(other), None, "player",
                                                  time.time())
                    conflicts += 1
                    try:
                        await live.submit(seat, action, None, "player")
                    except ActionError:
                        pass  # the action is no longer legal, or not this seat's turn
                elif n % 37 == 20:
                    # The commit fails after the action was applied to the spare: nothing stored,
                    # and the next try of the same action starts from the stored game.
                    store.fail_next = True
                    with pytest.raises(ActionError):
                        await live.submit(seat, action, f"c{n}", "player")
                    assert len(live.steps) == n and live._spare is None
                    failures += 1
                    await live.submit(seat, action, f"c{n}", "player")
                else:
                    await live.submit(seat, action, None, "player")
            assert [r.n for r in live.steps] == [r.n for r in store.rows]
            reference = rebuilt(live)
            same(live.state, reference, players)
            if live._spare is not None and live._spare[0] == len(live.steps):  # older: never taken
                assert live._spare[1] is not live.state
                same(live._spare[1], reference, players)
            for k in [*range(players), SPECTATOR]:
                frame = live.frame(k, None)
                assert frame["view"] == reference.view(None if k == SPECTATOR else k)
        assert spared > 20 and conflicts and failures  # the spare was taken, and each way around it ran

    asyncio.run(play())
