"""The tables this process serves: loading them from the database, driving the ones it owns,
clocks and grace periods, the ledger and ratings at a game's end, and the bus between processes.
"""

from __future__ import annotations

import asyncio
import bisect
import heapq
import json
import logging
import math
import secrets
import time
import uuid
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import orjson

from updown.core.protocol import State
from updown.server.admin import CLOSED, sweep_closed
from updown.server.live import SPECTATOR, ActionError, Live, awaiting, encode
from updown.server.models import Seat, Table
from updown.server.outage import DATABASE, REDIS, ServiceHealth, detached, first_line, is_outage
from updown.server.store import HOUSE, ChatRow, Finish, Posting, StepRow, Store, Unbalanced

log = logging.getLogger("updown.server")

LEASE = 10.0
"""Seconds a process's claim to drive a table lasts without renewal (multi-process mode)."""
HEARTBEAT = 5.0
"""Seconds between the stored signs of life of the seats that have a connection open here."""
UNSEATED = 4001
"""The close code of a socket whose seat is no longer its account's (freed, left, taken, signed out)."""
BEAT_STEP = 1.0
"""Seconds between the heartbeat's writes, each of the connected seats whose tables' points in the
cycle came since the last (:meth:`Hub._heartbeat`): a fifth of them a write."""
REREAD = 2.0
"""Seconds between re-reads of the tables held here, for what ``updown admin`` changed in the database."""
WHOLE_REREAD = 30.0
"""Seconds between re-reads of every held table's seats even when no admin action was recorded (a net
under :meth:`Store.admin_mark`; between them a re-read asks only that)."""
CLOCK = 0.25
"""Seconds between the clock loop's turns (:meth:`Hub._clock_loop`)."""
SWEEP = 30.0
"""Seconds within which the clock looks at every running table it drives, a few at each turn, even
if nothing asked it to: a net under the wake-ups (a table it finds work at unasked is logged)."""
STALL = 600.0
"""Seconds a table's driving loop may go without storing a step while a bot or chance is due before
the clock stops it and starts it again, logged (:meth:`Hub._watchdog`): a net under a loop that
waits on something that will never come. Far above any wait of a working loop: a bot's decision
(``BOT_TIMEOUT``, 120 s, after its turn in the pool's queue) and the retries of a commit."""
WATCH = 1.0
"""Seconds between the watch loop's questions to the database and Redis (see ``outage.py``)."""
CHAT_HISTORY = 100
"""Chat lines a new socket gets (the last ones); ``GET /api/tables/{id}/chat`` gives them all."""
WATCHER_NAMES = 50
"""Names of spectators listed at most (all are counted)."""
UNLOAD = 300.0
"""Seconds a table must have gone unused here before :meth:`Hub.unload_idle` drops it from memory."""
UNLOAD_LOOK = 30.0
"""Seconds between the clock's looks for tables to drop (:meth:`Hub.unload_idle`)."""
HEAR = 1.0
"""Seconds a table's first load waits for Redis to confirm that its notes are heard here before
reading it; if that takes longer, the table is read again once it is confirmed (:meth:`Hub.live`)."""


def _step_rows(raw: object) -> list[StepRow]:
    """The steps a note carries, or none if they are missing or not as a process sends them."""
    if not isinstance(raw, list):
        return []
    rows = []
    for item in raw:
        if not (isinstance(item, list) and len(item) == 7):
            return []
        n, seat, label, notation, client_id, by, at = item
        if not (isinstance(n, int) and (seat is None or isinstance(seat, int)) and (label is None or isinstance(label, str))
                and isinstance(notation, str) and (client_id is None or isinstance(client_id, str))
                and isinstance(by, str) and isinstance(at, (int, float))):
            return []
        rows.append(StepRow(n, seat, label, notation, client_id, by, float(at)))
    return rows


class Bus:
    """Tells the other server processes that a table changed. The local bus has nobody to tell."""

    async def start(self, hub: Hub) -> None:
        return None

    async def hear(self, table_id: str, timeout: float) -> bool:
        """From now on, hear the other processes' notes about this table (a process hears only the
        tables it holds in memory). True once that holds: every note published after this returns
        reaches this process, so a read of the table from here on misses nothing. False if it does
        not hold yet (Redis is away, or the listener busy for longer than ``timeout``): ask again
        (:meth:`Hub._hear_late`); the listener subscribes to every table asked for when it is back."""
        return True

    async def forget(self, table_id: str) -> None:
        """Stop hearing a table's notes: one :meth:`hear` asked for that turned out not to exist, or
        a table dropped from memory (:meth:`Hub.unload_idle`), heard again if it is loaded again."""
        return None

    def hears(self, table_id: str) -> bool:
        """Whether the other processes' notes about this table reach this process now (its
        subscription confirmed and holding): a step stored elsewhere is then applied here or in a
        note on its way. False for the local bus (nobody else stores steps: nothing to read either)."""
        return False

    async def publish(self, table_id: str, steps: Sequence[StepRow] = ()) -> None:
        """Tell the other processes that a table changed; ``steps``: the steps this process stored
        since its last note about the table (they may then apply them without reading them)."""
        return None

    async def session_ended(self, token_hash: str) -> None:
        """Tell the other processes that a session ended (they close its sockets)."""
        return None

    async def chat(self, table_id: str) -> None:
        """Tell the other processes that a table has a new chat line (they read it from the database)."""
        return None

    async def watchers(self, table_id: str, anonymous: int, names: dict[int, str]) -> None:
        """Tell the other processes who watches a table from here (said again every few seconds)."""
        return None

    async def lobby(self) -> None:
        """Tell the other processes that the lobby's list of tables changed (they read it again)."""
        return None

    async def close(self) -> None:
        return None

    async def ping(self) -> None:
        """Raise if the bus's service does not answer (nothing to ask for the local bus)."""
        return None

    @property
    def listening(self) -> bool:
        """Whether this process hears the others' news now (the local bus: nothing to hear)."""
        return True

    async def flush(self) -> None:
        """Say what could not be said while the bus's service was away (nothing, for the local bus)."""
        return None


