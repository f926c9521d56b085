"""The one protocol every game implements.

A :class:`Game` is the immutable description (id, name, seats, options, notation); a
:class:`State` is one position in one play of it. A state is at exactly one kind of node:

* **chance**: :meth:`State.is_chance` is true; :meth:`State.chance_outcomes` lists the outcomes
  (action ids) with their probabilities, and whoever drives the game picks one and applies it.
  The rules never draw a random number themselves, so a record can name every outcome.
* **decision**: :meth:`State.actors` names the seats that must act. Usually one; for a
  simultaneous secret choice, every seat that has not submitted yet. Choices are applied one
  seat at a time and stay hidden (out of every other seat's view) until the last is in.
* **terminal**: :meth:`State.is_terminal`; :meth:`State.result` gives scores and placings.

Actions are small integers, with a readable notation both ways through the game
(:meth:`Game.action_to_str`, :meth:`Game.parse_action`); the integer means the same thing
wherever it occurs, so notation needs no state.

Everything a seat may know is in :meth:`State.view`, JSON-serialisable, including the log of
events it was allowed to see. :meth:`State.resample` builds a full state that the seat cannot
tell apart from the real one.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from updown.core.errors import IllegalAction, UpdownError
from updown.core.options import GameOptions

Event = dict[str, Any]
"""What happened at a step, as data. ``event["type"]`` names it; an event with a ``"to"`` list
is private to those seats, any other is public."""

View = dict[str, Any]

O = TypeVar("O", bound=GameOptions)


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game: a score and a placing (1 = first, ties share) per seat."""

    scores: tuple[float, ...]
    placings: tuple[int, ...]
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_scores(
        cls, scores: Sequence[float], *, higher_wins: bool = True, details: dict[str, Any] | None = None
    ) -> Result:
        """Placings by score: equal scores share a place, and the next place is skipped."""
        sign = -1 if higher_wins else 1
        placings = tuple(1 + sum(1 for other in scores if sign * other < sign * mine) for mine in scores)
        return cls(tuple(scores), placings, details or {})

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, place in enumerate(self.placings) if place == 1)

    def to_dict(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "placings": list(self.placings), **self.details}


class Game(ABC, Generic[O]):
    """A registered game: its identity, seats, options and action notation."""

    id: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    rulebook: ClassVar[str]
    """The text in ``shared/rules`` this game follows."""
    Options: type[O]
    bench_players: ClassVar[int]
    bench_options: ClassVar[dict[str, Any]] = {}
    """The setting ``updown bench`` measures by default."""
    openspiel_peer: ClassVar[tuple[str, dict[str, Any]] | None] = None
    """OpenSpiel's name and parameters for the same game at the bench setting, if it has one:
    ``updown bench`` then runs the same random loop through pyspiel and prints the ratio."""

    def teams(self, players: int) -> tuple[tuple[int, ...], ...] | None:
        """The partnerships, if seats play in teams (a team's seats share a placing)."""
        return None

    def player_range(self) -> str:
        """``2 to 4``, or ``4`` when the count is fixed."""
        if self.min_players == self.max_players:
            return str(self.min_players)
        return f"{self.min_players} to {self.max_players}"

    def options(self, values: dict[str, Any] | None = None) -> O:
        return self.Options.from_dict(values or {})

    def new_state(self, players: int, options: O | None = None) -> State:
        """The state before the first chance outcome or action."""
        if not self.min_players <= players <= self.max_players:
            raise IllegalAction(f"{self.name} is for {self.player_range()} players, not {players}")
        opts = options if options is not None else self.Options()
        opts.check(players)
        return self._new_state(players, opts)

    @abstractmethod
    def _new_state(self, players: int, options: O) -> State: ...

    @abstractmethod
    def action_to_str(self, action: int) -> str:
        """The readable notation of an action or chance outcome id."""

    @abstractmethod
    def parse_action(self, text: str) -> int:
        """The id of an action or outcome written in notation; raises NotationError."""

    def action_name(self, action: int) -> str:
        """The notation of an action, or its raw id if it is none (for error messages)."""
        try:
            return self.action_to_str(action)
        except UpdownError:
            return repr(action)

    @abstractmethod
    def describe(self, event: Event, names: Sequence[str]) -> str:
        """One plain-text line that explains an event to people."""


class State(ABC):
    """One position of a game. Mutable: :meth:`apply` changes it in place; :meth:`clone` copies."""

    game: Game[Any]
    players: int
    log: list[Event]

    # -- who acts -------------------------------------------------------------------------------
    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def is_chance(self) -> bool: ...

    @abstractmethod
    def actors(self) -> tuple[int, ...]:
        """Seats that must act now (empty at chance and terminal nodes)."""

    # -- chance ---------------------------------------------------------------------------------
    @abstractmethod
    def chance_label(self) -> str:
        """What the pending chance event is, e.g. ``deal 2``, ``dice``; records group by it."""

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The possible outcomes of the pending chance event, with probabilities summing to 1."""

    def sample_chance(self, rng: random.Random) -> int:
        """Draw an outcome with ``rng``. Games may override this with a faster equivalent."""
        outcomes = self.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]

    # -- decisions ------------------------------------------------------------------------------
    @abstractmethod
    def legal_actions(self, seat: int) -> list[int]:
        """The actions ``seat`` may take now (empty if it need not act)."""

    @abstractmethod
    def apply(self, action: int, seat: int | None = None) -> None:
        """Apply a chance outcome (``seat`` None) or a seat's action; raises IllegalAction.

        A rejected action leaves the state unchanged.
        """

    @abstractmethod
    def result(self) -> Result:
        """Scores and placings; only at a terminal state."""

    def leave_action(self, seat: int) -> int | None:
        """The action by which ``seat`` may leave the game now, or None if it cannot.

        Leaving is never among :meth:`legal_actions` (so no bot picks it by chance); a seat that
        may leave can apply it at any of its decisions, and the driver hands the seat to a bot.
        Games without leaving keep this default.
        """
        return None

    # -- information ----------------------------------------------------------------------------
    @abstractmethod
    def view(self, seat: int | None) -> View:
        """Everything ``seat`` may see (``None``: a spectator), JSON-serialisable.

        For speed, a view's ``log`` holds the state's own event dicts: read views, never edit them
        (anything that crosses a process boundary gets a JSON copy anyway).
        """

    @abstractmethod
    def resample(self, seat: int, rng: random.Random) -> State:
        """A full state consistent with everything ``seat`` has seen."""

    @abstractmethod
    def clone(self) -> State: ...

    # -- shared helpers -------------------------------------------------------------------------
    def visible_log(self, seat: int | None) -> list[Event]:
        """The events ``seat`` may see, in order."""
        return [e for e in self.log if "to" not in e or (seat is not None and seat in e["to"])]

    def _seat_for(self, seat: int | None) -> int:
        """The acting seat: ``seat`` if given, else the only actor; raises if ambiguous."""
        actors = self.actors()
        if seat is None:
            if self.is_terminal():
                raise IllegalAction("the game is over")
            if len(actors) != 1:
                raise IllegalAction(f"say which seat acts: seats {', '.join(map(str, actors))} must act")
            return actors[0]
        if seat not in actors:
            if self.is_terminal():
                raise IllegalAction("the game is over")
            if self.is_chance():
                raise IllegalAction(f"it is a chance step ({self.chance_label()}), no seat acts")
            raise IllegalAction(f"seat {seat} cannot act now (to act: {', '.join(map(str, actors))})")
        return seat
