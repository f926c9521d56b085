"""``pimc``: flat Monte Carlo over worlds drawn from the seat's view.

Perfect-information Monte Carlo, the simplest determinized search: the bot reads its view once
(``game.world_sampler(view)``), draws ``worlds`` full states the seat cannot tell from the real
one, and continues every world once per legal action: the action is played, then a simple policy
plays every seat, each from its own view of that world, to the end of the deal. It plays the
action with the best mean margin (its points gained over the deal less the other seats' mean).
There is no tree: what the playouts do after the action stands for everyone's later play, so
this bot is as good as the policy is a model of the table.

Two ways to play the worlds on, with the same meaning:

* Games with a batched engine (:data:`updown.batched.playout.ENGINES`: Euchre and UP&DOWN): all
  worlds and actions in one numpy batch (:func:`updown.batched.playout.deal_values`), with the
  engine's ``greedy`` rule.
* Every other game: one world at a time through the protocol (:func:`scalar_deal_values`), with
  the game's own ``greedy`` bot (``random`` where it has none) in every seat, each reading its
  own view of the world. Each world is continued once per action with the same chance seed, so
  the actions are compared on the same luck. A game without deals (Up or Down?) plays to its end.

``worlds`` bounds the work, so a fixed seed gives the same decisions on any machine;
``milliseconds`` (off by default) also bounds the time, for the levels that promise one: no world
(or batch of worlds) is started that would end past it at the pace of those so far. The decision
is then the machine's business, not the seed's alone.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from updown.batched.playout import ENGINES, deal_values
from updown.bots.base import Bot
from updown.bots.search import deal_rewards, rewards
from updown.core.protocol import Game, State, View, WorldSampler


def scalar_deal_values(
    worlds: Iterable[State], seat: int, legal: Sequence[int], policies: Sequence[Bot], rng: random.Random,
    deadline: float | None = None, min_worlds: int = 1, depth: int | None = None, valued: bool = False,
    against: int | None = None, race: Callable[[Sequence[float]], Sequence[float]] | None = None,
    own_best: bool = False,
) -> tuple[list[float], list[float], int]:
    """Each legal action's mean margin over the deal in ``worlds``, its standard error, and how many
    worlds were used (fewer than given if ``deadline``, a ``time.perf_counter()`` value, would pass
    during the next world at the pace of those so far, once ``min_worlds`` were used).

    ``seat`` must be at a decision in every world. Every world is cloned once per action; the
    action is applied, and ``policies[k]`` plays seat ``k`` from ``world.view(k)`` (the seats of a
    simultaneous step choose before any of them is applied) until the deal ends, that is at the
    first chance step after :class:`~updown.core.protocol.Progress` counts one more finished deal,
    or the game ends. Chance uses one seed per world, the same for every action.

    With ``depth``, a playout also stops after that many decisions (the tried one not counted),
    and the margin is read from the policies' own valuations instead of the points (as it is
    with ``valued``): every policy must then have ``evaluate(view) -> float``, what its seat's
    position is worth judged from its view (Up or Down?: a score so far plus what its columns
    promise; the Sueca Up&Down: its chance to win the match). Each seat's gain is its valuation at
    the stop less at the start, and the margin is the seat's gain less the others' mean gain.

    With ``race`` (a function from the seats' scores to each seat's chance to win the game), a
    playout is scored by the change in those chances over the deal: at its end they are the
    chances of the scores then, or, if the game ended, 1 shared by the winners. The margin is the
    seat's gain less the others' mean gain, as with the points. A point then counts for more where
    the race is close to being decided, for the seat and for whoever is about to win.

    With ``own_best``, the seat's own later choices in a playout are not the policy's but the
    best ones for the margin in that world: every sequence of them is tried (the other seats
    still play by their policies, and chance by the world's seed, drawn anew in each branch from
    the same state of the generator). It costs as many playouts as the seat has sequences of
    choices left, so it is for the end of a deal; it is scored by the points (not with ``depth``,
    ``valued`` or ``race``). Knowing the world, the seat plays as if it would know it later too.

    With ``against`` (an index into ``legal``), the standard errors are those of each action's
    mean less that action's, world by world (0 for that action itself): the noise of a
    comparison in the same worlds, smaller than either mean's own.
    """
    valued = valued or depth is not None
    if own_best and (valued or race is not None):
        raise ValueError("own_best scores playouts by the points: not with depth, valued or race")
    if valued:
        missing = sorted({type(p).__name__ for p in policies if not callable(getattr(p, "evaluate", None))})
        if missing:
            raise ValueError(f"a depth limit needs policies that value a view: {', '.join(missing)} has no evaluate")
    sums = [0.0] * len(legal)
    squares = [0.0] * len(legal)
    margins = [0.0] * len(legal)
    used = 0
    began = time.perf_counter()
    source = iter(worlds)
    while True:
        if deadline is not None and used >= min_worlds:
            # Only a world that should end in time, at the pace of the worlds so far (drawing
            # included): the budget is a promise to the player, not a point to start overrunning it.
            now = time.perf_counter()
            if now + (now - began) / max(used, 1) > deadline:
                break
        world = next(source, None)
        if world is None:
            break
        if world.is_terminal() or world.is_chance() or seat not in world.actors():
            raise ValueError(f"seat {seat} does not decide in every world")
        start = world.progress()
        seed = rng.getrandbits(64)
        before = _valuations(world, policies) if valued else None
        odds = race(start.scores) if race is not None and start is not None else None
        for k in range(world.players):  # filtered once here, the clones start from it
            world.visible_log(k)
        for j, action in enumerate(legal):
            w = world.clone()
            others = [(k, policies[k].act(w.view(k), w.legal_actions(k))) for k in w.actors() if k != seat]
            w.apply(action, seat)
            for k, a in others:
                w.apply(a, k)
            if own_best:
                margins[j] = _best_margin(w, seat, policies, random.Random(seed),
                                          start.deals if start is not None else None, start)
                continue
            _play_deal(w, policies, random.Random(seed), start.deals if start is not None else None, depth)
            end = w.progress()
            if before is not None:
                gains = [b - a for a, b in zip(before, _valuations(w, policies))]
                margin = gains[seat] - (sum(gains) - gains[seat]) / max(len(gains) - 1, 1)
            elif odds is not None and race is not None and end is not None:
                gains = [b - a for a, b in zip(odds, _race_end(w, end, race))]
                margin = gains[seat] - (sum(gains) - gains[seat]) / max(len(gains) - 1, 1)
            elif start is None or end is None:  # a game without progress: its reward at the end
                margin = rewards(w.result())[seat]
            else:
                margin = deal_rewards(start, end)[seat]
            margins[j] = margin
        for j, margin in enumerate(margins):
            x = margin if against is None else margin - margins[against]
            sums[j] += margin
            squares[j] += x * x
        used += 1
    if used == 0:
        raise ValueError("no worlds to play on")
    means = [t / used for t in sums]
    centres = means if against is None else [m - means[against] for m in means]
    errors = [math.sqrt(max(q / used - m * m, 0.0) / max(used - 1, 1)) for q, m in zip(squares, centres)]
    return means, errors, used


def _chunk_that_fits(costs: Sequence[tuple[int, float]], left: float) -> int:
    """How many worlds the next batch can take in ``left`` seconds (0: none worth its cost).

    A batch's cost is not proportional to its worlds: it has a fixed part (numpy's work per step),
    and in some games a larger batch costs more per world (it runs as long as its longest deal).
    So a batch as large as the last or larger must fit both at the last batch's pace per world and
    on the line through the last two batches of different sizes, and it grows at most twofold.
    A smaller batch is mostly fixed cost (a batch of 2 worlds can cost as much as one of 10, and
    a line through two noisy batches can put its fixed part near 0), so it is priced as a whole
    batch: the cheapest batch so far (more than the fixed part) plus the last pace per world. It is
    not smaller than a fifth of the first."""
    n1, t1 = costs[-1]
    n = min(2 * n1, int(left * n1 / t1)) if t1 > 0 else 2 * n1
    other = next(((k, t) for k, t in reversed(costs) if k != n1), None)
    if other is not None:
        n0, t0 = other
        each = (t1 - t0) / (n1 - n0)
        if each > 0:
            n = min(n, int((left - (t1 - each * n1)) / each))
    if n < n1 and t1 > 0:
        n = int((left - min(t for _, t in costs)) * n1 / t1)
    return n if n >= max(costs[0][0] // 5, 1) else 0


def _race_end(world: State, end: Any, race: Callable[[Sequence[float]], Sequence[float]]) -> Sequence[float]:
    """Each seat's chance to win after a playout: by the race model, or 1 shared by the winners."""
    if not world.is_terminal():
        return race(end.scores)
    placings = world.result().placings
    first = sum(1 for p in placings if p == 1)
    return [1.0 / first if p == 1 else 0.0 for p in placings]


