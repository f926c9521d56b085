"""The ``updown`` command: games, play, simulate, replay, bench."""

from __future__ import annotations

import json
import math
import os
import random
import secrets
import shlex
import shutil
import signal
import sys
import time
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
import click
from rich.console import Console
from rich.markdown import Markdown
from rich.padding import Padding
from rich.progress import Progress
from rich.table import Table
from rich.text import Text

from updown.bench import pyspiel_playouts, random_playouts
from updown.core.compiled import engines_label
from updown.bots import bot_names, is_bot_name, make_bot
from updown.cli.human import HumanAgent, Quit
from updown.cli.moves import words_for
from updown.cli.screens import event_text, hooks_for, safe_name
from updown.cli.session import Session, bot_list_from
from updown.cli.unseen import redraw
from updown.core.errors import UpdownError
from updown.core.protocol import Game, State
from updown.core.records import MAX_CHAT_TEXT, ChatLine, Record, new_state_for, replay as replay_record
from updown.core.registry import all_games, get_game
from updown.i18n import LANGUAGES, Translator, translator
from updown.rules import rules_text
from updown.simulate import simulate as run_simulation

app = typer.Typer(add_completion=False, no_args_is_help=True, help="The Up & Down family of card games.")


def plain_text() -> bool:
    """Whether ``NO_COLOR`` asks for plain text (https://no-color.org: set and not empty)."""
    return os.environ.get("NO_COLOR", "") != ""


def make_console(**kwargs: Any) -> Console:
    """A console for the terminal. With ``NO_COLOR`` it writes no escape code at all: rich's own
    ``NO_COLOR`` drops colours only, and would still send bold, dim and italic."""
    if plain_text():
        kwargs["color_system"] = None
    return Console(highlight=False, **kwargs)


console = make_console()
err_console = make_console(stderr=True)

OptionArg = Annotated[
    Optional[list[str]], typer.Option("--option", "-o", help="a rule option as key=value (repeatable)")
]


LangOpt = Annotated[
    Optional[str], typer.Option("--lang", help=f"language: {', '.join(LANGUAGES)} (default: from the locale)")
]

MAX_RECORD_BYTES = 16 * 1024 * 1024
"""Records larger than this are refused before they are read."""


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print a one-line error (for grep) and return the exit to raise. The message is text, not markup."""
    line = Text("error: ", style="red")
    line.append(" ".join(message.split())[:500])
    err_console.print(line, soft_wrap=True)
    return typer.Exit(code)


def _lang(lang: str | None) -> Translator:
    if lang is not None and lang.split("_")[0].split(".")[0].lower() not in LANGUAGES:
        raise fail(f"--lang must be one of {', '.join(LANGUAGES)}, not {safe_name(lang)!r}")
    return translator(lang)


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
        if not is_bot_name(game.id, name):
            raise fail(f"no bot {name!r} for {game.id} (bots: {', '.join(bot_names(game.id))}, exec:COMMAND)")
    return names


def option_value(value: Any) -> str | None:
    """An option's value as one types it after ``-o name=`` (no Python spelling); None: not set."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _option_form(kind: Any) -> str:
    """What goes after ``-o name=``: true|false, N (a whole number) or WORD."""
    kinds = [k for k in (typing.get_args(kind) or (kind,)) if k is not type(None)]
    if bool in kinds:
        return "true|false"
    if int in kinds:
        return "N"
    return "WORD"


@app.command()
def games(lang: LangOpt = None) -> None:
    """List the games with their player counts, rule options and bots."""
    _ = _lang(lang)
    for game in all_games():
        line = Text()
        line.append(game.id, style="bold")
        line.append(f"  {game.name}  ")
        count = str(game.min_players) if game.min_players == game.max_players else \
            f"{game.min_players}-{game.max_players}"
        line.append(_("{players} players").format(players=count))
        console.print(line)
        bots = Text(_("bots: {bots}").format(bots=", ".join(bot_names(game.id))), style="dim")
        console.print(Padding(bots, (0, 0, 0, 4)))
        for name, kind, default, help_ in game.Options.fields():
            opt = Text(f"-o {name}={_option_form(kind)}", style="cyan")
            shown = option_value(default)
            if shown is not None:
                opt.append("  (" + _("default: {value}").format(value=shown) + ")", style="dim")
            opt.append("  " + help_)
            console.print(Padding(opt, (0, 0, 0, 4)))
        console.print()


