"""UP&DOWN's and Euchre's research decks solved with OpenSpiel (issue 34): CFR and CFR+ exploitability
over the iterations, and the exploitability of the project's bots, on games small enough to solve
exactly.

    nice -n 10 .venv/bin/python benchmarks/research_variants.py                     # 3:DS:1, 3:DS:2
    nice -n 10 .venv/bin/python benchmarks/research_variants.py --decks 4:DS:2 --iterations 200 \\
        --checkpoints 1,2,5,10,20,50,100,200 --bots greedy,easy,random
    nice -n 10 .venv/bin/python benchmarks/research_variants.py --decks 3:DS:1 --python-cfr 100
    nice -n 10 .venv/bin/python benchmarks/research_variants.py --game euchre --decks 9TJQK:H:1,9JA:DH:1 \\
        --iterations 200 --normal-decks 9TJQK:H:1,9JA:DH:1
    .venv/bin/python benchmarks/research_variants.py --replot a.json,b.json --plot out.png

Euchre (``--game euchre``): one deal (``deals=1``) of four seats, its option ``deck`` written
``RANKS:SUITS:HAND`` (``9JA:DH:1``: 9, J, A of diamonds and hearts, one card each); the export
leaves out the decisions without a choice (one-card hands play without one), and exploitability
is OpenSpiel's ``NashConv / 4`` (each seat's best response alone; ``docs/research-variants.md``).

The Sueca game (``--game updown-sueca``): one deal (``deals=1``) of four seats, each for itself, its
option ``deck`` written ``RANKS:SUITS:HAND`` (``K7A:DH:1``: K, 7, A of diamonds and hearts, one card
each, two in the stock); the export leaves out the decisions without a choice, the utility is the
adapter's (from the placings after the deal: +1 first alone, -1 last alone), and exploitability is
``NashConv / 4``.

    nice -n 10 .venv/bin/python benchmarks/research_variants.py --game updown-sueca \\
        --decks 7A:DH:1,QJK7A:H:1,K7A:DH:1 --iterations 100 --checkpoints 1,2,5,10,20,50,100 \\
        --normal-decks 7A:DH:1,QJK7A:H:1,K7A:DH:1

Up or Down? (``--game up-or-down``): two players, one game, its option ``deck`` written
``CARDS:COLOURS:HAND:DISPLAY:COLUMNS`` (``6:2:1:2:2``: cards 1, 2, 7, 8, 13, 14, ruby and gold, one
each, a display of two, one card face down and one face up, at most two columns); the export leaves
out the decisions without a choice (a one-card hand plays itself, a first card can only start a
column), the utility is the adapter's (+1 for the higher score, -1 for the lower, 0 each on a tie).

    nice -n 10 .venv/bin/python benchmarks/research_variants.py --game up-or-down --decks 6:2:2:2:1 \
        --iterations 1000 --normal-decks 6:2:2:2:1

A research deck (UP&DOWN's option ``deck``, ``docs/research-variants.md``) is the same game with
fewer cards: ``TOP:SUITS:HAND`` deals values 2 to TOP of SUITS, HAND cards each, and sets the trump
with two dice of ceil(TOP / 2) faces. Here: 2 players, one round, utility the adapter's (+1 for the
seat with more tricks, -1 for the other, 0 each on a tie).

**How the game reaches OpenSpiel.** ``python_updown_turns(players=2,rounds=1,deck=...)`` is the game
(``updown/adapters/openspiel.py``); OpenSpiel's Python ``CFRSolver`` runs on it as it is
(``--python-cfr``), but it walks the whole tree through the engine at every iteration: about a
second per iteration for 3:DS:1 (8 thousand nodes), about 50 s for 3:DS:2. So :class:`Export` walks the same game
once and writes it as a Gambit EFG file, which OpenSpiel loads as a C++ game
(``pyspiel.load_efg_game``) for its C++ ``CFRSolver``, ``CFRPlusSolver`` and ``exploitability``.
The export is the same game, node for node, except that chance is merged:

* a decision node is the adapter's: the seat is ``actors()[0]``, the actions are its legal actions
  (labelled by their notation), and the information set is the adapter's information-state string
  (the seat's view as sorted JSON, kept as a 128-bit hash), numbered in order of discovery;
* a run of chance steps (the deal card by card, the dice, the toss, the orientation) is one chance
  node whose outcomes are the distinct positions it ends in (the same view for every seat), each
  with the total probability of the runs that reach it: dealing the same hands in another order
  ends in the same position, so the merge changes no information set and no expected value;
* a terminal node pays the adapter's returns.

``tests/test_research_variants.py`` checks that OpenSpiel's Python CFR gives the same
exploitability, iteration by iteration, on the adapter's game and on its export.

**Bots as policies.** At every information set the bot is asked through the protocol alone:
``bot.act(view, legal)`` with the seat's view there (an information set is one view). ``greedy`` is a
pure policy; ``easy`` is greedy with a uniformly random legal action one time in three (its exact
mixture, from ``EasyBot.randomness``: the tests check it against the bot's own draws); ``random``
is uniform; ``normal`` is the generic ``normal`` level (``updown.bots.search.NormalBot``: ISMCTS
from its own view, 90 ms a decision, anchored on greedy), asked once per information set, so a pure
policy drawn from its behaviour. (UP&DOWN's own ``normal``, ``pimc`` over the batched numpy
engine, cannot play a research deck: the batched engine deals the full deck.) ``level:NAME@N`` is
the game's own level NAME (``make_bot``; Up or Down?'s ``normal`` and ``hard`` are ``pimc`` over
the engine and play research decks) held to N worlds (or simulations) with no clock, so that its
policy is the same at any load from the same seed; ``level:NAME`` keeps its clock. A policy's
exploitability is OpenSpiel's: the mean over the two seats of what a best response gains against
it, in the game's utility (a game is worth +1, 0 or -1).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from updown.adapters.observations import placing_utility  # noqa: E402
from updown.core.protocol import State, View  # noqa: E402
from updown.core.registry import get_game  # noqa: E402

GAME = get_game("updown")
PLAYERS = 2
VARIANTS: dict[str, tuple[int, dict[str, Any]]] = {
    "updown": (2, {"rounds": 1}), "euchre": (4, {"deals": 1}), "updown-sueca": (4, {"deals": 1}),
    "up-or-down": (2, {}),
}
"""Per game: the players and the options besides ``deck`` of its research variants (one round of
UP&DOWN for two; one deal of Euchre; one deal of the Sueca game; Up or Down? for two, a game being
one round)."""
DEFAULT_DECKS = ("3:DS:1", "3:DS:2")
DEFAULT_CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
ABOUT = {
    "3:DS:1": "2 and 3 of diamonds and spades, one card each (one trick: only the leader chooses)",
    "3:DS:2": "2 and 3 of diamonds and spades, two cards each (every card dealt: hands known)",
    "4:DS:2": "2 to 4 of diamonds and spades, two cards each, two set aside (hands hidden)",
    "9JA:DH:1": "Euchre: 9, J, A of diamonds and hearts (both bowers), one card each, one undealt",
    "JA:CDS:1": "Euchre: J, A of clubs, diamonds, spades (one bower missing), one card each, one undealt",
    "9TJA:DH:1": "Euchre: 9, 10, J, A of diamonds and hearts, one card each, three undealt",
    "9TJQK:H:1": "Euchre: 9 to K of hearts, one card each, none undealt (a named suit has no card but JH)",
    "7A:DH:1": "Sueca: 7 and A of diamonds and hearts, one card each, no stock (no exchange)",
    "K7A:DH:1": "Sueca: K, 7, A of diamonds and hearts, one card each, two in the stock",
    "JK7A:H:1": "Sueca: J, K, 7, A of hearts, one card each, no stock",
    "QJK7A:H:1": "Sueca: Q, J, K, 7, A of hearts, one card each, one in the stock",
    "6:2:2:2:1": "Up or Down?: cards 1 2 7 8 13 14, two each, a display of 2, no piles (every card seen), 1 column",
    "6:2:1:2:2": "Up or Down?: cards 1 2 7 8 13 14, one each, a display of 2, one face down, one face up, 2 columns",
    "6:2:2:2:2": "Up or Down?: cards 1 2 7 8 13 14, two each, a display of 2, no piles (every card seen), 2 columns",
    "4:2:1:2:1": "Up or Down?: cards 1 2 7 8, one each, a display of 2, no piles, 1 column",
}


def options(deck: str, game_id: str = "updown") -> dict[str, Any]:
    return {**VARIANTS[game_id][1], "deck": deck}


def info_string(state: State, seat: int) -> str:
    """The adapter's information-state string (``ViewObserver.string_from`` with perfect recall)."""
    return json.dumps(state.view(seat), sort_keys=True, separators=(",", ":"))