def _best_margin(world: State, seat: int, policies: Sequence[Bot], rng: random.Random, deals: int | None,
                 start: Any) -> float:
    """The seat's best margin over the rest of the deal in this world: the others play by their
    policies, the seat tries each of its choices (the generator's state copied into each branch)."""
    while not world.is_terminal():
        if world.is_chance():
            progress = world.progress()
            if deals is not None and progress is not None and progress.deals > deals:
                break
            world.apply(world.sample_chance(rng))
            continue
        actors = world.actors()
        if seat in actors and len(actors) == 1:
            legal = world.legal_actions(seat)
            if len(legal) > 1:
                best = -math.inf
                state = rng.getstate()
                for action in legal:
                    branch = world.clone()
                    branch.apply(action, seat)
                    fork = random.Random()
                    fork.setstate(state)
                    best = max(best, _best_margin(branch, seat, policies, fork, deals, start))
                return best
            world.apply(legal[0], seat)
            continue
        picks = []
        for k in actors:
            options = world.legal_actions(k)
            picks.append((k, policies[k].act(world.view(k), options) if len(options) > 1 else options[0]))
        for k, a in picks:
            world.apply(a, k)
    end = world.progress()
    if start is None or end is None:
        return rewards(world.result())[seat]
    return deal_rewards(start, end)[seat]


