"""Strength of one of our bots against OpenSpiel's C++ ISMCTS at single deals of Euchre.

    .venv/bin/python benchmarks/euchre_vs_ismcts.py BOT [DEALS] [--sims N] [--seed S] [--uct-c C] [--match-time F]
        [--aim X [--min-deals K]] [--seconds T] [--from D]

Needs the ``open_spiel`` extra (``pip install open_spiel==2.0.2``, in ``.[test]``).

The game is pyspiel's ``euchre`` (default parameters: stick the dealer on, no lone defender, which
are our Euchre's defaults), one deal. One team is BOT (a name for ``updown.bots.make_bot``, e.g.
``greedy``, ``normal``, ``random``; or ``search:sims=..,ms=..,...`` as in ``bots_strength.py``),
the other is ``pyspiel.ISMCTSBot``: random-rollout evaluator (one rollout), ``N`` simulations
(1000 by default), exploration ``C`` (2.0), unlimited world samples (a fresh resample of the
information state per simulation), the most visited action (``MAX_VISIT_COUNT``), information-state
keys. ISMCTS plays on pyspiel's state, from which it only uses its information state.

``--match-time F`` holds BOT to ISMCTS's pace on a machine whose load changes: before each of
BOT's decisions its ``milliseconds`` budget is set to ``F`` times the median of ISMCTS's last 51
decision times (BOT's own budget until ISMCTS has made 5), so a busy spell slows both sides alike.
BOT must be a search bot (it has a ``milliseconds`` budget).

``--aim X`` is a sequential test of BOT's points less ISMCTS's per deal against ``X``: from deal
``K`` on (``--min-deals``, 20), after every deal, the run stops as soon as the 95% interval of the
mean (Student's t over deals, ``updown.arena.stats.interval``) lies wholly above ``X`` (``met``)
or wholly below it (``failed``); else it ends ``open`` when the DEALS or the ``--seconds`` run
out, and says which. Looking after every deal makes a stop somewhat likelier than 5% by chance.
``--from D`` starts at the seed's deal ``D`` (0-based): a run stopped at its ``D``-th deal is
continued past the stop on the same deals by running it again with ``--from D`` (the interval
then covers the new deals only; pool the two runs for the whole). The report names the engine module imported (compiled ``.so`` or pure ``.py``) and the load
average at the start and the end.

Duplicate deals: each deal (dealer and cards drawn by a seeded rng) is played twice, BOT as seats
0 and 2, then as seats 1 and 3, with the same cards. The figure per deal is the mean over the two
rotations of BOT's team points minus ISMCTS's team points; the report gives its mean over deals
with the standard error, and both sides' median and max time per decision (decisions with more
than one legal action).

OpenSpiel's engine is the referee. BOT sees only its own view: the harness keeps a mirror of the
deal in our engine, fed the same dealer, cards and decisions, and calls BOT with
``mirror.view(seat)`` and ``mirror.legal_actions(seat)``. The mapping between the two engines is
the one of ``tests/test_euchre_openspiel.py`` (copied below); the one difference in the rules is
when "alone" is said:

* OpenSpiel asks the maker "alone?" only after the dealer's discard (first round) or right after
  the suit is named (second round); ours declares it with the bid. When ISMCTS makes trump, the
  mirror applies the plain bid (``order up``, ``pick up``, ``name X``) provisionally; when its
  answer is "alone", the mirror is rebuilt by replaying its decisions with the bid's alone
  version. The only decision of ours inside that window is the dealer's discard when an opponent
  ordered up: our dealer then sees a plain order-up, which tells it nothing about the answer, as
  in OpenSpiel, where nobody knows it yet.
* When the dealer's partner orders up alone, our dealer sits out without picking up; OpenSpiel's
  dealer still picks up and discards. If that dealer is ours, the harness discards its first card
  in pyspiel (it sits out, so the card never matters) without asking BOT; if it is ISMCTS's, its
  discard is dropped from the mirror when the mirror is rebuilt.
* When BOT makes trump, the harness answers OpenSpiel's "alone?" from BOT's bid.

After every step the mirror and pyspiel are checked against each other (the seat to act and the
legal decisions through the mapping, whenever no "alone?" answer is pending), and at the end both
engines' points must agree; a mismatch raises ``AssertionError`` (a harness bug).
"""

