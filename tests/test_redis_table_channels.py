"""Each table's notes on a Redis channel of its own (issue 35).

A process subscribes to a table's channel when it loads the table (``Hub.live``) and so hears only
the tables it holds; sessions' ends and the lobby stay on the channel every process hears. The
rules these tests hold it to: a process that starts serving a table misses no step another process
stores meanwhile (it subscribes, Redis confirms, then it reads; a note that comes while it reads is
not dropped; a table read before Redis confirmed is read again once it does); a dropped
subscription is made again for every held table and the tables caught up; a process's own notes,
which come back to it on its tables' channels, are not taken for another's.

The races are ordered by events, not by sleeps: the "other process" stores and publishes its step
from inside this process's read of the table (a hook on ``Store.steps``), and the tests wait for a
later note on the same channel (Redis delivers a channel's messages in order, and the listener
handles them one after the other) instead of a time. Timeouts only bound a failure.
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from starlette.testclient import TestClient

from updown.core.registry import get_game
from updown.server.app import create_app
from updown.server.db import make_engine
from updown.server.deps import COOKIE
from updown.server.hub import Hub, RedisBus
from updown.server.outage import ServiceHealth
from updown.server.settings import Settings
from updown.server.store import Actor, StepRow, Store, token_hash

REDIS = os.environ.get("UPDOWN_TEST_REDIS")
needs_redis = pytest.mark.skipif(not REDIS, reason='no Redis: UPDOWN_TEST_REDIS not set (start it with eval "$(.ci/services start)")')
PEOPLE = ("ann", "bob", "cid", "dan")


class Made:
    """A running UP&DOWN table of four people in a SQLite database, made through the HTTP API (one
    server that is then stopped), and "the other process": a store of its own that stores the
    table's next step, as another server process would."""

    def __init__(self, tmp_path: Path):
        self.db = f"sqlite:///{tmp_path}/channels.db"
        app = create_app(Settings(db=self.db, bot_delay=0, bot_workers=0))
        self.tokens: dict[int, tuple[str, int]] = {}
        with TestClient(app) as client:
            sessions = []
            for name in PEOPLE:
                client.cookies.clear()
                r = client.post("/api/register", json={"name": name, "password": "pass-word-1"})
                assert r.status_code == 200, r.text
                sessions.append((r.cookies[COOKIE], r.json()["id"]))
            client.cookies.clear()
            client.cookies.set(COOKIE, sessions[0][0])
            r = client.post("/api/tables", json={"game": "updown", "seats": ["me", "open", "open", "open"],
                                                 "options": {"rounds": 1}, "grace": 3600})
            assert r.status_code == 200, r.text
            self.table: str = r.json()["id"]
            for cookie, _account in sessions[1:]:
                client.cookies.clear()
                client.cookies.set(COOKIE, cookie)
                assert client.post(f"/api/tables/{self.table}/join", json={}).status_code == 200
        self.sessions = sessions
        self.elsewhere = Store(make_engine(self.db))
        self.game = get_game("updown")
        self.options = self.game.Options.from_dict({"rounds": 1})

    def stored(self) -> list[StepRow]:
        return self.elsewhere.steps(self.table)

    def store_next(self) -> StepRow:
        """The other process stores the table's next step (a chance draw, or the first legal action
        of the seat to act) and returns it as stored."""
        rows = self.stored()
        state = self.game.new_state(4, self.options)
        for row in rows:
            state.apply(self.game.parse_action(row.notation), row.seat)
        n = len(rows)
        if state.is_chance():
            row = StepRow(n + 1, None, state.chance_label(), self.game.action_to_str(state.sample_chance(random.Random(n))),
                          None, "chance", time.time())
            actor = None
        else:
            seat = state.actors()[0]
            row = StepRow(n + 1, seat, None, self.game.action_to_str(state.legal_actions(seat)[0]), f"other-{n + 1}",
                          "player", time.time())
            token, account = self.sessions[seat]
            actor = Actor(token_hash(token), account, seat)
        self.elsewhere.commit(self.table, [row], None, actor)
        return self.stored()[-1]