class RedisBus(Bus):
    """Broadcasts through Redis pub/sub. A table's notes (a step, with the steps it stored; a
    change of seats or status; a chat line; its spectators) go on the table's own channel
    (:data:`TABLE` + id), which a process subscribes to when it loads the table (:meth:`hear`):
    a process hears only the tables it holds, then reads what changed from the shared database
    (or applies the steps of the note) and sends its own clients their frames. Sessions' ends and
    the lobby's news go on one channel every process hears (:data:`CHANNEL`).

    Redis may go away. A publish never fails its caller (the step is stored and acknowledged by
    then): what could not be said is kept and said when Redis is back. The listener subscribes
    again by itself (the shared channel and every held table's), with backoff, and once Redis has
    confirmed every subscription catches every table of this process up from the database (it may
    have missed news meanwhile). While Redis is away the hub reads its tables' new steps from the
    database every second instead (:meth:`Hub._watch_loop`)."""

    CHANNEL = "updown:tables"
    """Every process's channel: sessions ended, the lobby changed."""
    TABLE = "updown:table:"
    """A table's channel is this and its id: its steps, seat and status changes, chat and watchers."""

    def __init__(self, url: str):
        import redis.asyncio as aioredis
        from redis.asyncio.client import PubSub

        self.redis = aioredis.from_url(url, socket_connect_timeout=2)
        self.task: asyncio.Task[None] | None = None
        self.origin = ""
        self._mine = b""
        """How this process's own notes begin (``{"origin": "ID"``): skipped unparsed when they
        come back on a table's channel."""
        self.hub: Hub | None = None
        self.unsent: list[dict[str, Any]] = []
        """Messages not published while Redis was away, sent when it is back (a table once)."""
        self.subscribed = asyncio.Event()
        """Set once Redis confirmed the listener's subscriptions (cleared when it lost Redis)."""
        self.tables: set[str] = set()
        """The tables whose channels this process listens to (those it holds in memory)."""
        self._pubsub: PubSub | None = None
        """The listener's subscription, once it sent its first subscribe (None while Redis is away)."""
        self._confirmed: set[str] = set()
        """The channels Redis confirmed on :attr:`_pubsub`."""
        self._waiting: dict[str, asyncio.Future[bool]] = {}
        """A table's channel -> resolved when Redis confirms it (False: the listener lost Redis)."""
        self._subscribing = asyncio.Lock()
        """Held while a subscribe is sent: a table is in :attr:`tables` before the listener takes
        the list for a new subscription, or subscribed on the listener's subscription after it."""
        self._outbox: list[tuple[str, str | bytes, asyncio.Future[None]]] = []
        """Notes waiting for the publisher (:meth:`_publish`): channel, text, resolved once Redis took it."""
        self._publisher: asyncio.Task[None] | None = None
        self._connection: Any = None
        """The publisher's own connection to Redis (not the pool's: :meth:`_publish`)."""

    def _channel(self, table_id: str) -> str:
        return self.TABLE + table_id

    def _channel_of(self, data: dict[str, Any]) -> str:
        """A message's channel: its table's, or (a session's end, the lobby) every process's."""
        for key in ("table", "chat", "watchers"):
            if isinstance(data.get(key), str):
                return self._channel(data[key])
        return self.CHANNEL

    async def start(self, hub: Hub) -> None:
        self.origin = hub.owner
        self._mine = orjson.dumps({"origin": self.origin})[:-1]  # (as :meth:`_send` encodes a note)
        self.hub = hub
        self.task = asyncio.get_running_loop().create_task(self._listen(hub))
        try:  # the first subscription before serving (`updown serve` checked that Redis answers)
            await asyncio.wait_for(self.subscribed.wait(), 10)
        except TimeoutError:
            log.warning("Redis: not subscribed yet; retrying in the background")

    async def hear(self, table_id: str, timeout: float) -> bool:
        channel = self._channel(table_id)
        self.tables.add(table_id)
        if self._pubsub is None:
            return False  # Redis away: the listener subscribes to it when it is back
        async with self._subscribing:
            pubsub = self._pubsub
            if pubsub is None:
                return False
            if channel in self._confirmed:
                return True
            waiting = self._waiting.get(channel)
            if waiting is None:
                waiting = self._waiting[channel] = asyncio.get_running_loop().create_future()
                try:
                    await asyncio.wait_for(pubsub.subscribe(channel), 2)
                except Exception:  # the listener finds the connection gone, and catches up when back
                    return False
        try:
            return await asyncio.wait_for(asyncio.shield(waiting), timeout)
        except TimeoutError:
            return False

    async def forget(self, table_id: str) -> None:
        channel = self._channel(table_id)
        async with self._subscribing:
            self.tables.discard(table_id)
            self._confirmed.discard(channel)
            if self._pubsub is not None:
                try:
                    await asyncio.wait_for(self._pubsub.unsubscribe(channel), 2)
                except Exception:  # the listener finds the connection gone; not subscribed again then
                    pass

    def hears(self, table_id: str) -> bool:
        return self._pubsub is not None and self.subscribed.is_set() and self._channel(table_id) in self._confirmed

    def _confirm(self, channel: str) -> None:
        self._confirmed.add(channel)
        waiting = self._waiting.pop(channel, None)
        if waiting is not None and not waiting.done():
            waiting.set_result(True)

    def _lose(self) -> None:
        """The listener lost Redis: no subscription holds; whoever waits for one is told."""
        self._pubsub = None
        self._confirmed.clear()
        waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_result(False)

    async def _listen(self, hub: Hub) -> None:
        delay, lost = 0.2, False
        while True:
            pubsub = self.redis.pubsub()
            try:
                async with self._subscribing:
                    expected = {self.CHANNEL, *(self._channel(t) for t in self.tables)}
                    await pubsub.subscribe(*expected)
                    self._pubsub = pubsub
                async for message in pubsub.listen():
                    kind = message.get("type")
                    if kind == "message":
                        await self._heard(hub, message)
                    elif kind == "subscribe":
                        channel = message["channel"]
                        channel = channel.decode() if isinstance(channel, bytes) else str(channel)
                        self._confirm(channel)
                        expected.discard(channel)
                        if not expected and not self.subscribed.is_set():
                            # Every channel confirmed: from here on every note reaches us.
                            self.subscribed.set()
                            delay = 0.2
                            if lost:
                                lost = False
                                hub.health.ok(REDIS)
                                await hub.resync_all()  # news published while we were not listening
            except asyncio.CancelledError:
                raise
            except Exception as err:
                lost = True
                if is_outage(err):
                    hub.health.failed(REDIS, err)
                else:
                    log.exception("Redis listener (subscribing again)")
            finally:
                self.subscribed.clear()
                self._lose()
                try:
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
                except Exception:
                    pass
            await asyncio.sleep(delay)
            delay = min(2.0, delay * 2)

    async def _heard(self, hub: Hub, message: dict[str, Any]) -> None:
        raw = message["data"]
        if isinstance(raw, bytes) and raw.startswith(self._mine):
            return  # our own note, back from a table's channel we listen to too
        try:
            data = orjson.loads(raw)
        except (ValueError, TypeError):
            return
        if not isinstance(data, dict) or data.get("origin") == self.origin:
            return
        try:
            if isinstance(data.get("table"), str):
                steps = _step_rows(data.get("steps"))
                if steps:
                    await hub.stepped_elsewhere(data["table"], steps)
                else:
                    await hub.changed_elsewhere(data["table"])
            elif isinstance(data.get("session"), str):
                hub.close_session(data["session"])
            elif isinstance(data.get("chat"), str):
                await hub.chat_elsewhere(data["chat"])
            elif isinstance(data.get("watchers"), str):
                await hub.watchers_elsewhere(data["watchers"], str(data.get("origin")), data)
            elif isinstance(data.get("lobby"), str):
                hub.lobby_dirty()
        except Exception as err:  # the database is away: the table is caught up when it is back
            if is_outage(err):
                hub.health.failed(DATABASE, err)
            else:
                log.exception("Redis listener: message %s", str(data)[:200])

    async def _send(self, data: dict[str, Any], keep: bool = True) -> None:
        if self.hub is not None and self.hub.health.is_down(REDIS):
            if keep:
                self._keep(data)  # known away: said when it is back, without waiting on a dead socket
            return
        for attempt in range(2):  # after a restart of Redis, a connection fails once
            try:
                async with asyncio.timeout(2):
                    # orjson: a note every step, and the standard library's encoder was a third of
                    # the publishing side's samples (py-spy, 29 November 2026)
                    await self._publish(self._channel_of(data), orjson.dumps(data))
                return
            except Exception as err:
                if attempt == 0:
                    continue
                if keep:
                    self._keep(data)
                if self.hub is not None:
                    self.hub.health.failed(REDIS, err if is_outage(err) else str(err) or type(err).__name__)

    async def _publish(self, channel: str, text: str | bytes) -> None:
        """PUBLISH, returning once Redis took it. The notes of one turn of the event loop go out
        together, in order, on one connection of the publisher's own: one write and one wait for
        the replies, rather than a command through the client's pool each (redis-py's pool and
        its command wrapper cost a process 5 to 7% of its CPU, a note every step)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._outbox.append((channel, text, done))
        if self._publisher is None or self._publisher.done():
            self._publisher = asyncio.get_running_loop().create_task(self._publish_outbox())
        try:
            await done
        finally:
            del done  # (it holds the error raised here, whose traceback holds this frame: a cycle)

    async def _publish_outbox(self) -> None:
        while self._outbox:
            batch, self._outbox = self._outbox, []
            try:
                if self._connection is None:
                    self._connection = self.redis.connection_pool.make_connection()  # type: ignore[no-untyped-call]
                conn = self._connection
                await conn.send_packed_command(conn.pack_commands([("PUBLISH", c, t) for c, t, _ in batch]),
                                               check_health=False)
                for _c, _t, done in batch:
                    await conn.read_response(timeout=2)  # (a connection that hangs is dropped)
                    if not done.done():
                        done.set_result(None)
            except Exception as err:  # each waiting caller keeps its note (:meth:`_send`)
                connection, self._connection = self._connection, None
                if connection is not None:
                    try:
                        await connection.disconnect()
                    except Exception:
                        pass
                detached(err)  # (each caller's frame raises it; kept with this one's, a cycle)
                for _c, _t, done in batch:
                    if not done.done():
                        done.set_exception(err)

    def _keep(self, data: dict[str, Any]) -> None:
        data = {k: v for k, v in data.items() if k != "steps"}  # (said late, the table is read anyway)
        if data not in self.unsent:
            self.unsent.append(data)

    async def flush(self) -> None:
        """Publish what could not be said while Redis was away."""
        kept, self.unsent = self.unsent, []
        for data in kept:
            await self._send(data)

    STEPS_IN_A_NOTE = 20
    """At most this many steps ride in a note; a table with more is read by those who hear it."""

    async def publish(self, table_id: str, steps: Sequence[StepRow] = ()) -> None:
        data: dict[str, Any] = {"origin": self.origin, "table": table_id}
        if 0 < len(steps) <= self.STEPS_IN_A_NOTE:
            data["steps"] = [[r.n, r.seat, r.label, r.notation, r.client_id, r.by, r.at] for r in steps]
        await self._send(data)

    async def session_ended(self, token_hash: str) -> None:
        await self._send({"origin": self.origin, "session": token_hash})

    async def chat(self, table_id: str) -> None:
        await self._send({"origin": self.origin, "chat": table_id})

    async def lobby(self) -> None:
        # Kept while Redis is away, once (equal messages are kept once): the lists are read again then.
        await self._send({"origin": self.origin, "lobby": "tables"})

    async def watchers(self, table_id: str, anonymous: int, names: dict[int, str]) -> None:
        # Not kept while Redis is away: it is said again every few seconds anyway.
        await self._send({"origin": self.origin, "watchers": table_id, "anonymous": anonymous,
                          "names": {str(a): n for a, n in names.items()}}, keep=False)

    async def ping(self) -> None:
        try:
            await asyncio.wait_for(self.redis.ping(), 2)
        except Exception:  # a pooled connection from before a restart of Redis: once more
            await asyncio.wait_for(self.redis.ping(), 2)

    @property
    def listening(self) -> bool:
        return self.subscribed.is_set()

    async def close(self) -> None:
        if self.task:
            self.task.cancel()
        if self._publisher is not None:
            self._publisher.cancel()
        if self._connection is not None:
            try:
                await self._connection.disconnect()
            except Exception:
                pass
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
        self.started_at = time.time()
        self._stored: dict[str, Any] = {}
        """Each held table's stored status and seats at the last re-read (:meth:`_reread`)."""
        self._taken: dict[str, Any] = {}
        """Each held table's stored status and seats as last taken into memory by a re-read."""
        self._stopped: set[str] = set()
        """Tables closed by admin that this process has stopped."""
        self._mark: tuple[int, int | None] | None = None
        """:meth:`Store.admin_mark` at the last whole re-read."""
        self._whole_at = 0.0
        """When the last whole re-read was."""
        self._unsettled = True
        """The last whole re-read found a table whose stored status or seats differ from this
        process's (taken if they last; the next re-read is whole too)."""
        self.health = ServiceHealth()
        """Whether the database and Redis answer now (``outage.py``); clients are told of changes."""
        self.health.listeners.append(self._tell_clients)
        self.health.listeners.append(self._recovered)
        self._recoveries: dict[str, int] = dict(self.health.recoveries)
        self._chat_locks: dict[str, asyncio.Lock] = {}
        """One per table: chat lines reach each socket once, in order (:meth:`deliver_chat`)."""
        self._chat_rounds: dict[str, int] = {}
        """Each table's count of :meth:`deliver_chat` calls: a socket that read the chat before it
        was among the table's sockets knows from it whether a line may have passed it by."""
        self._watched_here: dict[str, tuple[int, dict[int, str]]] = {}
        """Each table's spectators on this process as last told to the others."""
        self._watched_elsewhere: dict[str, dict[str, tuple[float, int, dict[int, str]]]] = {}
        """Each table's spectators on the other processes: origin -> (heard at, anonymous, names)."""
        self.lobby_listeners: list[Callable[[], None]] = []
        """Called when the lobby's list of tables may have changed, here or in another process (the
        lobby's sockets, ``routes/lobby.py``, read it again)."""
        self._lobby_seen: dict[str, tuple[Any, ...]] = {}
        """Each public table's status and seats as last announced to the lobby (or heard of)."""
        self._stirred: set[str] = set()
        """Tables whose state the clock judges by changed since its last turn (:meth:`Live.stir`)."""
        self._wakes: list[tuple[float, str]] = []
        """A heap of (when, table): the times the clock said it must look at a table again; an
        entry whose time is no longer its table's :attr:`Live.wake` is dropped when it comes up."""
        self._queued: dict[str, float] = {}
        """Each table's time in :attr:`_wakes` that is still to come (one entry a time, not one a look)."""
        self._sweep: list[str] = []
        """The tables the clock's net (:data:`SWEEP`) has still to look at in this round."""
        self._sweep_step = 1
        """How many of them each turn looks at (a round takes :attr:`sweep` seconds)."""
        self.sweep = SWEEP
        """:data:`SWEEP` (``inf``: no net; tests of the wake-ups alone)."""
        self._sessions: dict[str, float] = {}
        """The sessions of this process's sockets as last read, each with when it expires
        (:meth:`_check_sessions`)."""
        self._beat_at = 0.0
        """When the heartbeat last stored its turn's seats (:meth:`_heartbeat`)."""
        self._beat_order: list[tuple[float, str]] = []
        """The held tables by their points in the heartbeat's cycle (:meth:`_beat_due`)."""
        self._beat_points: list[float] = []
        self._late: set[asyncio.Task[None]] = set()
        """Tables loaded before their notes were heard here, each waiting to be read again (:meth:`live`)."""
        self._noted: set[str] = set()
        """Tables a note came for while they were being loaded (read again once loaded: :meth:`live`)."""

    # -- life cycle -----------------------------------------------------------------------------
    async def start(self) -> None:
        self.started_at = time.time()
        await self.bus.start(self)
        if not self.multi:
            # One process: every running table is ours, including those a crashed run left.
            for table_id in await asyncio.to_thread(self.store.running_table_ids):
                await asyncio.to_thread(self.store.claim, table_id, self.owner, LEASE, True)
                await self._own(table_id)
        loop = asyncio.get_running_loop()
        self.tasks.append(loop.create_task(self._clock_loop()))
        self.tasks.append(loop.create_task(self._watch_loop()))
        if self.multi:
            self.tasks.append(loop.create_task(self._lease_loop()))
            self.tasks.append(loop.create_task(self._watchers_loop()))

    async def stop(self) -> None:
        """A graceful stop (SIGTERM; uvicorn has closed the sockets with 1012, "service restart"):
        the loops stop, and the leases of the tables this process drove are given back at once, so
        that another process takes them over now rather than when the leases run out."""
        for task in [*self.tasks, *self._late]:
            task.cancel()
        for live in self.lives.values():
            if live.driver:
                live.driver.cancel()
        if self.multi:
            try:
                released = await asyncio.to_thread(self.store.release, self.owner)
                log.info("stopping: %d table leases given back", released)
            except Exception as err:  # the database is away: the leases run out by themselves
                log.warning("stopping: leases not given back (%s)", str(err).splitlines()[0][:200])
        await self.bus.close()

    async def _own(self, table_id: str) -> None:
        live = await self.live(table_id)
        if live is not None and not live.owned:
            live.owned = True
            now = time.time()
            live.owned_since = now
            live.turn_since = {s: now for s in live.turn_since}  # a new owner gives a full move time
            live.stir()
            live.kick(even_if_heard=True)  # (its last driver may have died between a commit and its note)

    async def _lease_loop(self) -> None:
        while True:
            try:
                held = set(await asyncio.to_thread(self.store.renew_leases, self.owner, LEASE))
                for table_id in held:
                    await self._own(table_id)  # (nothing for a table already driven here)
                for live in list(self.lives.values()):
                    if live.owned and (live.status != "running" or live.id not in held):
                        # Finished, or the lease ran out (the database was away longer than it)
                        # and another process holds it now: one driver per table.
                        self._disown(live)
            except Exception as err:
                self._fault("lease loop", err)
            await asyncio.sleep(LEASE / 3)

    def _disown(self, live: Live) -> None:
        live.owned = False
        live.stir()
        if live.driver is not None and not live.driver.done():
            live.driver.cancel()

    def _fault(self, where: str, err: Exception) -> None:
        """A loop's failure: an outage is told once by the service's health; anything else logged."""
        if is_outage(err):
            self.health.failed(DATABASE, err)
        else:
            log.exception("%s", where)

    async def _watch_loop(self) -> None:
        """Ask the database and Redis every second whether they answer (``outage.py``).

        When the database is back, every table held here is caught up from it and its driver
        started again. While Redis is away (several processes), the steps other processes store
        are read from the database every second, so the tables keep going, a little later."""
        while True:
            await asyncio.sleep(WATCH)
            try:
                await asyncio.wait_for(asyncio.to_thread(self.store.ping), 5)
            except Exception as err:
                self.health.failed(DATABASE, err if is_outage(err) else first_line(err))
            else:
                self.health.ok(DATABASE)  # :meth:`_recovered` catches up (whoever noticed first)
            if self.multi:
                try:
                    await self.bus.ping()
                except Exception as err:
                    self.health.failed(REDIS, err if is_outage(err) else first_line(err) or "no answer")
                else:
                    self.health.ok(REDIS)
                # Until the listener has subscribed again (it catches up then), nothing is heard
                # from the others: their steps are read here instead.
                if (self.health.is_down(REDIS) or not self.bus.listening) and not self.health.is_down(DATABASE):
                    await self.resync_all()

    async def resync_all(self) -> None:
        """Catch every table held here up from the database, tell its clients, restart its driver."""
        for live in list(self.lives.values()):
            if live.status not in ("open", "running") and not live.conns:
                continue
            try:
                await self.refresh(live)
                async with live.lock:
                    await live.catch_up(force=True)
                await live.broadcast()
                live.kick(read_first=False)  # (just read)
                await self.deliver_chat(live)  # lines said on other processes meanwhile
            except Exception as err:
                self._fault(f"table {live.id}: catching up", err)
                return

    async def _recovered(self) -> None:
        """A service is back, whichever path noticed first (the watch loop, a commit's retry, the
        Redis listener): what could not be said is said, and every table is caught up from the
        database and its driver started. A table whose news was lost meanwhile (a step another
        process stored while this one could not read it) would otherwise wait for ever: its
        player's page never shows the turn, so nobody acts, so nobody publishes again."""
        seen, self._recoveries = self._recoveries, dict(self.health.recoveries)
        back = {service for service, n in self._recoveries.items() if n != seen.get(service, 0)}
        if not back:
            return
        if REDIS in back:
            await self.bus.flush()  # what others could not hear from us meanwhile
            self.lobby_dirty()  # and what we could not hear from them
        await self.resync_all()

    async def _tell_clients(self) -> None:
        """Every client of this process hears that a service went away or came back."""
        text = encode(self.health.message())
        for live in list(self.lives.values()):
            for conn in list(live.conns):
                try:
                    await conn.send_text(text)
                except Exception:
                    live.conns.discard(conn)

    async def _clock_loop(self) -> None:
        """Move timers, absence and signs of life, from stored state (see :meth:`absent_since`).

        A person whose move time ran out is marked away, and a bot plays for them until they are
        back. A person absent (no connection anywhere, or away) for longer than the table's grace
        has left the game, exactly as if they had pressed Leave. Each turn looks only at the tables
        that changed (:meth:`Live.stir`) or whose time came (:meth:`_clock_table`), so an idle
        table costs nothing between its wake-ups."""
        reread = unload = 0.0
        while True:
            await asyncio.sleep(CLOCK)
            try:
                now = time.time()
                await self._heartbeat(now)
                if now - reread >= REREAD:
                    reread = now
                    await self._reread()
                if now - unload >= UNLOAD_LOOK:
                    unload = now
                    await self.unload_idle(now)
                await self._clock_turn(time.time())
            except Exception as err:
                self._fault("clock loop", err)

    def _stir(self, live: Live) -> None:
        """:attr:`Live.stirred`: the clock looks at the table at its next turn."""
        self._stirred.add(live.id)

    async def _clock_turn(self, now: float) -> None:
        """One turn of the clock: the tables stirred since the last turn, those whose wake-up time
        has come, and a few more of the net (:data:`SWEEP`)."""
        due, self._stirred = self._stirred, set()
        while self._wakes and self._wakes[0][0] <= now:
            at, table_id = heapq.heappop(self._wakes)
            if self._queued.get(table_id) == at:
                del self._queued[table_id]
            live = self.lives.get(table_id)
            if live is not None and live.wake == at:
                due.add(table_id)
        if not self._sweep and math.isfinite(self.sweep):
            self._sweep = [t for t, live in self.lives.items() if live.owned and live.status == "running"]
            self._sweep_step = max(1, math.ceil(len(self._sweep) * CLOCK / self.sweep))
        net = self._sweep[-self._sweep_step:]
        del self._sweep[-self._sweep_step:]
        for table_id in [*due, *(t for t in net if t not in due)]:
            live = self.lives.get(table_id)
            if live is None:
                continue
            foreseen = table_id in due or live.wake <= now  # (stirred during this turn: wake 0)
            live.wake = math.inf
            try:
                wake, acted = await self._clock_table(live, now)
            except Exception as err:  # (the database away, say): this table again in a second, the others now
                self._fault(f"clock: table {table_id}", err)
                wake, acted = now + 1.0, False
            if acted and not foreseen:
                log.warning("table %s: the clock found work it had not been woken for (a change that did "
                            "not stir the table)", table_id)
            wake = min(live.wake, wake)  # (stirred meanwhile: 0, and queued for the next turn)
            live.wake = wake
            if 0 < wake < math.inf and self._queued.get(table_id) != wake:
                self._queued[table_id] = wake
                heapq.heappush(self._wakes, (wake, table_id))

    async def _clock_table(self, live: Live, now: float) -> tuple[float, bool]:
        """The clock's look at one table: marks away a person whose move time ran out, takes a
        person absent past the grace for gone, ends a table every person left before playing, and
        restarts a stopped driving loop that has work. Returns when it must look again if nothing
        changes meanwhile (``inf``: only when something does) and whether it did anything."""
        if not live.owned or live.status != "running":
            return math.inf, False
        wake, acted = math.inf, False
        if live.timer is not None:
            for seat, since in list(live.turn_since.items()):
                info = live.seats[seat]
                if info.kind == "person" and not info.away and not info.left:
                    if now - since >= live.timer:
                        await self.set_away(live, seat, True)
                        acted = True
                    else:
                        wake = min(wake, since + live.timer)
        for seat in range(live.players):
            absent = self.absent_since(live, seat, now)
            if absent is not None and now - absent >= live.grace and self.multi:
                # Signs of life another process stored since we last read the seats
                # (a player there who has had nothing to do says nothing on the bus).
                await self.refresh(live)
                absent = self.absent_since(live, seat, now)
            if absent is not None and now - absent >= live.grace:
                await self.abandon(live, seat)
                acted = True
            elif absent is not None:
                wake = min(wake, absent + live.grace)
            elif self.multi:
                info = live.seats[seat]
                if info.kind == "person" and not info.left and info.connections <= 0 and info.seen_at is not None:
                    wake = min(wake, info.seen_at + 3 * HEARTBEAT)  # connected elsewhere, as last stored
        if await self._abort_if_deserted(live):
            acted = True
        watch = self._watchdog(live, now)
        if watch is None:
            acted = True
        else:
            wake = min(wake, watch)
        return wake, acted

    def _watchdog(self, live: Live, now: float) -> float | None:
        """Start a table's driving loop again if it has work and is not running: it stopped on a
        fault (the database away, say), and no client's action will come to start it (a table
        waiting on a bot or on chance). At most once a second after a fault. A loop that runs but
        has stored nothing for :data:`STALL` seconds while a bot or chance is due is stopped and
        started again, with a log line that says where it waited. Returns None if it started it,
        else when to look again (``inf``: when something changes; the loop's end does)."""
        if live.driver is not None and not live.driver.done():
            if now - live.progress_at < STALL or not live.due():
                return math.inf  # (a stall is seen by the clock's net, which looks every SWEEP seconds)
            log.error("table %s: its driving loop stored nothing for %.0f s with a bot or chance due; stopped and "
                      "started again (it was waiting in %s)", live.id, now - live.progress_at, awaiting(live.driver))
            live.driver.cancel()
            live.driver = None
            live.kick(even_if_heard=True)  # (reads what was stored first: a commit it was waiting on, say)
            live.progress_at = max(live.progress_at, now)  # (the next stall counts from this restart)
            return None
        if not live.due():
            return math.inf
        if self.health.is_down(DATABASE):
            return now + 1.0
        if now - live.drive_failed_at < 1.0:
            return live.drive_failed_at + 1.0
        live.kick()
        return None

    async def _reread(self) -> None:
        """What ``updown admin`` changed in the database, noticed within :data:`REREAD` seconds.

        Every :data:`REREAD` seconds, one cheap question: has an admin action been recorded since
        the last whole re-read (:meth:`Store.admin_mark`)? Only then (or when the last one found a change
        still to take, or every :data:`WHOLE_REREAD` seconds) the whole re-read: one read covers
        every open or running table held here and the accounts of every socket. A table an admin
        closed is stopped at once: no step is stored after this, its clients get the table with its
        new status, and a charge posted before it was stopped is returned too. Any other change of
        a table's stored status or seats (seats handed to bots, a rename) is taken once it has
        lasted one re-read (a change this process makes itself is in memory by then): the table is
        re-read, its clients told, its driver kicked. A disabled account's sockets are closed.
        Alone (no Redis), this process also drives a running table it does not hold (one that admin
        started by filling its open seats). Ended sessions: :meth:`_check_sessions`."""
        held = [t for t, live in self.lives.items()
                if live.status in ("open", "running") or (live.status == CLOSED and t not in self._stopped)]
        mark = await asyncio.to_thread(self.store.admin_mark)
        now = time.time()
        whole = mark != self._mark or self._unsettled or now - self._whole_at >= WHOLE_REREAD or any(
            self.lives[t].status == CLOSED for t in held)
        if whole:
            await self._reread_whole(held)
            self._mark, self._whole_at = mark, now  # (the mark read before: a change after it is seen next time)
        unheard = self.multi and (self.health.is_down(REDIS) or not self.bus.listening)
        await self._check_sessions(now, whole or unheard)

    async def _check_sessions(self, now: float, every: bool) -> None:
        """Close the sockets of sessions that ended (signed out, ended by admin, expired).

        A sign-out closes its sockets here at once and is announced over Redis to the others, and
        ``updown admin`` records the sessions it ends (the admin mark moves): so the sessions of
        every socket are read only at a whole re-read (an admin action, or every
        :data:`WHOLE_REREAD` seconds: a net for a note that was lost) and while Redis is not heard
        (``every``). Otherwise only the sessions not read before (new sockets) and those whose
        stored expiry came are read, so an expired session's sockets close within :data:`REREAD`
        seconds of its expiry. (An action is refused whatever this knows: its transaction checks
        the session.)"""
        sessions = {conn.session for live in self.lives.values() for conn in live.conns if conn.session}
        known = self._sessions
        ask = sessions if every else {s for s in sessions if known.get(s, 0.0) <= now}
        if ask:
            until = await asyncio.to_thread(self.store.session_expiry, sorted(ask))
            for ended in ask - until.keys():
                known.pop(ended, None)
                self.close_session(ended)
            known.update(until)
        if len(known) > len(sessions):
            for gone in known.keys() - sessions:
                del known[gone]

    async def _reread_whole(self, held: list[str]) -> None:
        """Every held table's stored status and seats, and the accounts of every socket (:meth:`_reread`)."""
        accounts = {conn.account_id for live in self.lives.values() for conn in live.conns
                    if conn.account_id is not None}
        stored, disabled, unheld = await asyncio.to_thread(self.store.reread, held, sorted(accounts), not self.multi)
        unsettled = False
        last, self._stored = self._stored, {}
        for table_id, (status, seats) in stored.items():
            live = self.lives.get(table_id)
            if live is None:
                continue
            if status == CLOSED:
                if table_id not in self._stopped:
                    await self._closed_by_admin(live)
                    self._stopped.add(table_id)
                continue
            now = (status, seats)
            mine = (live.status, [(i.kind, i.account_id, i.name, i.left) for i in live.seats])
            taken = self._taken.setdefault(table_id, mine)
            if now != taken or now != mine:
                unsettled = True  # taken now if it lasted, else next time; either way read again
                if now == last.get(table_id):
                    self._taken[table_id] = now
                    await self.refresh(live)
                    await self.changed(live)
            self._stored[table_id] = now
        for table_id in [t for t in self._taken if t not in self._stored]:
            del self._taken[table_id]
        if disabled:
            for live in list(self.lives.values()):
                for conn in list(live.conns):
                    if conn.account_id in disabled:
                        live.conns.discard(conn)
                        self.close_unseated(conn, "this account is disabled")
        for table_id in unheld:
            if table_id not in self.lives:
                await asyncio.to_thread(self.store.claim, table_id, self.owner, LEASE, True)
                await self._own(table_id)
        self._unsettled = unsettled
        if self.multi:
            await self._catch_up_unheard(held)

    async def _catch_up_unheard(self, held: list[str]) -> None:
        """Several processes: a held table that has fewer steps here than stored is caught up and its
        clients sent them. Redis delivers a note at most once, to whoever listens at that moment: a
        note can be lost (published while this process was subscribing again, say), and then the
        table would wait for ever if the missed step gave the turn to a person here, who never sees
        it. Each whole re-read (every :data:`WHOLE_REREAD` seconds at least) is the net; a note in
        flight is only read a little earlier."""
        counts = await asyncio.to_thread(self.store.step_counts, held)
        for table_id, n in counts.items():
            live = self.lives.get(table_id)
            if live is not None and n > len(live.steps):
                log.info("table %s: %d stored steps not heard of; caught up", table_id, n - len(live.steps))
                await self.changed_elsewhere(table_id)

    async def _closed_by_admin(self, live: Live) -> None:
        async with live.lock:  # no step of this table is being stored while it stops
            await self.refresh(live)
            if live.driver is not None and not live.driver.done():
                live.driver.cancel()
        live.owned = False
        log.info("table %s: closed by an admin", live.id)
        await asyncio.to_thread(sweep_closed, self.store.engine, live.id)
        await self.changed(live)

    def present(self, live: Live, seat: int, now: float) -> bool:
        """Whether the seat's person has a connection open, here or (several processes) elsewhere."""
        info = live.seats[seat]
        if info.connections > 0:
            return True
        return self.multi and info.seen_at is not None and now - info.seen_at < 3 * HEARTBEAT

    def absent_since(self, live: Live, seat: int, now: float) -> float | None:
        """Since when a seated person has been absent (no connection, or played by a stand-in while
        away), or None if present. Decided from stored timestamps: a join that never connected
        counts from the start, a restart from when this process took the table (no absence is
        counted while no server ran)."""
        info = live.seats[seat]
        if info.kind != "person" or info.left:
            return None
        if not self.present(live, seat, now):
            return max(info.seen_at or 0.0, live.owned_since)
        if info.away:
            return max(info.away_since or now, live.owned_since)
        return None

    async def _heartbeat(self, now: float) -> None:
        """Store that the connected people are still here, spread over :data:`HEARTBEAT` seconds.

        Each table has a fixed point in a cycle of HEARTBEAT seconds (:func:`beat_phase`); every
        :data:`BEAT_STEP` seconds (at the first clock turn after), one transaction stores the
        connected seats of the tables whose point the cycle passed since the last write (every
        table's if that was HEARTBEAT or more ago). So each connected seat is stored once every
        HEARTBEAT seconds, a step and a clock turn late at most, well within the
        ``3 * HEARTBEAT`` by which other processes judge presence; and a site of 5,000 idle players
        stores some 1,000 seats a second instead of all 5,000 at once every 5 s (one write that held
        the event loop's share of the interpreter, and on SQLite the write lock, for a large
        fraction of a second). A failed write leaves the cycle where it was: the next turn stores
        those tables too."""
        last = self._beat_at
        if now - last < BEAT_STEP:
            return
        if now - last >= HEARTBEAT:
            tables = list(self.lives.values())
        else:
            tables = [live for t in self._beat_due(last % HEARTBEAT, now % HEARTBEAT)
                      if (live := self.lives.get(t)) is not None]
        here = [(live, i) for live in tables if live.status in ("open", "running")
                for i, info in enumerate(live.seats) if info.kind == "person" and info.connections > 0]
        if here:
            await asyncio.to_thread(self.store.seen_many, [(live.id, i) for live, i in here], now)
            for live, i in here:
                live.seats[i].seen_at = max(live.seats[i].seen_at or 0.0, now)
        self._beat_at = now

    def _beat_due(self, a: float, b: float) -> list[str]:
        """The tables whose point in the heartbeat's cycle is in (a, b], wrapping at :data:`HEARTBEAT`:
        found by bisection in the held tables sorted by their points (sorted again when a table was
        loaded), so that a turn costs what its own tables cost, not a look at every table."""
        # (A count suffices: a load adds one table, and a drop (:meth:`_drop`) empties the order.)
        if len(self._beat_order) != len(self.lives):
            self._beat_order = sorted((beat_phase(t), t) for t in self.lives)
            self._beat_points = [p for p, _t in self._beat_order]
        order = self._beat_order
        lo, hi = bisect.bisect_right(self._beat_points, a), bisect.bisect_right(self._beat_points, b)
        if a <= b:
            return [t for _p, t in order[lo:hi]]
        return [t for _p, t in order[lo:]] + [t for _p, t in order[:hi]]

    async def _abort_if_deserted(self, live: Live) -> bool:
        """A table whose people all left before any of them made a move ends without a result
        (True: it was ended here or found ended)."""
        people = [s for s in live.seats if s.kind == "person"]
        if not people or not all(s.left for s in people):
            return False
        if any(r.by == "player" for r in live.steps):
            return False  # people played: the stand-ins finish it, and it is settled as usual
        if await asyncio.to_thread(self.store.abort_table, live.id, "every person left before playing"):
            log.info("table %s: aborted, every person left before playing", live.id)
        await self.refresh(live)
        await self.changed(live)
        return True

    # -- tables ---------------------------------------------------------------------------------
    async def live(self, table_id: str) -> Live | None:
        """The table, loaded from the database and rebuilt from its steps on first use.

        Several processes: the other processes' notes about the table are heard here from its
        first load on, and first: Redis has confirmed that they reach this process before the
        table is read (:meth:`Bus.hear`), so a step another process stores is either in what is
        read or in a note heard after it, never in neither. If Redis does not confirm within
        :data:`HEAR` seconds (it is away, or the listener busy), the table is read now and read
        again once it does (:meth:`_hear_late`); until then, while Redis is away, the watch loop
        reads it every second as it reads every table. A note heard while the table is being read
        finds no table to apply to: the table is read again once it is in memory."""
        held = self.lives.get(table_id)
        if held is not None:
            held.used_at = time.time()
            return held
        lock = self.loading.setdefault(table_id, asyncio.Lock())
        async with lock:
            held = self.lives.get(table_id)
            if held is not None:
                held.used_at = time.time()
                return held
            self._noted.discard(table_id)
            heard = await self.bus.hear(table_id, HEAR) if self.multi else True
            found = await asyncio.to_thread(self.store.table, table_id)
            if found is None:
                if self.loading.get(table_id) is lock:  # (an id asked for that does not exist: keep nothing)
                    del self.loading[table_id]
                if self.multi:
                    await self.bus.forget(table_id)
                return None
            row, seats = found
            live = Live(row, seats, self.store, bot_delay=self.bot_delay, notify=self.after_step)
            live.settler = self.settle
            live.charger = self.charge
            live.health = self.health
            live.unseated = self.close_unseated
            live.reread = self.refresh
            live.shared = self.multi
            if self.multi:
                live.heard = lambda: self.bus.hears(table_id)
            live.stirred = self._stir
            rows = await asyncio.to_thread(self.store.steps, table_id, 0)
            live.absorb(rows)
            self.lives[table_id] = live
            if table_id in self._noted:  # (from here on a note finds the table)
                self._noted.discard(table_id)
                await self._read_again(live)
            if not heard:
                task = asyncio.get_running_loop().create_task(self._hear_late(live))
                self._late.add(task)
                task.add_done_callback(self._late.discard)
            return live

    async def unload_idle(self, now: float) -> list[str]:
        """Drop from memory every table that nothing here needs: no socket here, no driver at work,
        not locked or being loaded, nothing for this process's clock (finished or aborted, closed by
        an admin and stopped here; with several processes also a running table another process
        drives), and unused for :data:`UNLOAD` seconds (:attr:`Live.used_at`: handed out by
        :meth:`live`, or a socket of it closed). The next use reads it back from the database,
        whole; meanwhile its notes are not heard here. Without this a process kept every table it
        ever loaded (about 230 KiB a finished game of four rounds). The tables dropped."""
        dropped: list[str] = []
        for table_id, live in list(self.lives.items()):
            if live.conns or now - live.used_at < UNLOAD or live.lock.locked():
                continue
            if live.driver is not None and not live.driver.done():
                continue
            loading = self.loading.get(table_id)
            if loading is not None and loading.locked():
                continue
            ended = live.status in ("finished", "aborted") or (live.status == CLOSED and table_id in self._stopped)
            elsewhere = self.multi and live.status == "running" and not live.owned
            if not (ended or elsewhere):
                continue
            self._drop(live)
            dropped.append(table_id)
        for table_id in dropped if self.multi else ():
            await self.bus.forget(table_id)
            again = self.loading.get(table_id)
            if table_id in self.lives or (again is not None and again.locked()):
                # Loaded again while its channel was being given up: hear it again and read it.
                task = asyncio.get_running_loop().create_task(self._heard_again(table_id))
                self._late.add(task)
                task.add_done_callback(self._late.discard)
        if dropped:
            log.debug("%d idle tables dropped from memory, %d held", len(dropped), len(self.lives))
        return dropped

    def _drop(self, live: Live) -> None:
        """Forget a table: it is no longer this process's (:meth:`unload_idle`)."""
        table_id = live.id
        del self.lives[table_id]
        live.unloaded = True
        self.loading.pop(table_id, None)
        for kept in (self._stored, self._taken, self._chat_locks, self._chat_rounds, self._watched_here,
                     self._watched_elsewhere,
                     self._lobby_seen, self._queued):
            kept.pop(table_id, None)
        self._stirred.discard(table_id)
        self._noted.discard(table_id)
        self._beat_order, self._beat_points = [], []  # sorted again at the heartbeat's next turn

    async def _heard_again(self, table_id: str) -> None:
        live = await self.live(table_id)
        if live is not None:
            await self._hear_late(live)

    async def _hear_late(self, live: Live) -> None:
        """A table loaded before Redis confirmed that its notes are heard here: once it does, the
        table is read again (a step stored between the load and then was in no note heard here)."""
        while not await self.bus.hear(live.id, 10 * HEAR):
            await asyncio.sleep(WATCH)  # Redis away: the watch loop reads every table meanwhile
        try:
            await self._read_again(live)
        except Exception as err:  # the database is away: every table is caught up when it is back
            self._fault(f"table {live.id}: reading it again once heard", err)

    async def _read_again(self, live: Live) -> None:
        """Catch a table up with what other processes stored (its seats, status and steps)."""
        await self.refresh(live)
        async with live.lock:
            await live.catch_up()
        await live.broadcast()
        live.kick(read_first=False)  # (just read)

    def _unheld(self, table_id: str) -> None:
        """A note for a table not in memory: if it is being loaded, it is read again once it is."""
        lock = self.loading.get(table_id)
        if lock is not None and lock.locked():
            self._noted.add(table_id)

    async def refresh(self, live: Live) -> None:
        """Re-read seats and status (they change through the HTTP API, maybe in another process)."""
        self.refreshed(live, await asyncio.to_thread(self.store.table, live.id))

    def refreshed(self, live: Live, found: tuple[Table, list[Seat]] | None) -> None:
        """Apply a read of the table's row and seats made now (:meth:`refresh`'s, or a socket's open
        read with its session and chat in one call, ``Store.socket_open``)."""
        if found is None:
            return
        row, seats = found
        was = live.status
        live.status = row.status
        live.result = json.loads(row.result) if row.result else live.result
        for info, seat in zip(live.seats, seats):
            info.kind, info.account_id, info.bot, info.name = seat.kind, seat.account_id, seat.bot, seat.name
            info.left, info.away, info.away_since = seat.left, seat.away, seat.away_since
            info.seen_at = max(info.seen_at or 0.0, seat.seen_at or 0.0) or None
        self.enforce(live)
        if was == "open" and live.status == "running" and not self.multi:
            live.owned = True
            live.owned_since = time.time()
        if live.status == "running":
            live.turn_since = {s: live.turn_since.get(s, time.time()) for s in live.turn_since}
        live.stir()  # seats, status or owner may have changed

    # -- who may use a seat ---------------------------------------------------------------------
    def enforce(self, live: Live, keep: Any = None) -> None:
        """Close every socket of this table whose seat is no longer its account's. ``keep`` is only
        taken off the table's sockets (it gets no more frames): its caller answers it, then closes it."""
        for conn in list(live.conns):
            if conn.key != SPECTATOR and not live.seats[conn.key].held_by(conn.account_id):
                live.conns.discard(conn)
                if conn is not keep:
                    self.close_unseated(conn)

    def close_unseated(self, conn: Any, reason: str = "your seat is no longer yours; reconnect to watch") -> None:
        if getattr(conn, "closing", False):
            return
        conn.closing = True
        asyncio.get_running_loop().create_task(conn.close(UNSEATED, reason))

    def close_session(self, token_hash: str) -> None:
        """A session ended (sign-out, here or in another process): its sockets are closed."""
        for live in list(self.lives.values()):
            for conn in list(live.conns):
                if conn.session == token_hash:
                    live.conns.discard(conn)
                    self.close_unseated(conn, "signed out")

    async def after_step(self, live: Live) -> None:
        """A step this process stored (and applied): frames, the other processes, the lobby, the driver."""
        steps = live.unpublished()  # (taken before the first await: a note for each step, once)
        await live.broadcast()
        await self.bus.publish(live.id, steps)
        await self.lobby_changed(live)  # the step that ends the game
        live.kick(read_first=False)

    async def changed(self, live: Live) -> None:
        """Seats or status changed here: tell our clients and the other processes."""
        await live.broadcast()
        await self.bus.publish(live.id)
        await self.lobby_changed(live)
        live.kick()

    STEPPED_BY = frozenset({"player", "bot", "chance", "stand-in"})
    """Steps that change neither seats nor status but by playing (a leave's step comes with a seat
    change, whose own note makes the table read again)."""

    async def stepped_elsewhere(self, table_id: str, rows: list[StepRow]) -> None:
        """Another process stored these steps and sent them in its note: apply them without reading
        the database, when they follow on from what this process has and change nothing but the
        game. Otherwise (a gap: a note lost or overtaken; a person's step for a seat this process
        marked away, which that step's transaction set back; a step that ends the game; another
        kind of step) the table is read as for any note (:meth:`changed_elsewhere`)."""
        live = self.lives.get(table_id)
        if live is None:
            self._unheld(table_id)
            return
        async with live.lock:
            have = len(live.steps)
            new = [r for r in rows if r.n > have]
            plain = self._plain_steps(live, new)
            if plain:
                try:
                    live.absorb(new)
                except Exception:  # not a step of this game here: the database says what was stored
                    log.exception("table %s: a note's steps did not apply; reading the table", table_id)
                    plain = False
            ended = live.state.is_terminal()
        if not new and not any(self._held_here(live, r) for r in rows):
            return  # had them all already (a catch-up of ours read them first), and no seat to read again
        if not plain or ended:
            await self.changed_elsewhere(table_id)
            return
        await live.broadcast()
        live.kick(read_first=False)  # (the table is as stored, up to the note: as after a step of ours)

    def _plain_steps(self, live: Live, new: list[StepRow]) -> bool:
        """Whether steps from a note can be applied as they are (see :meth:`stepped_elsewhere`)."""
        have = len(live.steps)
        if not new or any(r.n != have + 1 + i for i, r in enumerate(new)):
            return False
        for r in new:
            if r.by not in self.STEPPED_BY or (r.seat is not None and not 0 <= r.seat < len(live.seats)):
                return False
            if self._held_here(live, r):
                return False
        return True

    @staticmethod
    def _held_here(live: Live, r: StepRow) -> bool:
        """A person's step for a seat this process holds for them (away or left): that step's
        transaction set the seat back, so the seat must be read, not only the step applied."""
        return (r.by == "player" and r.seat is not None and 0 <= r.seat < len(live.seats)
                and (live.seats[r.seat].away or live.seats[r.seat].left))

    async def changed_elsewhere(self, table_id: str) -> None:
        live = self.lives.get(table_id)
        if live is None:
            self._unheld(table_id)
            return
        await self.refresh(live)
        async with live.lock:
            await live.catch_up()
        # The process that changed it announced it to the lobby; remember what it announced, so that
        # a change back made here is not taken for no change.
        self._lobby_seen[live.id] = lobby_signature(live)
        await live.broadcast()
        live.kick(read_first=False)  # (just read)

    # -- the lobby ------------------------------------------------------------------------------
    async def lobby_changed(self, live: Live) -> None:
        """A public table's line in the lobby may have changed (created, joined, left, started,
        finished, closed, abandoned): if its status or seats differ from what was last announced,
        the lobby's sockets here read the list again, and the other processes are told to. Cheap
        when nothing changed (a socket that opens or closes, a step of a running game)."""
        if live.private:
            return  # never listed
        signature = lobby_signature(live)
        if self._lobby_seen.get(live.id) == signature:
            return
        self._lobby_seen[live.id] = signature
        self.lobby_dirty()
        if self.multi:
            await self.bus.lobby()

    def lobby_dirty(self) -> None:
        """The lobby's list may have changed: tell the lobby's listeners (they coalesce)."""
        for listener in list(self.lobby_listeners):
            try:
                listener()
            except Exception:
                log.exception("lobby listener")

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

    # -- chat and watchers ------------------------------------------------------------------------
    def _chat_lock(self, table_id: str) -> asyncio.Lock:
        return self._chat_locks.setdefault(table_id, asyncio.Lock())

    async def chat(self, live: Live, account_id: int, seat: int | None, text: str, preset: str | None) -> ChatRow:
        """Store one chat line, send it to this table's sockets here and tell the other processes.

        A line is what a person typed (or a preset's key) with their name, the seat their account
        holds at the table (None: a spectator) and the time: nothing else. The step number stored
        with it goes to clients only once the game is finished (:func:`chat_line`)."""
        row = await asyncio.to_thread(self.store.add_chat, live.id, len(live.steps), account_id, seat, text, preset)
        await self.deliver_chat(live)
        await self.bus.chat(live.id)
        return row

    def chat_round(self, table_id: str) -> int:
        """The table's count of :meth:`deliver_chat` calls so far (:meth:`chat_history`'s ``read``)."""
        return self._chat_rounds.get(table_id, 0)

    async def chat_history(self, live: Live, conn: Any,
                           read: tuple[int, list[ChatRow]] | None = None) -> None:
        """A new socket's chat: the last :data:`CHAT_HISTORY` lines, the same for every socket;
        from then on it gets each line after them once (:meth:`deliver_chat`).

        ``read``: the last ``CHAT_HISTORY + 1`` lines already read (with the socket's open, before
        the socket was among the table's sockets) and :meth:`chat_round` taken before that read.
        They are used only if no :meth:`deliver_chat` was called since: a line stored after the
        read is followed by such a call, which would not have sent it to this socket (not ready
        yet); else the lines are read again here."""
        async with self._chat_lock(live.id):
            if read is not None and read[0] == self.chat_round(live.id):
                rows = read[1]
            else:
                rows = await asyncio.to_thread(self.store.chat, live.id, 0, CHAT_HISTORY + 1)
            more = len(rows) > CHAT_HISTORY
            rows = rows[-CHAT_HISTORY:]
            await conn.send_text(encode({"type": "chat", "history": True, "more": more,
                                             "lines": [chat_line(r) for r in rows]}))
            conn.chat_seq = rows[-1].seq if rows else 0

    async def deliver_chat(self, live: Live) -> None:
        """Send each socket of this table here the stored lines it has not had, in order. The
        lines are read from the database, so a line stored by another process (heard over Redis, or
        found by the catch-up while Redis is away) arrives the same way as one of ours."""
        self._chat_rounds[live.id] = self.chat_round(live.id) + 1  # (first: a line stored is followed by this)
        async with self._chat_lock(live.id):
            ready = [c for c in list(live.conns) if getattr(c, "chat_seq", None) is not None]
            if not ready:
                return
            after = min(c.chat_seq for c in ready)
            rows = await asyncio.to_thread(self.store.chat, live.id, after)
            if not rows:
                return
            texts: dict[int, str] = {}
            for conn in ready:
                if rows[-1].seq <= conn.chat_seq:
                    continue
                if conn.chat_seq not in texts:
                    texts[conn.chat_seq] = encode({"type": "chat", "lines": [
                        chat_line(r) for r in rows if r.seq > conn.chat_seq]})
                try:
                    await conn.send_text(texts[conn.chat_seq])
                    conn.chat_seq = rows[-1].seq
                except Exception:
                    live.conns.discard(conn)

    async def chat_elsewhere(self, table_id: str) -> None:
        live = self.lives.get(table_id)
        if live is not None:
            await self.deliver_chat(live)

    def _watching_here(self, live: Live) -> tuple[int, dict[int, str]]:
        """This process's spectators of a table: sockets without an account (counted), and
        accounts by name. An account that holds a seat there plays, even in a watching tab."""
        anonymous, names = 0, {}
        for conn in list(live.conns):
            if conn.key != SPECTATOR or getattr(conn, "closing", False):
                continue
            account = conn.account_id
            if account is None:
                anonymous += 1
            elif not any(s.held_by(account) for s in live.seats):
                names[account] = getattr(conn, "name", "") or "?"
        return anonymous, names

    def watchers_message(self, live: Live) -> dict[str, Any]:
        """``{type: watchers, count, names}``: every process's spectators of this table; names of
        signed-in ones (each account once, at most :data:`WATCHER_NAMES`), the others counted."""
        anonymous, names = self._watching_here(live)
        now = time.time()
        for _origin, (heard, anon, more) in self._watched_elsewhere.get(live.id, {}).items():
            if now - heard < 3 * HEARTBEAT:
                anonymous += anon
                names.update(more)
        listed = sorted(set(names.values()), key=str.casefold)
        return {"type": "watchers", "count": anonymous + len(names), "names": listed[:WATCHER_NAMES]}

    async def watchers_changed(self, live: Live) -> None:
        """Send each socket of the table the watchers now if they changed for it, and tell the other
        processes when this process's own spectators changed."""
        text = encode(self.watchers_message(live))
        for conn in list(live.conns):
            if getattr(conn, "last_watchers", None) == text or getattr(conn, "chat_seq", None) is None:
                continue
            try:
                await conn.send_text(text)
                conn.last_watchers = text
            except Exception:
                live.conns.discard(conn)
        if self.multi:
            here = self._watching_here(live)
            if self._watched_here.get(live.id) != here:
                self._watched_here[live.id] = here
                await self.bus.watchers(live.id, *here)

    async def watchers_elsewhere(self, table_id: str, origin: str, data: dict[str, Any]) -> None:
        live = self.lives.get(table_id)
        if live is None:
            return
        raw = data.get("names")
        names = {int(a): str(n)[:64] for a, n in raw.items() if str(a).isdigit()} if isinstance(raw, dict) else {}
        anonymous = data.get("anonymous")
        self._watched_elsewhere.setdefault(table_id, {})[origin] = (
            time.time(), anonymous if type(anonymous) is int and anonymous >= 0 else 0, names)
        await self.watchers_changed(live)

    async def _watchers_loop(self) -> None:
        """Several processes: say who watches from here every few seconds (a process that starts,
        or missed a message, learns it), and forget what a silent process said."""
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                now = time.time()
                for live in list(self.lives.values()):
                    here = self._watching_here(live)
                    if here != (0, {}) or self._watched_here.get(live.id, (0, {})) != here:
                        self._watched_here[live.id] = here
                        await self.bus.watchers(live.id, *here)
                    elsewhere = self._watched_elsewhere.get(live.id, {})
                    stale = [o for o, (heard, _a, _n) in elsewhere.items() if now - heard >= 3 * HEARTBEAT]
                    for origin in stale:
                        del elsewhere[origin]
                    if stale:
                        await self.watchers_changed(live)
            except Exception as err:
                self._fault("watchers loop", err)

    async def set_away(self, live: Live, seat: int, away: bool) -> None:
        info = live.seats[seat]
        if info.away == away or info.left:
            return
        info.away = away
        info.away_since = time.time() if away else None
        live.stir()
        await asyncio.to_thread(self.store.set_seat, live.id, seat, away=away, away_since=info.away_since)
        if not away and seat in live.turn_since:
            live.turn_since[seat] = time.time()  # back at the table: a full move time again
        await self.changed(live)

    async def leave(self, live: Live, seat: int, by: Any = None) -> None:
        """Leave a running game for good: a bot takes the seat; a game's paid leave is applied once."""
        async with live.lock:
            await live.catch_up()
        info = live.seats[seat]
        if live.status != "running":
            raise ActionError("not-running", "the game is not running")
        # The socket that asked gets no more frames and is answered by its caller, whatever the
        # database says: taken off the table's sockets before the write, so that a re-read of the
        # seats meanwhile (another request's, once the write is committed) does not close it first.
        if by is not None:
            live.conns.discard(by)
        # The database decides who left first: two tabs, or a leave racing a timeout, leave once.
        if not await asyncio.to_thread(self.store.mark_left, live.id, seat):
            info.left = True
            live.stir()
            self.enforce(live, keep=by)
            raise ActionError("already-left", "you have already left this game")
        info.left = True
        info.away = False
        live.stir()
        # Leaving is final: the seat's sockets are closed (they may come back to watch). The socket
        # that asked (``by``) is answered first, by the caller.
        self.enforce(live, keep=by)
        leave = live.state.leave_action(seat)
        if leave is not None:
            live.leave_tried.add(seat)
            try:
                await live.submit(seat, leave, f"leave:{seat}", "leave")
            except ActionError:
                live.leave_tried.discard(seat)  # applied at the seat's next decision instead
        await self.changed(live)

    async def abandon(self, live: Live, seat: int) -> None:
        """A person absent past the grace has left: the same as Leave (charge, rating, final)."""
        log.info("table %s: seat %d absent past the grace of %.0f s: left", live.id, seat, live.grace)
        try:
            await self.leave(live, seat)
        except ActionError:
            pass

    async def connected(self, live: Live, key: int, delta: int) -> None:
        """A socket for seat ``key`` opened (+1) or closed (-1): stored as a sign of life, in the
        store's next grouped transaction (``Store.seen_async``: one hand-off to the writer's thread
        and one commit for the signs and steps that wait together); returns once it is stored, or
        once the transaction failed (only told: the heartbeat stores the next one)."""
        live.used_at = time.time()  # (the last socket's close starts the table's time to unload)
        if key == SPECTATOR:
            return
        info = live.seats[key]
        info.connections += delta
        live.stir()  # present or absent from now
        if info.kind == "person":
            info.seen_at = time.time()
            try:
                await self.store.seen_async(live.id, (key,), info.seen_at)
            except Exception as err:  # only a sign of life: the heartbeat stores the next one
                self._fault(f"table {live.id}: sign of life", err)

    # -- the end of a game ----------------------------------------------------------------------
    def charge(self, live: Live, seat: int, cost: int) -> Posting | None:
        """The posting of a paid leave on a rated table: the seat's account pays the house now
        (runs in a worker thread, committed with the leave's step)."""
        account = live.seats[seat].account_id if live.seats[seat].kind == "person" else None
        if not live.rated or account is None:
            return None
        house = self.store.account_id_for(HOUSE, "house")
        return Posting(f"table:{live.id}:leave:{seat}", {account: -cost, house: cost})

    def settle(self, live: Live, state: State, finish: Finish) -> Finish:
        """Ledger postings and rating updates for a rated game (runs in a worker thread).

        Only tables with people are rated. A seat that left (on purpose, or absent past the grace)
        is placed after every seat that stayed, whatever its stand-in did, so walking away never
        pays better than Leave; a leave's charge, posted when it happened, is not posted again.
        A settlement that does not sum to zero is refused: :class:`Unbalanced`, nothing stored."""
        result = state.result()
        seats_accounts = [self._account_of(live, s) for s in range(live.players)]
        extra: dict[str, Any] = {}
        people = [s for s in range(live.players) if live.seats[s].kind == "person"]
        if live.rated and people and all(a is not None for a in seats_accounts):
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
                for account, amount in self.store.posted(live.id, f"table:{live.id}:leave:").items():
                    postings[account] = postings.get(account, 0) - amount
                if sum(postings.values()) != 0:
                    log.error("table %s: settlement does not sum to zero: %s", live.id, postings)
                    raise Unbalanced(f"table {live.id}: the settlement sums to {sum(postings.values())}, not 0")
                finish.postings = {a: v for a, v in postings.items() if v}
                extra["riscos"] = [int(x) for x in riscos]
            left = [live.seats[s].left for s in range(live.players)]
            placings = placed_after_leavers(result.placings, left)
            stayed = any(not left[s] for s in people)
            finish.ratings, extra["ratings"] = self._ratings(live, accounts, placings, left, stayed)
        finish.result = {**finish.result, "server": extra}
        return finish

    def _account_of(self, live: Live, seat: int) -> int | None:
        info = live.seats[seat]
        if info.kind == "person":
            return info.account_id
        if info.kind == "bot" and info.bot:
            return self.store.account_id_for(f"bot:{info.bot}", "bot")
        return None

    def _ratings(self, live: Live, accounts: list[int], placings: tuple[int, ...], left: list[bool],
                 people_stayed: bool) -> tuple[dict[int, tuple[float, float]], list[dict[str, float]]]:
        """New (mu, sigma) per account and each seat's own {before, after} ordinal.

        Teams are rated as teams. Who is not rated: bots, unless a person played to the end; and a
        person whose partner left (they lose with the team, but their rating is kept as it was)."""
        from openskill.models import PlackettLuce

        model = PlackettLuce()
        current = self.store.ratings(live.game.id, accounts)
        teams = live.game.teams(live.players) or tuple((s,) for s in range(live.players))
        entities = [[model.rating(*current.get(accounts[s], (model.mu, model.sigma))) for s in team]
                    for team in teams]
        ranks = [float(min(placings[s] for s in team)) for team in teams]
        rated = model.rate(entities, ranks=ranks)
        seat_new: dict[int, tuple[float, float]] = {}
        for team, ratings in zip(teams, rated):
            partner_left = any(left[s] for s in team)
            for s, r in zip(team, ratings):
                kind = live.seats[s].kind
                if kind == "bot" and not people_stayed:
                    continue
                if kind == "person" and partner_left and not left[s]:
                    continue
                seat_new[s] = (r.mu, r.sigma)
        new: dict[int, list[tuple[float, float]]] = {}
        for s, value in seat_new.items():
            new.setdefault(accounts[s], []).append(value)
        out = {a: (sum(m for m, _ in v) / len(v), sum(sg for _, sg in v) / len(v)) for a, v in new.items()}
        per_seat: list[dict[str, float]] = []
        for s in range(live.players):
            mu0, sg0 = current.get(accounts[s], (model.mu, model.sigma))
            mu1, sg1 = seat_new.get(s, (mu0, sg0))
            per_seat.append({"before": round(mu0 - 3 * sg0, 3), "after": round(mu1 - 3 * sg1, 3)})
        return out, per_seat