def _position_key(state: State) -> str:
    """What tells two positions apart: every seat's view (the rest, the cards set aside, follows)."""
    return json.dumps([state.view(s) for s in range(state.players)], sort_keys=True, separators=(",", ":"))


@dataclass
class InfoSet:
    """One information set of the export: its seat, its EFG number and its actions."""

    seat: int
    number: int
    legal: list[int]
    """Engine action ids, in the order the EFG lists them (ascending EFG ids)."""
    efg: list[int]
    """The EFG game's action id of each."""

    @property
    def key(self) -> str:
        """The EFG game's information-state string (``owner-observer-number-name``, no name)."""
        return f"{self.seat}-{self.seat}-{self.number}-"


OnInfoSet = Callable[[InfoSet, View], None]


@dataclass
class Export:
    """The exact tree of a research deck's game as Gambit EFG text (see the module docstring).

    ``on_infoset(info, view)`` is called once per information set, when it is first found, with
    the seat's view there (to ask bots). With ``forced=False`` a decision with a single legal
    action is not written: the walk plays it and goes on (the same game for CFR, best responses and
    every policy, with fewer nodes: Euchre's one-card hands are played without a choice)."""

    deck: str
    on_infoset: OnInfoSet | None = None
    game_id: str = "updown"
    forced: bool = True
    infosets: list[dict[bytes, InfoSet]] = field(default_factory=list)
    nodes: dict[str, int] = field(default_factory=lambda: {"chance": 0, "decision": 0, "terminal": 0})
    _lines: list[str] = field(default_factory=list)
    _labels: dict[str, int] = field(default_factory=dict)
    longest: int = 0
    """The longest information-state string met."""

    def __post_init__(self) -> None:
        start = time.perf_counter()
        self.game = get_game(self.game_id)
        self.players = VARIANTS[self.game_id][0]
        self.infosets = [{} for _ in range(self.players)]
        self._walk(self.game.new_state(self.players, self.game.options(options(self.deck, self.game_id))))
        self.seconds = time.perf_counter() - start

    def text(self) -> str:
        seats = " ".join(f'"seat {s}"' for s in range(self.players))
        head = f'EFG 2 R "{self.game.name} deck={self.deck}" {{ {seats} }}\n'
        return head + "".join(self._lines)

    def load(self) -> Any:
        import pyspiel

        return pyspiel.load_efg_game(self.text())

    def all_infosets(self) -> Iterable[InfoSet]:
        for table in self.infosets:
            yield from table.values()

    # -- the walk ---------------------------------------------------------------------------------
    def _chance_runs(self, state: State) -> list[tuple[Fraction, State]]:
        """The distinct positions a run of chance steps ends in, with their probabilities."""
        found: dict[str, list[Any]] = {}
        stack = [(state, Fraction(1))]
        while stack:
            s, p = stack.pop()
            if s.is_chance():
                outcomes = s.chance_outcomes()
                share = Fraction(1, len(outcomes))  # every outcome of every chance step is equally likely
                for action, q in outcomes:
                    assert abs(q - float(share)) < 1e-12, (action, q)
                    child = s.clone()
                    child.apply(action)
                    stack.append((child, p * share))
                continue
            key = _position_key(s)
            if key in found:
                found[key][0] += p
            else:
                found[key] = [p, s]
        assert sum(p for p, _ in found.values()) == 1
        return [(p, s) for _key, (p, s) in sorted(found.items())]

    def _walk(self, state: State) -> None:
        out = self._lines.append
        if state.is_terminal():
            self.nodes["terminal"] += 1
            payoff = " ".join(repr(float(u)) for u in placing_utility(state.result()))
            out(f't "" {self.nodes["terminal"]} "" {{ {payoff} }}\n')
            return
        if state.is_chance():
            self.nodes["chance"] += 1
            runs = self._chance_runs(state)
            # Labels o0, o1, ... in this order get ascending ids in the EFG game, which lists a
            # node's children in the order written but its action ids sorted: the two must agree.
            items = " ".join(f'"o{i}" {p.numerator}/{p.denominator}' for i, (p, _) in enumerate(runs))
            out(f'c "" {self.nodes["chance"]} "" {{ {items} }} 0\n')
            for _p, s in runs:
                self._walk(s)
            return
        seat = state.actors()[0]
        if not self.forced:
            legal = state.legal_actions(seat)
            if len(legal) == 1:  # no choice: played, not written (the state is this call's own)
                self.nodes["forced"] = self.nodes.get("forced", 0) + 1
                state.apply(legal[0], seat)
                self._walk(state)
                return
        self.nodes["decision"] += 1
        text = info_string(state, seat)
        self.longest = max(self.longest, len(text))
        key = hashlib.blake2b(text.encode(), digest_size=16).digest()
        info = self.infosets[seat].get(key)
        if info is None:
            info = self._new_infoset(seat, sorted(state.legal_actions(seat)))
            self.infosets[seat][key] = info
            if self.on_infoset is not None:
                self.on_infoset(info, state.view(seat))
        else:
            assert sorted(info.legal) == sorted(state.legal_actions(seat)), "one information set, two action sets"
        names = " ".join(f'"{self.game.action_to_str(a)}"' for a in info.legal)
        out(f'p "" {seat + 1} {info.number} "" {{ {names} }} 0\n')
        for action in info.legal:
            child = state.clone()
            child.apply(action, seat)
            self._walk(child)

    def _new_infoset(self, seat: int, legal: list[int]) -> InfoSet:
        # The EFG game numbers action labels in the order it first reads them, and lists a node's
        # children in the order written but its legal actions sorted by id: so the actions are
        # written in ascending id order, labels already known first, new ones after (new ids are
        # higher than every known one).
        labels = self._labels
        name = self.game.action_to_str
        known = sorted((labels[name(a)], a) for a in legal if name(a) in labels)
        new = [a for a in legal if name(a) not in labels]
        for a in new:
            labels[name(a)] = len(labels)
        order = [a for _, a in known] + new
        return InfoSet(seat, len(self.infosets[seat]) + 1, order, [labels[name(a)] for a in order])


