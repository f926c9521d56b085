"""A panel of tables for the levels: each test bot in the same seat of the same duplicate deals,
against fields of every kind, with 95% intervals and a sequential stop.

    python benchmarks/bots_panel.py [--game updown] [--players 4] [-o rounds=2 ...]
        [--fields random,easy,greedy,mixed] [--tests greedy,normal] [--deals 40] [--min-deals 10]
        [--seed 1] [--out DIR] [--ladder [--games updown,euchre]] [--no-stop]
        [--count normal=20,hard=240] [--field-seconds 600] [--workers 2]

**Fields.** The other ``players - 1`` seats: ``random``, ``easy``, ``greedy``, ``normal``, ``hard``
(all that bot), ``mixed`` (greedy, random, easy, in that order, cut to the seats there are; one seat
alone plays them in turn, deal by deal; in a game of partners ``greedy`` is the test seat's
partner), ``self`` (the test bot itself in every seat: a check, not an aim, since every bot scores
0 there but for chance; it stops after ``--min-deals`` deals, and shares its deals with the field
named after the test bot, which is the same line-up). A field may also be a comma-free list of
bots joined by ``+`` (``greedy+random+easy``).

**Tests.** Each test bot (a registered name, or a level with settings changed as in
``bots_strength.py``: ``normal:read=0``) takes entry 0 of the line-up ``[test, field...]`` and
plays every deal once per seating (the arena's duplicate deals, :mod:`updown.arena.duplicate`:
the same cards in every seating and for every test bot, each seat's bot seeded by the deal, the
seating and the seat). Per game: its win share (a first place shared with k rivals counts 1/k)
and its score less the others' mean (turned so that positive is good). Per deal: the mean over
the seatings. Figures: the mean over deals, its 95% interval (Student's t; win rates Wilson's on
the deals' effective size, :mod:`updown.arena.stats`), and between consecutive test bots the
paired difference deal by deal with its interval.

**Aims and the sequential stop.** In every field a later test bot should do at least as well as
the one before it (``normal`` ≥ ``greedy``, ``hard`` ≥ ``normal``) in score difference. After
``--min-deals`` deals, a field stops as soon as each of its paired score differences has an
interval on one side of 0 (``met``: above, ``failed``: below); otherwise it runs until
``--deals`` run out (``open``). Looking after every deal makes a stop a little more likely than
the nominal 5% by chance alone; the intervals printed are the plain ones.

**Ladder** (``--ladder``): head to head at tables of 2 and 4, or of ``--players`` alone when it is
given (``[A, B]``, ``[A, B, A, B]``: two seats each, seated alternately, every seating of each deal)
for each consecutive pair of ``--tests`` (e.g. ``easy,normal,hard``), in each of ``--games``: B's
mean score less A's per game with its standard error and 95% interval, and B's share of the first
places.

**Budgets.** The levels' own budgets are wall time with a cap of worlds (UP&DOWN ``normal``
90 ms, ``hard`` 800 ms), so on a loaded machine they get fewer worlds and play weaker, and a run
cannot be repeated. ``--count normal=20,hard=240`` holds those levels, wherever they sit (tests,
fields, ladder), to that many worlds a decision and no time budget: reproducible from the seed,
and as strong at any load. Every deal on file says the load then and the worlds the test bot's
decisions used. ``--field-seconds S`` ends a field (or a ladder cell) after the deal that passes
S seconds (no deal of it is begun after S seconds; the deals begun are finished, for every test
bot), so a run on a busy machine stays bounded.

Every finished deal is one JSON line in ``DIR/deals.jsonl`` (the cell, the deal, the per-deal
figures and the test bot's decision times), written as it finishes, so a run stopped (Ctrl-C, a
kill) is continued by running it again, and a later run with other test bots on the same
``--seed`` is paired deal by deal with it (the same command again plays only the deals not on
file and prints the table). A deal counts in a field only when every test bot's row of it is
there; each field's summary says how many of its rows on file are not yet paired (a stopped run
owes their partners). Run it under ``nice``.

**Workers** (``--workers N``, default 1: every deal in this process, one after another). The
unit of work is one row: one deal of one line-up (a test bot against its field, or a ladder
pair), every seating. With N > 1 the rows go to N worker processes of the arena's pool
(:func:`updown.arena.runner.worker_pool`), in the order one process would play them (deal by
deal, each deal's test bots in turn, field after field). A row is a function of the seed, the
deal and the line-up alone (the bots are seeded by the deal, the seating and the seat), so the
rows are the same whatever N, and the sequential rule is applied to the whole deals at the front
in deal order, so a field stops at the same deal whatever N and its figures are the same (with
count budgets; wall-time budgets make any run load-dependent). When a field stops (by its rule,
or ``--field-seconds`` at a deal's start) no more of its deals are asked for and the next field
takes the free workers; its deals past the stop still running are filed if they finish while the
run goes on (a later run with more deals uses them; these figures never do), and are stopped and
dropped when the last field ends. Ctrl-C or a kill (SIGTERM) of this process stops the workers
and keeps only whole rows on file (a line cut short by a harder kill is dropped when the file is
read again). Workers pay where cores are free: each costs about a second of start-up, and on a
machine already busier than its cores they only take a larger share of it. Levels on wall-time
budgets (without ``--count``) get fewer worlds when the workers share busy cores.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import signal
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bots_strength import Timed, _bot  # noqa: E402

from updown.arena import duplicate  # noqa: E402
from updown.arena.duplicate import Lineup, deal_seed, entry_teams, play_seating  # noqa: E402
from updown.arena.runner import DeferredInterrupts, terminate, wait_first, worker_pool  # noqa: E402
from updown.arena.stats import game_figures, interval, rate_interval  # noqa: E402
from updown.core.errors import UpdownError  # noqa: E402
from updown.core.registry import get_game  # noqa: E402

TEST = "TEST|"
"""Marks the test entry's bot name, so that its decisions are timed (a field may hold the same bot)."""

