"""The lobby's WebSocket, ``/ws/lobby``: the list of open and running public tables, pushed.

A socket gets the list when it opens, then again whenever a table is created, joined, left,
started, finished, closed or abandoned, here or on another process (the hub announces it,
``Hub.lobby_changed``, and the bus carries it: ``RedisBus.lobby``). The list is exactly what
``GET /api/tables`` answers (the same query, the same summary of each table): the lobby is public,
so a socket needs no account, reads no cookie and holds no seat. It accepts ``ping`` and
``resync`` only; anything else gets an error frame, and changes nothing.

Bursts are coalesced: each process reads the list at most once every :data:`COALESCE` seconds,
whatever the number of changes or sockets, and a socket is sent a list only when it differs from
the last one it was sent. A slow socket gets only the newest list (never a queue of old ones).
See ``docs/server.md`` (The lobby's WebSocket).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import Counter
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from updown.server.deps import Services, services
from updown.server.guards import same_origin
from updown.server.outage import DATABASE, is_outage
from updown.server.routes.tables import table_summary

log = logging.getLogger("updown.server")

router = APIRouter()

STATUSES = ("open", "running")
"""The tables listed: those ``GET /api/tables`` lists by default (and the page asks for)."""
COALESCE = 0.5
"""Seconds between two reads of the list by one process: at most two lists a second per socket."""
RESYNC = 30.0
"""Seconds after which the list is read again while sockets are open, even with no news: a change
no process announced (an admin's, to a table no process holds) reaches the lobby that late."""
SEND_TIMEOUT = 10.0
"""Seconds a list may take to be sent to a socket; a socket slower than that is closed."""
MAX_FRAME = 1024
"""Characters a client's message may have (they are pings)."""
TOO_MANY = 4429
"""The close code of a lobby socket past ``lobby_sockets_per_address``."""
TRY_AGAIN = 1013
"""The close code of a socket opened while the database cannot be reached."""


class LobbySocket:
    """One lobby socket: the version of the list it was last sent, and a wake-up for its sender."""

    def __init__(self, websocket: WebSocket, address: str):
        self.websocket = websocket
        self.address = address
        self.send_lock = asyncio.Lock()
        self.version = 0
        """The version of the list this socket was last sent (0: none yet)."""
        self.wake = asyncio.Event()

    async def send_text(self, text: str) -> None:
        async with self.send_lock:
            await self.websocket.send_text(text)

    async def send_json(self, data: dict[str, Any]) -> None:
        await self.send_text(json.dumps(data))

    async def error(self, cid: str | None, code: str, message: str) -> None:
        await self.send_json({"type": "error", "id": cid, "code": code, "message": message})


class Lobby:
    """The lobby's sockets of this process and the list they are sent.

    ``changes`` counts the hub's news (``Hub.lobby_dirty``); a read remembers the count it began
    at, so news that comes during a read makes the list stale again. The list is read only while
    sockets are open; with none, news only marks it stale and the next socket reads it."""

    def __init__(self, svc: Services):
        self.svc = svc
        self.sockets: set[LobbySocket] = set()
        self.per_address: Counter[str] = Counter()
        self.changes = 1
        self.read_at_change = 0
        self.read_time = 0.0
        self.version = 0
        self.frame = ""
        self.tables_text = ""
        self.news = asyncio.Event()
        self.reading = asyncio.Lock()
        self.task: asyncio.Task[None] | None = None
        svc.hub.lobby_listeners.append(self.dirty)

    def dirty(self) -> None:
        self.changes += 1
        self.news.set()

    @property
    def stale(self) -> bool:
        return self.read_at_change != self.changes or time.monotonic() - self.read_time >= RESYNC

    async def read(self) -> None:
        """Read the list (one read for every socket waiting on it); a new version if it changed."""
        async with self.reading:
            if not self.stale:
                return
            began = self.changes
            found = await asyncio.to_thread(self.svc.store.tables, list(STATUSES))
            text = json.dumps([table_summary(t, s) for t, s in found])
            self.read_at_change, self.read_time = began, time.monotonic()
            if text != self.tables_text:
                self.tables_text = text
                self.version += 1
                self.frame = f'{{"type": "tables", "version": {self.version}, "tables": {text}}}'

    def start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        """Read the list when there is news (or every :data:`RESYNC` seconds) while sockets are
        open, and wake each socket's sender; then wait :data:`COALESCE` seconds, whatever came."""
        while True:
            try:
                await asyncio.wait_for(self.news.wait(), RESYNC)
            except TimeoutError:
                pass
            self.news.clear()
            if not self.sockets:
                continue
            try:
                await self.read()
            except Exception as err:  # the database is away: the sockets keep the last list
                if is_outage(err):
                    self.svc.hub.health.failed(DATABASE, err)
                else:
                    log.exception("lobby: reading the tables")
                self.news.set()  # tried again after the pause
            for conn in list(self.sockets):
                if conn.version != self.version:
                    conn.wake.set()
            await asyncio.sleep(COALESCE)

    async def sender(self, conn: LobbySocket) -> None:
        """Send ``conn`` the newest list whenever it is woken and has not had it."""
        while True:
            await conn.wake.wait()
            conn.wake.clear()
            version, frame = self.version, self.frame
            if version == conn.version or not frame:
                continue
            try:
                # asyncio.timeout, not wait_for: Python 3.11's wait_for swallows a cancellation that
                # comes as the send ends, and the socket's close then left this task waiting for a
                # wake-up forever, in a cycle only the garbage collector frees ("Task was destroyed
                # but it is pending"; docs/server.md, "What a closed socket leaves to the collector").
                async with asyncio.timeout(SEND_TIMEOUT):
                    await conn.send_text(frame)
            except Exception:  # gone, or too slow to keep up: it may connect again
                self.sockets.discard(conn)
                try:
                    await conn.websocket.close(code=1008, reason="too slow to receive the lobby")
                except Exception:
                    pass
                return
            conn.version = version


def lobby_of(websocket: WebSocket) -> Lobby:
    """This application's lobby (made by the first lobby socket)."""
    state = websocket.app.state
    found: Lobby | None = getattr(state, "lobby", None)
    if found is None:
        found = state.lobby = Lobby(services(websocket))
    return found


@router.websocket("/ws/lobby")
async def lobby_socket(websocket: WebSocket) -> None:
    svc = services(websocket)
    if not same_origin(websocket.headers.get("origin"), websocket.headers.get("host"),
                       svc.settings.allowed_origins):
        await websocket.close(code=4403, reason="cross-origin socket refused")
        return
    lobby = lobby_of(websocket)
    address = websocket.client.host if websocket.client else "unknown"
    await websocket.accept()
    most = svc.settings.limits.lobby_sockets_per_address
    if lobby.per_address[address] >= most:
        try:
            await websocket.send_text(json.dumps({
                "type": "error", "id": None, "code": "too-many-sockets",
                "message": f"at most {most} lobby sockets from one address; close one, or read GET /api/tables"}))
            await websocket.close(code=TOO_MANY, reason="too many lobby sockets from your address")
        except Exception:
            pass
        return
    conn = LobbySocket(websocket, address)
    lobby.per_address[address] += 1
    sender: asyncio.Task[None] | None = None
    try:
        try:
            await lobby.read()
        except Exception as err:
            if not is_outage(err):
                raise
            svc.hub.health.failed(DATABASE, err)
            await websocket.close(code=TRY_AGAIN, reason="server busy: the database cannot be reached; retrying")
            return
        lobby.sockets.add(conn)
        lobby.start()
        sender = asyncio.get_running_loop().create_task(lobby.sender(conn))
        conn.wake.set()  # the list now, then each new one
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            await handle(svc, lobby, conn, message.get("text"))
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass  # the client went away mid-send
    finally:
        lobby.sockets.discard(conn)
        lobby.per_address[address] -= 1
        if lobby.per_address[address] <= 0:
            del lobby.per_address[address]
        if sender is not None:
            sender.cancel()


async def handle(svc: Services, lobby: Lobby, conn: LobbySocket, text: str | None) -> None:
    """One message from a lobby socket: ``ping`` or ``resync``; anything else is an error."""
    if not await svc.limiter.socket_message(conn, text):
        return
    if text is None:
        await conn.error(None, "malformed", "send JSON text frames, not binary")
        return
    if len(text) > MAX_FRAME:
        await conn.error(None, "too-large", f"a lobby message may have {MAX_FRAME} characters, this one has {len(text)}")
        return
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        await conn.error(None, "malformed", 'a message is one JSON object, e.g. {"type": "ping"}')
        return
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        await conn.error(None, "malformed", 'a message is a JSON object with a "type"')
        return
    cid = msg.get("id")
    if cid is not None and (not isinstance(cid, str) or not 1 <= len(cid) <= 64):
        await conn.error(None, "malformed", '"id" is a string of 1 to 64 characters')
        return
    kind = msg["type"]
    if kind == "ping":
        await conn.send_json({"type": "pong", "id": cid})
    elif kind == "resync":
        try:
            await lobby.read()  # only if it is stale: a resync costs no extra read
        except Exception as err:
            if not is_outage(err):
                raise
            svc.hub.health.failed(DATABASE, err)
            await conn.error(cid, "busy", "the database cannot be reached; the list comes when it is back")
            return
        conn.version = 0
        conn.wake.set()
    else:
        await conn.error(cid, "unknown-type", f"unknown message type {kind[:30]!r}: the lobby socket takes "
                                              "ping and resync only; it accepts no actions (play a table at "
                                              "/ws/tables/{id})")
