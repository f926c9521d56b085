"""Playouts of many scalar states in one batch, for search bots.

A search bot at a decision builds worlds (full states consistent with its view, e.g. by
``resample``), applies a candidate action in each, and wants each world's value under a fast
default policy. :func:`playout` continues them all together in a batched engine::

    worlds = [state.resample(seat, rng) for _ in range(200)]
    for w in worlds:
        w.apply(action, seat)
    scores = playout(worlds, "random", seed=1)      # (200, players): final scores
    value = scores[:, seat].mean()

A state is read through the protocol only (each seat's view and the spectator's), so hand a
playout the worlds, never the real state: a playout sees every hand. States at a chance node are
first moved on with their own ``sample_chance`` (on a clone) until a seat must act.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from updown.batched.base import BatchedGame
from updown.batched.euchre import BatchedEuchre
from updown.batched.updown import BatchedUpDown
from updown.core.protocol import State

ENGINES: dict[str, type[BatchedEuchre] | type[BatchedUpDown]] = {"euchre": BatchedEuchre, "updown": BatchedUpDown}
"""The games with a batched engine, by game id."""


def batch_from_states(
    states: Sequence[State], seed: int | None = None, *, rng: np.random.Generator | None = None,
    repeats: int = 1, record: bool = False,
) -> BatchedGame:
    """A batch continuing ``states`` (all one game, player count and options), each ``repeats``
    times in a row (game ``i * repeats + r``); chance nodes are resolved per copy."""
    if not states:
        raise ValueError("playouts need at least one state")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, not {repeats!r}")
    game_id = states[0].game.id
    engine = ENGINES.get(game_id)
    if engine is None:
        raise ValueError(f"no batched engine for {game_id} (batched games: {', '.join(ENGINES)})")
    gen = rng if rng is not None else np.random.default_rng(seed)
    chance_rng = random.Random(int(gen.integers(1 << 62)))
    ready: list[State] = []
    for st in states:
        for _ in range(repeats):
            if st.is_chance():
                world = st.clone()
                while world.is_chance():
                    world.apply(world.sample_chance(chance_rng))
                ready.append(world)
            else:
                ready.append(st)
    # Read each distinct state once, then copy it to its repeats.
    first: dict[int, int] = {}
    unique: list[State] = []
    order = []
    for st in ready:
        k = first.setdefault(id(st), len(unique))
        if k == len(unique):
            unique.append(st)
        order.append(k)
    batch = engine.from_states(unique, rng=gen, record=record)
    if len(unique) == len(ready):
        return batch
    return batch.take(order)


def playout(
    states: Sequence[State], policy: str = "random", seed: int | None = None, *,
    rng: np.random.Generator | None = None, repeats: int = 1,
) -> npt.NDArray[np.float64]:
    """Play each state to its end ``repeats`` times with ``policy`` (``"random"`` or
    ``"greedy"``), all in one batch; returns ``(len(states), players)``: the mean final score of
    each seat (``Result.scores``: Euchre team points, UP&DOWN total tricks)."""
    batch = batch_from_states(states, seed, rng=rng, repeats=repeats)
    batch.play(policy)
    scores = batch.scores().astype(np.float64)
    means: npt.NDArray[np.float64] = scores.reshape(len(states), repeats, -1).mean(axis=1)
    return means
