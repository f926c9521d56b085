"""Determinized search from a seat's view alone: information-set MCTS for every game.

The bot never touches the real state. It reads its own view once
(``game.world_sampler(view)``) and, at every iteration, draws a fresh world (a full state the
seat cannot tell from the real one) and plays it through the public protocol only
(``is_terminal``, ``is_chance``, ``sample_chance``, ``actors``, ``legal_actions``, ``apply``,
``result``). Nothing here knows which game it plays.

**The search** is single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012), run
open-loop: a node is a sequence of decisions from the root (chance outcomes are drawn afresh in
every iteration and are not part of the key), and every node keeps statistics per
``(seat, action)``, so whoever acts at a node in a given world chooses by its own statistics. At
each node the acting seat picks, among the actions legal *in this iteration's world*, the one
maximising UCB1 with availability counts (``mean + c * sqrt(ln(available) / visits)``; an action
never tried is tried first). One new node is added per iteration, then a playout with uniformly
random legal actions runs to the end of the game (``hard``: the first step of the playout, every
seat that acts there, is played by the game's ``greedy`` bot from its own view of the world, a
better model of the immediate replies than random cards, at the cost of fewer simulations).

**Simultaneous choices** (UP&DOWN's secret card, where ``actors()`` lists several seats at once)
use decoupled UCT: every seat that must choose picks its own action by its own statistics at the
node, all picks are made before any is applied, and each seat's statistics are updated with its
own reward. No seat's choice is made knowing another's.

**Utility.** A playout ends at the end of the game (the whole match: there is no generic way to
score an unfinished game through the protocol, so Sueca and Euchre matches are played out whole,
which is what limits the iterations there). A seat's reward in ``[0, 1]`` is
``(3 * standing + margin) / 4``: ``standing`` is the share of the other seats it finished ahead of
(a tie counts a half; so partners who win together both score 2.5/3 in Euchre), and ``margin`` is
its score minus the others' mean, divided by the spread of the scores, mapped to ``[0, 1]``
(whether higher or lower scores win is read from the placings). The standing counts most, as a
match is won by placing; the margin separates a near-certain win from a close one, which random
playouts of long matches need to see the worth of a single trick.

**Budgets.** ``simulations`` (iterations) and ``milliseconds`` (wall clock per decision): the
search stops at whichever comes first. A budget in simulations alone is reproducible: the same
seed gives the same decisions. The final choice is the root action with the most visits (ties:
higher mean).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from updown.bots.base import Bot
from updown.core.protocol import Game, Progress, Result, State, View

EXPLORATION = 0.7


def rewards(result: Result) -> list[float]:
    """Each seat's reward in ``[0, 1]`` for a finished game (see the module docstring)."""
    placings = result.placings
    scores = result.scores
    n = len(placings)
    if n < 2:
        return [1.0] * n
    out = []
    lo, hi = min(scores), max(scores)
    spread = hi - lo
    # Which way the scores run: the best placed seat holds the highest or the lowest score.
    best = min(range(n), key=lambda s: placings[s])
    sign = 1.0 if scores[best] == hi else -1.0
    total = sum(scores)
    for s in range(n):
        mine = placings[s]
        standing = sum(1.0 if mine < p else 0.5 if mine == p else 0.0 for p in placings) - 0.5
        standing /= n - 1
        if spread > 0:
            diff = sign * (scores[s] - (total - scores[s]) / (n - 1)) / spread
            margin = (diff + 1.0) / 2.0
        else:
            margin = 0.5
        out.append((3.0 * standing + margin) / 4.0)
    return out


@dataclass
class Node:
    """Statistics of one decision point: per (seat, action) visits, reward sum, availability."""

    visits: dict[tuple[int, int], int] = field(default_factory=dict)
    total: dict[tuple[int, int], float] = field(default_factory=dict)
    avail: dict[tuple[int, int], int] = field(default_factory=dict)
    children: dict[tuple[int, ...], Node] = field(default_factory=dict)

    def select(self, seat: int, legal: Sequence[int], c: float, rng: random.Random,
               lo: float = 0.0, scale: float = 1.0) -> int:
        """UCB1 with availability counts; means are read as ``(mean - lo) / scale``."""
        visits, total, avail = self.visits, self.total, self.avail
        untried = []
        for a in legal:
            key = (seat, a)
            avail[key] = avail.get(key, 0) + 1
            if key not in visits:
                untried.append(a)
        if untried:
            return untried[0] if len(untried) == 1 else rng.choice(untried)
        best = legal[0]
        best_value = -1.0
        for a in legal:
            key = (seat, a)
            v = visits[key]
            value = (total[key] / v - lo) / scale + c * math.sqrt(math.log(avail[key]) / v)
            if value > best_value:
                best, best_value = a, value
        return best

    def update(self, seat: int, action: int, reward: float) -> None:
        key = (seat, action)
        self.visits[key] = self.visits.get(key, 0) + 1
        self.total[key] = self.total.get(key, 0.0) + reward


