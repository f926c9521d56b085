"""Game records: a JSON document that names every chance outcome and every action in notation.

See ``docs/records.md`` for the format. A record is written by :class:`RecordWriter` while a game
is played, and checked step by step by :func:`replay`.

Records may come from anyone, so reading one is bounded: :data:`MAX_RECORD_CHARS` of text (a file
is read only that far), numbers of at most :data:`MAX_DIGITS` digits, :data:`MAX_STEPS` steps and
:data:`MAX_MOVES` actions and outcomes, and every error is one line of at most
:data:`MAX_MESSAGE` characters, quoting only the start of what was wrong.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from updown.core.errors import RecordError, UpdownError
from updown.core.protocol import State
from updown.core.registry import get_game

FORMAT = "updown-record"
VERSION = 1

MAX_RECORD_CHARS = 2_000_000
"""The longest record read (characters of JSON; a file is read as far as this many bytes and one
more). The longest real match we have seen is about 40,000."""
MAX_DIGITS = 100
"""The longest number in a record (a 128-bit seed has 39 digits)."""
MAX_STEPS = 20_000
"""The most steps a record may have (a long Euchre or Sueca match has about 2,000)."""
MAX_STEP_CHARS = 2_000
"""The longest step (a deal step lists a hand: under 100 characters)."""
MAX_MOVES = 50_000
"""The most actions and chance outcomes a replay applies."""
MAX_SEAT_NAME = 100
MAX_CHAT_LINES = 10_000
"""The most chat lines a record may carry (a server's table sends at most a few hundred)."""
MAX_CHAT_TEXT = 1_000
"""The longest chat line in a record (the server takes lines of at most 200 characters)."""
MAX_MESSAGE = 300
"""The longest error message about a record."""


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` as one line of at most ``limit`` characters (control characters shown as ``?``)."""
    line = "".join(c if c.isprintable() else "?" for c in text[: limit + 1])
    return line if len(line) <= limit else line[: limit - 1] + "…"


def quote(text: str, limit: int = 60) -> str:
    """The start of ``text``, quoted, for an error message."""
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(short)


def show(value: Any, limit: int = 60) -> str:
    """A short repr of any value from a record (a huge number or string is cut)."""
    if isinstance(value, str):
        return quote(value, limit)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**limit:
        return "(a number too long to show)"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise RecordError(f"a number in the record has {len(text)} digits (at most {MAX_DIGITS})")
    return int(text)


@dataclass
class ChatLine:
    """One line of the table's chat in a record: public to everyone at the table, and never part of
    the game (a replay plays the same game with or without it).

    ``moves`` is where in the game it was said: the number of moves (actions and chance outcomes,
    counted one by one even where a step lists several) played by then, so a viewer shows it after
    that many moves; None for a line whose moment is unknown (shown at the start)."""

    text: str
    name: str = ""
    seat: int | None = None
    """The author's seat, None for a spectator."""
    moves: int | None = None
    seq: int | None = None
    """The line's number at its table (1, 2, ...)."""
    at: float | None = None
    """When it was said, in seconds since 1970 (UTC)."""
    preset: str | None = None
    """The key of a preset phrase (``good-game``), which a viewer may show in its reader's language."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.seq is not None:
            out["seq"] = self.seq
        out.update({"name": self.name, "seat": self.seat, "text": self.text})
        if self.preset is not None:
            out["preset"] = self.preset
        if self.moves is not None:
            out["moves"] = self.moves
        if self.at is not None:
            out["at"] = self.at
        return out

    @classmethod
    def from_dict(cls, number: int, data: Any, players: int) -> ChatLine:
        """Chat line ``number`` (from 1) of a record; raises RecordError naming the line and what is wrong."""
        where = f"chat line {number}"
        if not isinstance(data, Mapping):
            raise RecordError(f"{where}: a chat line is an object such as "
                              '{"name": "Kim", "seat": 0, "text": "good luck", "moves": 12}')
        unknown = sorted(set(data) - {"seq", "name", "seat", "text", "preset", "moves", "at"})
        if unknown:
            raise RecordError(f"{where}: unknown key {show(str(unknown[0]), 30)} (a line has seq, name, seat, text, "
                              "preset, moves, at)")
        text = data.get("text")
        if not isinstance(text, str):
            raise RecordError(f"{where}: 'text' must be a string" if "text" in data else f"{where} has no 'text'")
        if len(text) > MAX_CHAT_TEXT:
            raise RecordError(f"{where}: the text has {len(text):,} characters (at most {MAX_CHAT_TEXT:,})")
        name = data.get("name", "")
        if not isinstance(name, str):
            raise RecordError(f"{where}: 'name' must be a string")
        if len(name) > MAX_SEAT_NAME:
            raise RecordError(f"{where}: the name is longer than {MAX_SEAT_NAME} characters")
        seat = data.get("seat")
        if seat is not None and (not _whole(seat) or not 0 <= seat < players):
            raise RecordError(f"{where}: 'seat' is {show(seat)}: a seat is 0 to {players - 1}, or null for a spectator")
        moves = data.get("moves")
        if moves is not None and (not _whole(moves) or moves < 0):
            raise RecordError(f"{where}: 'moves' is {show(moves)}: the number of moves played before it, "
                              "a whole number from 0")
        seq = data.get("seq")
        if seq is not None and (not _whole(seq) or seq < 1):
            raise RecordError(f"{where}: 'seq' is {show(seq)}: the line's number, a whole number from 1")
        at = data.get("at")
        if at is not None and (not isinstance(at, (int, float)) or isinstance(at, bool) or not 0 <= at < 1e11):
            raise RecordError(f"{where}: 'at' is {show(at)}: the time it was said, in seconds since 1970")
        preset = data.get("preset")
        if preset is not None and (not isinstance(preset, str) or len(preset) > 32):
            raise RecordError(f"{where}: 'preset' must be a phrase's key of at most 32 characters")
        return cls(text, name, seat, moves, seq, float(at) if at is not None else None, preset)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass
class Record:
    game: str
    players: int
    options: dict[str, Any]
    seats: list[str]
    steps: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    seed: int | None = None
    chat: list[ChatLine] = field(default_factory=list)
    """The table's chat, in the order it was said (none: no ``chat`` key is written)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "version": VERSION, "game": self.game,
                               "players": self.players, "options": self.options, "seats": self.seats}
        if self.seed is not None:
            out["seed"] = self.seed
        out["steps"] = self.steps
        if self.result is not None:
            out["result"] = self.result
        if self.chat:
            out["chat"] = [line.to_dict() for line in self.chat]
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Record:
        if len(text) > MAX_RECORD_CHARS:
            raise RecordError(f"the record is too long: {len(text):,} characters (at most {MAX_RECORD_CHARS:,})")
        try:
            data = json.loads(text, parse_int=_bounded_int)
        except RecordError:
            raise
        except json.JSONDecodeError as err:
            raise RecordError(f"not JSON: {err.msg} at line {err.lineno}, column {err.colno}") from None
        except RecursionError:
            raise RecordError("not a record: the JSON is nested too deeply") from None
        except ValueError as err:  # e.g. a number too long to convert
            raise RecordError(clip(f"not a record: {err}")) from None
        return cls.from_dict(data)

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Record:
        """Read a record file in bounded memory: at most :data:`MAX_RECORD_CHARS` bytes and one more."""
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_RECORD_CHARS + 1)
        except OSError as err:
            raise RecordError(clip(f"cannot read {os.fspath(path)}: {err.strerror or err}")) from None
        if len(data) > MAX_RECORD_CHARS:
            raise RecordError(f"the record is too long: more than {MAX_RECORD_CHARS:,} bytes")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise RecordError(f"the record is not UTF-8 text (byte {err.start})") from None
        return cls.from_json(text)

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        """A record from its JSON object; raises RecordError (one bounded line) for a bad header."""
        try:
            return cls._from_dict(data)
        except RecordError as err:
            raise RecordError(clip(str(err))) from None

    @classmethod
    def _from_dict(cls, data: Any) -> Record:
        if not isinstance(data, Mapping):
            raise RecordError("a record is a JSON object")
        if data.get("format", FORMAT) != FORMAT:
            raise RecordError(f"format is {show(data.get('format'))}, expected {FORMAT!r}")
        if data.get("version", VERSION) != VERSION:
            raise RecordError(f"version {show(data.get('version'))} is not supported (this reads {VERSION})")
        for key in ("game", "players", "steps"):
            if key not in data:
                raise RecordError(f"the record has no {key!r}")
        game, players, steps = data["game"], data["players"], data["steps"]
        if not isinstance(game, str):
            raise RecordError("'game' must be a game id string")
        if not isinstance(players, int) or isinstance(players, bool):
            raise RecordError("'players' must be a whole number")
        if not 1 <= players <= 64:
            raise RecordError(f"'players' is {players}: no game here seats that many")
        if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
            raise RecordError("'steps' must be a list of strings")
        if len(steps) > MAX_STEPS:
            raise RecordError(f"the record has {len(steps):,} steps (at most {MAX_STEPS:,})")
        options = data.get("options", {})
        if not isinstance(options, Mapping):
            raise RecordError("'options' must be an object")
        seats = data.get("seats") or [f"seat {i}" for i in range(players)]
        if not isinstance(seats, list) or len(seats) != players or not all(isinstance(s, str) for s in seats):
            raise RecordError(f"'seats' must list {players} names")
        if any(len(s) > MAX_SEAT_NAME for s in seats):
            raise RecordError(f"a seat name is longer than {MAX_SEAT_NAME} characters")
        result = data.get("result")
        if result is not None and not isinstance(result, Mapping):
            raise RecordError("'result' must be an object")
        seed = data.get("seed")
        chat = data.get("chat")
        if chat is None:
            chat = []
        if not isinstance(chat, list):
            raise RecordError("'chat' must be a list of lines")
        if len(chat) > MAX_CHAT_LINES:
            raise RecordError(f"the record has {len(chat):,} chat lines (at most {MAX_CHAT_LINES:,})")
        lines = [ChatLine.from_dict(i, line, players) for i, line in enumerate(chat, start=1)]
        return cls(game, players, dict(options), list(seats), list(steps),
                   dict(result) if result is not None else None, seed if isinstance(seed, int) else None, lines)


class RecordWriter:
    """Collects steps as a game is played; consecutive chance outcomes of one label share a step."""

    def __init__(self, record: Record):
        self.record = record
        self._open_label: str | None = None

    def chance(self, label: str, outcome: str) -> None:
        steps = self.record.steps
        if self._open_label == label:
            steps[-1] += " " + outcome
        else:
            steps.append(f"{label}: {outcome}")
            self._open_label = label

    def action(self, seat: int, notation: str) -> None:
        self.record.steps.append(f"{seat}: {notation}")
        self._open_label = None


StepHook = Callable[[State, int | None, int], None]


def new_state_for(record: Record) -> State:
    """The initial state a record starts from; raises RecordError for a bad header."""
    try:
        game = get_game(record.game)
        options = game.Options.from_dict(record.options)
        return game.new_state(record.players, options)
    except RecordError:
        raise
    except UpdownError as err:
        raise RecordError(clip(f"header: {err}")) from None


def _is_number(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also accepts ² and other digits that int() refuses."""
    return text.isascii() and text.isdigit()


def replay(record: Record, on_step: StepHook | None = None) -> State:
    """Re-play a record, checking every step; returns the final state.

    Raises :class:`RecordError` naming the step (numbered from 1) and what is wrong.
    ``on_step(state, seat, action)`` is called after each applied action or outcome.

    The record's chat plays no part in the game: only its lines' moments are checked, once the
    steps are replayed (a line said after more moves than the record has is an error).
    """
    if len(record.steps) > MAX_STEPS:
        raise RecordError(f"the record has {len(record.steps):,} steps (at most {MAX_STEPS:,})")
    state = new_state_for(record)
    game = state.game
    moves = 0
    for number, step in enumerate(record.steps, start=1):
        where = f"step {number} ({quote(step)})"
        if len(step) > MAX_STEP_CHARS:
            raise RecordError(f"{where}: {len(step):,} characters is too long for a step (at most {MAX_STEP_CHARS:,})")
        head, sep, body = step.partition(":")
        head, body = head.strip(), body.strip()
        moves += 1
        if moves > MAX_MOVES:
            raise RecordError(f"{where}: the record has more than {MAX_MOVES:,} moves")
        if not sep or not body:
            raise RecordError(f"{where}: write 'SEAT: action' or 'LABEL: outcome ...'")
        if state.is_terminal():
            raise RecordError(f"{where}: the game is already over")
        try:
            if _is_number(head):
                seat = int(head) if len(head) <= 6 else -1
                if not 0 <= seat < state.players:
                    raise RecordError(f"{where}: there is no seat {seat}")
                if state.is_chance():
                    raise RecordError(f"{where}: a chance step comes first ({state.chance_label()!r})")
                action = game.parse_action(body)
                state.apply(action, seat)
                if on_step:
                    on_step(state, seat, action)
            elif head.lstrip("-").isdigit() or not head[:1].isalpha():
                raise RecordError(f"{where}: {quote(head, 20)} is not a seat (seats are 0 to {state.players - 1})")
            else:
                for index, token in enumerate(body.split()):
                    if index:
                        moves += 1
                        if moves > MAX_MOVES:
                            raise RecordError(f"{where}: the record has more than {MAX_MOVES:,} moves")
                    if not state.is_chance():
                        actors = ", ".join(map(str, state.actors())) or "nobody"
                        if index == 0:
                            raise RecordError(
                                f"{where}: no chance step is due, and {quote(head, 30)} is not a seat; seats {actors} must act"
                            )
                        raise RecordError(f"{where}: {quote(token, 20)} is one outcome too many; seats {actors} must act")
                    if state.chance_label() != head:
                        raise RecordError(
                            f"{where}: expected the chance step {state.chance_label()!r}, not {quote(head, 30)}"
                        )
                    action = game.parse_action(token)
                    state.apply(action)
                    if on_step:
                        on_step(state, None, action)
        except RecordError as err:
            raise RecordError(clip(str(err))) from None
        except ValueError as err:  # UpdownError, or a number too long to convert
            raise RecordError(clip(f"{where}: {err}")) from None
    for number, line in enumerate(record.chat, start=1):
        if line.moves is not None and line.moves > moves:
            raise RecordError(f"chat line {number} is at move {line.moves:,}, but the record has only {moves:,} moves")
    if record.result is not None:
        if not state.is_terminal():
            raise RecordError("the record claims a result, but its steps end before the game is over")
        got = state.result().to_dict()
        if {k: got.get(k) for k in record.result} != dict(record.result):
            raise RecordError(clip(f"the record's result {_short_json(record.result)} differs from the replay's "
                                   f"{_short_json(got)}"))
    return state


def _short_json(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = "(not JSON)"
    return text if len(text) <= 120 else text[:119] + "…"