class HookedStore(Store):
    """This process's store; ``after_steps`` runs inside its next read of a table's steps, after
    the read (in the read's worker thread, as the event loop goes on)."""

    after_steps: Callable[[], None] | None = None

    def steps(self, table_id: str, after: int = 0) -> list[StepRow]:
        rows = super().steps(table_id, after)
        hook, self.after_steps = self.after_steps, None
        if hook is not None:
            hook()
        return rows


class Watched(Hub):
    """A hub that says when its listener has handled a note (steps, or the watchers sentinel)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.stepped = threading.Event()
        self.sentinels: asyncio.Queue[str] = asyncio.Queue()

    async def stepped_elsewhere(self, table_id: str, rows: list[StepRow]) -> None:
        await super().stepped_elsewhere(table_id, rows)
        self.stepped.set()

    async def watchers_elsewhere(self, table_id: str, origin: str, data: dict[str, Any]) -> None:
        await super().watchers_elsewhere(table_id, origin, data)
        self.sentinels.put_nowait(table_id)


def other_bus() -> RedisBus:
    """The other process's bus (publishing only)."""
    assert REDIS
    bus = RedisBus(REDIS)
    bus.origin = "other-" + uuid.uuid4().hex[:6]
    bus.hub = SimpleNamespace(health=ServiceHealth())  # type: ignore[assignment]
    return bus


async def after_everything_said(hub: Watched, other: RedisBus, table: str) -> None:
    """Wait until this process has handled every note the other process published on the table's
    channel so far: the other publishes one more (its spectators) and this waits for it."""
    await other.watchers(table, 1, {})
    assert await asyncio.wait_for(hub.sentinels.get(), 10) == table


@needs_redis
@pytest.mark.parametrize("heard", ["while the table is read", "after the table is read"])
def test_a_step_stored_while_a_process_loads_the_table_reaches_it(tmp_path: Path, heard: str) -> None:
    """The other process stores a step right after this one read the table's steps and publishes its
    note. Subscribed before the read, this process hears the note: while it still reads (the note
    finds no table in memory; the table is read again once it is) or once the table is in memory
    (applied). Subscribed after the read, or the note dropped, the step would be in neither."""
    assert REDIS
    made = Made(tmp_path)

    async def run() -> tuple[int, int, int]:
        store = HookedStore(make_engine(made.db))
        bus = RedisBus(REDIS)
        hub = Watched(store, bus=bus, multi=True)
        await bus.start(hub)
        other = other_bus()
        loop = asyncio.get_running_loop()
        stored: list[StepRow] = []

        def hook() -> None:  # the other process, between this one's read and its table in memory
            row = made.store_next()
            stored.append(row)
            asyncio.run_coroutine_threadsafe(other.publish(made.table, [row]), loop).result(10)
            if heard == "while the table is read":
                assert hub.stepped.wait(10), "the note was not heard while the table was read"

        store.after_steps = hook
        before = len(made.stored())
        live = await hub.live(made.table)
        assert live is not None and stored
        await after_everything_said(hub, other, made.table)
        have = len(live.steps)
        await other.redis.aclose()
        await bus.close()
        return before, have, len(made.stored())

    before, have, stored = asyncio.run(run())
    assert stored == before + 1
    assert have == stored, f"the process holds {have} steps of {stored} stored: it missed the other's step"


