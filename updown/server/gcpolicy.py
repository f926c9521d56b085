"""The garbage collector in the server process (issue 35): its pauses timed, and the long-lived
heap kept out of its full collections.

Python's collector pauses the whole process while it looks for unreachable cycles, and a full
collection (generation 2) looks at every tracked object: at 5,000 idle players (a heap of about
600 MB) one took 0.7 s, once a minute while tables played, and held every table's frames for as long
(docs/server.md, Capacity). Almost all of that heap is long-lived: the sockets, tables and sessions
of idle players, which no collection will ever free while they are connected.

:class:`GcPolicy` owns what the server does about it, started and stopped by the application's
lifespan (``app.py``) with the ``gc`` settings (``settings.py``):

- every collection is timed (``gc.callbacks``) into the ``updown_gc_seconds`` histogram, by
  generation, and one longer than ``log_over`` seconds is logged with its wall-clock end, so that a
  stall can be lined up with slow frames (``benchmarks/server_idle.py`` does);
- with ``freeze`` on (the default), the heap is collected and frozen (``gc.freeze()``: moved to the
  permanent generation, which no collection looks at) once start-up is done, and again after every
  full collection that took ``freeze_over`` seconds of CPU or more (a long-lived heap grew since the
  last freeze: players connected), so the next full collection looks only at what was made since.
  A short full collection freezes nothing: freezing after every one (they come every few seconds
  once the heap is frozen) froze the short-lived objects alive at each, the sockets of players
  coming and going, whose garbage then waited for the renewal (measured: RSS grew faster under
  churn, docs/server.md);
- a frozen object that becomes cyclic garbage later (a closed socket's cycles) is not freed until
  it is unfrozen, so every ``unfreeze_every`` seconds the heap is unfrozen, collected in full (one
  pause of the old length) and frozen again: what is kept is bounded by one period's garbage.

Objects freed by their reference count (most garbage) are freed whether frozen or not. ``freeze``
off leaves the collector as Python sets it (the timing stays).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from updown.server.metrics import GC_FROZEN, GC_SECONDS

log = logging.getLogger("updown.server.gc")

FULL = 2
"""The oldest generation: a collection of it looks at every object not frozen."""


class Collector(Protocol):
    """What the policy uses of the ``gc`` module (a test passes one that records the calls)."""

    callbacks: list[Callable[[str, dict[str, Any]], None]]

    def collect(self, generation: int = ...) -> int: ...
    def freeze(self) -> None: ...
    def unfreeze(self) -> None: ...
    def get_freeze_count(self) -> int: ...


class GcPolicy:
    """Times every collection and, with ``freeze``, keeps the long-lived heap frozen (module
    docstring). :meth:`start` after start-up (in the event loop), :meth:`stop` at shutdown."""

    def __init__(self, *, freeze: bool = True, unfreeze_every: float = 1800.0, log_over: float = 0.1,
                 freeze_over: float = 0.05, collector: Collector | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 cpu_clock: Callable[[], float] = time.thread_time):
        self.freeze_on = freeze
        self.freeze_over = freeze_over
        self._cpu_clock = cpu_clock
        self.unfreeze_every = unfreeze_every
        self.log_over = log_over
        self.gc: Collector = collector if collector is not None else gc  # type: ignore[assignment]
        self._sleep = sleep
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started_at: float | None = None
        self._started_cpu = 0.0
        self._freeze_due = False
        self._renewer: asyncio.Task[None] | None = None
        self._timed = [GC_SECONDS.labels(str(g)) for g in range(FULL + 1)]
        """The histogram's children, made here: ``labels()`` takes a lock that a collection may
        interrupt, so the callback must not call it (it would wait for itself)."""
        self.collections = [0, 0, 0]
        """Collections timed since :meth:`start`, by generation."""
        self.freezes = 0
        """Times the heap was frozen (start-up, after full collections, at each renewal)."""
        self.renewals = 0
        """Times the heap was unfrozen, collected in full and frozen again."""

    # -- the collector's callback -------------------------------------------------------------

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        """``gc.callbacks`` hook: called before and after every collection, in whatever thread
        triggered it. Times the collection; after a full one, has the event loop freeze the heap
        (soon, outside the collector: nothing is frozen from within a collection) when it was long."""
        generation = int(info.get("generation", FULL))
        if phase == "start":
            self._started_at = time.perf_counter()
            # The CPU clock (a system call) only for full collections, the only ones it judges:
            # read at every collection it was 2% of a loaded server's samples.
            self._started_cpu = self._cpu_clock() if generation == FULL else 0.0
            return
        if self._started_at is None:  # hooked in during a collection
            return
        took = time.perf_counter() - self._started_at
        # (the collector runs in the thread that called it)
        cpu = self._cpu_clock() - self._started_cpu if generation == FULL else 0.0
        self._started_at = None
        self.collections[generation] += 1
        self._timed[generation].observe(took)
        loop = self._loop
        if loop is None:
            return
        try:  # the log line and the freeze in the event loop, not in the middle of whatever was collected
            if took > self.log_over:
                cpu_said = f" ({1000 * cpu:.0f} ms of CPU)" if generation == FULL else ""
                loop.call_soon_threadsafe(
                    log.info, "garbage collection of generation %d: %.0f ms%s, %d collected, ended at "
                    "%.3f (wall clock)", generation, 1000 * took, cpu_said, int(info.get("collected", 0)), time.time())
            if generation == FULL and self.freeze_on and cpu >= self.freeze_over and not self._freeze_due:
                self._freeze_due = True
                loop.call_soon_threadsafe(self._freeze_after_full)
        except RuntimeError:  # the loop is closed: shutting down
            self._freeze_due = False

    def _freeze_after_full(self) -> None:
        self._freeze_due = False
        if self._loop is not None:  # not stopped meanwhile
            self._freeze()

    def _freeze(self) -> None:
        self.gc.freeze()
        self.freezes += 1
        GC_FROZEN.set(self.gc.get_freeze_count())

    # -- start, renew, stop --------------------------------------------------------------------

    def start(self) -> None:
        """Hook the timing in; with ``freeze``, collect and freeze what start-up made, and start the
        renewals. Call from the event loop."""
        self._loop = asyncio.get_running_loop()
        if self._callback not in self.gc.callbacks:
            self.gc.callbacks.append(self._callback)
        if self.freeze_on:
            self.gc.collect()
            self._freeze()
            self._renewer = asyncio.ensure_future(self._renew_forever())

    def renew(self) -> int:
        """Unfreeze, collect in full (frees the cyclic garbage among the frozen objects) and freeze
        again. The objects collected."""
        took = time.perf_counter()
        self.gc.unfreeze()
        found = self.gc.collect()
        self._freeze()
        self.renewals += 1
        log.info("garbage collector: heap unfrozen, collected (%d objects) and frozen again in %.0f ms",
                 found, 1000 * (time.perf_counter() - took))
        return found

    async def _renew_forever(self) -> None:
        while True:
            await self._sleep(self.unfreeze_every)
            self.renew()

    async def stop(self) -> None:
        """Unhook, stop the renewals and unfreeze (a process that goes on, a test's, keeps nothing
        frozen)."""
        self._loop = None
        if self._callback in self.gc.callbacks:
            self.gc.callbacks.remove(self._callback)
        if self._renewer is not None:
            self._renewer.cancel()
            try:
                await self._renewer
            except asyncio.CancelledError:
                pass
            self._renewer = None
        if self.freeze_on:
            self.gc.unfreeze()
            GC_FROZEN.set(0)
