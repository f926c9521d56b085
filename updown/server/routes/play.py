"""The table's WebSocket: who a socket plays (the seat its account holds now), and every message
it sends, checked against the state now: the session, the seat, the frame size, the rate. The
table's chat (``chat`` messages, ``GET /api/tables/{id}/chat``) and who watches."""

from __future__ import annotations

import asyncio
import json
import time
import unicodedata
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from updown.core.errors import UpdownError
from updown.i18n import normalize
from updown.server.deps import COOKIE, Services, ServicesDep, TableDep, services
from updown.server.guards import same_origin
from updown.server.hub import CHAT_HISTORY, chat_line
from updown.server.live import BUSY, SPECTATOR, ActionError, Live, Unseated, encode
from updown.server.models import Account
from updown.server.metrics import ACK_SECONDS
from updown.server.outage import DATABASE, is_outage
from updown.server.store import Actor, ChatRow, Conflict, token_hash

MAX_FRAME = 4096
"""Bytes a client's WebSocket message may have; a larger one gets an error and changes nothing."""
TRY_AGAIN = 1013
"""The close code ("try again later") of a socket opened while the database cannot be reached."""
CHAT_MAX = 200
"""Characters a chat line may have (after its white space is folded)."""
PRESETS = {"hello": "Hello", "good-luck": "Good luck", "well-played": "Well played", "thanks": "Thanks",
           "oops": "Oops", "good-game": "Good game"}
