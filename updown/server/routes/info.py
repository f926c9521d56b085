"""What anyone may read: leaderboards, the rules texts, the message catalogue, and health."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse
from sqlalchemy import text

from updown.core.errors import UpdownError
from updown.core.registry import get_game
from updown.i18n import catalogue_json, normalize
from updown.rules import rules_text
from updown.server.deps import ServicesDep, bad
from updown.server.hub import RedisBus
from updown.server.metrics import page

router = APIRouter(prefix="/api")
root = APIRouter()


@router.get("/leaderboard/{game_id}")
async def leaderboard(game_id: str, svc: ServicesDep) -> list[dict[str, Any]]:
    try:
        get_game(game_id)
    except UpdownError as err:
        raise bad(404, str(err)) from None
    return await asyncio.to_thread(svc.store.leaderboard, game_id)


@router.get("/rules/{game_id}")
def rules(game_id: str, lang: str = "en") -> dict[str, Any]:
    """A game's rules in short, in the project's own words (``updown rules``), as Markdown."""
    try:
        get_game(game_id)
    except UpdownError as err:
        raise bad(404, str(err)) from None
    code = normalize(lang)
    found = rules_text(game_id, code)
    if found is None:
        raise bad(404, f"no rules text for {game_id}")
    return {"game": game_id, "lang": code, "markdown": found}


@router.get("/i18n/{lang}")
def messages(lang: str) -> Response:
    """The message catalogue (the terminal's too) for a browser: ``{lang, plural_forms, messages}``."""
    return Response(catalogue_json(normalize(lang)), media_type="application/json")


@router.get("/health")
async def health(svc: ServicesDep) -> JSONResponse:
    """200 when the database (and Redis, when there is one) answer; 503 naming what does not."""
    problems: dict[str, str] = {}

    def database() -> None:
        with svc.store.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    try:
        await asyncio.wait_for(asyncio.to_thread(database), 5)
    except Exception as err:
        problems["database"] = (str(err).splitlines() or [type(err).__name__])[0][:200] or "no answer in 5 s"
    bus = svc.hub.bus
    if isinstance(bus, RedisBus):
        try:
            await asyncio.wait_for(bus.redis.ping(), 5)
        except Exception as err:
            problems["redis"] = (str(err).splitlines() or [type(err).__name__])[0][:200] or "no answer in 5 s"
    body = {"ok": not problems, "tables": len(svc.hub.lives), **({"problems": problems} if problems else {})}
    return JSONResponse(body, status_code=200 if not problems else 503)


@root.get("/metrics", include_in_schema=False)
def metrics(svc: ServicesDep) -> Response:
    """This process's metrics in the Prometheus text format (``updown.server.metrics``)."""
    body, content_type = page(svc.hub)
    return Response(body, media_type=content_type)
