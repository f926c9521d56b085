"""What two seats gain by changing their play together, on Euchre's and the Sueca game's research decks
(issue 34): bounds on a team best response, beside OpenSpiel's per-seat ``NashConv / 4``.

    nice -n 10 .venv/bin/python benchmarks/team_response.py --game euchre --decks 9TJQK:H:1,9JA:DH:1,JA:CDS:1
    nice -n 10 .venv/bin/python benchmarks/team_response.py --game updown-sueca --decks 7A:DH:1,QJK7A:H:1

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


def objective(tree: Tree, seats: Iterable[int]) -> list[float]:
    """At each terminal node, the sum of ``seats``' payoffs (0 elsewhere)."""
    seats = list(seats)
    return [sum(tree.payoff[h][s] for s in seats) if tree.kind[h] == TERMINAL else 0.0 for h in range(len(tree))]


def evaluate(tree: Tree, beh: Behaviour, util: list[float], choice: dict[Hashable, int] | None = None,
             keys: list[Hashable] | None = None) -> list[float]:
    """Every node's expected ``util`` when play follows ``beh``, except at the decision nodes with a
    key in ``keys`` (a deviating player's information sets): there ``choice[key]`` is played (a node
    whose key has no choice yet is worth 0: a caller does not read it)."""
    kind, children, chance, ikey = tree.kind, tree.children, tree.chance, tree.key
    v = [0.0] * len(kind)
    for h in range(len(kind) - 1, -1, -1):
        k = kind[h]
        if k == TERMINAL:
            v[h] = util[h]
        elif k == CHANCE:
            v[h] = sum(p * v[c] for p, c in zip(chance[h], children[h]))
        else:
            own = keys[h] if keys is not None else None
            if own is not None:
                a = choice.get(own) if choice is not None else None
                v[h] = v[children[h][a]] if a is not None else 0.0
            else:
                v[h] = sum(p * v[c] for p, c in zip(beh[ikey[h]], children[h]))
    return v


def value(tree: Tree, beh: Behaviour, seats: Iterable[int]) -> float:
    """The expected sum of ``seats``' utilities under ``beh``."""
    return evaluate(tree, beh, objective(tree, seats))[0]


@dataclass
class Response:
    choice: dict[Hashable, int]
    """The best response's action at each of its information sets."""
    value: float
    """Its expected objective (the sum of the objective seats' utilities)."""


def best_response(tree: Tree, beh: Behaviour, seats: Sequence[int], util: list[float],
                  keys: list[Hashable] | None = None) -> Response:
    """The exact best response, for the objective ``util``, of a player who plays every decision of
    ``seats`` and whose information set at a node is ``keys[node]`` (default: the seat's own, so
    one seat's best response); everyone else plays ``beh``. The player must have perfect recall
    (checked: every node of an information set at the same depth of the player's own decisions).

    Information sets are decided deepest first: at each, the action of the highest expected
    ``util`` weighted by the others' and chance's reach of each of its nodes, given the player's
    choices further down."""
    n = len(tree)
    mine = set(seats)
    if keys is None:
        keys = [tree.key[h] if tree.kind[h] == DECISION and tree.seat[h] in mine else None for h in range(n)]
    reach = [0.0] * n
    depth = [0] * n
    reach[0] = 1.0
    levels: dict[int, list[int]] = {}
    key_depth: dict[Hashable, int] = {}
    for h in range(n):
        k = tree.kind[h]
        if k == TERMINAL:
            continue
        r, ch, d = reach[h], tree.children[h], depth[h]
        own = keys[h] if k == DECISION else None
        if own is not None:
            levels.setdefault(d, []).append(h)
            assert key_depth.setdefault(own, d) == d, "the responding player forgets: no perfect recall"
            for c in ch:
                reach[c] = r
                depth[c] = d + 1
            continue
        probs = tree.chance[h] if k == CHANCE else beh[tree.key[h]]
        for p, c in zip(probs, ch):
            reach[c] = r * p
            depth[c] = d
    choice: dict[Hashable, int] = {}
    for level in sorted(levels, reverse=True):
        v = evaluate(tree, beh, util, choice, keys)
        scores: dict[Hashable, list[float]] = {}
        for h in levels[level]:
            ch = tree.children[h]
            row = scores.setdefault(keys[h], [0.0] * len(ch))
            r = reach[h]
            for i, c in enumerate(ch):
                row[i] += r * v[c]
        for own, row in scores.items():
            choice[own] = max(range(len(row)), key=row.__getitem__)  # the first of equal ones
    return Response(choice, evaluate(tree, beh, util, choice, keys)[0])


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
        gains.append(best_response(tree, beh, [s], util).value - evaluate(tree, beh, util)[0])
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
    its first node's action once, with a negligible weight."""
    n = len(tree)
    reach = [0.0] * n
    reach[0] = 1.0
    weight: dict[Key, list[float]] = {}
    for h in range(n):
        k = tree.kind[h]
        if k == TERMINAL:
            continue
        ch = tree.children[h]
        if k == DECISION and tree.seat[h] in team:
            a = joint.choice[keys[h]]
            row = weight.setdefault(tree.key[h], [0.0] * len(ch))
            row[a] += reach[h] + 1e-300 * (not any(row))
            for i, c in enumerate(ch):
                reach[c] = reach[h] * (i == a)
            continue
        probs = tree.chance[h] if k == CHANCE else beh[tree.key[h]]
        for p, c in zip(probs, ch):
            reach[c] = reach[h] * p
    return weight


