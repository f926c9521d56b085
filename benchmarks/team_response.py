"""What two seats gain by changing their play together, on Euchre's and the Sueca game's research decks
(issue 34): a team best response, exact and bracketed, beside OpenSpiel's per-seat ``NashConv / 4``.

    nice -n 10 .venv/bin/python benchmarks/team_response.py --game euchre --json test-output/team-euchre.json
    nice -n 10 .venv/bin/python benchmarks/team_response.py --game updown-sueca --json test-output/team-sueca.json
    nice -n 10 .venv/bin/python benchmarks/team_response.py --game updown-sueca --decks K7A:DH:1 \\
        --iterations 100 --bots greedy --json test-output/team-sueca-k7a.json

(Defaults: Euchre's 9TJQK:H:1, 9JA:DH:1, JA:CDS:1; the Sueca game's 7A:DH:1, QJK7A:H:1; CFR and CFR+
after 10 and 100 iterations; greedy, easy, normal and uniform. At load 10 to 13 on the shared 2-core
machine: 5 to 11 s a policy on 9TJQK:H:1, 13 to 36 s on the six-card decks, 20 to 26 s for the six
pairs of QJK7A:H:1; the walks with ``normal`` asked take most of the rest: 18 minutes in all
for Euchre. The exact program adds 0.6 to 9 s a team in Euchre, at most 1.3 s a pair in the
Sueca game.)

``benchmarks/research_variants.py`` publishes OpenSpiel's exploitability of a four-seat policy:
``NashConv / 4``, the mean over the seats of what one seat gains by best-responding alone while the
three others (its partner too) keep the policy. A team may do better by changing both partners' play
together, each partner still acting on what it sees. That problem (a team best response with private
information) is hard in general; this benchmark brackets it exactly on the tree:

* **lower bound**, a deviation the team can really play: one pure action at each information set of
  each partner (so each partner's action depends on its own information set only), found by
  alternating best responses: partner A best-responds for the team with B's play fixed, then B with
  A's, and so on until neither gains. It starts from the policy (A first), from each seat's plain
  best response (the other partner moves next), from the upper bound's deviation projected on each
  partner's information sets (at each, the action the coordinated pair plays there most often,
  weighted by reach), and from ``--restarts`` random pure deviations; then ``--kicks`` times it
  redraws an eighth of the best deviation's information sets at random and alternates again (an
  iterated local search). The best end is kept, its value computed exactly on the tree (and, in the
  tests, again by OpenSpiel's ``expected_returns``). A local search: the pair may do better still.
* **upper bound**, the best response of the team as one player that sees both partners' information:
  its information sets are keyed by the pair of the partners' information states (each the
  adapter's information-state string, the seat's view), so it has perfect recall and its best
  response is computed exactly. No deviation of the team can gain more.
* **exact** (:func:`team_exact`, ``--exact-seconds`` a pair, 0 to skip): the team's best pure joint
  deviation, each partner on its own information sets, by a mixed-integer program over both
  partners' sequence forms, solved by HiGHS (``scipy.optimize.milp``); at a time limit, its best
  deviation and its dual bound. On Euchre's three decks and the Sueca game's ``7A:DH:1`` and
  ``QJK7A:H:1`` it was solved at the root node for every policy and pair, in at most 9 s (the
  sequence-form rows multiplied by the other partner's sequences make its relaxation tight enough).

**Units.** The tree is the export of ``research_variants.Export`` (the same game OpenSpiel solves:
one deal, the decisions without a choice played, not written), with the adapter's utility (Euchre:
+2/3 to each seat of the winning team, -2/3 to the other; the Sueca game: +1 alone first, -1 alone
last). A team's gain G is in the sum of its two seats' utilities; **per seat** it is G / 2 (in
Euchre, where partners share a utility, that is exactly what each of them gains). The **team
figure** of a partition of the four seats into two pairs is the mean over the four seats of what
its pair gains per seat: (G(pair 1) + G(pair 2)) / 4. This is the normalisation of
``exploitability`` = NashConv / 4 = the mean over the four seats of what the seat gains alone, so
the two stand side by side; in Euchre the team figure is never below it (a team can always let one
partner deviate alone).

The Sueca game is four seats each for itself (the rulebook and the engine: no partners), so a pair
there is a **coalition**: two seats pooling their utilities (colluding), for each of the three ways
to split the four seats in two pairs; ``{0,2}`` and ``{1,3}`` (opposite seats, the partners of the
traditional Sueca) come first. In the Sueca game a seat's own best response may cost its partner, so
there the team figure and ``NashConv / 4`` bound nothing of each other; the team's gain is at least
what either seat gains for the pair alone.

Policies: OpenSpiel's C++ CFR and CFR+ average policy after ``--iterations`` (each number), the bots
as policies (``research_variants.BotPolicies``: greedy, easy, the generic ``normal``), uniform.

The computations run on the tree as numpy arrays (:class:`Arrays`: the edges by depth, a policy as one
flat vector), level by level; a best response takes a pass over the tree per depth of the responding
player's own decisions, plus one.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import research_variants as rv  # noqa: E402  (benchmarks/ on the path)

ROOT = rv.ROOT
TERMINAL, CHANCE, DECISION = 0, 1, 2
EPS = 1e-12
"""A gain no larger than this is no gain (sums of a few thousand products of exact fractions)."""

PARTITIONS: dict[str, list[tuple[tuple[int, int], tuple[int, int]]]] = {
    "euchre": [((0, 2), (1, 3))],
    "updown-sueca": [((0, 2), (1, 3)), ((0, 1), (2, 3)), ((0, 3), (1, 2))],
}
"""Per game, the splits of the four seats into two pairs that are measured: Euchre's two teams;
the Sueca game's every split (no partners there: coalitions)."""