# -- policies -----------------------------------------------------------------------------------------

Policy = dict[str, list[tuple[int, float]]]
"""A policy of the EFG game: information-state string -> [(EFG action id, probability)]."""


class BotPolicies:
    """Asks bots at each information set of an :class:`Export` (pass :meth:`visit` as its
    ``on_infoset``) and keeps each bot's policy of the EFG game."""

    def __init__(self, names: Sequence[str], seed: int = 0, game_id: str = "updown"):
        from updown.bots import make_bot
        from updown.bots.search import EasyBot, NormalBot

        game = get_game(game_id)
        self.names = list(names)
        self.policies: dict[str, Policy] = {name: {} for name in self.names}
        self.asked = {name: 0 for name in self.names}
        self.seconds = {name: 0.0 for name in self.names}
        self._bots: dict[str, list[Any]] = {}
        for name in self.names:
            seats: list[Any] = []
            for seat in range(VARIANTS[game_id][0]):
                rng = random.Random(seed * 1000 + seat)
                if name == "normal":  # the generic level: the games' own normal need the batched engines
                    seats.append(NormalBot(game, seat, rng))
                elif name.startswith("level:"):
                    seats.append(held_level(name, game, seat, rng))
                elif name != "random":
                    seats.append(make_bot(name, game, seat, rng))
            self._bots[name] = seats
        self._easy = EasyBot

    def probabilities(self, name: str, seat: int, view: View, legal: Sequence[int]) -> list[float]:
        """The bot's probability of each of ``legal`` at ``view``."""
        if len(legal) == 1:
            return [1.0]
        if name == "random":
            return [1.0 / len(legal)] * len(legal)
        bot = self._bots[name][seat]
        start = time.perf_counter()
        if isinstance(bot, self._easy):  # greedy, or a random legal action with its randomness
            chosen = bot.base.act(view, list(legal))
            spread = bot.randomness / len(legal)
            probs = [spread + (1.0 - bot.randomness) * (a == chosen) for a in legal]
        else:
            chosen = bot.act(view, list(legal))
            probs = [float(a == chosen) for a in legal]
        self.seconds[name] += time.perf_counter() - start
        self.asked[name] += 1
        return probs

    def visit(self, info: InfoSet, view: View) -> None:
        for name in self.names:
            probs = self.probabilities(name, info.seat, view, info.legal)
            self.policies[name][info.key] = list(zip(info.efg, probs))