@app.command()
def rules(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="game id, see `updown games`")] = "updown",
    lang: LangOpt = None,
) -> None:
    """Show the rules of a game, in the project's own words."""
    _ = _lang(lang)
    game = _game(game_id)
    _show_rules(game, _)


def _show_rules(game: Game[Any], _: Translator) -> None:
    text = rules_text(game.id, _.lang)
    if text is None:
        console.print(Text(_("No rules text for {game} yet.").format(game=game.name)))
        return
    console.print(Markdown(text))


def _check_new_file(path: Path, _: Translator) -> None:
    """Refuse a record path that exists or cannot be written, before the game starts."""
    if path.exists() or path.is_symlink():
        raise fail(_("{path} already exists; choose another file name (a record is never overwritten)").format(
            path=safe_name(str(path), 200)))
    try:
        with open(path, "x", encoding="utf-8"):
            pass
    except OSError as err:
        raise fail(_("cannot write {path}: {why}").format(path=safe_name(str(path), 200), why=err.strerror)) from None


def _read_record_file(path: Path, _: Translator) -> tuple[Record, dict[str, Any]]:
    try:
        size = path.stat().st_size
        if size > MAX_RECORD_BYTES:
            raise fail(_("{path} is too large for a record ({mb} MB; the limit is {limit} MB)").format(
                path=safe_name(str(path), 200), mb=size // 2**20, limit=MAX_RECORD_BYTES // 2**20))
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise fail(_("cannot read {path}: {why}").format(path=safe_name(str(path), 200), why=err.strerror)) from None
    except UnicodeDecodeError as err:
        raise fail(_("{path} is not UTF-8 text (byte {n})").format(path=safe_name(str(path), 200), n=err.start)) \
            from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError, ValueError):
        data = None
    try:
        rec = Record.from_json(text)
    except UpdownError as err:
        raise fail(f"{safe_name(str(path), 200)}: {err}") from None
    return rec, data if isinstance(data, dict) else {}


class Hangup(BaseException):
    """The terminal closed (SIGHUP) or the process was asked to stop (SIGTERM)."""


@contextmanager
def _signals_save() -> Iterator[None]:
    def handler(signum: int, _frame: Any) -> None:
        raise Hangup(signum)

    wanted = [getattr(signal, n) for n in ("SIGHUP", "SIGTERM") if hasattr(signal, n)]
    old = {}
    try:
        for sig in wanted:
            old[sig] = signal.signal(sig, handler)
    except ValueError:  # not the main thread: nothing to install
        pass
    try:
        yield
    finally:
        for sig, previous in old.items():
            signal.signal(sig, previous)


def _default_save_path(game: Game[Any]) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1, 1000):
        path = Path(f"updown-{game.id}-{stamp}{'' if k == 1 else f'-{k}'}.json")
        if not path.exists():
            return path
    return Path(f"updown-{game.id}-{stamp}-{secrets.token_hex(4)}.json")


def _say(text: str, style: str = "", *, whole: bool = False) -> None:
    """Print if the terminal is still there (after a hang-up it is not). Rich wraps a long line at
    its spaces; a ``whole`` one (a command to copy) is left to the terminal, never broken by rich."""
    try:
        console.print(Text(text, style=style), soft_wrap=whole)
    except (OSError, ValueError):
        pass


def _newline() -> None:
    if console.is_terminal:
        _say("")


