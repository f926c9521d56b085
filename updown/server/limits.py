"""What one client may spend: rate limits per address, account and socket, and the password hashes
running at once. See ``docs/server.md`` (Limits).

Counts are kept by the ``limits`` library (moving window by default): in this process's memory, or
in Redis when the server runs with a Redis URL, so that several server processes share them. The
per-socket message count is always in memory: a socket belongs to one process.

A refused request gets ``429 {"detail": "..."}`` naming what was limited, with ``Retry-After``
(seconds), and changes nothing. A refused WebSocket message gets an error frame with the code
``rate-limited``; a socket that keeps sending past its limit is closed with code 1008.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import logging
import math
import time
import weakref
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from fastapi import HTTPException, Request
from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import (
    FixedWindowRateLimiter,
    MovingWindowRateLimiter,
    RateLimiter,
    SlidingWindowCounterRateLimiter,
)
from limits.errors import StorageError

log = logging.getLogger("updown.server")

STRATEGIES: dict[str, type[RateLimiter]] = {
    "moving-window": MovingWindowRateLimiter,
    "fixed-window": FixedWindowRateLimiter,
    "sliding-window": SlidingWindowCounterRateLimiter,
}
OFF = "off"


@dataclass
class Limits:
    """Every limit; a rate is ``N/second``, ``N/minute``, ``N/hour``, ``N per 10 minutes`` ... or ``off``.

    ``updown serve --limit NAME=VALUE`` sets one (repeatable), e.g. ``--limit tables_per_guest=5/hour``."""

    strategy: str = "moving-window"
    """How a window counts: moving-window (exact), fixed-window or sliding-window (cheaper in Redis)."""
    login_per_address: str = "20/minute"
    """Sign-in attempts from one client address, right or wrong."""
    login_per_name: str = "10/minute"
    """Sign-in attempts for one account name, from anywhere."""
    accounts_per_address: str = "20/hour"
    """New accounts (registrations and guests together) from one client address."""
    tables_per_person: str = "60/hour"
    """Tables a registered account creates."""
    tables_per_guest: str = "10/hour"
    """Tables a guest creates (stricter: a guest costs nothing to make)."""
    bot_tables_at_once: int = 2
    """Tables of bots alone (no seat for a person) one account may have open or running at once."""
    hints_per_user: str = "10/minute"
    """Hint requests (``GET /api/tables/{id}/hint``) by one account."""
    hint_budget_per_user: str = "4000/minute"
    """Playouts (the ``budget`` of each hint, summed) one account may spend on hints."""
    socket_messages: str = "60/second"
    """Messages one WebSocket may send; past that each message is refused with ``rate-limited``."""
    socket_strikes: str = "40/minute"
    """Refused messages a socket may send before it is closed with code 1008."""
    chat_per_socket: str = "5 per 10 seconds"
    """Chat lines one WebSocket may send; past that each is refused with ``rate-limited``."""
    chat_per_account: str = "20/minute"
    """Chat lines one account may send, from all its sockets and tables together."""
    lobby_sockets_per_address: int = 8
    """Lobby WebSockets (``/ws/lobby``) one client address may have open at once on one process."""
    hash_slots: int = 2
    """Password hashes (argon2, 64 MiB each) running at once, for register and login."""
    hash_wait: float = 2.0
    """Seconds a register or login waits for a hash slot before it is refused."""
    max_body: int = 64 * 1024
    """Bytes a request body may have (413 past that), read before any parsing."""
    max_upload: int = 4 * 1024 * 1024
    """Bytes a record upload (``POST /web/replay``, which has its own 2 MB check) may have."""

    def set(self, assignment: str) -> None:
        """Apply ``NAME=VALUE``; ValueError with a clear message when either is wrong."""
        name, sep, value = assignment.partition("=")
        name, value = name.strip().replace("-", "_"), value.strip()
        fields = {f.name: f for f in dataclasses.fields(self)}
        if not sep or name not in fields:
            raise ValueError(f"{assignment[:60]!r}: give NAME=VALUE, NAME one of {', '.join(fields)}")
        current = getattr(self, name)
        try:
            if isinstance(current, bool):
                raise ValueError
            new: Any = type(current)(value)
        except ValueError:
            raise ValueError(f"{name}: {value[:40]!r} is not a number") from None
        setattr(self, name, new)
        self.check()

    def check(self) -> None:
        """ValueError naming the first setting that is not valid."""
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy: one of {', '.join(STRATEGIES)}, not {self.strategy!r}")
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, str) and f.name != "strategy" and value != OFF:
                try:
                    parse(value)
                except ValueError:
                    raise ValueError(f"{f.name}: {value[:40]!r} is not a rate like 10/minute, or 'off'") from None
        if self.bot_tables_at_once < 0:
            raise ValueError("bot_tables_at_once: 0 or more")
        if self.lobby_sockets_per_address < 1:
            raise ValueError("lobby_sockets_per_address: at least 1")
        if self.hash_slots < 1:
            raise ValueError("hash_slots: at least 1")
        if not 0 <= self.hash_wait <= 60:
            raise ValueError("hash_wait: 0 to 60 seconds")
        if self.max_body < 1024 or self.max_upload < 1024:
            raise ValueError("max_body and max_upload: at least 1024 bytes")


class Limited(HTTPException):
    """429 with ``Retry-After``: what was limited, and when to try again. ``what`` names the limit
    (``login-address``, ...): the answer's ``params`` carry it, so a page can say it in its language."""

    code = "rate-limited"

    def __init__(self, message: str, retry_after: int, what: str | None = None):
        retry_after = max(1, retry_after)
        super().__init__(status_code=429, detail=f"{message}; try again in {retry_after} s",
                         headers={"Retry-After": str(retry_after)})
        self.retry_after = retry_after
        self.params: dict[str, str | int] = {"retry_after": retry_after}
        if what:
            self.params["what"] = what


