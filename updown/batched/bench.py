"""Speed of the batched engines against the scalar engines and OpenSpiel, measured interleaved.

Run as ``python benchmarks/batched.py [SECONDS] [ROUNDS]`` or ``updown bench-batched``. Each loop
plays uniformly random games (chance uniform too) for ``SECONDS`` per round (default 0.3); the
loops take turns, round after round (default 10), so that a busy machine slows them alike. A rate
is games over seconds summed across rounds; ``ratio`` divides two such rates, ``median`` and
``range`` are over the rounds' own ratios (on a shared machine the median is the steadier figure).

Euchre (one deal, stick the dealer, no lone defender, the setting OpenSpiel plays):

* ``updown scalar``: ``updown.bench.random_playouts`` through the public protocol;
* ``pyspiel Python loop``: ``apply_action(random.choice(state.legal_actions()))`` at every node;
* ``OpenSpiel C++ loop``: ``pyspiel.evaluate_bots`` with four ``make_uniform_random_bot`` (the
  reference for the ratios);
* ``batched, batch N``: ``BatchedEuchre(N, seed).play("random")``, counting N deals per batch.

UP&DOWN (4 players, one round): the scalar engine (the reference) and the batched one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from updown.batched.euchre import BatchedEuchre
from updown.batched.updown import BatchedUpDown
from updown.bench import random_playouts
from updown.core.registry import get_game

BATCH_SIZES = (1, 100, 10_000)
Loop = Callable[[float], tuple[int, float]]
"""Plays for about the given seconds; returns (games, seconds)."""


@dataclass
class Row:
    name: str
    loop: Loop
    games: int = 0
    seconds: float = 0.0
    per_round: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0


def _timed(play_one: Callable[[int], int]) -> Loop:
    def loop(seconds: float) -> tuple[int, float]:
        games = i = 0
        start = time.perf_counter()
        deadline = start + seconds
        while True:
            games += play_one(i)
            i += 1
            if time.perf_counter() >= deadline:
                return games, time.perf_counter() - start

    return loop


def scalar_loop(game_id: str, options: dict[str, Any]) -> Loop:
    game = get_game(game_id)
    opts = game.options(options)

    def loop(seconds: float) -> tuple[int, float]:
        r = random_playouts(game, 4, opts, seconds)
        return r.games, r.seconds

    return loop


def batched_loop(game_id: str, size: int, options: dict[str, Any]) -> Loop:
    if game_id == "euchre":
        return _timed(lambda i: _play(BatchedEuchre(size, i, options)))
    return _timed(lambda i: _play(BatchedUpDown(size, i, 4, options)))


def _play(batch: BatchedEuchre | BatchedUpDown) -> int:
    batch.play("random")
    return batch.n


def pyspiel_loops() -> tuple[Loop, Loop] | None:
    """The plain Python loop and the C++ loop over OpenSpiel's Euchre; None without open_spiel."""
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    game = pyspiel.load_game("euchre", {"stick_the_dealer": True, "allow_lone_defender": False})
    rng = random.Random(0)
    choice = rng.choice

    def python_one(i: int) -> int:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(choice(state.legal_actions()))
        return 1

    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(4)]

    def cpp_one(i: int) -> int:
        for k in range(100):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, i * 100 + k)
        return 100

    return _timed(python_one), _timed(cpp_one)


def measure(rows: list[Row], seconds: float, rounds: int) -> None:
    for _ in range(rounds):
        for row in rows:
            games, secs = row.loop(seconds)
            row.games += games
            row.seconds += secs
            row.per_round.append(games / secs)


def table(title: str, rows: list[Row], reference: Row, unit: str) -> list[str]:
    # 80 columns at most: 2 + 34 + 11 + 7 + 7 + 3 + a range of up to 13 (100.00-200.00).
    lines = [title, f"  {'loop':<34} {unit + '/s':>10} {'ratio':>6} {'median':>6}  {'range':<13}"]
    for row in rows:
        if row is reference:
            lines.append(f"  {row.name:<34} {row.rate:>10,.0f} {1:>6.2f} {'':>6}  reference")
            continue
        ratios = sorted(a / b for a, b in zip(row.per_round, reference.per_round))
        median = ratios[len(ratios) // 2] if len(ratios) % 2 else sum(ratios[len(ratios) // 2 - 1:][:2]) / 2
        lines.append(f"  {row.name:<34} {row.rate:>10,.0f} {row.rate / reference.rate:>6.2f} {median:>6.2f}  "
                     f"{ratios[0]:.2f}-{ratios[-1]:.2f}")
    return lines


def run(seconds: float = 0.3, rounds: int = 10, print_line: Callable[[str], None] = print) -> None:
    """Measure and print both tables."""
    euchre_opts = {"deals": 1}
    rows = [Row("updown scalar (protocol)", scalar_loop("euchre", euchre_opts))]
    peers = pyspiel_loops()
    cpp: Row | None = None
    if peers is not None:
        python_loop, cpp_loop = peers
        rows.append(Row("pyspiel Python loop", python_loop))
        cpp = Row("OpenSpiel C++ loop (evaluate_bots)", cpp_loop)
        rows.append(cpp)
    for size in BATCH_SIZES:
        rows.append(Row(f"updown batched, batch {size:,}", batched_loop("euchre", size, euchre_opts)))
    updown_opts = {"rounds": 1}
    ud_rows = [Row("updown scalar (protocol)", scalar_loop("updown", updown_opts))]
    for size in BATCH_SIZES:
        ud_rows.append(Row(f"updown batched, batch {size:,}", batched_loop("updown", size, updown_opts)))
    print_line(f"Interleaved: {rounds} rounds of {seconds:g} s per loop; uniformly random play.")
    measure(rows + ud_rows, seconds, rounds)
    if cpp is None:
        print_line("open_spiel is not installed (pip install open_spiel==2.0.2): ratios against our scalar engine")
    reference = cpp if cpp is not None else rows[0]
    for line in table("Euchre, one deal (ratios against " + reference.name + ")", rows, reference, "deals"):
        print_line(line)
    if cpp is not None:
        python_row = rows[1]
        print_line(f"  updown scalar / pyspiel Python loop: {rows[0].rate / python_row.rate:.2f}")
    for line in table("UP&DOWN, 4 players, one round (ratios against our scalar engine)", ud_rows, ud_rows[0],
                      "games"):
        print_line(line)
