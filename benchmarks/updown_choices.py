"""UP&DOWN's choices audited on positions: what each variant of a level gives up or gains, decision
by decision, against the true values of the actions.

    python benchmarks/updown_choices.py [VARIANT ...] [--players 2] [--rounds 1]
        [--field random] [--seed 1] [--positions 200] [--playouts 400] [--count normal=20,hard=240]
        [--engine auto|batched|scalar] [--seconds S] [--json FILE] [--from FILE] [--reuse FILE]

**Positions.** Games of ``--players`` at ``--rounds`` a game, a test seat (seat ``g mod players``
in game ``g``) played by ``greedy`` and every other seat by the ``--field`` bot (``random``,
``easy``, ``greedy``, ``normal``, ``hard``; a level held to ``--count`` worlds), chance and the
bots seeded from ``--seed``, the field and the game. Every decision of the test seat with more
than one legal action is a position, up to ``--positions``. So the positions are the ones
``greedy`` meets at that table (not the ones a level would lead itself into).

**True values.** At each position the experimenter sees the full state (every hand, the secret
choices already made, the cards set aside). Every legal action is played on from it to the end
of the round ``--playouts`` times: the other seats as their real bots, the test seat by the
``greedy`` rule. The value of an action is the test seat's margin over the rest of the round,
the score the panel (``bots_panel.py``) uses: its tricks (UP&DOWN's points) less the mean of the
others' (at 2 players: its tricks less the other's). Every action of a position is played on
with the same random numbers (common random numbers), so the differences are less noisy than the
values. Two engines, with the same meaning:

* ``batched`` (for ``random``, ``easy`` and ``greedy`` fields): all playouts of a position in one
  numpy batch (:func:`updown.bots.updown_model.mixed_deal_values`, ``paired``), ``greedy`` as the
  batched engine's ``bot`` rule (the greedy bot's choices), ``random`` a uniform legal action,
  ``easy`` that rule with a uniform legal action one time in three: the same players as the bots,
  drawn from other random numbers.
* ``scalar`` (any field; ``auto`` takes it for the others): each playout through the protocol,
  with fresh bots of the field (seeded by the position, the playout and the seat, the same for
  every action), asked one seat at a time as the game's driver asks them.

**Variants** (the arguments; default ``normal``): ``greedy`` (a check: it scores 0), a registered
bot, or ``LEVEL:key=value,...`` as in ``bots_strength.py`` (``normal:keep=2``,
``normal:worlds=40``, ``normal:shrink=0``). A level in ``--count`` is held to that many worlds
and no time budget (``normal`` -> ``normal:ms=0,worlds=20``, as the panel's ``--count`` does)
unless the variant names its own ``worlds``. Each variant is asked from the test seat's view
alone (``state.view(seat)``), with an rng seeded by the position (the same for every variant).

**Figures**, per variant: the mean over positions of (true value of its action - true value of
``greedy``'s action), in tricks (points) a decision, with its standard error over positions and
over games (the games as clusters: a game's positions are not independent); the share of
positions where it left ``greedy``'s action; the mean gain where it did. ``oracle`` is the best
true action at each position: an upper bound (a little above the truth, as the largest of noisy
means). ``--json FILE`` appends one JSON line per position (its state's public summary, every
action's true value and each variant's action); ``--from FILE`` prints the table of such a file
(the lines of the same field, players and variants) without playing. ``--reuse FILE`` plays the
positions of such a file again (the same seed: a row without one is taken to have it) and keeps
their true values and actions, asking only the variants they lack: new variants on the same
positions for the cost of the variants alone.

Run it under ``nice``; one process, one core.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bots_strength import _bot  # noqa: E402

from updown.bots.search import deal_rewards  # noqa: E402
from updown.bots.updown_greedy import UpDownGreedy  # noqa: E402
from updown.bots.updown_model import CARELESS, RANDOM, RULE, mixed_deal_values  # noqa: E402
from updown.core.protocol import State  # noqa: E402
from updown.core.registry import get_game  # noqa: E402

GAME = get_game("updown")
BATCHED_KINDS = {"random": RANDOM, "easy": CARELESS, "greedy": RULE}
"""The fields the batched engine plays as their real bots, and the kind that does."""
ORACLE = "oracle"


def budgeted(spec: str, counts: dict[str, int]) -> str:
    """``spec`` with a level in ``counts`` held to that many worlds and no time budget, unless
    it names its own ``worlds`` (``normal:keep=2`` -> ``normal:keep=2,ms=0,worlds=20``)."""
    level, _, rest = spec.partition(":")
    if level not in counts:
        return spec
    keys = dict(part.partition("=")[::2] for part in rest.split(",") if part)
    keys.setdefault("ms", "0")
    keys.setdefault("worlds", str(counts[level]))
    return f"{level}:" + ",".join(f"{k}={v}" for k, v in keys.items())


@dataclass
class Position:
    game: int
    """The game it came from (the positions of one game are not independent)."""
    seat: int
    state: State
    legal: list[int]


def positions(players: int, rounds: int, field: str, seed: int, counts: dict[str, int]) -> Iterator[Position]:
    """Every decision of the test seat (``greedy``) with more than one legal action, game after
    game, the other seats played by ``field``; the state is a copy the game does not touch."""
    options = GAME.options({"rounds": rounds})
    g = 0
    while True:
        tag = f"{seed}:{players}:{field}:{g}"
        test = g % players
        bots = [_bot("greedy" if s == test else budgeted(field, counts), GAME, s, random.Random(f"{tag}:{s}"))
                for s in range(players)]
        chance = random.Random(f"{tag}:chance")
        state = GAME.new_state(players, options)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(chance))
                continue
            seat = state.actors()[0]
            legal = state.legal_actions(seat)
            if seat == test and len(legal) > 1:
                yield Position(g, seat, state.clone(), list(legal))
            state.apply(bots[seat].act(state.view(seat), legal), seat)
        g += 1


def greedy_action(pos: Position) -> int:
    return UpDownGreedy(GAME, pos.seat, random.Random(0)).act(pos.state.view(pos.seat), pos.legal)


def batched_values(pos: Position, field: str, playouts: int, rng: np.random.Generator,
                   against: int) -> tuple[list[float], list[float]]:
    """Each action's mean margin over ``playouts`` copies of the real state, and the standard error
    of its difference from action ``against`` (paired)."""
    n = pos.state.players
    kinds = [[RULE if s == pos.seat else BATCHED_KINDS[field] for s in range(n)]] * playouts
    means, errors = mixed_deal_values([pos.state] * playouts, kinds, pos.seat, pos.legal, rng=rng,
                                      rechoose=False, against=against, paired=True)
    return [float(x) for x in means], [float(x) for x in errors]


def scalar_values(pos: Position, field: str, playouts: int, tag: str, counts: dict[str, int],
                  against: int) -> tuple[list[float], list[float]]:
    """As :func:`batched_values`, each playout through the protocol with the field's real bots
    (fresh, seeded by ``tag``, the playout and the seat: the same for every action)."""
    n = pos.state.players
    start = pos.state.progress()
    assert start is not None  # UP&DOWN has rounds
    margins = np.zeros((playouts, len(pos.legal)))
    spec = budgeted(field, counts)
    for k in range(playouts):
        for j, action in enumerate(pos.legal):
            w = pos.state.clone()
            bots = [_bot("greedy" if s == pos.seat else spec, GAME, s, random.Random(f"{tag}:{k}:{s}"))
                    for s in range(n)]
            chance = random.Random(f"{tag}:{k}:chance")
            w.apply(action, pos.seat)
            while not w.is_terminal():
                if w.is_chance():
                    progress = w.progress()
                    if progress is not None and progress.deals > start.deals:
                        break
                    w.apply(w.sample_chance(chance))
                    continue
                s = w.actors()[0]
                w.apply(bots[s].act(w.view(s), w.legal_actions(s)), s)
            end = w.progress()
            assert end is not None
            margins[k, j] = deal_rewards(start, end)[pos.seat]
    means = margins.mean(axis=0)
    diffs = margins - margins[:, [against]]
    errors = diffs.std(axis=0, ddof=1) / math.sqrt(playouts) if playouts > 1 else np.zeros(len(pos.legal))
    return [float(x) for x in means], [float(x) for x in errors]


def variant_action(spec: str, pos: Position, counts: dict[str, int], tag: str) -> int:
    """The action variant ``spec`` plays from the test seat's view alone."""
    bot = _bot(budgeted(spec, counts), GAME, pos.seat, random.Random(f"{tag}:variant"))
    return int(bot.act(pos.state.view(pos.seat), list(pos.legal)))


