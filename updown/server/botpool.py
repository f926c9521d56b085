"""Bots' decisions and the coach's hints in worker processes, shared fairly between tables and users.

A bot that searches (``normal``: up to 90 ms of CPU a decision, ``hard``: up to a second; a hint
at budget 2000: about ten seconds) would hold the server process's interpreter while it thinks, and
every other table's frames would wait behind it. :class:`BotPool` runs that work in worker
processes instead, so the server process only stores steps and sends frames.

**A job is pure.** What crosses to a worker is a module-level function and its arguments, pickled:
for a bot's decision (:func:`decide`) the game's id, the bot's name, the seat, the seed string and
the seat's *view* with its legal actions, never the state, so hidden information never leaves the
server process's game state; the worker rebuilds the bot with ``make_bot(name, game, seat,
random.Random(seed))`` and calls ``act(view, legal)``, so a decision is the one the server process
would have made from the same seed (bots with a time budget, ``normal`` and ``hard``, decide by the
machine's clock as well, wherever they run). The coach's hints (:func:`advise`) likewise get the
seat's view alone.

**Fair shares.** Each job belongs to a *key*: ``table:ID`` for a table's bots, ``user:ID`` for an
account's hints and reviews. A key has at most one job in flight; among the keys with work waiting,
the one that has waited longest since its last job ended (or since it first queued) goes next, so
one table of ``hard`` bots, or one user asking hint after hint, gets one worker in turn and never
all of them. Coach jobs (long) hold at most ``coach_slots`` workers (half of them, at least one),
so bots keep the rest. At most ``workers`` jobs run at once, one a worker.

**Cheap bots stay here.** ``random``, ``greedy`` and ``easy`` decide in 5 to 40 µs (median;
benchmarks/bot_pool_load.py), less than pickling their view costs (about 150 µs), so they run in
the server process as before (:data:`CHEAP`).

**Failures.** A worker that dies (killed, out of memory, a crash in a native library) loses only
the job it ran: the job is tried once more in a fresh worker, then in the server process, so a
table never waits on a dead worker; the worker is started again. A job that raises raises the same
exception to its caller, as it would have in the server process (with the worker's traceback as a
note). A job past its ``timeout`` has its worker stopped and raises :class:`TimeoutError`. A
cancelled job (its table stopped, its player left or closed the page) leaves the queue at once; a
running coach job's worker is stopped, a running bot decision (a second at most) is let finish and
its answer dropped. Workers run at the lowest priority (``nice`` 19), so that when the machine is
busy the server process's frames come first. ``workers=0`` runs every job in the server process
(in a thread, as the server did before the pool: tests, tiny hosts). :meth:`BotPool.close` (the
server's graceful stop) stops the workers.

Workers are forked from a ``forkserver`` that has imported the bots once (``spawn`` where there is
no forkserver), on the first job that needs one: a server whose tables have only cheap bots never
starts them.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import multiprocessing
import os
import pickle
import random
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any

from prometheus_client import Counter, Gauge, Histogram

from updown.server.outage import first_line

if TYPE_CHECKING:
    from multiprocessing.context import ForkServerContext, SpawnContext

    from updown.bots.coach import Hint
    from updown.core.protocol import View

log = logging.getLogger("updown.server")

BOT, COACH = "bot", "coach"
"""The kinds of job: a bot's decision (short), the coach's hint or review (long)."""
CHEAP = frozenset({"random", "greedy", "easy"})
"""Bots that decide in the server process even with a pool: their decision costs less than sending it."""
RETRIES = 1
"""Times a job whose worker died is tried again in a fresh worker before it runs in the server process."""
NICE = 19
"""Niceness added to the workers' (19: the lowest priority, so the server process comes first)."""
RESPAWN_PAUSE = 1.0
"""Seconds before a worker slot whose last worker died within this time starts another."""

JOBS = Counter("updown_pool_jobs", "Jobs of the bot pool by kind (bot, coach) and how they ended: done, failed "
               "(the job raised), cancelled, retried (its worker died), here (run in the server process after "
               "its worker died), timeout", ["kind", "outcome"])
