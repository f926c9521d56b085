"""The terminal as a newcomer meets it: rules, languages, saving and resuming, undo, quick input,
errors that say why, colour-free and 80-column screens, replay as a viewer (issue 13), and the
CLI's share of the hardening (issue 15: seeds, names, record paths, lazy seeds, bench limits)."""

from __future__ import annotations

import io
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

import pytest
from rich.console import Console
from typer.testing import CliRunner

from updown.cli.app import app
from updown.cli.human import HumanAgent, Quit
from updown.cli.inputs import InputProblem, NotNow, resolve
from updown.cli.screens import hooks_for
from updown.core.records import Record, replay as replay_record
from updown.core.registry import all_games, get_game
from updown.i18n import catalogue, catalogue_json, detect_language, translator
from updown.rules import available, rules_text

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
EN = translator("en")


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None):  # noqa: A002
    return runner.invoke(app, list(args), input=input, env=env)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def find_view(game_id: str, players: int, seat: int, want: Callable[[dict[str, Any], list[int]], bool],
              seed: int = 0, tries: int = 300) -> tuple[dict[str, Any], list[int]]:
    """A view of ``seat`` at a decision where ``want(view, legal)`` holds, from random games."""
    game = get_game(game_id)
    rng = random.Random(seed)
    for _ in range(tries):
        state = game.new_state(players)
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            s = state.actors()[0]
            legal = state.legal_actions(s)
            if s == seat:
                view = state.view(seat)
                if want(view, legal):
                    return view, legal
            state.apply(rng.choice(legal), s)
    raise AssertionError("no such position found")


# -- the catalogue ------------------------------------------------------------------------------

def test_catalogue_translates_and_exports_json():
    assert translator("de")("Your move") == "Dein Zug"
    assert translator("pt_PT.UTF-8")("Your move") == "A tua jogada"
    assert translator("fr")("Your move") == "Your move"  # unknown: English
    de = translator("de")
    assert de.n("{n} card", "{n} cards", 1).format(n=1) == "1 Karte"
    assert de.n("{n} card", "{n} cards", 3).format(n=3) == "3 Karten"
    data = json.loads(catalogue_json("pt"))
    assert data["lang"] == "pt" and data["messages"]["Your move"] == "A tua jogada"
    assert data["messages"]["{n} card"] == ["{n} carta", "{n} cartas"]
    assert "plural=" in data["plural_forms"]
    assert catalogue("en")["messages"] == {}


def test_language_comes_from_the_locale():
    assert detect_language({"LANG": "de_DE.UTF-8"}) == "de"
    assert detect_language({"LC_ALL": "pt_BR.UTF-8", "LANG": "de_DE"}) == "pt"
    assert detect_language({"LANGUAGE": "fr:de", "LANG": "en_US"}) == "de"
    assert detect_language({"LANG": "fr_FR.UTF-8"}) == "en"
    assert detect_language({"LANG": "C"}) == "en"


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"\{(\w*)\}", text))


def test_every_message_is_translated_with_the_same_placeholders_and_mo_files_match():
    babel = pytest.importorskip("babel.messages.pofile")
    from babel.messages.extract import extract_from_dir

    # The template is up to date with the code...
    source = {msg[2] if isinstance(msg[2], str) else msg[2][0]
              for msg in extract_from_dir(str(ROOT / "updown"), keywords={"_": None, "n": (1, 2)},
                                          comment_tags=())}
    with open(ROOT / "updown/i18n/updown.pot", "rb") as fh:
        template = {m.id if isinstance(m.id, str) else m.id[0] for m in babel.read_po(fh) if m.id}
    assert source == template, "run `make i18n`: the code's messages differ from updown.pot"
    for lang in ("de", "pt"):
        with open(ROOT / f"updown/i18n/locales/{lang}/LC_MESSAGES/updown.po", "rb") as fh:
            po = babel.read_po(fh)
        by_id = {m.id if isinstance(m.id, str) else m.id[0]: m for m in po if m.id}
        assert set(by_id) == template, f"{lang}: .po differs from the template"
        compiled = catalogue(lang)["messages"]
        for key, m in by_id.items():
            assert not m.fuzzy, f"{lang}: fuzzy {key!r}"
            strings = list(m.string) if isinstance(m.string, tuple) else [m.string]
            assert all(strings), f"{lang}: {key!r} is not translated"
            for s in strings:
                # A translation may drop {ordinal} for {place}, never invent a name.
                assert _placeholders(s) <= _placeholders(key) | {"place"}, (lang, key, s)
            # ... and the committed .mo holds exactly what the .po says.
            assert compiled[key] == (strings if isinstance(m.id, tuple) else strings[0]), (lang, key)
        assert len(compiled) == len(by_id)


