"""Running a tournament: deals spread over worker processes or Ray tasks, stored as they finish.

The deals of a run are numbered; deal ``d`` is a pure function of the line-up and ``d``
(:func:`updown.arena.duplicate.play_deal`), so workers may finish them in any order and the
figures, computed from the deals sorted by number, are the same for any number of workers.

With an output folder, every finished deal is appended as one JSON line to ``deals.jsonl`` the
moment it arrives. A run that is stopped (Ctrl-C, a kill, a lost machine) is continued by running
it again with the same folder: the deals already on file are not played again. A line cut short
by a kill is dropped. ``arena.json`` holds the line-up, so a folder is never continued with other
bots, another game or another seed.
"""

from __future__ import annotations

import json
import logging
import math
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Generator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from types import TracebackType
from typing import Any, TextIO

from updown.arena.duplicate import ArenaError, Lineup, deal_seed, play_deals
from updown.arena.stats import public, summarise
from updown.core.errors import UpdownError

CONFIG = "arena.json"
DEALS = "deals.jsonl"
RESULTS = "results.json"
RECORDS = "records"

Deals = Generator[dict[str, Any], None, None]
"""Finished deals, in the order they finish."""

Progress = Callable[[int, int], None]
"""Called with (games done, games in the run) at the start and after every finished deal."""


def deals_for(games: int, lineup: Lineup) -> int:
    """Deals needed for at least ``games`` games (whole deals: every seating of each)."""
    if games < 1:
        raise ArenaError(f"--games must be at least 1, not {games}")
    return math.ceil(games / lineup.seatings)


class Store:
    """An output folder: the line-up, the append-only file of finished deals, the results."""

    def __init__(self, folder: Path, lineup: Lineup):
        self.folder = folder
        self.lineup = lineup
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ArenaError(f"cannot create {folder}: {err.strerror or err}") from None
        if not folder.is_dir():
            raise ArenaError(f"{folder} is not a folder")
        self._check_config()
        self.done = self._load_deals()
        try:
            self._file: TextIO = open(folder / DEALS, "a", encoding="utf-8")
        except OSError as err:
            raise ArenaError(f"cannot write to {folder}: {err.strerror or err}") from None

    def _check_config(self) -> None:
        path = self.folder / CONFIG
        mine = self.lineup.to_dict()
        if path.exists():
            try:
                theirs = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as err:
                raise ArenaError(f"{path} is not a readable arena file ({err}); give another --out") from None
            if theirs != mine:
                keys = [k for k in mine if not isinstance(theirs, dict) or theirs.get(k) != mine[k]]
                raise ArenaError(f"{self.folder} holds a run with another {', '.join(keys) or 'format'}; "
                                 "give another --out to start a new run")
            return
        try:
            path.write_text(json.dumps(mine, indent=1) + "\n", encoding="utf-8")
        except OSError as err:
            raise ArenaError(f"cannot write to {self.folder}: {err.strerror or err}") from None

    def _load_deals(self) -> dict[int, dict[str, Any]]:
        path = self.folder / DEALS
        if not path.exists():
            return {}
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise ArenaError(f"cannot read {path}: {err}") from None
        if text and not text.endswith("\n"):
            # The last line was cut short by a kill: drop it, so new lines start clean.
            text = text[: text.rfind("\n") + 1]
            try:
                path.write_text(text, encoding="utf-8")
            except OSError as err:
                raise ArenaError(f"cannot write to {self.folder}: {err.strerror or err}") from None
        done: dict[int, dict[str, Any]] = {}
        for number, line in enumerate(text.splitlines(), 1):
            try:
                deal = json.loads(line)
                ok = (isinstance(deal, dict) and isinstance(deal.get("deal"), int)
                      and deal.get("seed") == deal_seed(self.lineup.seed, deal["deal"])
                      and isinstance(deal.get("games"), list) and len(deal["games"]) == self.lineup.seatings)
            except ValueError:
                ok = False
            if not ok:
                raise ArenaError(f"{path} line {number} is not a deal of this run; give another --out")
            done.setdefault(deal["deal"], deal)
        return done

    def keep(self, deal: dict[str, Any]) -> None:
        """Store a finished deal: its games' records (taken out of it), then its line."""
        try:
            for game in deal["games"]:
                text = game.pop("record", None)
                if text is not None:
                    folder = self.folder / RECORDS
                    folder.mkdir(exist_ok=True)
                    name = f"{self.lineup.game}-deal{deal['deal']:06d}-seating{game['seating']}.json"
                    (folder / name).write_text(text, encoding="utf-8")
            self._file.write(json.dumps(deal, separators=(",", ":")) + "\n")
            self._file.flush()
        except OSError as err:  # a full disk, a folder removed under us
            raise ArenaError(f"cannot write to {self.folder}: {err.strerror or err}") from None

    def finish(self, results: dict[str, Any], plots: bool) -> None:
        """Write the results and, if asked, the plots."""
        try:
            path = self.folder / RESULTS
            path.write_text(json.dumps(public(results), indent=1) + "\n", encoding="utf-8")
            if plots:
                from updown.arena.plots import write_plots

                write_plots(results, self.folder)
        except OSError as err:
            raise ArenaError(f"cannot write to {self.folder}: {err.strerror or err}") from None

    def close(self) -> None:
        self._file.close()


