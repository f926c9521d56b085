"""Tables: the games on offer, the lobby, creating, joining and leaving a table, its record, hints,
the review of a finished game, and the rematch."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy.exc import IntegrityError

from updown.bots import bot_names
from updown.core.errors import UpdownError
from updown.core.registry import all_games, get_game
from updown.server.botpool import COACH, BotPool, advise
from updown.server.deps import AccountDep, SeatDep, Services, ServicesDep, TableDep, bad
from updown.server.hub import new_table_id
from updown.server.limits import Limited
from updown.server.live import ActionError, Live
from updown.server.models import Account, Seat, Table

log = logging.getLogger("updown.server")
T = TypeVar("T")
router = APIRouter(prefix="/api")


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


def table_summary(t: Table, seats: list[Seat]) -> dict[str, Any]:
    return {"id": t.id, "game": t.game, "players": t.players, "options": json.loads(t.options),
            "status": t.status, "rated": t.rated, "timer": t.timer, "created_at": t.created_at,
            "seats": [{"seat": s.seat, "kind": s.kind, "name": s.name, "left": bool(s.left),
                       "reserved": s.kind == "open" and s.account_id is not None,
                       "bot": s.bot if s.kind == "bot" else None} for s in seats]}


@router.get("/games")
def games() -> list[dict[str, Any]]:
    return [{"id": g.id, "name": g.name, "min_players": g.min_players, "max_players": g.max_players,
             "default_players": g.bench_players, "teams": g.teams(g.bench_players) is not None,
             "options": [{"name": n, "type": getattr(t, "__name__", str(t)), "default": d, "help": h}
                         for n, t, d, h in g.Options.fields()],
             "bots": bot_names(g.id)} for g in all_games()]


@router.get("/tables")
async def tables(svc: ServicesDep, status: str = "open,running") -> list[dict[str, Any]]:
    wanted = [s for s in status.split(",") if s in ("open", "running", "finished")]
    found = await asyncio.to_thread(svc.store.tables, wanted)
    return [table_summary(t, s) for t, s in found]


@router.post("/tables")
async def create_table(body: TableIn, acc: AccountDep, svc: ServicesDep) -> dict[str, Any]:
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
    research = options.research_in_use()
    if research:  # a reduced deck and the like are for research tools, never for play here
        raise bad(400, f"options: {', '.join(research)}: a research variant, not offered for play on this server")
    if body.timer is not None and not 5 <= body.timer <= 3600:
        raise bad(400, "the move timer is 5 to 3600 seconds, or none")
    if not 0 <= body.grace <= 3600:
        raise bad(400, "the grace period is 0 to 3600 seconds")
    if body.rated and acc.kind != "person":
        raise bad(400, "guests play unrated tables only; register to play rated")
    specs = body.seats or ["me"] + ["open"] * (players - 1)
    if len(specs) != players:
        raise bad(400, f"give {players} seats, not {len(specs)}")
    people = any(spec in ("me", "open") for spec in specs)
    if body.rated and not people:
        raise bad(400, "a rated table needs a seat for a person ('me' or 'open'): bots alone are not rated")
    at_once = svc.settings.limits.bot_tables_at_once
    if not people and await asyncio.to_thread(svc.store.bot_tables, acc.id) >= at_once:
        raise Limited(f"you have {at_once} tables of bots alone running; wait for one to end", 30)
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
    await svc.limiter.new_table(acc.id, acc.kind)
    row = Table(id=table_id, game=game.id, players=players, options=json.dumps(options.to_dict()),
                seed=secrets.token_hex(16), timer=body.timer, grace=body.grace, rated=body.rated,
                private=body.private, status="open", created_by=acc.id, created_at=time.time(),
                lease_until=0.0)
    await asyncio.to_thread(svc.store.create_table, row, seats)
    log.info("table %s created by %s: %s, %d players, %s%s", table_id, acc.name, game.id, players,
             " ".join(specs), ", rated" if body.rated else "")
    if await asyncio.to_thread(svc.store.start_table, table_id):
        log.info("table %s started", table_id)
        await svc.hub.started(table_id)
    live = await svc.hub.live(table_id)
    assert live is not None
    await svc.hub.lobby_changed(live)  # a table with open seats: nothing else announced it
    return live.public()


@router.get("/tables/{table_id}")
async def get_table(live: TableDep) -> dict[str, Any]:
    return live.public()


@router.post("/tables/{table_id}/join")
async def join(live: TableDep, body: JoinIn, acc: AccountDep, svc: ServicesDep) -> dict[str, Any]:
    if live.status != "open":
        raise bad(409, "the game has started; watch it instead")
    if live.rated and acc.kind != "person":
        raise bad(403, "this table is rated: register to play it")
    if any(s.kind == "person" and s.account_id == acc.id for s in live.seats):
        raise bad(409, "you already have a seat at this table")
    # An open seat may be kept for one person (a rematch keeps each player's seat): only they take it.
    mine = [i for i, s in enumerate(live.seats) if s.kind == "open" and s.account_id == acc.id]
    free = mine or [i for i, s in enumerate(live.seats) if s.kind == "open" and s.account_id is None]
    seat = body.seat if body.seat is not None and not mine else (free[0] if free else None)
    if seat is None or seat not in free:
        kept = seat is not None and 0 <= seat < len(live.seats) and live.seats[seat].kind == "open"
        raise bad(409, "that seat is kept for another player" if kept else
                  "that seat is taken" if seat is not None else "every seat is taken")
    await sit(svc, live, seat, acc)
    return live.public()


async def sit(svc: Services, live: Live, seat: int, acc: Account) -> None:
    """Seat ``acc`` at the open ``seat`` (the database decides races), and start the table when it
    was the last open seat."""
    hub, store = svc.hub, svc.store
    why = await asyncio.to_thread(store.take_seat, live.id, seat, acc.id, acc.name)
    if why is not None:  # the database decides races: one seat per account, one account per seat
        await hub.refresh(live)
        raise bad(409, "you already have a seat at this table" if why == "seated" else "that seat was just taken")
    if await asyncio.to_thread(store.start_table, live.id):
        log.info("table %s started, %s took the last seat", live.id, acc.name)
        await hub.started(live.id)
    else:
        await hub.refresh(live)
        await hub.changed(live)


@router.post("/tables/{table_id}/leave")
async def leave(at: SeatDep, svc: ServicesDep) -> dict[str, Any]:
    live, hub = at.live, svc.hub
    if live.status == "open":
        await asyncio.to_thread(svc.store.free_seat, live.id, at.seat, at.account.id)
        await hub.refresh(live)  # closes this account's sockets on the seat
        await hub.changed(live)
        return live.public()
    try:
        await hub.leave(live, at.seat)
    except ActionError as err:
        raise bad(409, err.message) from None
    return live.public()


@router.get("/tables/{table_id}/record")
async def record(live: TableDep) -> JSONResponse:
    """A finished game's record; of a running one, what a spectator may see (whoever asks)."""
    async with live.lock:
        await live.catch_up()
    chat, missing = await live.chat_for_record()
    finished = live.state.is_terminal()
    return JSONResponse(live.record(full=finished, chat=chat, missing=missing),
                        headers={"Content-Disposition": f'attachment; filename="{live.game.id}-{live.id}.json"'})


