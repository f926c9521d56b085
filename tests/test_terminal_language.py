"""The terminal in German and Portuguese, and its rough edges at 80 by 24 (issue 32).

Each game is played in a real terminal (pexpect, 80 columns by 24 lines) in each language with the
moves typed as that language shows them (``ablegen DH``, ``jogar``), and every move is taken; cards
are shown in the language's letters (B D K A, V D R A) everywhere; the help and the rules say which
letter is which; no line is wider than the terminal and no screen taller. Also: ``NO_COLOR`` gives
plain text, ``help`` names ``hint``, ``updown games`` shows options as one types them, the resume
hint names a command that runs, and the arena and bench tables fit 80 columns.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from updown.cli.app import app, resume_command
from updown.cli.inputs import InputProblem, NotNow, resolve
from updown.cli.moves import COMMANDS, PHRASES, words_for
from updown.cli.screens import hooks_for
from updown.core.cards import Card
from updown.core.registry import all_games, get_game
from updown.i18n import translator
from updown.i18n.events import RANK_LETTERS, describe
from updown.rules import rules_text

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
PLAYERS = {"updown": 4, "updown-sueca": 4, "euchre": 4, "up-or-down": 6}
LANGS = ("en", "de", "pt")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _views(game_id: str, players: int, games: int = 3, seed: int = 0) -> list[tuple[Any, list[int]]]:
    """(view, legal) at every decision of a few random games."""
    game = get_game(game_id)
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        state = game.new_state(players)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            seat = state.actors()[0]
            legal = state.legal_actions(seat)
            out.append((state.view(seat), legal))
            state.apply(rng.choice(legal), seat)
    return out


# -- moves and cards in the player's language, without a terminal --------------------------------

@pytest.mark.parametrize("game_id", sorted(PLAYERS))
def test_every_move_shown_in_a_language_is_read_back_as_that_move(game_id: str):
    """Round trip over real decisions: what the legal list shows (German, Portuguese) names the move."""
    game = get_game(game_id)
    players = 3 if game_id == "up-or-down" else PLAYERS[game_id]
    for view, legal in _views(game_id, players, games=2):
        for lang in ("de", "pt"):
            _ = translator(lang)
            words = words_for(_)
            for action in legal:
                shown = words.show(game.action_name(action))
                assert resolve(game, shown, view, legal, _) == [action], (lang, shown)
                assert resolve(game, shown.lower(), view, legal, _) == [action], (lang, shown)
                # English is understood in every language.
                assert resolve(game, game.action_name(action), view, legal, _) == [action]


def _is_card(text: str) -> bool:
    try:
        Card.parse(text)
    except Exception:  # noqa: BLE001
        return False
    return True


def test_every_move_of_every_game_has_a_german_and_portuguese_form():
    """Every action with a word in it (not a card, a number or a chance outcome) is said in each language."""
    for game in all_games():
        names, action = set(), 0
        while True:
            try:
                names.add(game.action_to_str(action))
            except Exception:  # noqa: BLE001 - past the last action
                break
            action += 1
        worded = {n for n in names if n.split()[0].isalpha() and len(n.split()[0]) > 1
                  and n not in ("UP", "DOWN") and not _is_card(n)}
        assert worded, game.id
        for lang in ("de", "pt"):
            words = words_for(translator(lang))
            for name in worded:
                assert words.show(name) != name, (game.id, lang, name)
    assert set(PHRASES["de"]) == set(PHRASES["pt"])


@pytest.mark.parametrize("game_id,phase,seat,typed,lang,expected", [
    ("updown", "lead", 0, "wenden", "de", "flip"),
    ("updown", "lead", 0, "würfeln", "de", "roll"),
    ("updown", "lead", 0, "wuerfeln", "de", "roll"),
    ("updown", "lead", 0, "wü", "de", "roll"),
    ("updown", "lead", 0, "virar", "pt", "flip"),
    ("updown", "lead", 0, "lancar", "pt", "roll"),
    ("updown-sueca", "decide", 0, "jogar", "pt", "play"),
    ("updown-sueca", "decide", 0, "p", "pt", "sit out"),
    ("updown-sueca", "decide", 0, "aussetzen", "de", "sit out"),
    ("updown-sueca", "decide", 0, "play", "pt", "play"),
    ("updown-sueca", "trump", 1, "virar", "pt", "turn"),
    ("updown-sueca", "trump", 1, "aufdecken", "de", "turn"),
    ("updown-sueca", "trump", 1, "trunfo espadas", "pt", "trump S"),
    ("updown-sueca", "trump", 1, "trumpf herz", "de", "trump H"),
    ("euchre", "bid1", 1, "passo", "pt", "pass"),
    ("euchre", "bid1", 1, "b", "de", "order up"),
    ("euchre", "bid1", 1, "bestellen allein", "de", "order up alone"),
    ("euchre", "bid1", 1, "m s s", "pt", "order up alone"),
    ("up-or-down", "draw", 0, "offen", "de", "draw up"),
    ("up-or-down", "draw", 0, "comprar baixo", "pt", "draw down"),
    ("up-or-down", "draw", 0, "cima", "pt", "draw up"),
])
def test_moves_typed_in_german_and_portuguese(game_id: str, phase: str, seat: int, typed: str, lang: str,
                                              expected: str):
    game = get_game(game_id)
    players = 3 if game_id == "up-or-down" else 4
    view, legal = next((v, l) for v, l in _views(game_id, players, games=30)
                       if v["seat"] == seat and v["phase"] == phase and len(l) > 1
                       and (game_id != "up-or-down" or len(l) == 2))
    assert [game.action_name(a) for a in resolve(game, typed, view, legal, translator(lang))] == [expected]


def test_card_letters_of_each_language_typed_and_shown():
    game = get_game("updown-sueca")
    view, legal = next((v, l) for v, l in _views("updown-sueca", 4, games=40)
                       if v["phase"] == "exchange" and any(c[0] in "JQK" for c in v["hand"])
                       and not v["my_discards"])
    card = next(c for c in view["hand"] if c[0] in "JQK")
    rank = Card.parse(card).rank
    for lang in LANGS:
        _ = translator(lang)
        words = words_for(_)
        local = RANK_LETTERS[lang][rank] + card[-1]
        assert words.show_card(card) == local
        verb = words.say("discard {card}", card=local).split()[0]
        got = resolve(game, f"{verb} {local.lower()}", view, legal, _)
        assert [game.action_name(a) for a in got] == [f"discard {card}"], lang
        # The screen shows the card in those letters.
        text = _render(hooks_for(game).screen(view, ["P0", "P1", "P2", "P3"], _))
        assert f"{RANK_LETTERS[lang][rank]}{Card.parse(card).suit.symbol}" in text
    # A letter of another language is no card in English: 'DH' is not a move there.
    queen = next((c for c in view["hand"] if c[0] == "Q"), None)
    if queen is not None:
        with pytest.raises((InputProblem, NotNow)):
            resolve(game, "discard D" + queen[-1], view, legal, translator("en"))


def test_event_lines_use_the_languages_card_letters():
    game = get_game("euchre")
    event = {"type": "trick", "trick": 1, "seats": [0, 1, 2, 3], "cards": ["JH", "QH", "KH", "AH"], "winner": 0,
             "trump": "H"}
    names = ["A", "B", "C", "D"]
    assert "J♥" in describe(game, event, names, translator("en")) and "Q♥" in describe(game, event, names,
                                                                                        translator("en"))
    de = describe(game, event, names, translator("de"))
    pt = describe(game, event, names, translator("pt"))
    assert all(c in de for c in ("B♥", "D♥", "K♥", "A♥")) and not re.search(r"[JQ][♥]", de)
    assert all(c in pt for c in ("V♥", "D♥", "R♥", "A♥")) and not re.search(r"[JQK][♥]", pt)


@pytest.mark.parametrize("lang", ["de", "pt"])
def test_rules_say_the_letters_and_the_moves_in_their_language(lang: str):
    _ = translator(lang)
    words = words_for(_)
    suits = {"C": _("clubs"), "D": _("diamonds"), "H": _("hearts"), "S": _("spades")}
    moves = {"updown": ["flip", "rotate {suit}", "roll"],
             "updown-sueca": ["trump {suit}", "turn", "play", "sit out", "discard {card}", "done", "leave"],
             "euchre": ["pass", "order up", "pick up", "name {suit}", "discard {card}"],
             "up-or-down": ["take {n}", "col {n}", "new", "give up {n}", "draw down", "draw up"]}
    for game_id, phrases in moves.items():
        text = rules_text(game_id, lang)
        assert text is not None
        terminal = " ".join(text[text.rindex("\n## "):].split())  # lines joined, as markdown reads them
        for phrase in phrases:
            head = words.say(phrase, suit="S", card="3H", n="1").split()[0]
            assert f"`{head}" in terminal, (game_id, phrase, head)
        for command in ("hint", "undo", "quit"):
            assert f"`{COMMANDS[command][lang]}`" in terminal, (game_id, command)
        if game_id != "up-or-down":
            for letter, suit in suits.items():
                assert f"`{letter}` {suit}" in terminal, (game_id, letter)
            ranks = {"updown": (11, 12)}.get(game_id, (11, 12, 13, 14))
            for rank in ranks:
                assert f"`{RANK_LETTERS[lang][rank]}` " in terminal, (game_id, rank)


def test_help_names_hint_and_the_letters_in_each_language():
    for lang, also, hint, letters in (("en", "Also:", "hint", "J jack"), ("de", "Außerdem:", "tipp", "B Bube"),
                                      ("pt", "Também:", "dica", "V valete")):
        result = runner.invoke(app, ["play", "euchre", "--seed", "1", "--lang", lang],
                               input=f"{COMMANDS['help'].get(lang, 'help')}\nquit\n")
        assert result.exit_code == 0, result.output
        text = " ".join(result.output.split())
        said = text[text.index(also):]
        assert f" {hint} (" in said[:120], said[:120]
        assert letters in text
        prompt = {"en": "(help, rules, hint, quit)", "de": "(hilfe, regeln, tipp, beenden)",
                  "pt": "(ajuda, regras, dica, sair)"}[lang]
        assert prompt in text


# -- the terminal's rough edges -----------------------------------------------------------------

def _render(renderable: Any, width: int = 80) -> str:
    buf = io.StringIO()
    Console(file=buf, width=width, force_terminal=False).print(renderable)
    return buf.getvalue()


def test_six_players_of_up_or_down_fit_24_lines_at_80_columns():
    """The screen, the legal moves and the prompt: at most 24 lines, at every decision of bots' games."""
    from updown.bots import make_bot

    game = get_game("up-or-down")
    screen = hooks_for(game).screen
    names = ["A rather long player name"] + [f"Greedy {s}" for s in range(1, 6)]
    tallest = 0
    for g in range(3):
        rng = random.Random(g)
        bots = [make_bot("greedy", game, s, random.Random(f"{g}:{s}")) for s in range(6)]
        state = game.new_state(6)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            seat = state.actors()[0]
            legal = state.legal_actions(seat)
            if seat == 0 and g % 3 == len(state.log) % 3:
                for lang in LANGS:
                    text = _render(screen(state.view(0), names, translator(lang)))
                    lines = text.splitlines()
                    assert all(len(line) <= 80 for line in lines)
                    tallest = max(tallest, len(lines))
                    assert len(lines) + 2 <= 24, (lang, text)
            state.apply(bots[seat].act(state.view(seat), legal), seat)
    assert tallest >= 15  # columns were on the screen, not only the first turns