from __future__ import annotations

import importlib.util
import math
import os
import random
import statistics
import sys
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from updown.arena.stats import interval
from updown.bots import make_bot
from updown.core.registry import get_game
from updown.games.euchre import (
    DEALER, DISCARD, NAME, NAME_ALONE, NUM_CARDS, ORDER_UP, ORDER_UP_ALONE, PASS, PICK_UP,
    PICK_UP_ALONE, EuchreState, Phase,
)

# -- the mapping between the engines (as in tests/test_euchre_openspiel.py) -----------------------
OS_PASS, OS_SUIT, OS_ALONE, OS_PARTNER = 24, 25, 29, 30
ALONE_OF = {ORDER_UP: ORDER_UP_ALONE, PICK_UP: PICK_UP_ALONE, **{NAME + s: NAME_ALONE + s for s in range(4)}}


def os_card(card: int) -> int:
    """OpenSpiel's id of our card ``suit * 6 + rank``."""
    return (card % 6) * 4 + card // 6


def our_card(os: int) -> int:
    return (os & 3) * 6 + (os >> 2)


def os_bid(action: int, upsuit: int) -> int:
    """The OpenSpiel bidding action behind one of our bids (alone or not)."""
    if action == PASS:
        return OS_PASS
    if action in (ORDER_UP, ORDER_UP_ALONE, PICK_UP, PICK_UP_ALONE):
        return OS_SUIT + upsuit
    if NAME <= action < NAME + 4:
        return OS_SUIT + action - NAME
    if NAME_ALONE <= action < NAME_ALONE + 4:
        return OS_SUIT + action - NAME_ALONE
    raise AssertionError(f"not a bid: {action}")


def is_alone(action: int) -> bool:
    return action in (ORDER_UP_ALONE, PICK_UP_ALONE) or NAME_ALONE <= action < NAME_ALONE + 4