@needs_redis
def test_a_table_read_before_redis_confirmed_is_read_again_once_it_does(tmp_path: Path) -> None:
    """The listener did not confirm in time (busy, or Redis away): the table is read at once, and
    read again once its channel is confirmed. Here the other process's step comes with no note at
    all (one lost): only that second read can bring it."""
    assert REDIS
    made = Made(tmp_path)

    class Slow(RedisBus):
        asked = 0

        async def hear(self, table_id: str, timeout: float) -> bool:
            self.asked += 1
            if self.asked == 1:
                return False  # as if Redis had not confirmed within the time
            return await super().hear(table_id, timeout)

    async def run() -> tuple[int, int, int]:
        store = HookedStore(make_engine(made.db))
        bus = Slow(REDIS)
        hub = Hub(store, bus=bus, multi=True)
        await bus.start(hub)
        store.after_steps = lambda: None if made.store_next() else None
        live = await hub.live(made.table)
        assert live is not None
        first = len(live.steps)
        await asyncio.wait_for(asyncio.gather(*hub._late), 20)
        await bus.close()
        return first, len(live.steps), len(made.stored())

    first, after, stored = asyncio.run(run())
    assert first == stored - 1  # read before the other's step was stored
    assert after == stored, "the table was not read again once its notes were heard"


@needs_redis
def test_a_table_loaded_while_the_listener_is_busy_is_read_again_once_it_confirms(tmp_path: Path) -> None:
    """The listener is busy with a note (its handler waits), so it cannot hand on Redis's
    confirmation of a new table's channel: the load does not wait for ever, it reads the table, and
    reads it again once the listener confirms. The other process's step stored after the first read
    comes with no note (lost): only that second read brings it."""
    assert REDIS
    made = Made(tmp_path)

    class Busy(Hub):
        def __init__(self, *args: Any, **kw: Any) -> None:
            super().__init__(*args, **kw)
            self.blocked = asyncio.Event()
            self.release = asyncio.Event()

        async def watchers_elsewhere(self, table_id: str, origin: str, data: dict[str, Any]) -> None:
            if table_id == "blocker":
                self.blocked.set()
                await self.release.wait()

    async def run() -> tuple[int, int, int, int]:
        store = HookedStore(make_engine(made.db))
        bus = RedisBus(REDIS)
        hub = Busy(store, bus=bus, multi=True)
        await bus.start(hub)
        assert await bus.hear("blocker", 5)
        other = other_bus()
        await other.watchers("blocker", 1, {})
        await asyncio.wait_for(hub.blocked.wait(), 10)
        store.after_steps = lambda: None if made.store_next() else None
        live = await hub.live(made.table)
        assert live is not None
        first, late = len(live.steps), len(hub._late)
        hub.release.set()
        await asyncio.wait_for(asyncio.gather(*hub._late), 20)
        await other.redis.aclose()
        await bus.close()
        return first, late, len(live.steps), len(made.stored())

    first, late, after, stored = asyncio.run(run())
    assert first == stored - 1 and late == 1
    assert after == stored, "the table was not read again once its channel was confirmed"


class Recorder:
    """A hub that only records what the listener hands it."""

    def __init__(self) -> None:
        self.owner = "me-" + uuid.uuid4().hex[:6]
        self.health = ServiceHealth()
        self.heard: list[tuple[str, str]] = []
        self.resynced = 0
        self.changes: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self.bus: RedisBus | None = None
        self.confirmed_at_resync: set[str] = set()

    def _got(self, kind: str, what: str) -> None:
        self.heard.append((kind, what))
        self.changes.put_nowait((kind, what))

    async def stepped_elsewhere(self, table: str, rows: list[StepRow]) -> None:
        self._got("steps", table)

    async def changed_elsewhere(self, table: str) -> None:
        self._got("changed", table)

    async def chat_elsewhere(self, table: str) -> None:
        self._got("chat", table)

    async def watchers_elsewhere(self, table: str, origin: str, data: dict[str, Any]) -> None:
        self._got("watchers", table)

    def close_session(self, token: str) -> None:
        self._got("session", token)

    def lobby_dirty(self) -> None:
        self._got("lobby", "")

    async def resync_all(self) -> None:
        self.resynced += 1
        if self.bus is not None:
            self.confirmed_at_resync = set(self.bus._confirmed)
        self.changes.put_nowait(("resync", ""))

    async def until(self, kind: str, what: str) -> None:
        while True:
            got = await asyncio.wait_for(self.changes.get(), 10)
            if got == (kind, what):
                return