def test_the_euchre_header_keeps_each_team_on_one_line():
    view, _legal = _views("euchre", 4, games=1)[5]
    names = ["A rather long player name", "Greedy 1", "Greedy 2", "Greedy 3"]
    for lang in LANGS:
        _ = translator(lang)
        text = _render(hooks_for(get_game("euchre")).screen(view, names, _))
        points = _.n("{n} point", "{n} points", 0).format(n=0).split()[-1]
        for team in ("A rather long player name & Greedy 2", "Greedy 1 & Greedy 3"):
            line = next(line for line in text.splitlines() if team in line)
            assert points in line, (lang, line)
    english = _render(hooks_for(get_game("euchre")).screen(view, ["Ann", "Bob", "Cy", "Di"], translator("en")))
    assert re.search(r"Ann & Cy: \d+ points? +vs +Bob & Di: \d+ points? +\(to 10\)", english)


def test_games_shows_options_as_typed_without_python_values():
    for lang in LANGS:
        result = runner.invoke(app, ["games", "--lang", lang], env={"COLUMNS": "80"})
        assert result.exit_code == 0
        assert not re.search(r"\bNone\b|\bTrue\b|\bFalse\b|'\w+'", result.output), result.output
        assert all(len(line) <= 80 for line in result.output.splitlines())
    out = runner.invoke(app, ["games"], env={"COLUMNS": "200"}).output
    assert "-o stick_the_dealer=true|false  (default: true)" in out
    assert "-o length=WORD  (default: short)" in out
    assert "-o rounds=N  rounds in the match" in out  # no default shown where there is none
    assert re.search(r"^ {4}bots: ", out, re.M)


