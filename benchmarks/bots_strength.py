"""Strength of a bot against the greedy bot on duplicate deals, and its decision times.

    python benchmarks/bots_strength.py GAME BOT [DEALS] [--opponent greedy] [--skip N] [--log FILE] [-o key=value ...]

Each deal (a seed) is played once per seat with BOT in that seat and OPPONENT in every other seat
(so each deal is played ``players`` times and every seat's cards go to BOT once). Per game it
records BOT's result: a win (first place alone, or with its partners only), its placing, and its
score minus the mean of the opponents' scores (for Sueca, where lower scores win, the sign is
turned so that positive is good for BOT). A baseline run with OPPONENT in every seat gives the
reference win rate (1/players, or 1/2 for partnerships, up to ties). Figures are per deal (the mean over its
rotations), with the standard error over deals. Decision times are BOT's own, per call of ``act``.
``--skip N`` plays the deals after the first N (to extend a run of N deals with new ones).
``--log FILE`` appends one JSON line per deal (its seed, the bot's win rate and score diff over
the seats), so that two runs on the same deals can be compared deal by deal.
"""

from __future__ import annotations

import itertools
import json
import math
import random
import statistics
import sys
import time
from typing import Any

from updown.bots import make_bot
from updown.bots.search import EXPLORATION, SearchBot
from updown.core.driver import play_game
from updown.core.registry import get_game
from updown.simulate import game_seeds, seeded


class Timed:
    """A bot whose every decision's time goes to ``times`` (the panel's test seat too)."""

    def __init__(self, bot: Any, times: list[float]):
        self.bot, self.times = bot, times

    def act(self, view: Any, legal: Any) -> int:
        t = time.perf_counter()
        a = self.bot.act(view, legal)
        self.times.append(time.perf_counter() - t)
        return int(a)