"""The preset phrases: a page shows each in its reader's language. During a rated game they are all
anyone may say (free text between partners, or from a player who left to the partner who stayed,
could tell what a hand holds)."""
UNSEEN = dict.fromkeys(map(ord, "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))
"""Bidirectional controls, taken out of chat text: they could make a line read as something else."""

router = APIRouter()


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    svc = services(websocket)
    store, hub = svc.store, svc.hub
    if not same_origin(websocket.headers.get("origin"), websocket.headers.get("host"),
                       svc.settings.allowed_origins):
        # A page of another site (or another port of this host) must not use a player's cookie.
        await websocket.close(code=4403, reason="cross-origin socket refused")
        return
    token = websocket.cookies.get(COOKIE)
    chat: tuple[int, list[ChatRow]] | None = None
    try:
        held = hub.lives.get(table_id)
        if held is not None:
            # The table is in memory (the usual case): the session, the table's seats and status, and
            # its chat are read in one call, one hand-off to a worker thread instead of three (the
            # hand-offs were a sixth of the loop's time under churn: docs/server.md, "The churn's tail").
            round_before = hub.chat_round(table_id)
            acc, found, lines = await asyncio.to_thread(store.socket_open, token, table_id, CHAT_HISTORY + 1)
            live = await hub.live(table_id)
            if live is held:
                hub.refreshed(live, found)
                chat = (round_before, lines)
            elif live is not None:  # set aside and loaded again meanwhile: the load is newer than the read
                await hub.refresh(live)
        else:
            acc = await asyncio.to_thread(store.session_account, token) if token else None
            live = await hub.live(table_id)
            if live is not None:
                await hub.refresh(live)
        if live is None:
            await websocket.close(code=4404, reason="no such table")
            return
    except Exception as err:
        if not is_outage(err):
            raise
        hub.health.failed(DATABASE, err)
        # Nothing can be checked or shown without the database: the client tries again shortly.
        await websocket.close(code=TRY_AGAIN, reason="server busy: the database cannot be reached; retrying")
        return
    watch = websocket.query_params.get("watch") in ("1", "true")
    key = SPECTATOR
    if acc is not None and not watch:
        # Only a seat this account holds now, and has not left: leaving is final for the game.
        key = next((i for i, s in enumerate(live.seats) if s.held_by(acc.id)), SPECTATOR)
    lang = normalize(websocket.query_params.get("lang"))
    since_text = websocket.query_params.get("since")
    since = int(since_text) if since_text and since_text.isascii() and since_text.isdigit() and \
        len(since_text) < 10 else None
    await websocket.accept()
    conn = Connection(websocket, key, lang, account_id=acc.id if acc else None,
                      session=token_hash(token) if token and acc else None, name=acc.name if acc else None)
    await hub.connected(live, key, +1)
    try:
        await conn.send_json({"type": "hello", "seat": None if key == SPECTATOR else key,
                              "you": acc.name if acc else None, "max_frame": MAX_FRAME})
        if hub.health.down:
            await conn.send_json(hub.health.message())
        async with live.lock:
            await live.catch_up()
        async with conn.send_lock:
            first = live.frame(key, since, lang)
            conn.last_n = first["n"]
            live.conns.add(conn)
            if live.unloaded:  # dropped from memory while this socket was set up (after UNLOAD s): again
                await websocket.close(code=TRY_AGAIN, reason="the table was set aside meanwhile; retrying")
                return
            await websocket.send_text(encode(first))
            conn.last_table = encode({"type": "table", "table": live.public()})
            await websocket.send_text(conn.last_table)
        try:
            await hub.chat_history(live, conn, chat)
        except Exception as err:
            if not is_outage(err):
                raise
            hub.health.failed(DATABASE, err)
            conn.chat_seq = 0  # the whole chat comes with the catch-up once the database is back
        await hub.watchers_changed(live)
        if key != SPECTATOR and live.seats[key].away:
            await hub.set_away(live, key, False)
        else:
            await hub.changed(live)
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                await conn.error(None, "malformed", "send JSON text frames, not binary")
                continue
            await handle_safely(svc, live, conn, text)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass  # the client went away mid-send
    finally:
        live.conns.discard(conn)
        try:
            await hub.connected(live, key, -1)
            await hub.changed(live)
            await hub.watchers_changed(live)
        except Exception:
            pass

async def handle_safely(svc: Services, live: Live, conn: Connection, text: str) -> None:
    """:func:`handle`, where a service that cannot be reached costs this message, not the socket:
    the client is told ``busy`` (nothing was done: it may send the same message again)."""
    try:
        await handle(svc, live, conn, text)
    except Exception as err:
        if not is_outage(err):
            raise
        svc.hub.health.failed(DATABASE, err)
        cid = None
        try:
            msg = json.loads(text)
            cid = msg.get("id") if isinstance(msg, dict) and isinstance(msg.get("id"), str) else None
        except ValueError:
            pass
        await conn.error(cid, "busy", BUSY)


async def handle(svc: Services, live: Live, conn: Connection, text: str) -> None:
    hub = svc.hub
    if not await svc.limiter.socket_message(conn, text):
        return
    if len(text) > MAX_FRAME:
        await conn.error(None, "too-large", f"a message may have {MAX_FRAME} characters, this one has {len(text)}")
        return
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        await conn.error(None, "malformed", "a message is one JSON object, e.g. "
                                            '{"type": "act", "id": "1", "action": "QH"}')
        return
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        await conn.error(None, "malformed", 'a message is a JSON object with a "type"')
        return
    kind = msg["type"]
    cid = msg.get("id")
    if cid is not None and (not isinstance(cid, str) or not 1 <= len(cid) <= 64):
        await conn.error(None, "malformed", '"id" is a string of 1 to 64 characters')
        return
    if kind == "ping":
        await conn.send_json({"type": "pong", "id": cid})
    elif kind == "resync":
        since = msg.get("since")
        if since is not None and (type(since) is not int or since < 0):
            await conn.error(cid, "malformed", '"since" is a frame number you received, or null')
            return
        async with conn.send_lock:
            frame = live.frame(conn.key, since, conn.lang)
            conn.last_n = frame["n"]
            await conn.websocket.send_text(encode(frame))
    elif kind == "back":
        if conn.key != SPECTATOR and await seated(svc, live, conn, cid):
            await hub.set_away(live, conn.key, False)
    elif kind == "leave":
        if conn.key == SPECTATOR:
            await conn.error(cid, "spectator", "spectators have no seat to leave")
            return
        if not await seated(svc, live, conn, cid):
            return
        try:
            await hub.leave(live, conn.key, by=conn)
        except ActionError as err:
            await conn.error(cid, err.code, err.message)
            hub.close_unseated(conn, "you left this game")
            return
        await conn.send_json({"type": "ack", "id": cid, "left": True})
        hub.close_unseated(conn, "you left this game; reconnect to watch")
    elif kind == "act":
        await act(svc, live, conn, msg, cid)
    elif kind == "chat":
        await chat(svc, live, conn, msg, cid)
    else:
        await conn.error(cid, "malformed", f"unknown message type {kind[:30]!r} "
                                           "(act, leave, back, resync, ping, chat)")

async def seated(svc: Services, live: Live, conn: Connection, cid: str | None) -> bool:
    """Whether the socket's account still holds its seat, checked now: the session is still
    valid and the seat is still this account's (not freed, left or taken by another). If not,
    the message is refused and the socket closed; it may reconnect to watch."""
    hub = svc.hub
    if hub.multi:
        await hub.refresh(live)  # another process may have changed the seat
    acc = await asyncio.to_thread(svc.store.session_account, conn.token) if conn.token else None
    if acc is not None and acc.id == conn.account_id and live.seats[conn.key].held_by(acc.id):
        return True
    await conn.error(cid, "not-your-seat", "this seat is no longer yours (you left, were signed out, or it "
                                           "was freed); reconnect to watch")
    live.conns.discard(conn)
    hub.close_unseated(conn, "signed out" if acc is None else "your seat is no longer yours")
    return False

async def act(svc: Services, live: Live, conn: Connection, msg: dict[str, Any], cid: str | None) -> None:
    hub = svc.hub
    started = time.perf_counter()
    if cid is None:
        await conn.error(None, "malformed", 'an action needs an "id" of your choice, so that a resend is '
                                            'recognised')
        return
    if conn.key == SPECTATOR:
        await conn.error(cid, "spectator", "spectators cannot act")
        return
    if "seat" in msg and msg["seat"] != conn.key:
        await conn.error(cid, "not-your-seat", f"you play seat {conn.key}; you cannot act for another seat")
        return
    seat_now = live.seats[conn.key]
    quick = conn.session is not None and conn.account_id is not None and seat_now.held_by(conn.account_id) \
        and not seat_now.away and (conn.key, cid) not in live.client_ids
    # The session and the seat are checked on every action, in the transaction that stores the step
    # (``Actor``): no read before it, with one process or several. That transaction also finds a table
    # this process is behind on (another process stored the step's number first: caught up, judged
    # again) and clears an away the seat got elsewhere; a refusal judged on this process's copy is
    # judged again after catching up (``Live.submit``). For a resend, an away seat (set back first) or
    # a seat this process sees as not the account's, they are read first, as for other messages.
    if not quick and not await seated(svc, live, conn, cid):
        return

    async def refuse(code: str, message: str) -> None:
        # A refusal on the quick path first reads the session and seat, as the other path did before
        # anything: a socket that no longer holds its seat is told so (and closed), nothing else.
        if quick and not await seated(svc, live, conn, cid):
            return
        await conn.error(cid, code, message)

    raw = msg.get("action")
    try:
        if type(raw) is int:
            action = raw
            live.game.action_to_str(action)
        elif isinstance(raw, str) and 0 < len(raw) <= 40:
            action = live.game.parse_action(raw)
        else:
            raise ActionError("malformed", '"action" is an action id or its notation, e.g. "QH"')
    except UpdownError as err:
        await refuse("notation", str(err)[:200])
        return
    except ActionError as err:
        await refuse(err.code, err.message)
        return
    if live.seats[conn.key].away:
        await hub.set_away(live, conn.key, False)
    actor = Actor(conn.session, conn.account_id, conn.key) if conn.session and conn.account_id is not None else None
    try:
        await live.submit(conn.key, action, cid, "player", actor)
    except Unseated as err:
        await conn.error(cid, err.code, err.message)
        live.conns.discard(conn)
        hub.close_unseated(conn, "signed out" if err.signed_out else "your seat is no longer yours")
        return
    except ActionError as err:
        await refuse(err.code, err.message)
        return
    await conn.send_json({"type": "ack", "id": cid})
    ACK_SECONDS.observe(time.perf_counter() - started)
    await hub.after_step(live)


def chat_text(raw: str) -> str:
    """What a chat line shows: plain text on one line. Control characters and runs of white space
    become one space, bidirectional controls go, and the ends are trimmed."""
    text = raw.translate(UNSEEN)
    text = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in text)
    return " ".join(text.split())


async def chat(svc: Services, live: Live, conn: Connection, msg: dict[str, Any], cid: str | None) -> None:
    """One chat line, checked now: the session is still valid (a signed-out spectator reads but does
    not write), a seated socket's seat is still its account's, the table is not closed, the line is
    a preset or plain text of 1 to :data:`CHAT_MAX` characters (free text not during a rated game),
    and the socket and account are within their chat limits. Stored, then sent to every socket of
    the table on every process, and acknowledged."""
    hub = svc.hub
    raw, preset = msg.get("text"), msg.get("preset")
    if (raw is None) == (preset is None):
        await conn.error(cid, "malformed", 'a chat message has a "text" or a "preset", e.g. '
                                           '{"type": "chat", "id": "c1", "text": "hello"}')
        return
    if preset is not None and (not isinstance(preset, str) or preset not in PRESETS):
        await conn.error(cid, "chat-preset", f"no preset {str(preset)[:30]!r} (presets: {', '.join(PRESETS)})")
        return
    if raw is not None and not isinstance(raw, str):
        await conn.error(cid, "malformed", '"text" is a string')
        return
    if conn.key != SPECTATOR and not await seated(svc, live, conn, cid):
        return  # refused and closed: the seat is no longer this session's
    acc = await asyncio.to_thread(svc.store.session_account, conn.token) if conn.token else None
    if acc is None or acc.id != conn.account_id:
        await conn.error(cid, "chat-sign-in", "sign in or play as a guest to chat; without an account you can "
                                              "read the chat but not write")
        return
    if conn.key == SPECTATOR and hub.multi:
        await hub.refresh(live)  # whether this account sits at the table now, on any process
    if live.status == "closed":
        await conn.error(cid, "closed", "this table was closed by the site's host")
        return
    text = PRESETS[preset] if preset is not None else chat_text(raw or "")
    if not text:
        await conn.error(cid, "chat-empty", "the chat line is empty")
        return
    if len(text) > CHAT_MAX:
        await conn.error(cid, "chat-too-long", f"a chat line has at most {CHAT_MAX} characters, this one has "
                                               f"{len(text)}", max=CHAT_MAX, length=len(text))
        return
    if preset is None and live.rated and live.status == "running":
        await conn.error(cid, "chat-presets-only", "during a rated game the chat takes only the preset phrases "
                                                   f"({', '.join(PRESETS)}); free text after the game")
        return
    retry = await svc.limiter.chat(conn, acc.id)
    if retry is not None:
        await conn.error(cid, "rate-limited", f"too many chat lines; this one was not sent, send it again in "
                                              f"{retry:.1f} s", what="chat", retry_after=round(retry, 2))
        return
    seat = author_seat(live, acc)
    try:
        await hub.chat(live, acc.id, seat, text, preset)
    except Conflict:  # other processes took every number meanwhile: nothing was stored
        await conn.error(cid, "busy", "the chat is busy; nothing was sent, send the line again")
        return
    await conn.send_json({"type": "ack", "id": cid})


def author_seat(live: Live, acc: Account) -> int | None:
    """The seat this account holds at the table (left or not), None for a spectator."""
    return next((i for i, s in enumerate(live.seats) if s.kind == "person" and s.account_id == acc.id), None)


@router.get("/api/tables/{table_id}/chat")
async def chat_lines(live: TableDep, svc: ServicesDep) -> dict[str, Any]:
    """Every chat line of the table, oldest first: public like the table (spectators, signed out
    or not, read it), the same for everyone. A finished game's lines say at which step they came."""
    rows = await asyncio.to_thread(svc.store.chat, live.id)
    finished = live.status == "finished"
    return {"table": live.id, "presets": PRESETS, "lines": [chat_line(r, finished) for r in rows]}


class Connection:
    """One client's WebSocket: its seat (or SPECTATOR) and the last frame number it was sent."""

    def __init__(self, websocket: WebSocket, key: int, lang: str = "en", *, account_id: int | None = None,
                 session: str | None = None, name: str | None = None):
        self.websocket = websocket
        self.key = key
        self.lang = lang
        self.account_id = account_id
        self.name = name
        """The account's name (a spectator is listed by it in ``watchers``)."""
        self.chat_seq: int | None = None
        """The last chat line this socket was sent; None until its history is sent."""
        self.last_watchers = ""
        self.session = session
        """The hash of the session token the socket was opened with (sign-out closes the socket)."""
        self.token = websocket.cookies.get(COOKIE) if session else None
        self.closing = False
        self.last_n = -1
        self.last_table = ""
        self.send_lock = asyncio.Lock()

    async def send_text(self, text: str) -> None:
        async with self.send_lock:
            await self.websocket.send_text(text)

    async def send_json(self, data: dict[str, Any]) -> None:
        await self.send_text(encode(data))

    async def error(self, cid: str | None, code: str, message: str, **params: Any) -> None:
        """An error frame: the stable ``code`` (a page says it in its language), the message in
        English, and ``params`` (the figures in it) when it has any."""
        data: dict[str, Any] = {"type": "error", "id": cid, "code": code, "message": message}
        if params:
            data["params"] = params
        await self.send_json(data)

    async def close(self, code: int, reason: str) -> None:
        """Close the socket (under the send lock, so no frame is cut in half)."""
        try:
            async with self.send_lock:
                await self.websocket.close(code=code, reason=reason[:120])
        except Exception:
            pass  # already gone