def test_every_event_line_is_built_in_every_language():
    """Whole games of every game, every event described in three languages, no leftover braces."""
    from updown.i18n.events import describe

    for game in all_games():
        rng = random.Random(3)
        players = game.bench_players
        state = game.new_state(players, game.Options.from_dict(game.bench_options))
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
            else:
                s = state.actors()[0]
                state.apply(rng.choice(state.legal_actions(s)), s)
        names = [f"P{s}" for s in range(players)]
        kinds = set()
        for event in state.log:
            english = describe(game, event, names, EN)
            # Lines we changed on purpose: the pick-up no longer announces a discard not yet made,
            # and "euchred" reads as a sentence ("are euchred").
            if (game.id, event["type"]) not in {("euchre", "pickup"), ("euchre", "score")}:
                # ... and "1 cards", "1 tricks" now read "1 card", "1 trick" ("-1 points" stays).
                engine = re.sub(r"(?<![-\d])1 (card|trick|point)s\b", r"1 \1", game.describe(event, names))
                assert english == engine, event
            kinds.add(event["type"])
            for lang in ("de", "pt"):
                line = describe(game, event, names, translator(lang))
                assert line and "{" not in line and not line.startswith("{'type'"), (lang, event)
        assert len(kinds) >= 4


# -- rules --------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang,words", [("en", ["trick", "trump"]), ("de", ["Stich", "Trumpf"]),
                                        ("pt", ["vaza", "trunfo"])])
def test_rules_command_in_three_languages(lang: str, words: list[str]):
    for game in ("updown", "updown-sueca", "up-or-down", "euchre"):
        result = run("rules", game, "--lang", lang)
        assert result.exit_code == 0, result.output
        assert len(result.output.splitlines()) > 20
    euchre = run("rules", "euchre", "--lang", lang).output
    assert all(w in euchre for w in words)
    assert available() == {g: ["de", "en", "pt"] for g in ("euchre", "up-or-down", "updown", "updown-sueca")}


def test_rules_are_package_data_in_our_words():
    # Shipped in the package, so a user's clone (without ../shared/rules) has them.
    assert "updown*" in (ROOT / "pyproject.toml").read_text() and "rules/*.md" in (ROOT / "pyproject.toml").read_text()
    text = rules_text("updown", "en")
    assert text and "44 cards" in text and "pot" in text
    # Not the rulebook's sentences: no line of the rulebook appears in our text.
    book = Path("/work/shared/rules/000_118184b70408f7ee.txt")
    if book.exists():
        for line in book.read_text().splitlines():
            if len(line) > 60:
                assert line.strip() not in text


def test_rules_during_a_game_and_bad_language():
    result = run("play", "euchre", "--seed", "1", "--lang", "de", input="rules\nquit\n")
    assert result.exit_code == 0 and "rechte Bube" in result.output
    assert run("rules", "updown", "--lang", "xx").exit_code == 2
    assert run("rules", "chess").exit_code == 2


# -- save, resume, undo ---------------------------------------------------------------------------

