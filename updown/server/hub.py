"""The tables this process serves: loading them from the database, driving the ones it owns,
clocks and grace periods, the ledger and ratings at a game's end, and the bus between processes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import uuid
from typing import Any

from updown.core.protocol import State
from updown.server.live import SPECTATOR, ActionError, Live
from updown.server.store import HOUSE, Finish, Store

log = logging.getLogger("updown.server")

LEASE = 10.0
"""Seconds a process's claim to drive a table lasts without renewal (multi-process mode)."""


class Bus:
    """Tells the other server processes that a table changed. The local bus has nobody to tell."""

    async def start(self, hub: Hub) -> None:
        return None

    async def publish(self, table_id: str) -> None:
        return None

    async def close(self) -> None:
        return None


class RedisBus(Bus):
    """Broadcasts through Redis pub/sub: every process hears which table changed, then reads the
    new steps from the shared database and sends its own clients their frames."""

    CHANNEL = "updown:tables"

    def __init__(self, url: str):
        import redis.asyncio as aioredis

        self.redis = aioredis.from_url(url)
        self.task: asyncio.Task[None] | None = None
        self.origin = ""

    async def start(self, hub: Hub) -> None:
        self.origin = hub.owner
        pubsub = self.redis.pubsub()
        await pubsub.subscribe(self.CHANNEL)

        async def listen() -> None:
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                try:
                    data = json.loads(message["data"])
                except (ValueError, TypeError):
                    continue
                if data.get("origin") != self.origin and isinstance(data.get("table"), str):
                    await hub.changed_elsewhere(data["table"])

        self.task = asyncio.get_running_loop().create_task(listen())

    async def publish(self, table_id: str) -> None:
        await self.redis.publish(self.CHANNEL, json.dumps({"origin": self.origin, "table": table_id}))

    async def close(self) -> None:
        if self.task:
            self.task.cancel()
        await self.redis.aclose()