class Socket(Protocol):
    """What the limiter needs of a WebSocket connection (``app.Connection``)."""

    websocket: Any
    send_lock: asyncio.Lock

    async def send_json(self, data: dict[str, Any]) -> None: ...


def client_address(request: Request) -> str:
    """The client's address as the server sees it (uvicorn's ``--proxy-headers`` rules apply)."""
    return request.client.host if request.client else "unknown"


def _item(rate: str) -> RateLimitItem | None:
    return None if rate == OFF else parse(rate)


class Limiter:
    """Every count of one server process (shared with the others through Redis)."""

    def __init__(self, limits: Limits | None = None, redis: str | None = None, namespace: str = ""):
        self.limits = limits = limits or Limits()
        limits.check()
        storage: Storage
        if redis:
            prefix = "updown-limits:" + hashlib.sha256(namespace.encode()).hexdigest()[:12]
            storage = RedisStorage("async+" + redis, implementation="redispy", key_prefix=prefix,
                                   wrap_exceptions=True)
        else:
            storage = MemoryStorage()
        self.shared = STRATEGIES[limits.strategy](storage)
        self.local = MovingWindowRateLimiter(MemoryStorage())
        self.login_address = _item(limits.login_per_address)
        self.login_name = _item(limits.login_per_name)
        self.accounts = _item(limits.accounts_per_address)
        self.tables_person = _item(limits.tables_per_person)
        self.tables_guest = _item(limits.tables_per_guest)
        self.hints = _item(limits.hints_per_user)
        self.hint_budget = _item(limits.hint_budget_per_user)
        self.socket_rate = _item(limits.socket_messages)
        self.socket_strikes = _item(limits.socket_strikes)
        self.chat_socket = _item(limits.chat_per_socket)
        self.chat_account = _item(limits.chat_per_account)
        self._hash_slots: asyncio.Semaphore | None = None
        self._sockets: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self._closed: weakref.WeakSet[Any] = weakref.WeakSet()
        self._next_socket = 0
        self._messages: weakref.WeakKeyDictionary[Any, deque[float]] = weakref.WeakKeyDictionary()
        """Each socket's message times in the last window of ``socket_messages``: the same moving
        window as ``self.local``'s, counted here because every message of every socket passes it."""

    # -- the counts -------------------------------------------------------------------------------
    async def _take(self, item: RateLimitItem | None, key: tuple[str, ...], message: str, cost: int = 1,
                    limiter: RateLimiter | None = None) -> None:
        """Count ``cost`` against ``item`` for ``key``, or raise :class:`Limited` (counting nothing)."""
        if item is None:
            return
        limiter = limiter or self.shared
        try:
            if await limiter.hit(item, *key, cost=cost):
                return
            stats = await limiter.get_window_stats(item, *key)
        except StorageError as err:  # Redis is away: let the request through rather than refuse everyone
            log.warning("rate limits: storage error, not counting (%s)", err)
            return
        from updown.server.metrics import LIMITED

        LIMITED.labels(key[0]).inc()
        raise Limited(f"{message} ({item})", math.ceil(stats.reset_time - time.time()), key[0])

    async def login(self, request: Request, name: str) -> None:
        """One sign-in attempt: per client address, then per account name."""
        await self._take(self.login_address, ("login-address", client_address(request)),
                         "too many sign-in attempts from your address")
        await self._take(self.login_name, ("login-name", name.strip().lower()[:64]),
                         "too many sign-in attempts for this account name")

    async def new_account(self, request: Request) -> None:
        """One registration or guest from this client address."""
        await self._take(self.accounts, ("accounts", client_address(request)),
                         "too many new accounts and guests from your address")

    async def new_table(self, account_id: int, kind: str) -> None:
        """One table created by this account (guests have the stricter limit)."""
        if kind == "person":
            await self._take(self.tables_person, ("tables", str(account_id)), "too many new tables for your account")
        else:
            await self._take(self.tables_guest, ("tables", str(account_id)),
                             "too many new tables for a guest (register for more)")

    async def hint(self, account_id: int, budget: int) -> None:
        """One hint of ``budget`` playouts: the number of hints, then the playouts they spend."""
        await self._take(self.hints, ("hints", str(account_id)), "too many hints")
        await self._take(self.hint_budget, ("hint-budget", str(account_id)),
                         f"the hint budget is spent (this hint asks for {budget} playouts, a smaller one "
                         "may fit)", cost=budget)

    # -- password hashes ----------------------------------------------------------------------------
    @asynccontextmanager
    async def hashing(self) -> AsyncIterator[None]:
        """A slot for one password hash, or 429 when none frees up within ``hash_wait`` seconds."""
        if self._hash_slots is None:
            self._hash_slots = asyncio.Semaphore(self.limits.hash_slots)
        slots = self._hash_slots
        try:
            await asyncio.wait_for(slots.acquire(), timeout=self.limits.hash_wait)
        except TimeoutError:
            raise Limited("too many sign-ins at once", 1, "sign-ins-at-once") from None
        try:
            yield
        finally:
            slots.release()

    # -- WebSocket messages --------------------------------------------------------------------------
    async def socket_message(self, conn: Socket, text: str | None = None) -> bool:
        """Count one message from this socket: True to handle it; False when it was refused (the
        socket got a ``rate-limited`` error, or was closed with 1008 after too many of them)."""
        if conn in self._closed:
            return False
        if self.socket_rate is None:
            return True
        key = self._sockets.get(conn)
        if key is None:
            self._next_socket += 1
            key = self._sockets[conn] = f"socket-{self._next_socket}"
        times = self._messages.get(conn)
        if times is None:
            times = self._messages[conn] = deque()
        now = time.time()
        window = self.socket_rate.get_expiry()
        while times and times[0] <= now - window:
            times.popleft()
        if len(times) < self.socket_rate.amount:
            times.append(now)
            return True
        from updown.server.metrics import LIMITED

        LIMITED.labels("socket").inc()
        if self.socket_strikes is not None and not await self.local.hit(self.socket_strikes, "strikes", key):
            self._closed.add(conn)
            try:
                async with conn.send_lock:
                    await conn.websocket.close(code=1008, reason="too many messages")
            except Exception:  # already gone
                pass
            return False
        retry = max(0.0, times[0] + window - time.time())
        await conn.send_json({"type": "error", "id": _message_id(text), "code": "rate-limited",
                              "message": f"too many messages ({self.socket_rate}); this one was ignored, "
                                         f"send it again in {retry:.1f} s",
                              "retry_after": round(retry, 2)})
        return False


    async def chat(self, conn: Socket, account_id: int) -> float | None:
        """Count one chat line from this socket and account: None to send it, else the seconds to
        wait (nothing was counted against the other limit). The socket's count is in memory, the
        account's shared (Redis) across processes; a storage error lets the line through."""
        key = self._sockets.get(conn)
        if key is None:
            self._next_socket += 1
            key = self._sockets[conn] = f"socket-{self._next_socket}"
        checks: list[tuple[RateLimitItem, RateLimiter, tuple[str, ...]]] = []
        if self.chat_socket is not None:
            checks.append((self.chat_socket, self.local, ("chat-socket", key)))
        if self.chat_account is not None:
            checks.append((self.chat_account, self.shared, ("chat-account", str(account_id))))
        from updown.server.metrics import LIMITED

        for item, limiter, ident in checks:
            try:
                if not await limiter.test(item, *ident):
                    stats = await limiter.get_window_stats(item, *ident)
                    LIMITED.labels(ident[0]).inc()
                    return max(0.1, stats.reset_time - time.time())
            except StorageError as err:
                log.warning("rate limits: storage error, not counting (%s)", err)
        for item, limiter, ident in checks:
            try:
                await limiter.hit(item, *ident)
            except StorageError:
                pass
        return None


def _message_id(text: str | None) -> str | None:
    """The ``id`` of a refused message when it is cheap to read, so that the client knows which one."""
    if text is None or len(text) > 4096:
        return None
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError):
        return None
    cid = msg.get("id") if isinstance(msg, dict) else None
    return cid if isinstance(cid, str) and 1 <= len(cid) <= 64 else None