ANSWERS_2P = "\n".join(["flip"] + [f"{r}{s}" for s in "CDHS" for r in
                                   ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q"]]) + "\n"


def test_quit_saves_and_resume_finishes_the_same_game(tmp_path: Path):
    first = run("play", "updown", "--players", "2", "--seed", "4", "-o", "rounds=1", "--record", "game.json",
                input="1\n2\nquit\n")
    assert first.exit_code == 0, first.output
    saved = json.loads((tmp_path / "game.json").read_text())
    # The bots' cards in the file are drawn afresh (tests/test_solo_no_peek.py): the file says so.
    assert saved["play"] == {"human": 0, "bots": [None, "greedy"], "unseen": "drawn afresh"}
    assert "seed" not in saved and "result" not in saved  # the seed would show the hidden cards
    steps_before = saved["steps"]
    assert any(s.startswith("0: ") for s in steps_before)
    again = run("play", "--resume", "game.json", input=ANSWERS_2P * 30)
    assert again.exit_code == 0, again.output
    assert "resumed from game.json" in again.output and "You finished" in again.output
    final = Record.from_json((tmp_path / "game.json").read_text())
    # The same game as the player saw it (the bots' unseen cards were drawn afresh once more).
    head = Record(final.game, final.players, final.options, final.seats, final.steps[: len(steps_before)])
    assert replay_record(head).view(0) == replay_record(Record.from_dict(saved)).view(0)
    assert [s for s in final.steps[: len(steps_before)] if s.startswith("0: ")] == \
        [s for s in steps_before if s.startswith("0: ")]
    assert replay_record(final).is_terminal()
    done = run("play", "--resume", "game.json")
    assert done.exit_code == 2 and "finished game" in done.output


def test_end_of_input_saves_to_a_new_file_in_the_current_folder(tmp_path: Path):
    result = run("play", "euchre", "--seed", "9", input="")
    assert result.exit_code == 0 and "input ended" in result.output
    files = list(tmp_path.glob("updown-euchre-*.json"))
    assert len(files) == 1
    assert Record.from_json(files[0].read_text()).game == "euchre"


def test_undo_takes_back_the_decision_and_what_followed(tmp_path: Path):
    # Lead with a roll (dice are chance), undo, then flip: the record keeps only the flip line.
    straight = run("play", "updown", "--players", "2", "--seed", "21", "--record", "a.json", input="2\nflip\nquit\n")
    undone = run("play", "updown", "--players", "2", "--seed", "21", "--record", "b.json",
                 input="2\nroll\nundo\nflip\nquit\n")
    assert undone.exit_code == 0, undone.output
    assert "Undone: roll is taken back" in undone.output
    a = Record.from_json((tmp_path / "a.json").read_text())
    b = Record.from_json((tmp_path / "b.json").read_text())
    # The same game as seat 0 sees it; the bots' unseen cards are drawn afresh after an undo.
    assert replay_record(a).view(0) == replay_record(b).view(0) and "0: roll" not in b.steps
    assert [s for s in a.steps if not s.startswith("deal 1")] == [s for s in b.steps if not s.startswith("deal 1")]
    nothing = run("play", "updown", "--seed", "3", input="undo\nquit\n")
    assert "nothing to undo" in nothing.output


def test_undo_restores_chance_so_the_dice_cannot_be_rolled_again(tmp_path: Path):
    # Find a seed where seat 0 leads a trick of a 2-player game early, then roll, undo, roll.
    result = run("play", "updown", "--players", "2", "--seed", "21", "--record", "c.json",
                 input="2\nroll\nundo\nroll\nquit\n")
    assert result.exit_code == 0, result.output
    rolls = re.findall(r"Dice \d\+\d: the trump value is \d+", result.output)
    assert len(rolls) >= 3 and rolls[-1] == rolls[-2]  # the first roll again, not a new one


def test_leave_asks_first(tmp_path: Path):
    result = run("play", "updown-sueca", "--seed", "2", input="leave\nno\nquit\n")
    assert result.exit_code == 0, result.output
    assert "Leaving costs 100 RISCOS" in result.output and "leaves the match" not in result.output


def test_the_loop_draws_exactly_as_play_game(tmp_path: Path):
    """--seed replays the same game as before the loop moved into the CLI."""
    from updown.bots import make_bot
    from updown.core.driver import play_game

    game = get_game("updown")
    seed = 77
    rec_cli = run("play", "updown", "--players", "2", "--seed", str(seed), "-o", "rounds=1", "--record", "r.json",
                  "--no-auto", input=ANSWERS_2P * 30)
    assert rec_cli.exit_code == 0, rec_cli.output
    mine = Record.from_json((tmp_path / "r.json").read_text())

    class Typist:
        """Answers as the typed cycle does: the first legal line of flip, 2C, 3C, ..."""
        def act(self, view: dict[str, Any], legal: list[int]) -> int:
            for text in ANSWERS_2P.split():
                a = game.parse_action(text)
                if a in legal:
                    return a
            raise AssertionError

    agents = [Typist(), make_bot("greedy", game, 1, random.Random(f"{seed}:1"))]
    _, rec = play_game(game, 2, agents, random.Random(seed), options=game.Options.from_dict({"rounds": 1}),
                       seats=mine.seats, seed=seed)
    assert rec.steps == mine.steps


def test_ctrl_c_and_a_closed_terminal_save_the_game(tmp_path: Path):
    pexpect = pytest.importorskip("pexpect")
    import signal

    cmd = [sys.executable, "-c", "from updown.cli.app import main; main()"]
    for how in ("ctrl-c", "hangup"):
        child = pexpect.spawn(cmd[0], cmd[1:] + ["play", "updown", "--seed", "5", "--lang", "en"],
                              cwd=str(tmp_path), encoding="utf-8", timeout=60, dimensions=(40, 100))
        child.expect("Choose a card|Change the rules")
        time.sleep(0.5)  # let it wait for input, as a player's terminal would
        for _attempt in range(3):  # on a loaded machine, give a signal a second chance
            if how == "ctrl-c":
                child.sendintr()
            else:
                child.kill(signal.SIGHUP)
            if child.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=20) == 0:
                break
        assert "Saved to updown-updown-" in child.before
        child.close()
        assert child.exitstatus == (130 if how == "ctrl-c" else 129), how
        files = sorted(tmp_path.glob("updown-updown-*.json"))
        assert files, how
        resumed = run("play", "--resume", str(files[-1]), input="quit\n")
        assert resumed.exit_code == 0 and "resumed from" in resumed.output
        for f in files:
            f.unlink()


# -- quick input --------------------------------------------------------------------------------

def test_positions_and_short_forms_in_updown():
    game = get_game("updown")
    view, legal = find_view("updown", 4, 0, lambda v, l: v["phase"] == "lead")
    assert game.action_name(resolve(game, "f", view, legal, EN)[0]) == "flip"
    rot = [a for a in legal if game.action_name(a).startswith("rotate")][0]
    letter = game.action_name(rot).split()[1]
    assert resolve(game, f"r {letter.lower()}", view, legal, EN) == [rot]
    with pytest.raises(InputProblem, match="roll, rotate"):
        resolve(game, "r", view, legal, EN)
    view, legal = find_view("updown", 4, 0, lambda v, l: v["phase"] == "choose")
    assert game.action_name(resolve(game, "3", view, legal, EN)[0]) == view["hand"][2]
    with pytest.raises(InputProblem, match="positions are 1 to"):
        resolve(game, "99", view, legal, EN)


def test_short_forms_in_euchre_sueca_and_up_or_down():
    euchre = get_game("euchre")
    view, legal = find_view("euchre", 4, 1, lambda v, l: v["phase"] == "bid1")
    assert euchre.action_name(resolve(euchre, "o", view, legal, EN)[0]) == "order up"
    assert euchre.action_name(resolve(euchre, "o u a", view, legal, EN)[0]) == "order up alone"
    assert euchre.action_name(resolve(euchre, "p", view, legal, EN)[0]) == "pass"
    view, legal = find_view("euchre", 4, 1, lambda v, l: v["phase"] == "bid2")
    named = [euchre.action_name(a) for a in legal if euchre.action_name(a).startswith("name ")
             and not euchre.action_name(a).endswith("alone")]
    letter = named[0].split()[1]
    assert euchre.action_name(resolve(euchre, letter, view, legal, EN)[0]) == f"name {letter}"

    sueca = get_game("updown-sueca")
    view, legal = find_view("updown-sueca", 4, 1, lambda v, l: v["phase"] == "exchange" and len(v["hand"]) == 5
                            and not v["my_discards"])
    c1, c2 = view["hand"][0], view["hand"][3]
    got = resolve(sueca, f"{c1.lower()} 4 done", view, legal, EN)
    assert [sueca.action_name(a) for a in got] == [f"discard {c1}", f"discard {view['hand'][3]}", "done"]
    assert [sueca.action_name(a) for a in resolve(sueca, f"discard {c1} {c2}", view, legal, EN)] == \
        [f"discard {c1}", f"discard {c2}"]

    uod = get_game("up-or-down")
    view, legal = find_view("up-or-down", 3, 0, lambda v, l: v["phase"] == "take")
    target = legal[0]
    number = uod.action_name(target).split()[1]
    assert resolve(uod, number, view, legal, EN) == [target]
    view, legal = find_view("up-or-down", 3, 0, lambda v, l: v["phase"] == "draw" and len(l) == 2)
    assert uod.action_name(resolve(uod, "up", view, legal, EN)[0]) == "draw up"


def test_several_cards_in_one_discard_line_are_played_in_turn(tmp_path: Path):
    # Seed 2, seat 1 chooses the trump (and so plays), then discards two cards by position.
    result = run("play", "updown-sueca", "--seed", "2", "--seat", "1", "--record", "x.json",
                 input="trump S\n1 2\ndone\nquit\n")
    assert result.exit_code == 0, result.output
    assert "Next from your line: discard" in result.output
    steps = json.loads((tmp_path / "x.json").read_text())["steps"]
    mine = [s for s in steps if s.startswith("1: ")]
    assert mine[0] == "1: trump S" and mine[1].startswith("1: discard") and mine[2].startswith("1: discard")
    assert mine[3] == "1: done"


def test_a_forced_move_is_played_with_a_line_saying_so():
    result = run("play", "updown", "--players", "2", "--seed", "8", "-o", "rounds=1", input=ANSWERS_2P * 30)
    assert result.exit_code == 0, result.output
    assert "Only one choice, played for you:" in result.output  # the last trick has one card


# -- errors that say why ------------------------------------------------------------------------

def test_errors_say_why_from_the_view():
    why = hooks_for(get_game("euchre")).why
    view, legal = find_view(
        "euchre", 4, 2,
        lambda v, l: v["phase"] == "play" and bool(v["table"]) and len(l) < len(v["hand"]))
    wrong = next(c for c in view["hand"] if get_game("euchre").parse_action(c) not in legal)
    assert "you must follow" in why(view, wrong, EN)

    view, legal = find_view("euchre", 4, 1, lambda v, l: v["phase"] == "bid2")
    turned = view["upcard"][-1]
    assert "was turned down" in why(view, f"name {turned}", EN)

    view, legal = find_view("updown", 4, 0, lambda v, l: v["phase"] == "lead")
    mine = view["suits"][0]
    assert "is already your suit" in hooks_for(get_game("updown")).why(view, f"rotate {mine}", EN)

    view, legal = find_view("up-or-down", 4, 0, lambda v, l: v["phase"] == "play")
    assert "1 to 78" in hooks_for(get_game("up-or-down")).explain(view, "100", EN)
    result = run("play", "up-or-down", "--players", "4", "--seed", "3", input="100\n126\nquit\n")
    assert result.output.count("in this game are 1 to 78") == 2

    view, legal = find_view("updown-sueca", 4, 2, lambda v, l: v["phase"] == "trick" and bool(v["table"])
                            and len(l) < len(v["hand"]))
    wrong = next(c for c in view["hand"] if get_game("updown-sueca").parse_action(c) not in legal)
    assert "you must" in hooks_for(get_game("updown-sueca")).why(view, wrong, EN)


def test_illegal_card_in_play_gets_the_reason():
    result = run("play", "euchre", "--seed", "1", "--no-auto", input="\n".join(
        ["pass"] * 3 + [f"{r}{s}" for s in "CDHS" for r in ["9", "10", "J", "Q", "K", "A"]] * 2) + "\nquit\n")
    assert "Traceback" not in result.output
    assert "is not possible:" in result.output or "is not a move here" in result.output


# -- colour-free, 80 columns ---------------------------------------------------------------------

def _render(renderable: Any, **kw: Any) -> str:
    buf = io.StringIO()
    Console(file=buf, width=80, **kw).print(renderable)
    return buf.getvalue()


def test_up_or_down_shows_colours_without_colour():
    view, _legal = find_view("up-or-down", 6, 0, lambda v, l: v["phase"] == "place")
    text = _render(hooks_for(get_game("up-or-down")).screen(view, [f"P{s}" for s in range(6)], EN),
                   no_color=True, force_terminal=False)
    assert "\x1b[" not in text
    for card in view["hand"]:
        assert f"{card}{'◆★●■▲✚'[(card - 1) % 6]}" in text
    assert "◆ ruby" in text and "✚ green" in text
    # NO_COLOR through the command as well.
    result = run("play", "up-or-down", "--seed", "2", input="quit\n", env={"NO_COLOR": "1"})
    assert "\x1b[" not in result.output and "★ gold" in result.output


@pytest.mark.parametrize("game_id,players", [("updown", 4), ("updown-sueca", 4), ("up-or-down", 6), ("euchre", 4)])
def test_screens_fit_80_columns_in_every_language(game_id: str, players: int):
    game = get_game(game_id)
    screen = hooks_for(game).screen
    names = [f"Greedy {s}" for s in range(players)]
    names[0] = "A rather long player name"
    for k in range(3):
        view, _legal = find_view(game_id, players, 0, lambda v, l: random.Random(len(v["log"]) + k).random() < 0.2,
                                 seed=k)
        for lang in ("en", "de", "pt"):
            text = _render(screen(view, names, translator(lang)), force_terminal=False)
            for line in text.splitlines():
                assert len(line) <= 80, (lang, line)


def test_games_list_fits_80_columns_and_names_every_option():
    result = run("games", env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert all(len(line) <= 80 for line in result.output.splitlines())
    for game in all_games():
        for name, *_ in game.Options.fields():
            assert f"-o {name}=" in result.output


def test_euchre_texts_read_right():
    view, _legal = find_view("euchre", 4, 0, lambda v, l: v["phase"] == "play")
    text = _render(hooks_for(get_game("euchre")).screen(view, ["You", "Greedy 1", "Greedy 2", "Greedy 3"], EN))
    assert re.search(r"You & Greedy 2: \d+ points", text)
    from updown.i18n.events import describe
    line = describe(get_game("euchre"), {"type": "pickup", "seat": 1, "card": "QH"}, ["a", "b", "c", "d"], EN)
    assert line == "b picks up Q♥." and "discards" not in line
    sueca = describe(get_game("updown-sueca"), {"type": "exchange", "seat": 0, "count": 1}, ["a"] * 4, EN)
    assert sueca == "a exchanges 1 card."


# -- replay as a viewer -------------------------------------------------------------------------

def _record(tmp_path: Path, game: str = "updown", players: int = 4) -> Path:
    folder = tmp_path / "recs"
    assert run("simulate", game, "--players", str(players), "--games", "1", "--records", str(folder),
               "-o", "rounds=1" if game == "updown" else "deals=1").exit_code == 0
    return next(folder.glob("*.json"))


def test_replay_seat_shows_only_that_seats_cards(tmp_path: Path):
    path = _record(tmp_path)
    names = Record.from_json(path.read_text()).seats
    result = run("replay", str(path), "--seat", "1")
    assert result.exit_code == 0, result.output
    assert f"{names[1]} is dealt" in result.output
    for s in (0, 2, 3):
        assert f"{names[s]} is dealt" not in result.output
    everything = run("replay", str(path))
    assert all(f"{n} is dealt" in everything.output for n in names)
    assert run("replay", str(path), "--seat", "7").exit_code == 2


def test_replay_step_waits_for_a_key_and_q_stops(tmp_path: Path):
    path = _record(tmp_path)
    stopped = run("replay", str(path), "--step", "--seat", "0", input="\n\nq\n")
    assert stopped.exit_code == 0 and "Stopped." in stopped.output
    assert stopped.output.count("Trick ") == 3
    whole = run("replay", str(path), "--step", input="\n" * 100)
    assert whole.exit_code == 0 and whole.output.count("Trick ") == 11 and "final standings" in whole.output


# -- a light install ----------------------------------------------------------------------------

def test_make_play_installs_without_the_test_extra():
    makefile = (ROOT / "Makefile").read_text()
    play_stamp = re.search(r"^\$\(PLAY_STAMP\):.*?(?=^\S)", makefile, re.S | re.M)
    assert play_stamp is not None
    recipe = play_stamp.group(0)
    assert 'pip install --progress-bar on -e .\n' in recipe and "[test]" not in recipe and "--quiet" not in recipe
    # play needs the play install and the compiled engines (issue 31), whose own install is the play one.
    assert re.search(r"^play: \$\(PLAY_STAMP\)(?: engines)?$", makefile, re.M)
    assert re.search(r"^engines: \$\(PLAY_STAMP\)$", makefile, re.M)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'license = "MIT"' in pyproject  # the SPDX form: no setuptools deprecation warning
    pin = re.search(r'requires = \["setuptools==(\d+)', pyproject)
    assert pin and int(pin.group(1)) >= 77
    deps = re.search(r"^dependencies = \[(.*?)\]", pyproject, re.S | re.M)
    assert deps and "pytest" not in deps.group(1) and "open_spiel" not in deps.group(1)


# -- hardening: seeds, names, paths, lazy seeds, bench ----------------------------------------------

def test_play_seeds_have_128_bits_and_simulate_keeps_explicit_seeds(tmp_path: Path):
    result = run("play", "updown", "--players", "2", "-o", "rounds=1", "--record", "s.json", input=ANSWERS_2P * 30)
    assert result.exit_code == 0, result.output
    seed = json.loads((tmp_path / "s.json").read_text())["seed"]
    assert seed.bit_length() > 64
    a = run("simulate", "updown", "--games", "2", "--seed", "5", "--json").output
    assert a == run("simulate", "updown", "--games", "2", "--seed", "5", "--json").output


def test_game_seeds_are_lazy_and_unchanged():
    import types

    from updown.simulate import game_seeds

    seeds = game_seeds(7, 10**12)
    assert isinstance(seeds, types.GeneratorType)
    master = random.Random(7)
    assert [next(seeds) for _ in range(5)] == [master.getrandbits(63) for _ in range(5)]


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1e9"])
def test_bench_refuses_seconds_that_never_end(value: str):
    result = run("bench", "updown", "--seconds", value)
    assert result.exit_code == 2 and "--seconds" in result.output


def test_record_paths_are_checked_before_the_game(tmp_path: Path):
    (tmp_path / "old.json").write_text("keep me")
    exists = run("play", "updown", "--record", "old.json", input="quit\n")
    assert exists.exit_code == 2 and "already exists" in exists.output and "Trick" not in exists.output
    assert (tmp_path / "old.json").read_text() == "keep me"
    nowhere = run("play", "updown", "--record", "no/such/folder/x.json", input="quit\n")
    assert nowhere.exit_code == 2 and "cannot write" in nowhere.output
    file_ = run("simulate", "updown", "--games", "1", "--records", "old.json")
    assert file_.exit_code == 2 and "is a file" in file_.output
    under_file = run("simulate", "updown", "--games", "1", "--records", "old.json/sub")
    assert under_file.exit_code == 2 and "cannot make the folder" in under_file.output
    assert run("simulate", "updown", "--games", "1", "--records", "recs").exit_code == 0
    again = run("simulate", "updown", "--games", "1", "--records", "recs")
    assert again.exit_code == 2 and "already holds records" in again.output
    for r in (exists, nowhere, file_, under_file, again):
        assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["[/]", "[bold red]x", "\x1b[31mred\x1b[0m", "a\x07b\x08c", "x" * 500])
def test_seat_names_are_shown_as_text(name: str):
    result = run("play", "updown", "--players", "2", "--name", name, input="quit\n")
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    if name.startswith("["):
        assert name in result.output


def test_hostile_names_in_a_record_are_shown_as_text(tmp_path: Path):
    path = _record(tmp_path, players=2)
    data = json.loads(path.read_text())
    data["seats"] = ["[/]\x1b[2J", "[red]boo"]
    path.write_text(json.dumps(data))
    result = run("replay", str(path))
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "[red]boo" in result.output


def test_hint_shows_the_coach_for_this_seat():
    """`hint` lists each legal action with the coach's estimate, best first, in the player's language."""
    from updown.cli.human import hint_lines

    game = get_game("euchre")
    state = game.new_state(4)
    rng = random.Random(5)
    while state.is_chance():
        state.apply(state.sample_chance(rng))
    seat = state.actors()[0]
    legal = state.legal_actions(seat)
    lines = hint_lines(game, state.view(seat), legal, translator("de"), budget=60)
    assert lines[0].startswith("Die Schätzungen des Trainers")
    assert len(lines) == 1 + len(legal) and "am besten" in lines[1]
    # The moves as the German player types them (bestellen, passen), not the engine's English.
    from updown.cli.moves import words_for

    shown = {line.split()[0] for line in lines[1:]}
    assert shown == {words_for(translator("de")).show(game.action_to_str(a)).split()[0] for a in legal}
    assert not shown & {game.action_to_str(a).split()[0] for a in legal}
