"""A running table in this process: its state rebuilt from the stored steps, the frames each seat
has been sent, and the loop that plays chance, bots and stand-ins.

The rules are the game's; this module drives the protocol as ``core/driver.py`` does and knows no
game. Every step is stored before it is acknowledged or broadcast.

What a seat is sent is built from ``state.view(seat)`` alone (``view(None)`` for spectators). A
seat's messages are numbered by its *frames*: a frame is counted at every step after which that
seat's view differs, so the numbers themselves say nothing about steps the seat cannot see.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from updown.bots import bot_names, make_bot
from updown.core.errors import UpdownError
from updown.core.protocol import Game, State
from updown.core.records import ChatLine, Record, RecordWriter
from updown.core.registry import get_game
from updown.i18n.events import describe as describe_event
from updown.server.botpool import BOT, BotPool, decide
from updown.server.metrics import ACTIONS, BOT_SECONDS, WRITE_SECONDS
from updown.server.models import Seat, Table
from updown.server.outage import DATABASE, ServiceHealth, first_line, is_outage, retried
from updown.server.reasons import cached_translator, why_not
from updown.server.store import Actor, ChatRow, Conflict, Finish, Posting, Store, StepRow, Unbalanced, Unheld

log = logging.getLogger("updown.server")

SPECTATOR = -1
"""The frames key of spectators (``view(None)``)."""
BOT_TIMEOUT = 120.0
"""Seconds a bot's decision may run in the pool before its worker is stopped (``hard`` takes one)."""
BUSY = "the server is busy: its database cannot be reached; nothing was stored, send the action again " \
       "(with the same id) in a moment"
"""The message of the ``busy`` error: an action refused, not acknowledged, while the database is away."""
SEND_PATIENCE = 10.0
"""Seconds a broadcast waits for one socket whose client reads nothing before closing it (:meth:`Live.broadcast`)."""
STALLED = 4008
"""The close code of a socket given up for reading nothing (its page connects again, as after any drop)."""
LINES_KEPT = 20_000
"""At most this many event lines a language kept by a table (a long match's log is some thousands)."""
CHAT_MISSING = "the chat could not be read: the database cannot be reached; ask again in a moment"
"""Said by a record given without its chat (the game in it is whole)."""
_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS


def encode(message: Any) -> str:
    """A message as sent: compact JSON on one line, non-ASCII text as UTF-8 (orjson: about 1.7 us a
    UP&DOWN frame against 13 for the standard library's encoder). The values are those of
    ``json.dumps`` (dicts with integer keys get string keys, as there); a value JSON has no form
    for is a ``TypeError`` naming its type."""
    return orjson.dumps(message, option=_ORJSON_OPTIONS).decode()


class ActionError(Exception):
    """A client's request that cannot be carried out; the message is safe to send to that client."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Unseated(ActionError):
    """A person's action refused where its step was to be stored: the session had ended, or the seat
    was no longer the account's. Nothing was stored; the socket is closed."""

    def __init__(self, signed_out: bool):
        super().__init__("not-your-seat", "this seat is no longer yours (you left, were signed out, or it was "
                                          "freed); reconnect to watch")
        self.signed_out = signed_out


async def _nothing(_live: Live) -> None:
    return None


def awaiting(task: asyncio.Task[Any]) -> str:
    """Where a suspended task waits: its chain of awaits, outermost first (``_drive:787 >
    _decide:812 > ...``), for a log line."""
    where: list[str] = []
    step: Any = task.get_coro()
    while step is not None and len(where) < 16:
        frame = getattr(step, "cr_frame", None) or getattr(step, "gi_frame", None)
        if frame is None:
            where.append(type(step).__qualname__)
            break
        where.append(f"{frame.f_code.co_qualname}:{frame.f_lineno}")
        step = getattr(step, "cr_await", None) or getattr(step, "gi_yieldfrom", None)
    return " > ".join(where) or "nothing"


def standin_bot(game: Game[Any]) -> str:
    """The bot that plays for an away or departed person."""
    names = bot_names(game.id)
    for name in ("normal", "greedy"):
        if name in names:
            return name
    return "random"


@dataclass
class SeatInfo:
    kind: str  # open, person, bot
    account_id: int | None
    bot: str | None
    name: str
    left: bool = False
    away: bool = False
    connections: int = 0
    seen_at: float | None = None
    away_since: float | None = None

    @classmethod
    def of(cls, row: Seat) -> SeatInfo:
        return cls(row.kind, row.account_id, row.bot, row.name, row.left, row.away,
                   seen_at=row.seen_at, away_since=row.away_since)

    def held_by(self, account_id: int | None) -> bool:
        """True while ``account_id`` is this seat's person and has not left it."""
        return account_id is not None and self.kind == "person" and self.account_id == account_id and not self.left


