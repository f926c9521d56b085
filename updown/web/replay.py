"""``POST /web/replay``: a game record stepped through the engine for the browser's replay viewer.

The browser cannot run the rules, so the server replays the record (``updown.core.records.replay``,
which checks every step) and returns, for each step, the spectator's view and the lines that
explain the new events. Only a *finished* record (it carries a result and its replay reaches the
end of the game) also gets each seat's own view, that is every hand: a running or cut-short record
shows what a spectator could see and nothing more.

The record's chat (public to everyone at the table) comes as plain strings, each line with the
viewer's step it belongs to: the step after its ``moves`` (one viewer step per move), step 0 for a
line whose moment is unknown. The page shows them as text, never as HTML.
"""

from __future__ import annotations

import json
from typing import Any

from updown.core.errors import UpdownError
from updown.core.protocol import State
from updown.core.records import Record, new_state_for, replay
from updown.i18n import translator
from updown.i18n.events import describe as describe_event

MAX_RECORD_BYTES = 2_000_000
MAX_STEPS = 20_000
SPECTATOR_FORMAT = "updown-spectator-view"


class ReplayError(ValueError):
    """A record the viewer cannot open; the message says what is wrong."""


def _seat_only(seat_view: dict[str, Any], public: dict[str, Any]) -> dict[str, Any]:
    """What a seat's view adds to the spectator's (its hand, its own choices)."""
    return {k: v for k, v in seat_view.items() if k != "log" and public.get(k) != v}


def replay_steps(body: bytes, lang: str = "en") -> dict[str, Any]:
    """The viewer's steps for a record given as JSON bytes, their lines in ``lang`` (the table's
    own words, as the terminal and the live table say them); raises :class:`ReplayError`."""
    if len(body) > MAX_RECORD_BYTES:
        raise ReplayError(f"a record may have at most {MAX_RECORD_BYTES // 1_000_000} MB")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise ReplayError("this file is not JSON: open a game record (.json)") from None
    if isinstance(data, dict) and data.get("format") == SPECTATOR_FORMAT:
        raise ReplayError("this is a running game seen by a spectator (only its events): "
                          "a replay needs the record of a finished game")
    if isinstance(data, dict) and isinstance(data.get("steps"), list) and len(data["steps"]) > MAX_STEPS:
        raise ReplayError(f"a record may have at most {MAX_STEPS} steps, this one has {len(data['steps'])}")
    try:
        record = Record.from_dict(data)
        state = new_state_for(record)
    except UpdownError as err:
        raise ReplayError(f"not a game record: {err}") from None
    game = state.game
    names = [str(n)[:40] for n in record.seats]
    players = state.players
    steps: list[dict[str, Any]] = []
    seen = 0
    _ = translator(lang)

    def snap(st: State, seat: int | None, action: int | None, text: str) -> None:
        nonlocal seen
        public = st.view(None)
        log = public.pop("log")
        new = log[seen:]
        seen = len(log)
        lines = []
        for event in new:
            try:
                lines.append(describe_event(game, event, names, _))
            except Exception:  # a line of text never stops the viewer
                lines.append(str(event.get("type", "")))
        seats = [_seat_only(st.view(s), public) for s in range(players)]
        steps.append({"step": text, "seat": seat, "action": action, "view": public, "events": new,
                      "lines": lines, "seats": seats})

    label = [state.chance_label() if state.is_chance() else ""]
    snap(state, None, None, "")

    def on_step(st: State, seat: int | None, action: int) -> None:
        # A chance line of the record may hold several outcomes; each is one step here.
        text = game.action_to_str(action)
        snap(st, seat, action, f"{seat}: {text}" if seat is not None else f"{label[0]}: {text}")
        label[0] = st.chance_label() if st.is_chance() and not st.is_terminal() else ""
    try:
        final = replay(record, on_step=on_step)
    except UpdownError as err:
        raise ReplayError(f"the record does not replay: {err}") from None
    finished = record.result is not None and final.is_terminal()
    if not finished:
        for step in steps:
            del step["seats"]
    # replay() has checked that no line is after the last move; min() keeps the viewer safe anyway.
    chat = [{"seq": line.seq, "name": line.name[:40], "seat": line.seat, "text": line.text, "preset": line.preset,
             "at": line.at, "step": min(line.moves or 0, len(steps) - 1)} for line in record.chat]
    return {"game": game.id, "game_name": game.name, "players": players, "seats": names,
            "options": record.options, "finished": finished, "result": record.result if finished else None,
            "steps": steps, "chat": chat}