def audit(pos: Position, index: int, variants: Sequence[str], *, field: str, playouts: int, seed: int,
          counts: dict[str, int], engine: str, known: dict[str, Any] | None = None) -> dict[str, Any]:
    """One position's row: every action's true value, greedy's action and each variant's.
    ``known``: this position's row from an earlier run (the same seed), whose true values and
    variants' actions are kept; only the variants it lacks are asked."""
    tag = f"{seed}:{pos.state.players}:{field}:position {index}"
    own = greedy_action(pos)
    against = pos.legal.index(own)
    view = pos.state.view(pos.seat)
    if known is not None:
        if known["legal"] != pos.legal or known["greedy"] != own or known["trick"] != view["trick"]:
            raise SystemExit(f"position {index} on file is not this one: another seed, field or rules?")
        chosen = dict(known["chosen"])
        chosen.update({spec: variant_action(spec, pos, counts, tag) for spec in variants if spec not in chosen})
        return {**known, "seed": seed, "chosen": chosen}
    if engine == "batched":
        rng = np.random.default_rng(random.Random(f"{tag}:playouts").getrandbits(64))
        values, errors = batched_values(pos, field, playouts, rng, against)
    else:
        values, errors = scalar_values(pos, field, playouts, f"{tag}:playouts", counts, against)
    chosen = {spec: variant_action(spec, pos, counts, tag) for spec in variants}
    return {"field": field, "players": pos.state.players, "seed": seed, "game": pos.game, "index": index,
            "seat": pos.seat,
            "phase": view["phase"], "trick": view["trick"], "legal": pos.legal, "values": values,
            "errors": errors, "greedy": own, "chosen": chosen, "playouts": playouts, "engine": engine}