Key = tuple[int, int]
"""An information set of one seat: (seat, its number in the export)."""
Behaviour = dict[Key, list[float]]
"""A policy on the tree: each information set's probabilities, in the order of its actions
(``InfoSet.legal``, the tree's children order)."""


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


@dataclass
class AnnotatedExport(rv.Export):
    """:class:`research_variants.Export` that also keeps, at every decision node it writes (in the
    order written), every seat's information state there (the hash of its information-state string:
    the one the export keys the actor's information set by)."""

    views: list[tuple[bytes, ...]] = field(default_factory=list)

    def _walk(self, state: Any) -> None:
        if not state.is_terminal() and not state.is_chance():
            seat = state.actors()[0]
            if self.forced or len(state.legal_actions(seat)) > 1:
                self.views.append(tuple(_digest(rv.info_string(state, s)) for s in range(state.players)))
        super()._walk(state)


@dataclass
class Tree:
    """A game tree as flat lists, nodes in prefix order (a parent before its children), node 0 the
    root. A decision node has its seat, its information set's :data:`Key` and every seat's
    information state (``views``); a chance node its probabilities; a terminal node its payoffs."""

    players: int
    kind: list[int] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    chance: list[list[float]] = field(default_factory=list)
    seat: list[int] = field(default_factory=list)
    key: list[Key] = field(default_factory=list)
    views: list[tuple[Hashable, ...]] = field(default_factory=list)
    payoff: list[tuple[float, ...]] = field(default_factory=list)
    infos: dict[Key, rv.InfoSet] = field(default_factory=dict)
    """The export's information sets (empty for a hand-made tree)."""
    actions: dict[Key, int] = field(default_factory=dict)
    """The number of actions of each information set."""

    def add(self, kind: int, parent: int | None, *, chance: Sequence[float] = (), seat: int = -1,
            key: Key = (-1, -1), views: tuple[Hashable, ...] = (), payoff: Sequence[float] = ()) -> int:
        node = len(self.kind)
        self.kind.append(kind)
        self.children.append([])
        self.chance.append(list(chance))
        self.seat.append(seat)
        self.key.append(key)
        self.views.append(views)
        self.payoff.append(tuple(payoff))
        if parent is not None:
            assert parent < node
            self.children[parent].append(node)
        return node

    def __len__(self) -> int:
        return len(self.kind)

    @classmethod
    def from_export(cls, export: AnnotatedExport) -> Tree:
        """The tree of an export: its EFG text read back (the very game OpenSpiel loads), each
        decision node with the views the walk kept."""
        infos = {(i.seat, i.number): i for i in export.all_infosets()}
        tree = cls(export.players, infos=infos, actions={k: len(i.legal) for k, i in infos.items()})
        stack: list[list[int]] = []  # [node, children still to come]
        decisions = 0
        for line in export.text().splitlines()[1:]:
            parent = stack[-1][0] if stack else None
            if stack:
                stack[-1][1] -= 1
                if stack[-1][1] == 0:
                    stack.pop()
            if line[0] == "t":
                payoff = [float(x) for x in line[line.rindex("{") + 1:line.rindex("}")].split()]
                tree.add(TERMINAL, parent, payoff=payoff)
                continue
            if line[0] == "c":
                probs = [int(a) / int(b) for a, b in re.findall(r'"o\d+" (\d+)/(\d+)', line)]
                node = tree.add(CHANCE, parent, chance=probs)
                stack.append([node, len(probs)])
                continue
            _p, _name, seat_text, number_text, *_rest = line.split(" ", 5)
            seat = int(seat_text) - 1
            key = (seat, int(number_text))
            views = export.views[decisions]
            decisions += 1
            assert export.infosets[seat][views[seat]] is infos[key], "the walk's views and the EFG disagree"
            node = tree.add(DECISION, parent, seat=seat, key=key, views=views)
            stack.append([node, tree.actions[key]])
        assert not stack and decisions == len(export.views) == export.nodes["decision"]
        return tree

    def team_views(self, team: Sequence[int]) -> list[Hashable]:
        """At each decision node of a seat of ``team``: the key of the team's information set when
        it plays as one player seeing both partners' information (the seat, and both views)."""
        return [(self.seat[h], *(self.views[h][s] for s in team)) if self.kind[h] == DECISION
                and self.seat[h] in team else None for h in range(len(self))]


# -- policies on the tree ---------------------------------------------------------------------------

def behaviour_of(tree: Tree, policy: rv.Policy | Any) -> Behaviour:
    """A policy of the EFG game (``research_variants.Policy``, or an OpenSpiel ``Policy`` such as
    a CFR solver's average) as a :data:`Behaviour`."""
    beh: Behaviour = {}
    for key, info in tree.infos.items():
        rows = policy[info.key] if isinstance(policy, dict) else policy.get_state_policy(info.key)
        probs = dict(rows)
        beh[key] = [float(probs.get(a, 0.0)) for a in info.efg]
        assert abs(sum(beh[key]) - 1.0) < 1e-9, (info.key, rows)
    return beh


def policy_of(tree: Tree, beh: Behaviour) -> rv.Policy:
    """A :data:`Behaviour` as a policy of the EFG game (information-state string -> EFG actions)."""
    return {tree.infos[k].key: list(zip(tree.infos[k].efg, probs)) for k, probs in beh.items()}


def uniform(tree: Tree) -> Behaviour:
    return {k: [1.0 / n] * n for k, n in tree.actions.items()}


def pure(n: int, action: int) -> list[float]:
    return [float(a == action) for a in range(n)]


def objective(tree: Tree, seats: Iterable[int]) -> np.ndarray:
    """At each terminal node, the sum of ``seats``' payoffs (0 elsewhere)."""
    seats = list(seats)
    return np.array([sum(tree.payoff[h][s] for s in seats) if tree.kind[h] == TERMINAL else 0.0
                     for h in range(len(tree))])


