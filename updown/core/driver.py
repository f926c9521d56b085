"""Drive a game to its end: resolve chance with a seeded generator, ask agents, write the record."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from updown.core.errors import IllegalAction
from updown.core.protocol import Game, State, View
from updown.core.records import Record, RecordWriter


class Agent(Protocol):
    """Anything that picks an action from a seat's view: a bot, a person at a terminal."""

    def act(self, view: View, legal: Sequence[int]) -> int: ...


Observer = Callable[[State, int | None, int], None]


def play_game(
    game: Game[Any],
    players: int,
    agents: Sequence[Agent],
    rng: random.Random,
    *,
    options: Any = None,
    seats: Sequence[str] | None = None,
    seed: int | None = None,
    observer: Observer | None = None,
    replace: Callable[[int], Agent] | None = None,
) -> tuple[State, Record]:
    """Play one game; returns the final state and its record.

    Chance outcomes are drawn from ``rng`` only. Agents are asked one seat at a time (for a
    simultaneous choice, in seat order); each sees only ``state.view(seat)``. An agent may also
    answer with ``state.leave_action(seat)``; the seat is then played by ``replace(seat)``.
    When the game ends (or fails), every agent that has a ``close()`` method is closed (a bot
    program is stopped).
    """
    agents = list(agents)
    everyone = list(agents)
    try:
        return _play(game, players, agents, everyone, rng, options, seats, seed, observer, replace)
    finally:
        for agent in everyone:
            close = getattr(agent, "close", None)
            if callable(close):
                close()


def _play(
    game: Game[Any],
    players: int,
    agents: list[Agent],
    everyone: list[Agent],
    rng: random.Random,
    options: Any,
    seats: Sequence[str] | None,
    seed: int | None,
    observer: Observer | None,
    replace: Callable[[int], Agent] | None,
) -> tuple[State, Record]:
    opts = options if options is not None else game.Options()
    state = game.new_state(players, opts)
    record = Record(game.id, players, opts.to_dict(), list(seats or [f"seat {i}" for i in range(players)]),
                    seed=seed)
    writer = RecordWriter(record)
    while not state.is_terminal():
        if state.is_chance():
            label = state.chance_label()
            action = state.sample_chance(rng)
            state.apply(action)
            writer.chance(label, game.action_to_str(action))
            if observer:
                observer(state, None, action)
            continue
        seat = state.actors()[0]
        legal = state.legal_actions(seat)
        action = agents[seat].act(state.view(seat), legal)
        leaving = action == state.leave_action(seat)
        if action not in legal and not leaving:
            raise IllegalAction(f"seat {seat} chose {action}, which is not a legal action")
        state.apply(action, seat)
        if leaving:
            if replace is None:
                raise IllegalAction(f"seat {seat} left, and no bot was given to take over")
            agents[seat] = replace(seat)
            everyone.append(agents[seat])
        writer.action(seat, game.action_to_str(action))
        if observer:
            observer(state, seat, action)
    record.result = state.result().to_dict()
    return state, record