def held_level(name: str, game: Any, seat: int, rng: random.Random) -> Any:
    """``level:NAME`` is the game's own level NAME (``make_bot``, e.g. Up or Down?'s ``pimc``
    levels); ``level:NAME@N`` holds it to a count instead of its clock: N worlds (a ``pimc`` level)
    or N simulations (a tree search), no time budget, so that its policy is the same at any load and
    from the same seed. A level that can do neither is refused by name."""
    from updown.bots import make_bot

    level, _, count = name[len("level:"):].partition("@")
    bot: Any = make_bot(level, game, seat, rng)
    if count:
        n = int(count)
        if n < 1:
            raise ValueError(f"{name}: the count after @ must be at least 1")
        if hasattr(bot, "worlds"):
            bot.worlds, bot.min_worlds = n, min(n, bot.min_worlds)
        elif hasattr(bot, "simulations"):
            bot.simulations = n
        else:
            raise ValueError(f"{name}: {level} has neither worlds nor simulations to hold to a count")
        bot.milliseconds = None
    return bot


def uniform_policy(export: Export) -> Policy:
    return {i.key: [(a, 1.0 / len(i.efg)) for a in i.efg] for i in export.all_infosets()}


def exploitability(game: Any, policy: Policy | Any) -> float:
    """OpenSpiel's exploitability (C++) of a policy of the EFG game."""
    import pyspiel

    if isinstance(policy, dict):
        policy = pyspiel.TabularPolicy(policy)
    return float(pyspiel.exploitability(game, policy))


