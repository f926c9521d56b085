"""One game at the terminal: the play loop with undo, and saving on the way out.

The loop does what ``updown.core.driver.play_game`` does, step for step and with the same draws
from the same generators (so ``--seed`` replays a game exactly as before), and adds what only a
person at a terminal needs:

* **undo**: before each decision the person makes, the session keeps a snapshot (the state, the
  chance generator, the record so far). ``undo`` goes back to the last one: the person's
  decision is taken back with everything the bots and chance did after it, and the record keeps
  only the line that is finally played. What the person saw is restored exactly, but every card
  they have not seen (the bots' hands, a bot's pending choice or discards, the stock) is drawn
  afresh from their view (:func:`updown.cli.unseen.redraw`), and the bots are made anew for it,
  so an undo cannot be used to learn the bots' cards or to see them play the same cards again.
  The chance generator is restored for dice, tosses and the like, so an undo cannot be used to
  roll the dice again; cards still to be dealt or drawn come from a fresh generator (drawn with
  the old one they could be foreseen). After an undo the game no longer follows from its seed,
  so the record keeps none.
  The terminal seats one person against bots only, so undo is always offered; a table with
  several people (a server) must not offer it.
* **save**: :meth:`Session.save` writes the record of the game so far (with a ``"play"`` block
  that says which seat was the person and which bots played), which ``updown play --resume``
  replays and continues. The CLI saves on quit, end of input, Ctrl-C and a closed terminal. An
  unfinished game is saved as the person saw it: every card they have not seen is drawn afresh
  first, so the file does not tell the bots' cards (and a resumed game draws them afresh again).
"""

from __future__ import annotations

import copy
import json
import os
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from updown.cli.human import HumanAgent, Undo
from updown.cli.moves import words_for
from updown.cli.screens import QUIET_EVENTS, event_text
from updown.cli.unseen import card_chance, redraw
from updown.core.driver import Agent
from updown.core.errors import IllegalAction, UpdownError
from updown.core.protocol import Game, State
from updown.core.records import Record
from updown.i18n import Translator


@dataclass
class _Snapshot:
    state: State
    rng: Any
    agents: list[Agent] | None  # copies of the bots, kept only when they cannot be made anew
    steps: list[str]
    open_label: str | None
    shown: int
    move: str = ""


