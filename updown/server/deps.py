"""What every route may depend on, as typed FastAPI dependencies, checked on every call:

* :data:`ServicesDep`: the settings, the store, the hub, the limiter (one :class:`Services` per app);
* :data:`MaybeAccount` / :data:`AccountDep`: the account of the request's session now (401 if none);
* :data:`TableDep`: a table by its id in the path (404 if none), its seats re-read;
* :data:`SeatDep`: the seat the signed-in account holds at that table now, and has not left.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated, Any

from argon2 import PasswordHasher
from fastapi import Depends, HTTPException, Request
from starlette.requests import HTTPConnection

from updown.server.hub import Hub
from updown.server.limits import Limiter
from updown.server.live import Live
from updown.server.models import Account
from updown.server.settings import Settings
from updown.server.store import Store

COOKIE = "updown_session"


@dataclass
class Services:
    settings: Settings
    store: Store
    hub: Hub
    limiter: Limiter
    hasher: PasswordHasher


def bad(status: int, message: str) -> HTTPException:
    return HTTPException(status_code=status, detail=message)


def services(conn: HTTPConnection) -> Services:
    found: Services = conn.app.state.services
    return found


ServicesDep = Annotated[Services, Depends(services)]


async def maybe_account(request: Request, svc: ServicesDep) -> Account | None:
    token = request.cookies.get(COOKIE)
    return await asyncio.to_thread(svc.store.session_account, token) if token else None


MaybeAccount = Annotated[Account | None, Depends(maybe_account)]


async def account(acc: MaybeAccount) -> Account:
    if acc is None:
        raise bad(401, "sign in or play as a guest first")
    return acc


AccountDep = Annotated[Account, Depends(account)]


async def table(table_id: str, svc: ServicesDep) -> Live:
    live = await svc.hub.live(table_id)
    if live is None:
        raise bad(404, "no such table")
    await svc.hub.refresh(live)
    return live


TableDep = Annotated[Live, Depends(table)]


@dataclass
class SeatAt:
    """The seat an account holds at a table, checked now."""

    live: Live
    seat: int
    account: Account


async def seat(live: TableDep, acc: AccountDep) -> SeatAt:
    found = next((i for i, s in enumerate(live.seats) if s.held_by(acc.id)), None)
    if found is None:
        raise bad(409, "you have no seat at this table")
    return SeatAt(live, found, acc)


SeatDep = Annotated[SeatAt, Depends(seat)]


def me_dict(svc: Services, acc: Account) -> dict[str, Any]:
    return {"id": acc.id, "name": acc.name, "kind": acc.kind,
            "balance": svc.store.balance(acc.id) if acc.kind == "person" else None}