# -- solvers ------------------------------------------------------------------------------------------

def cfr_curve(game: Any, solver_name: str, iterations: int, checkpoints: Sequence[int],
              log: Callable[[str], None] = print) -> list[tuple[int, float, float]]:
    """``(iteration, exploitability of the average policy, seconds of solving so far)`` at each
    checkpoint up to ``iterations``; ``solver_name`` is ``cfr`` or ``cfr+`` (OpenSpiel's C++)."""
    import pyspiel

    solver = pyspiel.CFRSolver(game) if solver_name == "cfr" else pyspiel.CFRPlusSolver(game)
    points = []
    solving = 0.0
    marks = sorted({c for c in checkpoints if c <= iterations} | {iterations})
    done = 0
    for mark in marks:
        start = time.perf_counter()
        while done < mark:
            solver.evaluate_and_update_policy()
            done += 1
        solving += time.perf_counter() - start
        value = exploitability(game, solver.average_policy())
        points.append((mark, value, solving))
        log(f"  {solver_name:4} {mark:6d} iterations: exploitability {value:.6f}  ({solving:.1f} s solving)")
    return points


def python_cfr_on_adapter(deck: str, iterations: int, checkpoints: Sequence[int] = (),
                          log: Callable[[str], None] = print, game_id: str = "updown") -> list[tuple[int, float, float]]:
    """OpenSpiel's Python ``CFRSolver`` on the adapter's game itself (no export); Python
    ``exploitability`` at the checkpoints. Slow: for the smallest decks."""
    import pyspiel
    from open_spiel.python.algorithms import cfr
    from open_spiel.python.algorithms import exploitability as python_exploitability

    import updown.adapters.openspiel  # noqa: F401  (registers the games)

    name = "python_updown_turns" if game_id == "updown" else "python_" + game_id.replace("-", "_")
    game = pyspiel.load_game(name, {"players": VARIANTS[game_id][0], **options(deck, game_id)})
    solver = cfr.CFRSolver(game)
    points = []
    solving = 0.0
    for it in range(1, iterations + 1):
        start = time.perf_counter()
        solver.evaluate_and_update_policy()
        solving += time.perf_counter() - start
        if it in checkpoints or it == iterations:
            value = float(python_exploitability.exploitability(game, solver.average_policy()))
            points.append((it, value, solving))
            log(f"  python cfr on {name} {it:4d} iterations: exploitability {value:.6f}  "
                f"({solving:.1f} s solving)")
    return points