HINT_TIMEOUT = 600.0
"""Seconds a hint or review may run in the bot pool before its worker is stopped."""
WATCH = 0.25
"""Seconds between the looks a hint or review takes at whether it is still wanted."""


def _pool(request: Request) -> BotPool:
    pool: BotPool = request.app.state.bot_pool
    return pool


async def _while_wanted(work: Awaitable[T], request: Request, gone: Callable[[], str | None]) -> T:
    """``work``'s answer, unless the asker goes first: ``gone()`` says why (the player left the seat,
    the turn passed) or the request's client disconnected (the page was closed). Then the work is
    cancelled (taken off the bot pool's queue, or its worker stopped) and the answer is 409."""
    task = asyncio.ensure_future(work)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=WATCH)
            if done:
                return task.result()
            why = gone()
            if why is None and await request.is_disconnected():
                why = "the request was closed"
            if why is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                raise bad(409, why)
    finally:
        if not task.done():  # the handler itself was cancelled
            task.cancel()


@router.get("/tables/{table_id}/hint")
async def hint(request: Request, live: TableDep, acc: AccountDep, svc: ServicesDep, budget: int = 300
               ) -> dict[str, Any]:
    """The coach for the asking seat only, on unrated tables: each legal action with its estimate.

    It runs in the bot pool, in the asker's turn among users, from the seat's view alone; it is
    cancelled if the player leaves the seat, the turn passes or the request is closed."""
    if live.rated:
        raise bad(403, "hints are for unrated tables only")
    seat = next((i for i, s in enumerate(live.seats) if s.held_by(acc.id)), None)
    if seat is None:
        raise bad(403, "only a seated player gets hints, for their own seat")
    if not 50 <= budget <= 2000:
        raise bad(400, "the budget is 50 to 2000 playouts")
    async with live.lock:
        if live.status != "running" or live.state.is_terminal() or seat not in live.state.actors():
            raise bad(409, "it is not your turn")
        view = live.state.view(seat)
        legal = live.state.legal_actions(seat)
        at = len(live.steps)
    await svc.limiter.hint(acc.id, budget)

    def gone() -> str | None:
        if not live.seats[seat].held_by(acc.id):
            return "you left the seat"
        if live.state.is_terminal() or seat not in live.state.actors():
            return "it is no longer your turn"
        return None

    work = _pool(request).run(advise, live.game.id, view, legal, budget, at, key=f"user:{acc.id}", kind=COACH,
                              timeout=HINT_TIMEOUT)
    hints = await _while_wanted(work, request, gone)
    from updown.bots.coach import is_mistake

    return {"seat": seat, "hints": [
        {"id": h.action, "notation": live.game.action_to_str(h.action), "estimate": round(h.estimate, 4),
         "stderr": round(h.stderr, 4), "best": i == 0, "clearly_worse": is_mistake(hints, h.action)}
        for i, h in enumerate(hints)]}


