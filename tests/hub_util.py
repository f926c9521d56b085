"""Helpers for the tests that run a hub in the test's own process, on a database of their own and
without the hub's loops (its clock, heartbeat and re-read are turned by hand): the store, an
UP&DOWN table of people and ``random`` bots, and a run that cancels every driving loop it leaves."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from typing import Any

from updown.server.db import make_engine, upgrade
from updown.server.hub import Hub
from updown.server.models import Seat, Table
from updown.server.store import Store

PEOPLE = ("ann", "bob", "cyd", "dee")


def store_for(db: str) -> Store:
    """A store on the database at ``db``, its schema brought up to date."""
    engine = make_engine(db)
    upgrade(engine)
    return Store(engine)


def updown_table(store: Store, table_id: str, *, people: int = 2, timer: float | None = None,
                 grace: float = 3600.0, status: str = "running") -> None:
    """An UP&DOWN table of one round: ``people`` people first (ann at seat 0, then bob, ...; nobody
    connected), ``random`` bots in the other seats."""
    ids = [store.account_id_for(f"{PEOPLE[i]}-{table_id}", "person") for i in range(people)]
    store.create_table(
        Table(id=table_id, game="updown", players=4, options='{"rounds": 1}', seed=f"seed-{table_id}", timer=timer,
              grace=grace, rated=False, private=False, status=status, created_by=ids[0] if ids else None,
              created_at=time.time()),
        [Seat(table_id=table_id, seat=i, kind="person", account_id=ids[i], name=PEOPLE[i]) if i < people else
         Seat(table_id=table_id, seat=i, kind="bot", bot="random", name=f"bot {i}") for i in range(4)])


def run_hubs(body: Callable[[], Awaitable[None]], *hubs: Hub) -> None:
    """Run ``body`` in a fresh event loop, then cancel the driving loops the hubs still have."""
    async def main() -> None:
        try:
            await body()
        finally:
            for hub in hubs:
                for live in hub.lives.values():
                    if live.driver is not None:
                        live.driver.cancel()
            await asyncio.sleep(0)

    asyncio.run(main())


def run_hub(db: str, body: Callable[[Hub, Store], Awaitable[None]], **kw: Any) -> None:
    """``body(hub, store)`` with a hub of its own on ``db`` (``kw`` for the hub), the clock's net
    off (``sweep``: only the tables' own wake-ups), the engine disposed of afterwards."""
    store = store_for(db)
    hub = Hub(store, bot_delay=0, **kw)
    hub.sweep = math.inf
    try:
        run_hubs(lambda: body(hub, store), hub)
    finally:
        store.engine.dispose()
