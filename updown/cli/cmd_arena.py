"""``updown arena``: duplicate-deal tournaments between bots (see ``docs/arena.md``)."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from updown.arena import ArenaError, deals_for, make_lineup, run_arena
from updown.arena.runner import DEALS, RESULTS, default_workers
from updown.arena.stats import public
from updown.cli.app import OptionArg, _game, app, console, err_console
from updown.cli.app import fail as _fail
from updown.core.errors import UpdownError


def fail(message: str, code: int = 2) -> typer.Exit:
    """The CLI's one-line error, with the message taken literally (``'updown[arena]'`` is no markup)."""
    return _fail(message, code)


def _whole(option: str, text: str, minimum: int | None = None) -> int:
    """An option's whole-number value, or a one-line error naming the option."""
    try:
        value = int(text.strip())
    except ValueError:
        raise fail(f"{option} must be a whole number, not {text!r}") from None
    if minimum is not None and value < minimum:
        raise fail(f"{option} must be at least {minimum}, not {value}")
    return value


def _pm(figure: dict[str, Any], sign: str = "") -> str:
    """``mean ± half-width`` of a 95% interval (just the mean when there is none)."""
    mean = f"{figure['mean']:{sign}.2f}"
    if figure["low"] is None:
        return mean
    return f"{mean} ± {(figure['high'] - figure['low']) / 2:.2f}"


def _rate(figure: dict[str, Any]) -> str:
    if figure["low"] is None:
        return f"{figure['mean']:.1%}"
    return f"{figure['mean']:.0%} ({figure['low'] * 100:.0f}-{figure['high']:.0%})"