def program() -> str:
    """How to start this program again from the current folder, as a shell word or two.

    ``updown`` if that is the command on PATH; else the path it was started by (``make play``
    starts ``.venv/bin/updown``, which is not on PATH until the virtualenv is activated); else,
    started in some other way, this Python with ``-m updown.cli.app``.
    """
    started = sys.argv[0] if sys.argv else ""
    on_path = shutil.which("updown")
    if Path(started).name in ("updown", "updown.exe") and Path(started).is_file():
        if on_path and os.path.samefile(on_path, started):
            return "updown"
        where = Path(started).absolute()
        try:
            shown = str(where.relative_to(Path.cwd()))
        except ValueError:
            shown = str(where)
        return shlex.quote(shown if "/" in shown else "./" + shown)
    if on_path:
        return "updown"
    return f"{shlex.quote(sys.executable)} -m updown.cli.app"


def resume_command(path: Path) -> str:
    """The command line that goes on with a game saved to ``path``."""
    return f"{program()} play --resume {shlex.quote(str(path))}"


@app.command()
def play(
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="game id, see `updown games`")] = "updown",
    players: Annotated[Optional[int], typer.Option(help="number of players")] = None,
    seat: Annotated[int, typer.Option(help="your seat, from 0")] = 0,
    bots: Annotated[Optional[str], typer.Option(help="bot names for the other seats, comma separated")] = None,
    seed: Annotated[Optional[int], typer.Option(
        help="seed for the deal and the bots (default: 128 random bits from the operating system)")] = None,
    name: Annotated[str, typer.Option(help="your name")] = "Player",
    option: OptionArg = None,
    record: Annotated[Optional[Path], typer.Option(
        help="write the game record here (a new file; also where quitting saves)")] = None,
    resume: Annotated[Optional[Path], typer.Option(help="go on with a game saved by quitting")] = None,
    lang: LangOpt = None,
    auto: Annotated[bool, typer.Option(help="play a move for you when it is the only one")] = True,
) -> None:
    """Play in the terminal against bots. Quitting (quit, Ctrl-C, a closed terminal) saves the game."""
    _ = _lang(lang)
    if resume is not None:
        session, save_to = _resume_session(resume, record, seat, bots, auto, _)
    else:
        session, save_to = _new_session(game_id, players, seat, bots, seed, name, option, record, auto, _)
    game = session.game
    human = session.human
    assert human is not None
    human.show_rules = lambda: _show_rules(game, _)
    n = session.state.players
    you = session.seat
    if resume is None:
        words = words_for(_)
        _say(_("{game}, {n} players. You are seat {seat}. Type {help} or {rules} at any prompt.").format(
            game=game.name, n=n, seat=you, help=words.name("help"), rules=words.name("rules")), "bold")
    code = 0
    try:
        with _signals_save():
            session.show_events()
            state = session.run()
    except (Quit, KeyboardInterrupt, Hangup) as why:
        path = save_to or _default_save_path(game)
        code = 0 if isinstance(why, Quit) else (130 if isinstance(why, KeyboardInterrupt) else 129)
        if isinstance(why, KeyboardInterrupt) or (isinstance(why, Quit) and why.at_prompt):
            # Ctrl-C or Ctrl-D left the cursor after the prompt (and the terminal's ^C): start a
            # new line, or every line below would be shifted and wrap in the wrong places.
            _newline()
        try:
            session.save(path)
        except OSError as err:
            _say(_("The game could not be saved to {path}: {why}").format(path=path, why=err.strerror), "red")
            raise typer.Exit(1) from None
        reason = str(why) if isinstance(why, Quit) else _("interrupted")
        _say(_("Game stopped ({why}).").format(why=reason))
        _say(_("Saved to {path}.").format(path=path))
        note = hooks_for(game).quit_note(_)
        if note:
            _say(note)
        _say(_("Go on with:"))
        _say("  " + resume_command(path), "bold", whole=True)
        raise typer.Exit(code) from None
    _say(_result_line(game, state, you, _), "bold")
    seed_used = session.record.seed
    if seed_used is not None:
        _say(_("Seed {seed}.").format(seed=seed_used), "dim")
    if save_to is not None:
        try:
            session.save(save_to)
        except OSError as err:
            raise fail(_("cannot write {path}: {why}").format(path=save_to, why=err.strerror)) from None
        _say(_("Record written to {path}.").format(path=save_to))


