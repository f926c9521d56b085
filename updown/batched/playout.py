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
from collections.abc import Callable, Sequence

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


def deal_values(
    worlds: Sequence[State], seat: int, actions: Sequence[int], policy: str = "greedy", *,
    rng: np.random.Generator, rechoose: bool = False,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """What each of ``seat``'s ``actions`` is worth over ``worlds``, played on to the end of the
    deal by ``policy`` in one batch: ``(means, standard errors)``, one per action.

    Every world is continued once per action (``len(worlds) * len(actions)`` games). Seats that
    must still make a simultaneous choice before ``seat`` (UP&DOWN's secret card, which the batch
    takes in seat order) make it by ``policy`` first, without seeing ``seat``'s; then ``seat``
    plays the action, and ``policy`` plays every seat until the next deal begins or the game ends.
    A game's value is ``seat``'s points gained over that stretch, less the mean of the other seats'
    gains, counted the way the game's scores run (``search.deal_rewards``). The worlds must be at a
    decision of ``seat`` (one where it is among the ``actors``), as worlds drawn from its view are.

    With ``rechoose`` (UP&DOWN), the other seats' secret choices already made in this trick (which
    a world drawn from ``seat``'s view holds at random) are taken back and made again by
    ``policy`` from the world's hands, before ``seat`` plays.
    """
    margins = deal_margins(worlds, seat, actions, lambda batch: batch.policy(policy), rng=rng, rechoose=rechoose)
    return summarise(margins)


def deal_margins(
    worlds: Sequence[State], seat: int, actions: Sequence[int],
    chooser: Callable[[BatchedGame], Callable[[], npt.NDArray[np.int64]]], *,
    rng: np.random.Generator, rechoose: bool = False,
) -> npt.NDArray[np.float64]:
    """The playouts of :func:`deal_values`, each seat's choices made by ``chooser(batch)`` (a
    function giving every game's action, as ``batch.policy(name)`` does): ``(len(worlds),
    len(actions))``, ``seat``'s margin over the deal in each world after each action. Game
    ``i * len(actions) + r`` of the batch is world ``i`` after action ``r``."""
    if not actions:
        raise ValueError("deal_values needs at least one action")
    for world in worlds:
        if world.is_chance() or world.is_terminal() or seat not in world.actors():
            raise ValueError(f"the worlds are not all at a decision of seat {seat}")
    k = len(actions)
    batch = batch_from_states(worlds, rng=rng, repeats=k)
    if rechoose:
        retract = getattr(batch, "retract", None)
        if retract is None:
            raise ValueError(f"rechoose is for games with secret choices: {type(batch).__name__} has none")
        retract(seat)
    choose = chooser(batch)
    for _ in range(batch.players):
        waiting = batch.to_act != seat
        if not waiting.any():
            break
        a = choose()
        a[~waiting] = -1
        batch.step(a)
    if (batch.to_act != seat).any():
        raise ValueError(f"the worlds are not all at a decision of seat {seat}")
    deal = batch.deals()
    start = batch.scores()
    batch.step(np.tile(np.asarray(actions, dtype=np.int64), len(worlds)))
    while True:
        live = (batch.deals() == deal) & ~batch.done
        if not live.any():
            break
        a = choose()
        a[~live] = -1
        batch.step(a)
    progress = worlds[0].progress()
    sign = -1.0 if progress is not None and not progress.higher_wins else 1.0
    gain = sign * (batch.scores() - start).astype(np.float64)
    n = batch.players
    margin = gain[:, seat] - (gain.sum(axis=1) - gain[:, seat]) / (n - 1)
    out: npt.NDArray[np.float64] = margin.reshape(len(worlds), k)
    return out


def summarise(
    per_world: npt.NDArray[np.float64], against: int | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each action's mean over the worlds (the rows) and its standard error; with ``against`` (a
    column), the errors are those of each action's mean less that action's, world by world (0 for
    that action itself), since every action is played in the same worlds."""
    means: npt.NDArray[np.float64] = per_world.mean(axis=0)
    spread = per_world if against is None else per_world - per_world[:, [against]]
    if len(per_world) > 1:
        errors: npt.NDArray[np.float64] = spread.std(axis=0, ddof=1) / np.sqrt(len(per_world))
    else:
        errors = np.full(per_world.shape[1], np.inf)
    return means, errors