def gains(rows: Sequence[dict[str, Any]], spec: str) -> list[tuple[int, float, bool]]:
    """Per row: its game, the true value of the variant's action less greedy's, and whether it left
    greedy's action (``oracle``: the best true action)."""
    out = []
    for r in rows:
        values = r["values"]
        own = r["legal"].index(r["greedy"])
        if spec == ORACLE:
            pick = max(range(len(values)), key=lambda i: (values[i], i == own))
        else:
            pick = r["legal"].index(r["chosen"][spec])
        out.append((int(r["game"]), values[pick] - values[own], pick != own))
    return out


def figures(rows: Sequence[dict[str, Any]], spec: str) -> dict[str, float]:
    """The mean gain a decision, its standard errors (over positions, over games as clusters), the
    share of positions where the variant left greedy's action and the mean gain where it did."""
    g = gains(rows, spec)
    d = [x for _, x, _ in g]
    n = len(d)
    mean = statistics.fmean(d)
    se = statistics.stdev(d) / math.sqrt(n) if n > 1 else float("nan")
    by_game: dict[int, float] = {}
    for game, x, _ in g:
        by_game[game] = by_game.get(game, 0.0) + (x - mean)
    k = len(by_game)
    cluster = math.sqrt(sum(s * s for s in by_game.values()) * k / max(k - 1, 1)) / n if k > 1 else float("nan")
    left = [x for _, x, moved in g if moved]
    return {"n": n, "games": k, "mean": mean, "se": se, "se_games": cluster, "share": len(left) / n,
            "left_gain": statistics.fmean(left) if left else 0.0}


def paired(rows: Sequence[dict[str, Any]], spec: str, base: str) -> tuple[float, float]:
    """The mean over positions of variant ``spec``'s gain less ``base``'s (the same positions and
    true values), and its standard error."""
    d = [x - y for (_, x, _), (_, y, _) in zip(gains(rows, spec), gains(rows, base))]
    se = statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else float("nan")
    return statistics.fmean(d), se


