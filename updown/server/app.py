"""The server's application: :func:`create_app` assembles the settings, the services, the guards
and the routers (``updown/server/routes/``). See ``docs/server.md`` for every route and message."""

from __future__ import annotations

import asyncio
import importlib
import logging
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

from argon2 import PasswordHasher
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from updown.core.errors import UpdownError
from updown.server.botpool import BotPool, default_workers
from updown.server.db import make_engine, upgrade
from updown.server.deps import Services
from updown.server.gcpolicy import GcPolicy
from updown.server.guards import BodyLimit, GuardedApp, SameOrigin, validation_error
from updown.server.hub import Bus, Hub, RedisBus
from updown.server.limits import Limiter
from updown.server.live import Live
from updown.server.routes import accounts, info, lobby, play, tables
from updown.server.settings import Settings
from updown.server.store import Store

log = logging.getLogger("updown.server")

__all__ = ["Settings", "create_app"]


class PooledHub(Hub):
    """The hub whose tables' bots think in the bot pool (``botpool.py``)."""

    def __init__(self, store: Store, pool: BotPool, **kw: Any):
        super().__init__(store, **kw)
        self.pool = pool

    async def live(self, table_id: str) -> Live | None:
        found = await super().live(table_id)
        if found is not None:
            found.pool = self.pool
        return found


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    engine = make_engine(settings.db, settings.sqlite_sync)
    store = Store(engine)
    bus: Bus = RedisBus(settings.redis) if settings.redis else Bus()
    pool = BotPool(default_workers() if settings.bot_workers is None else settings.bot_workers)
    hub = PooledHub(store, pool, bus=bus, bot_delay=settings.bot_delay, multi=settings.redis is not None)
    limiter = Limiter(settings.limits, settings.redis, namespace=settings.db)
    svc = Services(settings, store, hub, limiter, PasswordHasher())  # argon2id, the library's parameters
    collector = GcPolicy(freeze=settings.gc.freeze, unfreeze_every=settings.gc.unfreeze_every,
                         unfreeze_longest=settings.gc.unfreeze_longest, renew_growth=settings.gc.renew_growth,
                         log_over=settings.gc.log_over, freeze_over=settings.gc.freeze_over,
                         full_after=settings.gc.full_after)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(upgrade, engine)
        await hub.start()
        collector.start()  # after start-up: what it made is frozen (gcpolicy.py)
        yield
        await collector.stop()
        await hub.stop()
        await pool.close()
        engine.dispose()

    docs = settings.api_docs
    app = GuardedApp(title="updown", lifespan=lifespan, docs_url="/api/docs" if docs else None, redoc_url=None,
                     openapi_url="/api/openapi.json" if docs else None)  # security headers on every answer
    app.state.services = svc
    app.state.hub, app.state.store, app.state.limiter = hub, store, limiter
    app.state.bot_pool = pool
    app.state.gc_policy = collector
    app.add_middleware(BodyLimit, limit=settings.limits.max_body, uploads={"/web/replay": settings.limits.max_upload})
    app.add_middleware(SameOrigin, allowed=settings.allowed_origins)
    app.add_exception_handler(RequestValidationError, validation_error)

    @app.exception_handler(UpdownError)
    async def _updown_error(_request: Request, err: UpdownError) -> JSONResponse:
        return JSONResponse(status_code=400, content={"detail": str(err)[:300]})

    for module in (accounts, tables, info, play, lobby):
        app.include_router(module.router)
    app.include_router(info.root)  # /metrics

    try:  # the browser client, when this copy of the package has it
        web = importlib.import_module("updown.web")
    except ImportError:
        web = None
    if web is not None and hasattr(web, "mount"):
        web.mount(app)
    else:
        @app.get("/")
        def index() -> dict[str, Any]:
            return {"updown": "server", "api": "/api/docs" if docs else "/api/games"}

    return app
