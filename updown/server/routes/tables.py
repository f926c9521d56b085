"""Tables: the games on offer, the lobby, creating, joining and leaving a table, its record, hints."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from updown.bots import bot_names
from updown.core.errors import UpdownError
from updown.core.registry import all_games, get_game
from updown.server.deps import AccountDep, SeatDep, ServicesDep, TableDep, bad
from updown.server.hub import new_table_id
from updown.server.limits import Limited
from updown.server.live import ActionError
from updown.server.models import Seat, Table

log = logging.getLogger("updown.server")
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
            "seats": [{"seat": s.seat, "kind": s.kind, "name": s.name,
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
    return live.public()


@router.get("/tables/{table_id}")
async def get_table(live: TableDep) -> dict[str, Any]:
    return live.public()


@router.post("/tables/{table_id}/join")
async def join(live: TableDep, body: JoinIn, acc: AccountDep, svc: ServicesDep) -> dict[str, Any]:
    hub, store = svc.hub, svc.store
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
    return live.public()


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
    finished = live.state.is_terminal()
    return JSONResponse(live.record(full=finished),
                        headers={"Content-Disposition": f'attachment; filename="{live.game.id}-{live.id}.json"'})


@router.get("/tables/{table_id}/hint")
async def hint(live: TableDep, acc: AccountDep, svc: ServicesDep, budget: int = 300) -> dict[str, Any]:
    """The coach for the asking seat only, on unrated tables: each legal action with its estimate."""
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
    await svc.limiter.hint(acc.id, budget)
    from updown.bots.coach import analyse, is_mistake

    hints = await asyncio.to_thread(analyse, live.game, view, legal, budget=budget, seed=len(live.steps))
    return {"seat": seat, "hints": [
        {"id": h.action, "notation": live.game.action_to_str(h.action), "estimate": round(h.estimate, 4),
         "stderr": round(h.stderr, 4), "best": i == 0, "clearly_worse": is_mistake(hints, h.action)}
        for i, h in enumerate(hints)]}