def batches(deals: Sequence[int], slots: int, most: int) -> list[list[int]]:
    """Deals in batches small enough to keep ``slots`` workers busy to the end, at most ``most``."""
    size = max(1, min(most, len(deals) // (slots * 8)))
    return [list(deals[i:i + size]) for i in range(0, len(deals), size)]


def _in_process(lineup: dict[str, Any], deals: Sequence[int], records: bool) -> Deals:
    for d in deals:
        yield from play_deals(lineup, [d], records)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and keeps what has been stored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` fresh processes that leave Ctrl-C to the parent: the arena's, and any
    other harness's that plays pure deal tasks (``benchmarks/bots_panel.py``). The processes are
    spawned, not forked, so no thread of the parent is copied half way through its work; a task
    must therefore be a module-level function of plain-data arguments."""
    context = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_interrupts)


class DeferredInterrupts:
    """Ctrl-C (SIGINT) and a kill (SIGTERM) noted rather than raised while a pool of workers is
    fed and waited on; :func:`wait_first` raises ``KeyboardInterrupt`` for them between waits.

    Raised at any bytecode, as a signal's handler raises it, the interruption can land inside the
    pool's own code: in ``concurrent.futures.wait`` after it has taken some of the futures' locks
    and not the rest (the pool's thread that hands results over then blocks on that lock for ever,
    and ``shutdown`` with it), or in ``submit`` after a task was queued and before the caller
    recorded its future (a worker then plays a deal nobody stops). Seen as a panel that did not
    end 60 s after SIGTERM. Only the main thread can set handlers: elsewhere this does nothing."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.caught: int | None = None
        self._before: dict[int, Any] = {}

    def _note(self, signum: int, _frame: Any) -> None:
        self.caught = signum

    def check(self) -> None:
        if self.caught is not None:
            raise KeyboardInterrupt

    def __enter__(self) -> DeferredInterrupts:
        if threading.current_thread() is threading.main_thread():
            self._before = {s: signal.signal(s, self._note) for s in self.SIGNALS}
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        for s, handler in self._before.items():
            signal.signal(s, handler)
        self._before = {}


WAIT_STEP = 0.2
"""Seconds between two looks at a noted interruption while waiting on workers."""


def wait_first(futures: Any, interrupts: DeferredInterrupts) -> set[Future[Any]]:
    """The futures done, once one is (``wait`` with ``FIRST_COMPLETED``), raising
    ``KeyboardInterrupt`` within :data:`WAIT_STEP` of a noted Ctrl-C or kill, and only between
    waits, where no lock of the pool is held."""
    while True:
        interrupts.check()
        done, _ = wait(futures, timeout=WAIT_STEP, return_when=FIRST_COMPLETED)
        interrupts.check()
        if done:
            return done


def _processes(lineup: dict[str, Any], deals: Sequence[int], records: bool, workers: int) -> Deals:
    todo = iter(batches(deals, workers, 8))
    pool = worker_pool(workers)
    pending: set[Future[list[dict[str, Any]]]] = set()
    finished = False
    try:
        with DeferredInterrupts() as interrupts:
            def refill() -> None:
                while len(pending) < 2 * workers:
                    batch = next(todo, None)
                    if batch is None:
                        return
                    pending.add(pool.submit(play_deals, lineup, batch, records))

            refill()
            while pending:
                for future in wait_first(pending, interrupts):
                    pending.discard(future)
                    yield from future.result()
                refill()
            finished = True
    finally:
        if not finished:
            # Stopped (Ctrl-C, an error, the caller closed us): the deals in hand are not wanted.
            terminate(pool)
        pool.shutdown(wait=finished, cancel_futures=True)


def terminate(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers now rather than after the tasks they have been given (then call
    ``pool.shutdown``)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


def _ray(lineup: dict[str, Any], deals: Sequence[int], records: bool, address: str,
         workers: int) -> Deals:
    try:
        import ray
    except ImportError:
        from updown.install import install_hint

        raise ArenaError(f"--ray needs the ray package: {install_hint('ray')}") from None
    started = False
    if not ray.is_initialized():
        try:
            if address == "local":
                # A Ray of our own, even where another program left one running.
                ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False,
                         logging_level=logging.ERROR)
            else:
                ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
        except Exception as err:  # ray raises ConnectionError, RuntimeError, ValueError...
            raise ArenaError(f"cannot start Ray at {address!r}: {str(err).splitlines()[0]}") from None
        started = True
    try:
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        cpus = max(1, int(resources.get("CPU", 1)))
        task = ray.remote(play_deals)
        todo = iter(batches(deals, cpus, 32))
        pending: list[Any] = []
        try:
            while True:
                while len(pending) < 2 * cpus:
                    batch = next(todo, None)
                    if batch is None:
                        break
                    pending.append(task.remote(lineup, batch, records))
                if not pending:
                    return
                finished, pending = ray.wait(pending, num_returns=1)
                for ref in finished:
                    try:
                        deals_done = ray.get(ref)
                    except ray.exceptions.RayTaskError as err:
                        # A bot's illegal move or a bad setting reads as it would without Ray.
                        cause = getattr(err, "cause", None)
                        if isinstance(cause, UpdownError):
                            raise cause from None
                        raise
                    yield from deals_done
        finally:
            for ref in pending:
                ray.cancel(ref)
    finally:
        if started:
            ray.shutdown()


def require(plots: bool) -> None:
    """Raise a clear error if the arena extra is missing (playing does not install it)."""
    import importlib.util

    missing = [m for m in ("openskill", *(("matplotlib",) if plots else ())) if importlib.util.find_spec(m) is None]
    if missing:
        from updown.install import install_hint

        raise ArenaError(f"updown arena needs {' and '.join(missing)}: {install_hint('arena')}")


def run_arena(
    lineup: Lineup,
    deals: int,
    *,
    out: Path | None = None,
    workers: int = 1,
    ray: str | None = None,
    records: bool = False,
    plots: bool = True,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Play ``deals`` deals of ``lineup`` (each once per seating) and return the figures.

    ``workers`` > 1 spreads the deals over that many local processes; ``ray`` (an address,
    ``auto`` or ``local``) runs them as Ray tasks instead (an already initialised Ray session is
    used as it is). With ``out``, deals are stored as they finish and a run with the same folder
    continues from them; the results, plots and (with ``records``) every game's record go there.
    """
    if deals < 1:
        raise ArenaError(f"a run needs at least one deal, not {deals}")
    if workers < 1:
        raise ArenaError(f"--workers must be at least 1, not {workers}")
    if records and out is None:
        raise ArenaError("--records needs --out DIR to write the records into")
    require(plots and out is not None)
    store = Store(out, lineup) if out is not None else None
    done = {d: deal for d, deal in (store.done.items() if store else []) if d < deals}
    todo = [d for d in range(deals) if d not in done]
    total = deals * lineup.seatings
    if progress:
        progress(len(done) * lineup.seatings, total)
    plain = lineup.to_dict()
    if ray is not None and todo:
        stream = _ray(plain, todo, records, ray, workers)
    elif workers > 1 and len(todo) > 1:
        stream = _processes(plain, todo, records, min(workers, len(todo)))
    else:
        stream = _in_process(plain, todo, records)
    try:
        for deal in stream:
            if store is not None:
                store.keep(deal)
            done[deal["deal"]] = deal
            if progress:
                progress(len(done) * lineup.seatings, total)
    finally:
        stream.close()
        if store is not None:
            store.close()
    results = summarise(lineup, list(done.values()))
    if store is not None:
        store.finish(results, plots)
    return results


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
