"""What this process knows of the services it stands on (the database, Redis) and what it does
while one of them is away.

A failure of a service is noticed where it happens (a commit, a publish, the Redis listener) and
by the hub's watch loop, which asks both services every second. While the database is away,
actions are refused with ``busy`` (nothing is acknowledged that is not stored) and every client is
sent ``{"type": "service", "busy": true, ...}``; while Redis is away, tables keep going and each
process reads its tables' new steps from the database instead of waiting to hear of them. When a
service is back, clients get ``busy: false`` and every table carries on by itself: drivers are
restarted, the Redis listener resubscribes and catches every table up from the database.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

log = logging.getLogger("updown.server")

DATABASE = "database"
REDIS = "redis"

T = TypeVar("T")
E = TypeVar("E", bound=BaseException)

_SUSPENDABLE = (inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR
                | inspect.CO_ITERABLE_COROUTINE)
"""Code flags of a generator's or a coroutine's frame (see :func:`forget_locals`)."""

MESSAGES = {
    DATABASE: "the server cannot reach its database; moves wait until it is back (retrying)",
    REDIS: "the server cannot reach the other server processes; moves may show late (retrying)",
}


def is_outage(err: BaseException) -> bool:
    """Whether ``err`` says a service cannot be reached now (rather than a fault of the request).

    SQLAlchemy's operational and interface errors (a dropped or refused connection, a server
    shutting down, SQLite's "database is locked"), a connection pool that gave up, and Redis's
    connection and timeout errors."""
    try:
        from sqlalchemy.exc import DisconnectionError, InterfaceError, OperationalError
        from sqlalchemy.exc import TimeoutError as PoolTimeout
    except ImportError:  # pragma: no cover - the server always has SQLAlchemy
        return False
    if isinstance(err, (OperationalError, InterfaceError, DisconnectionError, PoolTimeout)):
        return True
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeout
    except ImportError:  # pragma: no cover
        return False
    return isinstance(err, (RedisConnectionError, RedisTimeout))


def outage_service(err: BaseException) -> str | None:
    """Which service an outage error (:func:`is_outage`) is of: ``redis`` or ``database``; None if
    it is not one."""
    if not is_outage(err):
        return None
    return REDIS if type(err).__module__.startswith("redis") else DATABASE


def forget_locals(err: BaseException) -> None:
    """Drop the tracebacks of ``err`` and of its cause and context, having cleared the local
    variables of the plain frames they went through. An outage's error holds every frame it
    passed and whatever those frames held, and where one of them holds the error itself, that is
    a reference cycle that only the garbage collector frees, and the server's frozen heap keeps
    until a renewal (``gcpolicy.py``; docs/server.md, "Error paths and the renewal's period").
    SQLAlchemy's wrapping of a DB-API error is such a frame (``Connection._handle_dbapi_exception``
    keeps the error it raises in a local): about 80 objects in a cycle for every statement that
    fails while the database is away. (An outage is logged as one line: no traceback is lost.)

    A frame still running is left as it is (``frame.clear`` refuses it, in any thread), and so is
    every coroutine's or generator's frame, finished or not, since nothing tells the two apart:
    clearing the frame of one that is suspended closes it (CPython finalizes its owner), and an
    error's traceback can hold a suspended coroutine of another task. It does whenever one error
    object is raised in two tasks (a grouped commit hands its transaction's error to every table
    of its batch, a failed Redis publish to every caller that waits on it): each raise adds its
    frames to the traceback the object has. Clearing those once closed another table's driving
    loop in the middle of its retry's sleep, and that table waited for ever with its lock held.
    A finished coroutine's frame is let go with the traceback that held it instead."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [err]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        tb = e.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if not frame.f_code.co_flags & _SUSPENDABLE:
                try:
                    frame.clear()
                except RuntimeError:  # running (the one that caught it, or one in another thread)
                    pass
            tb = tb.tb_next
        e.__traceback__ = None
        todo += [e.__cause__, e.__context__]


def detached(err: E) -> E:
    """``err`` made fit to be kept as a value (in a list of results, as a future's result), by
    :func:`forget_locals`: it holds no frame then, the running one that caught it included (a
    ``raise`` of it later starts a new traceback). Kept with them, an error held in a list that a
    frame of its traceback holds is a reference cycle. Call it where the error is caught."""
    forget_locals(err)
    return err


def first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0][:200] or type(err).__name__


class ServiceHealth:
    """Which services are away now, since when and why; listeners hear every change."""

    def __init__(self) -> None:
        self.down: dict[str, tuple[float, str]] = {}
        self.listeners: list[Callable[[], Coroutine[Any, Any, None]]] = []
        self.outages: dict[str, int] = {DATABASE: 0, REDIS: 0}
        """How many times each service went away since this process started."""
        self.recoveries: dict[str, int] = {DATABASE: 0, REDIS: 0}
        """How many times each service came back (a listener compares, so no return is missed)."""

    def is_down(self, service: str) -> bool:
        return service in self.down

    def failed(self, service: str, err: BaseException | str) -> bool:
        """Note a failure; True (and the listeners told) if the service was thought up until now."""
        if not isinstance(err, str):
            service = outage_service(err) or service  # a Redis error met on a database path is Redis's
            forget_locals(err)  # (its frames' cycles: whoever caught it is done with them)
        if service in self.down:
            return False
        reason = err if isinstance(err, str) else first_line(err)
        self.down[service] = (time.time(), reason)
        self.outages[service] = self.outages.get(service, 0) + 1
        log.warning("%s unreachable: %s (retrying; clients are told)", service, reason)
        self._tell()
        return True

    def ok(self, service: str) -> bool:
        """Note that a service answered; True (and the listeners told) if it was away until now."""
        if service not in self.down:
            return False
        since, _reason = self.down.pop(service)
        self.recoveries[service] = self.recoveries.get(service, 0) + 1
        log.warning("%s back after %.1f s", service, time.time() - since)
        self._tell()
        return True

    def message(self) -> dict[str, Any]:
        """What every client is sent when this changes (and on connecting while something is away)."""
        down = sorted(self.down)
        return {"type": "service", "busy": DATABASE in self.down, "down": down,
                "since": {s: round(self.down[s][0], 3) for s in down},
                "message": "; ".join(MESSAGES[s] for s in down if s in MESSAGES)}

    def _tell(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        for listener in self.listeners:
            loop.create_task(listener())


async def retried(what: Callable[[], Awaitable[T]], health: ServiceHealth, service: str, *,
                  delays: tuple[float, ...] = (0.1, 0.3, 0.8, 1.5)) -> T:
    """``what()``, tried again after each delay while it fails with an outage (see :func:`is_outage`).

    Once the service is known to be away, it is tried once only: the caller answers at once (busy)
    instead of holding a client for seconds. The last outage error is raised; any other error at
    once. A success notes the service as up."""
    tries = 1 if health.is_down(service) else len(delays) + 1
    for attempt in range(tries):
        try:
            result = await what()
        except Exception as err:
            if not is_outage(err):
                raise
            health.failed(service, err)
            if attempt == tries - 1:
                raise
            await asyncio.sleep(delays[attempt])
            continue
        health.ok(service)
        return result
    raise AssertionError("unreachable")  # pragma: no cover