# -- the benchmark ------------------------------------------------------------------------------------

def run_deck(deck: str, iterations: int, checkpoints: Sequence[int], bots: Sequence[str],
             normal_decks: Sequence[str], seed: int, log: Callable[[str], None] = print,
             game_id: str = "updown", forced: bool | None = None) -> dict[str, Any]:
    """One research deck: its export, the bots' exploitability and the solvers' curves. ``forced``
    (default: UP&DOWN yes, Euchre no) writes the decisions without a choice (see :class:`Export`)."""
    names = [b for b in bots if b != "normal" or deck in normal_decks]
    asked = BotPolicies(names, seed, game_id)
    log(f"{game_id} deck {deck}: {ABOUT.get(deck, '')}")
    export = Export(deck, on_infoset=asked.visit, game_id=game_id,
                    forced=(game_id == "updown") if forced is None else forced)
    text = export.text()
    sizes = [len(t) for t in export.infosets]
    several = sum(1 for i in export.all_infosets() if len(i.legal) > 1)
    log(f"  tree: {export.nodes} nodes; information sets {sizes} ({several} with a choice, the longest "
        f"string {export.longest} characters); EFG {len(text) / 1e6:.1f} MB; walked in {export.seconds:.1f} s "
        f"(bots asked: {', '.join(f'{n} {asked.seconds[n]:.1f} s' for n in names) or 'none'})")
    import pyspiel

    start = time.perf_counter()
    game = pyspiel.load_efg_game(text)
    del text
    log(f"  loaded by pyspiel.load_efg_game in {time.perf_counter() - start:.1f} s")
    result: dict[str, Any] = {
        "game": game_id, "players": export.players, "deck": deck, "about": ABOUT.get(deck, ""), "nodes": export.nodes, "infosets": sizes,
        "infosets_with_choice": several, "longest_string": export.longest,
        "export_seconds": round(export.seconds, 1), "bots": {}, "curves": {},
    }
    for name in [*names, "uniform"]:
        policy = asked.policies[name] if name != "uniform" else uniform_policy(export)
        if name == "random":
            continue  # the same policy as uniform
        value = exploitability(game, policy)
        result["bots"][name] = value
        log(f"  {name:8} exploitability {value:.4f}")
    for solver in ("cfr", "cfr+"):
        result["curves"][solver] = cfr_curve(game, solver, iterations, checkpoints, log)
    return result


def merge(into: dict[str, Any], res: dict[str, Any]) -> None:
    """Add one run's results for a deck to another's: its bots, and its curves where longer."""
    into["bots"].update(res["bots"])
    for solver, points in res["curves"].items():
        if len(points) > len(into["curves"].get(solver, [])):
            into["curves"][solver] = points