class Hub:
    def __init__(self, store: Store, *, bus: Bus | None = None, bot_delay: float = 0.6, multi: bool = False):
        self.store = store
        self.bus = bus or Bus()
        self.bot_delay = bot_delay
        self.multi = multi
        self.owner = f"{uuid.uuid4().hex[:12]}"
        self.lives: dict[str, Live] = {}
        self.loading: dict[str, asyncio.Lock] = {}
        self.tasks: list[asyncio.Task[None]] = []

    # -- life cycle -----------------------------------------------------------------------------
    async def start(self) -> None:
        await self.bus.start(self)
        if not self.multi:
            # One process: every running table is ours, including those a crashed run left.
            for table_id in await asyncio.to_thread(self.store.running_table_ids):
                await asyncio.to_thread(self.store.claim, table_id, self.owner, LEASE, True)
                await self._own(table_id)
        loop = asyncio.get_running_loop()
        self.tasks.append(loop.create_task(self._clock_loop()))
        if self.multi:
            self.tasks.append(loop.create_task(self._lease_loop()))

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        for live in self.lives.values():
            if live.driver:
                live.driver.cancel()
            for t in live.grace_tasks.values():
                t.cancel()
        await self.bus.close()

    async def _own(self, table_id: str) -> None:
        live = await self.live(table_id)
        if live is not None and not live.owned:
            live.owned = True
            now = time.time()
            live.turn_since = {s: now for s in live.turn_since}  # a new owner gives a full move time
            live.kick()

    async def _lease_loop(self) -> None:
        while True:
            try:
                for table_id in await asyncio.to_thread(self.store.claimable, self.owner):
                    if await asyncio.to_thread(self.store.claim, table_id, self.owner, LEASE):
                        await self._own(table_id)
                for live in list(self.lives.values()):
                    if live.owned and live.status != "running":
                        live.owned = False
            except Exception:
                log.exception("lease loop")
            await asyncio.sleep(LEASE / 3)

    async def _clock_loop(self) -> None:
        """Move timers: a person whose time ran out is marked away, and a bot plays for them."""
        while True:
            await asyncio.sleep(0.25)
            try:
                now = time.time()
                for live in list(self.lives.values()):
                    if not live.owned or live.timer is None or live.status != "running":
                        continue
                    for seat, since in list(live.turn_since.items()):
                        info = live.seats[seat]
                        if info.kind == "person" and not info.away and not info.left and now - since >= live.timer:
                            await self.set_away(live, seat, True)
            except Exception:
                log.exception("clock loop")

    # -- tables ---------------------------------------------------------------------------------
    async def live(self, table_id: str) -> Live | None:
        """The table, loaded from the database and rebuilt from its steps on first use."""
        if table_id in self.lives:
            return self.lives[table_id]
        lock = self.loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            if table_id in self.lives:
                return self.lives[table_id]
            found = await asyncio.to_thread(self.store.table, table_id)
            if found is None:
                return None
            row, seats = found
            live = Live(row, seats, self.store, bot_delay=self.bot_delay, notify=self.after_step)
            live.settler = self.settle
            live.shared = self.multi
            rows = await asyncio.to_thread(self.store.steps, table_id, 0)
            live.absorb(rows)
            self.lives[table_id] = live
            return live

    async def refresh(self, live: Live) -> None:
        """Re-read seats and status (they change through the HTTP API, maybe in another process)."""
        found = await asyncio.to_thread(self.store.table, live.id)
        if found is None:
            return
        row, seats = found
        was = live.status
        live.status = row.status
        live.result = json.loads(row.result) if row.result else live.result
        for info, seat in zip(live.seats, seats):
            info.kind, info.account_id, info.bot, info.name = seat.kind, seat.account_id, seat.bot, seat.name
            info.left, info.away = seat.left, seat.away
        if was == "open" and live.status == "running" and not self.multi:
            live.owned = True
        if live.status == "running":
            live.turn_since = {s: live.turn_since.get(s, time.time()) for s in live.turn_since}

    async def after_step(self, live: Live) -> None:
        await live.broadcast()
        await self.bus.publish(live.id)
        live.kick()

    async def changed(self, live: Live) -> None:
        """Seats or status changed here: tell our clients and the other processes."""
        await live.broadcast()
        await self.bus.publish(live.id)
        live.kick()

    async def changed_elsewhere(self, table_id: str) -> None:
        live = self.lives.get(table_id)
        if live is None:
            return
        await self.refresh(live)
        async with live.lock:
            await live.catch_up()
        await live.broadcast()
        live.kick()

    async def started(self, table_id: str) -> None:
        live = await self.live(table_id)
        if live is None:
            return
        await self.refresh(live)
        if self.multi:
            if await asyncio.to_thread(self.store.claim, table_id, self.owner, LEASE):
                await self._own(table_id)
        else:
            await self._own(table_id)
        await self.changed(live)

    async def set_away(self, live: Live, seat: int, away: bool) -> None:
        info = live.seats[seat]
        if info.away == away:
            return
        info.away = away
        await asyncio.to_thread(self.store.set_seat, live.id, seat, away=away)
        if not away and seat in live.turn_since:
            live.turn_since[seat] = time.time()  # back at the table: a full move time again
        await self.changed(live)

    async def leave(self, live: Live, seat: int) -> None:
        """Leave a running game for good: a bot takes the seat; a game's paid leave is applied once."""
        async with live.lock:
            await live.catch_up()
        info = live.seats[seat]
        if live.status != "running":
            raise ActionError("not-running", "the game is not running")
        # The database decides who left first: two tabs, or a leave racing a timeout, leave once.
        if not await asyncio.to_thread(self.store.mark_left, live.id, seat):
            info.left = True
            raise ActionError("already-left", "you have already left this game")
        info.left = True
        leave = live.state.leave_action(seat)
        if leave is not None:
            live.leave_tried.add(seat)
            try:
                await live.submit(seat, leave, f"leave:{seat}", "leave")
            except ActionError:
                live.leave_tried.discard(seat)  # applied at the seat's next decision instead
        await self.changed(live)

    def connected(self, live: Live, key: int, delta: int) -> None:
        if key == SPECTATOR:
            return
        info = live.seats[key]
        info.connections += delta
        task = live.grace_tasks.pop(key, None)
        if task:
            task.cancel()
        if info.connections == 0 and info.kind == "person" and live.status == "running":
            live.grace_tasks[key] = asyncio.get_running_loop().create_task(self._grace(live, key))

    async def _grace(self, live: Live, seat: int) -> None:
        await asyncio.sleep(live.grace)
        if live.seats[seat].connections == 0:
            await self.set_away(live, seat, True)

    # -- the end of a game ----------------------------------------------------------------------
    def settle(self, live: Live, state: State, finish: Finish) -> Finish:
        """Ledger postings and rating updates for a rated game (runs in a worker thread)."""
        result = state.result()
        seats_accounts = [self._account_of(live, s) for s in range(live.players)]
        extra: dict[str, Any] = {}
        if live.rated and all(a is not None for a in seats_accounts):
            accounts = [a for a in seats_accounts if a is not None]
            riscos = result.details.get("riscos")
            house = result.details.get("house", 0)
            if isinstance(riscos, list) and len(riscos) == live.players:
                postings: dict[int, int] = {}
                for account, amount in zip(accounts, riscos):
                    postings[account] = postings.get(account, 0) + int(amount)
                if house:
                    house_id = self.store.account_id_for(HOUSE, "house")
                    postings[house_id] = postings.get(house_id, 0) + int(house)
                if sum(postings.values()) == 0:
                    finish.postings = {a: v for a, v in postings.items() if v}
                    extra["riscos"] = [int(x) for x in riscos]
                else:
                    log.error("table %s: settlement does not sum to zero: %s", live.id, postings)
            finish.ratings, extra["ratings"] = self._ratings(live, accounts, result.placings)
        finish.result = {**finish.result, "server": extra}
        return finish

    def _account_of(self, live: Live, seat: int) -> int | None:
        info = live.seats[seat]
        if info.kind == "person":
            return info.account_id
        if info.kind == "bot" and info.bot:
            return self.store.account_id_for(f"bot:{info.bot}", "bot")
        return None

    def _ratings(self, live: Live, accounts: list[int], placings: tuple[int, ...]
                 ) -> tuple[dict[int, tuple[float, float]], list[dict[str, float]]]:
        from openskill.models import PlackettLuce

        model = PlackettLuce()
        current = self.store.ratings(live.game.id, accounts)
        teams = live.game.teams(live.players) or tuple((s,) for s in range(live.players))
        entities = [[model.rating(*current.get(accounts[s], (model.mu, model.sigma))) for s in team]
                    for team in teams]
        ranks = [float(min(placings[s] for s in team)) for team in teams]
        rated = model.rate(entities, ranks=ranks)
        new: dict[int, list[tuple[float, float]]] = {}
        per_seat: list[dict[str, float]] = [{} for _ in range(live.players)]
        for team, ratings in zip(teams, rated):
            for s, r in zip(team, ratings):
                new.setdefault(accounts[s], []).append((r.mu, r.sigma))
        out = {a: (sum(m for m, _ in v) / len(v), sum(sg for _, sg in v) / len(v)) for a, v in new.items()}
        for s in range(live.players):
            mu0, sg0 = current.get(accounts[s], (model.mu, model.sigma))
            mu1, sg1 = out[accounts[s]]
            per_seat[s] = {"before": round(mu0 - 3 * sg0, 3), "after": round(mu1 - 3 * sg1, 3)}
        return out, per_seat


def new_table_id() -> str:
    return secrets.token_urlsafe(12)