MIXED = ("greedy", "random", "easy")
TIMES: list[float] = []
WORLDS: list[int] = []
"""Worlds used by each decision of the test entry that has a choice (a ``pimc`` level), with TIMES."""


class _Counted(Timed):
    """Timed, and the worlds each decision with a choice used (a level's ``used``), into WORLDS."""

    def act(self, view: Any, legal: Any) -> int:
        a = super().act(view, legal)
        used = getattr(self.bot, "used", None)
        if len(legal) > 1 and isinstance(used, int):
            WORLDS.append(used)
        return a


def _make(name: str, game: Any, seat: int, rng: Any) -> Any:
    if name.startswith(TEST):
        return _Counted(_bot(name[len(TEST):], game, seat, rng), TIMES)
    return _bot(name, game, seat, rng)


def budgeted(name: str, counts: dict[str, int]) -> str:
    """``name`` with the levels in ``counts`` held to that many worlds and no time budget
    (``normal`` -> ``normal:ms=0,worlds=20``), in a field of several bots (``a+b``) too.

    The levels' own budgets are wall time (UP&DOWN ``normal`` 90 ms, ``hard`` 800 ms, each with a
    cap of worlds), so on a loaded machine they get fewer worlds and play weaker; a count budget
    makes a run reproducible from its seed and its strength independent of the load."""
    if not counts:
        return name
    if "+" in name:
        return "+".join(budgeted(part, counts) for part in name.split("+"))
    if name in counts:
        return f"{name}:ms=0,worlds={counts[name]}"
    return name


duplicate.make_bot = _make  # the arena's seatings, with the benchmark's bot settings and timing


def field_bots(field: str, test: str, others: int, deal: int, partner: int | None = None) -> list[str]:
    """The bots of entries 1 to ``others``; ``partner``: the test seat's partner entry in a game of
    partners (the mixed field seats ``greedy`` there, not ``random``)."""
    if field == "self":
        return [test] * others
    if field == "mixed":  # (not budgeted: greedy, random and easy have no budget)
        if others == 1:
            return [MIXED[deal % len(MIXED)]]
        bots = list(MIXED[:others]) + ["greedy"] * max(0, others - len(MIXED))
        if partner is not None:
            bots.remove("greedy")
            bots.insert(partner - 1, "greedy")
        return bots
    if "+" in field:
        bots = field.split("+")
        if len(bots) != others:
            raise SystemExit(f"field {field!r} names {len(bots)} bots for {others} seats")
        return bots
    return [field] * others


