"""A client that reads nothing (a phone asleep with the page open) does not hold up its table's
broadcasts (issue 35).

A broadcast awaits each socket's send in turn; a send waits only when the socket's buffers are full.
A socket that has waited ``SEND_PATIENCE`` seconds is closed (``STALLED``), and the sockets after it
get their frames: the same frames, in the same order, as if it had not been there. Run on a table in
this process with sockets that record what they are sent (one that never takes anything, one that
is slow but reads).
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

import updown.server.live as live_module
from updown.server.live import SPECTATOR, STALLED, Live
from updown.server.models import Seat, Table


class Store:
    async def commit_async(self, table_id: str, rows: Any, finish: Any, actor: Any = None) -> None:
        return None


class Socket:
    """Records what it is sent; ``stalled``: takes nothing, ever; ``slow``: takes each after a while."""

    def __init__(self, stalled: bool = False, slow: float = 0.0):
        self.sent: list[str] = []
        self.stalled, self.slow = stalled, slow

    async def send_text(self, text: str) -> None:
        if self.stalled:
            await asyncio.Event().wait()
        if self.slow:
            await asyncio.sleep(self.slow)
        self.sent.append(text)


class Conn:
    def __init__(self, key: int, socket: Socket):
        self.key, self.websocket = key, socket
        self.account_id = key + 1 if key != SPECTATOR else None
        self.send_lock = asyncio.Lock()
        self.last_n: int | None = None
        self.last_table: str | None = None
        self.lang = "en"
        self.closed: list[tuple[int, str]] = []

    async def close(self, code: int, reason: str) -> None:
        self.closed.append((code, reason))


async def _nothing(_live: Live) -> None:
    return None


def _live() -> Live:
    row = Table(id="t", game="updown", players=4, options='{"rounds": 1}', seed="s", timer=None, grace=60.0,
                rated=False, private=False, status="running", created_at=time.time())
    seats = [Seat(table_id="t", seat=i, kind="person", account_id=i + 1, name=f"p{i}", left=False, away=False)
             for i in range(4)]
    live = Live(row, seats, Store(), bot_delay=0.0, notify=_nothing)  # type: ignore[arg-type]
    for info in live.seats:
        info.connections = 1
    return live


async def _play(live: Live, steps: int) -> int:
    """``steps`` actions (and the chance steps between them), a broadcast after each, or fewer if
    the game ends first; returns how many."""
    rng = random.Random(3)
    done = 0
    while done < steps and not live.state.is_terminal():
        if live.state.is_chance():
            await live.chance_steps()
        else:
            seat = live.state.actors()[0]
            await live.submit(seat, rng.choice(live.state.legal_actions(seat)), f"c{done}", "player")
            done += 1
        await asyncio.wait_for(live.broadcast(), 60)
    return done


def test_a_socket_that_reads_nothing_is_closed_and_the_others_get_every_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_module, "SEND_PATIENCE", 0.3)

    async def run(with_stalled: bool) -> tuple[dict[str, list[str]], list[Conn]]:
        live = _live()
        sockets = {"p0": Socket(), "p2": Socket(slow=0.01), "spectator": Socket()}
        conns = [Conn(0, sockets["p0"]), Conn(2, sockets["p2"]), Conn(SPECTATOR, sockets["spectator"])]
        stalled = []
        if with_stalled:
            stalled = [Conn(1, Socket(stalled=True)), Conn(SPECTATOR, Socket(stalled=True))]
        live.conns.update([*stalled, *conns])
        await asyncio.wait_for(live.broadcast(), 60)
        await _play(live, 12)
        assert all(c in live.conns for c in conns), "a socket that reads was given up"
        for c in stalled:
            assert c not in live.conns
        return {k: s.sent for k, s in sockets.items()}, stalled

    plain, _ = asyncio.run(run(False))
    with_stalled, stalled = asyncio.run(run(True))
    assert all(len(sent) > 5 for sent in plain.values())
    assert with_stalled == plain, "the sockets that read got other frames than without the stalled ones"
    for conn in stalled:
        assert [code for code, _reason in conn.closed] == [STALLED]
        assert conn.websocket.sent == []  # type: ignore[attr-defined]


def test_a_slow_reader_within_the_patience_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A broadcast that takes longer than the patience as a whole, each socket quickly, gives up on none."""
    monkeypatch.setattr(live_module, "SEND_PATIENCE", 0.2)

    async def run() -> None:
        live = _live()
        conns = [Conn(SPECTATOR, Socket(slow=0.05)) for _ in range(8)]  # 0.4 s a broadcast, 0.05 s each
        live.conns.update(conns)
        await asyncio.wait_for(live.broadcast(), 60)
        await _play(live, 2)
        assert all(c in live.conns and not c.closed for c in conns)
        first = conns[0].websocket.sent  # type: ignore[attr-defined]
        assert len(first) >= 3 and all(c.websocket.sent == first for c in conns)  # type: ignore[attr-defined]

    asyncio.run(run())
