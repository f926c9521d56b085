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
events it was allowed to see; nothing a receiver does to a view changes the game (its events are
read-only, everything else is a fresh copy). :meth:`Game.sample_world` builds, from a view alone,
a full state that the seat cannot tell apart from the real one; :meth:`State.resample` is that
applied to the seat's own view.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from updown.core.errors import IllegalAction, UpdownError
from updown.core.frozen import freeze, thaw
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
        """A fresh, plain copy: changing it changes nothing else."""
        return {"scores": list(self.scores), "placings": list(self.placings), **thaw(self.details)}


@dataclass(frozen=True)
class Progress:
    """Where a match stands between its deals (for search horizons and evaluations).

    ``deals`` counts the deals (rounds) finished and scored; ``scores`` are the match scores per
    seat as they stand now (what :meth:`State.result` would give if the match ended here, counting
    the current deal only as far as the rules have scored it); ``higher_wins`` says which way they
    run. Public information: every seat's view shows it.
    """

    deals: int
    scores: tuple[float, ...]
    higher_wins: bool = True


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

    # -- worlds ---------------------------------------------------------------------------------
    def sample_world(self, view: View, rng: random.Random) -> State:
        """A full state drawn from the states that ``view`` (a seat's view) cannot tell apart.

        The world agrees with everything the view shows (``world.view(seat) == view`` for the
        view's seat): its own hand, every card played, what play proved a seat does not hold, and
        the game's public facts. Every hidden card is redealt among the places the view leaves
        open; the other seats' private events of the current deal are retold to match, and their
        private events of earlier deals are left out of the world's log (they cannot change play
        from here). How worlds are weighted is documented per game (uniform over the consistent
        deals in every game here). Raises IllegalAction if no world fits the view.
        """
        return self.world_sampler(view).draw(rng)

    def world_sampler(self, view: View) -> WorldSampler:
        """Read ``view`` once, to draw many worlds from it cheaply (see :meth:`sample_world`)."""
        raise NotImplementedError(f"{self.name} cannot build worlds from a view")


class WorldSampler(ABC):
    """The worlds consistent with one view: built once from the view, then :meth:`draw` each world.

    A sampler keeps no reference to anything of the view that the view's owner could change later
    (events are read-only; everything else is copied).
    """

    @abstractmethod
    def draw(self, rng: random.Random) -> State:
        """One world, drawn with ``rng`` only."""


class State(ABC):
    """One position of a game. Mutable: :meth:`apply` changes it in place; :meth:`clone` copies."""

    game: Game[Any]
    players: int
    log: list[Event]
    _frozen_upto: int = 0
    """Events before this index of ``log`` are read-only (frozen when first shown in a view)."""
    _visible: tuple[list[Event], dict[int | None, tuple[int, list[Event]]]] | None = None
    _visible_base: dict[int | None, tuple[int, list[Event], int]] | None = None
    """For a clone: where its seats' visible events start (see :meth:`_visible_snapshot`)."""
    """:meth:`visible_log`'s events per seat so far, for this ``log`` list (not copied by clones)."""

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

    def progress(self) -> Progress | None:
        """The match's standing now (see :class:`Progress`), or None if the game cannot say.

        A deal's score is counted at the step that ends it, and the next deal begins with a
        chance step (the deal), so a caller may look for a new deal at chance steps only.
        """
        return None

    def leave_action(self, seat: int) -> int | None:
        """The action by which ``seat`` may leave the game now, or None if it cannot.

        Leaving is never among :meth:`legal_actions` (so no bot picks it by chance); a seat that
        may leave can apply it at any of its decisions, and the driver hands the seat to a bot.
        Games without leaving keep this default.
        """
        return None

    def leave_cost(self, seat: int) -> int:
        """What ``seat`` pays the house (in the game's money, e.g. RISCOS) if it leaves now.

        The same amount the game's result later charges that seat for leaving, so a server can
        post the charge when the seat leaves rather than at the end. 0 where leaving is free or
        impossible (the default).
        """
        return 0

    # -- information ----------------------------------------------------------------------------
    @abstractmethod
    def view(self, seat: int | None) -> View:
        """Everything ``seat`` may see (``None``: a spectator), JSON-serialisable.

        Safe to hand out: the view's events are read-only (:mod:`updown.core.frozen`; they are
        shared with later views), every other part is a fresh copy, so nothing a receiver does to
        it changes the game. Raises IllegalAction for a seat that is not in the game.
        """

    def resample(self, seat: int, rng: random.Random) -> State:
        """A full state consistent with everything ``seat`` has seen: a world drawn from its view."""
        self.check_seat(seat)
        return self.game.sample_world(self.view(seat), rng)

    @abstractmethod
    def clone(self) -> State: ...

    # -- shared helpers -------------------------------------------------------------------------
    def visible_log(self, seat: int | None) -> list[Event]:
        """The events ``seat`` may see, in order: a new list of read-only events."""
        log = self.log
        done = self._frozen_upto
        if done < len(log):
            for i in range(done, len(log)):
                log[i] = freeze(log[i])
            self._frozen_upto = len(log)
        # Each seat's visible events are kept and extended as the log grows (the log only grows;
        # a state's log list is never shared), so a view costs the new events, not the whole match.
        cache = self._visible
        if cache is None or cache[0] is not log:
            cache = self._visible = (log, {})
        entry = cache[1].get(seat)
        if entry is None:
            # A clone starts from what its original had filtered (its log began as a copy).
            base = self._visible_base
            got = base.get(seat) if base is not None else None
            entry = (0, []) if got is None else (got[0], got[1][:got[2]])
            cache[1][seat] = entry
        upto, seen = entry
        if upto < len(log):
            if seat is None:
                seen.extend(e for e in log[upto:] if "to" not in e)
            else:
                seen.extend(e for e in log[upto:] if "to" not in e or seat in e["to"])
            cache[1][seat] = (len(log), seen)
        return list(seen)

    def _visible_snapshot(self) -> dict[int | None, tuple[int, list[Event], int]] | None:
        """For :meth:`clone`: each seat's visible events so far, as (log length, list, how many of
        the list), so that a clone's first view copies them instead of filtering its whole log
        again. The lists are shared, not copied: their owner only ever appends to them. A clone
        must begin with a copy of this state's log, and set ``_visible_base`` to this."""
        cache = self._visible
        if cache is None or cache[0] is not self.log:
            return self._visible_base  # not viewed since it was cloned: what it started from
        return {seat: (upto, seen, len(seen)) for seat, (upto, seen) in cache[1].items()}

    def check_seat(self, seat: object) -> int:
        """``seat`` if it is a seat of this game; otherwise IllegalAction (no negative indexing)."""
        if type(seat) is not int or not 0 <= seat < self.players:
            raise IllegalAction(f"there is no seat {_short_repr(seat)} (seats are 0 to {self.players - 1})")
        return seat

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
            self.check_seat(seat)
            if self.is_terminal():
                raise IllegalAction("the game is over")
            if self.is_chance():
                raise IllegalAction(f"it is a chance step ({self.chance_label()}), no seat acts")
            raise IllegalAction(f"seat {seat} cannot act now (to act: {', '.join(map(str, actors))})")
        return seat


def _short_repr(value: object, limit: int = 40) -> str:
    try:
        text = repr(value)
    except ValueError:  # an int too long to print
        return f"(a {type(value).__name__} too long to show)"
    return text if len(text) <= limit else text[: limit - 1] + "…"