def play(game: Any, options: Any, players: int, bots: Sequence[str], seed: int, deal: int,
         entries: Sequence[int]) -> dict[str, Any]:
    """One deal, every seating: the mean score difference and win share of each of ``entries``."""
    line = Lineup(game.id, players, options.to_dict(), tuple(bots), seed, entry_teams(game, players))
    dseed = deal_seed(seed, deal)
    diffs = {e: 0.0 for e in entries}
    wins = {e: 0.0 for e in entries}
    for r in range(line.seatings):
        played = play_seating(line, game, options, dseed, r)
        scores, diff, share, placings = game_figures(line, played)
        best = min(range(players), key=lambda e: placings[e])
        sign = 1.0 if scores[best] == max(scores) else -1.0  # which way the scores run
        for e in entries:
            diffs[e] += sign * diff[e] / line.seatings
            wins[e] += share[e] / line.seatings
    return {"diff": [diffs[e] for e in entries], "win": [wins[e] for e in entries]}


def _worlds(ws: list[int]) -> dict[str, Any]:
    if not ws:
        return {}
    s = sorted(ws)
    return {"n": len(s), "median": s[len(s) // 2], "min": s[0], "max": s[-1], "mean": statistics.fmean(s)}


def _load() -> float | None:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _times(ts: list[float]) -> dict[str, Any]:
    """A summary of decision times: count, median, the 95th percentile (nearest rank: the smallest
    time that at least 95% of the times do not exceed), the 99th (as filed since the first runs),
    max, and how many took over 100 ms and over 1 s."""
    if not ts:
        return {}
    s = sorted(ts)
    return {"n": len(s), "median": s[len(s) // 2], "p95": s[(95 * len(s) + 99) // 100 - 1],
            "p99": s[min(len(s) - 1, len(s) * 99 // 100)], "max": s[-1],
            "over_100ms": sum(t > 0.1 for t in s), "over_1s": sum(t > 1.0 for t in s)}


class Store:
    """``DIR/deals.jsonl``: every finished deal of every cell, one JSON line each, appended as it
    finishes (so a run stopped at any point leaves a file of whole lines)."""

    def __init__(self, folder: Path | None):
        self.path = folder / "deals.jsonl" if folder is not None else None
        self.rows: list[dict[str, Any]] = []
        self._by_deal: dict[int, list[dict[str, Any]]] = {}
        if self.path is not None:
            folder.mkdir(parents=True, exist_ok=True)  # type: ignore[union-attr]
            if self.path.exists():
                text = self.path.read_text(encoding="utf-8")
                if text and not text.endswith("\n"):
                    # A line cut short by a kill: drop it, or the next row would be glued to it.
                    text = text[: text.rfind("\n") + 1]
                    self.path.write_text(text, encoding="utf-8")
                for line in text.splitlines():
                    try:
                        self._index(json.loads(line))
                    except ValueError:
                        pass  # not a row (a line written by hand): skipped

    def _index(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        self._by_deal.setdefault(row["deal"], []).append(row)

    def get(self, key: dict[str, Any], deal: int) -> dict[str, Any] | None:
        for row in self._by_deal.get(deal, []):
            if all(row.get(k) == v for k, v in key.items()):
                return row
        return None

    def matching(self, key: dict[str, Any]) -> list[dict[str, Any]]:
        """Every row on file of the cell and column ``key``, whatever its deal."""
        return [row for row in self.rows if all(row.get(k) == v for k, v in key.items())]

    def add(self, row: dict[str, Any]) -> None:
        self._index(row)
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")


def _fmt(values: list[float], rate: bool = False) -> str:
    if not values:
        return "-"
    f = rate_interval(values) if rate else interval(values)
    if f["low"] is None:
        return f"{f['mean']:.3f}" if rate else f"{f['mean']:+.2f}"
    if rate:
        return f"{f['mean']:.3f} [{f['low']:.3f}, {f['high']:.3f}]"
    return f"{f['mean']:+.2f} [{f['low']:+.2f}, {f['high']:+.2f}]"


def verdict(values: list[float]) -> str:
    if len(values) < 2:
        return "open"
    f = interval(values)
    return "met" if f["low"] > 0 else "failed" if f["high"] < 0 else "open"


def cell_key(args: argparse.Namespace, field: str, test: str, players: int) -> dict[str, Any]:
    return {"game": args.game, "players": players, "options": args.options, "seed": args.seed,
            "field": field, "test": test}


def test_partner(game: Any, players: int) -> int | None:
    """Entry 0's partner in a game of partners (the first, if several), else None."""
    for team in entry_teams(game, players):
        if 0 in team and len(team) > 1:
            return min(e for e in team if e != 0)
    return None


def play_unit(spec: dict[str, Any]) -> dict[str, Any]:
    """What a worker plays (or this process, with ``--workers 1``): one deal of one line-up, every
    seating. Plain data in and out: the figures of ``spec["entries"]`` (a function of the game,
    its options, the bots, the seed and the deal alone), and, measured where it ran, the test
    entry's decision times and worlds and the load at the end."""
    game = get_game(spec["game"])
    options = game.options(spec["options"])
    del TIMES[:]
    del WORLDS[:]
    got = play(game, options, spec["players"], spec["bots"], spec["seed"], spec["deal"], spec["entries"])
    return {**got, "times": TIMES[:], "worlds": WORLDS[:], "load": _load()}


class Cell:
    """One field (or ladder cell) of a run: its columns' rows deal by deal, what it plays next, and
    when and why it stopped.

    It is played deal by deal, each deal's columns in order, as one process plays them. ``n`` is
    how many deals at the front are whole (every column's row there); the sequential rule is
    applied at each ``n`` in turn, so a cell stops at the same deal however many workers played
    it and in whatever order their deals finished, and its figures come from those ``n`` deals."""

    def __init__(self, args: argparse.Namespace, name: str, columns: list[str], keys: dict[str, dict[str, Any]]):
        self.args, self.name, self.columns, self.keys = args, name, columns, keys
        self.rows: dict[str, dict[int, dict[str, Any]]] = {c: {} for c in columns}
        self.total = args.deals * len(columns)
        self.cursor = 0  # the next (deal, column) to play: deal * len(columns) + column
        self.n = 0
        self.state: str | None = None  # why the sequential rule stopped it
        self.timed_out = False
        self.began: float | None = None
        self.running = 0  # its deals being played

    @property
    def wants(self) -> bool:
        """Whether it has deals left to ask for."""
        return self.state is None and not self.timed_out and self.cursor < self.total

    @property
    def final(self) -> bool:
        """Whether its figures are settled (stopped by the rule, or nothing left and nothing running)."""
        return self.state is not None or (not self.wants and self.running == 0)

    def spec(self, column: str, deal: int) -> dict[str, Any]:
        raise NotImplementedError

    def row(self, column: str, deal: int, result: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def twin(self, column: str) -> dict[str, Any] | None:
        """The key of another cell's column that plays the same line-up, if any."""
        return None

    def rule(self, n: int) -> str | None:
        """The sequential stop after ``n`` whole deals: why it stops there, or None."""
        raise NotImplementedError

    def ended(self) -> str:
        """Why it ended when the rule did not stop it."""
        raise NotImplementedError

    def progress(self) -> str:
        raise NotImplementedError

    def file(self, column: str, deal: int, row: dict[str, Any]) -> None:
        """Take a finished row; move ``n`` over the deals now whole and apply the rule at each."""
        self.rows[column][deal] = row
        while self.state is None and self.n < self.args.deals and all(self.n in r for r in self.rows.values()):
            self.n += 1
            if self.args.progress:
                elapsed = time.perf_counter() - (self.began or time.perf_counter())
                print(f"  {self.name} deal {self.n} ({elapsed:.0f} s): {self.progress()}", file=sys.stderr, flush=True)
            self.state = self.rule(self.n)

    def why(self) -> str:
        return self.state if self.state is not None else self.ended()

    def front(self, column: str) -> list[dict[str, Any]]:
        """The column's rows of the ``n`` whole deals at the front, in deal order."""
        return [self.rows[column][d] for d in range(self.n)]

    def unpaired(self, store: Store) -> int:
        """Rows on file for this cell whose deal lacks another column's row (owed by a stopped run)."""
        columns: dict[int, set[str]] = {}
        for column, key in self.keys.items():
            for row in store.matching(key):
                columns.setdefault(row["deal"], set()).add(column)
        return sum(len(c) for c in columns.values() if len(c) < len(self.columns))


class FieldCell(Cell):
    """A field: each test bot (a column) in entry 0 of ``[test, field...]``, on the same deals."""

    def __init__(self, args: argparse.Namespace, field: str, partner: int | None):
        keys = {}
        for test in args.tests:
            key = cell_key(args, field, test, args.players)
            if field == "mixed" and partner is not None:
                key["partner"] = "greedy"  # (runs before it seated random there: not paired with them)
            keys[test] = key
        super().__init__(args, field, list(args.tests), keys)
        self.field, self.partner = field, partner

    def others(self, test: str, deal: int) -> list[str]:
        return field_bots(self.field, test, self.args.players - 1, deal, self.partner)

    def spec(self, column: str, deal: int) -> dict[str, Any]:
        return {"game": self.args.game, "players": self.args.players, "options": self.args.options,
                "bots": [TEST + column, *self.others(column, deal)], "seed": self.args.seed, "deal": deal,
                "entries": [0]}

    def row(self, column: str, deal: int, result: dict[str, Any]) -> dict[str, Any]:
        times = result["times"]
        return {**self.keys[column], "deal": deal, "others": self.others(column, deal), "diff": result["diff"][0],
                "win": result["win"][0], "times": times if self.args.keep_times else [], "timing": _times(times),
                "worlds": _worlds(result["worlds"]), "load": result["load"]}

    def twin(self, column: str) -> dict[str, Any] | None:
        # The test bot in every seat is one line-up whether the field is called ``self`` or by the
        # bot's name: the same deal is played once and filed under both.
        if self.field not in ("self", column):
            return None
        return cell_key(self.args, column if self.field == "self" else "self", column, self.args.players)

    def checks(self, n: int) -> list[str]:
        return [verdict([b["diff"] - a["diff"] for a, b in zip(self.front(x)[:n], self.front(y)[:n])])
                for x, y in zip(self.columns, self.columns[1:])]

    def rule(self, n: int) -> str | None:
        if self.field == "self" and n >= self.args.min_deals:
            return "a check: the same bot in every seat scores 0 but for chance"
        checks = self.checks(n)
        if self.args.stop and n >= self.args.min_deals and checks and "open" not in checks:
            return "stopped: " + ", ".join(checks)
        return None

    def ended(self) -> str:
        checks = self.checks(self.n)
        if self.timed_out:
            return f"time ran out ({self.args.field_seconds:.0f} s)" + (": " + ", ".join(checks) if checks else "")
        return "games ran out" + (": " + ", ".join(checks) if len(self.columns) > 1 else "")

    def progress(self) -> str:
        return ("; ".join(f"{t} {_fmt([r['diff'] for r in self.front(t)])}" for t in self.columns)
                + f"; paired {self.checks(self.n)}")

    def report(self, store: Store) -> list[str]:
        per = {t: self.front(t) for t in self.columns}
        lines = report_field(self.field, per, self.columns, self.args.players, self.why())
        owed = self.unpaired(store)
        lines[0] += f"; {owed} row{'' if owed == 1 else 's'} on file not yet paired"
        return lines


class LadderCell(Cell):
    """B against A at one table size: ``[A, B]`` or ``[A, B, A, B]`` (two seats each, seated
    alternately; in a partnership game of 4 the A seats are partners), every seating of each deal;
    one column (B), one row a deal."""

    def __init__(self, args: argparse.Namespace, game: Any, opts: dict[str, Any], a: str, b: str, players: int):
        self.bots = [a, b] if players == 2 else [a, b, a, b]
        name = "ladder " + "+".join(self.bots)
        key = {**cell_key(args, name, b, players), "game": game.id, "options": opts}
        super().__init__(args, f"{game.id} {name}", [b], {b: key})
        self.game, self.opts, self.a, self.b, self.players = game, opts, a, b, players

    def spec(self, column: str, deal: int) -> dict[str, Any]:
        return {"game": self.game.id, "players": self.players, "options": self.opts, "bots": self.bots,
                "seed": self.args.seed, "deal": deal, "entries": list(range(self.players))}

    def row(self, column: str, deal: int, result: dict[str, Any]) -> dict[str, Any]:
        entries = range(self.players)
        a, b, bots = self.a, self.b, self.bots
        # Each entry's difference is against the other three (or one): B's side's mean less
        # A's, times (players - 1) / players, is B's mean score less A's mean score. In a
        # partnership game the A seats are partners and each entry's difference is against
        # the rival side only (B's points less A's), so B's side less A's side is twice it.
        side_b = statistics.fmean(result["diff"][e] for e in entries if bots[e] == b)
        side_a = statistics.fmean(result["diff"][e] for e in entries if bots[e] == a)
        scale = 0.5 if self.game.teams(self.players) is not None else (self.players - 1) / self.players
        # B's share of the first places (partners who win share one first place each).
        total = sum(result["win"][e] for e in entries) or 1.0
        return {**self.keys[column], "deal": deal, "diff": (side_b - side_a) * scale,
                "win": sum(result["win"][e] for e in entries if bots[e] == b) / total, "load": result["load"]}

    def diffs(self) -> list[float]:
        return [r["diff"] for r in self.front(self.b)]

    def rule(self, n: int) -> str | None:
        if self.args.stop and n >= self.args.min_deals and verdict(self.diffs()[:n]) != "open":
            return "stopped"
        return None

    def ended(self) -> str:
        return f"time ran out ({self.args.field_seconds:.0f} s)" if self.timed_out else "games ran out"

    def progress(self) -> str:
        return f"{self.b} - {self.a} {_fmt(self.diffs())}"

    def report(self, store: Store) -> list[str]:
        rows = self.front(self.b)
        diffs, wins = self.diffs(), [r["win"] for r in rows]
        loads = [r["load"] for r in rows if r.get("load") is not None]
        se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("nan")
        where = f", load {min(loads):.1f} to {max(loads):.1f}" if loads else ""
        a, b, players = self.a, self.b, self.players
        return [f"ladder {b} vs {a} at {players} ({self.game.id}): {len(diffs)} deals x {players} seatings "
                f"({self.why()}{where}): {b}'s score less {a}'s {_fmt(diffs)} (s.e. {se:.2f}), "
                f"{b}'s win share {_fmt(wins, True)}: aim {b} > {a}: {verdict(diffs)}"]


class _Here:
    """``--workers 1``: each deal played in this process when it is asked for, one after another."""

    def submit(self, task: Any, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(task(*args))
        except Exception as err:
            future.set_exception(err)
        return future

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        pass


def _next(cells: list[Cell], store: Store, waiting: dict[str, list[tuple[Cell, str, int]]]) -> str | None:
    """The next deal to play (its spec as JSON), from the first cell in order that wants one; rows
    on file (the cell's own, or its twin's) are taken on the way, and a deal already being played
    for a twin is shared rather than played twice."""
    for cell in cells:
        while cell.wants:
            deal, column = divmod(cell.cursor, len(cell.columns))
            now = time.perf_counter()
            if cell.began is None:
                cell.began = now
            elif column == 0 and cell.args.field_seconds and now - cell.began > cell.args.field_seconds:
                cell.timed_out = True  # at a deal's start, as one process checks after each deal
                break
            name = cell.columns[column]
            cell.cursor += 1
            row = store.get(cell.keys[name], deal)
            twin = cell.twin(name)
            if row is None and twin is not None:
                same = store.get(twin, deal)
                if same is not None:
                    row = {**same, "field": cell.keys[name]["field"]}
                    store.add(row)
            if row is not None:
                cell.file(name, deal, row)
                continue
            spec = json.dumps(cell.spec(name, deal), sort_keys=True)
            cell.running += 1
            if spec in waiting:
                waiting[spec].append((cell, name, deal))
                continue
            waiting[spec] = [(cell, name, deal)]
            return spec
    return None


def play_cells(cells: list[Cell], store: Store, workers: int) -> None:
    """Play the cells' deals, in this process (``workers`` 1) or on that many worker processes of
    the arena's pool (:func:`updown.arena.runner.worker_pool`), each row filed as it finishes.

    Cells are played in order; a cell's deals are asked for while its rule has not stopped it and
    its time lasts, and a slot it does not want goes to the next cell. A deal past a cell's stop
    that finishes while the run goes on is filed (a later run with more deals uses it, and the
    figures never do: they come from the deals before the stop). When every cell is settled, the
    deals still running are stopped and not kept; so is everything running at Ctrl-C, and the
    file holds whole rows only."""
    pool: Any = _Here() if workers == 1 else worker_pool(workers)
    running: dict[Future[dict[str, Any]], str] = {}
    waiting: dict[str, list[tuple[Cell, str, int]]] = {}  # a deal's spec -> the cells' columns it is for
    stopped = True
    # With workers, Ctrl-C and a kill are noted and raised between waits (DeferredInterrupts);
    # with none, a deal is played here and Ctrl-C stops it where it is.
    interrupts = DeferredInterrupts() if workers > 1 else None
    try:
        with interrupts if interrupts is not None else contextlib.nullcontext():
            while not all(cell.final for cell in cells):
                while len(running) < workers:
                    spec = _next(cells, store, waiting)
                    if spec is None:
                        break
                    running[pool.submit(play_unit, json.loads(spec))] = spec
                if not running:
                    if all(cell.final for cell in cells):
                        break  # _next settled the rest from the file
                    raise RuntimeError("a cell is open with nothing to play")  # (cannot happen)
                done = wait_first(running, interrupts) if interrupts is not None else set(running)
                for future in done:
                    spec = running.pop(future)
                    result = future.result()
                    for cell, column, deal in waiting.pop(spec):
                        cell.running -= 1
                        row = cell.row(column, deal, result)
                        store.add(row)
                        cell.file(column, deal, row)
            stopped = False
    finally:
        if (running or stopped) and workers > 1:
            terminate(pool)
        pool.shutdown(wait=not running and not stopped, cancel_futures=True)


def run_fields(args: argparse.Namespace, store: Store) -> list[str]:
    partner = test_partner(get_game(args.game), args.players)
    cells = [FieldCell(args, field, partner) for field in args.fields]
    play_cells(list(cells), store, args.workers)
    return [line for cell in cells for line in cell.report(store)]


def report_field(field: str, per: dict[str, list[dict[str, Any]]], tests: list[str], players: int,
                 state: str) -> list[str]:
    out = []
    n = min(len(v) for v in per.values())
    loads = [r["load"] for v in per.values() for r in v[:n] if r.get("load") is not None]
    where = f", load {min(loads):.1f} to {max(loads):.1f}" if loads else ""
    out.append(f"field {field} ({players - 1} seats), {n} deals x {players} seatings: {state}{where}")
    for t in tests:
        rows = per[t][:n]
        timing = [x for r in rows for x in r.get("times", [])]
        tm = _times(timing) if timing else _merge_timing([r.get("timing", {}) for r in rows])
        tinfo = (f"; decisions {tm['n']}, median {1000 * tm['median']:.0f} ms, {_p95(tm)}"
                 f"max {1000 * tm['max']:.0f} ms, >100 ms {tm['over_100ms']}, >1 s {tm['over_1s']}") if tm else ""
        ws = [r["worlds"] for r in rows if r.get("worlds")]
        if ws:
            tinfo += (f"; worlds a decision: mean {statistics.fmean(w['mean'] for w in ws):.0f}, "
                      f"min {min(w['min'] for w in ws)}, max {max(w['max'] for w in ws)}")
        out.append(f"  {t:28} score {_fmt([r['diff'] for r in rows])}  win {_fmt([r['win'] for r in rows], True)}"
                   + tinfo)
    for x, y in zip(tests, tests[1:]):
        d = [b["diff"] - a["diff"] for a, b in zip(per[x][:n], per[y][:n])]
        w = [b["win"] - a["win"] for a, b in zip(per[x][:n], per[y][:n])]
        if field == "self":  # no aim: each is 0 by symmetry, and so is their difference
            inside = len(d) < 2 or interval(d)["low"] <= 0 <= interval(d)["high"]
            out.append(f"  {y} - {x} (paired): score {_fmt(d)}  win {_fmt(w)}  check, 0 expected: "
                       + ("0 inside" if inside else "0 OUTSIDE the interval"))
            continue
        out.append(f"  {y} - {x} (paired): score {_fmt(d)}  win {_fmt(w)}  aim {y} >= {x}: {verdict(d)}")
    return out


def _p95(tm: dict[str, Any]) -> str:
    """The 95th percentile for the report line: exact from the times themselves (``--keep-times``),
    else a bound, the largest of the deals' own (a percentile of the whole cannot exceed it), and
    nothing for rows filed before the summaries had it."""
    if "p95" in tm:
        return f"p95 {1000 * tm['p95']:.0f} ms, "
    if "p95_most" in tm:
        return f"p95 at most {1000 * tm['p95_most']:.0f} ms (the deals' largest), "
    return ""


def _merge_timing(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """The deals' timing summaries as one (rows filed without ``--keep-times``): the median of the
    medians, and of the 95th percentiles only the largest, a bound."""
    parts = [p for p in parts if p]
    if not parts:
        return {}
    n = sum(p["n"] for p in parts)
    merged = {"n": n, "median": statistics.median(p["median"] for p in parts), "max": max(p["max"] for p in parts),
              "over_100ms": sum(p["over_100ms"] for p in parts), "over_1s": sum(p["over_1s"] for p in parts)}
    if all("p95" in p for p in parts):
        merged["p95_most"] = max(p["p95"] for p in parts)
    return merged


def run_ladder(args: argparse.Namespace, store: Store) -> list[str]:
    """Consecutive test bots head to head, in each of ``args.games``, at tables of 2 and 4."""
    cells = []
    for game_id in args.games:
        game = get_game(game_id)
        opts = args.options if game_id == args.game else {}
        for a, b in zip(args.tests, args.tests[1:]):
            for players in args.ladder_sizes:
                if not game.min_players <= players <= game.max_players:
                    continue
                cells.append(LadderCell(args, game, opts, a, b, players))
    play_cells(list(cells), store, args.workers)
    return [line for cell in cells for line in cell.report(store)]


def names(listed: str) -> list[str]:
    """The names in a ``--fields`` or ``--tests`` list: separated by ';', else by ',' unless the
    list is one bot with options (``hard:model=1,ms=0``, whose options are separated by ',')."""
    if ";" in listed:
        parts = listed.split(";")
    elif ":" in listed:
        parts = [listed]
    else:
        parts = listed.split(",")
    return [n for n in parts if n]


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="updown")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("-o", dest="opts", action="append", default=[], help="a game option, key=value")
    p.add_argument("--fields", default="random,easy,greedy,mixed",
                   help="the fields, separated by ';' (or by ',' when no name has options)")
    p.add_argument("--tests", default="greedy,normal",
                   help="the bots in the test seat, separated by ';' (or by ',' when no name has options: "
                        "'hard:model=1,ms=0' alone is one bot)")
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--min-deals", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--ladder", action="store_true")
    p.add_argument("--games", default=None,
                   help="with --ladder: the games, comma-separated (default --game); -o options apply to --game only")
    p.add_argument("--count", default="",
                   help="count budgets for levels, e.g. normal=20,hard=240: that many worlds, no time budget")
    p.add_argument("--field-seconds", type=float, default=0.0,
                   help="begin no deal of a field (or a ladder cell) after this many seconds; those begun finish")
    p.add_argument("--no-stop", dest="stop", action="store_false")
    p.add_argument("--keep-times", action="store_true", help="store every decision time, not a summary")
    p.add_argument("--quiet", dest="progress", action="store_false")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="play the deals on N worker processes of the arena's pool (default 1: one after another, "
                        "in this process); the rows, the stops and the figures do not depend on N (see the "
                        "module's docstring: deals past a stop, Ctrl-C)")
    args = p.parse_args(argv)
    if args.workers < 1:
        p.error(f"--workers must be at least 1, not {args.workers}")
    game = get_game(args.game)
    args.ladder_sizes = (args.players,) if args.players else (2, 4)  # the ladder's tables: --players, else 2 and 4
    args.players = args.players or game.bench_players
    args.options = {k: int(v) if v.isdigit() else v
                    for k, _, v in (o.partition("=") for o in args.opts)}
    counts = {k: int(v) for k, _, v in (c.partition("=") for c in args.count.split(",") if c)}
    args.fields = [budgeted(f, counts) for f in names(args.fields)]
    args.tests = [budgeted(t, counts) for t in names(args.tests)]
    args.games = [g for g in (args.games or args.game).split(",") if g]
    store = Store(args.out)
    # A kill (SIGTERM) stops the run as Ctrl-C does: the workers are stopped with it (killed alone,
    # this process would leave them waiting for work forever).
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        lines = run_ladder(args, store) if args.ladder else run_fields(args, store)
    except KeyboardInterrupt:
        print("interrupted: the deals that finished are on file; the same command continues the run",
              file=sys.stderr)
        raise SystemExit(130) from None
    except UpdownError as err:  # an unknown bot, a bad option: the same message whatever --workers
        raise SystemExit(f"bots_panel: {err}") from None
    print(f"{args.game}, {args.players} players, options {args.options}, seed {args.seed}")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