def a_row(n: int = 1) -> StepRow:
    return StepRow(n, 0, None, "x", None, "player", 1.0)


@needs_redis
def test_a_process_hears_the_tables_it_holds_and_everyones_news() -> None:
    """Notes of a table this process does not hold never reach it; those of a table it holds do,
    until it forgets it; session ends and the lobby's news reach every process. Its own notes,
    coming back on its tables' channels, are not handed on."""
    assert REDIS
    mine, theirs = "t-" + uuid.uuid4().hex[:8], "t-" + uuid.uuid4().hex[:8]

    async def run() -> list[tuple[str, str]]:
        hub = Recorder()
        bus = RedisBus(REDIS)
        await bus.start(hub)  # type: ignore[arg-type]
        assert await bus.hear(mine, 5)
        other = other_bus()
        await other.publish(theirs, [a_row()])
        await other.chat(theirs)
        await other.publish(mine, [a_row()])
        await other.publish(mine)
        await other.chat(mine)
        await bus.publish(mine, [a_row(2)])  # our own, back on the channel
        await bus.chat(mine)
        await other.session_ended("some-session")
        await other.lobby()
        await other.watchers(mine, 0, {})  # the last: everything before it has been handled
        await hub.until("watchers", mine)
        await bus.forget(mine)
        for _ in range(100):  # Redis took the unsubscribe (sent, not confirmed, by forget)
            if (await other.redis.pubsub_numsub(RedisBus.TABLE + mine))[0][1] == 0:
                break
            await asyncio.sleep(0.05)
        await other.publish(mine)
        await other.lobby()  # (after the note above on the same connection: handled after it)
        await hub.until("lobby", "")
        await other.redis.aclose()
        await bus.close()
        return hub.heard

    heard = asyncio.run(run())
    assert heard == [("steps", mine), ("changed", mine), ("chat", mine), ("session", "some-session"),
                     ("lobby", ""), ("watchers", mine), ("lobby", "")]


@needs_redis
def test_a_dropped_subscription_is_made_again_for_every_held_table_then_caught_up() -> None:
    """Redis drops the listener's connection (it stays up). The listener subscribes again to the
    shared channel and to each table's it held, and only once Redis confirmed them all catches
    every table up; notes published after that reach it on the tables' channels."""
    assert REDIS
    import redis.asyncio as aioredis

    tables = ["t-" + uuid.uuid4().hex[:8] for _ in range(3)]
    name = "t1-listener-" + uuid.uuid4().hex[:8]

    async def run() -> tuple[Recorder, int, bool]:
        hub = Recorder()
        bus = RedisBus(REDIS)
        bus.redis = aioredis.from_url(REDIS, socket_connect_timeout=2, client_name=name)
        hub.bus = bus
        await bus.start(hub)  # type: ignore[arg-type]
        for t in tables:
            assert await bus.hear(t, 5)
        admin = aioredis.from_url(REDIS)
        clients = await admin.execute_command("CLIENT", "LIST", "TYPE", "pubsub")
        ids = [line.split(" ")[0].removeprefix("id=") for line in clients.decode().splitlines()
               if f" name={name} " in f" {line} "]
        assert len(ids) == 1, clients
        killed = await admin.execute_command("CLIENT", "KILL", "ID", ids[0])
        await hub.until("resync", "")
        resynced_when_listening = bus.listening
        other = other_bus()
        for t in tables:
            await other.publish(t)
        await other.lobby()
        await hub.until("lobby", "")
        await admin.aclose()
        await other.redis.aclose()
        await bus.close()
        return hub, killed, resynced_when_listening

    hub, killed, listening = asyncio.run(run())
    assert killed == 1
    assert listening and {RedisBus.TABLE + t for t in tables} <= hub.confirmed_at_resync, \
        "the tables were caught up before Redis confirmed every subscription"
    assert hub.resynced == 1
    assert [h for h in hub.heard if h[0] == "changed"] == [("changed", t) for t in tables]