def os_action(state: EuchreState, action: int) -> int:
    """OpenSpiel's action for one of our decisions (a bid, a discard or a card)."""
    phase = state.phase
    if phase in (Phase.BID1, Phase.BID2):
        return os_bid(action, state.upcard // 6)
    if phase == Phase.DISCARD:
        return os_card(action - DISCARD)
    if phase == Phase.PLAY:
        return os_card(action)
    raise AssertionError(f"no OpenSpiel action for {action} in phase {Phase(phase).name}")


def os_actions(state: EuchreState, legal: list[int]) -> set[int]:
    """Our legal decisions, seen through the mapping."""
    return {os_action(state, a) for a in legal}


def our_action(state: EuchreState, os: int) -> int:
    """Our decision for OpenSpiel's action ``os`` in the mirror ``state`` (bids not alone)."""
    phase = state.phase
    if phase in (Phase.BID1, Phase.BID2):
        if os == OS_PASS:
            return PASS
        suit = os - OS_SUIT
        assert 0 <= suit < 4, os
        if phase == Phase.BID2:
            return NAME + suit
        assert suit == state.upcard // 6, (os, state.upcard)
        return PICK_UP if state.turn == state.dealer else ORDER_UP
    if phase == Phase.DISCARD:
        return DISCARD + our_card(os)
    if phase == Phase.PLAY:
        return our_card(os)
    raise AssertionError(f"no action of ours for OpenSpiel's {os} in phase {Phase(phase).name}")


# -- one deal, both engines -----------------------------------------------------------------------
@dataclass
class Deal:
    """A deal: the dealer and the 21 cards (5 to each seat from the dealer's left, the up-card)."""

    dealer: int
    cards: list[int]

    @staticmethod
    def draw(rng: random.Random) -> Deal:
        dealer = rng.randrange(4)
        cards = list(range(NUM_CARDS))
        rng.shuffle(cards)
        return Deal(dealer, cards[:21])

    def hand(self, seat: int) -> list[int]:
        i = (seat - self.dealer - 1) % 4
        return self.cards[5 * i: 5 * i + 5]


class Mirror:
    """Our engine's copy of the deal, rebuilt from its decisions when a bid turns out alone."""

    def __init__(self, deal: Deal):
        self.deal = deal
        self.decisions: list[tuple[int, int]] = []  # (action, seat)
        self.state = self._fresh()

    def _fresh(self) -> EuchreState:
        game = get_game("euchre")
        state = game.new_state(4, game.options({"deals": 1}))
        assert isinstance(state, EuchreState)
        state.apply(DEALER + self.deal.dealer)
        for c in self.deal.cards:
            state.apply(c)
        return state

    def apply(self, action: int, seat: int) -> int:
        """Apply a decision; returns its index (to make a provisional bid alone later)."""
        self.state.apply(action, seat)
        self.decisions.append((action, seat))
        return len(self.decisions) - 1

    def make_alone(self, index: int) -> None:
        """The bid at ``index`` was alone: replay with its alone version. A dealer's discard that
        our rules do not have (the dealer sits out) is dropped."""
        action, seat = self.decisions[index]
        self.decisions[index] = (ALONE_OF[action], seat)
        old, self.decisions = self.decisions, []
        self.state = self._fresh()
        for action, seat in old:
            if DISCARD <= action < PASS and self.state.phase != Phase.DISCARD:
                assert self.state.out == seat == self.state.dealer, (action, seat, self.state.out)
                continue
            self.apply(action, seat)


def _check_sync(mirror: EuchreState, theirs: Any) -> None:
    seat = theirs.current_player()
    assert mirror.actors() == (seat,), (mirror.actors(), seat, str(theirs))
    legal = mirror.legal_actions(seat)
    assert os_actions(mirror, legal) == set(theirs.legal_actions()), (legal, theirs.legal_actions(), str(theirs))


@dataclass
class Rotation:
    """One playing of a deal: our team's points minus theirs, and the decision times."""

    diff: int
    ours: list[float] = field(default_factory=list)
    theirs: list[float] = field(default_factory=list)
    worlds: list[int] = field(default_factory=list)  # worlds our bot used per decision (pimc bots)
    cases: Counter[str] = field(default_factory=Counter)  # how the alone/discard window went


def play_rotation(
    pyspiel: Any, game: Any, deal: Deal, ours: dict[int, Any], ismcts: dict[int, Any],
    recent: deque[float] | None = None, match_time: float | None = None,
) -> Rotation:
    """Play ``deal`` once: ``ours`` maps our seats to our bots, ``ismcts`` the others to pyspiel bots.

    ``recent`` collects ISMCTS's decision times; with ``match_time``, our bot's budget before each
    decision is that fraction of their median (once there are five)."""
    assert sorted([*ours, *ismcts]) == [0, 1, 2, 3]
    theirs = game.new_initial_state()
    theirs.apply_action(deal.dealer)
    for k in range(20):  # OpenSpiel deals card k to seat (dealer + k) % 4 ...
        seat = (deal.dealer + k) % 4
        theirs.apply_action(os_card(deal.hand(seat)[k // 4]))
    theirs.apply_action(os_card(deal.cards[20]))  # ... then the up-card
    mirror = Mirror(deal)
    assert not theirs.is_chance_node() and theirs.upcard() == os_card(deal.cards[20])
    for s in range(4):
        assert sorted(os_card(c) for c in mirror.state.hands[s]) == sorted(
            c for c in range(NUM_CARDS) if theirs.card_holder()[c] == s)

    out = Rotation(0)
    expect: str | None = None  # OpenSpiel's step between the bid and the play: "discard", "alone"
    provisional: int | None = None  # ISMCTS's bid in mirror.decisions, alone answer pending
    our_alone: bool | None = None  # our bid's alone, for OpenSpiel's question
    while not theirs.is_terminal():
        state = mirror.state
        seat = theirs.current_player()
        os_legal = theirs.legal_actions()
        if expect is None or (expect == "discard" and state.phase == Phase.DISCARD):
            _check_sync(state, theirs)
        if seat in ismcts:
            t = time.perf_counter()
            a = ismcts[seat].step(theirs)
            if len(os_legal) > 1:
                out.theirs.append(time.perf_counter() - t)
                if recent is not None:
                    recent.append(out.theirs[-1])
            assert a in os_legal
            if expect == "alone":
                assert provisional is not None and mirror.decisions[provisional][1] == seat
                if a == OS_ALONE:
                    before = len(mirror.decisions)
                    mirror.make_alone(provisional)
                    out.cases["ISMCTS alone, mirror rebuilt"] += 1
                    if len(mirror.decisions) < before:
                        out.cases["ISMCTS alone, its dealer's discard dropped"] += 1
                provisional, expect = None, None
            elif expect == "discard" and state.phase != Phase.DISCARD:  # cannot happen: see docstring
                raise AssertionError(f"ISMCTS's dealer discards while ours sits out: {theirs}")
            else:
                mine = our_action(state, a)
                phase = state.phase
                index = mirror.apply(mine, seat)
                if expect == "discard":
                    expect = "alone"
                elif phase in (Phase.BID1, Phase.BID2) and mine != PASS:
                    provisional = index  # applied as not alone until OpenSpiel asks
                    expect = "discard" if phase == Phase.BID1 else "alone"
        else:
            bot = ours[seat]
            if expect == "alone":  # we said it with the bid
                assert our_alone is not None and state.maker == seat, (state.maker, seat)
                a = OS_ALONE if our_alone else OS_PARTNER
                our_alone, expect = None, None
            elif expect == "discard" and state.phase != Phase.DISCARD:
                # Our partner went alone: our dealer sits out, OpenSpiel's discards (no matter which).
                assert state.out == seat == state.dealer, (state.out, seat, state.dealer)
                assert sorted(os_legal) == sorted(os_card(c) for c in deal.hand(seat)), os_legal
                a = os_legal[0]
                expect = "alone"
                out.cases["our partner alone, our dealer sits out"] += 1
            else:
                _check_sync(state, theirs)
                legal = state.legal_actions(seat)
                if match_time is not None and recent is not None and len(recent) >= 5:
                    bot.milliseconds = 1000.0 * match_time * statistics.median(recent)
                t = time.perf_counter()
                mine = bot.act(state.view(seat), legal)
                if len(legal) > 1:
                    out.ours.append(time.perf_counter() - t)
                    if isinstance(getattr(bot, "used", None), int):
                        out.worlds.append(bot.used)
                assert mine in legal, (mine, legal)
                if provisional is not None:
                    out.cases["our dealer discards, ISMCTS's alone pending"] += 1
                a = os_action(state, mine)
                phase = state.phase
                mirror.apply(mine, seat)
                if expect == "discard":
                    expect = "alone"
                elif phase in (Phase.BID1, Phase.BID2) and mine != PASS:
                    our_alone = is_alone(mine)
                    expect = "discard" if phase == Phase.BID1 else "alone"
        theirs.apply_action(a)
    assert expect is None and provisional is None and our_alone is None
    state = mirror.state
    assert state.is_terminal(), "OpenSpiel's deal ended before ours"
    points = state.history[0]["points"]
    returns = theirs.returns()
    for s in range(4):
        assert returns[s] == points[s & 1] - points[1 - (s & 1)], (returns, state.history[0], str(theirs))
    us = next(iter(ours)) & 1
    out.diff = points[us] - points[1 - us]
    return out


# -- the benchmark --------------------------------------------------------------------------------
def mean_se(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    se = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return m, se


@dataclass
class Report:
    bot: str
    sims: int
    per_deal: list[float] = field(default_factory=list)  # mean over the two rotations
    ours: list[float] = field(default_factory=list)  # our decision times (s)
    theirs: list[float] = field(default_factory=list)  # ISMCTS's decision times (s)
    worlds: list[int] = field(default_factory=list)  # worlds our bot used per decision
    cases: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    verdict: str = ""  # with an aim: met, failed, or open (and why)

    @property
    def deals(self) -> int:
        return len(self.per_deal)

    def mean_se(self) -> tuple[float, float]:
        return mean_se(self.per_deal)

    @staticmethod
    def median_max(times: list[float]) -> tuple[float, float]:
        return (statistics.median(times), max(times)) if times else (float("nan"), float("nan"))

    @staticmethod
    def spread(times: list[float]) -> str:
        """A decision-time distribution in ms: p50, p90, p99, max and the mean."""
        if len(times) < 2:
            return "-"
        q = statistics.quantiles(times, n=100, method="inclusive")
        return (f"p50 {1000 * q[49]:.1f} p90 {1000 * q[89]:.1f} p99 {1000 * q[98]:.1f} max {1000 * max(times):.1f} "
                f"mean {1000 * statistics.fmean(times):.1f} ms")

    def interval(self) -> tuple[float, float]:
        """The 95% interval of the mean per-deal difference (Student's t; nan before 2 deals)."""
        iv = interval(self.per_deal)
        return (float("nan"), float("nan")) if iv["low"] is None else (iv["low"], iv["high"])

    def decide(self, aim: float) -> str:
        """``met`` (interval wholly above ``aim``), ``failed`` (wholly below) or ``open``."""
        low, high = self.interval()
        return "met" if low > aim else "failed" if high < aim else "open"

    def line(self) -> str:
        m, se = self.mean_se()
        low, high = self.interval()
        om, ox = self.median_max(self.ours)
        tm, tx = self.median_max(self.theirs)
        worlds = f", worlds median {statistics.median(self.worlds):.0f}" if self.worlds else ""
        return (f"{self.deals} deals ({2 * self.deals} games, {self.seconds:.0f} s): {self.bot} {m:+.3f} ± {se:.3f} "
                f"[{low:+.3f}, {high:+.3f}] points per deal; decisions: {self.bot} median {1000 * om:.1f} ms "
                f"max {1000 * ox:.1f} ms ({len(self.ours)}{worlds}), ISMCTS median {1000 * tm:.1f} ms "
                f"max {1000 * tx:.1f} ms ({len(self.theirs)}), ratio {om / tm:.2f}")


_SET_UP: dict[str, type] = {}
"""Bots with explicit settings, by name: one class a name for the whole run, so that what a level
learns per class (the Euchre levels' stretch and batch cost model) is learned once, as for a
registered level, not afresh for every bot."""


def _our_bot(name: str, game: Any, seat: int, rng: random.Random) -> Any:
    if ":" in name:  # bots with explicit settings (search:, pimc:, LEVEL:key=value), as in bots_strength.py
        if name in _SET_UP:
            return _SET_UP[name](game, seat, rng)
        spec = importlib.util.spec_from_file_location("bots_strength", Path(__file__).with_name("bots_strength.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        bot = module._bot(name, game, seat, rng)
        _SET_UP[name] = type(bot)
        return bot
    return make_bot(name, game, seat, rng)


def run(
    bot: str, deals: int, sims: int = 1000, seed: int = 20261123, uct_c: float = 2.0,
    progress: Callable[[Report], None] | None = None, match_time: float | None = None,
    aim: float | None = None, min_deals: int = 20, seconds: float | None = None, first: int = 0,
) -> Report:
    """Play up to ``deals`` duplicate deals; with ``aim``, stop once the 95% interval decides
    (from ``min_deals`` deals on); with ``seconds``, stop after the deal that passes that time."""
    import pyspiel  # the open_spiel extra

    game = pyspiel.load_game("euchre", {"stick_the_dealer": True, "allow_lone_defender": False})
    ours_game = get_game("euchre")
    report = Report(bot, sims)
    start = time.perf_counter()
    recent: deque[float] = deque(maxlen=51)
    for n in range(first, first + deals):
        rng = random.Random(f"euchre vs ismcts {seed} {n}")
        deal = Deal.draw(rng)
        diffs = []
        for first in (0, 1):  # our team: seats 0 and 2, then 1 and 3
            ours = {s: _our_bot(bot, ours_game, s, random.Random(rng.getrandbits(64))) for s in (first, first + 2)}
            ismcts = {}
            for s in (1 - first, 3 - first):
                bot_seed = rng.getrandbits(31)
                evaluator = pyspiel.RandomRolloutEvaluator(1, bot_seed)
                ismcts[s] = pyspiel.ISMCTSBot(
                    bot_seed, evaluator, uct_c, sims, -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
            if match_time is not None:
                for b in ours.values():
                    if getattr(b, "milliseconds", None) is None:
                        raise SystemExit(f"--match-time needs a search bot with a time budget, not {bot}")
            r = play_rotation(pyspiel, game, deal, ours, ismcts, recent, match_time)
            diffs.append(r.diff)
            report.ours += r.ours
            report.theirs += r.theirs
            report.worlds += r.worlds
            report.cases.update(r.cases)
        report.per_deal.append(statistics.fmean(diffs))
        report.seconds = time.perf_counter() - start
        if progress is not None:
            progress(report)
        if aim is not None and report.deals >= min_deals and report.decide(aim) != "open":
            report.verdict = f"{report.decide(aim)} (stopped at deal {report.deals})"
            return report
        if seconds is not None and report.seconds >= seconds:
            if aim is not None:
                report.verdict = f"open: time ran out ({seconds:.0f} s) at deal {report.deals}"
            return report
    if aim is not None:
        report.verdict = f"open: the {deals} deals ran out"
    return report


def main(argv: list[str]) -> None:
    args = list(argv)
    flags = {"--sims": "1000", "--seed": "20261123", "--uct-c": "2.0", "--match-time": "", "--aim": "",
             "--min-deals": "20", "--seconds": "", "--from": "0"}
    for flag in list(flags):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                raise SystemExit(f"{flag} needs a value")
            flags[flag] = args[i + 1]
            del args[i:i + 2]
    if not args or args[0].startswith("-") or len(args) > 2:
        raise SystemExit(__doc__.split("\n\n")[1] if __doc__ else "usage: BOT [DEALS]")
    bot, deals = args[0], int(args[1]) if len(args) > 1 else 50
    sims, seed, uct_c = int(flags["--sims"]), int(flags["--seed"]), float(flags["--uct-c"])
    match_time = float(flags["--match-time"]) if flags["--match-time"] else None
    aim = float(flags["--aim"]) if flags["--aim"] else None
    min_deals = int(flags["--min-deals"])
    seconds = float(flags["--seconds"]) if flags["--seconds"] else None
    first = int(flags["--from"])
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        raise SystemExit("open_spiel is not installed: pip install open_spiel==2.0.2 (or .[test])") from None

    def progress(r: Report) -> None:
        if r.deals < 10 or r.deals % 10 == 0:
            print("  " + r.line(), flush=True)

    import updown.games.euchre as engine

    load_start = os.getloadavg()
    print(f"euchre, one deal: {bot} (seats 0+2, then 1+3) vs OpenSpiel ISMCTS ({sims} simulations, "
          f"random rollouts, uct_c {uct_c}, max visit count), seed {seed}"
          + (f", our budget {match_time} x ISMCTS's recent median time" if match_time else "")
          + (f", sequential test against {aim:+} from deal {min_deals}" if aim is not None else "")
          + (f", deals {first} on" if first else ""), flush=True)
    print(f"  our engine: {engine.__file__}; load average at start {load_start[0]:.2f} {load_start[1]:.2f} "
          f"{load_start[2]:.2f}", flush=True)
    report = run(bot, deals, sims, seed, uct_c, progress, match_time, aim, min_deals, seconds, first)
    m, se = report.mean_se()
    low, high = report.interval()
    om, ox = report.median_max(report.ours)
    tm, tx = report.median_max(report.theirs)
    load_end = os.getloadavg()
    print(report.line())
    print(f"  decision times: {bot} {report.spread(report.ours)}; ISMCTS {report.spread(report.theirs)}")
    if len(report.worlds) > 1:
        wq = statistics.quantiles(report.worlds, n=10, method="inclusive")
        print(f"  {bot}'s worlds per decision: p10 {wq[0]:.0f} p50 {wq[4]:.0f} p90 {wq[8]:.0f}, "
              f"mean {statistics.fmean(report.worlds):.0f}")
    print("  alone/discard window: " + ", ".join(f"{k} {v}" for k, v in sorted(report.cases.items())))
    print(f"  {bot} minus ISMCTS: {m:+.3f} ± {se:.3f} points per deal, 95% [{low:+.3f}, {high:+.3f}] "
          f"(duplicate, {report.deals} deals); decision time median/max {bot} {1000 * om:.1f}/{1000 * ox:.1f} ms, "
          f"ISMCTS {1000 * tm:.1f}/{1000 * tx:.1f} ms, median ratio {bot}/ISMCTS {om / tm:.2f}")
    if aim is not None:
        print(f"  against the aim {aim:+}: {report.verdict}")
    print(f"  load average at end {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
