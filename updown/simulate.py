"""Bots against bots: many seeded games, with per-seat statistics.

Seeds here are explicit and reproducible (a run's seed decides every game); a game a person plays
against others should draw its seed from the operating system instead (``updown play`` does).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from updown.bots import make_bot
from updown.core.driver import play_game
from updown.core.protocol import Game


@dataclass
class SeatStats:
    bot: str
    wins: int = 0
    """Games this seat won alone (or with its partners only, in a team game)."""
    shared_wins: int = 0
    """Games this seat finished first in, tied with another seat."""
    score_sum: float = 0.0
    placing_sum: int = 0


@dataclass
class Simulation:
    game: str
    players: int
    games: int
    seed: int
    options: dict[str, Any]
    seats: list[SeatStats] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game, "players": self.players, "games": self.games, "seed": self.seed,
            "options": self.options,
            "seats": [
                {"seat": i, "bot": s.bot, "wins": s.wins, "shared_wins": s.shared_wins,
                 "win_rate": s.wins / self.games, "mean_score": s.score_sum / self.games,
                 "mean_placing": s.placing_sum / self.games}
                for i, s in enumerate(self.seats)
            ],
        }


def seeded(seed: int) -> random.Random:
    """A generator for ``seed`` such that different seeds never share one.

    ``random.Random(-5)`` is ``random.Random(5)`` (Python seeds with the absolute value), so a
    negative seed is seeded through its text instead; seeds from 0 up are used as they are, so
    every seed written before keeps its games.
    """
    return random.Random(seed if seed >= 0 else f"negative seed {seed}")


def game_seeds(seed: int, games: int) -> Iterator[int]:
    """The seed of each game in a run, made one at a time; game ``i`` replays alone from the ``i``-th.

    A generator, so that a run of a billion games does not build a billion seeds first.
    """
    master = seeded(seed)
    for _ in range(games):
        yield master.getrandbits(63)


def play_seeded(
    game: Game[Any], players: int, bots: Sequence[str], seed: int, options: Any = None
) -> tuple[Any, Any]:
    """One game whose chance and bots are all derived from ``seed``."""
    agents = [make_bot(name, game, seat, random.Random(f"{seed}:{seat}")) for seat, name in enumerate(bots)]
    names = [f"{name}-{seat}" for seat, name in enumerate(bots)]
    return play_game(game, players, agents, seeded(seed), options=options, seats=names, seed=seed)


def simulate(
    game: Game[Any],
    players: int,
    games: int,
    bots: Sequence[str],
    seed: int,
    options: Any = None,
    records: Path | None = None,
    progress: Callable[[int], None] | None = None,
) -> Simulation:
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    opts = options if options is not None else game.Options()
    sim = Simulation(game.id, players, games, seed, opts.to_dict(), [SeatStats(b) for b in bots])
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    for index, game_seed in enumerate(game_seeds(seed, games)):
        state, record = play_seeded(game, players, bots, game_seed, opts)
        result = state.result()
        first = result.placings.count(1)
        teams = game.teams(players)
        if teams is not None and any(set(result.winners) <= set(team) for team in teams):
            first = 1  # partners share a win; it is not a tie with a rival
        for seat, stats in enumerate(sim.seats):
            stats.score_sum += result.scores[seat]
            stats.placing_sum += result.placings[seat]
            if result.placings[seat] == 1:
                if first == 1:
                    stats.wins += 1
                else:
                    stats.shared_wins += 1
        if records is not None:
            (records / f"{game.id}-{index + 1:05d}.json").write_text(record.to_json(), encoding="utf-8")
        if progress:
            progress(index + 1)
    return sim
