"""OpenSpiel's ISMCTS against the project's bots, on duplicate deals, through the OpenSpiel adapter.

OpenSpiel's own match loop, ``open_spiel.python.algorithms.evaluate_bots``, cannot run the Python
``ISMCTSBot``: it calls ``bot.restart_at(state)`` on every bot first, which ISMCTSBot does not
implement (``SpielError: RestartAt(state) not implemented``); OpenSpiel's C++ ``pyspiel.ISMCTSBot``
crashes (a segmentation fault, before its first call into the game) on a game written in Python.
So this script plays its own loop over the OpenSpiel state:

* a chance node: an outcome drawn from the deal's own generator (``draw_chance``);
* an ISMCTS seat: ``bot.step(state)``; ISMCTS reads only that seat's information state and
  samples worlds with ``resample_from_infostate`` (the engine's ``resample``);
* one of our seats: ``make_bot(...).act(state.engine.view(seat), legal)``, the seat's own view,
  exactly what the bot gets when it plays on the server.

Each deal is played from both sides: ISMCTS in the even seats (Euchre: one team), then in the odd
seats, with the same chance generator, so the luck of the cards cancels as far as the game allows
(the opening deal is the same; UP&DOWN's re-rolls come in the order play asks for them). A deal's
figure is the mean of the two plays of our bot's side's OpenSpiel return (zero-sum, from the
placings) less ISMCTS's; the report gives its mean over deals with a standard error, and each
side's median time per decision.

    .venv/bin/python examples/openspiel_ismcts.py --game euchre --bot greedy --deals 40 --sims 200
    .venv/bin/python examples/openspiel_ismcts.py --game updown --players 2 --option rounds=1
    .venv/bin/python examples/openspiel_ismcts.py --deals 2 --sims 5                # a smoke run (CI)
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from updown.adapters import openspiel as uo
from updown.adapters.observations import draw_chance
from updown.bots import bot_names, make_bot


def play(game: Any, ismcts_seats: set[int], bot_name: str, sims: int, uct_c: float, seed: int,
         times: dict[str, list[float]]) -> list[float]:
    """One game: ISMCTS in ``ismcts_seats``, our ``bot_name`` in the others; OpenSpiel's returns."""
    chance = random.Random(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    searcher = ismcts.ISMCTSBot(game, evaluator, uct_c, sims, random_state=np.random.RandomState(seed + 1))
    engine_game = game.engine_game
    ours = {s: make_bot(bot_name, engine_game, s, random.Random(seed * 10 + s))
            for s in range(game.num_players()) if s not in ismcts_seats}
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(draw_chance(state.chance_outcomes(), chance))
            continue
        seat = state.current_player()
        legal = state.legal_actions()
        start = time.perf_counter()
        if seat in ismcts_seats:
            action = searcher.step(state)
            side = "ismcts"
        else:
            action = ours[seat].act(state.engine.view(seat), legal)
            side = bot_name
        if len(legal) > 1:
            times[side].append(time.perf_counter() - start)
        state.apply_action(action)
    return list(state.returns())


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="euchre", help="euchre, updown, updown-sueca or up-or-down")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--bot", default="greedy", help="one of the game's bots (updown games lists them)")
    ap.add_argument("--deals", type=int, default=20)
    ap.add_argument("--sims", type=int, default=100, help="ISMCTS simulations per decision")
    ap.add_argument("--uct-c", type=float, default=2.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a game option (default: one deal of Euchre, one round of UP&DOWN)")
    args = ap.parse_args(argv)

    options: dict[str, Any] = {"euchre": {"deals": 1}, "updown": {"rounds": 1}}.get(args.game, {})
    for item in args.option:
        key, _, value = item.partition("=")
        options[key] = int(value) if value.lstrip("-").isdigit() else value
    if args.bot not in bot_names(args.game):
        ap.error(f"no bot {args.bot!r} for {args.game} (bots: {', '.join(bot_names(args.game))})")
    # UP&DOWN's secret choice as a simultaneous node cannot be searched by ISMCTS: its twin asks
    # the seats one at a time, each choice hidden until the reveal.
    game = uo.load(args.game, args.players, turns=args.game == "updown", **options)
    n = game.num_players()
    times: dict[str, list[float]] = {"ismcts": [], args.bot: []}
    margins = []
    start = time.perf_counter()
    for deal in range(args.deals):
        seed = args.seed * 100_003 + deal
        per_side = []
        for parity in (0, 1):  # ISMCTS in the even seats, then the odd ones: the same deal
            ismcts_seats = {s for s in range(n) if s % 2 == parity}
            returns = play(game, ismcts_seats, args.bot, args.sims, args.uct_c, seed, times)
            mine = statistics.fmean(r for s, r in enumerate(returns) if s not in ismcts_seats)
            theirs = statistics.fmean(r for s, r in enumerate(returns) if s in ismcts_seats)
            per_side.append(mine - theirs)
        margins.append(statistics.fmean(per_side))
        mean = statistics.fmean(margins)
        se = statistics.stdev(margins) / len(margins) ** 0.5 if len(margins) > 1 else float("nan")
        print(f"deal {deal + 1:4d}: {args.bot} minus ISMCTS({args.sims}) per game {mean:+.3f} ± {se:.3f} "
              f"({time.perf_counter() - start:.0f}s)", flush=True)
    summary = {
        "deals": float(len(margins)),
        "margin": statistics.fmean(margins),
        "ismcts_ms": 1000 * statistics.median(times["ismcts"]) if times["ismcts"] else float("nan"),
        "bot_ms": 1000 * statistics.median(times[args.bot]) if times[args.bot] else float("nan"),
    }
    print(f"{args.game}, {n} players, {args.deals} duplicate deals: {args.bot} minus ISMCTS {summary['margin']:+.3f} "
          f"(OpenSpiel returns, zero-sum from the placings); median time per decision: ISMCTS "
          f"{summary['ismcts_ms']:.1f} ms, {args.bot} {summary['bot_ms']:.2f} ms")
    return summary


if __name__ == "__main__":
    main()