def _bot(name: str, game: Any, seat: int, rng: random.Random) -> Any:
    """A registered bot, or ``search:KEY=VALUE,...`` for a search bot with those settings.

    Keys: ``sims`` (simulations), ``ms`` (milliseconds), ``c`` (exploration), ``guide`` (greedy
    plies at the start of each playout), ``horizon`` (1: simulations end with the deal),
    ``anchor`` (a bot name, or ``none``), ``conf`` (the anchor's confidence in standard errors), ``depth`` (decisions per simulation),
    ``reuse`` (simulations per world drawn). ``pimc:worlds=N,policy=P,ms=M,depth=D`` is the ``pimc`` bot
    with those settings (``ms``: its time budget per decision; ``depth``: decisions per playout; ``valued=1``: playouts scored
    by the policies' ``evaluate``; ``infer=1``: worlds drawn by the policies' ``likelihood``;
    ``anchor=K``: keep the policy's own choice unless beaten by K standard errors; ``min``: min_worlds;
    ``widest=K``: search only the policy's K favourite actions; ``own=P+Q``: the seat's own later
    choices tried exhaustively (``own_best``) at the decisions of phases P, Q (the view's ``phase``),
    or at all with ``own=all``). ``LEVEL:key=value,...`` is a registered ``pimc`` level of the game
    (``normal``, ``hard``) with the same keys changed (``worlds``, ``ms``, ``min``, ``own``, ``infer``,
    ``policy``: the batched playouts' rule, ``greedy``, ``bot`` or ``random``; ``rechoose=1``: the
    others' secret choices of this trick made again by that rule in each world).
    """
    if name.startswith("search:"):
        kv = dict(part.partition("=")[::2] for part in name[len("search:"):].split(",") if part)
        attrs: dict[str, Any] = {
            "simulations": int(kv["sims"]) if "sims" in kv else None,
            "milliseconds": float(kv["ms"]) if "ms" in kv else None,
            "exploration": float(kv.get("c", EXPLORATION)),
            "guide": "greedy" if int(kv.get("guide", 0)) else None,
            "guide_plies": int(kv.get("guide", 0)),
            "horizon": bool(int(kv.get("horizon", 0))),
            "anchor": None if kv.get("anchor", "none") == "none" else kv["anchor"],
            "confidence": float(kv.get("conf", 2.0)),
            "depth": int(kv["depth"]) if "depth" in kv else None,
            "reuse": int(kv.get("reuse", 1)),
        }
        return type("Search", (SearchBot,), attrs)(game, seat, rng)
    if name.startswith("pimc:"):  # pimc:worlds=N,policy=random
        from updown.bots.pimc import PimcBot

        kv = dict(part.partition("=")[::2] for part in name[len("pimc:"):].split(",") if part)
        pimc: dict[str, Any] = {"worlds": int(kv.get("worlds", PimcBot.worlds)),
                                "policy": kv.get("policy", PimcBot.policy),
                                "milliseconds": float(kv["ms"]) if "ms" in kv else None,
                                "depth": int(kv["depth"]) if "depth" in kv else None,
                                "valued": bool(int(kv.get("valued", 0))),
                                "infer": bool(int(kv.get("infer", 0))),
                                "anchor": float(kv["anchor"]) if "anchor" in kv else None,
                                "min_worlds": int(kv.get("min", PimcBot.min_worlds)),
                                "widest": int(kv["widest"]) if "widest" in kv else None}
        return _with_own(type("Pimc", (PimcBot,), pimc), kv)(game, seat, rng)
    if ":" in name:  # a level with some settings changed: hard:worlds=40,ms=0,own=trick
        from updown.bots.pimc import PimcBot

        level, _, rest = name.partition(":")
        base = type(make_bot(level, game, seat, random.Random(0)))
        if not issubclass(base, PimcBot):
            raise SystemExit(f"{level!r} is not a pimc level of {game.id}: settings apply to those only")
        kv = dict(part.partition("=")[::2] for part in rest.split(",") if part)
        kv_extra: dict[str, Any] = {}
        known = {"worlds", "ms", "min", "own", "infer"}
        # Any other setting the level has (e.g. UP&DOWN's read=1) is set by its type.
        for key in sorted(set(kv) - known):
            current = getattr(base, key, None)
            if key.startswith("_") or callable(current) or not hasattr(base, key):
                continue
            if isinstance(current, (bool, int, float, str)):
                kv_extra[key] = bool(int(kv[key])) if isinstance(current, bool) else type(current)(kv[key])
            elif current is None:  # an optional number (e.g. batch_games)
                kv_extra[key] = int(kv[key]) if kv[key].isdigit() else float(kv[key])
        unknown = sorted(set(kv) - known - set(kv_extra))
        if unknown:
            raise SystemExit(f"unknown setting {', '.join(unknown)} in {name!r}: "
                             "worlds, ms, min, own, infer, policy, rechoose or a setting of the level")
        attrs: dict[str, Any] = dict(kv_extra)
        if "worlds" in kv:
            attrs["worlds"] = int(kv["worlds"])
        if "ms" in kv:
            attrs["milliseconds"] = float(kv["ms"]) or None  # ms=0: no time budget
        if "min" in kv:
            attrs["min_worlds"] = int(kv["min"])
        if "infer" in kv:
            attrs["infer"] = bool(int(kv["infer"]))
        return _with_own(type(level.title(), (base,), attrs), kv)(game, seat, rng)
    return make_bot(name, game, seat, rng)


def _with_own(cls: Any, kv: dict[str, str]) -> Any:
    """``own=P+Q``: own_best at the decisions of those phases (``all``: every decision)."""
    if "own" not in kv:
        return cls
    phases = set(kv["own"].split("+"))
    return type(cls.__name__, (cls,), {"own_best_for": lambda self, view: "all" in phases or view.get("phase") in phases})


def mean_se(xs: list[float]) -> tuple[float, float]:
    m = statistics.fmean(xs)
    se = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else float("nan")
    return m, se