# -- the review of a finished game ---------------------------------------------------------------
REVIEW_PLAYOUTS = 2400
"""Playouts a review spends in all, spread over the seat's decisions (16 to 120 each)."""
_reviews: dict[tuple[str, int], dict[str, Any]] = {}
_reviewing: asyncio.Semaphore | None = None
_review_locks: dict[tuple[str, int], asyncio.Lock] = {}


def _decisions(record: dict[str, Any], seat: int) -> list[tuple[int, dict[str, Any], list[int], int]]:
    """(step, view, legal, action) at each of ``seat``'s decisions: the view as it was before acting
    (the seat's own, nothing else), and the step of the replay viewer that shows that moment."""
    from updown.core.records import Record, replay

    pending: list[Any] = [None]
    count = [0]
    found: list[tuple[int, dict[str, Any], list[int], int]] = []

    def on_step(state: Any, who: int | None, action: int) -> None:
        if who == seat and pending[0] is not None:
            at, view, legal = pending[0]
            found.append((at, view, legal, action))
        count[0] += 1
        if not state.is_terminal() and seat in state.actors():
            pending[0] = (count[0], state.view(seat), state.legal_actions(seat))
        else:
            pending[0] = None

    rec = Record.from_dict(record)
    from updown.core.records import new_state_for

    first = new_state_for(rec)
    if not first.is_terminal() and seat in first.actors():
        pending[0] = (0, first.view(seat), first.legal_actions(seat))
    replay(rec, on_step=on_step)
    return found