def _new_session(game_id: str, players: int | None, seat: int, bots: str | None, seed: int | None, name: str,
                 option: list[str] | None, record: Path | None, auto: bool, _: Translator) -> tuple[Session, Path | None]:
    game = _game(game_id)
    n, options = _setup(game, players, option)
    if not 0 <= seat < n:
        raise fail(f"seat must be 0 to {n - 1}")
    bot_list = _bots(game, bots, n - 1)
    if seed is None:
        # Play is against a hidden deal: the seed must not be guessable from one's own cards.
        seed = secrets.randbits(128)
    if record is not None:
        _check_new_file(record, _)
    names: list[str] = []
    agents: list[Any] = []
    kinds: list[str | None] = []
    others = iter(bot_list)
    for s in range(n):
        if s == seat:
            names.append(safe_name(name))
            agents.append(None)
            kinds.append(None)
        else:
            bot = next(others)
            names.append(f"{bot.capitalize()} {s}")
            agents.append(make_bot(bot, game, s, random.Random(f"{seed}:{s}")))
            kinds.append(bot)
    agents[seat] = HumanAgent(game, seat, names, console, _)
    agents[seat].auto = auto
    state = game.new_state(n, options)
    rec = Record(game.id, n, options.to_dict(), names, seed=seed)
    session = Session(game, state, rec, agents, seat, random.Random(seed), console, _,
                      _stand_in(game, seed), bot_names=kinds, make_bot=_fresh_bots(game, kinds))
    return session, record


def _fresh_bots(game: Game[Any], kinds: list[str | None]) -> Any:
    """Bots made anew after an undo, each with fresh randomness (the cards they hold are new)."""
    default_bot = "greedy" if "greedy" in bot_names(game.id) else "random"
    return lambda s: make_bot(kinds[s] or default_bot, game, s, random.Random(secrets.randbits(128)))


def _stand_in(game: Game[Any], seed: int) -> Any:
    default_bot = "greedy" if "greedy" in bot_names(game.id) else "random"
    return lambda s: make_bot(default_bot, game, s, random.Random(f"{seed}:{s}:stand-in"))