def test_quit_in_the_sueca_is_not_the_paid_leave():
    result = runner.invoke(app, ["play", "updown-sueca", "--seed", "2"], input="quit\n")
    assert result.exit_code == 0
    assert "you left the game" not in result.output and "(you quit)" in result.output
    assert "not leaving the match: no RISCOS are paid" in result.output
    assert "leaves the match" not in result.output
    other = runner.invoke(app, ["play", "updown", "--seed", "2"], input="quit\n")
    assert "RISCOS" not in other.output


def test_the_resume_command_is_one_that_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    script = tmp_path / ".venv" / "bin" / "updown"
    script.parent.mkdir(parents=True)
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    monkeypatch.setattr(sys, "argv", [".venv/bin/updown", "play"])
    monkeypatch.setenv("PATH", "/nonexistent")
    # Started as make play starts it, not on PATH: the path it was started by, from here.
    assert resume_command(Path("game 1.json")) == ".venv/bin/updown play --resume 'game 1.json'"
    monkeypatch.setenv("PATH", str(script.parent))
    assert resume_command(Path("g.json")) == "updown play --resume g.json"
    # Started some other way, with no updown on PATH: this Python runs the module.
    monkeypatch.setattr(sys, "argv", ["-c", "play"])
    monkeypatch.setenv("PATH", "/nonexistent")
    assert resume_command(Path("g.json")).endswith(" -m updown.cli.app play --resume g.json")