def _valuations(world: State, policies: Sequence[Bot]) -> list[float]:
    return [float(p.evaluate(world.view(k))) for k, p in enumerate(policies)]  # type: ignore[attr-defined]


def _play_deal(
    world: State, policies: Sequence[Bot], rng: random.Random, deals: int | None, depth: int | None = None,
) -> None:
    decisions = 0
    while not world.is_terminal():
        if world.is_chance():
            if deals is not None:
                progress = world.progress()
                if progress is not None and progress.deals > deals:
                    return
            world.apply(world.sample_chance(rng))
            continue
        if depth is not None:
            if decisions >= depth:
                return
            decisions += 1
        actors = world.actors()
        if len(actors) == 1:
            k = actors[0]
            legal = world.legal_actions(k)
            world.apply(legal[0] if len(legal) == 1 else policies[k].act(world.view(k), legal), k)
        else:
            picks = [(k, policies[k].act(world.view(k), world.legal_actions(k))) for k in actors]
            for k, a in picks:
                world.apply(a, k)


class PimcBot(Bot):
    """Flat Monte Carlo: every legal action tried in the same drawn worlds, played on by a policy."""

    name = "pimc"
    description = ("flat Monte Carlo from its own view: 200 drawn worlds per decision, each action played "
                   "on to the end of the deal by the greedy rule in every seat")
    worlds: int = 200
    policy: str = "greedy"
    """The playout policy: ``greedy`` or ``random`` (batched engines); scalar playouts use the game's
    ``greedy`` bot when it has one, whatever this says, unless it says ``random``."""
    milliseconds: float | None = None
    """A time budget per decision: no world is started that would end past it (but at least
    ``min_worlds`` are always used, so keep them few enough to fit)."""
    min_worlds: int = 16
    depth: int | None = None
    """Scalar playouts only: stop after this many decisions and compare the policies' valuations
    (see :func:`scalar_deal_values`); for a game whose deal is long or which has no deals."""
    valued: bool = False
    """Scalar playouts only: score each playout's end by the policies' valuations, not the points."""
    race: bool = False
    """Scalar playouts only: score each playout by the change in the seat's chance to win the game,
    read from the scores by its policy's race model (``chances(scores)``), not by the points."""
    infer: bool = False
    """Scalar playouts only: draw worlds in proportion to how likely the policies make the other
    seats' choices so far (their ``likelihood(view)``, read from each seat's view of the world),
    by rejection: a drawn world is kept with that chance, at most :attr:`tries` draws a world."""
    tries: int = 30
    anchor: float | None = None
    """Scalar playouts only: keep the policy's own choice for this seat unless another action's
    mean beats it by more than this many standard errors of the difference (paired, in the same
    worlds). Picking the best of noisy means favours the noisiest action; this keeps the bot from
    leaving a sound rule on noise."""
    widest: int | None = None
    """Scalar playouts only: search only this many of the legal actions, the policy's favourites
    (its ``ranked(view, legal)``), so that a decision with many options gets as many worlds for
    the ones that matter as one with few."""
    own_best: bool = False
    """Scalar playouts only: the seat's own later choices in a playout are the best ones in that
    world, all tried (see :func:`scalar_deal_values`), where :meth:`own_best_for` says so."""
    rechoose: bool = False
    """Batched playouts (UP&DOWN): the other seats' secret choices already made in this trick are
    made again in each world by the playout policy from that world's hands, instead of being drawn
    at random with the hidden cards (``deal_values(..., rechoose=True)``)."""
    narrow: int | None = None
    """Batched playouts: after the first batch (``min_worlds``), only this many actions, the best
    by their means so far, get further worlds; the others keep the first batch's means. A budget
    then buys several times the worlds for the actions that can still be the choice."""
    chunk: int = 25
    """Batched playouts under a time budget: the first batch's worlds. It measures the pace; the
    next batches take as many worlds as the time left allows."""
    batch_games: int | None = None
    """Batched playouts under a time budget: at most this many games (worlds times actions) in one
    batch. A large batch can cost far more per game than the batches before it measured (memory),
    so the last one of a decision can end well past the budget; smaller batches keep to it."""

    def __init__(self, game: Game[Any], seat: int, rng: random.Random):
        super().__init__(game, seat, rng)
        self._np_rng = np.random.default_rng(rng.getrandbits(64))
        self._policy_seed = rng.getrandbits(64)
        self._policies: list[Bot] | None = None
        self.used = 0
        """Worlds used by the last decision."""
        self._pinned: int | None = None
        """An action that ``narrow`` keeps searched whatever its mean (a level's anchor)."""

    def _scalar_policies(self, players: int) -> list[Bot]:
        if self._policies is None:
            from updown.bots import bot_names, make_bot

            name = "greedy" if self.policy != "random" and "greedy" in bot_names(self.game.id) else "random"
            seeds = random.Random(self._policy_seed)
            self._policies = [make_bot(name, self.game, k, random.Random(seeds.getrandbits(64)))
                              for k in range(players)]
        return self._policies

    def estimates(self, view: View, legal: Sequence[int], against: int | None = None,
                  ) -> tuple[list[float], list[float]]:
        """Each legal action's mean margin over the deal and its standard error (scalar playouts
        with ``against``, an index into ``legal``: the error of its difference from that action)."""
        deadline = None if self.milliseconds is None else time.perf_counter() + self.milliseconds / 1000
        sampler = self.sampler(view)
        if self.game.id not in ENGINES:
            policies = self._scalar_policies(view["players"])
            draw = sampler.draw
            if self.infer and all(callable(getattr(p, "likelihood", None)) for p in policies):
                draw = lambda rng: self._inferred(sampler, policies, rng)  # noqa: E731
            # Worlds are drawn as they are played on, so a time budget saves the drawing too.
            worlds = (draw(self.rng) for _ in range(self.worlds))
            race = getattr(policies[self.seat], "chances", None) if self.race else None
            if self.race and not callable(race):
                raise ValueError(f"race scoring needs a policy with a race model: "
                                 f"{type(policies[self.seat]).__name__} has no chances")
            means, errors, self.used = scalar_deal_values(
                worlds, self.seat, legal, policies, self.rng,
                deadline=deadline, min_worlds=self.min_worlds, depth=self.depth,
                valued=self.valued, against=against, race=race, own_best=self.own_best_for(view))
            return means, errors
        if deadline is None and self.narrow is None:
            m, e = self.batch_values(sampler, self.worlds, legal)
            self.used = self.worlds
            return [float(x) for x in m], [float(x) for x in e]
        # Under a time budget: batches of worlds, until the worlds or the time run out. A batch
        # costs a fixed part (numpy's work per step) and a part per game (a world once per action
        # searched), so the first batch measures the pace and the time left goes to as few, large
        # batches as fit. With ``narrow``, the batches after the first play only the actions best
        # so far, so more worlds go to the ones that can still be the choice.
        total = np.zeros(len(legal))
        var = np.zeros(len(legal))
        count = np.zeros(len(legal))
        active = list(range(len(legal)))
        self.used = 0
        costs: list[tuple[int, float]] = []  # (games, seconds) of each batch
        while self.used < self.worlds:
            n = min(self.chunk, self.worlds - self.used)
            if self.used >= self.min_worlds:
                if self.narrow is not None and len(active) > self.narrow:
                    so_far = total / np.maximum(count, 1)
                    active = sorted(active, key=lambda i: -so_far[i])[:self.narrow]
                    pinned = legal.index(self._pinned) if self._pinned in legal else None
                    if pinned is not None and pinned not in active:
                        active[-1] = pinned
                if deadline is None:
                    n = self.worlds - self.used
                else:
                    games = _chunk_that_fits(costs, 0.9 * (deadline - time.perf_counter()))
                    n = min(self.worlds - self.used, games // len(active))
                    if self.batch_games is not None:
                        n = min(n, max(1, self.batch_games // len(active)))
                    if n < 1:
                        break
            began = time.perf_counter()
            m, e = self.batch_values(sampler, n, [legal[i] for i in active])
            costs.append((n * len(active), time.perf_counter() - began))
            for j, i in enumerate(active):
                total[i] += n * float(m[j])
                var[i] += (n * float(e[j])) ** 2
                count[i] += n
            self.used += n
        return ([float(x) for x in total / count], [float(x) for x in np.sqrt(var) / count])

    def batch_values(self, sampler: WorldSampler, n: int, legal: Sequence[int]) -> tuple[Any, Any]:
        """Batched playouts: ``n`` worlds drawn from ``sampler``, each action's mean margin and its
        standard error (:func:`updown.batched.playout.deal_values`). A level with a model of the
        table may play them on otherwise."""
        drawn = [sampler.draw(self.rng) for _ in range(n)]
        return deal_values(drawn, self.seat, legal, self.policy, rng=self._np_rng, rechoose=self.rechoose)

    def sampler(self, view: View) -> WorldSampler:
        """Where the worlds come from: the game's, uniform over those the view allows. A game's
        level may draw them by a model of how the others play (the Sueca levels do)."""
        return self.game.world_sampler(view)

    def _inferred(self, sampler: WorldSampler, policies: Sequence[Bot], rng: random.Random) -> State:
        """A world drawn with the chance the policies give the other seats' choices so far: each
        draw is kept with its likelihood; after :attr:`tries` draws, the likeliest one."""
        best, best_weight = None, -1.0
        for _ in range(self.tries):
            world = sampler.draw(rng)
            weight = 1.0
            for k, policy in enumerate(policies):
                if k != self.seat:
                    weight *= policy.likelihood(world.view(k))  # type: ignore[attr-defined]
            if rng.random() < weight:
                return world
            if weight > best_weight:
                best, best_weight = world, weight
        assert best is not None
        return best

    def anchor_for(self, view: View) -> float | None:
        """The :attr:`anchor` for this decision (a level may anchor some kinds of decision only)."""
        return self.anchor

    def own_best_for(self, view: View) -> bool:
        """Whether this decision's playouts try all the seat's own later choices (:attr:`own_best`;
        a level may do it only where few choices are left)."""
        return self.own_best

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if self.widest is not None and len(legal) > self.widest and self.game.id not in ENGINES:
            rule = self._scalar_policies(view["players"])[self.seat]
            ranked = getattr(rule, "ranked", None)
            if callable(ranked):
                legal = list(ranked(view, legal))[:self.widest]
        anchor = self.anchor_for(view)
        if anchor is not None and self.game.id not in ENGINES:
            own = legal.index(self._scalar_policies(view["players"])[self.seat].act(view, legal))
            means, errors = self.estimates(view, legal, against=own)
            best = max(range(len(legal)), key=means.__getitem__)
            if means[best] - means[own] > anchor * errors[best]:
                return legal[best]
            return legal[own]
        means, _ = self.estimates(view, legal)
        return legal[max(range(len(legal)), key=means.__getitem__)]


GENERIC_BOTS: dict[str, type[Bot]] = {"pimc": PimcBot}
"""A bot for every game (registered as generic in :mod:`updown.bots`)."""