def table(rows: Sequence[dict[str, Any]], variants: Sequence[str]) -> str:
    games = len({r["game"] for r in rows})
    per_game = len(rows) / max(games, 1)
    base = variants[0]
    lines = [f"{len(rows)} positions from {games} games ({per_game:.1f} a game); gain over greedy's action "
             f"in tricks (points) a decision; a game: times {per_game:.1f}; last column: less {base}, paired",
             f"{'variant':34} {'gain':>8} {'s.e.':>6} {'s.e.(games)':>11} {'left':>6} {'gain when left':>15} "
             f"{'less ' + base:>18}"]
    for spec in [*variants, ORACLE]:
        f = figures(rows, spec)
        m, e = paired(rows, spec, base)
        lines.append(f"{spec:34} {f['mean']:+8.4f} {f['se']:6.4f} {f['se_games']:11.4f} {f['share']:6.3f} "
                     f"{f['left_gain']:+15.4f} {m:+10.4f} ± {e:.4f}")
    noise = [r["errors"][max(range(len(r["values"])), key=r["values"].__getitem__)] for r in rows]
    lines.append(f"(true values' own noise: the s.e. of the best action less greedy's, mean over positions, "
                 f"{statistics.fmean(noise):.4f})")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("variants", nargs="*", default=["normal"])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--field", default="random")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--positions", type=int, default=200)
    p.add_argument("--skip", type=int, default=0, help="start after this many positions (to extend a run)")
    p.add_argument("--playouts", type=int, default=400)
    p.add_argument("--count", default="normal=20,hard=240")
    p.add_argument("--engine", choices=("auto", "batched", "scalar"), default="auto")
    p.add_argument("--seconds", type=float, default=None, help="stop after the position that passes this")
    p.add_argument("--json", default=None, help="append one JSON line per position")
    p.add_argument("--from", dest="source", default=None, help="print the table of a file of rows, play nothing")
    p.add_argument("--reuse", default=None,
                   help="a file of rows of an earlier run (the same seed): their true values are kept, "
                        "only the variants they lack are asked")
    a = p.parse_args(argv)
    variants = list(dict.fromkeys(a.variants))
    if a.source is not None:
        stored = [json.loads(line) for line in Path(a.source).read_text().splitlines() if line.strip()]
        kept = [r for r in stored if r["field"] == a.field and r["players"] == a.players
                and all(v in r["chosen"] for v in variants)]
        print(f"{a.source}: field {a.field}, {a.players} players")
        print(table(kept, variants) if kept else "no positions of that field and players with all those variants")
        return
    counts = {k: int(v) for k, v in (part.split("=") for part in a.count.split(",") if part)}
    engine = a.engine
    if engine == "auto":
        engine = "batched" if a.field in BATCHED_KINDS else "scalar"
    if engine == "batched" and a.field not in BATCHED_KINDS:
        raise SystemExit(f"the batched engine plays {', '.join(BATCHED_KINDS)} as their bots, not {a.field!r}")
    import updown.games.updown as engine_module

    print(f"engine module: {engine_module.__file__}")
    print(f"field {a.field}, {a.players} players, {a.rounds} round(s), seed {a.seed}, {a.playouts} playouts "
          f"({engine}), counts {counts}, variants {', '.join(variants)}", flush=True)
    known: dict[int, dict[str, Any]] = {}
    if a.reuse is not None:
        for line in Path(a.reuse).read_text().splitlines():
            r = json.loads(line) if line.strip() else None
            if r and r["field"] == a.field and r["players"] == a.players and r.get("seed", a.seed) == a.seed:
                known[int(r["index"])] = r
    out = open(a.json, "a", encoding="utf-8") if a.json else None
    rows: list[dict[str, Any]] = []
    began = time.perf_counter()
    source = positions(a.players, a.rounds, a.field, a.seed, counts)
    for index, pos in enumerate(source):
        if index >= a.skip + a.positions:
            break
        if index < a.skip:
            continue
        if a.reuse is not None and index not in known:
            break  # only the positions on file
        row = audit(pos, index, variants, field=a.field, playouts=a.playouts, seed=a.seed, counts=counts,
                    engine=engine, known=known.get(index))
        rows.append(row)
        if out is not None:
            out.write(json.dumps(row) + "\n")
            out.flush()
        done = len(rows)
        if done % 50 == 0:
            f = figures(rows, variants[0]) if done > 1 else None
            print(f"  {done} positions, {time.perf_counter() - began:.0f} s"
                  + (f"; {variants[0]} {f['mean']:+.4f} ± {f['se']:.4f}" if f else ""), flush=True)
        if a.seconds is not None and time.perf_counter() - began > a.seconds:
            break
    print(f"{len(rows)} positions in {time.perf_counter() - began:.0f} s")
    if rows:
        print(table(rows, variants))


if __name__ == "__main__":
    main(sys.argv[1:])