@dataclass
class Arrays:
    """A :class:`Tree` as numpy arrays, for passes over all its nodes at once, level by level. An
    edge is named by its child node (every node but the root has one parent)."""

    parent: np.ndarray
    action: np.ndarray
    """The child's position among its parent's children (its action's index)."""
    chance: np.ndarray
    """The edge's probability when its parent is a chance node (0 else)."""
    slot: np.ndarray
    """When its parent is a decision node: the index of (its information set, the action) in a
    flat behaviour vector (-1 else)."""
    decision: np.ndarray
    """Is the node a decision node."""
    seat: np.ndarray
    kid: np.ndarray
    """A decision node's information set as an index into ``keys`` (-1 else)."""
    keys: list[Key]
    offset: np.ndarray
    """Each information set's first slot."""
    levels: list[np.ndarray]
    """The edges by their child's depth, deepest last (level 0 is empty: the root)."""

    @classmethod
    def of(cls, tree: Tree) -> Arrays:
        n = len(tree)
        keys = sorted(tree.actions)
        index = {k: i for i, k in enumerate(keys)}
        offset = np.zeros(len(keys) + 1, dtype=np.int64)
        offset[1:] = np.cumsum([tree.actions[k] for k in keys])
        parent = np.full(n, -1, dtype=np.int64)
        action = np.zeros(n, dtype=np.int64)
        chance = np.zeros(n)
        slot = np.full(n, -1, dtype=np.int64)
        depth = np.zeros(n, dtype=np.int64)
        kid = np.full(n, -1, dtype=np.int64)
        for h in range(n):
            ch = tree.children[h]
            if tree.kind[h] == DECISION:
                kid[h] = index[tree.key[h]]
            for i, c in enumerate(ch):
                parent[c], action[c], depth[c] = h, i, depth[h] + 1
                if tree.kind[h] == CHANCE:
                    chance[c] = tree.chance[h][i]
                else:
                    slot[c] = offset[kid[h]] + i
        order = np.argsort(depth, kind="stable")
        bounds = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
        levels = [order[bounds[d]:bounds[d + 1]] for d in range(int(depth.max()) + 1)]
        return cls(parent, action, chance, slot, np.array(tree.kind) == DECISION, np.array(tree.seat), kid,
                   keys, offset, levels)

    def flat(self, beh: Behaviour) -> np.ndarray:
        return np.concatenate([np.asarray(beh[k], dtype=float) for k in self.keys])


_ARRAYS: dict[int, tuple[Tree, Arrays]] = {}


def arrays(tree: Tree) -> Arrays:
    """The tree's :class:`Arrays`, made once (a tree is not changed once built)."""
    got = _ARRAYS.get(id(tree))
    if got is None or got[0] is not tree:
        got = _ARRAYS[id(tree)] = (tree, Arrays.of(tree))
    return got[1]


def _edge_probs(ar: Arrays, beh: Behaviour, mover: np.ndarray | None = None,
                choice: np.ndarray | None = None, jkid: np.ndarray | None = None) -> np.ndarray:
    """Each edge's probability: chance's, the behaviour's, or at the nodes where ``mover`` is true,
    1 for the action ``choice[jkid[parent]]`` and 0 for the others (and for an undecided set)."""
    flat = ar.flat(beh)
    q = np.where(ar.slot >= 0, flat[np.maximum(ar.slot, 0)], ar.chance)
    if mover is not None and choice is not None and jkid is not None:
        p = np.maximum(ar.parent, 0)
        own = mover[p] & (ar.parent >= 0)
        q[own] = (choice[jkid[p[own]]] == ar.action[own]).astype(float)
    return q


def _values(ar: Arrays, q: np.ndarray, util: np.ndarray) -> np.ndarray:
    """Every node's expected ``util`` with edge probabilities ``q``."""
    n = len(util)
    v = np.array(util, dtype=float)
    for edges in reversed(ar.levels[1:]):
        v += np.bincount(ar.parent[edges], weights=q[edges] * v[edges], minlength=n)
    return v


def evaluate(tree: Tree, beh: Behaviour, util: np.ndarray) -> np.ndarray:
    """Every node's expected ``util`` when play follows ``beh``."""
    ar = arrays(tree)
    return _values(ar, _edge_probs(ar, beh), util)


def value(tree: Tree, beh: Behaviour, seats: Iterable[int]) -> float:
    """The expected sum of ``seats``' utilities under ``beh``."""
    return float(evaluate(tree, beh, objective(tree, seats))[0])


@dataclass
class Response:
    choice: dict[Hashable, int]
    """The best response's action at each of its information sets."""
    value: float
    """Its expected objective (the sum of the objective seats' utilities)."""