QUEUED = Gauge("updown_pool_queued", "Jobs waiting for a worker of the bot pool", ["kind"])
RUNNING = Gauge("updown_pool_running", "Jobs running in a worker of the bot pool", ["kind"])
WAIT_SECONDS = Histogram("updown_pool_wait_seconds", "From a job's queueing to its start in a worker", ["kind"],
                         buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
WORKERS = Gauge("updown_pool_workers", "Worker processes of the bot pool ready to take a job")
RESTARTS = Counter("updown_pool_restarts", "Worker processes started again after one died or was stopped")


class PoolClosed(Exception):
    """The server is stopping: the job was not run."""


def default_workers() -> int:
    """The cores this process may use (``bot_workers``'s default)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# -- the jobs: pure functions of what crosses to a worker ------------------------------------------
def decide(game_id: str, bot: str, seat: int, seed: str, view: View, legal: Sequence[int]) -> int:
    """What ``bot`` plays for ``seat``, rebuilt from its name and seed, deciding from the seat's view."""
    from updown.bots import make_bot
    from updown.core.registry import get_game

    return make_bot(bot, get_game(game_id), seat, random.Random(seed)).act(view, legal)


def advise(game_id: str, view: View, legal: Sequence[int], budget: int, seed: int) -> list[Hint]:
    """The coach's hints for the seat whose view this is (:func:`updown.bots.coach.analyse`)."""
    from updown.bots.coach import analyse
    from updown.core.registry import get_game

    return analyse(get_game(game_id), view, legal, budget=budget, seed=seed)


# -- a worker process ------------------------------------------------------------------------------
def _serve(conn: Connection) -> None:
    """A worker's life: take ``(number, pickled (function, args))``, answer ``(number, ok, value)``,
    until told ``None`` or the server is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the server stops us
    try:
        os.nice(NICE)
    except OSError:
        pass
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        number, payload = message
        try:
            fn, args = pickle.loads(payload)
            reply: tuple[int, bool, Any] = (number, True, fn(*args))
        except Exception as err:
            reply = (number, False, _portable(err))
        try:
            conn.send(reply)
        except (BrokenPipeError, EOFError, ConnectionResetError):
            return
        except Exception as err:  # an answer that does not pickle
            conn.send((number, False, _portable(err)))


def _portable(err: Exception) -> Exception:
    """``err`` with the worker's traceback as a note, or a RuntimeError saying it if it does not pickle."""
    text = "".join(traceback.format_exception(err)).rstrip()
    try:
        err.add_note(f"in a worker of the bot pool:\n{text}")
        pickle.loads(pickle.dumps(err))
        return err
    except Exception:
        return RuntimeError(f"{type(err).__name__}: {err} (in a worker of the bot pool:\n{text})")


def _context() -> ForkServerContext | SpawnContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["updown.server.botpool", "updown.bots", "updown.bots.coach"])
        return ctx
    return multiprocessing.get_context("spawn")


# -- the pool in the server process ----------------------------------------------------------------
@dataclass(eq=False)
class _Worker:
    slot: int
    process: Any = None
    conn: Connection | None = None
    job: _Job | None = None
    started_at: float = 0.0


@dataclass(eq=False)
class _Job:
    number: int
    key: str
    kind: str
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    payload: bytes
    future: asyncio.Future[Any]
    timeout: float | None
    kill_on_cancel: bool
    queued_at: float = field(default_factory=time.perf_counter)
    tries: int = 0
    worker: _Worker | None = None
    timer: asyncio.TimerHandle | None = None
    overdue: bool = False