@dataclass
class Session:
    game: Game[Any]
    state: State
    record: Record
    agents: list[Agent]
    seat: int
    rng: random.Random
    console: Console
    _: Translator
    replace: Callable[[int], Agent]
    bot_names: list[str | None] = field(default_factory=list)
    shown: int = 0
    open_label: str | None = None
    undo_stack: list[_Snapshot] = field(default_factory=list)
    make_bot: Callable[[int], Agent] | None = None
    """A new bot for a seat, with fresh randomness: after an undo the bots are made anew."""
    card_rng: random.Random | None = None
    """After an undo: the generator of the cards still to come (``rng`` draws the rest)."""

    @property
    def human(self) -> HumanAgent | None:
        agent = self.agents[self.seat]
        return agent if isinstance(agent, HumanAgent) else None

    # -- the loop -------------------------------------------------------------------------------
    def run(self) -> State:
        state, game = self.state, self.game
        while not state.is_terminal():
            if state.is_chance():
                label = state.chance_label()
                rng = self.rng if self.card_rng is None or not card_chance(state) else self.card_rng
                action = state.sample_chance(rng)
                state.apply(action)
                self._chance(label, game.action_to_str(action))
                self.show_events()
                continue
            seat = state.actors()[0]
            legal = state.legal_actions(seat)
            agent = self.agents[seat]
            snapshot = None
            if isinstance(agent, HumanAgent):
                agent.leave = state.leave_action(seat)
                agent.can_undo = bool(self.undo_stack)
                if not (agent.auto and len(legal) == 1) and not agent.queue:
                    snapshot = self._snapshot()
                try:
                    action = agent.act(state.view(seat), legal)
                except Undo:
                    self._undo()
                    state = self.state
                    continue
            else:
                action = agent.act(state.view(seat), legal)
            leaving = action == state.leave_action(seat)
            if action not in legal and not leaving:
                raise IllegalAction(f"seat {seat} chose {action}, which is not a legal action")
            state.apply(action, seat)
            if snapshot is not None:
                snapshot.move = game.action_name(action)
                self.undo_stack.append(snapshot)
            if leaving:
                self.agents[seat] = self.replace(seat)
                self.bot_names[seat] = self.bot_names[seat] or "stand-in"
                if seat == self.seat:
                    self.undo_stack.clear()
            self.record.steps.append(f"{seat}: {game.action_to_str(action)}")
            self.open_label = None
            self.show_events()
        self.record.result = state.result().to_dict()
        return state

    def _chance(self, label: str, outcome: str) -> None:
        steps = self.record.steps
        if self.open_label == label:
            steps[-1] += " " + outcome
        else:
            steps.append(f"{label}: {outcome}")
            self.open_label = label

    def show_events(self) -> None:
        log = self.state.view(self.seat)["log"]
        names = self.record.seats
        for event in log[self.shown:]:
            if event["type"] not in QUIET_EVENTS:
                self.console.print(event_text(self.game, event, names, self._))
        self.shown = len(log)

    # -- undo -----------------------------------------------------------------------------------
    def _snapshot(self) -> _Snapshot:
        bots = None
        if self.make_bot is None:
            keep = {id(self.game): self.game}
            bots = [a if isinstance(a, HumanAgent) else copy.deepcopy(a, dict(keep)) for a in self.agents]
        return _Snapshot(self.state.clone(), self.rng.getstate(), bots, list(self.record.steps), self.open_label,
                         self.shown)

    def _undo(self) -> None:
        snap = self.undo_stack.pop()
        record = Record(self.record.game, self.record.players, self.record.options, self.record.seats, snap.steps)
        try:
            record, state = redraw(record, self.seat, random.Random(secrets.randbits(128)))
        except UpdownError as err:  # not expected: then the position comes back as it was
            self.console.print(Text(f"(The unseen cards could not be drawn afresh: {err})", style="dim"))
            state = snap.state
        self.state = state
        self.rng.setstate(snap.rng)  # dice and tosses as before: no rolling again
        self.card_rng = random.Random(secrets.randbits(128))  # cards to come: not foreseeable
        human = self.agents[self.seat]
        old = [a for a in self.agents if a is not human]
        if self.make_bot is not None:
            self.agents = [human if s == self.seat else self.make_bot(s) for s in range(len(self.agents))]
            for bot in old:
                close = getattr(bot, "close", None)
                if callable(close):
                    close()
        elif snap.agents is not None:
            self.agents = [human if isinstance(a, HumanAgent) else a for a in snap.agents]
        self.record.steps[:] = record.steps
        self.record.seed = None  # the game no longer follows from its seed
        self.open_label = snap.open_label
        self.shown = snap.shown
        self.console.print(Text(self._("Undone: {move} is taken back, with everything after it.").format(
            move=words_for(self._).show(snap.move)), style="yellow"))

    # -- saving ---------------------------------------------------------------------------------
    def save_data(self) -> dict[str, Any]:
        data = self.record.to_dict()
        play: dict[str, Any] = {"human": self.seat, "bots": self.bot_names}
        if not self.state.is_terminal():
            # The record names the bots' cards, and the seed decides the cards not yet seen: an
            # unfinished game is saved as the person saw it, every card they have not seen drawn
            # afresh, and without the seed. A resumed game draws them afresh again.
            try:
                data = redraw(self.record, self.seat, random.Random(secrets.randbits(128)))[0].to_dict()
                play["unseen"] = "drawn afresh"
            except UpdownError as err:  # not expected: better the game saved than lost
                try:
                    self.console.print(Text(f"(The unseen cards could not be drawn afresh: {err}; the file "
                                            "shows them)", style="red"))
                except (OSError, ValueError):  # the terminal is gone (a hang-up): save all the same
                    pass
            data.pop("result", None)
            data.pop("seed", None)
        data["play"] = play
        return data

    def save(self, path: Path) -> None:
        """Write the game so far to ``path`` (atomically: a crash leaves the old file or the new one)."""
        write_atomically(path, json.dumps(self.save_data(), indent=1, ensure_ascii=False) + "\n")


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def bot_list_from(data: dict[str, Any], players: int) -> tuple[int | None, list[str | None]]:
    """The human seat and the bots of a saved game's ``"play"`` block, if it has a sound one."""
    play = data.get("play")
    if not isinstance(play, dict):
        return None, [None] * players
    human = play.get("human")
    bots = play.get("bots")
    if not (isinstance(human, int) and not isinstance(human, bool) and 0 <= human < players):
        human = None
    if not (isinstance(bots, list) and len(bots) == players and all(b is None or isinstance(b, str) for b in bots)):
        bots = [None] * players
    return human, list(bots)


__all__: Sequence[str] = ["Session", "bot_list_from", "write_atomically"]
