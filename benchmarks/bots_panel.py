"""A panel of tables for the levels: each test bot in the same seat of the same duplicate deals,
against fields of every kind, with 95% intervals and a sequential stop.

    python benchmarks/bots_panel.py [--game updown] [--players 4] [-o rounds=2 ...]
        [--fields random,easy,greedy,mixed] [--tests greedy,normal] [--deals 40] [--min-deals 10]
        [--seed 1] [--out DIR] [--ladder [--games updown,euchre]] [--no-stop]
        [--count normal=20,hard=240] [--field-seconds 600]

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
S seconds, so a run on a busy machine stays bounded.

Every finished deal is one JSON line in ``DIR/deals.jsonl`` (the cell, the deal, the per-deal
figures and the test bot's decision times), so a run stopped is continued by running it again,
and a later run with other test bots on the same ``--seed`` is paired deal by deal with it
(the same command again plays only the deals not on file and prints the table). Run it under
``nice`` on one core.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bots_strength import Timed, _bot  # noqa: E402

from updown.arena import duplicate  # noqa: E402
from updown.arena.duplicate import Lineup, deal_seed, entry_teams, play_seating  # noqa: E402
from updown.arena.stats import game_figures, interval, rate_interval  # noqa: E402
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
    if not ts:
        return {}
    s = sorted(ts)
    return {"n": len(s), "median": s[len(s) // 2], "p99": s[min(len(s) - 1, len(s) * 99 // 100)],
            "max": s[-1], "over_100ms": sum(t > 0.1 for t in s), "over_1s": sum(t > 1.0 for t in s)}


class Store:
    def __init__(self, folder: Path | None):
        self.path = folder / "deals.jsonl" if folder is not None else None
        self.rows: list[dict[str, Any]] = []
        if self.path is not None:
            folder.mkdir(parents=True, exist_ok=True)  # type: ignore[union-attr]
            if self.path.exists():
                for line in self.path.read_text(encoding="utf-8").splitlines():
                    try:
                        self.rows.append(json.loads(line))
                    except ValueError:
                        pass  # a line cut short by a kill

    def get(self, key: dict[str, Any], deal: int) -> dict[str, Any] | None:
        for row in self.rows:
            if row["deal"] == deal and all(row.get(k) == v for k, v in key.items()):
                return row
        return None

    def add(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
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


def run_fields(args: argparse.Namespace, store: Store) -> list[str]:
    game = get_game(args.game)
    options = game.options(args.options)
    players = args.players
    partner = test_partner(game, players)
    lines = []
    for field in args.fields:
        per: dict[str, list[dict[str, Any]]] = {t: [] for t in args.tests}
        state = "open"
        began = time.perf_counter()
        for deal in range(args.deals):
            for test in args.tests:
                key = cell_key(args, field, test, players)
                if field == "mixed" and partner is not None:
                    key["partner"] = "greedy"  # (runs before it seated random there: not paired with them)
                row = store.get(key, deal)
                if row is None and field in ("self", test):
                    # The test bot in every seat is one line-up whether the field is called ``self`` or
                    # by the bot's name: the same deal is played once and filed under both.
                    same = store.get(cell_key(args, test if field == "self" else "self", test, players), deal)
                    if same is not None:
                        row = {**same, "field": field}
                        store.add(row)
                if row is None:
                    del TIMES[:]
                    del WORLDS[:]
                    others = field_bots(field, test, players - 1, deal, partner)
                    bots = [TEST + test, *others]
                    got = play(game, options, players, bots, args.seed, deal, [0])
                    row = {**key, "deal": deal, "others": others, "diff": got["diff"][0], "win": got["win"][0],
                           "times": TIMES[:] if args.keep_times else [], "timing": _times(TIMES),
                           "worlds": _worlds(WORLDS), "load": _load()}
                    store.add(row)
                per[test].append(row)
            n = deal + 1
            checks = [verdict([b["diff"] - a["diff"] for a, b in zip(per[x], per[y])])
                      for x, y in zip(args.tests, args.tests[1:])]
            if args.progress:
                print(f"  {field} deal {n} ({time.perf_counter() - began:.0f} s): "
                      + "; ".join(f"{t} {_fmt([r['diff'] for r in per[t]])}" for t in args.tests)
                      + f"; paired {checks}", file=sys.stderr, flush=True)
            if field == "self" and n >= args.min_deals:
                state = "a check: the same bot in every seat scores 0 but for chance"
                break
            if args.stop and n >= args.min_deals and checks and "open" not in checks:
                state = "stopped: " + ", ".join(checks)
                break
            if args.field_seconds and time.perf_counter() - began > args.field_seconds and n < args.deals:
                state = f"time ran out ({args.field_seconds:.0f} s)" + (": " + ", ".join(checks) if checks else "")
                break
        else:
            state = "games ran out" + (": " + ", ".join(checks) if len(args.tests) > 1 else "")
        lines.extend(report_field(field, per, args.tests, players, state))
    return lines


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
        tinfo = (f"; decisions {tm['n']}, median {1000 * tm['median']:.0f} ms, max {1000 * tm['max']:.0f} ms, "
                 f">100 ms {tm['over_100ms']}, >1 s {tm['over_1s']}") if tm else ""
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


def _merge_timing(parts: list[dict[str, Any]]) -> dict[str, Any]:
    parts = [p for p in parts if p]
    if not parts:
        return {}
    n = sum(p["n"] for p in parts)
    return {"n": n, "median": statistics.median(p["median"] for p in parts), "max": max(p["max"] for p in parts),
            "over_100ms": sum(p["over_100ms"] for p in parts), "over_1s": sum(p["over_1s"] for p in parts)}


def run_ladder(args: argparse.Namespace, store: Store) -> list[str]:
    """Consecutive test bots head to head, in each of ``args.games``, at tables of 2 and 4."""
    lines = []
    for game_id in args.games:
        game = get_game(game_id)
        opts = args.options if game_id == args.game else {}
        options = game.options(opts)
        for a, b in zip(args.tests, args.tests[1:]):
            for players in args.ladder_sizes:
                if not game.min_players <= players <= game.max_players:
                    continue
                lines.append(ladder_cell(args, store, game, options, opts, a, b, players))
    return lines


def ladder_cell(args: argparse.Namespace, store: Store, game: Any, options: Any, opts: dict[str, Any],
                a: str, b: str, players: int) -> str:
    """B against A at one table size: ``[A, B]`` or ``[A, B, A, B]`` (two seats each, seated
    alternately; in a partnership game of 4 the A seats are partners), every seating of each deal."""
    bots = [a, b] if players == 2 else [a, b, a, b]
    field = "ladder " + "+".join(bots)
    key = {**cell_key(args, field, b, players), "game": game.id, "options": opts}
    diffs: list[float] = []
    wins: list[float] = []
    loads: list[float] = []
    began = time.perf_counter()
    state = "games ran out"
    for deal in range(args.deals):
        row = store.get(key, deal)
        if row is None:
            entries = list(range(players))
            got = play(game, options, players, bots, args.seed, deal, entries)
            # Each entry's difference is against the other three (or one): B's side's mean less
            # A's, times (players - 1) / players, is B's mean score less A's mean score. In a
            # partnership game the A seats are partners and each entry's difference is against
            # the rival side only (B's points less A's), so B's side less A's side is twice it.
            side_b = statistics.fmean(got["diff"][e] for e in entries if bots[e] == b)
            side_a = statistics.fmean(got["diff"][e] for e in entries if bots[e] == a)
            scale = 0.5 if game.teams(players) is not None else (players - 1) / players
            # B's share of the first places (partners who win share one first place each).
            total = sum(got["win"][e] for e in entries) or 1.0
            row = {**key, "deal": deal, "diff": (side_b - side_a) * scale,
                   "win": sum(got["win"][e] for e in entries if bots[e] == b) / total, "load": _load()}
            store.add(row)
        diffs.append(row["diff"])
        wins.append(row["win"])
        if row.get("load") is not None:
            loads.append(row["load"])
        if args.progress:
            print(f"  {game.id} {field} deal {deal + 1} ({time.perf_counter() - began:.0f} s): "
                  f"{b} - {a} {_fmt(diffs)}", file=sys.stderr, flush=True)
        if args.stop and deal + 1 >= args.min_deals and verdict(diffs) != "open":
            state = "stopped"
            break
        if args.field_seconds and time.perf_counter() - began > args.field_seconds and deal + 1 < args.deals:
            state = f"time ran out ({args.field_seconds:.0f} s)"
            break
    se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("nan")
    where = f", load {min(loads):.1f} to {max(loads):.1f}" if loads else ""
    return (f"ladder {b} vs {a} at {players} ({game.id}): {len(diffs)} deals x {players} seatings ({state}{where}): "
            f"{b}'s score less {a}'s {_fmt(diffs)} (s.e. {se:.2f}), {b}'s win share {_fmt(wins, True)}: "
            f"aim {b} > {a}: {verdict(diffs)}")


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", default="updown")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("-o", dest="opts", action="append", default=[], help="a game option, key=value")
    p.add_argument("--fields", default="random,easy,greedy,mixed")
    p.add_argument("--tests", default="greedy,normal")
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
                   help="stop a field (or a ladder cell) after the deal that passes this many seconds")
    p.add_argument("--no-stop", dest="stop", action="store_false")
    p.add_argument("--keep-times", action="store_true", help="store every decision time, not a summary")
    p.add_argument("--quiet", dest="progress", action="store_false")
    args = p.parse_args(argv)
    game = get_game(args.game)
    args.ladder_sizes = (args.players,) if args.players else (2, 4)  # the ladder's tables: --players, else 2 and 4
    args.players = args.players or game.bench_players
    args.options = {k: int(v) if v.isdigit() else v
                    for k, _, v in (o.partition("=") for o in args.opts)}
    counts = {k: int(v) for k, _, v in (c.partition("=") for c in args.count.split(",") if c)}
    args.fields = [budgeted(f, counts) for f in args.fields.split(";" if ";" in args.fields else ",") if f]
    args.tests = [budgeted(t, counts) for t in args.tests.split(";" if ";" in args.tests else ",") if t]
    args.games = [g for g in (args.games or args.game).split(",") if g]
    store = Store(args.out)
    lines = run_ladder(args, store) if args.ladder else run_fields(args, store)
    print(f"{args.game}, {args.players} players, options {args.options}, seed {args.seed}")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
