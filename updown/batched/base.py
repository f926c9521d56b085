"""What the batched engines share: the batch's shape, legal masks, checking and applying a step,
the random policy, and selecting or repeating games."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import numpy as np
import numpy.typing as npt

from updown.batched.bits import BIT, BitArray, IntArray, expand, popcount, select_bit
from updown.core.errors import IllegalAction, OptionsError
from updown.core.protocol import Game

B = TypeVar("B", bound="BatchedGame")


def refuse_research(game: str, options: Any) -> None:
    """Raise :class:`OptionsError` for research options (a reduced deck): the batched engines deal
    the rulebook's full deck, and would otherwise play another game than the one asked for."""
    used = options.research_in_use()
    if used:
        shown = ", ".join(f"{name}={getattr(options, name)}" for name in used)
        raise OptionsError(f"{shown}: research {'option' if len(used) == 1 else 'options'}; the batched "
                           f"{game} engine deals the full deck (play it on the scalar engine)")


class BatchedGame:
    """``n`` games of one kind, stepped together. Subclasses set the rules."""

    game_id: ClassVar[str]
    num_actions: ClassVar[int]
    _scalar: ClassVar[Game[Any]]
    _over: ClassVar[int]
    """The ``phase`` value of a game that is over."""

    n: int
    players: int
    rng: np.random.Generator
    phase: IntArray
    turn: IntArray
    chance_log: list[list[int]] | None
    _legal: tuple[BitArray, BitArray] | None

    def _init_batch(self, n: int, rng: np.random.Generator | None, seed: int | None, record: bool) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"a batch needs at least one game, not {n!r}")
        self.n = n
        self.rng = rng if rng is not None else np.random.default_rng(seed)
        self.chance_log = [[] for _ in range(n)] if record else None
        self._legal = None
        self._all = np.arange(n, dtype=np.int64)

    def _layout(self) -> dict[str, int]:
        """Every array of the game state and its width per game (1, or per seat, or per team)."""
        raise NotImplementedError

    def _legal_small(self) -> tuple[BitArray, BitArray]:
        """The legal actions as ``(mask, band)``: the set is ``mask << band``, with ``mask`` in
        24 bits where the game allows (faster random choice); cached until the next step."""
        raise NotImplementedError

    def _apply(self, move: npt.NDArray[np.bool_], a: IntArray) -> None:
        """Apply the checked actions ``a`` of the games in ``move``."""
        raise NotImplementedError

    # -- what the games are at ------------------------------------------------------------------
    @property
    def done(self) -> npt.NDArray[np.bool_]:
        """Which games are over."""
        over: npt.NDArray[np.bool_] = self.phase == self._over
        return over

    @property
    def to_act(self) -> IntArray:
        """The seat each game waits for (-1 for a game that is over)."""
        seats: IntArray = np.where(self.phase == self._over, -1, self.turn)
        return seats

    def all_done(self) -> bool:
        return bool((self.phase == self._over).all())

    def legal_bits(self) -> BitArray:
        """Each game's legal actions for the seat to act, as a mask of action ids (0 if over)."""
        small, band = self._legal_small()
        bits: BitArray = small << band
        return bits

    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """``(n, num_actions)`` booleans: the legal actions of each game's seat to act."""
        return expand(self.legal_bits(), self.num_actions)

    # -- stepping --------------------------------------------------------------------------------
    def step(self, actions: npt.ArrayLike) -> None:
        """Apply one action per game (-1: that game does not move now). Checks every action
        before applying any: an illegal one raises IllegalAction naming the game, and no game moves."""
        a = np.asarray(actions)
        if a.shape != (self.n,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"step takes one integer action per game: shape ({self.n},), not {a.shape} {a.dtype}")
        a = a.astype(np.int64, copy=False)
        move = a >= 0
        bad = move & ~((a < 64) & ((self.legal_bits() & BIT[a & 63]) != 0))
        if bad.any():
            g = int(np.argmax(bad))
            what = self._scalar.action_name(int(a[g]))
            if self.phase[g] == self._over:
                raise IllegalAction(f"game {g} is over: its action must be -1, not {what}")
            raise IllegalAction(f"game {g}: {what} is not legal for seat {int(self.turn[g])} now")
        self._legal = None
        self._apply(move, a)

    def play(self, policy: str = "random") -> None:
        """Step every game to its end with ``"random"`` or ``"greedy"`` play."""
        choose = self.policy(policy)
        while not self.all_done():
            self.step(choose())

    def policy(self, name: str) -> Callable[[], IntArray]:
        """The method that picks each game's next action under the named policy."""
        if name == "random":
            return self.random_actions
        if name == "greedy":
            return self.greedy_actions
        if name == "bot" and type(self).bot_actions is not BatchedGame.bot_actions:
            return self.bot_actions
        raise ValueError(f"unknown playout policy {name!r} for {self.game_id} "
                         f"(random, greedy{', bot' if type(self).bot_actions is not BatchedGame.bot_actions else ''})")

    def random_actions(self) -> IntArray:
        """A uniformly random legal action per game (-1 for games that are over)."""
        small, band = self._legal_small()
        count = popcount(small)
        k = (self.rng.random(self.n) * count).astype(np.int64)
        chosen = select_bit(small, k) + band.astype(np.int64)
        actions: IntArray = np.where(count > 0, chosen, -1)
        return actions

    def greedy_actions(self) -> IntArray:
        raise NotImplementedError

    def bot_actions(self) -> IntArray:
        """What the game's ``greedy`` bot would play in each game (only engines that mirror it)."""
        raise NotImplementedError

    def scores(self) -> npt.NDArray[np.int64]:
        """``(n, players)``: each seat's score as it stands (the scalar ``progress().scores``),
        which is ``Result.scores`` once the game is over."""
        raise NotImplementedError

    def deals(self) -> IntArray:
        """Each game's deal counter: it changes when the next deal (round) begins, as the scalar
        ``progress().deals`` does once a deal is scored."""
        raise NotImplementedError

    # -- selecting games -------------------------------------------------------------------------
    def take(self: B, games: npt.ArrayLike) -> B:
        """A new batch of the given games, in that order (repeats allowed), sharing this one's
        generator; with a record, each game's chance log so far is copied."""
        idx = np.asarray(games, dtype=np.int64).reshape(-1)
        if len(idx) == 0 or idx.min() < 0 or idx.max() >= self.n:
            raise ValueError(f"take needs game numbers from 0 to {self.n - 1}")
        new = copy.copy(self)
        for name, width in self._layout().items():
            arr = getattr(self, name)
            setattr(new, name, arr.reshape(self.n, width)[idx].reshape(-1))
        new.n = len(idx)
        new._all = np.arange(new.n, dtype=np.int64)
        new._legal = None
        new._after_take()
        if self.chance_log is not None:
            new.chance_log = [list(self.chance_log[g]) for g in idx.tolist()]
        return new

    def _after_take(self) -> None:
        """Rebuild helpers that depend on ``n``."""