def _resume_session(path: Path, record: Path | None, seat: int, bots: str | None, auto: bool,
                    _: Translator) -> tuple[Session, Path]:
    rec, data = _read_record_file(path, _)
    try:
        state = replay_record(rec)
    except UpdownError as err:
        raise fail(f"{safe_name(str(path), 200)}: {err}") from None
    game = state.game
    if state.is_terminal():
        raise fail(_("{path} holds a finished game; see it with {command}").format(
            path=safe_name(str(path), 200), command=f"{program()} replay {shlex.quote(safe_name(str(path), 200))}"))
    n = rec.players
    human, kinds = bot_list_from(data, n)
    if human is None:
        human = seat
    if not 0 <= human < n:
        raise fail(f"seat must be 0 to {n - 1}")
    if bots is not None:
        given = iter(_bots(game, bots, n - 1))
        kinds = [None if s == human else next(given) for s in range(n)]
    default_bot = "greedy" if "greedy" in bot_names(game.id) else "random"
    kinds = [None if s == human else (k if k in bot_names(game.id) else default_bot) for s, k in enumerate(kinds)]
    # Every card the player has not seen is drawn afresh from their view: the file may show some
    # (it is only text), but the bots will not hold them. The rest of the game is drawn afresh too:
    # new, unguessable chance for the cards not yet dealt.
    try:
        rec, state = redraw(rec, human, random.Random(secrets.randbits(128)))
    except UpdownError as err:
        raise fail(f"{safe_name(str(path), 200)}: {err}") from None
    seed = secrets.randbits(128)
    names = [safe_name(s) for s in rec.seats]
    agents: list[Any] = [None if s == human else make_bot(k or default_bot, game, s, random.Random(f"{seed}:{s}"))
                         for s, k in enumerate(kinds)]
    agents[human] = HumanAgent(game, human, names, console, _)
    agents[human].auto = auto
    out = Record(rec.game, n, rec.options, names, list(rec.steps), seed=None)
    session = Session(game, state, out, agents, human, random.Random(seed), console, _,
                      _stand_in(game, seed), bot_names=kinds, make_bot=_fresh_bots(game, kinds))
    save_to = path
    if record is not None:
        _check_new_file(record, _)
        save_to = record
    _say(_("{game}, {n} players, resumed from {path} after {steps} steps. You are seat {seat}.").format(
        game=game.name, n=n, path=safe_name(str(path), 200), steps=len(rec.steps), seat=human), "bold")
    session.shown = max(0, len(state.view(human)["log"]) - 8)  # the last few lines, for context
    return session, save_to


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _result_line(game: Game[Any], state: State, seat: int, _: Translator) -> str:
    result = state.result()
    place = result.placings[seat]
    teams = game.teams(state.players)
    if teams is not None:
        mine = next(team for team in teams if seat in team)
        if place != 1:
            return _("Your team lost.")
        if any(result.placings[s] == 1 for s in range(state.players) if s not in mine):
            return _("The match is a tie.")
        return _("Your team won.")
    shared = result.placings.count(place) > 1
    text = _("You finished {ordinal} of {n}.").format(ordinal=_ordinal(place), place=place, n=state.players)
    return text[:-1] + " " + _("(shared)") + "." if shared else text


@app.command()
def simulate(
    game_id: Annotated[str, typer.Argument(metavar="GAME")] = "updown",
    players: Annotated[Optional[int], typer.Option(help="number of players")] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="how many games")] = 100,
    bots: Annotated[Optional[str], typer.Option(help="bot per seat, comma separated (one name: all seats)")] = None,
    seed: Annotated[int, typer.Option(help="seed of the whole run (explicit, so a run can be repeated)")] = 0,
    option: OptionArg = None,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    records: Annotated[Optional[Path], typer.Option(
        help="write every game's record into this folder (new, or without records in it)")] = None,
) -> None:
    """Let bots play many games; print per-seat wins and mean scores."""
    game = _game(game_id)
    n, options = _setup(game, players, option)
    if games < 1:
        raise fail("--games must be at least 1")
    bot_list = _bots(game, bots, n)
    if records is not None:
        _check_records_folder(records, game)
    try:
        with Progress(console=err_console, transient=True, disable=not err_console.is_terminal) as progress:
            task = progress.add_task("simulating", total=games)
            sim = run_simulation(game, n, games, bot_list, seed, options, records,
                                 progress=lambda done: progress.update(task, completed=done))
    except OSError as err:
        raise fail(f"cannot write the records: {err.strerror} ({err.filename})") from None
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
    # 80 columns, whatever the terminal: the same seed prints the same bytes.
    Console(width=80, highlight=False, force_terminal=False).print(table)


