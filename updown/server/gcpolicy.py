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
  full collection that took ``freeze_over`` seconds of CPU or more (0, the default: after every
  one), so the next full collection looks only at what was made since;
- with ``freeze`` on and ``full_after`` above 0 (100 in the server's settings), Python's third
  threshold is set to it while the policy runs (put back at :meth:`stop`): a full collection comes
  after that many collections of the middle generation, not Python's 10. Python's other condition
  (what survived since the last full collection passes a quarter of what that one kept) nearly
  always holds when the heap is frozen after each full collection, since each kept only what was
  made since the freeze before; so under churn at 5,000 idle players a full collection came every
  16 to 20 s, a pause of 50 to 300 ms each that held every table's frames; since closed sockets
  stopped leaving cycles (docs/server.md, "A closed socket's parser") they free next to nothing.
  The count follows the allocations: while thousands of players connect, full collections (and
  freezes) still come often enough that none looks at more than a share of them. (A full
  collection on a timer instead, every 300 s, looked at all 5,000 new sockets at once: one pause
  of 1.4 s.)
- a frozen object that becomes cyclic garbage later (a closed socket's cycles) is not freed until
  it is unfrozen, so now and then the heap is unfrozen, collected in full (one pause of the old
  length: 0.7 to 5 s at 5,000 idle players, by the machine's load) and frozen again: a *renewal*.
  It comes when the process's memory (its resident set) has grown by ``renew_growth`` since the
  last one (or since start-up), looked at every minute, but never sooner than ``unfreeze_every``
  seconds after it, and at the latest ``unfreeze_longest`` seconds after it. A server whose players
  come and go keeps renewing every ``unfreeze_every``; one whose players sit still pauses only every
  ``unfreeze_longest``. Where the memory cannot be read (no ``/proc``), every ``unfreeze_every``.
  After start-up's freeze and each renewal's, one more full collection (of next to nothing) resets
  Python's count, so that its next full collection does not wait for a quarter of the whole heap
  (:meth:`GcPolicy._reset_count`).
  Both are six hours by default (so a renewal comes every six hours): the server's sockets, games,
  lobby and error paths leave no reference cycles (``tests/test_gc_cycles.py``, which counts what
  a collection frees through finalizers too, and ``tests/test_gc_errors.py``), so a renewal finds
  next to nothing and is a pause for little; a renewal every 30 minutes, the default until then,
  paused a busy server 12 times in six hours. (Until 30 November 2026 every closed
  socket did leave a cycle, one that only a generator's finalizer broke, which those tests did not
  count: ``protocol.py``.)

Objects freed by their reference count (most garbage) are freed whether frozen or not. ``freeze``
off leaves the collector as Python sets it (the timing stays).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from updown.server.metrics import GC_FROZEN, GC_SECONDS

log = logging.getLogger("updown.server.gc")

FULL = 2
"""The oldest generation: a collection of it looks at every object not frozen."""

LOOK_EVERY = 60.0
"""Seconds between two looks at the process's memory, once a renewal may come."""


def resident_bytes() -> int | None:
    """The process's resident set in bytes (Linux's ``/proc/self/statm``); None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


class Collector(Protocol):
    """What the policy uses of the ``gc`` module (a test passes one that records the calls)."""

    callbacks: list[Callable[[str, dict[str, Any]], None]]

    def collect(self, generation: int = ...) -> int: ...
    def freeze(self) -> None: ...
    def unfreeze(self) -> None: ...
    def get_freeze_count(self) -> int: ...
    def get_threshold(self) -> tuple[int, int, int]: ...
    def set_threshold(self, threshold0: int, threshold1: int = ..., threshold2: int = ...) -> None: ...


class GcPolicy:
    """Times every collection and, with ``freeze``, keeps the long-lived heap frozen (module
    docstring). :meth:`start` after start-up (in the event loop), :meth:`stop` at shutdown."""

    def __init__(self, *, freeze: bool = True, unfreeze_every: float = 21600.0, unfreeze_longest: float = 21600.0,
                 renew_growth: float = 0.1, log_over: float = 0.1,
                 freeze_over: float = 0.0, full_after: int = 0, collector: Collector | None = None,
                 sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                 cpu_clock: Callable[[], float] = time.thread_time,
                 memory: Callable[[], int | None] = resident_bytes):
        self.freeze_on = freeze
        self.freeze_over = freeze_over
        self.full_after = full_after
        self._threshold: tuple[int, int, int] | None = None
        """Python's thresholds before :meth:`start` set the third, for :meth:`stop`."""
        self._cpu_clock = cpu_clock
        self.unfreeze_every = unfreeze_every
        self.unfreeze_longest = max(unfreeze_longest, unfreeze_every)
        self.renew_growth = renew_growth
        self._memory = memory
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
            self._reset_count()
            self._renewer = asyncio.ensure_future(self._renew_forever())
            if self.full_after > 0:  # fewer full collections than Python's own (module docstring)
                self._threshold = self.gc.get_threshold()
                self.gc.set_threshold(self._threshold[0], self._threshold[1], self.full_after)

    def renew(self) -> int:
        """Collect what is not frozen, then unfreeze, collect in full (frees the cyclic garbage among
        the frozen objects) and freeze again. The objects only the renewal could free: cyclic garbage
        that had been frozen. (The first collection, of the heap made since the last freeze, is as
        short as any full collection with the heap frozen; it keeps what any of them would have freed
        out of the renewal's count, which measures what the freezing kept: docs/server.md.)"""
        took = time.perf_counter()
        frozen = self.gc.get_freeze_count()
        young = self.gc.collect()
        self.gc.unfreeze()
        found = self.gc.collect()
        self._freeze()
        self._reset_count()
        self.renewals += 1
        log.info("garbage collector: heap unfrozen, collected (%d objects of %d frozen; %d not frozen before) "
                 "and frozen again in %.0f ms", found, frozen, young, 1000 * (time.perf_counter() - took))
        return found

    def _reset_count(self) -> None:
        """After start-up's or a renewal's full collection and freeze: one more full collection, of
        next to nothing (all of it is frozen). Python starts a full collection of its own only once
        what survived since the last full collection passes a quarter of what that one kept; the
        last one kept the whole heap, so without this the first automatic full collection would
        wait for a quarter of the whole heap's count to survive and then look at all of it, one
        long pause. (The freeze the callback asks for after it freezes next to nothing.)"""
        self.gc.collect()

    async def _renew_forever(self) -> None:
        while True:
            await self._until_due()
            self.renew()

    async def _until_due(self) -> None:
        """Wait for the next renewal (module docstring): ``unfreeze_every`` at least, then until the
        memory has grown by ``renew_growth`` since now, ``unfreeze_longest`` at most."""
        since = self._memory()
        await self._sleep(self.unfreeze_every)
        waited = self.unfreeze_every
        while waited < self.unfreeze_longest:
            now = self._memory()
            if since is None or now is None or now >= since * (1 + self.renew_growth):
                if since is not None and now is not None:
                    log.info("garbage collector: memory grew %.0f%% (%d to %d MB): renewing",
                             100 * (now / since - 1), since >> 20, now >> 20)
                return
            step = min(LOOK_EVERY, self.unfreeze_longest - waited)
            await self._sleep(step)
            waited += step

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
        if self._threshold is not None:  # Python's own threshold again
            self.gc.set_threshold(*self._threshold)
            self._threshold = None
        if self.freeze_on:
            self.gc.unfreeze()
            GC_FROZEN.set(0)
