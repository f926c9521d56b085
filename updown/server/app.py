"""The HTTP API and the WebSocket (FastAPI). See ``docs/server.md`` for every route and message."""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import re
import secrets
import time
from urllib.parse import urlsplit
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerifyMismatchError
from fastapi import FastAPI, HTTPException, Request, Response, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from updown.bots import bot_names
from updown.core.errors import UpdownError
from updown.core.registry import all_games, get_game
from updown.i18n import catalogue_json, normalize
from updown.rules import rules_text
from updown.server.db import make_engine, upgrade
from updown.server.guards import BodyLimit, GuardedApp, validation_error
from updown.server.hub import Bus, Hub, RedisBus, new_table_id
from updown.server.limits import Limited, Limiter, Limits
from updown.server.live import SPECTATOR, ActionError, Live
from updown.server.models import Account, Seat, Table
from updown.server.store import Store, token_hash

log = logging.getLogger("updown.server")

COOKIE = "updown_session"
MAX_FRAME = 4096
"""Bytes a client's WebSocket message may have; a larger one gets an error and changes nothing."""
NAME_RE = re.compile(r"^[A-Za-z0-9À-ÿ][A-Za-z0-9À-ÿ _.-]{1,23}$")
RESERVED = ("bot:", "guest-", "house")

hasher = PasswordHasher()  # argon2id with the library's recommended parameters


@dataclass
class Settings:
    db: str = "sqlite:///updown.db"
    redis: str | None = None
    bot_delay: float = 0.6
    secure_cookies: bool = False
    sqlite_sync: str = "normal"
    allowed_origins: tuple[str, ...] = ()
    """Origins (``https://example.org``) besides the server's own whose pages may use the API and
    the WebSocket with a player's cookie. Empty: the server's own origin only."""
    api_docs: bool = False
    """Serve ``/api/docs`` and ``/api/openapi.json``."""
    limits: Limits = field(default_factory=Limits)
    """What one client may spend (``updown.server.limits``): rates, hash slots, body sizes."""


class Credentials(BaseModel):
    name: str = Field(max_length=64)
    password: str = Field(max_length=256)


class GuestIn(BaseModel):
    name: str | None = Field(default=None, max_length=64)


class TableIn(BaseModel):
    game: str = Field(max_length=32)
    players: int | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    seats: list[str] | None = None
    """One entry per seat: ``me``, ``open`` or ``bot:NAME``. Default: you at seat 0, others open."""
    timer: float | None = None
    grace: float = 60.0
    rated: bool = False
    private: bool = False


class JoinIn(BaseModel):
    seat: int | None = None