@dataclass
class SeatFrames:
    """What one seat (or the spectators) has been shown: the visible-log length at each frame."""

    loglens: list[int] = field(default_factory=lambda: [0])
    last: tuple[dict[str, Any], list[int]] | None = None
    """The view (without its log) and legal actions of the last frame, compared with the next."""


class Live:
    def __init__(self, row: Table, seats: list[Seat], store: Store, *, bot_delay: float,
                 notify: Callable[[Live], Awaitable[None]]):
        self.id = row.id
        self.game = get_game(row.game)
        self.players = row.players
        self.options = self.game.Options.from_dict(json.loads(row.options))
        self.seed = row.seed
        self.timer = row.timer
        self.grace = row.grace
        self.rated = row.rated
        self.private = row.private
        self.status = row.status
        self.result = json.loads(row.result) if row.result else None
        self.created_at = row.created_at
        self.seats = [SeatInfo.of(s) for s in seats]
        self.store = store
        self.bot_delay = bot_delay
        self.notify = notify
        self.state: State = self.game.new_state(self.players, self.options)
        self.steps: list[StepRow] = []
        self.published = 0
        """How many of :attr:`steps` went out in a note to the other processes (:meth:`unpublished`)."""
        self.client_ids: dict[tuple[int, str], int] = {}
        self.frames: dict[int, SeatFrames] = {k: SeatFrames() for k in [*range(self.players), SPECTATOR]}
        self.lock = asyncio.Lock()
        self.conns: set[Any] = set()
        self.turn_since: dict[int, float] = {}
        self.driver: asyncio.Task[None] | None = None
        self.progress_at = time.time()
        """When this table last applied a step or started its driving loop (the hub's clock
        restarts a loop that goes :data:`updown.server.hub.STALL` seconds without one)."""
        self._late: asyncio.Task[None] | None = None
        """The broadcast of steps a catch-up read from the database (:meth:`_broadcast_soon`)."""
        self._late_again = False
        self.owned = False
        self.leave_tried: set[int] = set()
        self._spare: tuple[int, State] | None = None
        """A second copy of :attr:`state` and the number of steps it has had: the next action is
        tried on it instead of on a fresh clone (see :meth:`_trial`)."""
        self._table_message: tuple[tuple[Any, ...], str] | None = None
        """The last ``table`` message and what it was built from (:meth:`table_message`)."""
        self._lines: dict[str, dict[int, tuple[dict[str, Any], str]]] = {}
        """Each language's lines of the events described so far (:meth:`describe`)."""
        self._lines_names: list[str] = []
        self._views: dict[int, tuple[int, dict[str, Any], list[Any]]] = {}
        """Each seat's view (without its log) and log at the step it was last built."""
        self.public_events: list[int] = []
        """The length of the spectators' log after each number of steps (0, 1, ...): where a chat
        line said then stands among the events a spectator saw."""
        self.shared = False
        """True when other server processes may store steps of this table too (Redis mode)."""
        self.unseated: Callable[[Any], None] = lambda conn: None
        """Called with a socket whose seat is no longer its account's (the hub closes it)."""
        self.owned_since = 0.0
        """When this process began to drive the table: no absence is counted from before it."""
        self.health = ServiceHealth()
        """The hub's: whether the database is reachable (a commit is retried, or refused at once)."""
        self.drive_failed_at = 0.0
        """When the driving loop last stopped on a fault; the hub's watchdog restarts it."""
        self.pool: BotPool | None = None
        """Where bots that search think (``botpool.py``), in this table's turn; None: in this process."""
        self.reread: Callable[[Live], Awaitable[None]] = _nothing
        """Reads the table's status and seats again from the database (the hub's ``refresh``)."""
        self.heard: Callable[[], bool] = lambda: False
        """True while the other processes' notes about this table reach this process (Redis has
        confirmed its channel on the listener's live subscription: ``Bus.hears``). Then a step
        stored elsewhere is already applied here or in a note on its way, whose step number makes
        this process's next commit a conflict (and a catch-up) if it comes too late: the driving
        loop need not read the steps before it looks for work (:meth:`kick`)."""
        self.wake = 0.0
        """When the hub's clock must next look at this table (move timers, absence, a stopped
        driver): 0, at its next turn; ``inf``, not until something changes (:meth:`stir`)."""
        self.stirred: Callable[[Live], None] = lambda live: None
        """Told when :meth:`stir` is called (the hub queues the table for its clock's next turn)."""
        self.used_at = time.time()
        """When the hub last handed the table out or a socket of it closed (``Hub.unload_idle``)."""
        self.unloaded = False
        """Dropped from the hub's memory (``Hub.unload_idle``): whoever still holds this object
        holds a copy that hears nothing more; the hub's ``live`` reads the table afresh."""
        for k in self.frames:
            self._frame_check(k)

    def stir(self) -> None:
        """Something the hub's clock judges by changed (a step, a seat, the status, the owner, the
        driving loop ended): the clock looks at the table at its next turn, not only at its
        :attr:`wake`. Every change of what the clock reads calls this; the clock itself looks at a
        table only then and at the times it said (a move timer, a grace) instead of at every table."""
        self.wake = 0.0
        self.stirred(self)

    # -- rebuilding and applying ----------------------------------------------------------------
    def _apply_row(self, state: State, row: StepRow) -> None:
        action = self.game.parse_action(row.notation)
        state.apply(action, row.seat)

    def absorb(self, rows: list[StepRow]) -> bool:
        """Apply stored steps this process has not applied yet (rebuild or catch-up)."""
        changed = False
        for row in rows:
            if row.n != len(self.steps) + 1:
                continue
            told = self.published == len(self.steps)
            self._apply_row(self.state, row)
            self._stepped(row)
            if told:  # stored elsewhere, so the others have it: no note of ours need carry it
                self.published = len(self.steps)
            changed = True
        return changed

    def unpublished(self) -> list[StepRow]:
        """The steps since the last note to the other processes (they ride in the next one), and
        from now on none: the note carries them so that the others need not read them."""
        rows = self.steps[self.published:]
        self.published = len(self.steps)
        return rows

    def _stepped(self, row: StepRow) -> None:
        self.steps.append(row)
        if row.client_id is not None and row.seat is not None:
            self.client_ids[(row.seat, row.client_id)] = row.n
        for k in self.frames:
            self._frame_check(k)
        now = self.progress_at = time.time()
        actors = set(self.state.actors()) if not self.state.is_terminal() else set()
        self.turn_since = {s: self.turn_since.get(s, now) for s in actors}
        self.stir()  # new move times, maybe a bot's turn or the end

    def _frame_check(self, key: int) -> None:
        view = self.state.view(None if key == SPECTATOR else key)
        logs = view.pop("log")
        loglen = len(logs)
        self._views[key] = (len(self.steps), view, logs)
        if key == SPECTATOR:
            del self.public_events[len(self.steps):]
            self.public_events.append(loglen)
        legal = self.state.legal_actions(key) if key != SPECTATOR and not self.state.is_terminal() else []
        f = self.frames[key]
        # Compared as values (a view is built fresh each time and never changed afterwards), not as
        # JSON text: encoding five views at every step to compare them cost more than the views.
        if f.last is None or loglen != f.loglens[-1] or f.last[0] != view or f.last[1] != legal:
            if f.last is not None:
                f.loglens.append(loglen)
            else:
                f.loglens[-1] = loglen
            f.last = (view, legal)

    async def catch_up(self, force: bool = False) -> bool:
        """Apply steps another process stored (several processes only; alone, every step is ours).

        ``force``: read them alone too, after a commit that failed in a way that leaves open
        whether it was stored (the connection dropped before the answer): the retry then meets its
        own step, and takes it from the database instead of storing it twice."""
        if not self.shared and not force:
            return False
        rows = await asyncio.to_thread(self.store.steps, self.id, len(self.steps))
        changed = self.absorb(rows)
        if changed:
            self._broadcast_soon()
        if self.state.is_terminal() and self.status != "finished":
            row = await asyncio.to_thread(self.store.table, self.id)
            if row is not None:
                self.status = row[0].status
                self.result = json.loads(row[0].result) if row[0].result else None
                self.stir()
        return changed

    def _broadcast_soon(self) -> None:
        """Steps a catch-up read from the database reach this process's sockets, whichever path
        read them. Some paths go on to a broadcast of their own (a note, an accepted action), but
        not all: an action refused after its conflict's catch-up, a driving loop that then finds
        nothing to do, a record's read. Their sockets would wait for a frame that only the next step
        brings, and if that step is theirs to play (the turn the missed steps gave them), for ever;
        a note carrying those steps later finds them applied and broadcasts nothing. So the catch-up
        itself schedules a broadcast, run once the lock's current holder is done (an accepted
        action's ack goes first). A broadcast sends each socket only what it has not had, so one
        that finds nothing new costs almost nothing."""
        self._late_again = True
        if self._late is not None and not self._late.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._late = loop.create_task(self._broadcast_late())

    async def _broadcast_late(self) -> None:
        while self._late_again:
            self._late_again = False
            async with self.lock:  # after the catch-up's caller (its own broadcast, if any, comes first)
                pass
            await self.broadcast()

    # -- what clients see -----------------------------------------------------------------------
    def frame_no(self, key: int) -> int:
        return len(self.frames[key].loglens) - 1

    def names(self) -> list[str]:
        return [s.name or f"seat {i}" for i, s in enumerate(self.seats)]

    def describe(self, events: list[dict[str, Any]], lang: str = "en") -> list[str]:
        """Each event explained in one line, in ``lang`` (the message catalogue of updown.i18n).

        A line depends on the event, the seats' names and the language only, and most events go to
        every seat in the same (read-only, shared) object: each is described once a language and
        kept, by the event's identity, until a name changes."""
        names = self.names()
        if names != self._lines_names:
            self._lines.clear()
            self._lines_names = names
        _ = cached_translator(lang)
        kept = self._lines.get(_.lang)
        if kept is None:
            kept = self._lines[_.lang] = {}
        out = []
        for e in events:
            hit = kept.get(id(e))  # kept with its event, so no other object can have that id meanwhile
            if hit is not None:
                out.append(hit[1])
                continue
            try:
                line = describe_event(self.game, e, names, _)
            except Exception:  # a line of text must never stop the table
                line = str(e.get("type", ""))
            if len(kept) < LINES_KEPT:
                kept[id(e)] = (e, line)
            out.append(line)
        return out

    def legal(self, key: int) -> list[dict[str, Any]]:
        if key == SPECTATOR or self.state.is_terminal() or key not in self.state.actors():
            return []
        return [{"id": a, "notation": self.game.action_to_str(a)} for a in self.state.legal_actions(key)]

    def can_leave(self, key: int) -> bool:
        return key != SPECTATOR and not self.state.is_terminal() and not self.seats[key].left

    def leave_costs(self, key: int) -> bool:
        return key != SPECTATOR and not self.state.is_terminal() and self.state.leave_action(key) is not None

    def frame(self, key: int, since: int | None, lang: str = "en") -> dict[str, Any]:
        """A snapshot (``since`` None or unknown) or the frames after ``since``, coalesced."""
        at, view, logs = self._views[key]
        if at != len(self.steps):  # not cached for this step (cannot happen once built; kept safe)
            view = self.state.view(None if key == SPECTATOR else key)
            logs = view.pop("log")
        n = self.frame_no(key)
        extra = {"legal": self.legal(key), "clock": self.clock(), "leave_costs": self.leave_costs(key)}
        extra["why"] = why_not(self.game, view, extra["legal"], lang)  # a reason for each greyed card
        if since is None or not 0 <= since <= n:
            return {"type": "snapshot", "n": n, "view": {**view, "log": logs}, "lines": self.describe(logs, lang),
                    **extra}
        start = self.frames[key].loglens[since]
        events = logs[start:]
        return {"type": "frame", "n": n, "from": since, "view": view, "events": events,
                "lines": self.describe(events, lang), **extra}

    def clock(self) -> dict[str, float]:
        """Seconds left for each person who must act, when the table has a move timer."""
        if self.timer is None or self.status != "running":
            return {}
        now = time.time()
        return {str(s): max(0.0, round(self.timer - (now - t0), 1)) for s, t0 in self.turn_since.items()
                if self.seats[s].kind == "person" and not self._auto(s)}

    def public(self) -> dict[str, Any]:
        """The table as anyone may see it: seats, who is connected, status, result."""
        return {
            "id": self.id, "game": self.game.id, "game_name": self.game.name, "players": self.players,
            "options": self.options.to_dict(), "timer": self.timer, "grace": self.grace, "rated": self.rated,
            "private": self.private, "status": self.status, "result": self.result,
            "leave_cost": self.state.leave_cost(0) if not self.state.is_terminal() else 0,
            "seats": [{"seat": i, "kind": s.kind, "name": s.name, "bot": s.bot if s.kind == "bot" else None,
                       "connected": s.connections > 0, "away": s.away, "left": s.left,
                       "played_by_bot": s.kind == "bot" or s.left or s.away}
                      for i, s in enumerate(self.seats)],
        }

    def table_message(self) -> str:
        """The ``table`` message (:meth:`public`) as sent, encoded again only when something in it
        changed: at most steps only the leave cost could, and a broadcast follows every step."""
        seats = [(s.kind, s.name, s.bot, s.connections > 0, s.away, s.left) for s in self.seats]
        result = None if self.result is None else json.dumps(self.result, sort_keys=True)  # a copy: never stale
        sig = (self.status, result, self.timer, self.grace, self.rated, self.private, self.options,
               self.state.leave_cost(0) if not self.state.is_terminal() else 0, seats)
        kept = self._table_message
        if kept is not None and kept[0] == sig:
            return kept[1]
        text = encode({"type": "table", "table": self.public()})
        self._table_message = (sig, text)
        return text

    async def chat_for_record(self) -> tuple[list[ChatRow], str | None]:
        """The table's chat for its record, read off the event loop (a slow database stalls no other
        table), and why it is missing (the database is away) or None: :meth:`record`'s two last
        arguments."""
        try:
            return await asyncio.to_thread(self.store.chat, self.id), None
        except Exception as err:
            if not is_outage(err):
                raise
            self.health.failed(DATABASE, err)
            return [], CHAT_MISSING

    def record(self, full: bool, chat: list[ChatRow] | None = None, missing: str | None = None) -> dict[str, Any]:
        """The game record (``full``: a finished game) or what a spectator may see of it, each with
        the table's chat (``chat``: its stored lines; None reads them from the store, here).

        Chat is public to everyone at the table. A finished game's record places each line by the
        moves played when it was said (``moves``); a running game's spectator view places it by the
        number of events a spectator had seen then (``event``), never by the step count, which would
        tell when hidden steps happened.

        The routes pass what :meth:`chat_for_record` read off the event loop; without ``chat`` this
        reads the store in the caller's thread (one query). While the database is away the answer
        comes without its chat and says so (``missing``, sent as ``chat_missing``): the game itself
        is all in memory."""
        if chat is None:
            try:
                chat = self.store.chat(self.id)
            except Exception as err:
                if not is_outage(err):
                    raise
                self.health.failed(DATABASE, err)
                chat, missing = [], CHAT_MISSING
        if full:
            rec = Record(self.game.id, self.players, self.options.to_dict(), self.names())
            writer = RecordWriter(rec)
            for row in self.steps:
                if row.seat is None:
                    writer.chance(row.label or "", row.notation)
                else:
                    writer.action(row.seat, row.notation)
            if self.state.is_terminal():
                rec.result = self.state.result().to_dict()
            rec.chat = [ChatLine(c.text, c.name, self._chat_seat(c), min(max(c.n, 0), len(self.steps)), c.seq,
                                 round(c.at, 3), c.preset) for c in chat]
            out = rec.to_dict()
            if missing:
                out["chat_missing"] = missing
            return out
        view = self.state.view(None)
        lines = []
        for c in chat:
            line = ChatLine(c.text, c.name, self._chat_seat(c), None, c.seq, round(c.at, 3), c.preset).to_dict()
            line["event"] = self.public_events[min(max(c.n, 0), len(self.public_events) - 1)]
            lines.append(line)
        out = {"format": "updown-spectator-view", "game": self.game.id, "players": self.players,
               "options": self.options.to_dict(), "seats": self.names(), "finished": False,
               "events": view["log"], "lines": self.describe(view["log"]), "chat": lines}
        if missing:
            out["chat_missing"] = missing
        return out

    def _chat_seat(self, c: ChatRow) -> int | None:
        return c.seat if c.seat is not None and 0 <= c.seat < self.players else None

    async def broadcast(self) -> None:
        """Send every connection the frames it has not had, and the table's public state.

        A connection's frame is built and sent under its own lock, so two broadcasts never send
        one client overlapping frames, and each frame starts where the client's last one ended.

        The connections are sent to one after the other, each send awaited (a send that the
        socket's buffer takes returns at once). A client that reads nothing (a phone asleep with
        the page open) fills its socket's buffers; its next send then waits until it reads, and
        would keep every socket after it waiting too: one that has waited :data:`SEND_PATIENCE`
        seconds is given up (closed with :data:`STALLED`; its page connects again and gets a
        snapshot) and the others get theirs. One timer for the whole broadcast, not one a send."""
        dead: list[Any] = []
        payloads: dict[tuple[int, int, int, str], str] = {}
        table = self.table_message()
        conns = list(self.conns)
        loop = asyncio.get_running_loop()
        at, since = 0, 0.0
        while at < len(conns):
            try:
                async with asyncio.timeout(SEND_PATIENCE):
                    while at < len(conns):
                        since = loop.time()
                        await self._send_frames(conns[at], table, payloads, dead)
                        at += 1
            except TimeoutError:
                if loop.time() - since >= SEND_PATIENCE:  # (else the broadcast as a whole took long: again)
                    conn = conns[at]
                    at += 1
                    log.warning("table %s: a socket read nothing for %.0f s: closed", self.id, SEND_PATIENCE)
                    self.conns.discard(conn)
                    loop.create_task(conn.close(STALLED, "your connection stopped reading; reconnect"))
        for conn in dead:
            self.conns.discard(conn)

    async def _send_frames(self, conn: Any, table: str, payloads: dict[tuple[int, int, int, str], str],
                           dead: list[Any]) -> None:
        """One connection's part of :meth:`broadcast`."""
        if conn not in self.conns:
            # Taken off while this loop awaited another socket's send (a leave keeps its own
            # socket off the table to answer it first, then closes it): no frame, and not
            # closed here before that answer.
            return
        key = conn.key
        if key != SPECTATOR and not self.seats[key].held_by(conn.account_id):
            # The seat changed hands (freed, left, taken by another): never one more private
            # frame to this socket. The hub closes it; drop it here in any case.
            self.conns.discard(conn)
            self.unseated(conn)
            return
        try:
            async with conn.send_lock:
                n = self.frame_no(key)
                if n != conn.last_n:
                    cache_key = (key, conn.last_n, n, conn.lang)
                    if cache_key not in payloads:
                        payloads[cache_key] = encode(self.frame(key, conn.last_n, conn.lang))
                    await conn.websocket.send_text(payloads[cache_key])
                    conn.last_n = n
                if table != conn.last_table:  # the table's public state, when it changed
                    await conn.websocket.send_text(table)
                    conn.last_table = table
        except Exception:
            dead.append(conn)

    # -- acting ---------------------------------------------------------------------------------
    def _auto(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.kind == "bot" or s.left or s.away

    def _bot_for(self, seat: int) -> str:
        s = self.seats[seat]
        return s.bot if s.kind == "bot" and s.bot else standin_bot(self.game)

    def _chance_rng(self, n: int) -> random.Random:
        # Each chance step has its own generator from the table's secret seed and the step number,
        # so a table rebuilt after a crash draws exactly what it would have drawn.
        return random.Random(f"{self.seed}:chance:{n}")

    def _finish(self, state: State) -> Finish | None:
        if not state.is_terminal():
            return None
        result = state.result()
        return Finish(result.to_dict(), {}, {}, f"table:{self.id}:end")

    async def submit(self, seat: int, action: int, client_id: str | None, by: str, actor: Actor | None = None) -> int:
        """Check, store, then apply one seat's action; returns its step number.

        ``actor``: a person's session and account, checked in the transaction that stores the step
        (:class:`Unseated` if it no longer holds the seat). The caller acknowledges and then calls
        :attr:`notify` (broadcast, bus, driver)."""
        async with self.lock:
            judged_again = False
            for _attempt in range(5):
                if client_id is not None and (seat, client_id) in self.client_ids:
                    return self.client_ids[(seat, client_id)]
                try:
                    self._check(seat, action)
                except ActionError:
                    if not self.shared or judged_again:
                        raise
                    # Judged on this process's copy, which may be behind the database: another
                    # process stored steps, or started the table, and its note has not come yet.
                    # Refused only once judged again against the stored state (two reads, on a
                    # refusal only: an accepted action needs none, its commit finds a table behind).
                    judged_again = True
                    await self.reread(self)
                    await self.catch_up()
                    continue
                row = StepRow(len(self.steps) + 1, seat, None, self.game.action_to_str(action), client_id, by,
                              time.time())
                cost = self.state.leave_cost(seat) if by == "leave" else 0
                trial = self._trial()
                trial.apply(action, seat)
                try:
                    finish: Finish | Posting | None = await self.settle(trial)
                    if finish is None and cost and self.charger is not None:
                        # A paid leave is charged as it happens, with its step; the settlement at the
                        # end takes off what was charged already.
                        finish = await asyncio.to_thread(self.charger, self, seat, cost)
                except Exception as err:  # ratings or accounts could not be read: nothing is stored
                    if not is_outage(err):
                        raise
                    self.health.failed(DATABASE, err)
                    raise ActionError("busy", BUSY) from None
                try:
                    await self._commit([row], finish, actor)
                except Conflict:
                    await self._catch_up_after_conflict()
                    continue
                except Unheld as err:
                    raise Unseated(err.signed_out) from None
                except Unbalanced as err:
                    log.error("%s", err)
                    raise ActionError("unbalanced", "the ledger entries of this step do not balance; "
                                                    "nothing was stored (a server fault, logged)") from None
                except Exception as err:  # the database failed: nothing is acknowledged or applied
                    if is_outage(err):
                        raise ActionError("busy", BUSY) from None
                    log.error("table %s: step %d not stored: %s", self.id, row.n, first_line(err))
                    raise ActionError("not-stored", "the action could not be stored; send it again "
                                                    "(with the same id)") from None
                former, self.state = self.state, trial
                self._stepped(row)
                self._keep_spare(former, action, seat)
                ACTIONS.labels(by).inc()
                if isinstance(finish, Finish):
                    self.status, self.result = "finished", finish.result
                    log.info("table %s finished: placings %s", self.id, finish.result.get("placings"))
                return row.n
            raise ActionError("busy", "the table is busy; send the action again")

    def _trial(self) -> State:
        """A copy of :attr:`state` to try the next action on: the spare when it is at the same step
        (taken: it will be changed), else a clone. Cloning copies the whole game (its log grows
        through the match) and was the step's largest single cost after the views."""
        spare, self._spare = self._spare, None
        if spare is not None and spare[0] == len(self.steps):
            return spare[1]
        return self.state.clone()

    def _keep_spare(self, former: State, action: int, seat: int) -> None:
        """Bring the state an action was tried beside up to the same step, as the next spare.

        ``former`` is the state before the stored step: applying the same action to it gives the
        same state as the trial that became :attr:`state` (the engines are deterministic: a table
        is rebuilt from its steps the same way), for a fraction of a clone. Nothing else keeps it:
        it was :attr:`state` until this step, and views, frames and bots take copies, not it."""
        try:
            former.apply(action, seat)
        except Exception:  # never expected (the same action on the same position); a clone then
            log.exception("table %s: the spare state did not take step %d", self.id, len(self.steps))
            return
        self._spare = (len(self.steps), former)

    async def _commit(self, rows: list[StepRow], finish: Finish | Posting | None, actor: Actor | None = None) -> None:
        """Store steps, retried with backoff while the database is away (a few seconds at most)."""
        async def once() -> None:
            with WRITE_SECONDS.time():
                await self.store.commit_async(self.id, rows, finish, actor)
        await retried(once, self.health, DATABASE)

    async def _catch_up_after_conflict(self) -> None:
        """A step number or client id was taken: another process stored it, or an earlier try of
        ours whose answer was lost. Either way the stored steps are the truth."""
        await retried(lambda: self.catch_up(force=True), self.health, DATABASE)

    def due(self) -> bool:
        """Whether the driving loop has work now: a chance step, or a bot or stand-in to act."""
        if self.status != "running" or self.state.is_terminal():
            return False
        return self.state.is_chance() or any(self._auto(s) for s in self.state.actors())

    def _check(self, seat: int, action: int) -> None:
        if self.status in ("closed", "aborted"):
            raise ActionError("closed", "this table was closed by the site's host" if self.status == "closed"
                              else "this table ended without a result")
        if self.status != "running" or self.state.is_terminal():
            raise ActionError("over" if self.state.is_terminal() else "not-started",
                              "the game is over" if self.state.is_terminal() else "the game has not started")
        leaving = action == self.state.leave_action(seat)
        if not leaving:
            if seat not in self.state.actors():
                raise ActionError("not-your-turn", "it is not your turn")
            if action not in self.state.legal_actions(seat):
                legal = ", ".join(self.game.action_to_str(a) for a in self.state.legal_actions(seat))
                raise ActionError("illegal", f"{self.game.action_name(action)} is not legal now (legal: {legal})")

    async def settle(self, state: State) -> Finish | None:
        """The result, ledger postings and rating updates if ``state`` ends the game."""
        finish = self._finish(state)
        if finish is None or self.settler is None:
            return finish
        return await asyncio.to_thread(self.settler, self, state, finish)

    settler: Callable[[Live, State, Finish], Finish] | None = None
    charger: Callable[[Live, int, int], Posting | None] | None = None
    """Builds the ledger posting of a seat's paid leave (the hub's; runs in a worker thread)."""

    async def chance_steps(self) -> None:
        """Draw and store every chance outcome due now, in one transaction."""
        trial = self.state.clone()
        rows: list[StepRow] = []
        n = len(self.steps)
        while trial.is_chance() and len(rows) < 500:
            label = trial.chance_label()
            action = trial.sample_chance(self._chance_rng(n + len(rows) + 1))
            trial.apply(action)
            rows.append(StepRow(n + len(rows) + 1, None, label, self.game.action_to_str(action), None, "chance",
                                time.time()))
        finish = await self.settle(trial)
        try:
            await self._commit(rows, finish)
        except Conflict:
            await self._catch_up_after_conflict()
            return
        ACTIONS.labels("chance").inc(len(rows))
        for row in rows:
            self._apply_row(self.state, row)
            self._stepped(row)
        if finish is not None:
            self.status, self.result = "finished", finish.result
            log.info("table %s finished: placings %s", self.id, finish.result.get("placings"))
        await self.notify(self)

    def kick(self, read_first: bool = True, *, even_if_heard: bool = False) -> None:
        """Make sure the driving loop runs (only where this process owns the table).

        ``read_first``: with several processes, the loop first reads the steps others stored, unless
        the table's notes are heard here (:attr:`heard`: what others stored is applied or on its way,
        and a step on its way makes the loop's commit a conflict, after which it catches up); with
        ``even_if_heard`` it reads anyway (a table just taken over: its last driver may have died
        between a commit and its note, and a note never sent is not on its way). False
        right after a step of this process's own (the table is as stored then, but for a step another
        process stores meanwhile, and that one makes the next commit a conflict, after which the
        table catches up): no read an action, and no loop at all when it has nothing to do (a
        person's turn next: most steps), where it would only take the lock, see that and end.
        Whatever makes a bot or chance due later (a step, an away or departed seat, a seat handed
        to a bot) kicks again, and the hub's watchdog starts the loop of a table that is due and
        has none."""
        if not read_first and not self.due():
            return
        if self.owned and self.status == "running" and (self.driver is None or self.driver.done()):
            read = read_first and (even_if_heard or not self.heard())
            self.progress_at = time.time()
            self.driver = asyncio.get_running_loop().create_task(self._drive(read))
            # However it ends (waiting for people, a fault, cancelled), the clock's watchdog looks.
            self.driver.add_done_callback(lambda _task: self.stir())

    async def _drive(self, read_first: bool = True) -> None:
        read = read_first
        try:
            while self.owned and self.status == "running":
                async with self.lock:
                    if read:
                        await self.catch_up()
                    # Then only after a conflict or refusal (``submit``, ``chance_steps`` catch up themselves).
                    read = False
                    if self.state.is_terminal() or self.status != "running":
                        return
                    if self.state.is_chance():
                        await self.chance_steps()
                        continue
                    due = [s for s in self.state.actors() if self._auto(s)]
                    if not due:
                        return  # waiting for people; the clock task watches their time
                    seat = due[0]
                    leave = None
                    if self.seats[seat].left and seat not in self.leave_tried and self._leave_pending(seat):
                        leave = self.state.leave_action(seat)
                    view = self.state.view(seat)
                    legal = self.state.legal_actions(seat)
                    at = len(self.steps)
                if leave is not None:
                    # A departed seat's paid leave (the engine's), applied once at its decision.
                    self.leave_tried.add(seat)
                    try:
                        await self.submit(seat, leave, None, "leave")
                        await self.notify(self)
                    except (ActionError, UpdownError):
                        pass
                    continue
                if self.bot_delay:
                    await asyncio.sleep(self.bot_delay)
                with BOT_SECONDS.time():
                    action = await self._decide(self._bot_for(seat), seat, f"{self.seed}:bot:{seat}:{at}", view, legal)
                by = "bot" if self.seats[seat].kind == "bot" else "stand-in"
                try:
                    await self.submit(seat, action, None, by)
                    await self.notify(self)
                except ActionError as err:
                    if err.code == "unbalanced":
                        return  # refused loudly (logged); playing on would hit it again
                    if err.code in ("busy", "not-stored"):
                        self.drive_failed_at = time.time()
                        return  # the database is away: the hub's watchdog starts the loop again
                    continue  # the position moved on meanwhile (another seat acted); think again
        except asyncio.CancelledError:
            raise
        except Exception as err:
            self.drive_failed_at = time.time()
            if is_outage(err):  # told once by the service's health; the watchdog restarts the loop
                self.health.failed(DATABASE, err)
            else:
                log.exception("table %s: the driving loop stopped (restarted by the watchdog)", self.id)

    async def _decide(self, name: str, seat: int, seed: str, view: dict[str, Any], legal: list[int]) -> int:
        """The bot's action from the seat's view alone: in the pool's workers for a bot that searches,
        here for a cheap one (or with no pool); the same bot from the same seed either way."""
        if self.pool is not None and self.pool.takes(name):
            action = await self.pool.run(decide, self.game.id, name, seat, seed, view, legal, key=f"table:{self.id}",
                                         kind=BOT, timeout=BOT_TIMEOUT)
            return int(action)
        bot = make_bot(name, self.game, seat, random.Random(seed))
        return await asyncio.to_thread(bot.act, view, legal)

    def _leave_pending(self, seat: int) -> bool:
        return not any(r.seat == seat and r.by == "leave" for r in self.steps)