def test_the_printed_resume_command_goes_on_with_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Run exactly the line the quit printed (here without updown on PATH: this Python, -m)."""
    import shlex
    import subprocess

    monkeypatch.setenv("PATH", "/nonexistent")
    stopped = runner.invoke(app, ["play", "updown-sueca", "--seed", "4"], input="quit\n")
    assert stopped.exit_code == 0
    lines = stopped.output.splitlines()
    command = lines[lines.index("Go on with:") + 1].strip()
    assert " play --resume updown-updown-sueca-" in command
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(shlex.split(command), input="sair\n", capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "resumed from updown-updown-sueca-" in " ".join(done.stdout.split())


def test_the_arena_tables_fit_80_columns():
    pytest.importorskip("openskill")
    for game_id, bots, players in (("up-or-down", "greedy,random,random,random,random,easy", "--games"),
                                   ("euchre", "greedy,random", "--games")):
        result = runner.invoke(app, ["arena", game_id, "--bots", bots, players, "12", "--workers", "1",
                                     "-o", "deals=1" if game_id == "euchre" else "length=short"])
        assert result.exit_code == 0, result.output
        lines = result.stdout.splitlines()
        assert all(len(line) <= 80 for line in lines), "\n".join(l for l in lines if len(l) > 80)
        assert not any("…" in line for line in lines)  # no name cut short
        assert "12 games, " in result.stdout


def test_the_bench_lines_and_table_fit_80_columns():
    result = runner.invoke(app, ["bench", "updown", "--seconds", "0.05"])
    assert result.exit_code == 0
    assert all(len(line) <= 80 for line in result.output.splitlines())
    from updown.batched.bench import Row, table

    rows = [Row("OpenSpiel C++ loop (evaluate_bots)", lambda s: (1, 1.0)),
            Row("updown batched, batch 10,000", lambda s: (1, 1.0))]
    rows[0].games, rows[0].seconds, rows[0].per_round = 50_000, 1.0, [50_000.0] * 3
    rows[1].games, rows[1].seconds, rows[1].per_round = 9_999_999, 1.0, [5_000_000.0, 9_999_999.0, 9_000_000.0]
    for line in table("Euchre", rows, rows[0], "deals"):
        assert len(line) <= 80, line


# -- in a real terminal, 80 by 24 ------------------------------------------------------------------

def _spawn(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> Any:
    pexpect = pytest.importorskip("pexpect")
    full = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES")}
    full.update(TERM="xterm-256color", **(env or {}))
    child = pexpect.spawn(sys.executable, ["-c", "from updown.cli.app import main; main()", *args], cwd=str(cwd),
                          env=full, encoding="utf-8", timeout=60, dimensions=(24, 80))
    child.logfile_read = io.StringIO()
    return child


PROMPT = r"\): (?:\x1b\[0m)?$"
"""The end of a prompt, after the style's reset where there is colour."""


def _plain(text: str) -> str:
    return ANSI.sub("", text).replace("\r\n", "\n")


def _check_fits(transcript: str, help_word: str) -> int:
    """No line wider than 80 columns, and from a screen's top to its prompt (the line that offers
    ``help_word``) at most 24 lines. Returns the tallest."""
    lines = transcript.split("\n")
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    top, tallest = None, 0
    for i, line in enumerate(lines):
        if line.startswith("╭"):
            top = i
        elif f"({help_word}, " in line and top is not None:
            tallest = max(tallest, i - top + 1)
            top = None
    assert tallest <= 24, tallest
    return tallest