def _review(game_id: str, record: dict[str, Any], seat: int) -> dict[str, Any]:
    """What ``updown review`` says of ``seat``'s decisions, each from that seat's view alone (a job of
    the bot pool: the finished game's record, which anyone may have by then, and the seat)."""
    from updown.bots.coach import THRESHOLD, analyse, is_mistake

    game = get_game(game_id)
    decisions = _decisions(record, seat)
    choices = [d for d in decisions if len(d[2]) >= 2]
    per = max(16, min(120, REVIEW_PLAYOUTS // max(1, len(choices))))
    rows = []
    for number, (step, view, legal, action) in enumerate(decisions, start=1):
        if len(legal) < 2:
            continue
        hints = analyse(game, view, legal, budget=per, seed=number)
        played = next(h for h in hints if h.action == action)
        rows.append({"decision": number, "step": step, "played": game.action_to_str(action),
                     "best": game.action_to_str(hints[0].action), "played_estimate": round(played.estimate, 4),
                     "best_estimate": round(hints[0].estimate, 4), "mistake": is_mistake(hints, action),
                     "options": [{"notation": game.action_to_str(h.action), "estimate": round(h.estimate, 4),
                                  "stderr": round(h.stderr, 4)} for h in hints]})
    return {"seat": seat, "budget": per, "threshold": THRESHOLD, "decisions": rows,
            "forced": len(decisions) - len(rows), "mistakes": sum(1 for r in rows if r["mistake"])}


@router.get("/tables/{table_id}/review")
async def review(request: Request, live: TableDep, acc: AccountDep, svc: ServicesDep) -> dict[str, Any]:
    """The coach on the asking seat's decisions of a finished unrated game (``updown review``):
    each decision that had a choice, the best action, and the clearly worse ones marked. Each is
    judged from the seat's own view at that moment, as the hint was; computed once per seat, in the
    bot pool in the asker's turn (cancelled if the request is closed)."""
    global _reviewing
    if live.rated:
        raise bad(403, "reviews are for unrated tables only")
    seat = next((i for i, s in enumerate(live.seats) if s.held_by(acc.id)), None)
    if seat is None:
        raise bad(403, "only a player who stayed to the end gets a review, of their own seat")
    async with live.lock:
        await live.catch_up()
        if not live.state.is_terminal():
            raise bad(409, "the review comes when the game is over")
        record = live.record(full=True, chat=[])  # the review reads the moves alone
    key = (live.id, seat)
    if key in _reviews:
        return _reviews[key]
    pool = _pool(request)
    if pool.size == 0:  # in this process: one review at a time, they are long
        if _reviewing is None:
            _reviewing = asyncio.Semaphore(1)
        gate: asyncio.Semaphore | asyncio.Lock = _reviewing
    else:  # in the pool, whose shares bound them: one at a time for each seat's review
        gate = _review_locks.setdefault(key, asyncio.Lock())
    try:
        async with gate:
            if key in _reviews:
                return _reviews[key]
            await svc.limiter.hint(acc.id, REVIEW_PLAYOUTS)
            work = pool.run(_review, live.game.id, record, seat, key=f"user:{acc.id}", kind=COACH,
                            timeout=HINT_TIMEOUT)
            out: dict[str, Any] = await _while_wanted(work, request, lambda: None)
            while len(_reviews) >= 64:
                _reviews.pop(next(iter(_reviews)))
            _reviews[key] = out
    finally:
        lock = _review_locks.get(key)
        if lock is not None and not lock.locked():
            del _review_locks[key]
    return out


# -- the rematch ---------------------------------------------------------------------------------
def rematch_id(live: Live) -> str:
    """The rematch's table id: from the old table's secret seed, so every process (and every player
    who asks) finds the same table, and nobody can tell it from the old table's id. The new table
    has a seed of its own: nothing of the old game's hidden cards carries over."""
    digest = hashlib.sha256(b"updown-rematch\0" + live.seed.encode()).digest()
    return base64.urlsafe_b64encode(digest[:12]).decode()


async def _rematch_of(svc: Services, live: Live) -> Live | None:
    if live.status != "finished":
        return None
    return await svc.hub.live(rematch_id(live))


@router.get("/tables/{table_id}/rematch")
async def get_rematch(live: TableDep, svc: ServicesDep) -> dict[str, Any]:
    """The rematch of a finished table, if one of its players has asked for it (public, like the table)."""
    found = await _rematch_of(svc, live)
    if found is None:
        return {"id": None, "table": None}
    await svc.hub.refresh(found)
    return {"id": found.id, "table": found.public()}


@router.post("/tables/{table_id}/rematch")
async def rematch(live: TableDep, acc: AccountDep, svc: ServicesDep) -> dict[str, Any]:
    """Ask for a rematch of a finished game: the same game, options, timer and rating, the same
    bots in the same seats, each person who stayed to the end invited to their own seat (an open
    seat kept for them) and a new seed. The first to ask makes the table; the others who ask take
    their kept seat; it starts when every seat is taken. Only a player who stayed to the end may ask."""
    if live.status != "finished":
        raise bad(409, "a rematch comes when the game is over")
    if not any(s.held_by(acc.id) for s in live.seats):
        raise bad(403, "only the players of this game can ask for a rematch")
    new_id = rematch_id(live)
    found = await svc.hub.live(new_id)
    if found is None:
        seats: list[Seat] = []
        for i, s in enumerate(live.seats):
            if s.kind == "bot":
                seats.append(Seat(table_id=new_id, seat=i, kind="bot", bot=s.bot, name=s.name))
            elif s.held_by(acc.id):
                seats.append(Seat(table_id=new_id, seat=i, kind="person", account_id=acc.id, name=acc.name))
            elif s.kind == "person" and not s.left and s.account_id is not None:
                seats.append(Seat(table_id=new_id, seat=i, kind="open", account_id=s.account_id, name=s.name))
            else:  # a seat whose person left: open to anyone
                seats.append(Seat(table_id=new_id, seat=i, kind="open", name=""))
        await svc.limiter.new_table(acc.id, acc.kind)
        row = Table(id=new_id, game=live.game.id, players=live.players, options=json.dumps(live.options.to_dict()),
                    seed=secrets.token_hex(16), timer=live.timer, grace=live.grace, rated=live.rated,
                    private=live.private, status="open", created_by=acc.id, created_at=time.time(),
                    lease_until=0.0)
        try:
            await asyncio.to_thread(svc.store.create_table, row, seats)
            log.info("table %s: rematch of %s asked by %s", new_id, live.id, acc.name)
            if await asyncio.to_thread(svc.store.start_table, new_id):
                await svc.hub.started(new_id)
        except IntegrityError:
            pass  # another player asked at the same moment: their table it is
        found = await svc.hub.live(new_id)
        if found is None:
            raise bad(503, "the rematch could not be made; try again")
        await svc.hub.lobby_changed(found)
    await svc.hub.refresh(found)
    if not any(s.kind == "person" and s.account_id == acc.id for s in found.seats):
        if found.status != "open":
            raise bad(409, "the rematch has started without you; watch it instead")
        mine = [i for i, s in enumerate(found.seats) if s.kind == "open" and s.account_id == acc.id]
        free = mine or [i for i, s in enumerate(found.seats) if s.kind == "open" and s.account_id is None]
        if not free:
            raise bad(409, "every seat of the rematch is taken")
        await sit(svc, found, free[0], acc)
    return {"id": found.id, "table": found.public()}