@dataclass(frozen=True)
class Estimate:
    """What the search found for one root action: mean reward, visits and the reward's spread."""

    action: int
    value: float
    visits: int
    stderr: float


class SearchStats:
    """Root statistics for the coach: second moments of each root action's rewards."""

    def __init__(self) -> None:
        self.sq: dict[int, float] = {}

    def add(self, action: int, reward: float) -> None:
        self.sq[action] = self.sq.get(action, 0.0) + reward * reward


def playout(
    world: State, rng: random.Random, guides: Sequence[Bot] = (), plies: int = 0, deadline: float | None = None,
    deals: int | None = None, depth: int | None = None,
) -> bool:
    """Uniformly random legal actions (and chance) to the end of the game; False if it gave up.

    With ``deals`` (a count of finished deals, :class:`Progress`), the playout stops at the end
    of that deal instead: at the first chance step once more deals than that are finished.

    Past ``deadline`` (a ``time.perf_counter()`` value) the playout gives up unfinished, so that
    one long playout (a random Sueca match can run for thousands of steps) cannot overrun the
    decision's time budget.

    With ``guides`` (one bot per seat), the first ``plies`` decisions are the guides' choices,
    each from its own seat's view of the world. With ``depth``, the playout stops after that many
    decisions (guided ones included).
    """
    choice = rng.choice
    uniform = rng.random
    while plies > 0 and not world.is_terminal() and (depth is None or depth > 0):
        if world.is_chance():
            if deals is not None and _deal_over(world, deals):
                return True
            world.apply(world.sample_chance(rng))
            continue
        actors = world.actors()
        picks = []
        for seat in actors:
            legal = world.legal_actions(seat)
            picks.append((seat, legal[0] if len(legal) == 1 else guides[seat].act(world.view(seat), legal)))
        for seat, action in picks:
            world.apply(action, seat)
        plies -= 1
        if depth is not None:
            depth -= 1
    steps = 0
    while not world.is_terminal():
        steps += 1
        if deadline is not None and steps % 64 == 0 and time.perf_counter() >= deadline:
            return False
        if world.is_chance():
            if deals is not None and _deal_over(world, deals):
                return True
            world.apply(world.sample_chance(rng))
            continue
        if depth is not None:
            if depth <= 0:
                return True
            depth -= 1
        actors = world.actors()
        if len(actors) == 1:
            seat = actors[0]
            legal = world.legal_actions(seat)
            # random() scaled: a third of ``rng.choice``'s cost, uniform to within 2**-53.
            world.apply(legal[int(uniform() * len(legal))], seat)
        else:
            picks = [(seat, choice(world.legal_actions(seat))) for seat in actors]
            for seat, action in picks:
                world.apply(action, seat)
    return True


def _deal_over(world: State, deals: int) -> bool:
    progress = world.progress()
    return progress is not None and progress.deals > deals


def deal_rewards(start: Progress, end: Progress) -> list[float]:
    """Each seat's points gained since ``start``, less the mean of the other seats' gains.

    Points count the way the game's scores run (counting down, a point lost is a point gained).
    Partners gain together, so in Euchre a seat's margin is two thirds of its team's lead.
    """
    sign = 1.0 if end.higher_wins else -1.0
    gains = [sign * (b - a) for a, b in zip(start.scores, end.scores)]
    n = len(gains)
    if n < 2:
        return gains
    total = sum(gains)
    return [g - (total - g) / (n - 1) for g in gains]