def _check_records_folder(folder: Path, game: Game[Any]) -> None:
    """Before the first game: the folder can be made and written, and holds no records to overwrite."""
    where = safe_name(str(folder), 200)
    if folder.exists() and not folder.is_dir():
        raise fail(f"--records {where} is a file; give a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise fail(f"cannot make the folder {where}: {err.strerror}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise fail(f"cannot write into the folder {where}")
    clash = next(iter(folder.glob(f"{game.id}-*.json")), None)
    if clash is not None:
        raise fail(f"{where} already holds records ({clash.name}); give a new or empty folder")


@app.command()
def replay(
    path: Annotated[Path, typer.Argument(metavar="FILE", help="a game record (JSON)")],
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    step: Annotated[bool, typer.Option("--step", help="pause after every trick; a key goes on, q stops")] = False,
    seat: Annotated[Optional[int], typer.Option("--seat", help="show only what this seat saw (its own cards)")] = None,
    lang: LangOpt = None,
) -> None:
    """Re-play a game record, checking every step; print it trick by trick."""
    _ = _lang(lang)
    rec, data = _read_record_file(path, _)
    try:
        state = replay_record(rec)
    except UpdownError as err:
        raise fail(f"{safe_name(str(path), 200)}: {err}") from None
    if seat is not None and not 0 <= seat < rec.players:
        raise fail(f"--seat must be 0 to {rec.players - 1}")
    game = state.game
    finished = state.is_terminal()
    if seat is None and not finished:
        # A saved game is shown as its player saw it: the other hands in it are drawn afresh, not
        # the real ones (and in an old file they would be the real ones).
        seat = bot_list_from(data, rec.players)[0]
    names = [safe_name(s) for s in rec.seats]
    if as_json:
        events = state.log if seat is None else state.view(seat)["log"]
        out = {"game": game.id, "players": rec.players, "seats": rec.seats, "steps": len(rec.steps),
               "finished": finished, "result": state.result().to_dict() if finished else None,
               "seat": seat, "events": events}
        if rec.chat:
            out["chat"] = [line.to_dict() for line in rec.chat]
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return
    head = Text(game.name, style="bold")
    head.append(", " + _("{n} players").format(n=rec.players) + ": " + ", ".join(names))
    if seat is not None:
        head.append(" · " + _("as {name} saw it").format(name=names[seat]), style="dim")
    console.print(head)
    if step or seat is not None or rec.chat:
        _replay_live(rec, game, names, seat, step, _)
    else:
        for event in state.log:
            if event["type"] != "chose":
                console.print(event_text(game, event, names, _))
    if finished:
        result = state.result()
        table = Table(title=_("final standings"))
        table.add_column(_("place"), justify="right")
        table.add_column(_("player"))
        table.add_column(_("score"), justify="right")
        for s in sorted(range(rec.players), key=lambda s: (result.placings[s], s)):
            table.add_row(str(result.placings[s]), Text(names[s]), f"{result.scores[s]:g}")
        console.print(table)
    else:
        console.print(Text(_("The record ends before the game is over."), style="yellow"))


class _StopReplay(Exception):
    pass


PAUSE_AFTER = frozenset({"trick", "score", "round", "lone", "thrown-in"})
"""Event types after which ``replay --step`` waits for a key (Up or Down? pauses after each turn's draw)."""


def chat_text(line: ChatLine, _: Translator) -> Text:
    """A record's chat line as the terminal prints it: plain text (never read as markup), control
    characters shown as ``?``, the author named and a spectator said to be one."""
    name = safe_name(line.name or "?")
    out = Text("» ", style="dim")
    out.append(name if line.seat is not None else _("{name} (spectator)").format(name=name), style="bold magenta")
    out.append(": " + safe_name(line.text, MAX_CHAT_TEXT))
    return out


def _replay_live(rec: Record, game: Game[Any], names: list[str], seat: int | None, step: bool,
                 _: Translator) -> None:
    shown = 0
    moves = 0
    screen = hooks_for(game).screen
    # The chat, each line after the move it followed (a line of unknown moment at the start).
    chat: dict[int, list[ChatLine]] = {}
    for line in rec.chat:
        chat.setdefault(line.moves or 0, []).append(line)
    if chat.get(0):  # after what the game shows before its first move (a deal's start), as said
        start = new_state_for(rec)
        first = start.log if seat is None else start.view(seat)["log"]
        for event in first:
            if event["type"] != "chose":
                console.print(event_text(game, event, names, _))
        shown = len(first)
        for line in chat[0]:
            console.print(chat_text(line, _))

    def on_step(state: State, _seat: int | None, _action: int) -> None:
        nonlocal shown, moves
        moves += 1
        log = state.log if seat is None else state.view(seat)["log"]
        pause = False
        for event in log[shown:]:
            if event["type"] != "chose":
                console.print(event_text(game, event, names, _))
            pause = pause or event["type"] in PAUSE_AFTER or (event["type"] in ("draw", "drew") and
                                                                game.id == "up-or-down")
        shown = len(log)
        for line in chat.get(moves, []):
            console.print(chat_text(line, _))
        if step and pause and not state.is_terminal():
            if seat is not None:
                console.print(screen(state.view(seat), names, _))
            console.print(Text(_("(any key: next, q: stop)"), style="dim"))
            try:
                # One key at a terminal; a line from a pipe (end of input stops).
                key = click.getchar() if sys.stdin.isatty() else (sys.stdin.readline() or "q")
            except (EOFError, KeyboardInterrupt):
                raise _StopReplay() from None
            if key.strip().lower() == "q":
                raise _StopReplay()

    try:
        replay_record(rec, on_step=on_step)
    except _StopReplay:
        console.print(Text(_("Stopped."), style="dim"))
        raise typer.Exit(0) from None


MAX_BENCH_SECONDS = 3600.0


@app.command()
def bench(
    game_id: Annotated[Optional[str], typer.Argument(metavar="[GAME]", help="one game (default: all)")] = None,
    seconds: Annotated[float, typer.Option(help="seconds per game (more than 0, at most 3600)")] = 3.0,
    players: Annotated[Optional[int], typer.Option(help="number of players")] = None,
    option: OptionArg = None,
    seed: Annotated[int, typer.Option(help="seed of the playouts")] = 0,
    batched: Annotated[bool, typer.Option(
        help="with all games: then the batched engines against OpenSpiel's C++ loop and our scalar "
             "engines, interleaved (as bench-batched, a tenth of --seconds per loop, 10 rounds)")] = True,
) -> None:
    """Random playouts through the public protocol, in games per second; with all games, then the
    batched engines (numpy) against OpenSpiel and our scalar engines."""
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_BENCH_SECONDS):
        raise fail(f"--seconds must be a number more than 0 and at most {MAX_BENCH_SECONDS:g}, not {seconds}")
    targets = [_game(game_id)] if game_id else all_games()
    console.print(engines_label())  # compiled (mypyc) after `make fast`, pure Python otherwise
    for game in targets:
        n, options = _setup(game, players, option or [f"{k}={v}" for k, v in game.bench_options.items()])
        result = random_playouts(game, n, options, seconds, seed)
        opts = ", ".join(f"{k}={v}" for k, v in game.bench_options.items()) if not option else ", ".join(option)
        # Two short lines a game, so that 80 columns never break one.
        console.print(f"{game.id}: {result.games_per_second:,.0f} games/s, {result.steps_per_second:,.0f} steps/s, "
                      "one core")
        console.print(f"  {n} players{', ' + opts if opts else ''}; {result.games} games in {result.seconds:.1f} s")
        if game.openspiel_peer is not None and not option and players is None:
            theirs = pyspiel_playouts(*game.openspiel_peer, seconds, seed)
            if theirs is None:
                console.print(f"  pyspiel {game.openspiel_peer[0]}: open_spiel is not installed")
            else:
                console.print(f"  pyspiel {game.openspiel_peer[0]}, plain loop: {theirs:,.0f} games/s; "
                              f"ratio {result.games_per_second / theirs:.2f}")
                console.print("    (its chance outcomes drawn from legal_actions)")
    if batched and game_id is None and not option and players is None:
        try:
            from updown.batched.bench import run as batched_run  # numpy is an optional extra
        except ImportError as err:
            console.print(f"batched engines: {err} (pip install 'updown[batched]')")
            return
        console.print()
        batched_run(min(seconds / 10, 60.0), 10, print_line=console.print)


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
        fail(str(err))
        sys.exit(2)


if __name__ == "__main__":  # python -m updown.cli.app: the command as the package has it, with every cmd_*
    from updown.cli.app import main as package_main

    package_main()