class BotPool:
    """Worker processes fed by a fair queue (see the module's docstring)."""

    def __init__(self, workers: int, *, coach_slots: int | None = None):
        if workers < 0:
            raise ValueError(f"workers: 0 or more, not {workers}")
        self.size = workers
        self.coach_slots = coach_slots if coach_slots is not None else max(1, workers // 2)
        self.workers: list[_Worker] = []
        self.queues: dict[str, deque[_Job]] = {}
        self.place: dict[str, int] = {}
        """Each key's place in line: when its last job ended, or when it first queued (a tick)."""
        self.busy: set[str] = set()
        """Keys with a job in a worker."""
        self.running = {BOT: 0, COACH: 0}
        self.closed = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ticks = itertools.count()
        self._numbers = itertools.count(1)
        self._spawning: set[asyncio.Task[None]] = set()
        self._aside: set[asyncio.Task[None]] = set()
        """Jobs running in the server process after their worker died (kept from the collector)."""

    # -- what callers use ----------------------------------------------------------------------------
    def takes(self, bot: str) -> bool:
        """Whether ``bot``'s decisions go to the workers (else they are made in the server process)."""
        return self.size > 0 and not self.closed and bot not in CHEAP and not bot.startswith("exec")

    async def run(self, fn: Callable[..., Any], *args: Any, key: str, kind: str = BOT,
                  timeout: float | None = None, kill_on_cancel: bool | None = None) -> Any:
        """``fn(*args)`` in a worker, in ``key``'s turn; in the server process (a thread) with no
        workers. Cancelling the caller takes the job off the queue (see the module's docstring)."""
        if kind not in self.running:
            raise ValueError(f"kind: {BOT} or {COACH}, not {kind!r}")
        if self.size == 0 or self.closed:
            return await asyncio.to_thread(fn, *args)
        loop = asyncio.get_running_loop()
        self._start(loop)
        job = _Job(next(self._numbers), key, kind, fn, args, pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL),
                   loop.create_future(), timeout, kind == COACH if kill_on_cancel is None else kill_on_cancel)
        self._enqueue(job)
        self._dispatch()
        try:
            return await job.future
        except asyncio.CancelledError:
            self._cancel(job)
            raise
        finally:
            del job  # (its future holds a failed job's error, whose traceback holds this frame: a cycle)

    def stats(self) -> dict[str, Any]:
        """Jobs waiting and running by kind, and workers ready."""
        queued = {BOT: 0, COACH: 0}
        for queue in self.queues.values():
            for job in queue:
                queued[job.kind] += 1
        return {"queued": queued, "running": dict(self.running),
                "workers": sum(1 for w in self.workers if w.conn is not None)}

    def pids(self) -> list[int]:
        """The worker processes' ids (for the tests and the benchmarks)."""
        return [w.process.pid for w in self.workers if w.process is not None and w.conn is not None]

    async def close(self) -> None:
        """Stop: jobs not finished raise :class:`PoolClosed`, the workers are told to end, then stopped."""
        if self.closed:
            return
        self.closed = True
        for queue in self.queues.values():
            for job in queue:
                self._settle(job, error=PoolClosed("the server is stopping"))
        self.queues.clear()
        if self._spawning:  # started workers see ``closed`` and stop themselves
            await asyncio.gather(*self._spawning, return_exceptions=True)
        processes = []
        for worker in self.workers:
            running = worker.job
            if running is not None:
                self._finished(running)
                self._settle(running, error=PoolClosed("the server is stopping"))
                if worker.process is not None:  # its answer is wanted no more: stopped now
                    worker.process.kill()
            if worker.conn is not None:
                self._unwatch(worker)
                try:
                    worker.conn.send(None)  # an idle worker ends by itself
                except OSError:
                    pass
                worker.conn.close()
                worker.conn = None
            if worker.process is not None:
                processes.append(worker.process)
        self._gauges()
        WORKERS.set(0)

        def reap() -> None:
            deadline = time.monotonic() + 2.0
            for process in processes:
                process.join(max(0.0, deadline - time.monotonic()))
                if process.is_alive():
                    process.kill()
                    process.join(2.0)

        await asyncio.to_thread(reap)

    # -- the queue -----------------------------------------------------------------------------------
    def _enqueue(self, job: _Job, front: bool = False) -> None:
        queue = self.queues.setdefault(job.key, deque())
        if front:
            queue.appendleft(job)
        else:
            queue.append(job)
        self.place.setdefault(job.key, next(self._ticks))
        self._gauges()

    def _next(self) -> _Job | None:
        """The head job of the key longest in line that may run now (one job a key; coach slots)."""
        best: str | None = None
        for key, queue in self.queues.items():
            if key in self.busy or (queue[0].kind == COACH and self.running[COACH] >= self.coach_slots):
                continue
            if best is None or self.place[key] < self.place[best]:
                best = key
        if best is None:
            return None
        queue = self.queues[best]
        job = queue.popleft()
        if not queue:
            del self.queues[best]
        return job

    def _dispatch(self) -> None:
        while not self.closed:
            idle = next((w for w in self.workers if w.conn is not None and w.job is None), None)
            if idle is None:
                return
            job = self._next()
            if job is None:
                return
            self._send(idle, job)

    def _send(self, worker: _Worker, job: _Job) -> None:
        assert worker.conn is not None and self.loop is not None
        self.busy.add(job.key)
        self.running[job.kind] += 1
        job.worker, worker.job = worker, job
        WAIT_SECONDS.labels(job.kind).observe(time.perf_counter() - job.queued_at)
        if job.timeout is not None:
            job.timer = self.loop.call_later(job.timeout, self._overdue, job)
        self._gauges()
        try:
            worker.conn.send((job.number, job.payload))
        except OSError:  # the worker is gone: its job is tried again
            self._lost(worker)

    def _finished(self, job: _Job) -> None:
        """A job left its worker: its key goes to the back of the line."""
        if job.worker is not None:
            job.worker.job = None
            job.worker = None
        if job.timer is not None:
            job.timer.cancel()
            job.timer = None
        self.busy.discard(job.key)
        self.running[job.kind] -= 1
        if job.key in self.queues:
            self.place[job.key] = next(self._ticks)
        else:
            self.place.pop(job.key, None)
        self._gauges()

    def _settle(self, job: _Job, result: Any = None, error: BaseException | None = None) -> None:
        if job.future.done():
            return
        if error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(result)

    def _cancel(self, job: _Job) -> None:
        """The caller gave up: off the queue, or (a coach job) its worker stopped."""
        if self.closed:
            return
        queue = self.queues.get(job.key)
        if queue is not None and job in queue:
            queue.remove(job)
            if not queue:
                del self.queues[job.key]
                if job.key not in self.busy:
                    self.place.pop(job.key, None)
            JOBS.labels(job.kind, "cancelled").inc()
            self._gauges()
            return
        worker = job.worker
        if worker is not None and worker.job is job:
            JOBS.labels(job.kind, "cancelled").inc()
            if job.kill_on_cancel:
                self._stop(worker)

    def _overdue(self, job: _Job) -> None:
        job.timer = None
        worker = job.worker
        if worker is not None and worker.job is job:
            job.overdue = True
            log.warning("bot pool: a %s job ran past %.0f s; its worker is stopped", job.kind, job.timeout)
            self._stop(worker)

    # -- workers -------------------------------------------------------------------------------------
    def _start(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.loop is not None:
            return
        self.loop = loop
        for slot in range(self.size):
            worker = _Worker(slot)
            self.workers.append(worker)
            self._respawn(worker, first=True)

    def _respawn(self, worker: _Worker, first: bool = False) -> None:
        assert self.loop is not None
        pause = 0.0 if first or time.monotonic() - worker.started_at > RESPAWN_PAUSE else RESPAWN_PAUSE
        task = self.loop.create_task(self._spawn(worker, pause))
        self._spawning.add(task)
        task.add_done_callback(self._spawning.discard)

    async def _spawn(self, worker: _Worker, pause: float) -> None:
        if pause:
            await asyncio.sleep(pause)
        if self.closed:
            return
        ctx = _context()
        parent, child = ctx.Pipe(duplex=True)
        process = ctx.Process(target=_serve, args=(child,), name=f"updown-bot-worker-{worker.slot}", daemon=True)
        worker.started_at = time.monotonic()
        try:
            await asyncio.to_thread(process.start)
        except Exception as err:
            parent.close()
            child.close()
            log.error("bot pool: a worker did not start (%s)", first_line(err))
            self._degraded()
            return
        child.close()
        if self.closed:
            parent.close()
            process.kill()
            await asyncio.to_thread(process.join, 5.0)
            return
        worker.process, worker.conn = process, parent
        assert self.loop is not None
        self.loop.add_reader(parent.fileno(), self._readable, worker)
        WORKERS.set(sum(1 for w in self.workers if w.conn is not None))
        self._dispatch()

    def _degraded(self) -> None:
        """No worker could be started: what waits runs in the server process, as with no pool."""
        if any(w.conn is not None for w in self.workers) or self._spawning - {asyncio.current_task()}:
            return
        log.error("bot pool: no worker could be started; bots and hints run in the server process")
        self.size = 0
        for queue in list(self.queues.values()):
            for job in queue:
                self._here(job)
        self.queues.clear()
        self._gauges()

    def _here(self, job: _Job) -> None:
        """Run ``job`` in the server process (a thread), its answer to its caller."""
        assert self.loop is not None
        JOBS.labels(job.kind, "here").inc()

        async def run() -> None:
            try:
                result = await asyncio.to_thread(job.fn, *job.args)
            except Exception as err:
                self._settle(job, error=err)
            else:
                self._settle(job, result)

        task = self.loop.create_task(run())
        self._aside.add(task)
        task.add_done_callback(self._aside.discard)

    def _readable(self, worker: _Worker) -> None:
        conn = worker.conn
        if conn is None:
            return
        try:
            number, ok, value = conn.recv()
        except (EOFError, OSError):
            self._lost(worker)
            return
        except Exception as err:  # an answer that does not unpickle here: the job's failure
            job = worker.job
            if job is not None:
                self._finished(job)
                JOBS.labels(job.kind, "failed").inc()
                self._settle(job, error=err)
            self._dispatch()
            return
        job = worker.job
        if job is None or job.number != number:
            return
        self._finished(job)
        if not job.future.done():
            JOBS.labels(job.kind, "done" if ok else "failed").inc()
            if ok:
                self._settle(job, value)
            else:
                self._settle(job, error=value)
        self._dispatch()

    def _stop(self, worker: _Worker) -> None:
        """Stop a worker now (its job cancelled or overdue); :meth:`_lost` follows."""
        if worker.process is not None:
            try:
                worker.process.kill()
            except (OSError, ValueError):
                pass
        self._lost(worker)

    def _lost(self, worker: _Worker) -> None:
        """A worker died or was stopped: its job is tried again, and another worker started."""
        if worker.conn is None:
            return
        self._unwatch(worker)
        worker.conn.close()
        worker.conn = None
        process, worker.process = worker.process, None
        WORKERS.set(sum(1 for w in self.workers if w.conn is not None))
        job = worker.job
        if job is not None:
            self._finished(job)
            if job.future.done():
                pass  # cancelled: nothing to try again
            elif job.overdue:
                JOBS.labels(job.kind, "timeout").inc()
                self._settle(job, error=TimeoutError(f"the {job.kind} job ran past {job.timeout} s"))
            elif job.tries < RETRIES:
                job.tries += 1
                JOBS.labels(job.kind, "retried").inc()
                log.warning("bot pool: a worker died during a %s job (exit code %s); trying it again",
                            job.kind, getattr(process, "exitcode", None))
                self._enqueue(job, front=True)
            else:
                log.warning("bot pool: a worker died during a %s job again; running it in the server process",
                            job.kind)
                self._here(job)
        if process is not None and self.loop is not None:
            self.loop.run_in_executor(None, process.join, 5.0)  # reap it
        if not self.closed:
            RESTARTS.inc()
            self._respawn(worker)
        self._dispatch()

    def _unwatch(self, worker: _Worker) -> None:
        if worker.conn is not None and self.loop is not None:
            try:
                self.loop.remove_reader(worker.conn.fileno())
            except (OSError, ValueError):
                pass

    def _gauges(self) -> None:
        stats = self.stats()
        for kind in (BOT, COACH):
            QUEUED.labels(kind).set(stats["queued"][kind])
            RUNNING.labels(kind).set(stats["running"][kind])