def best_response(tree: Tree, beh: Behaviour, seats: Sequence[int], util: np.ndarray,
                  keys: list[Hashable] | None = None) -> Response:
    """The exact best response, for the objective ``util``, of a player who plays every decision of
    ``seats`` and whose information set at a node is ``keys[node]`` (default: the seat's own, so
    one seat's best response); everyone else plays ``beh``. The player must have perfect recall
    (checked: every node of an information set at the same depth of the player's own decisions).

    Information sets are decided deepest first: at each, the action of the highest expected
    ``util`` weighted by the others' and chance's reach of each of its nodes, given the player's
    choices further down."""
    ar = arrays(tree)
    n = len(tree)
    mover = ar.decision & np.isin(ar.seat, list(seats))
    if keys is None:
        names: list[Hashable] = [ar.keys[i] for i in np.unique(ar.kid[mover])]
        jkid = np.full(n, -1, dtype=np.int64)
        remap = np.full(len(ar.keys), -1, dtype=np.int64)
        remap[np.unique(ar.kid[mover])] = np.arange(len(names))
        jkid[mover] = remap[ar.kid[mover]]
    else:
        ids: dict[Hashable, int] = {}
        jkid = np.array([ids.setdefault(keys[h], len(ids)) if mover[h] else -1 for h in range(n)], dtype=np.int64)
        names = list(ids)
    m = len(names)
    nact = np.zeros(m, dtype=np.int64)
    np.maximum.at(nact, jkid[mover], np.array([len(tree.children[h]) for h in np.flatnonzero(mover)], dtype=np.int64))
    joff = np.zeros(m + 1, dtype=np.int64)
    joff[1:] = np.cumsum(nact)
    p = np.maximum(ar.parent, 0)
    from_mover = mover[p] & (ar.parent >= 0)
    jslot = np.where(from_mover, joff[jkid[p]] + ar.action, -1)
    # the others' and chance's reach, and each node's depth in the player's own decisions
    q = _edge_probs(ar, beh)
    q_reach = np.where(from_mover, 1.0, q)
    reach = np.zeros(n)
    reach[0] = 1.0
    own = np.zeros(n, dtype=np.int64)
    for edges in ar.levels[1:]:
        reach[edges] = reach[ar.parent[edges]] * q_reach[edges]
        own[edges] = own[ar.parent[edges]] + mover[ar.parent[edges]]
    low = np.full(m, 1 << 40, dtype=np.int64)
    high = np.full(m, -1, dtype=np.int64)
    np.minimum.at(low, jkid[mover], own[mover])
    np.maximum.at(high, jkid[mover], own[mover])
    assert (low == high).all(), "the responding player forgets: no perfect recall"
    choice = np.full(m, -1, dtype=np.int64)
    owner = np.repeat(np.arange(m), nact)
    local = np.arange(int(joff[-1])) - joff[owner]
    edge_level = np.where(from_mover, own[p], -1)
    for level in sorted(set(low.tolist()), reverse=True):
        v = _values(ar, _edge_probs(ar, beh, mover, choice, jkid), util)
        edges = np.flatnonzero(edge_level == level)
        scores = np.bincount(jslot[edges], weights=reach[ar.parent[edges]] * v[edges], minlength=int(joff[-1]))
        best = np.maximum.reduceat(scores, joff[:-1])
        first = np.minimum.reduceat(np.where(scores >= best[owner], local, 1 << 40), joff[:-1])
        decided = low == level
        choice[decided] = first[decided]
    total = _values(ar, _edge_probs(ar, beh, mover, choice, jkid), util)[0]
    return Response({names[i]: int(choice[i]) for i in range(m)}, float(total))


def with_choices(beh: Behaviour, choice: dict[Hashable, int], tree: Tree) -> Behaviour:
    """``beh`` with each of ``choice``'s information sets (:data:`Key` s) played purely."""
    out = dict(beh)
    for k, a in choice.items():
        assert isinstance(k, tuple) and len(k) == 2
        out[k] = pure(tree.actions[k], a)
    return out


def seat_gains(tree: Tree, beh: Behaviour) -> list[float]:
    """What each seat gains, in its own utility, by best-responding alone (NashConv's terms)."""
    gains = []
    for s in range(tree.players):
        util = objective(tree, [s])
        gains.append(best_response(tree, beh, [s], util).value - float(evaluate(tree, beh, util)[0]))
    return gains


# -- a team -------------------------------------------------------------------------------------------

@dataclass
class TeamBounds:
    team: tuple[int, int]
    base: float
    """The team's expected summed utility under the policy."""
    lower: float
    """The best playable deviation's summed utility (exact on the tree)."""
    upper: float
    """The summed utility of the team as one player seeing both partners' information."""
    deviation: Behaviour
    """The lower bound's play: the policy with both partners' information sets played purely."""
    start: str
    """Which start of the alternation reached the lower bound."""
    starts: dict[str, float]
    """Each start's end value."""
    steps: int
    """Best responses computed in all the alternations."""

    @property
    def lower_gain(self) -> float:
        return self.lower - self.base

    @property
    def upper_gain(self) -> float:
        return self.upper - self.base


def _projection(tree: Tree, beh: Behaviour, team: tuple[int, int], joint: Response,
                keys: list[Hashable]) -> dict[Key, list[float]]:
    """The joint best response seen from each partner's information sets: at each, how often (in
    reach, under the joint play) the joint player takes each action there. An unreached set counts
    the action at its first node, with a negligible weight."""
    ar = arrays(tree)
    n = len(tree)
    mover = ar.decision & np.isin(ar.seat, list(team))
    chosen = np.full(n, -1, dtype=np.int64)
    for h in np.flatnonzero(mover):
        chosen[h] = joint.choice[keys[h]]
    q = _edge_probs(ar, beh, mover, chosen, np.arange(n))
    reach = np.zeros(n)
    reach[0] = 1.0
    for edges in ar.levels[1:]:
        reach[edges] = reach[ar.parent[edges]] * q[edges]
    weight: dict[Key, list[float]] = {}
    for h in np.flatnonzero(mover):
        row = weight.setdefault(tree.key[h], [0.0] * tree.actions[tree.key[h]])
        row[chosen[h]] += reach[h] + 1e-300 * (not any(row))
    return weight


