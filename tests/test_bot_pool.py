"""The bot pool (``updown/server/botpool.py``): decisions and hints in worker processes are the ones
the server process would make from the same seed and view; each table and user gets its turn; a
worker that dies loses no job; cancelled work leaves the queue. Then in a server: a person's frames
arrive while a bot's decision is held in a worker, a hint is cancelled when its player leaves or
closes the request, and a table of bots plays from its seed exactly as in the server process.

Event-ordered, not timed: where a test needs work in flight it holds it (a job that waits for a
file, or a worker stopped with SIGSTOP) and reads the pool's own counts."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from server_util import Client, Server, User, db_rows, first_with_legal, make_table
from updown.bots import make_bot
from updown.bots.coach import analyse
from updown.core.registry import get_game
from updown.core.records import Record, new_state_for, replay
from updown.server.botpool import BOT, CHEAP, COACH, BotPool, advise, decide


def hold(path: str, name: str) -> str:
    """A job that runs until ``path`` exists (the test's hand on a worker), then answers ``name``."""
    while not os.path.exists(path):
        time.sleep(0.005)
    return name


def positions(game_id: str, count: int, seed: int, options: dict[str, Any] | None = None
              ) -> list[tuple[int, Any, list[int]]]:
    """``count`` decisions (seat, view, legal) of random play, spread over a game."""
    game = get_game(game_id)
    rng = random.Random(seed)
    state = game.new_state(game.bench_players, game.Options.from_dict(options or {}))
    found: list[tuple[int, Any, list[int]]] = []
    while len(found) < count * 3 and not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        seat = state.actors()[0]
        legal = state.legal_actions(seat)
        if len(legal) > 1:
            found.append((seat, state.view(seat), legal))
        state.apply(rng.choice(legal), seat)
    return found[::3][:count]


def pool_run(workers: int, body: Callable[[BotPool], Awaitable[Any]], **kw: Any) -> Any:
    """``body(pool)`` in an event loop, with the pool closed after."""
    async def main() -> Any:
        pool = BotPool(workers, **kw)
        try:
            return await body(pool)
        finally:
            await pool.close()
    return asyncio.run(main())


async def until(pred: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Wait in the loop until ``pred()`` holds (a generous bound: a stuck pool fails, a slow one not)."""
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"never: {what}"
        await asyncio.sleep(0.005)


def count(outcome: str, kind: str = BOT) -> float:
    return REGISTRY.get_sample_value("updown_pool_jobs_total", {"kind": kind, "outcome": outcome}) or 0.0


# -- the same decisions as in the server process ---------------------------------------------------
@pytest.mark.parametrize("game_id, options", [("updown", {}), ("euchre", {}), ("updown-sueca", {}),
                                              ("up-or-down", {})])
def test_a_decision_in_a_worker_is_the_one_made_here_from_the_same_seed_and_view(
        game_id: str, options: dict[str, Any]) -> None:
    """Every bot whose budget is counted, not timed, decides in a worker exactly as in this process
    (``normal`` and ``hard`` stop on the clock too, here as there); so do the coach's hints."""
    game = get_game(game_id)
    cases = [(bot, seat, view, legal, f"seed:{bot}:{k}")
             for bot in ("random", "greedy", "easy")
             for k, (seat, view, legal) in enumerate(positions(game_id, 12, 7, options))]
    if game_id != "up-or-down":  # whose pimc plays 80 decisions a world: seconds a decision
        cases += [("pimc", seat, view, legal, f"seed:pimc:{k}")
                  for k, (seat, view, legal) in enumerate(positions(game_id, 3, 11, options))]
    here = [make_bot(bot, game, seat, random.Random(seed)).act(view, legal) for bot, seat, view, legal, seed in cases]
    seat, view, legal = positions(game_id, 1, 5, options)[0]
    hints_here = analyse(game, view, legal, budget=30 * len(legal), seed=4)

    async def body(pool: BotPool) -> tuple[list[int], Any]:
        there = [await pool.run(decide, game_id, bot, seat, seed, view, legal, key="table:t")
                 for bot, seat, view, legal, seed in cases]
        hints = await pool.run(advise, game_id, view, legal, 30 * len(legal), 4, key="user:1", kind=COACH)
        assert pool.stats()["workers"] == 2  # they ran in workers, not here
        return there, hints

    there, hints_there = pool_run(2, body)
    assert there == here
    assert hints_there == hints_here


def test_cheap_bots_stay_in_the_server_process_and_searching_ones_go_to_the_workers() -> None:
    pool = BotPool(2)
    assert not any(pool.takes(name) for name in CHEAP)
    assert pool.takes("hard") and pool.takes("normal") and pool.takes("pimc")
    assert not BotPool(0).takes("hard")  # no workers: every bot here, as before the pool


# -- fair shares -----------------------------------------------------------------------------------
def test_each_table_and_user_gets_its_turn(tmp_path: Path) -> None:
    """One worker; a table with four decisions waiting, another table with one, a user with two
    hints: the others do not wait behind the first table's backlog."""
    release = str(tmp_path / "go")
    Path(release).touch()
    order: list[str] = []

    async def body(pool: BotPool) -> None:
        async def job(key: str, name: str, kind: str) -> None:
            order.append(await pool.run(hold, release, name, key=key, kind=kind))

        jobs = [("table:A", "A1", BOT), ("table:A", "A2", BOT), ("table:A", "A3", BOT), ("table:A", "A4", BOT),
                ("table:B", "B1", BOT), ("user:C", "C1", COACH), ("user:C", "C2", COACH)]
        await asyncio.gather(*(job(*j) for j in jobs))

    pool_run(1, body)
    assert order == ["A1", "B1", "C1", "A2", "C2", "A3", "A4"]


def test_hints_never_take_every_worker_and_a_key_runs_one_job_at_a_time(tmp_path: Path) -> None:
    release = tmp_path / "go"

    async def body(pool: BotPool) -> list[str]:
        tasks = [asyncio.ensure_future(pool.run(hold, str(release), name, key=key, kind=kind))
                 for key, name, kind in [("user:C", "C1", COACH), ("user:C", "C2", COACH), ("user:D", "D1", COACH),
                                         ("table:A", "A1", BOT), ("table:A", "A2", BOT), ("table:B", "B1", BOT)]]
        await until(lambda: sum(pool.stats()["running"].values()) == 3, "three jobs in the three workers")
        # Coach jobs hold one worker of three (half, rounded down, at least one); a key one job at a time.
        assert pool.stats()["running"] == {BOT: 2, COACH: 1}
        assert pool.stats()["queued"] == {BOT: 1, COACH: 2}
        release.touch()
        return list(await asyncio.gather(*tasks))

    assert pool_run(3, body) == ["C1", "C2", "D1", "A1", "A2", "B1"]


# -- failures and cancelling -----------------------------------------------------------------------
def test_a_worker_that_dies_loses_no_job_and_twice_runs_it_here(tmp_path: Path) -> None:
    release = tmp_path / "go"
    retried, here = count("retried"), count("here")

    async def body(pool: BotPool) -> None:
        task = asyncio.ensure_future(pool.run(hold, str(release), "done", key="table:A"))
        await until(lambda: pool.stats()["running"][BOT] == 1, "the job running")
        first = pool.pids()[0]
        os.kill(first, signal.SIGKILL)
        await until(lambda: count("retried") == retried + 1 and pool.stats()["running"][BOT] == 1
                    and bool(pool.pids()) and pool.pids()[0] != first, "the job running again in a new worker")
        os.kill(pool.pids()[0], signal.SIGKILL)  # it dies again: the job runs in this process
        await until(lambda: count("here") == here + 1, "the job run here")
        release.touch()
        assert await task == "done"
        assert await pool.run(hold, str(release), "again", key="table:B") == "again"  # and the pool goes on
        assert pool.stats()["workers"] == 1

    pool_run(1, body)


def test_a_job_that_raises_raises_in_the_caller() -> None:
    seat, view, legal = positions("euchre", 1, 3)[0]

    async def body(pool: BotPool) -> None:
        with pytest.raises(ValueError, match="no bot 'nobody'") as info:
            await pool.run(decide, "euchre", "nobody", seat, "s", view, legal, key="table:A")
        assert any("in a worker of the bot pool" in note for note in getattr(info.value, "__notes__", []))
        assert await pool.run(decide, "euchre", "greedy", seat, "s", view, legal, key="table:A") in legal

    pool_run(1, body)


def test_cancelled_work_leaves_the_queue_and_a_cancelled_hint_stops_its_worker(tmp_path: Path) -> None:
    release = tmp_path / "go"

    async def body(pool: BotPool) -> None:
        hint = asyncio.ensure_future(pool.run(hold, str(release), "hint", key="user:C", kind=COACH))
        await until(lambda: pool.stats()["running"][COACH] == 1, "the hint running")
        queued = asyncio.ensure_future(pool.run(hold, str(release), "queued", key="user:D", kind=COACH))
        await until(lambda: pool.stats()["queued"][COACH] == 1, "a second hint queued")
        queued.cancel()
        await asyncio.gather(queued, return_exceptions=True)
        assert pool.stats()["queued"][COACH] == 0  # gone from the queue: it will never run
        worker = pool.pids()[0]
        hint.cancel()
        await asyncio.gather(hint, return_exceptions=True)
        await until(lambda: bool(pool.pids()) and pool.pids()[0] != worker, "a new worker for the stopped one")
        # A bot's decision (a second at most) is let finish when its table stops; its answer is dropped.
        decision = asyncio.ensure_future(pool.run(hold, str(release), "bot", key="table:A"))
        await until(lambda: pool.stats()["running"][BOT] == 1, "the decision running")
        worker = pool.pids()[0]
        decision.cancel()
        await asyncio.gather(decision, return_exceptions=True)
        release.touch()
        assert await pool.run(hold, str(release), "next", key="table:A") == "next"
        assert pool.pids() == [worker]

    pool_run(1, body)


def test_a_job_past_its_timeout_stops_its_worker(tmp_path: Path) -> None:
    async def body(pool: BotPool) -> None:
        with pytest.raises(TimeoutError):
            await pool.run(hold, str(tmp_path / "never"), "x", key="table:A", timeout=0.2)
        assert await pool.run(hold, str(tmp_path), "next", key="table:A") == "next"  # in a new worker

    pool_run(1, body)


def test_close_stops_the_workers_and_ends_what_waits(tmp_path: Path) -> None:
    async def main() -> None:
        pool = BotPool(1)
        running = asyncio.ensure_future(pool.run(hold, str(tmp_path / "never"), "x", key="table:A"))
        waiting = asyncio.ensure_future(pool.run(hold, str(tmp_path / "never"), "y", key="table:B"))
        await until(lambda: pool.stats()["running"][BOT] == 1, "a job running")
        pid = pool.pids()[0]
        await pool.close()
        for task in (running, waiting):
            with pytest.raises(Exception, match="stopping"):
                await task
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
        assert await pool.run(hold, str(tmp_path), "after", key="table:A") == "after"  # closed: runs here

    asyncio.run(main())


# -- in a server -----------------------------------------------------------------------------------
def metrics(srv: Server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(srv.base + "/metrics", timeout=10).text
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def metric(srv: Server, name: str, **labels: str) -> float:
    return metrics(srv).get((name, tuple(sorted(labels.items()))), 0.0)


def wait_metric(srv: Server, pred: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (the pool's forkserver and its workers), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


@pytest.fixture
def pooled(tmp_path: Path) -> Iterator[Server]:
    srv = Server(f"sqlite:///{tmp_path / 'updown.db'}", log=tmp_path / "server.log",
                 extra_args=["--bot-workers", "1"]).start()
    yield srv
    if srv.proc is not None:
        for pid in descendants(srv.proc.pid):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
    srv.stop()


def four_people(server: Server, game: str = "updown") -> tuple[str, list[Client]]:
    """A person-only table (four guests), started, with each seat's socket."""
    users = [User(server, guest=True) for _ in range(4)]
    table = make_table(users[0], game, ["me", "open", "open", "open"])
    for u in users[1:]:
        assert u.post(f"/api/tables/{table['id']}/join").status_code == 200
    return table["id"], [u.socket(table["id"]) for u in users]



def test_a_persons_frames_arrive_while_a_bot_decision_is_held_in_a_worker(pooled: Server) -> None:
    """A table of four ``hard`` bots and a person-only table in one server. The pool's worker is
    stopped (SIGSTOP) with a bot's decision in it: the person still gets the ack and the frame of
    their move, and only then does the bot's decision end (after SIGCONT)."""
    assert pooled.proc is not None
    host = User(pooled, guest=True)
    bots = make_table(host, "updown", ["bot:hard"] * 4)
    _table, clients = four_people(pooled)
    wait_metric(pooled, lambda: metric(pooled, "updown_pool_workers") == 1, "the pool's worker started")
    stopped = descendants(pooled.proc.pid)
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    wait_metric(pooled, lambda: metric(pooled, "updown_pool_running", kind="bot") == 1,
                "a bot's decision in the (stopped) worker")
    done = metric(pooled, "updown_pool_jobs_total", kind="bot", outcome="done")
    me = first_with_legal(*clients)
    me.send({"type": "act", "id": "mine", "action": me.legal[0]["id"]})
    n = me.n
    me.until(lambda m: m["type"] == "frame" and m["n"] != n and "mine" in me.acks)
    # The decision in the worker is still in flight: the frame did not wait behind it.
    assert metric(pooled, "updown_pool_jobs_total", kind="bot", outcome="done") == done
    assert metric(pooled, "updown_pool_running", kind="bot") == 1
    for pid in stopped:
        os.kill(pid, signal.SIGCONT)
    wait_metric(pooled, lambda: metric(pooled, "updown_pool_jobs_total", kind="bot", outcome="done") > done,
                "the bot's decision ended")
    steps = db_rows(pooled.db, "SELECT COUNT(*) FROM steps WHERE table_id = :t AND by = 'bot'", t=bots["id"])
    wait_metric(pooled, lambda: db_rows(pooled.db, "SELECT COUNT(*) FROM steps WHERE table_id = :t AND by = 'bot'",
                                        t=bots["id"])[0][0] > steps[0][0], "the bots' table going on")
    for c in clients:
        c.close()


def seated_turn(server: Server, user: User) -> tuple[str, Client]:
    """``user`` at an UP&DOWN table with three random bots, at a decision of theirs."""
    table = make_table(user, "updown", ["me", "bot:random", "bot:random", "bot:random"])
    client = user.socket(table["id"])
    first_with_legal(client)
    return table["id"], client


def test_a_hint_is_cancelled_when_its_player_leaves_or_closes_the_request(pooled: Server) -> None:
    """One worker, so one hint at a time: Bob's runs (its worker held by SIGSTOP), Alice's and
    Carol's wait. Alice leaves her table: her hint leaves the queue and is answered 409. Carol closes
    her request: hers leaves the queue. Bob leaves: his running hint's worker is stopped and a new
    one started, which then gives Dave his hint."""
    assert pooled.proc is not None
    bob, alice, carol, dave = (User(pooled, guest=True) for _ in range(4))
    tables = {u.name: seated_turn(pooled, u) for u in (bob, alice, carol, dave)}
    answers: dict[str, Any] = {}

    def ask(user: User, budget: int, timeout: float = 120.0) -> None:
        try:
            answers[user.name] = user.http.get(f"/api/tables/{tables[user.name][0]}/hint?budget={budget}",
                                               timeout=timeout).status_code
        except httpx.TimeoutException:
            answers[user.name] = "closed"

    threads = [threading.Thread(target=ask, args=(bob, 2000))]
    threads[0].start()
    wait_metric(pooled, lambda: metric(pooled, "updown_pool_running", kind="coach") == 1, "Bob's hint running")
    held = descendants(pooled.proc.pid)
    for pid in held:
        os.kill(pid, signal.SIGSTOP)
    cancelled = metric(pooled, "updown_pool_jobs_total", kind="coach", outcome="cancelled")
    threads.append(threading.Thread(target=ask, args=(alice, 2000)))
    threads[-1].start()
    wait_metric(pooled, lambda: metric(pooled, "updown_pool_queued", kind="coach") == 1, "Alice's hint waiting")
    threads.append(threading.Thread(target=ask, args=(carol, 2000, 2.0)))  # her page goes away
    threads[-1].start()
    assert alice.post(f"/api/tables/{tables[alice.name][0]}/leave").status_code == 200
    threads[1].join(60)
    assert answers[alice.name] == 409
    threads[2].join(60)
    assert answers[carol.name] == "closed"
    wait_metric(pooled, lambda: metric(pooled, "updown_pool_queued", kind="coach") == 0, "both off the queue")
    assert metric(pooled, "updown_pool_jobs_total", kind="coach", outcome="cancelled") == cancelled + 2
    assert metric(pooled, "updown_pool_running", kind="coach") == 1  # Bob's, still held
    restarts = metric(pooled, "updown_pool_restarts_total")
    assert bob.post(f"/api/tables/{tables[bob.name][0]}/leave").status_code == 200
    threads[0].join(60)
    assert answers[bob.name] == 409
    for pid in held:
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass  # the stopped worker was killed
    assert metric(pooled, "updown_pool_restarts_total") == restarts + 1
    assert metric(pooled, "updown_pool_jobs_total", kind="coach", outcome="done") == 0  # nothing ran to its end
    r = dave.get(f"/api/tables/{tables[dave.name][0]}/hint?budget=50")
    assert r.status_code == 200, r.text
    assert {h["id"] for h in r.json()["hints"]} == {a["id"] for a in tables[dave.name][1].legal}


def test_a_table_of_bots_plays_in_the_pool_what_it_would_play_here(pooled: Server) -> None:
    """Every bot step stored is the decision the server process makes from the table's seed, the
    step number and the seat's view (read back from the database: the seed is secret)."""
    host = User(pooled, guest=True)
    table = make_table(host, "euchre", ["bot:pimc", "bot:greedy", "bot:pimc", "bot:easy"])
    deadline = time.time() + 120
    while host.get(f"/api/tables/{table['id']}").json()["status"] != "finished":
        assert time.time() < deadline, "the bots' game did not end"
        time.sleep(0.2)
    assert metric(pooled, "updown_pool_jobs_total", kind="bot", outcome="done") > 0  # pimc decided in the pool
    seed = db_rows(pooled.db, "SELECT seed FROM tables WHERE id = :t", t=table["id"])[0][0]
    record = host.get(f"/api/tables/{table['id']}/record").json()
    game = get_game("euchre")
    bots = ["pimc", "greedy", "pimc", "easy"]
    state = new_state_for(Record.from_dict(record))
    checked = 0

    def on_step(after: Any, seat: int | None, action: int) -> None:
        nonlocal state, checked
        if seat is not None:
            view, legal = state.view(seat), state.legal_actions(seat)
            at = len(checked_steps)
            mine = make_bot(bots[seat], game, seat, random.Random(f"{seed}:bot:{seat}:{at}")).act(view, legal)
            assert mine == action, f"step {at + 1}: seat {seat} ({bots[seat]}) played {action}, here {mine}"
            checked += 1
        checked_steps.append(action)
        state = after.clone()

    checked_steps: list[int] = []
    replay(Record.from_dict(record), on_step=on_step)
    # A game to 3 can end after one deal, and a lone hand plays only 15 cards.
    assert checked >= 15