@needs_redis
def test_a_note_kept_while_redis_was_away_goes_to_its_tables_channel() -> None:
    """What could not be said while Redis was away is said on the channel it belongs to when it is
    back: a table's note on the table's, the lobby's on everyone's."""
    assert REDIS
    table = "t-" + uuid.uuid4().hex[:8]

    async def run() -> list[tuple[str, str]]:
        hub = Recorder()
        bus = RedisBus(REDIS)
        await bus.start(hub)  # type: ignore[arg-type]
        assert await bus.hear(table, 5)
        other = other_bus()
        other._keep({"origin": other.origin, "table": table, "steps": [[1, 0, None, "x", None, "player", 1.0]]})
        other._keep({"origin": other.origin, "lobby": "tables"})
        await other.flush()
        await hub.until("lobby", "")
        await other.redis.aclose()
        await bus.close()
        return hub.heard

    assert asyncio.run(run()) == [("changed", table), ("lobby", "")]  # (kept without its steps: read)


@needs_redis
def test_notes_published_together_arrive_in_order_and_a_dropped_publisher_connects_again() -> None:
    """The publisher sends the notes of a turn of the event loop together on a connection of its
    own: each caller returns once Redis took its note, every note arrives, in the order published;
    when Redis drops that connection, the next note is still said (the publisher connects again)."""
    assert REDIS
    import redis.asyncio as aioredis

    table = "t-" + uuid.uuid4().hex[:8]
    name = "t1-publisher-" + uuid.uuid4().hex[:8]

    async def run() -> tuple[list[int], int, list[dict[str, Any]], bool]:
        hub = Recorder()
        bus = RedisBus(REDIS)
        await bus.start(hub)  # type: ignore[arg-type]
        assert await bus.hear(table, 5)
        order: list[int] = []

        async def watchers(table_id: str, origin: str, data: dict[str, Any]) -> None:
            order.append(data["anonymous"])
            hub.changes.put_nowait(("watchers", str(data["anonymous"])))

        hub.watchers_elsewhere = watchers  # type: ignore[method-assign]
        other = other_bus()
        other.redis = aioredis.from_url(REDIS, socket_connect_timeout=2, client_name=name)
        await asyncio.gather(*(other.watchers(table, i, {}) for i in range(50)))
        await hub.until("watchers", "49")
        admin = aioredis.from_url(REDIS)
        clients = (await admin.execute_command("CLIENT", "LIST")).decode()  # type: ignore[no-untyped-call]
        ids = [line.split(" ")[0].removeprefix("id=") for line in clients.splitlines() if f" name={name} " in f" {line} "]
        killed = 0
        for client in ids:
            killed += await admin.execute_command("CLIENT", "KILL", "ID", client)  # type: ignore[no-untyped-call]
        await other.watchers(table, 50, {})
        await hub.until("watchers", "50")
        down = other.hub.health.is_down("redis")  # type: ignore[union-attr]
        await admin.aclose()
        await other.close()
        await bus.close()
        return order, killed, other.unsent, down

    order, killed, unsent, down = asyncio.run(run())
    assert order == list(range(51))
    assert killed == 1  # the publisher's one connection (the notes went on it, not on the pool's)
    assert unsent == [] and not down


def test_the_channel_of_each_message() -> None:
    bus = RedisBus("redis://127.0.0.1:1/0")
    assert bus._channel_of({"table": "abc"}) == "updown:table:abc"
    assert bus._channel_of({"chat": "abc"}) == "updown:table:abc"
    assert bus._channel_of({"watchers": "abc", "names": {}}) == "updown:table:abc"
    assert bus._channel_of({"session": "abc"}) == RedisBus.CHANNEL
    assert bus._channel_of({"lobby": "tables"}) == RedisBus.CHANNEL
