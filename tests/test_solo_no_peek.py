"""Solo play at the terminal without peeking (the fair-play issue, terminal part).

A saved, unfinished game shows only what its player saw: the cards the player has not seen (the
bots' hands, a bot's pending choice or discards, the stock) are drawn afresh when the game is
saved, and again when it is resumed; an undo draws them afresh too. What the player saw stays as
it was, and every record still replays exactly.

The sessions here are the terminal's own (``updown.cli.app``), with a scripted player in place of
the person: it plays random legal moves and quits or undoes where a test says.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from updown.cli import app as cli
from updown.cli.human import HumanAgent, Quit, Undo
from updown.cli.session import Session
from updown.core.protocol import State
from updown.core.records import Record, replay as replay_record
from updown.i18n import translator

EN = translator("en")
GAMES = ["updown", "euchre", "updown-sueca", "up-or-down"]
SEEDS = 40


class Script(HumanAgent):
    """The player: a random legal move at each decision; ``plan(view, legal)`` may instead
    return an action, or raise Quit or Undo."""

    def __init__(self, base: HumanAgent, rng: random.Random,
                 plan: Callable[[dict[str, Any], list[int]], int | None] | None = None):
        super().__init__(base.game, base.seat, base.names, base.console, base._)
        self.rng = rng
        self.plan = plan
        self.decisions = 0

    def act(self, view: dict[str, Any], legal: Any) -> int:
        self.decisions += 1
        legal = sorted(legal)
        if self.plan is not None:
            got = self.plan(view, legal)
            if got is not None:
                return got
        return self.rng.choice(legal)


def quiet(session: Session) -> None:
    """No screen output: the session and its player print into a buffer."""
    console = Console(file=io.StringIO(), width=100)
    session.console = console
    for agent in session.agents:
        if isinstance(agent, HumanAgent):
            agent.console = console


def new_session(game_id: str, seed: int, seat: int) -> Session:
    session, _path = cli._new_session(game_id, None, seat, "random", seed, "Pat", None, None, True, EN)
    quiet(session)
    return session


def script(session: Session, rng: random.Random,
           plan: Callable[[dict[str, Any], list[int]], int | None] | None = None) -> Script:
    player = Script(session.agents[session.seat], rng, plan)  # type: ignore[arg-type]
    session.agents[session.seat] = player
    return player


def hidden_cards(state: State, seat: int) -> dict[int, list[str]]:
    """What every other seat holds that ``seat`` has not seen: its hand, a pending choice (UP&DOWN),
    its discards (the Euchre dealer's, Sueca's), without the cards ``seat`` has seen there (a
    picked-up up-card, a turned card, a card drawn face up)."""
    mine = state.view(seat)
    out = {}
    for s in range(state.players):
        if s == seat:
            continue
        view = state.view(s)
        cards = [*view["hand"], *(view.get("my_discards") or [])]
        cards += [view[key] for key in ("choice", "discard") if view.get(key) is not None]
        seen = {mine.get("upcard"), mine.get("turned"), *(mine["known"][s] if "known" in mine else [])}
        out[s] = sorted(str(c) for c in cards if c not in seen)
    return out


def overlap(a: dict[int, list[str]], b: dict[int, list[str]]) -> tuple[int, int]:
    """Cards at the same place in both, and cards in all."""
    return sum(len(set(a[s]) & set(b[s])) for s in a), sum(len(a[s]) for s in a)


def play_to_quit(game_id: str, seed: int) -> tuple[Session, State]:
    """A game played by the script until it quits, after 3 to 60 decisions (or at the end)."""
    rng = random.Random(seed)
    seat = rng.randrange(4)
    session = new_session(game_id, seed, seat)
    stop = rng.randrange(3, 60)

    def plan(view: dict[str, Any], legal: list[int]) -> int | None:
        if player.decisions >= stop:
            raise Quit("test")
        return None

    player = script(session, rng, plan)
    try:
        session.run()
    except Quit:
        pass
    return session, session.state


def quit_now_and_then(rng: random.Random) -> Callable[[dict[str, Any], list[int]], int | None]:
    def plan(view: dict[str, Any], legal: list[int]) -> int | None:
        if rng.random() < 0.1:
            raise Quit("test")
        return None
    return plan


# -- saving and resuming ------------------------------------------------------------------------

@pytest.mark.parametrize("game_id", GAMES)
def test_a_saved_game_shows_only_what_its_player_saw(game_id: str, tmp_path: Path) -> None:
    changed_file = changed_resumed = same_cards = all_cards = finished = 0
    tried = 0
    for seed in range(SEEDS):
        session, real = play_to_quit(game_id, seed)
        if real.is_terminal():
            continue
        tried += 1
        seat = session.seat
        path = tmp_path / f"{game_id}-{seed}.json"
        session.save(path)
        data = json.loads(path.read_text())
        assert "seed" not in data and "result" not in data and data["play"]["human"] == seat

        # The file: the player's view exactly as it was; the others' hidden cards drawn afresh.
        in_file = replay_record(Record.from_dict(data))
        assert in_file.view(seat) == real.view(seat)
        truth, told = hidden_cards(real, seat), hidden_cards(in_file, seat)
        same, total = overlap(truth, told)
        same_cards, all_cards = same_cards + same, all_cards + total
        changed_file += truth != told

        # Resumed: the player's view again as it was; the bots hold cards drawn afresh once more
        # (not the real ones, not the file's).
        resumed, _path = cli._resume_session(path, None, 0, None, True, EN)
        quiet(resumed)
        assert resumed.seat == seat and resumed.state.view(seat) == real.view(seat)
        again = hidden_cards(resumed.state, seat)
        changed_resumed += again != truth and again != told
        assert replay_record(resumed.record).view(seat) == real.view(seat)

        # A resumed game's record replays exactly: played to its end (a few), or quit again.
        rng = random.Random(seed)
        if seed % 4 == 0:
            script(resumed, rng)
            end = resumed.run()
            record = Record.from_dict(resumed.save_data())
            assert record.result == end.result().to_dict()
            assert replay_record(record).result().to_dict() == end.result().to_dict()
            finished += 1
        else:
            script(resumed, rng, quit_now_and_then(rng))
            try:
                resumed.run()
            except Quit:
                pass
            state = replay_record(resumed.record)
            for s in range(state.players):
                assert state.view(s) == resumed.state.view(s)
    assert tried >= SEEDS * 3 // 4
    print(f"{game_id}: {tried} saved games; bots' unseen cards changed in the file {changed_file}, "
          f"changed again on resume {changed_resumed}; {same_cards} of {all_cards} unseen cards "
          f"({same_cards / max(all_cards, 1):.0%}) at the same place in the file; {finished} finished")
    assert changed_file >= tried * 3 // 4
    assert changed_resumed >= tried * 3 // 4
    assert same_cards <= all_cards * 0.6
    assert data["play"]["unseen"] == "drawn afresh"  # the file says so


def test_the_file_does_not_tell_the_hands_it_was_saved_from(tmp_path: Path) -> None:
    """Saved twice from the same position, a game gives two files that differ exactly where the
    player could not see; an old file with the real hands resumes with hands drawn afresh."""
    session, real = play_to_quit("euchre", 5)
    assert not real.is_terminal()
    one, two = session.save_data(), session.save_data()
    assert one != two
    a, b = replay_record(Record.from_dict(one)), replay_record(Record.from_dict(two))
    assert a.view(session.seat) == b.view(session.seat) == real.view(session.seat)
    # A file from before this change: the real record. Resuming it does not deal the real hands.
    old = tmp_path / "old.json"
    data = session.record.to_dict()
    data.pop("seed", None)
    data["play"] = {"human": session.seat, "bots": session.bot_names}
    old.write_text(json.dumps(data))
    changed = 0
    for _ in range(10):
        resumed, _path = cli._resume_session(old, None, 0, None, True, EN)
        changed += hidden_cards(resumed.state, session.seat) != hidden_cards(real, session.seat)
    assert changed >= 8


def test_replay_of_a_saved_game_shows_its_players_view(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    session, real = play_to_quit("updown", 3)
    path = tmp_path / "saved.json"
    session.save(path)
    names = Record.from_json(path.read_text()).seats
    shown = CliRunner().invoke(cli.app, ["replay", str(path)])
    assert shown.exit_code == 0, shown.output
    assert f"as {names[session.seat]} saw it" in shown.output
    assert all(f"{n} is dealt" not in shown.output for s, n in enumerate(names) if s != session.seat)


# -- undo ---------------------------------------------------------------------------------------

def test_undo_after_a_trick_draws_the_bots_cards_afresh() -> None:
    """UP&DOWN: the player chooses a card, sees the trick, and takes the choice back. The position
    comes back as the player saw it, but the bots' cards are drawn afresh: they hold other cards
    and the same choice meets other cards."""
    tried = changed_hands = changed_trick = 0
    seeds: set[int | None] = set()
    for seed in range(SEEDS):
        rng = random.Random(seed)
        session = new_session("updown", seed, rng.randrange(4))
        seat = session.seat
        memo: dict[str, Any] = {}

        def plan(view: dict[str, Any], legal: list[int]) -> int | None:
            tricks = [e for e in view["log"] if e["type"] == "trick"]
            if "choice" not in memo:
                if view["phase"] == "choose" and tricks and len(legal) > 1:
                    memo.update(choice=rng.choice(legal), view=view, tricks=len(tricks),
                                hidden=hidden_cards(session.state, seat))
                    return int(memo["choice"])
                return None
            if "undone" not in memo:
                if len(tricks) > memo["tricks"]:  # the trick is over and shown: take the choice back
                    memo.update(undone=True, first=tricks[memo["tricks"]])
                    raise Undo()
                return None
            if "again" not in memo:
                memo.update(again=view, after=hidden_cards(session.state, seat))
                return int(memo["choice"])
            if len(tricks) > memo["tricks"]:
                memo["second"] = tricks[memo["tricks"]]
                raise Quit("test")
            return None

        script(session, rng, plan)
        try:
            session.run()
        except Quit:
            pass
        if "second" not in memo:
            continue
        tried += 1
        assert memo["again"] == memo["view"]  # the player's view: as before the choice
        changed_hands += memo["after"] != memo["hidden"]
        others = lambda trick: [c for s, c in zip(range(4), trick["cards"]) if s != seat]  # noqa: E731
        changed_trick += others(memo["first"]) != others(memo["second"])
        seeds.add(session.record.seed)
        state = replay_record(session.record)  # the record is the game being played, exactly
        for s in range(state.players):
            assert state.view(s) == session.state.view(s)
    print(f"undo: {tried} games; the bots' unseen cards changed {changed_hands}, the trick changed {changed_trick}")
    assert tried >= SEEDS * 3 // 4
    assert changed_hands >= tried * 3 // 4
    assert changed_trick >= tried // 2
    assert seeds == {None}  # after an undo the game no longer follows from its seed


def test_redraw_keeps_the_view_and_changes_the_rest() -> None:
    """The building block, on its own: positions of every game drawn afresh."""
    from updown.cli.unseen import redraw

    for game_id in GAMES:
        for seed in range(10):
            session, real = play_to_quit(game_id, 100 + seed)
            if real.is_terminal():
                continue
            rec, state = redraw(session.record, session.seat, random.Random(seed))
            assert rec.seed is None and rec.result is None
            assert state.view(session.seat) == real.view(session.seat)
            assert replay_record(rec).view(session.seat) == real.view(session.seat)


@pytest.mark.parametrize("game_id", GAMES)
def test_undo_in_every_game_keeps_the_view_and_draws_the_rest_afresh(game_id: str) -> None:
    """Any decision taken back, in every game: the player's view as before it, the bots' unseen
    cards drawn afresh, the record (rewritten to match) replaying to the very game being played."""
    tried = changed = 0
    for seed in range(20):
        rng = random.Random(seed)
        session = new_session(game_id, seed, rng.randrange(4))
        seat = session.seat
        at = rng.randrange(2, 40)
        memo: dict[str, Any] = {}

        def plan(view: dict[str, Any], legal: list[int]) -> int | None:
            n = player.decisions
            if n == at and session.undo_stack:
                raise Undo()  # back to the last decision that had a choice (the others are played for you)
            if n == at + 1 and "view" in memo:
                memo.update(again=view, after=hidden_cards(session.state, seat))
            elif n >= at + 6:
                raise Quit("test")
            elif n < at and len(legal) > 1:
                memo.update(view=view, hidden=hidden_cards(session.state, seat))
            return None

        player = script(session, rng, plan)
        try:
            session.run()
        except Quit:
            pass
        if "again" not in memo:
            continue
        tried += 1
        assert memo["again"] == memo["view"]
        changed += memo["after"] != memo["hidden"]
        state = replay_record(session.record)
        for s in range(state.players):
            assert state.view(s) == session.state.view(s)
    assert tried >= 15 and changed >= tried * 3 // 4
