"""Duplicate deals: one deal's chance fixed by its seed, played once per seating of the line-up.

A *deal* is every chance outcome of a game, fixed by the deal's seed. Each chance event is drawn
from a generator of its own label (``deal 2``, ``dice``, ``draw``...), seeded by the deal's seed
and the label, so the k-th card dealt to seat 2 is the same card in every seating even when the
players' choices call for more or fewer dice rolls in between. What stays different between
seatings is only what the play itself changes: a card drawn from a stock that earlier plays have
already thinned (Up or Down?'s draws, the Sueca Up&Down's draws after discards) comes from a
different set of cards, so it can differ.

A *seating* rotates the line-up: in seating ``r`` entry ``i`` sits in seat ``(i + r) % n``. Over
the ``n`` rotations every entry plays every seat, and so every hand of the deal, once. In a
partnership game whose partners sit a fixed distance apart (Euchre: seats 0 and 2), rotation
keeps the partners together and moves them to the other side every other seating.

Everything here is a plain function of its arguments (no globals, no clocks), so a deal gives the
same games in any process, on any machine of a Ray cluster, and after a restart.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from updown.bots import bot_names, make_bot
from updown.core.driver import play_game
from updown.core.errors import UpdownError
from updown.core.protocol import Game, State
from updown.core.registry import get_game


class ArenaError(UpdownError):
    """A bad arena setting: unknown bot, wrong count, a folder that holds another run..."""


@dataclass(frozen=True)
class Lineup:
    """What a run plays: the game, the entries (bot names by position) and the run's seed.

    Two entries may be the same bot (``greedy`` against ``greedy``); they are told apart by
    position. In a partnership game the entries whose seats are partners form a team.
    """

    game: str
    players: int
    options: dict[str, Any]
    bots: tuple[str, ...]
    seed: int
    teams: tuple[tuple[int, ...], ...]
    """Entries that play as partners; every entry is its own team in a game without partners."""

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "options": self.options,
                "bots": list(self.bots), "seed": self.seed, "teams": [list(t) for t in self.teams]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Lineup:
        return cls(data["game"], data["players"], dict(data["options"]), tuple(data["bots"]),
                   data["seed"], tuple(tuple(t) for t in data["teams"]))

    @property
    def seatings(self) -> int:
        return self.players

    def labels(self) -> list[str]:
        """Entry names for people: the bot's name, with ``#position`` when a name occurs twice."""
        return [b if self.bots.count(b) == 1 else f"{b}#{i}" for i, b in enumerate(self.bots)]

    def team_of(self) -> list[int]:
        """The index of each entry's team."""
        out = [0] * self.players
        for t, members in enumerate(self.teams):
            for e in members:
                out[e] = t
        return out


def make_lineup(game: Game[Any], bots: Sequence[str], seed: int, options: Any = None) -> Lineup:
    """Check a line-up against ``game`` and build it.

    ``bots`` names one bot per seat, or, in a partnership game, one bot per team (it then plays
    every seat of its team).
    """
    names = [b.strip() for b in bots]
    if not names or any(not b for b in names):
        raise ArenaError("give the bots as a comma separated list, e.g. --bots greedy,random")
    known = bot_names(game.id)
    for name in names:
        if name not in known:
            raise ArenaError(f"no bot {name!r} for {game.id} (bots: {', '.join(known)})")
    n = len(names)
    seat_teams = game.teams(game.max_players) if game.min_players == game.max_players else None
    if seat_teams is not None and n == len(seat_teams) and n != game.max_players:
        # One bot per team: it takes every seat of its team.
        players = game.max_players
        expanded = [""] * players
        for name, team in zip(names, seat_teams):
            for s in team:
                expanded[s] = name
        names, n = expanded, players
    if not game.min_players <= n <= game.max_players:
        teams_hint = f", or one per team ({len(seat_teams)})" if seat_teams else ""
        raise ArenaError(f"{game.name} is for {game.player_range()} players: give that many bots"
                         f"{teams_hint}, not {len(bots)}")
    opts = options if options is not None else game.Options()
    opts.check(n)
    return Lineup(game.id, n, opts.to_dict(), tuple(names), seed, entry_teams(game, n))