def _fragment(message: str, **slots: str) -> str:
    """The longest fixed part of a message (its words between the placeholders)."""
    return max(message.format(**{k: "\0" for k in slots}).split("\0"), key=len).strip()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_id", sorted(PLAYERS))
def test_each_game_in_each_language_at_80_by_24(game_id: str, lang: str, tmp_path: Path):
    """Moves typed as the language lists them are all taken; cards in the language's letters; every
    line fits 80 columns and every screen with its prompt 24 lines (six players of Up or Down?)."""
    import pexpect

    _ = translator(lang)
    words = words_for(_)
    legal_head = _("legal: {moves}").split("{moves}")[0]
    english_heads = {p.split()[0] for p in PHRASES["de"]}
    child = _spawn(["play", game_id, "--players", str(PLAYERS[game_id]), "--seed", "7", "--lang", lang,
                    "--record", "game.json"], tmp_path)
    rng = random.Random(game_id + lang)
    typed: list[str] = []
    worded = 0
    for _turn in range(10):
        if child.expect([PROMPT, pexpect.EOF], timeout=60) != 0:
            break
        shown = _plain(child.before)
        listed = shown[shown.rindex(legal_head) + len(legal_head):]
        listed = " ".join(listed.split("\n")[:-1]) or listed  # the list may wrap; the prompt follows it
        move = rng.choice([o.strip() for o in listed.split(",") if o.strip()])
        head = move.split()[0]
        if head.isalpha() and len(head) > 2:
            worded += 1
            if lang != "en":
                assert head not in english_heads, move  # listed in the language, not in English
        child.sendline(move)
        typed.append(move)
    child.sendline(words.name("quit"))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    transcript = _plain(child.logfile_read.getvalue())
    tallest = _check_fits(transcript, words.name("help"))
    assert tallest >= {"up-or-down": 16, "euchre": 12, "updown": 10, "updown-sueca": 11}[game_id]  # screens were seen
    refusals = [_fragment(_("'{text}' is not a move here. Type {help} to see what you can do."), text="", help=""),
                _fragment(_("{move} is not possible: {reason}."), move="", reason=""),
                _fragment(_("{move} is not possible now (you can: {moves})."), move="", moves=""),
                _fragment(_("'{text}' could mean {options}: say which."), text="", options="")]
    assert not [r for r in refusals if r in transcript], transcript[-2000:]
    mine = [s for s in json.loads((tmp_path / "game.json").read_text())["steps"] if s.startswith("0: ")]
    assert len(typed) >= 5 and len(mine) >= len(typed), (typed, mine)
    if game_id != "up-or-down":
        assert worded, typed
        english = {"en": None, "de": r"(?<![A-Za-z])[JQ][♣♦♥♠]", "pt": r"(?<![A-Za-z])[JQK][♣♦♥♠]"}[lang]
        assert english is None or not re.search(english, transcript), re.search(english, transcript)
        assert re.search(r"[♣♦♥♠]", transcript)
    assert _("Saved to {path}.").format(path="game.json") in transcript


def test_no_color_gives_no_escape_code_at_all(tmp_path: Path):
    import pexpect

    child = _spawn(["play", "updown", "--seed", "3", "--lang", "de"], tmp_path, env={"NO_COLOR": "1"})
    child.expect(PROMPT)
    child.sendline("hilfe")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect(PROMPT)
    child.sendline("beenden")
    child.expect(pexpect.EOF)
    child.close()
    raw = child.logfile_read.getvalue()
    assert "\x1b" not in raw and "Tippe eines von" in raw and "╭" in raw
    coloured = _spawn(["play", "updown", "--seed", "3"], tmp_path)  # and without it, colour comes back
    coloured.expect(PROMPT)
    coloured.sendline("quit")
    coloured.expect(pexpect.EOF)
    assert "\x1b[" in coloured.logfile_read.getvalue()


def test_ctrl_c_leaves_the_saved_file_and_the_command_whole(tmp_path: Path):
    import pexpect

    child = _spawn(["play", "updown-sueca", "--seed", "5", "--lang", "pt"], tmp_path)
    child.expect(PROMPT)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    lines = _plain(child.logfile_read.getvalue()).split("\n")
    saved = next(iter(tmp_path.glob("updown-updown-sueca-*.json"))).name
    assert any(line == f"Guardado em {saved}." for line in lines), lines[-8:]
    assert any(line.endswith(f" play --resume {saved}") for line in lines)
    assert any("não é abandonar a partida" in line for line in lines)
    # After the terminal's ^C on the prompt's line, the message starts a line of its own.
    assert "Jogo parado (interrompido)." in lines