def bad(status: int, message: str) -> HTTPException:
    return HTTPException(status_code=status, detail=message)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    engine = make_engine(settings.db, settings.sqlite_sync)
    store = Store(engine)
    bus: Bus = RedisBus(settings.redis) if settings.redis else Bus()
    hub = Hub(store, bus=bus, bot_delay=settings.bot_delay, multi=settings.redis is not None)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(upgrade, engine)
        await hub.start()
        yield
        await hub.stop()
        engine.dispose()

    docs = settings.api_docs
    app = GuardedApp(title="updown", lifespan=lifespan, docs_url="/api/docs" if docs else None, redoc_url=None,
                     openapi_url="/api/openapi.json" if docs else None)  # security headers on every answer
    app.state.hub = hub
    app.state.store = store
    limiter = Limiter(settings.limits, settings.redis, namespace=settings.db)
    app.state.limiter = limiter
    app.add_middleware(BodyLimit, limit=settings.limits.max_body, uploads={"/web/replay": settings.limits.max_upload})
    app.add_exception_handler(RequestValidationError, validation_error)

    # -- helpers --------------------------------------------------------------------------------
    def current(request: Request) -> Account | None:
        token = request.cookies.get(COOKIE)
        return store.session_account(token) if token else None

    def require(request: Request) -> Account:
        acc = current(request)
        if acc is None:
            raise bad(401, "sign in or play as a guest first")
        return acc

    def signed_in(response: Response, account_id: int) -> None:
        token = store.new_session(account_id)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=settings.secure_cookies,
                            max_age=30 * 24 * 3600, path="/")

    def me_dict(acc: Account) -> dict[str, Any]:
        return {"id": acc.id, "name": acc.name, "kind": acc.kind,
                "balance": store.balance(acc.id) if acc.kind == "person" else None}

    def table_summary(t: Table, seats: list[Seat]) -> dict[str, Any]:
        return {"id": t.id, "game": t.game, "players": t.players, "options": json.loads(t.options),
                "status": t.status, "rated": t.rated, "timer": t.timer, "created_at": t.created_at,
                "seats": [{"seat": s.seat, "kind": s.kind, "name": s.name,
                           "bot": s.bot if s.kind == "bot" else None} for s in seats]}

    def same_origin(origin: str | None, host: str | None) -> bool:
        """A request may use a player's cookie only from the server's own pages (or an allowed
        origin). A request without Origin is no browser's cross-site request, so it passes."""
        if origin is None:
            return True
        if origin in settings.allowed_origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == (host or "").lower()

    @app.middleware("http")
    async def _refuse_cross_origin(request: Request, call_next: Any) -> Any:
        if request.method not in ("GET", "HEAD", "OPTIONS") and \
                not same_origin(request.headers.get("origin"), request.headers.get("host")):
            return JSONResponse(status_code=403, content={
                "detail": f"cross-origin request refused: {str(request.headers.get('origin'))[:100]} is not this "
                          "site (the server's allowed origins are set by the host)"})
        return await call_next(request)

    @app.exception_handler(UpdownError)
    async def _updown_error(_request: Request, err: UpdownError) -> JSONResponse:
        return JSONResponse(status_code=400, content={"detail": str(err)[:300]})

    # -- accounts -------------------------------------------------------------------------------
    @app.post("/api/register")
    async def register(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        name = body.name.strip()
        if not NAME_RE.match(name) or name.lower().startswith(RESERVED):
            raise bad(400, "a name has 2 to 24 letters, digits, spaces, '.', '_' or '-', and starts with a "
                           "letter or digit")
        if len(body.password) < 8:
            raise bad(400, "a password has at least 8 characters")
        await limiter.new_account(request)
        async with limiter.hashing():
            pw_hash = await asyncio.to_thread(hasher.hash, body.password)

        def create() -> dict[str, Any]:
            account_id = store.create_account(name, "person", pw_hash)
            if account_id is None:
                raise bad(409, f"the name {name!r} is taken")
            signed_in(response, account_id)
            acc = store.account(account_id)
            assert acc is not None
            return me_dict(acc)

        return await asyncio.to_thread(create)

    @app.post("/api/login")
    async def login(body: Credentials, request: Request, response: Response) -> dict[str, Any]:
        await limiter.login(request, body.name)
        acc = await asyncio.to_thread(store.account_by_name, body.name.strip())

        def check() -> bool:
            ok = False
            if acc is not None and acc.kind == "person" and acc.pw_hash:
                try:
                    ok = hasher.verify(acc.pw_hash, body.password)
                except (VerifyMismatchError, InvalidHashError):
                    ok = False
            else:
                hasher.hash(body.password)  # the same work whether or not the name exists
            if ok and acc is not None and hasher.check_needs_rehash(acc.pw_hash or ""):
                store.set_password(acc.id, hasher.hash(body.password))
            return ok

        async with limiter.hashing():
            ok = await asyncio.to_thread(check)
        if not ok or acc is None:
            raise bad(401, "wrong name or password")

        def sign_in(acc: Account) -> dict[str, Any]:
            signed_in(response, acc.id)
            return me_dict(acc)

        return await asyncio.to_thread(sign_in, acc)

    @app.post("/api/guest")
    async def guest(body: GuestIn, request: Request, response: Response) -> dict[str, Any]:
        base = (body.name or "").strip()
        if base and not NAME_RE.match(base):
            raise bad(400, "a name has 2 to 24 letters, digits, spaces, '.', '_' or '-'")
        await limiter.new_account(request)

        def create() -> dict[str, Any]:
            for _ in range(5):
                name = f"guest-{secrets.token_hex(3)}" if not base else f"guest-{base}-{secrets.token_hex(2)}"
                account_id = store.create_account(name, "guest", None)
                if account_id is not None:
                    signed_in(response, account_id)
                    acc = store.account(account_id)
                    assert acc is not None
                    return me_dict(acc)
            raise bad(503, "could not make a guest name; try again")

        return await asyncio.to_thread(create)

    @app.post("/api/logout")
    async def logout(request: Request, response: Response) -> dict[str, Any]:
        token = request.cookies.get(COOKIE)
        if token:
            await asyncio.to_thread(store.end_session, token)
            # The session's sockets stop at once: here, and in the other processes.
            hub.close_session(token_hash(token))
            await hub.bus.session_ended(token_hash(token))
        response.delete_cookie(COOKIE, path="/")
        return {"ok": True}

    @app.get("/api/me")
    def me(request: Request) -> dict[str, Any]:
        acc = require(request)
        out = me_dict(acc)
        out["ratings"] = store.account_ratings(acc.id)
        out["tables"] = [table_summary(t, s) for t, s in store.account_tables(acc.id)]
        out["ledger"] = store.entries(acc.id)[-50:] if acc.kind == "person" else []
        return out

    # -- games and tables -----------------------------------------------------------------------
    @app.get("/api/games")
    def games() -> list[dict[str, Any]]:
        return [{"id": g.id, "name": g.name, "min_players": g.min_players, "max_players": g.max_players,
                 "default_players": g.bench_players, "teams": g.teams(g.bench_players) is not None,
                 "options": [{"name": n, "type": getattr(t, "__name__", str(t)), "default": d, "help": h}
                             for n, t, d, h in g.Options.fields()],
                 "bots": bot_names(g.id)} for g in all_games()]

    @app.get("/api/tables")
    def tables(status: str = "open,running") -> list[dict[str, Any]]:
        wanted = [s for s in status.split(",") if s in ("open", "running", "finished")]
        return [table_summary(t, s) for t, s in store.tables(wanted)]

    @app.post("/api/tables")
    async def create_table(body: TableIn, request: Request) -> dict[str, Any]:
        acc = require(request)
        try:
            game = get_game(body.game)
        except UpdownError as err:
            raise bad(400, str(err)) from None
        players = body.players if body.players is not None else game.bench_players
        if not game.min_players <= players <= game.max_players:
            raise bad(400, f"{game.name} is for {game.player_range()} players, not {players}")
        try:
            options = game.Options.from_dict(body.options)
            options.check(players)
        except UpdownError as err:
            raise bad(400, f"options: {err}") from None
        if body.timer is not None and not 5 <= body.timer <= 3600:
            raise bad(400, "the move timer is 5 to 3600 seconds, or none")
        if not 0 <= body.grace <= 3600:
            raise bad(400, "the grace period is 0 to 3600 seconds")
        if body.rated and acc.kind != "person":
            raise bad(400, "guests play unrated tables only; register to play rated")
        specs = body.seats or ["me"] + ["open"] * (players - 1)
        if len(specs) != players:
            raise bad(400, f"give {players} seats, not {len(specs)}")
        if body.rated and not any(spec in ("me", "open") for spec in specs):
            raise bad(400, "a rated table needs a seat for a person ('me' or 'open'): bots alone are not rated")
        if not any(spec in ("me", "open") for spec in specs) and \
                await asyncio.to_thread(store.bot_tables, acc.id) >= settings.limits.bot_tables_at_once:
            raise Limited(f"you have {settings.limits.bot_tables_at_once} tables of bots alone running; "
                          "wait for one to end", 30)
        if specs.count("me") > 1:
            raise bad(400, "you can take one seat")
        table_id = new_table_id()
        seats: list[Seat] = []
        for i, spec in enumerate(specs):
            if spec == "me":
                seats.append(Seat(table_id=table_id, seat=i, kind="person", account_id=acc.id, name=acc.name))
            elif spec == "open":
                seats.append(Seat(table_id=table_id, seat=i, kind="open", name=""))
            elif spec.startswith("bot:") and spec[4:] in bot_names(game.id):
                seats.append(Seat(table_id=table_id, seat=i, kind="bot", bot=spec[4:],
                                  name=f"{spec[4:].capitalize()} bot {i}"))
            else:
                raise bad(400, f"seat {i}: {spec[:40]!r} is not 'me', 'open' or 'bot:NAME' "
                               f"(bots: {', '.join(bot_names(game.id))})")
        await limiter.new_table(acc.id, acc.kind)
        row = Table(id=table_id, game=game.id, players=players, options=json.dumps(options.to_dict()),
                    seed=secrets.token_hex(16), timer=body.timer, grace=body.grace, rated=body.rated,
                    private=body.private, status="open", created_by=acc.id, created_at=time.time(),
                    lease_until=0.0)
        await asyncio.to_thread(store.create_table, row, seats)
        if await asyncio.to_thread(store.start_table, table_id):
            await hub.started(table_id)
        return await table_info(table_id)

    async def table_info(table_id: str) -> dict[str, Any]:
        live = await hub.live(table_id)
        if live is None:
            raise bad(404, "no such table")
        return live.public()

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> dict[str, Any]:
        return await table_info(table_id)

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, body: JoinIn, request: Request) -> dict[str, Any]:
        acc = require(request)
        live = await hub.live(table_id)
        if live is None:
            raise bad(404, "no such table")
        await hub.refresh(live)
        if live.status != "open":
            raise bad(409, "the game has started; watch it instead")
        if live.rated and acc.kind != "person":
            raise bad(403, "this table is rated: register to play it")
        if any(s.account_id == acc.id for s in live.seats):
            raise bad(409, "you already have a seat at this table")
        free = [i for i, s in enumerate(live.seats) if s.kind == "open"]
        seat = body.seat if body.seat is not None else (free[0] if free else None)
        if seat is None or seat not in free:
            raise bad(409, "that seat is taken" if seat is not None else "every seat is taken")
        why = await asyncio.to_thread(store.take_seat, table_id, seat, acc.id, acc.name)
        if why is not None:  # the database decides races: one seat per account, one account per seat
            await hub.refresh(live)
            raise bad(409, "you already have a seat at this table" if why == "seated" else "that seat was just taken")
        if await asyncio.to_thread(store.start_table, table_id):
            await hub.started(table_id)
        else:
            await hub.refresh(live)
            await hub.changed(live)
        return live.public()

    @app.post("/api/tables/{table_id}/leave")
    async def leave(table_id: str, request: Request) -> dict[str, Any]:
        acc = require(request)
        live = await hub.live(table_id)
        if live is None:
            raise bad(404, "no such table")
        await hub.refresh(live)
        seat = next((i for i, s in enumerate(live.seats) if s.account_id == acc.id and s.kind == "person"), None)
        if seat is None:
            raise bad(409, "you have no seat at this table")
        if live.status == "open":
            await asyncio.to_thread(store.free_seat, table_id, seat, acc.id)
            await hub.refresh(live)  # closes this account's sockets on the seat
            await hub.changed(live)
            return live.public()
        try:
            await hub.leave(live, seat)
        except ActionError as err:
            raise bad(409, err.message) from None
        return live.public()

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str) -> JSONResponse:
        live = await hub.live(table_id)
        if live is None:
            raise bad(404, "no such table")
        async with live.lock:
            await live.catch_up()
        finished = live.state.is_terminal()
        return JSONResponse(live.record(full=finished),
                            headers={"Content-Disposition": f'attachment; filename="{live.game.id}-{table_id}.json"'})

    @app.get("/api/tables/{table_id}/hint")
    async def hint(table_id: str, request: Request, budget: int = 300) -> dict[str, Any]:
        """The coach for the asking seat only, on unrated tables: each legal action with its estimate."""
        acc = require(request)
        live = await hub.live(table_id)
        if live is None:
            raise bad(404, "no such table")
        if live.rated:
            raise bad(403, "hints are for unrated tables only")
        seat = next((i for i, s in enumerate(live.seats) if s.account_id == acc.id and s.kind == "person"), None)
        if seat is None:
            raise bad(403, "only a seated player gets hints, for their own seat")
        if not 50 <= budget <= 2000:
            raise bad(400, "the budget is 50 to 2000 playouts")
        async with live.lock:
            if live.status != "running" or live.state.is_terminal() or seat not in live.state.actors():
                raise bad(409, "it is not your turn")
            view = live.state.view(seat)
            legal = live.state.legal_actions(seat)
        await limiter.hint(acc.id, budget)
        from updown.bots.coach import analyse, is_mistake

        hints = await asyncio.to_thread(analyse, live.game, view, legal, budget=budget, seed=len(live.steps))
        return {"seat": seat, "hints": [
            {"id": h.action, "notation": live.game.action_to_str(h.action), "estimate": round(h.estimate, 4),
             "stderr": round(h.stderr, 4), "best": i == 0, "clearly_worse": is_mistake(hints, h.action)}
            for i, h in enumerate(hints)]}

    @app.get("/api/leaderboard/{game_id}")
    def leaderboard(game_id: str) -> list[dict[str, Any]]:
        try:
            get_game(game_id)
        except UpdownError as err:
            raise bad(404, str(err)) from None
        return store.leaderboard(game_id)

    @app.get("/api/rules/{game_id}")
    def rules(game_id: str, lang: str = "en") -> dict[str, Any]:
        """A game's rules in short, in the project's own words (``updown rules``), as Markdown."""
        try:
            get_game(game_id)
        except UpdownError as err:
            raise bad(404, str(err)) from None
        code = normalize(lang)
        text = rules_text(game_id, code)
        if text is None:
            raise bad(404, f"no rules text for {game_id}")
        return {"game": game_id, "lang": code, "markdown": text}

    @app.get("/api/i18n/{lang}")
    def messages(lang: str) -> Response:
        """The message catalogue (the terminal's too) for a browser: ``{lang, plural_forms, messages}``."""
        return Response(catalogue_json(normalize(lang)), media_type="application/json")

    @app.get("/api/health")
    def health() -> dict[str, Any]:
        return {"ok": True, "tables": len(hub.lives)}

    # -- the table's WebSocket ------------------------------------------------------------------
    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        if not same_origin(websocket.headers.get("origin"), websocket.headers.get("host")):
            # A page of another site (or another port of this host) must not use a player's cookie.
            await websocket.close(code=4403, reason="cross-origin socket refused")
            return
        token = websocket.cookies.get(COOKIE)
        acc = await asyncio.to_thread(store.session_account, token) if token else None
        live = await hub.live(table_id)
        if live is None:
            await websocket.close(code=4404, reason="no such table")
            return
        await hub.refresh(live)
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
                          session=token_hash(token) if token and acc else None)
        await hub.connected(live, key, +1)
        try:
            await conn.send_json({"type": "hello", "seat": None if key == SPECTATOR else key,
                                  "you": acc.name if acc else None, "max_frame": MAX_FRAME})
            async with live.lock:
                await live.catch_up()
            async with conn.send_lock:
                first = live.frame(key, since, lang)
                conn.last_n = first["n"]
                live.conns.add(conn)
                await websocket.send_text(json.dumps(first))
                conn.last_table = json.dumps({"type": "table", "table": live.public()})
                await websocket.send_text(conn.last_table)
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
                await handle(live, conn, text)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass  # the client went away mid-send
        finally:
            live.conns.discard(conn)
            try:
                await hub.connected(live, key, -1)
                await hub.changed(live)
            except Exception:
                pass

    async def handle(live: Live, conn: Connection, text: str) -> None:
        if not await limiter.socket_message(conn, text):
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
                await conn.websocket.send_text(json.dumps(frame))
        elif kind == "back":
            if conn.key != SPECTATOR and await seated(live, conn, cid):
                await hub.set_away(live, conn.key, False)
        elif kind == "leave":
            if conn.key == SPECTATOR:
                await conn.error(cid, "spectator", "spectators have no seat to leave")
                return
            if not await seated(live, conn, cid):
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
            await act(live, conn, msg, cid)
        else:
            await conn.error(cid, "malformed", f"unknown message type {kind[:30]!r} "
                                               "(act, leave, back, resync, ping)")

    async def seated(live: Live, conn: Connection, cid: str | None) -> bool:
        """Whether the socket's account still holds its seat, checked now: the session is still
        valid and the seat is still this account's (not freed, left or taken by another). If not,
        the message is refused and the socket closed; it may reconnect to watch."""
        if hub.multi:
            await hub.refresh(live)  # another process may have changed the seat
        acc = await asyncio.to_thread(store.session_account, conn.token) if conn.token else None
        if acc is not None and acc.id == conn.account_id and live.seats[conn.key].held_by(acc.id):
            return True
        await conn.error(cid, "not-your-seat", "this seat is no longer yours (you left, were signed out, or it "
                                               "was freed); reconnect to watch")
        live.conns.discard(conn)
        hub.close_unseated(conn, "signed out" if acc is None else "your seat is no longer yours")
        return False

    async def act(live: Live, conn: Connection, msg: dict[str, Any], cid: str | None) -> None:
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
        if not await seated(live, conn, cid):
            return
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
            await conn.error(cid, "notation", str(err)[:200])
            return
        except ActionError as err:
            await conn.error(cid, err.code, err.message)
            return
        if live.seats[conn.key].away:
            await hub.set_away(live, conn.key, False)
        try:
            await live.submit(conn.key, action, cid, "player")
        except ActionError as err:
            await conn.error(cid, err.code, err.message)
            return
        await conn.send_json({"type": "ack", "id": cid})
        await hub.after_step(live)

    try:  # the browser client, when this copy of the package has it
        web = importlib.import_module("updown.web")
    except ImportError:
        web = None
    if web is not None and hasattr(web, "mount"):
        web.mount(app)
    else:
        @app.get("/")
        def index() -> dict[str, Any]:
            return {"updown": "server", "api": "/api/docs"}

    return app


class Connection:
    """One client's WebSocket: its seat (or SPECTATOR) and the last frame number it was sent."""

    def __init__(self, websocket: WebSocket, key: int, lang: str = "en", *, account_id: int | None = None,
                 session: str | None = None):
        self.websocket = websocket
        self.key = key
        self.lang = lang
        self.account_id = account_id
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
        await self.send_text(json.dumps(data))

    async def error(self, cid: str | None, code: str, message: str) -> None:
        await self.send_json({"type": "error", "id": cid, "code": code, "message": message})

    async def close(self, code: int, reason: str) -> None:
        """Close the socket (under the send lock, so no frame is cut in half)."""
        try:
            async with self.send_lock:
                await self.websocket.close(code=code, reason=reason[:120])
        except Exception:
            pass  # already gone