def search(
    game: Game[Any],
    view: View,
    legal: Sequence[int],
    seat: int,
    rng: random.Random,
    *,
    simulations: int | None = 1000,
    milliseconds: float | None = None,
    exploration: float = EXPLORATION,
    uniform_root: bool = False,
    guide: str | None = None,
    guide_plies: int = 0,
    horizon: bool = False,
    depth: int | None = None,
    reuse: int = 1,
) -> list[Estimate]:
    """Run ISMCTS from ``view`` (``seat``'s view) and return the root actions' estimates.

    ``uniform_root`` spreads the root iterations evenly over ``legal`` (the coach wants a fair
    estimate of every action, not only of the best); below the root the search is the same.
    ``guide`` names a bot (e.g. ``greedy``) that plays the first ``guide_plies`` decisions of
    every playout for every seat, from that seat's view of the world (the rest is random).
    ``horizon``: if the game reports its :meth:`State.progress`, simulations end with the current
    deal and a seat's reward is its points margin over the deal (:func:`deal_rewards`, not
    bounded: the tree reads means scaled by the lowest and highest reward seen so far); otherwise
    they run to the end of the game with :func:`rewards`. ``depth`` (with ``horizon``) also ends
    every simulation after that many decisions from the root. ``reuse``: each world drawn serves
    that many simulations in a row (each on its own clone), which saves the cost of drawing when
    a draw costs several clones (Euchre: about six).
    The estimates come back best first (most visits, then highest mean).
    """
    if not legal:
        raise ValueError("no legal actions to search")
    if simulations is None and milliseconds is None:
        raise ValueError("give a budget: simulations, milliseconds or both")
    legal = list(legal)
    if len(legal) == 1 and not uniform_root:
        return [Estimate(legal[0], 0.0, 0, 0.0)]
    sampler = game.world_sampler(view)
    guides: list[Bot] = []
    if guide is not None and guide_plies > 0:
        from updown.bots import make_bot

        guides = [make_bot(guide, game, s, rng) for s in range(int(view["players"]))]
    root = Node()
    stats = SearchStats()
    deadline = None if milliseconds is None else time.perf_counter() + milliseconds / 1000.0
    done = 0
    allowed = set(legal)
    lo, hi = 0.0, 1.0
    bounded = True
    if isinstance(reuse, bool) or not isinstance(reuse, int) or reuse < 1:
        raise ValueError(f"reuse must be a positive integer, not {reuse!r}")
    drawn: State | None = None
    while True:
        if simulations is not None and done >= simulations:
            break
        if deadline is not None and done > 0 and time.perf_counter() >= deadline:
            break
        if reuse == 1:
            world = sampler.draw(rng)
        else:
            if done % reuse == 0 or drawn is None:
                drawn = sampler.draw(rng)
            world = drawn.clone()
        start = world.progress() if horizon else None
        deals = start.deals if start is not None else None
        if start is not None and bounded:
            bounded = False
            lo, hi = 0.0, 0.0
        scale = hi - lo if hi > lo else 1.0
        path: list[tuple[Node, int, int]] = []
        left = depth if start is not None else None
        root_action = -1
        node: Node | None = root
        while node is not None and not world.is_terminal():
            if world.is_chance():
                if deals is not None and _deal_over(world, deals):
                    break
                world.apply(world.sample_chance(rng))
                continue
            actors = world.actors()
            picks: list[tuple[int, int]] = []
            for actor in actors:
                actor_legal = world.legal_actions(actor)
                if node is root and actor == seat:
                    # The world's legal actions are the view's (its own hand); keep to ``legal``.
                    actor_legal = [a for a in actor_legal if a in allowed] or legal
                    if uniform_root:
                        action = legal[done % len(legal)]
                        node.select(actor, actor_legal, exploration, rng)  # count availability
                        picks.append((actor, action))
                        continue
                picks.append((actor, node.select(actor, actor_legal, exploration, rng, lo, scale)))
            if left is not None:
                left -= 1
            for actor, action in picks:
                world.apply(action, actor)
                path.append((node, actor, action))
                if node is root and actor == seat:
                    root_action = action
            key = tuple(a for _, a in picks) if len(picks) > 1 else (picks[0][1],)
            child = node.children.get(key)
            if child is None:
                node.children[key] = Node()
                node = None
            else:
                node = child
            if left is not None and left <= 0:
                break
        if node is None and not playout(world, rng, guides, guide_plies if guides else 0,
                                        deadline if done > 0 else None, deals, left):
            break  # out of time: this simulation is dropped, its tree node stays unvisited
        if start is not None:
            end = world.progress()
            assert end is not None
            reward = deal_rewards(start, end)
            lo = min(lo, min(reward))
            hi = max(hi, max(reward))
        else:
            reward = rewards(world.result())
        for n, actor, action in path:
            n.update(actor, action, reward[actor])
        if root_action >= 0:
            stats.add(root_action, reward[seat])
        done += 1
    out = []
    for a in legal:
        v = root.visits.get((seat, a), 0)
        mean = root.total.get((seat, a), 0.0) / v if v else 0.0
        if v > 1:
            var = max(0.0, stats.sq.get(a, 0.0) / v - mean * mean)
            err = math.sqrt(var / (v - 1))
        else:
            err = float("inf") if v == 0 else (hi - lo if not bounded else 1.0)
        out.append(Estimate(a, mean, v, err))
    out.sort(key=lambda e: (-e.visits, -e.value, legal.index(e.action)))
    return out