def beat_phase(table_id: str) -> float:
    """The table's point in the heartbeat's cycle, 0 to :data:`HEARTBEAT` seconds (the same in
    every process and run: a CRC of its id)."""
    return zlib.crc32(table_id.encode()) / 2**32 * HEARTBEAT


def lobby_signature(live: Live) -> tuple[Any, ...]:
    """What of a table the lobby shows that can change: its status and each seat's holder."""
    return (live.status, tuple((s.kind, s.account_id, s.name, s.left, s.bot) for s in live.seats))


def placed_after_leavers(placings: tuple[int, ...], left: list[bool]) -> tuple[int, ...]:
    """Placings (1 best, as :class:`Result` gives them) with every seat that left after every seat
    that stayed; the order among stayers and among leavers, ties included, is kept."""
    order = sorted(set((left[s], placings[s]) for s in range(len(placings))))
    rank = {key: i for i, key in enumerate(order)}
    dense = [rank[(left[s], placings[s])] for s in range(len(placings))]
    # Back to competition ranking (1224 style) as the engines give: 1 + the number of seats ahead.
    return tuple(1 + sum(1 for t in dense if t < d) for d in dense)


def chat_line(row: ChatRow, finished: bool = False) -> dict[str, Any]:
    """A chat line as clients get it: the same for every reader, and only what its author said
    with their name, seat (None: a spectator) and the time. The number of steps stored then
    (``step``) only for a finished game: during a game it would tell when hidden steps happened."""
    line: dict[str, Any] = {"seq": row.seq, "name": row.name, "seat": row.seat, "text": row.text,
                            "preset": row.preset, "at": round(row.at, 3)}
    if finished:
        line["step"] = row.n
    return line


def new_table_id() -> str:
    """A random id that never starts with '-' (a command line would read it as an option)."""
    while True:
        table_id = secrets.token_urlsafe(12)
        if not table_id.startswith("-"):
            return table_id