def _sides(results: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """One row per side: an entry, or partners together (they share every figure)."""
    sides: dict[int, list[dict[str, Any]]] = {}
    for entry in results["entries"]:
        sides.setdefault(entry["team"], []).append(entry)
    return [(members[0], " + ".join(m["label"] for m in members)) for members in sides.values()]


MATRIX_SIDES = 4
"""Up to this many sides the head-to-head table is a matrix; more would not fit 80 columns."""


def _print(results: dict[str, Any], game_name: str) -> None:
    # The tables fit 80 columns (no vertical lines, short headers); a terminal narrower than that
    # wraps them to its width, and a pipe or a file gets them at 80 too.
    out = console if console.is_terminal else Console(width=80, highlight=False)
    table = Table(title=f"{game_name}: {results['games']} games, {results['deals']} deals × "
                        f"{results['seatings']} seatings, seed {results['lineup']['seed']}",
                  caption="± is a 95% interval; diff: the mean score difference against the opponents",
                  box=None, pad_edge=False, header_style="bold")
    for col in ("bot", "mean score", "diff", "win rate (95%)", "μ", "σ", "ordinal"):
        # Figures are never broken over lines; a long name (partners) is.
        table.add_column(col, justify="left" if col == "bot" else "right", no_wrap=col != "bot")
    sides = _sides(results)
    for entry, name in sorted(sides, key=lambda side: (-side[0]["rating"]["ordinal"], side[0]["entry"])):
        r = entry["rating"]
        table.add_row(name, _pm(entry["mean_score"]), _pm(entry["mean_diff"], "+"), _rate(entry["win_rate"]),
                      f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['ordinal']:.2f}")
    out.print(table)
    cells = {(h["entry"], h["against"]): h for h in results["head_to_head"]}

    def cell(a: dict[str, Any], b: dict[str, Any]) -> str:
        h = cells.get((a["entry"], b["entry"]))
        return "·" if h is None else f"{h['ahead']}-{h['behind']}-{h['level']} {h['mean_diff']['mean']:+.2f}"

    if len(sides) <= MATRIX_SIDES:
        h2h = Table(title="head to head: games the row finished ahead-behind-level of the column, "
                          "and its mean score difference", box=None, pad_edge=False, header_style="bold")
        h2h.add_column("")
        for _, name in sides:
            h2h.add_column(name, justify="right", no_wrap=True)
        for entry, name in sides:
            h2h.add_row(name, *(cell(entry, other) for other, _ in sides))
    else:  # a matrix this wide would not fit 80 columns: each pair once, on a line of its own
        h2h = Table(title="head to head: games the first finished ahead-behind-level of the second, "
                          "and its mean score difference", box=None, pad_edge=False, header_style="bold")
        for col in ("bot", "against", "ahead-behind-level", "diff"):
            h2h.add_column(col, justify="right" if col in ("ahead-behind-level", "diff") else "left",
                           no_wrap=col not in ("bot", "against"))
        for i, (entry, name) in enumerate(sides):
            for other, other_name in sides[i + 1:]:
                text = cell(entry, other)
                record, _, diff = text.partition(" ")
                h2h.add_row(name, other_name, record, diff)
    out.print(h2h)


@app.command()
def arena(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="game id, see `updown games`")],
    bots: Annotated[str, typer.Option(help="the line-up: one bot per seat (or per team), comma separated")],
    games: Annotated[str, typer.Option("--games", "-n", help="games to play, rounded up to whole deals")] = "100",
    seed: Annotated[str, typer.Option(help="seed of the run: it fixes every deal")] = "0",
    workers: Annotated[Optional[str], typer.Option(help="local worker processes (default: one per core)")] = None,
    ray: Annotated[Optional[str], typer.Option(
        "--ray", metavar="ADDRESS", help="run the deals as Ray tasks: a cluster address, auto, or local")] = None,
    option: OptionArg = None,
    out: Annotated[Optional[Path], typer.Option(
        help="folder for results, plots and the finished deals; run again with it to continue")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the results as JSON")] = False,
    records: Annotated[bool, typer.Option(help="also write every game's record into OUT/records")] = False,
) -> None:
    """Bots against bots on duplicate deals: intervals, head-to-head, openskill ratings, plots."""
    game = _game(game_id)
    n_games = _whole("--games", games, 1)
    run_seed = _whole("--seed", seed)
    n_workers = _whole("--workers", workers, 1) if workers is not None else default_workers()
    if ray is not None and not ray.strip():
        raise fail("--ray needs an address, 'auto' (a running cluster) or 'local' (start one here)")
    try:
        options = game.Options.parse(option or [])
        lineup = make_lineup(game, bots.split(","), run_seed, options)
        deals = deals_for(n_games, lineup)
        if records and out is None:
            raise ArenaError("--records needs --out DIR to write the records into")
    except UpdownError as err:
        raise fail(str(err)) from None
    if deals * lineup.seatings != n_games:
        err_console.print(f"{n_games} games make {deals} whole deals of {lineup.seatings} seatings: "
                          f"{deals * lineup.seatings} games.")
    started = time.perf_counter()
    first: list[int] = []
    with Progress(TextColumn("arena"), BarColumn(), MofNCompleteColumn(), TextColumn("games"),
                  TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                  console=err_console, transient=True, disable=not err_console.is_terminal) as bar:
        task = bar.add_task("arena", total=deals * lineup.seatings)

        def progress(done: int, total: int) -> None:
            if not first:
                first.append(done)
                if done:
                    err_console.print(f"continuing: {done // lineup.seatings} of {deals} deals are in {out}")
                bar.reset(task, total=total, completed=done)
            bar.update(task, completed=done)

        # A kill (SIGTERM) stops the run as Ctrl-C does, workers included: killed alone, this process
        # would leave its worker processes playing and then waiting for work for ever.
        before = signal.signal(signal.SIGTERM, _interrupt)
        try:
            results = run_arena(lineup, deals, out=out, workers=n_workers, ray=ray, records=records,
                                progress=progress)
        except UpdownError as err:
            raise fail(str(err)) from None
        except KeyboardInterrupt:
            where = (f"the finished deals are in {out}; run the same command to go on" if out is not None
                     else "nothing was kept (give --out DIR to be able to go on)")
            raise fail(f"stopped: {where}", 130) from None
        finally:
            signal.signal(signal.SIGTERM, before)
    seconds = time.perf_counter() - started
    played = results["games"] - (first[0] if first else 0)
    if as_json:
        print(json.dumps(public(results), indent=1))
    else:
        _print(results, game.name)
    how = f"Ray ({ray})" if ray is not None else f"{n_workers} worker{'s' * (n_workers != 1)}"
    err_console.print(f"{played} games played in {seconds:.1f} s ({played / seconds:,.1f} games/s, {how}; "
                      "wall time, starting the workers included).")
    if out is not None:
        err_console.print(f"Written to {out}: {RESULTS}, {DEALS}, ratings.png, differences.png"
                          f"{', records/' if records else ''}.")


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt
