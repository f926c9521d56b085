"""The Euchre ``greedy`` bot's bid thresholds against many kinds of tables (issue 33, eleventh pass).

    .venv/bin/python -P benchmarks/euchre_bid_threshold.py batched [DEALS] [--make 5 5.5 6 6.5 7 7.5]
        [--alone A ...] [--plain MAKE ALONE] [--fields greedy,simple,random,easy] [--seed S]
    .venv/bin/python -P benchmarks/euchre_bid_threshold.py scalar [DEALS] [--make 5 5.5 ...]
        [--alone A ...] [--plain MAKE ALONE] [--field normal:ms=0,worlds=100] [--seed S]
        [--first D] [--out FILE] [--check K] [--alone-only]
    .venv/bin/python -P benchmarks/euchre_bid_threshold.py report FILE [FILE ...]

A *variant* is the ``greedy`` bot with another ``make`` (trump made at that strength, in the second
round half a point less) and ``alone`` (``EuchreGreedy.make``, ``.alone``); the *plain* bot is the
bot at ``--plain MAKE ALONE`` (by default the bot's own; the eleventh pass of docs/bots.md compared
with the bot before it, ``--plain 7.5 13``). It plays as a partnership (both seats of a team) against a field, and so does the plain bot,
on the same duplicate single deals (``deals=1``); a deal's figure is the variant's side's points
less the field's, less the same for the plain bot's side, the mean over the deal's seatings. The
report gives its mean over the deals and a 95% interval (normal, over deals), and both sides' own
margins and how often the side made trump.

**batched**: the batched engine plays every side (fast: ``DEALS`` 20,000 by default): the variant
is the smart rule (``BatchedEuchre.smart_actions``, the bot's choices in numpy, checked against
the bot by tests/test_batched_euchre_smart.py) with ``make`` and ``go_alone`` set, set back to the
plain bot's for the field. Fields: ``greedy`` (the smart rule at the plain bot's thresholds: the
bot), ``simple`` (the engine's simple rule, ``greedy_actions``), ``random`` (a
random legal action), ``easy`` (the bot, a random legal action one time in three when there is a
choice, as ``EasyBot``). Two seatings a deal (the variant's side as team 0 and as team 1; the
cards and dealer are the batch's, the same for every variant); the random choices come from a
generator of their own seeded alike for the plain bot's run and the variant's, so they match until
the two runs' games part.

**scalar**: the scalar bots through the arena's duplicate deals (:mod:`updown.arena.duplicate`,
four seatings a deal, each seat's bot seeded by the deal, the seating and the seat) against a
field named as ``bots_strength.py`` names bots (``normal:ms=0,worlds=100``: ``normal`` held to 100
worlds a decision, reproducible). The plain bot's seating is played first with every variant
watching: a variant whose choices equal the plain bot's at every decision of its side would have
played the same game (every bot is seeded alike), so its figure there is the plain bot's and it is
replayed only where it would have chosen otherwise. ``--check K`` replays every variant in the
first K deals anyway and stops if a game that was not replayed ends otherwise. ``--out FILE``
keeps a JSON line a deal (a run goes on from where the file ends); ``--first D`` starts at deal
D (two processes on disjoint deals, one file each; ``report FILE...`` prints their union).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

Variant = tuple[float, float]
"""(make, alone)."""


def _ci(d: Sequence[float]) -> str:
    a = np.asarray(d, dtype=np.float64)
    m = float(a.mean())
    se = float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else float("nan")
    return f"{m:+.4f} [{m - 1.96 * se:+.4f}, {m + 1.96 * se:+.4f}] (s.e. {se:.4f})"


def _label(make: float, alone: float) -> str:
    return f"make {make:g}, alone {alone:g}"


# -- batched -----------------------------------------------------------------------------------------

def _batched_side(n: int, seed: int, team: int, field: str, variant: Variant, plain: Variant,
                  ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """``n`` single deals with the smart rule at ``variant`` as team ``team`` against ``field``
    (whose bot is the smart rule at ``plain``): per deal that team's points less the other's, and
    whether it made trump."""
    from updown.batched.euchre import BatchedEuchre

    b = BatchedEuchre(n, seed, {"deals": 1})
    b.rng = np.random.default_rng([seed, 7])  # the random choices: alike in every run of this seed
    chooser = np.random.default_rng([seed, 8])
    while not b.all_done():
        mine = (b.turn & 1) == team
        b.make, b.go_alone = variant
        ours = b.smart_actions()
        b.make, b.go_alone = plain
        if field == "greedy":
            theirs = b.smart_actions()
        elif field == "simple":
            theirs = b.greedy_actions()
        elif field == "random":
            theirs = b.random_actions()
        elif field == "easy":
            count = b.legal_mask().sum(axis=1)
            wild = (chooser.random(b.n) < 1 / 3) & (count > 1)
            theirs = np.where(wild, b.random_actions(), b.smart_actions())
        else:
            raise SystemExit(f"no batched field {field!r} (greedy, simple, random, easy)")
        b.step(np.where(mine, ours, theirs))
    t = b.totals.reshape(-1, 2)
    made = (b.maker >= 0) & ((b.maker & 1) == team)
    return (t[:, team] - t[:, 1 - team]).astype(np.float64), made


def run_batched(opts: argparse.Namespace) -> None:
    base = opts.plain
    variants = [(m, a) for a in opts.alone for m in opts.make]
    print(f"the plain bot: {_label(*base)} (also in the fields greedy and easy)", flush=True)
    for field in opts.fields.split(","):
        began = time.perf_counter()
        sides = {v: [_batched_side(opts.deals, opts.seed, team, field, v, base) for team in (0, 1)]
                 for v in {base, *variants}}

        def margin(v: Variant) -> npt.NDArray[np.float64]:
            out: npt.NDArray[np.float64] = (sides[v][0][0] + sides[v][1][0]) / 2
            return out

        def made(v: Variant) -> float:
            return float((sides[v][0][1].mean() + sides[v][1][1].mean()) / 2)

        print(f"field {field}, {opts.deals} duplicate single deals x 2 seatings, seed {opts.seed} "
              f"({time.perf_counter() - began:.0f} s); the plain bot's side: {_ci(list(margin(base)))} points a deal "
              f"over the field, made trump in {made(base):.3f}", flush=True)
        for v in variants:
            if v == base:
                continue
            d = margin(v) - margin(base)
            print(f"  {_label(*v)}: less the plain bot {_ci(list(d))}; own margin {float(margin(v).mean()):+.4f}, "
                  f"made trump in {made(v):.3f}; deals that differ {float((d != 0).mean()):.3f}", flush=True)


# -- scalar ------------------------------------------------------------------------------------------

class _Watch:
    """The plain bot in a seat, and beside it every variant's choice at the same decisions: which
    variants would have chosen otherwise somewhere (``parted``)."""

    def __init__(self, bot: Any, variants: list[Any], parted: set[int]):
        self.bot, self.variants, self.parted = bot, variants, parted
        self.seat = bot.seat

    def act(self, view: Any, legal: Any) -> int:
        a: int = self.bot.act(view, legal)
        for i, v in enumerate(self.variants):
            if i not in self.parted and v.act(view, legal) != a:
                self.parted.add(i)
        return a


def _variant_class(make: float, alone: float) -> type:
    from updown.bots.euchre_greedy import EuchreGreedy

    return type(f"Greedy_{make:g}_{alone:g}", (EuchreGreedy,), {"make": make, "alone": alone})


def _alone_seats(game: Any, options: Any, dseed: int) -> set[int]:
    """The seats whose dealt hand could go alone by the rule with some trump at some threshold (no
    losing off-suit card; the dealer may drop one card for the up-card): a variant that differs from
    the plain bot only in ``alone`` chooses as it in a seating where neither partner is one."""
    from updown.arena.duplicate import ChanceStreams
    from updown.bots.euchre_greedy import losers
    from updown.games.euchre import card_id

    chance = ChanceStreams(dseed)
    st = game.new_state(4, options)
    while st.is_chance():  # the deal, drawn as play_seating draws it (the same in every seating)
        chance.select(st.chance_label())
        st.apply(st.sample_chance(chance))
    seats = set()
    for seat in range(4):
        v = st.view(seat)
        hand = [card_id(c) for c in v["hand"]]
        dealer = seat == v["dealer"]
        if dealer:
            hand.append(card_id(v["upcard"]))
        if any(losers(hand, t) <= int(dealer) for t in range(4)):
            seats.add(seat)
    return seats


def run_scalar(opts: argparse.Namespace) -> None:
    from bots_strength import _bot

    from updown.arena import duplicate
    from updown.arena.duplicate import Lineup, deal_seed, entry_teams, play_seating, seat_of
    from updown.bots.euchre_greedy import EuchreGreedy
    from updown.core.registry import get_game

    game = get_game("euchre")
    options = game.options({"deals": 1})
    ref = opts.plain
    variants = [(m, a) for a in opts.alone for m in opts.make if (m, a) != ref]
    if opts.alone_only and any(m != ref[0] for m, _ in variants):
        raise SystemExit("--alone-only: every variant's make must be the plain bot's")
    classes = [_variant_class(*v) for v in variants]
    plain_class = _variant_class(*ref)
    print(f"the plain bot: {_label(*ref)}; {EuchreGreedy.__module__} from {sys.modules[EuchreGreedy.__module__].__file__}; "
          f"engine {sys.modules[type(game).__module__].__file__}", flush=True)
    parted: set[int] = set()
    mode: dict[str, Any] = {"watch": True, "variant": None}

    def make_bot(name: str, g: Any, seat: int, rng: random.Random) -> Any:
        if name == "TEAM":
            if mode["variant"] is not None:
                return classes[mode["variant"]](g, seat, rng)
            plain = plain_class(g, seat, rng)
            if not mode["watch"]:
                return plain
            # the variants watch with generators of their own: the bot draws nothing from its rng
            return _Watch(plain, [c(g, seat, random.Random(0)) for c in classes], parted)
        return _bot(name, g, seat, rng)

    duplicate.make_bot = make_bot  # type: ignore[attr-defined, assignment]  # the arena's seatings, with the variants
    line = Lineup(game.id, 4, options.to_dict(), ("TEAM", opts.field, "TEAM", opts.field), opts.seed,
                  entry_teams(game, 4))

    def margin(played: dict[str, Any], r: int) -> float:
        s = played["scores"]
        return float(s[seat_of(0, r, 4)] - s[seat_of(1, r, 4)])

    done: dict[int, dict[str, Any]] = {}
    out = Path(opts.out) if opts.out else None
    if out is not None and out.exists():
        for line_ in out.read_text().splitlines():
            row = json.loads(line_)
            done[row["deal"]] = row
    began = time.perf_counter()
    for deal in range(opts.first, opts.first + opts.deals):
        if deal in done:
            continue
        dseed = deal_seed(opts.seed, deal)
        base: list[float | None] = []
        var: list[list[float | None]] = [[] for _ in variants]
        replayed = 0
        could = _alone_seats(game, options, dseed) if opts.alone_only else set(range(4))
        check = deal - opts.first < opts.check
        for r in range(4):
            skip = not could & {seat_of(0, r, 4), seat_of(2, r, 4)}
            if skip and not check:
                base.append(None)
                for i in range(len(variants)):
                    var[i].append(None)
                continue
            parted.clear()
            mode.update(watch=True, variant=None)
            plain = margin(play_seating(line, game, options, dseed, r), r)
            base.append(plain)
            if skip and parted:
                raise SystemExit(f"deal {deal} seating {r}: no partner could go alone, yet a variant chose otherwise")
            for i in range(len(variants)):
                if i in parted or check:
                    mode.update(watch=False, variant=i)
                    got = margin(play_seating(line, game, options, dseed, r), r)
                    replayed += i in parted
                    if i not in parted and got != plain:
                        raise SystemExit(f"deal {deal} seating {r}: {_label(*variants[i])} chose as the plain "
                                         f"bot everywhere but its game ended {got} against {plain}")
                    var[i].append(got)
                else:
                    var[i].append(plain)
        row = {"deal": deal, "field": opts.field, "seed": opts.seed, "plain": base,
               "variants": {_label(*v): var[i] for i, v in enumerate(variants)}, "replayed": replayed,
               "load": _load()}
        done[deal] = row
        if out is not None:
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
        if (deal - opts.first + 1) % opts.every == 0:
            print(f"{deal - opts.first + 1} deals, {time.perf_counter() - began:.0f} s, load {_load()}", flush=True)
            report(list(done.values()))
    report(list(done.values()))


def _load() -> float | None:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except OSError:
        return None


def report(rows: list[dict[str, Any]]) -> None:
    if not rows:
        print("no deals")
        return
    rows = sorted(rows, key=lambda r: r["deal"])
    loads = [r["load"] for r in rows if r.get("load") is not None]
    skipped = sum(x is None for r in rows for x in r["plain"])
    if skipped:
        side = f"{skipped} of {4 * len(rows)} seatings not played (no hand that could go alone)"
    else:
        side = f"the plain bot's side: {_ci([sum(r['plain']) / 4 for r in rows])} points a deal over the field"
    print(f"field {rows[0]['field']}, {len(rows)} duplicate single deals x 4 seatings, seed {rows[0]['seed']}, "
          f"load {min(loads, default=0):.1f} to {max(loads, default=0):.1f}; {side}", flush=True)
    for label in rows[0]["variants"]:
        d = [sum(0.0 if x is None else x - p for x, p in zip(r["variants"][label], r["plain"])) / 4 for r in rows]
        print(f"  {label}: less the plain bot {_ci(d)}; deals that differ {sum(x != 0 for x in d) / len(d):.3f}",
              flush=True)


def main(argv: list[str]) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("how", choices=("batched", "scalar", "report"))
    p.add_argument("deals", nargs="*", default=[])
    p.add_argument("--make", type=float, nargs="+", default=[5.0, 5.5, 6.0, 6.5, 7.0, 7.5])
    p.add_argument("--alone", type=float, nargs="+", default=None,
                   help="the variants' alone thresholds (default: the plain bot's)")
    p.add_argument("--plain", type=float, nargs=2, default=None, metavar=("MAKE", "ALONE"),
                   help="the plain bot's thresholds (default: EuchreGreedy's make and alone)")
    p.add_argument("--fields", default="greedy,simple,random,easy", help="batched: the fields")
    p.add_argument("--field", default="normal:ms=0,worlds=100", help="scalar: the field")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--first", type=int, default=0, help="scalar: the first deal's number")
    p.add_argument("--out", default=None, help="scalar: a JSON line a deal, to go on from")
    p.add_argument("--check", type=int, default=0, help="scalar: replay every variant in the first K deals")
    p.add_argument("--alone-only", action="store_true",
                   help="scalar: the variants differ from the plain bot in alone only; seatings where no "
                        "partner's hand could go alone are not played (their difference is 0)")
    p.add_argument("--every", type=int, default=50, help="scalar: report after every this many deals")
    opts = p.parse_args(argv)
    from updown.bots.euchre_greedy import EuchreGreedy

    opts.plain = tuple(opts.plain) if opts.plain else (EuchreGreedy.make, EuchreGreedy.alone)
    opts.alone = opts.alone or [opts.plain[1]]
    if opts.how == "report":
        rows: dict[int, dict[str, Any]] = {}
        for name in opts.deals:
            for line in Path(name).read_text().splitlines():
                row = json.loads(line)
                rows[row["deal"]] = row
        report(list(rows.values()))
        return
    if len(opts.deals) > 1:
        raise SystemExit("give one number of deals")
    opts.deals = int(opts.deals[0]) if opts.deals else (20_000 if opts.how == "batched" else 500)
    (run_batched if opts.how == "batched" else run_scalar)(opts)


if __name__ == "__main__":
    main(sys.argv[1:])