def team_bounds(tree: Tree, beh: Behaviour, team: tuple[int, int], restarts: int = 2, seed: int = 0,
                rounds: int = 50, kicks: int = 0) -> TeamBounds:
    """The lower and upper bounds (module docstring) on what ``team`` gains against ``beh``."""
    a, b = team
    util = objective(tree, team)
    base = evaluate(tree, beh, util)[0]
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
            restarts: int, seed: int, kicks: int = 0) -> dict[str, Any]:
    """One policy: OpenSpiel's NashConv / 4, each seat's own gain, each pair's bounds, each
    partition's team figures."""
    published = rv.exploitability(game, policy_of(tree, beh))
    gains = seat_gains(tree, beh)
    pairs: dict[tuple[int, int], TeamBounds] = {}
    for split in partitions:
        for team in split:
            if team not in pairs:
                pairs[team] = team_bounds(tree, beh, team, restarts, seed, kicks=kicks)
    return {
        "nashconv/4": published,
        "seat_gains": gains,
        "own_nashconv/4": sum(gains) / len(gains),
        "pairs": {f"{t[0]}{t[1]}": {"base": r.base, "lower_gain_per_seat": r.lower_gain / 2,
                                    "upper_gain_per_seat": r.upper_gain / 2, "start": r.start,
                                    "starts": {k: (v - r.base) / 2 for k, v in r.starts.items()},
                                    "best_responses": r.steps} for t, r in pairs.items()},
        "partitions": {"|".join(f"{t[0]}{t[1]}" for t in split): {
            "lower": sum(pairs[t].lower_gain for t in split) / 4,
            "upper": sum(pairs[t].upper_gain for t in split) / 4} for split in partitions},
    }


def run_deck(deck: str, game_id: str, iterations: Sequence[int], bot_names: Sequence[str],
             restarts: int, seed: int, deadline: float, log: Callable[[str], None] = print,
             kicks: int = 0) -> dict[str, Any]:
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
        res = measure(tree, game, beh, partitions, restarts, seed, kicks)
        res["seconds"] = round(time.perf_counter() - begun, 1)
        res["load"] = round(os.getloadavg()[0], 1)
        result["policies"][name] = res
        assert abs(res["own_nashconv/4"] - res["nashconv/4"]) < 1e-9, (name, res["own_nashconv/4"], res["nashconv/4"])
        log(f"  {name:10} {res['nashconv/4']:11.6f}  " + "  ".join(
            f"{'':>5}{p['lower']:9.6f} {p['upper']:9.6f}" for p in res["partitions"].values())
            + f"   {res['seconds']:5.1f}")
        for pair, p in res["pairs"].items():
            log(f"      pair {pair}: per seat lower {p['lower_gain_per_seat']:.6f} (from {p['start']}), "
                f"upper {p['upper_gain_per_seat']:.6f}; seats alone {', '.join(f'{g:.6f}' for g in res['seat_gains'])}")
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
                                kicks=args.kicks))
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