def plot(results: Sequence[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(5.2 * len(results), 4.2), squeeze=False)
    styles = {"greedy": ("tab:red", "--"), "easy": ("tab:orange", "--"), "normal": ("tab:purple", "--"),
              "uniform": ("tab:gray", ":")}
    for ax, res in zip(axes[0], results):
        for solver, colour in (("cfr", "tab:blue"), ("cfr+", "tab:green")):
            pts = res["curves"][solver]
            ax.loglog([p[0] for p in pts], [p[1] for p in pts], "o-", color=colour, label=solver.upper())
        for name, value in res["bots"].items():
            colour, line = styles.get(name, ("black", "--"))
            if value > 1e-9:
                ax.axhline(value, color=colour, linestyle=line, label=f"{name} {value:.3f}")
            else:  # a log scale has no 0: listed, not drawn
                ax.plot([], [], color=colour, linestyle=line, label=f"{name} 0 (not drawn)")
        game = res.get("game", "updown")
        prefix = {"euchre": "Euchre ", "updown-sueca": "Sueca ", "up-or-down": "Up or Down? "}.get(game, "")
        ax.set_title(f"{prefix}deck={res['deck']}  "
                     f"({sum(res['infosets']):,} information sets)", fontsize=10)
        ax.set_xlabel("iterations")
        ax.set_ylabel("exploitability (a game is worth ±1)" if game in ("updown", "up-or-down")
                      else "exploitability (NashConv / 4; a deal is worth ±2/3)" if game == "euchre"
                      else "exploitability (NashConv / 4; a deal is worth ±1)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    games = {res.get("game", "updown") for res in results}
    fig.suptitle("Euchre research decks, one deal: OpenSpiel's CFR and the bots" if games == {"euchre"} else
                 "Sueca game research decks, one deal: OpenSpiel's CFR and the bots" if games == {"updown-sueca"} else
                 "Up or Down? research decks, 2 players: OpenSpiel's CFR and the bots" if games == {"up-or-down"} else
                 "UP&DOWN research decks, 2 players, one round: OpenSpiel's CFR and the bots"
                 if games == {"updown"} else "research decks: OpenSpiel's CFR and the bots", fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="updown", choices=sorted(VARIANTS),
                    help="updown (2 players, one round), euchre or updown-sueca (one deal), up-or-down (2 players)")
    ap.add_argument("--decks", default=",".join(DEFAULT_DECKS), help="research decks, comma-separated")
    ap.add_argument("--keep-forced", action="store_true",
                    help="write the decisions without a choice too (Euchre leaves them out by default)")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--checkpoints", default=",".join(map(str, DEFAULT_CHECKPOINTS)))
    ap.add_argument("--bots", default="greedy,easy,normal,random")
    ap.add_argument("--normal-decks", default="3:DS:1",
                    help="decks on which normal is asked (90 ms per information set with a choice)")
    ap.add_argument("--python-cfr", type=int, default=0,
                    help="also run OpenSpiel's Python CFR this many iterations on the adapter's game")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plot", default=str(ROOT / "test-output" / "research-variants.png"))
    ap.add_argument("--json", default=str(ROOT / "test-output" / "research-variants.json"))
    ap.add_argument("--replot", default="",
                    help="draw the plot from these JSON files of earlier runs (comma-separated), run nothing")
    args = ap.parse_args(argv)
    if args.replot:
        saved: dict[str, dict[str, Any]] = {}
        for name in args.replot.split(","):
            for res in json.loads(Path(name).read_text()):
                merge(saved.setdefault(res["deck"], {**res, "bots": {}, "curves": {}}), res)
        plot(list(saved.values()), Path(args.plot))
        print(f"plot: {args.plot}")
        return 0
    decks = [d for d in args.decks.split(",") if d]
    checkpoints = [int(c) for c in args.checkpoints.split(",") if c]
    bots = [b for b in args.bots.split(",") if b]
    load = os.getloadavg()
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    results = []
    for deck in decks:
        res = run_deck(deck, args.iterations, checkpoints, bots, args.normal_decks.split(","), args.seed,
                       game_id=args.game, forced=True if args.keep_forced else None)
        if args.python_cfr:
            res["python_cfr_on_adapter"] = python_cfr_on_adapter(deck, args.python_cfr, checkpoints,
                                                                game_id=args.game)
        results.append(res)
        if args.json:  # after every deck: a long run stopped later keeps what it has done
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if args.plot:
        plot(results, Path(args.plot))
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