def team_bounds(tree: Tree, beh: Behaviour, team: tuple[int, int], restarts: int = 2, seed: int = 0,
                rounds: int = 50, kicks: int = 0) -> TeamBounds:
    """The lower and upper bounds (module docstring) on what ``team`` gains against ``beh``."""
    a, b = team
    util = objective(tree, team)
    base = float(evaluate(tree, beh, util)[0])
    joint_keys = tree.team_views(team)
    joint = best_response(tree, beh, team, util, joint_keys)
    steps = 1

    def alternate(start: Behaviour, first: int) -> tuple[float, Behaviour]:
        nonlocal steps
        current, best = start, value(tree, start, team)
        mover, idle = first, 0
        for _ in range(2 * rounds):
            response = best_response(tree, current, [mover], util)
            steps += 1
            current = with_choices(current, response.choice, tree)  # never worse: a best response
            gained = response.value > best + EPS
            best = max(best, response.value)
            idle = 0 if gained else idle + 1
            if idle >= 2:  # neither partner gains alone: a person-by-person optimum
                break
            mover = b if mover == a else a
        return best, current

    starts: dict[str, Behaviour] = {"policy": beh}
    firsts = {"policy": a}
    for s, other in ((a, b), (b, a)):
        plain = best_response(tree, beh, [s], objective(tree, [s]))
        steps += 1
        starts[f"seat {s}'s best response"] = with_choices(beh, plain.choice, tree)
        firsts[f"seat {s}'s best response"] = other
    # the upper bound's play seen from each partner's information sets: its most frequent action there
    weight = _projection(tree, beh, team, joint, joint_keys)
    starts["the upper bound's projection"] = with_choices(
        beh, {k: max(range(len(row)), key=row.__getitem__) for k, row in weight.items()}, tree)
    firsts["the upper bound's projection"] = a
    rng = random.Random(seed)
    for r in range(restarts):
        picks = {k: rng.randrange(n) for k, n in sorted(tree.actions.items()) if k[0] in team}
        starts[f"random {r}"] = with_choices(beh, dict(picks), tree)
        firsts[f"random {r}"] = a
    ends: dict[str, float] = {}
    best_name, best_value, best_beh = "", float("-inf"), beh
    for name, start in starts.items():
        end, played = alternate(start, firsts[name])
        ends[name] = end
        if end > best_value + EPS:
            best_name, best_value, best_beh = name, end, played
    mine = [k for k in sorted(tree.actions) if k[0] in team]
    for r in range(kicks):  # iterated local search: redraw a few of the best's sets, alternate again
        picks = {k: rng.randrange(tree.actions[k]) for k in rng.sample(mine, max(1, len(mine) // 8))}
        name = f"kick {r}"
        end, played = alternate(with_choices(best_beh, dict(picks), tree), (a, b)[r % 2])
        ends[name] = end
        if end > best_value + EPS:
            best_name, best_value, best_beh = name, end, played
    deviation = {k: p for k, p in best_beh.items() if k[0] in team}
    assert best_value <= joint.value + 1e-9, (best_value, joint.value)
    return TeamBounds(team, base, best_value, joint.value, deviation, best_name, ends, steps)


# -- the exact team best response: a mixed-integer program -------------------------------------------

SCALE = 1e4
"""The program maximises the team's value times this. HiGHS stops once its incumbent and its dual
bound are within an absolute 1e-6 of the objective (its default ``mip_abs_gap``, which scipy does not
pass on), so scaled the stop is within 1e-10 of the team's utility; ``mip_rel_gap`` is set to 0."""


@dataclass
class Exact:
    """The team's best pure joint deviation (both partners each on its own information sets) by a
    mixed-integer program: optimal, or within the solver's time limit its best deviation and bound."""

    team: tuple[int, int]
    base: float
    """The team's expected summed utility under the policy."""
    value: float
    """The best deviation found: its summed utility, computed again exactly on the tree."""
    bound: float
    """No deviation of the team reaches more: the solver's dual bound (``value`` when optimal)."""
    optimal: bool
    message: str
    seconds: float
    deviation: Behaviour
    """The deviation: pure at every information set of both partners (an information set its own
    play never reaches gets its first action)."""
    sizes: dict[str, int]
    """binaries (the partners' sequences), products (one per distinct pair of the partners'
    sequences at the terminal nodes), rows (the constraints), branch-and-bound nodes."""

    @property
    def gain(self) -> float:
        return self.value - self.base

    @property
    def bound_gain(self) -> float:
        return self.bound - self.base


def team_exact(tree: Tree, beh: Behaviour, team: tuple[int, int], time_limit: float | None = None,
               strong: bool = True) -> Exact:
    """The exact best response of ``team`` against ``beh`` (everyone else and chance), each partner
    acting on its own information sets, as a mixed-integer program solved by HiGHS
    (``scipy.optimize.milp``).

    Each partner plays purely, written in sequence form: a binary ``x[I, a]`` for each of its
    information sets I and actions a, with ``x(root) = 1`` and, at each I, the sum of its actions'
    ``x`` equal to ``x`` of the partner's last own (information set, action) before I (perfect recall:
    the same at every node of I, checked). A terminal node z then counts ``p(z) u(z) xA(σA(z))
    xB(σB(z))``, with ``p`` chance's and the other seats' reach under ``beh``, ``u`` the partners'
    summed utility and σ a partner's last own sequence before z. The coefficients are summed over the
    terminal nodes with the same pair (σA, σB); each pair whose sequences are both past the root gets
    a continuous ``w`` in [0, 1] for the product: ``w <= xA``, ``w <= xB`` where its coefficient is
    positive, ``w >= xA + xB - 1`` where negative (maximising, ``w`` then equals the product at any
    binary ``x``). A pair with a root sequence is linear.

    ``strong`` (the default) adds, for each information set I of one partner and each sequence t of
    the other met with it, ``sum_a w(Ia, t) = w(parent(I), t)`` (``w(root, t) = x(t)``): the
    sequence-form rows multiplied by x(t), true at every binary point, with a ``w`` for every pair
    they name (the terminal pairs closed under siblings and parents on either side). The optimum is
    the same; the relaxation is far tighter (``w <= xA`` and ``w <= xB`` follow), and HiGHS solves
    the research decks at the root where the plain program left a wide gap after minutes.

    Pure play loses nothing: the value is multilinear, linear in one partner's realisation plan for
    a fixed plan of the other, and the plans' polytope has the pure strategies as vertices; so a
    pure joint strategy is optimal (and a shared random draw of one does no better: an average)."""
    import scipy.optimize
    import scipy.sparse

    started = time.perf_counter()
    ar = arrays(tree)
    n = len(tree)
    a_seat, b_seat = team
    util = objective(tree, team)
    base = float(_values(ar, _edge_probs(ar, beh), util)[0])
    p = np.maximum(ar.parent, 0)
    from_team = (ar.parent >= 0) & ar.decision[p] & np.isin(ar.seat[p], list(team))
    q = np.where(from_team, 1.0, _edge_probs(ar, beh))
    reach = np.zeros(n)
    reach[0] = 1.0
    seq = {s: np.full(n, -1, dtype=np.int64) for s in team}
    """Per partner, at each node: the slot of its last own (information set, action) above (-1: none)."""
    for edges in ar.levels[1:]:
        par = ar.parent[edges]
        reach[edges] = reach[par] * q[edges]
        for s in team:
            own = ar.decision[par] & (ar.seat[par] == s)
            seq[s][edges] = np.where(own, ar.slot[edges], seq[s][par])
    # the variables: each partner's sequences (binary), then the products
    infosets = [i for i, k in enumerate(ar.keys) if k[0] in team]
    slots = np.concatenate([np.arange(ar.offset[i], ar.offset[i + 1]) for i in infosets])
    var = np.full(int(ar.offset[-1]), -1, dtype=np.int64)
    var[slots] = np.arange(len(slots))
    nx = len(slots)
    # the sequence-form rows: sum of I's actions - the parent sequence = 1 (at the root) or 0
    mover = ar.decision & np.isin(ar.seat, list(team))
    parent_seq = np.where(ar.seat == a_seat, seq[a_seat], seq[b_seat])
    low = np.full(len(ar.keys), 1 << 60, dtype=np.int64)
    high = np.full(len(ar.keys), -(1 << 60), dtype=np.int64)
    np.minimum.at(low, ar.kid[mover], parent_seq[mover])
    np.maximum.at(high, ar.kid[mover], parent_seq[mover])
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    row_lo: list[float] = []
    row_hi: list[float] = []
    for r, i in enumerate(infosets):
        assert low[i] == high[i], f"{ar.keys[i]} has nodes after different own sequences: no perfect recall"
        own = var[np.arange(ar.offset[i], ar.offset[i + 1])]
        cols.append(own)
        vals.append(np.ones(len(own)))
        rows.append(np.full(len(own), r))
        if low[i] >= 0:
            cols.append(np.array([var[low[i]]]))
            vals.append(np.array([-1.0]))
            rows.append(np.array([r]))
        rhs = 1.0 if low[i] < 0 else 0.0
        row_lo.append(rhs)
        row_hi.append(rhs)
    # the terminal nodes' coefficients, summed by the pair of the partners' sequences
    term = np.flatnonzero((np.array(tree.kind) == TERMINAL) & (reach > 0) & (util != 0))
    coef = reach[term] * util[term]
    width = int(ar.offset[-1]) + 1
    pair_id, inverse = np.unique((seq[a_seat][term] + 1) * width + seq[b_seat][term] + 1, return_inverse=True)
    summed = np.bincount(inverse, weights=coef, minlength=len(pair_id))
    sa, sb = pair_id // width - 1, pair_id % width - 1
    constant = float(summed[(sa < 0) & (sb < 0)].sum())
    c = np.zeros(nx)
    np.add.at(c, var[sa[(sa >= 0) & (sb < 0)]], summed[(sa >= 0) & (sb < 0)])
    np.add.at(c, var[sb[(sb >= 0) & (sa < 0)]], summed[(sb >= 0) & (sa < 0)])
    both = (sa >= 0) & (sb >= 0) & (summed != 0)
    product: dict[tuple[int, int], int] = {}
    """The product variables: (slot of A's sequence, slot of B's) -> its index among them."""
    for pair in zip(sa[both].tolist(), sb[both].tolist()):
        product[pair] = len(product)
    r0 = len(infosets)
    if strong:
        # every pair's siblings and parents on either side, so that each partner's sequence-form rows
        # hold multiplied by the other's sequence
        slot_info = np.repeat(np.arange(len(ar.keys)), np.diff(ar.offset))
        todo = list(product)
        while todo:
            pa, pb = todo.pop()
            for mine, other, first in ((pa, pb, True), (pb, pa, False)):
                i = int(slot_info[mine])
                near = list(range(int(ar.offset[i]), int(ar.offset[i + 1])))
                if low[i] >= 0:
                    near.append(int(low[i]))
                for s_ in near:
                    pair = (s_, other) if first else (other, s_)
                    if pair not in product:
                        product[pair] = len(product)
                        todo.append(pair)
        # for each (information set I of one partner, sequence t of the other) met: the sum of
        # w(I's actions, t) - w(I's parent sequence, t) = 0, where w(root, t) = x(t)
        groups: dict[tuple[int, int, bool], int] = {}
        for (pa, pb), k in product.items():
            for mine, other, first in ((pa, pb, True), (pb, pa, False)):
                g = (int(slot_info[mine]), other, first)
                if g not in groups:
                    groups[g] = r0 + len(groups)
                rows.append(np.array([groups[g]]))
                cols.append(np.array([nx + k]))
                vals.append(np.array([1.0]))
        for (i, other, first), r in groups.items():
            if low[i] >= 0:
                k = product[(int(low[i]), other) if first else (other, int(low[i]))]
                cols.append(np.array([nx + k]))
            else:
                cols.append(np.array([var[other]]))
            rows.append(np.array([r]))
            vals.append(np.array([-1.0]))
        r0 += len(groups)
        row_lo += [0.0] * len(groups)
        row_hi += [0.0] * len(groups)
    nw = len(product)
    pa_all = np.array([k[0] for k in product], dtype=np.int64).reshape(-1)
    pb_all = np.array([k[1] for k in product], dtype=np.int64).reshape(-1)
    xa, xb = var[pa_all], var[pb_all]
    cw = np.zeros(nw)
    cw[:int(both.sum())] = summed[both]
    w = nx + np.arange(nw)
    # w - xA <= 0 and w - xB <= 0 (positive; implied by the rows above when strong),
    # xA + xB - w <= 1 (negative)
    pos = np.flatnonzero(cw > 0) if not strong else np.zeros(0, dtype=np.int64)
    neg = np.flatnonzero(cw < 0)
    for k, x in enumerate((xa, xb)):
        rr = r0 + 2 * np.arange(len(pos)) + k
        rows += [rr, rr]
        cols += [w[pos], x[pos]]
        vals += [np.ones(len(pos)), -np.ones(len(pos))]
    rr = r0 + 2 * len(pos) + np.arange(len(neg))
    rows += [rr, rr, rr]
    cols += [xa[neg], xb[neg], w[neg]]
    vals += [np.ones(len(neg)), np.ones(len(neg)), -np.ones(len(neg))]
    nrows = r0 + 2 * len(pos) + len(neg)
    lo = np.concatenate([row_lo, np.full(2 * len(pos) + len(neg), -np.inf)])
    hi = np.concatenate([row_hi, np.zeros(2 * len(pos)), np.ones(len(neg))])
    matrix = scipy.sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                    shape=(nrows, nx + nw))
    obj = np.concatenate([c, cw])
    options: dict[str, Any] = {"disp": False, "mip_rel_gap": 0.0}
    if time_limit is not None:
        options["time_limit"] = max(0.1, time_limit - (time.perf_counter() - started))
    res = scipy.optimize.milp(-SCALE * obj, integrality=np.concatenate([np.ones(nx), np.zeros(nw)]),
                              bounds=scipy.optimize.Bounds(0.0, 1.0),
                              constraints=scipy.optimize.LinearConstraint(matrix, lo, hi), options=options)
    sizes = {"binaries": nx, "products": nw, "rows": nrows, "nodes": int(res.mip_node_count or 0)}
    deviation: Behaviour = {}
    if res.x is None:  # stopped before any incumbent: the policy's likeliest action at each set
        for i in infosets:
            deviation[ar.keys[i]] = pure(len(beh[ar.keys[i]]), int(np.argmax(beh[ar.keys[i]])))
    else:
        x = np.round(res.x[:nx])
        for i in infosets:
            own = x[var[np.arange(ar.offset[i], ar.offset[i + 1])]]
            deviation[ar.keys[i]] = pure(len(own), int(np.argmax(own)))
    found = float(_values(ar, _edge_probs(ar, {**beh, **deviation}), util)[0])
    # the products' w are at most the products where they count positively, at least where negatively:
    # the solver's value of its incumbent is at most the deviation's, equal once optimal
    optimal = res.status == 0
    if res.x is not None:
        solver_value = constant - float(res.fun) / SCALE
        assert found >= solver_value - 1e-7 and (not optimal or found <= solver_value + 1e-7), (team, found, solver_value)
    dual = res.mip_dual_bound
    bound = found if optimal else max(found, constant - float(dual) / SCALE if dual is not None else np.inf)
    return Exact(team, base, found, bound, optimal, str(res.message), time.perf_counter() - started,
                 deviation, sizes)


# -- the benchmark ------------------------------------------------------------------------------------

def policies_of(deck: str, game_id: str, tree: Tree, export: AnnotatedExport, game: Any,
                iterations: Sequence[int], bots: dict[str, rv.Policy]) -> dict[str, Behaviour]:
    """The measured policies, by name."""
    import pyspiel

    out: dict[str, Behaviour] = {}
    for solver_name in ("cfr", "cfr+"):
        solver = pyspiel.CFRSolver(game) if solver_name == "cfr" else pyspiel.CFRPlusSolver(game)
        done = 0
        for mark in sorted(iterations):
            while done < mark:
                solver.evaluate_and_update_policy()
                done += 1
            out[f"{solver_name} {mark}"] = behaviour_of(tree, solver.average_policy())
    for name, policy in bots.items():
        if name != "random":
            out[name] = behaviour_of(tree, policy)
    out["uniform"] = uniform(tree)
    return out


def measure(tree: Tree, game: Any, beh: Behaviour, partitions: Sequence[tuple[tuple[int, int], ...]],
            restarts: int, seed: int, kicks: int = 0, exact_seconds: float = 0.0) -> dict[str, Any]:
    """One policy: OpenSpiel's NashConv / 4, each seat's own gain, each pair's bounds, each
    partition's team figures; with ``exact_seconds``, each pair's exact figure too (the MILP, with
    that time limit a pair)."""
    published = rv.exploitability(game, policy_of(tree, beh))
    gains = seat_gains(tree, beh)
    pairs: dict[tuple[int, int], TeamBounds] = {}
    exact: dict[tuple[int, int], Exact] = {}
    for split in partitions:
        for team in split:
            if team not in pairs:
                pairs[team] = team_bounds(tree, beh, team, restarts, seed, kicks=kicks)
                if exact_seconds > 0:
                    e = exact[team] = team_exact(tree, beh, team, exact_seconds)
                    bounds = pairs[team]
                    assert bounds.lower <= e.bound + 1e-9 and e.value <= bounds.upper + 1e-9, (team, bounds, e)
    exact_pairs = {f"{t[0]}{t[1]}": {"exact_gain_per_seat": e.gain / 2, "exact_bound_per_seat": e.bound_gain / 2,
                                     "exact_optimal": e.optimal, "exact_seconds": round(e.seconds, 2),
                                     "exact_sizes": e.sizes} for t, e in exact.items()}
    exact_splits = {"|".join(f"{t[0]}{t[1]}" for t in split): {
        "exact": sum(exact[t].gain for t in split) / 4, "exact_bound": sum(exact[t].bound_gain for t in split) / 4,
        "exact_optimal": all(exact[t].optimal for t in split)} for split in partitions} if exact else {}
    return {
        "nashconv/4": published,
        "seat_gains": gains,
        "own_nashconv/4": sum(gains) / len(gains),
        "pairs": {f"{t[0]}{t[1]}": {"base": r.base, "lower_gain_per_seat": r.lower_gain / 2,
                                    "upper_gain_per_seat": r.upper_gain / 2, "start": r.start,
                                    "starts": {k: (v - r.base) / 2 for k, v in r.starts.items()},
                                    "best_responses": r.steps, **exact_pairs.get(f"{t[0]}{t[1]}", {})}
                  for t, r in pairs.items()},
        "partitions": {"|".join(f"{t[0]}{t[1]}" for t in split): {
            "lower": sum(pairs[t].lower_gain for t in split) / 4,
            "upper": sum(pairs[t].upper_gain for t in split) / 4,
            **exact_splits.get("|".join(f"{t[0]}{t[1]}" for t in split), {})} for split in partitions},
    }


def run_deck(deck: str, game_id: str, iterations: Sequence[int], bot_names: Sequence[str],
             restarts: int, seed: int, deadline: float, log: Callable[[str], None] = print,
             kicks: int = 0, exact_seconds: float = 0.0) -> dict[str, Any]:
    asked = rv.BotPolicies(bot_names, seed, game_id)
    start = time.perf_counter()
    export = AnnotatedExport(deck, on_infoset=asked.visit, game_id=game_id, forced=False)
    tree = Tree.from_export(export)
    game = export.load()
    load = os.getloadavg()[0]
    log(f"{game_id} deck {deck}: {len(tree):,} nodes, {len(tree.actions):,} information sets; walked, read "
        f"and loaded in {time.perf_counter() - start:.1f} s (load average {load:.1f})")
    policies = policies_of(deck, game_id, tree, export, game, iterations, asked.policies)
    partitions = PARTITIONS[game_id]
    result: dict[str, Any] = {"game": game_id, "deck": deck, "nodes": len(tree), "policies": {}}
    log(f"  {'policy':10} {'NashConv/4':>11}  " + "  ".join(
        f"{'|'.join(f'{t[0]}{t[1]}' for t in split)}: lower    upper" for split in partitions) + "   seconds")
    for name, beh in policies.items():
        if time.perf_counter() > deadline:
            log(f"  (the time limit: {name} and later not measured)")
            break
        begun = time.perf_counter()
        res = measure(tree, game, beh, partitions, restarts, seed, kicks, exact_seconds)
        res["seconds"] = round(time.perf_counter() - begun, 1)
        res["load"] = round(os.getloadavg()[0], 1)
        result["policies"][name] = res
        assert abs(res["own_nashconv/4"] - res["nashconv/4"]) < 1e-9, (name, res["own_nashconv/4"], res["nashconv/4"])
        log(f"  {name:10} {res['nashconv/4']:11.6f}  " + "  ".join(
            f"{'':>5}{p['lower']:9.6f} {p['upper']:9.6f}" for p in res["partitions"].values())
            + f"   {res['seconds']:5.1f}")
        for split, p in res["partitions"].items():
            if "exact" in p:
                log(f"      split {split}: exact {p['exact']:.6f}" + ("" if p["exact_optimal"] else
                    f" (a time limit: at most {p['exact_bound']:.6f})"))
        for pair, p in res["pairs"].items():
            log(f"      pair {pair}: per seat lower {p['lower_gain_per_seat']:.6f} (from {p['start']}), "
                f"upper {p['upper_gain_per_seat']:.6f}; seats alone {', '.join(f'{g:.6f}' for g in res['seat_gains'])}")
            if "exact_gain_per_seat" in p:
                log(f"      pair {pair}: exact {p['exact_gain_per_seat']:.6f}"
                    + ("" if p["exact_optimal"] else f", at most {p['exact_bound_per_seat']:.6f} (time limit)")
                    + f" in {p['exact_seconds']:.1f} s; {p['exact_sizes']}")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="euchre", choices=sorted(PARTITIONS))
    ap.add_argument("--decks", default="", help="research decks, comma-separated (default: the game's)")
    ap.add_argument("--iterations", default="10,100", help="CFR and CFR+ average policies after these")
    ap.add_argument("--bots", default="greedy,easy,normal")
    ap.add_argument("--restarts", type=int, default=2, help="random starts of the alternation, each pair")
    ap.add_argument("--kicks", type=int, default=10,
                    help="then this many times: redraw an eighth of the best deviation's sets at random, alternate again")
    ap.add_argument("--exact-seconds", type=float, default=600.0,
                    help="the exact team best response (a MILP) with this time limit a pair; 0: not run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=30.0, help="start no policy after this long")
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)
    default = {"euchre": "9TJQK:H:1,9JA:DH:1,JA:CDS:1", "updown-sueca": "7A:DH:1,QJK7A:H:1"}[args.game]
    decks = [d for d in (args.decks or default).split(",") if d]
    deadline = time.perf_counter() + 60 * args.minutes
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("gains per seat, in the game's utility: a pair's gain in its summed utility / 2; a split's "
          "figure = (gain of pair 1 + gain of pair 2) / 4, as NashConv / 4 (the mean of the seats' own gains)")
    results = []
    for deck in decks:
        if time.perf_counter() > deadline:
            print(f"(the time limit: {deck} and later not run)")
            break
        results.append(run_deck(deck, args.game, [int(i) for i in args.iterations.split(",") if i],
                                [b for b in args.bots.split(",") if b], args.restarts, args.seed, deadline,
                                kicks=args.kicks, exact_seconds=args.exact_seconds))
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
