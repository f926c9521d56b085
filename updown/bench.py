"""Random playouts through the public protocol, for ``updown bench``."""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from updown.core.protocol import Game


@dataclass
class BenchResult:
    game: str
    players: int
    options: dict[str, Any]
    games: int
    seconds: float
    steps: int

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds


def random_playouts(
    game: Game[Any], players: int, options: Any, seconds: float, seed: int = 0
) -> BenchResult:
    """Play uniformly random games until ``seconds`` have passed; every step goes through
    ``is_terminal``, ``is_chance``/``sample_chance``, ``actors``, ``legal_actions`` and ``apply``."""
    _check_seconds(seconds)
    rng = random.Random(seed)
    choice = rng.choice
    games = steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_state(players, options)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
            else:
                seat = state.actors()[0]
                state.apply(choice(state.legal_actions(seat)), seat)
            steps += 1
        games += 1
        if time.perf_counter() >= deadline:
            break
    return BenchResult(game.id, players, options.to_dict(), games, time.perf_counter() - start, steps)


def _check_seconds(seconds: float) -> None:
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"seconds must be a positive number, not {seconds}")


def pyspiel_playouts(name: str, params: dict[str, Any], seconds: float, seed: int = 0) -> float | None:
    """A plain uniformly random pyspiel loop, in games per second; None without open_spiel.

    Chance is drawn from ``legal_actions()`` as at any other node, as a plain pyspiel loop does:
    going through ``chance_outcomes()`` (a list of pairs) made pyspiel about 1.2 times slower and
    flattered our ratio. Euchre's chance outcomes (the dealer, the cards) are uniform, so the games
    are the same in distribution.
    """
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    _check_seconds(seconds)
    game = pyspiel.load_game(name, params)
    rng = random.Random(seed)
    choice = rng.choice
    games = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
        games += 1
        if time.perf_counter() >= deadline:
            break
    return games / (time.perf_counter() - start)
