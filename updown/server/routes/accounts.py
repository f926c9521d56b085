"""Accounts: register, sign in, play as a guest, sign out, and what ``/api/me`` shows."""

from __future__ import annotations

import asyncio
import re
import secrets
from typing import Any

from argon2.exceptions import InvalidHashError, VerifyMismatchError
from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from updown.server.deps import COOKIE, AccountDep, ServicesDep, Services, me_dict
from updown.server.errors import Refused
from updown.server.models import Account
from updown.server.routes.tables import table_summary
from updown.server.store import token_hash

NAME_RE = re.compile(r"^[A-Za-z0-9À-ÿ][A-Za-z0-9À-ÿ _.-]{1,23}$")
RESERVED = ("bot:", "guest-", "house")
BOT_NAME = re.compile(r"^\S+ bot \d+$", re.IGNORECASE)
"""How a table names its bots ("Greedy bot 1", shown in the reader's language): no person is so named."""
NAME_RULE = "a name has 2 to 24 letters, digits, spaces, '.', '_' or '-', and starts with a letter or digit"

router = APIRouter(prefix="/api")


class Credentials(BaseModel):
    name: str = Field(max_length=64)
    password: str = Field(max_length=256)


class GuestIn(BaseModel):
    name: str | None = Field(default=None, max_length=64)


def signed_in(svc: Services, response: Response, account_id: int) -> None:
    token = svc.store.new_session(account_id)
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=svc.settings.secure_cookies,
                        max_age=30 * 24 * 3600, path="/")


@router.post("/register")
async def register(body: Credentials, request: Request, response: Response, svc: ServicesDep) -> dict[str, Any]:
    name = body.name.strip()
    if not NAME_RE.match(name):
        raise Refused(400, NAME_RULE, "name-rule")
    if name.lower().startswith(RESERVED) or BOT_NAME.match(name):
        raise Refused(400, f"the name {name!r} is kept for the site (its bots, guests and house are so named)",
                      "name-reserved", name=name)
    if len(body.password) < 8:
        raise Refused(400, "a password has at least 8 characters", "password-short")
    await svc.limiter.new_account(request)
    async with svc.limiter.hashing():
        pw_hash = await asyncio.to_thread(svc.hasher.hash, body.password)

    def create() -> dict[str, Any]:
        account_id = svc.store.create_account(name, "person", pw_hash)
        if account_id is None:
            raise Refused(409, f"the name {name!r} is taken", "name-taken", name=name)
        signed_in(svc, response, account_id)
        acc = svc.store.account(account_id)
        assert acc is not None
        return me_dict(svc, acc)

    return await asyncio.to_thread(create)


@router.post("/login")
async def login(body: Credentials, request: Request, response: Response, svc: ServicesDep) -> dict[str, Any]:
    await svc.limiter.login(request, body.name)
    acc = await asyncio.to_thread(svc.store.account_by_name, body.name.strip())
    hasher = svc.hasher

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
            svc.store.set_password(acc.id, hasher.hash(body.password))
        return ok

    async with svc.limiter.hashing():
        ok = await asyncio.to_thread(check)
    if not ok or acc is None:
        raise Refused(401, "wrong name or password", "wrong-credentials")
    if getattr(acc, "disabled", False):
        raise Refused(403, "this account is disabled; ask the site's host", "account-disabled")

    def sign_in(acc: Account) -> dict[str, Any]:
        signed_in(svc, response, acc.id)
        return me_dict(svc, acc)

    return await asyncio.to_thread(sign_in, acc)


@router.post("/guest")
async def guest(body: GuestIn, request: Request, response: Response, svc: ServicesDep) -> dict[str, Any]:
    base = (body.name or "").strip()
    if base and not NAME_RE.match(base):
        raise Refused(400, NAME_RULE, "name-rule")
    await svc.limiter.new_account(request)

    def create() -> dict[str, Any]:
        for _ in range(5):
            name = f"guest-{secrets.token_hex(3)}" if not base else f"guest-{base}-{secrets.token_hex(2)}"
            account_id = svc.store.create_account(name, "guest", None)
            if account_id is not None:
                signed_in(svc, response, account_id)
                acc = svc.store.account(account_id)
                assert acc is not None
                return me_dict(svc, acc)
        raise Refused(503, "could not make a guest name; try again", "guest-name")

    return await asyncio.to_thread(create)


@router.post("/logout")
async def logout(request: Request, response: Response, svc: ServicesDep) -> dict[str, Any]:
    token = request.cookies.get(COOKIE)
    if token:
        await asyncio.to_thread(svc.store.end_session, token)
        # The session's sockets stop at once: here, and in the other processes.
        svc.hub.close_session(token_hash(token))
        await svc.hub.bus.session_ended(token_hash(token))
    response.delete_cookie(COOKIE, path="/")
    return {"ok": True}


@router.get("/me")
async def me(acc: AccountDep, svc: ServicesDep) -> dict[str, Any]:
    def read() -> dict[str, Any]:
        out = me_dict(svc, acc)
        out["ratings"] = svc.store.account_ratings(acc.id)
        out["tables"] = [table_summary(t, s) for t, s in svc.store.account_tables(acc.id)]
        out["ledger"] = svc.store.entries(acc.id)[-50:] if acc.kind == "person" else []
        return out

    return await asyncio.to_thread(read)