def main(argv: list[str]) -> None:
    args = [a for a in argv]
    if not args or "-h" in args or "--help" in args:
        print(__doc__)
        raise SystemExit(0 if args else 2)
    opponent = "greedy"
    options: dict[str, Any] = {}
    skip = 0
    if "--opponent" in args:
        i = args.index("--opponent")
        opponent = args[i + 1]
        del args[i:i + 2]
    log = None
    if "--log" in args:  # one JSON line per deal (its seed, the bot's win rate and score diff), for paired comparisons
        i = args.index("--log")
        log = open(args[i + 1], "a", encoding="utf-8")
        del args[i:i + 2]
    if "--skip" in args:  # continue an earlier run on new deals: its DEALS were the first ones
        i = args.index("--skip")
        skip = int(args[i + 1])
        del args[i:i + 2]
    while "-o" in args:
        i = args.index("-o")
        k, _, v = args[i + 1].partition("=")
        options[k] = int(v) if v.isdigit() else v
        del args[i:i + 2]
    if len(args) < 2 or (len(args) > 2 and not args[2].isdigit()):
        raise SystemExit(f"usage: bots_strength.py GAME BOT [DEALS] [options] (got {' '.join(argv)!r}; --help for more)")
    game_id, bot = args[0], args[1]
    deals = int(args[2]) if len(args) > 2 else 20
    game = get_game(game_id)
    players = game.bench_players
    opts = game.options(options)
    teams = game.teams(players)
    times: list[float] = []
    wins: list[float] = []
    places: list[float] = []
    diffs: list[float] = []
    start = time.perf_counter()
    for n, seed in enumerate(itertools.islice(game_seeds(20261122, skip + deals), skip, None), start=1):
        w = p = d = 0.0
        for seat in range(players):
            agents: list[Any] = []
            for s in range(players):
                name = bot if s == seat else opponent
                agent = _bot(name, game, s, random.Random(f"{seed}:{s}:{name}"))
                agents.append(Timed(agent, times) if s == seat else agent)
            state, _ = play_game(game, players, agents, seeded(seed), options=opts, seed=seed)
            r = state.result()
            best = min(range(players), key=lambda s: r.placings[s])
            sign = 1.0 if r.scores[best] == max(r.scores) else -1.0
            mates = next((t for t in teams if seat in t), (seat,)) if teams else (seat,)
            others = [s for s in range(players) if s not in mates]
            first = [s for s in range(players) if r.placings[s] == 1]
            w += 1.0 if set(first) <= set(mates) and seat in first else 0.0
            p += r.placings[seat]
            d += sign * (r.scores[seat] - statistics.fmean(r.scores[s] for s in others))
        wins.append(w / players)
        places.append(p / players)
        diffs.append(d / players)
        if log is not None:
            log.write(json.dumps({"deal": skip + n, "seed": seed, "bot": bot, "win": w / players, "diff": d / players}) + "\n")
            log.flush()
        if n % 10 == 0 or n == deals or n < 10:
            wm, ws = mean_se(wins)
            dm, ds = mean_se(diffs)
            ts = sorted(times)
            print(f"  {n} deals ({n * players} games, {time.perf_counter() - start:.0f} s): "
                  f"win {wm:.3f} ± {ws:.3f}, score diff {dm:+.3f} ± {ds:.3f}; "
                  f"decisions {len(ts)}, median {1000 * ts[len(ts) // 2]:.1f} ms, max {1000 * ts[-1]:.1f} ms",
                  flush=True)
    wm, ws = mean_se(wins)
    pm, ps = mean_se(places)
    dm, ds = mean_se(diffs)
    ts = sorted(times)
    print(f"{game_id} {bot} vs {opponent} x{players - 1} options={options}: {deals} deals x {players} seats = "
          f"{deals * players} games")
    print(f"  win rate {wm:.3f} ± {ws:.3f} (all-{opponent} table: 1/{len(teams) if teams else players} before ties)")
    print(f"  mean placing {pm:.3f} ± {ps:.3f}; score diff vs opponents {dm:+.3f} ± {ds:.3f} (positive: better for {bot})")
    print(f"  decision time: {len(ts)} decisions, median {1000 * ts[len(ts) // 2]:.1f} ms, "
          f"p99 {1000 * ts[min(len(ts) - 1, len(ts) * 99 // 100)]:.1f} ms, max {1000 * ts[-1]:.1f} ms; "
          f"over 100 ms: {sum(t > 0.1 for t in ts)}, over 1 s: {sum(t > 1.0 for t in ts)} (2 shared cores)")


if __name__ == "__main__":
    main(sys.argv[1:])
