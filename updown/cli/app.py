"""The ``updown`` command: games, play, simulate, replay, bench."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from updown.bench import pyspiel_playouts, random_playouts
from updown.bots import bot_names, make_bot
from updown.cli.human import HumanAgent, Quit
from updown.cli.screens import QUIET_EVENTS, event_text
from updown.core.driver import play_game
from updown.core.errors import UpdownError
from updown.core.protocol import Game, State
from updown.core.records import Record, replay as replay_record
from updown.core.registry import all_games, get_game
from updown.simulate import simulate as run_simulation

app = typer.Typer(add_completion=False, no_args_is_help=True, help="The Up & Down family of card games.")
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

OptionArg = Annotated[
    Optional[list[str]], typer.Option("--option", "-o", help="a rule option as key=value (repeatable)")
]


def fail(message: str, code: int = 2) -> typer.Exit:
    err_console.print(f"[red]error:[/red] {message}", soft_wrap=True)  # one line, for grep
    return typer.Exit(code)


def _game(game_id: str) -> Game[Any]:
    try:
        return get_game(game_id)
    except UpdownError as err:
        raise fail(str(err)) from None


def _setup(game: Game[Any], players: int | None, option: list[str] | None) -> tuple[int, Any]:
    n = players if players is not None else game.bench_players
    if not game.min_players <= n <= game.max_players:
        raise fail(f"{game.name} is for {game.player_range()} players, not {n}")
    try:
        options = game.Options.parse(option or [])
        options.check(n)
    except UpdownError as err:
        raise fail(str(err)) from None
    return n, options


def _bots(game: Game[Any], spec: str | None, count: int) -> list[str]:
    default = "greedy" if "greedy" in bot_names(game.id) else "random"
    names = [b.strip() for b in (spec or default).split(",") if b.strip()]
    if len(names) == 1:
        names *= count
    if len(names) != count:
        raise fail(f"give one bot name or {count} of them, not {len(names)}")
    for name in names:
        if name not in bot_names(game.id):
            raise fail(f"no bot {name!r} for {game.id} (bots: {', '.join(bot_names(game.id))})")
    return names


@app.command()
def games() -> None:
    """List the games with their player counts and rule options."""
    table = Table(title="games")
    table.add_column("id", style="bold")
    table.add_column("name")
    table.add_column("players")
    table.add_column("options")
    table.add_column("bots")
    for game in all_games():
        opts = "\n".join(f"{name}={default!r}: {help_}" for name, _, default, help_ in game.Options.fields())
        table.add_row(game.id, game.name, f"{game.min_players}-{game.max_players}", opts or "-",
                      ", ".join(bot_names(game.id)))
    console.print(table)


@app.command()
def play(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="game id, see `updown games`")] = "updown",
    players: Annotated[Optional[int], typer.Option(help="number of players")] = None,
    seat: Annotated[int, typer.Option(help="your seat, from 0")] = 0,
    bots: Annotated[Optional[str], typer.Option(help="bot names for the other seats, comma separated")] = None,
    seed: Annotated[Optional[int], typer.Option(help="seed for the deal and the bots")] = None,
    name: Annotated[str, typer.Option(help="your name")] = "Player",
    option: OptionArg = None,
    record: Annotated[Optional[Path], typer.Option(help="write the game record here")] = None,
) -> None:
    """Play in the terminal against bots."""
    game = _game(game_id)
    n, options = _setup(game, players, option)
    if not 0 <= seat < n:
        raise fail(f"seat must be 0 to {n - 1}")
    bot_list = _bots(game, bots, n - 1)
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    names: list[str] = []
    agents: list[Any] = []
    others = iter(bot_list)
    for s in range(n):
        if s == seat:
            names.append(name)
            agents.append(None)
        else:
            bot = next(others)
            names.append(f"{bot.capitalize()} {s}")
            agents.append(make_bot(bot, game, s, random.Random(f"{seed}:{s}")))
    agents[seat] = HumanAgent(game, seat, names, console)
    shown = 0

    human = agents[seat]

    def observe(state: State, _seat: int | None, _action: int) -> None:
        nonlocal shown
        human.leave = state.leave_action(seat) if not state.is_terminal() else None
        log = state.view(seat)["log"]
        for event in log[shown:]:
            if event["type"] not in QUIET_EVENTS:
                console.print(event_text(game, event, names))
        shown = len(log)

    # The seed decides every hidden card, so it is shown only once the game is over for you.
    console.print(f"[bold]{game.name}[/bold], {n} players. You are seat {seat}.")
    try:
        default_bot = "greedy" if "greedy" in bot_names(game.id) else "random"
        state, rec = play_game(
            game, n, agents, random.Random(seed), options=options, seats=names, seed=seed,
            observer=observe,
            replace=lambda s: make_bot(default_bot, game, s, random.Random(f"{seed}:{s}:stand-in")),
        )
    except Quit as why:
        console.print(f"Game left ({why}). Replay it with --seed {seed}.")
        raise typer.Exit(0) from None
    result = state.result()
    place = result.placings[seat]
    shared = " (shared)" if result.placings.count(place) > 1 else ""
    console.print(f"[bold]You finished {_ordinal(place)}[/bold]{shared}. Seed {seed}.")
    if record is not None:
        record.write_text(rec.to_json(), encoding="utf-8")
        console.print(f"Record written to {record}.")


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@app.command()
def simulate(
    game_id: Annotated[str, typer.Argument(metavar="GAME")] = "updown",
    players: Annotated[Optional[int], typer.Option(help="number of players")] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="how many games")] = 100,
    bots: Annotated[Optional[str], typer.Option(help="bot per seat, comma separated (one name: all seats)")] = None,
    seed: Annotated[int, typer.Option(help="seed of the whole run")] = 0,
    option: OptionArg = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    records: Annotated[Optional[Path], typer.Option(help="write every game's record into this folder")] = None,
) -> None:
    """Let bots play many games; print per-seat wins and mean scores."""
    game = _game(game_id)
    n, options = _setup(game, players, option)
    if games < 1:
        raise fail("--games must be at least 1")
    bot_list = _bots(game, bots, n)
    with Progress(console=err_console, transient=True, disable=not err_console.is_terminal) as progress:
        task = progress.add_task("simulating", total=games)
        sim = run_simulation(game, n, games, bot_list, seed, options, records,
                             progress=lambda done: progress.update(task, completed=done))
    data = sim.to_dict()
    if as_json:
        print(json.dumps(data, indent=1))
        return
    table = Table(title=f"{game.name}: {games} games, {n} players, seed {seed}")
    for col in ("seat", "bot", "wins", "shared", "win rate", "mean score", "mean place"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for row in data["seats"]:
        table.add_row(str(row["seat"]), row["bot"], str(row["wins"]), str(row["shared_wins"]),
                      f"{row['win_rate']:.3f}", f"{row['mean_score']:.3f}", f"{row['mean_placing']:.3f}")
    Console(width=100, highlight=False, force_terminal=False).print(table)


@app.command()
def replay(
    path: Annotated[Path, typer.Argument(metavar="FILE", help="a game record (JSON)")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Re-play a game record, checking every step; print it trick by trick."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise fail(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError as err:
        raise fail(f"{path} is not UTF-8 text (byte {err.start})") from None
    try:
        rec = Record.from_json(text)
        state = replay_record(rec)
    except UpdownError as err:
        raise fail(f"{path}: {err}") from None
    game = state.game
    finished = state.is_terminal()
    if as_json:
        out = {"game": game.id, "players": rec.players, "seats": rec.seats, "steps": len(rec.steps),
               "finished": finished, "result": state.result().to_dict() if finished else None,
               "events": state.log}
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return
    console.print(f"[bold]{game.name}[/bold], {rec.players} players: {', '.join(rec.seats)}")
    for event in state.log:
        if event["type"] != "chose":
            console.print(event_text(game, event, rec.seats))
    if finished:
        result = state.result()
        table = Table(title="final standings")
        table.add_column("place", justify="right")
        table.add_column("player")
        table.add_column("score", justify="right")
        for s in sorted(range(rec.players), key=lambda s: (result.placings[s], s)):
            table.add_row(str(result.placings[s]), rec.seats[s], f"{result.scores[s]:g}")
        console.print(table)
    else:
        console.print("[yellow]The record ends before the game is over.[/yellow]")


@app.command()
def bench(
    game_id: Annotated[Optional[str], typer.Argument(metavar="[GAME]", help="one game (default: all)")] = None,
    seconds: Annotated[float, typer.Option(help="seconds per game")] = 3.0,
    players: Annotated[Optional[int], typer.Option(help="number of players")] = None,
    option: OptionArg = None,
    seed: Annotated[int, typer.Option(help="seed of the playouts")] = 0,
) -> None:
    """Random playouts through the public protocol, in games per second."""
    targets = [_game(game_id)] if game_id else all_games()
    for game in targets:
        n, options = _setup(game, players, option or [f"{k}={v}" for k, v in game.bench_options.items()])
        result = random_playouts(game, n, options, seconds, seed)
        opts = ", ".join(f"{k}={v}" for k, v in game.bench_options.items()) if not option else ", ".join(option)
        console.print(
            f"{game.id}: {result.games_per_second:,.0f} games/s ({n} players{', ' + opts if opts else ''}; "
            f"{result.steps_per_second:,.0f} steps/s; {result.games} games in {result.seconds:.1f} s, one core)"
        )
        if game.openspiel_peer is not None and not option and players is None:
            theirs = pyspiel_playouts(*game.openspiel_peer, seconds, seed)
            if theirs is None:
                console.print(f"  pyspiel {game.openspiel_peer[0]}: open_spiel is not installed")
            else:
                console.print(f"  pyspiel {game.openspiel_peer[0]}, same loop: {theirs:,.0f} games/s; "
                              f"ratio {result.games_per_second / theirs:.2f}")


def _load_commands() -> None:
    """More commands live in ``cmd_<name>.py`` modules beside this one (serve, arena, ...).

    Each defines its command on :data:`app`; importing it is enough, so a new command touches no
    shared file.
    """
    import importlib
    import pkgutil

    import updown.cli as package

    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("cmd_"):
            importlib.import_module(f"updown.cli.{info.name}")


_load_commands()


def main() -> None:
    try:
        app()
    except UpdownError as err:  # a last guard: bad input never ends in a traceback
        err_console.print(f"[red]error:[/red] {err}", soft_wrap=True)
        sys.exit(2)