def entry_teams(game: Game[Any], players: int) -> tuple[tuple[int, ...], ...]:
    """The teams of entries, the same in every seating; raises if rotation would split partners."""
    seat_teams = game.teams(players)
    if seat_teams is None:
        return tuple((e,) for e in range(players))
    found: set[tuple[tuple[int, ...], ...]] = set()
    for r in range(players):
        found.add(tuple(sorted(tuple(sorted((s - r) % players for s in team)) for team in seat_teams)))
    if len(found) != 1:
        raise ArenaError(f"{game.name}: rotating the seats would split partners, so duplicate "
                         "seatings cannot keep the teams")
    return found.pop()


def seat_of(entry: int, seating: int, players: int) -> int:
    """The seat entry ``entry`` takes in seating ``seating``."""
    return (entry + seating) % players


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal number ``deal`` of a run: a function of the two alone."""
    return random.Random(f"arena {seed} deal {deal}").getrandbits(63)


class ChanceStreams(random.Random):
    """A generator that draws each chance event from the stream of its label.

    The driver draws every chance outcome through this object; :meth:`select` (called before each
    chance step) points it at the stream of that step's label, each stream seeded by the deal's
    seed and the label alone.
    """

    def __init__(self, seed: int):
        self._deal_seed = seed
        self._streams: dict[str, random.Random] = {}
        self._current: random.Random | None = None
        super().__init__(seed)

    def select(self, label: str) -> None:
        stream = self._streams.get(label)
        if stream is None:
            stream = self._streams[label] = random.Random(f"{self._deal_seed} {label}")
        self._current = stream

    def _stream(self) -> random.Random:
        if self._current is None:
            raise RuntimeError("no chance label selected")
        return self._current

    def random(self) -> float:
        return self._stream().random()

    def getrandbits(self, k: int, /) -> int:
        return self._stream().getrandbits(k)


def play_seating(lineup: Lineup, game: Game[Any], options: Any, seed: int, seating: int,
                 record: bool = False) -> dict[str, Any]:
    """Play one seating of one deal; returns its scores and placings by seat (and its record)."""
    n = lineup.players
    entry_at = [(s - seating) % n for s in range(n)]
    agents = [make_bot(lineup.bots[e], game, s, random.Random(f"{seed}:{seating}:{s}"))
              for s, e in enumerate(entry_at)]
    labels = lineup.labels()
    chance = ChanceStreams(seed)
    first = game.new_state(n, options)
    if first.is_chance():
        chance.select(first.chance_label())
    steps = 0

    def before_chance(state: State, _seat: int | None, _action: int) -> None:
        nonlocal steps
        steps += 1
        if state.is_chance():
            chance.select(state.chance_label())

    state, rec = play_game(game, n, agents, chance, options=options, seats=[labels[e] for e in entry_at],
                           seed=seed, observer=before_chance)
    result = state.result()
    out: dict[str, Any] = {"seating": seating, "scores": list(result.scores),
                           "placings": list(result.placings), "steps": steps}
    if record:
        out["record"] = rec.to_json()
    return out


def play_deal(lineup: Lineup, deal: int, record: bool = False) -> dict[str, Any]:
    """Play deal number ``deal`` once per seating: a JSON-ready dict."""
    game = get_game(lineup.game)
    options = game.options(lineup.options)
    seed = deal_seed(lineup.seed, deal)
    games = [play_seating(lineup, game, options, seed, r, record) for r in range(lineup.seatings)]
    return {"deal": deal, "seed": seed, "games": games}


def play_deals(lineup: dict[str, Any], deals: Sequence[int], record: bool = False) -> list[dict[str, Any]]:
    """A batch of deals: the task a worker process or a Ray task runs (plain data in and out)."""
    line = Lineup.from_dict(lineup)
    return [play_deal(line, d, record) for d in deals]