def choose(found: Sequence[Estimate], default: int | None, confidence: float) -> int:
    """The search's choice, or ``default`` unless the search found an action clearly better.

    Without a default: the most visited action. With one: the action with the best mean among
    those visited at least a tenth as often as the most visited, if its mean beats the default's
    by more than ``confidence`` standard errors of the difference; otherwise the default.
    """
    if default is None:
        return found[0].action
    mine = next((e for e in found if e.action == default), None)
    if mine is None or mine.visits == 0:
        return found[0].action
    most = max(e.visits for e in found)
    contenders = [e for e in found if e.visits >= max(2, most // 10)]
    if not contenders:
        return default
    top = max(contenders, key=lambda e: e.value)
    if top.action == default:
        return default
    noise = math.sqrt(top.stderr ** 2 + mine.stderr ** 2)  # finite: both were visited
    return top.action if top.value - mine.value > confidence * noise else default


class SearchBot(Bot):
    """Information-set MCTS with random playouts, from this seat's view only."""

    name = "ismcts"
    description = "information-set MCTS from its own view: 1000 simulations per decision, random playouts"
    simulations: int | None = 1000
    milliseconds: float | None = None
    exploration: float = EXPLORATION
    guide: str | None = None
    guide_plies: int = 0
    anchor: str | None = None
    """A bot whose choice is kept unless the search finds another clearly better (see :func:`choose`)."""
    confidence: float = 2.0
    depth: int | None = None
    """With ``horizon``: also end simulations after this many decisions."""
    horizon: bool = False
    """End simulations with the current deal and reward the deal's points margin (see :func:`search`)."""
    reuse: int = 1
    """Simulations per world drawn (see :func:`search`)."""

    def __init__(self, game: Game[Any], seat: int, rng: random.Random):
        super().__init__(game, seat, rng)
        from updown.bots import bot_names, make_bot

        if self.guide is not None and self.guide not in bot_names(game.id):
            self.guide = None
        self._anchor: Bot | None = None
        if self.anchor is not None and self.anchor in bot_names(game.id):
            self._anchor = make_bot(self.anchor, game, seat, random.Random(rng.getrandbits(64)))

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        default = self._anchor.act(view, legal) if self._anchor is not None else None
        found = search(self.game, view, legal, self.seat, self.rng,
                       simulations=self.simulations, milliseconds=self.milliseconds,
                       exploration=self.exploration, guide=self.guide, guide_plies=self.guide_plies,
                       horizon=self.horizon, depth=self.depth, reuse=self.reuse)
        return choose(found, default, self.confidence)


class EasyBot(Bot):
    """The game's greedy bot, with a random legal action a third of the time."""

    name = "easy"
    description = "the game's rule-based bot, playing a random legal action one time in three"
    randomness = 1 / 3

    def __init__(self, game: Game[Any], seat: int, rng: random.Random):
        super().__init__(game, seat, rng)
        from updown.bots import bot_names, make_bot

        base = "greedy" if "greedy" in bot_names(game.id) else "random"
        self.base = make_bot(base, game, seat, rng)

    def act(self, view: View, legal: Sequence[int]) -> int:
        if len(legal) > 1 and self.rng.random() < self.randomness:
            return self.rng.choice(legal)
        return self.base.act(view, legal)


class NormalBot(SearchBot):
    """The ``normal`` level for any game; a game's bot module may tune it (e.g. drop the anchor)."""

    name = "normal"
    description = ("ISMCTS from its own view to the end of the deal, up to 2000 simulations or 90 ms "
                   "per decision; keeps the greedy move unless the search finds one clearly better")
    simulations = 2000
    milliseconds = 90.0
    horizon = True
    anchor: str | None = "greedy"


class HardBot(SearchBot):
    """The ``hard`` level for any game; a game's bot module may tune it."""

    name = "hard"
    description = ("ISMCTS from its own view to the end of the deal, up to 20000 simulations or 900 ms "
                   "per decision; keeps the greedy move unless the search finds one clearly better")
    simulations = 20000
    milliseconds = 900.0
    horizon = True
    anchor: str | None = "greedy"


GENERIC_BOTS: dict[str, type[Bot]] = {"easy": EasyBot, "normal": NormalBot, "hard": HardBot}
