"""What a socket that comes and goes, and a table played to its end and unloaded, leave to the
garbage collector (issue 35; docs/server.md, "What a closed socket leaves to the collector").

The server freezes its heap (``gcpolicy.py``); an object frozen while alive that later becomes
*cyclic* garbage is freed by no collection until the next renewal, one long pause. So what the
server's own life cycle leaves in reference cycles is counted here, not timed: a real app under
uvicorn as ``updown serve`` runs it, in a child process with its collector off
(``tests/gc_probe.py``), asked after each batch how many objects only a full collection frees.
Measured before the fixes: 49 objects a seated guest's socket (29 of uvicorn's HTTP protocol left
behind at the WebSocket upgrade, 20 of SQLAlchemy's cloned ``IN`` parameters in the sign of life
stored at the socket's open and close), 29 a spectator's, 30 a lobby socket's (one in four or five
lost its sender task, pending forever: ``asyncio.wait_for`` swallowed the cancellation), 20 a
``GET /api/tables``. Now none; the bounds below leave a margin of one object a socket for whatever
a background loop may make meanwhile.
"""

from __future__ import annotations

import gc
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from gc_probe import Probe
from test_server import PG, fresh_pg_db, needs

SOCKETS = 20
"""Sockets a batch opens and closes."""
SETTLE = 0.5
"""Seconds for the server to finish with the closed sockets before a count."""


def db_params() -> list[object]:
    return ["sqlite", pytest.param("postgresql", marks=needs("PostgreSQL", "UPDOWN_TEST_POSTGRES"))]


@pytest.fixture(scope="module", params=db_params())
def probe(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Probe]:
    if request.param == "postgresql":
        assert PG is not None
        db = fresh_pg_db()
    else:
        db = f"sqlite:///{tmp_path_factory.mktemp('gc') / 'gc.db'}"
    server = Probe(db, "updown")
    try:
        yield server
    finally:
        server.stop()


def full_table(probe: Probe, cookies: list[str], rounds: int | None = None) -> str:
    table = probe.table(cookies[0], {"rounds": rounds} if rounds else None)
    for cookie in cookies[1:]:
        probe.join(table, cookie)
    return table


def clean(probe: Probe) -> None:
    """Let the server finish what came before, then start counting from nothing."""
    time.sleep(SETTLE)
    probe.collect(unfreeze=True)
    probe.collect()


def garbage_after(probe: Probe, batch: int, **kw: bool) -> dict[str, object]:
    time.sleep(SETTLE)
    got = probe.collect(**kw)
    got["per"] = got["freed"] / batch
    return got


@pytest.mark.parametrize("watch", [False, True], ids=["seated", "spectator"])
def test_a_table_socket_that_comes_and_goes_leaves_no_cycles(probe: Probe, watch: bool) -> None:
    cookies = [probe.guest() for _ in range(4)]
    table = full_table(probe, cookies)
    who = probe.guest() if watch else cookies[1]
    path = f"/ws/tables/{table}" + ("?watch=1" if watch else "")
    probe.socket_once(path, who)  # the table loaded, the first-use caches filled
    clean(probe)
    for _ in range(SOCKETS):
        probe.socket_once(path, who)  # hello, snapshot: then closed by the client
    got = garbage_after(probe, SOCKETS)
    assert got["freed"] <= SOCKETS, got  # 49 (seated) and 29 (spectator) a socket before


def test_a_socket_websockets_fails_leaves_no_cycles(probe: Probe) -> None:
    """A message over the server's size limit (2 MiB: ``ws_max_size``) makes websockets fail the
    connection (1009); the error it keeps holds its parser's frame, and so the protocol, in a cycle
    of their own until ``WebSocketProtocol.connection_lost`` lets them go. The client can do this
    at will."""
    cookie = probe.guest()
    table = probe.table(cookie)
    path = f"ws://127.0.0.1:{probe.port}/ws/tables/{table}?watch=1"

    def too_large() -> None:
        with connect(path, additional_headers={"Cookie": cookie}, open_timeout=20, max_size=2**24,
                     ping_interval=None) as ws:
            ws.recv(timeout=10)
            ws.send("x" * (2 * 1024 * 1024 + 1))
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    ws.recv(timeout=10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009

    too_large()
    clean(probe)
    batch = SOCKETS // 2
    for _ in range(batch):
        too_large()
    got = garbage_after(probe, batch)
    assert got["freed"] <= batch, got  # 15 a socket before


def test_a_lobby_socket_that_comes_and_goes_leaves_no_cycles_and_no_lost_task(probe: Probe) -> None:
    cookie = probe.guest()
    probe.table(cookie)  # something in the list
    probe.socket_once("/ws/lobby", cookie, frames=1)
    clean(probe)
    batch = 2 * SOCKETS
    for _ in range(batch):
        probe.socket_once("/ws/lobby", cookie, frames=1)  # the list, then closed by the client
    got = garbage_after(probe, batch)
    types = got["types"]
    assert isinstance(types, dict)
    # A sender task whose cancellation was lost waits for ever in a cycle of its own (about one
    # socket in four or five lost it before): none may be among the garbage.
    assert types.get("_asyncio.Task", 0) == 0, got
    assert got["freed"] <= batch, got  # 30 a socket before


def test_the_public_list_on_new_connections_leaves_no_cycles(probe: Probe) -> None:
    import httpx

    cookie = probe.guest()
    probe.table(cookie)
    httpx.get(probe.base + "/api/tables").raise_for_status()
    clean(probe)
    for _ in range(SOCKETS):
        httpx.get(probe.base + "/api/tables").raise_for_status()  # a connection each, closed after
    got = garbage_after(probe, SOCKETS)
    assert got["freed"] <= SOCKETS, got  # 20 a request before (IN lists built anew)


def test_sockets_frozen_while_open_leave_nothing_for_the_renewal(probe: Probe) -> None:
    """The case the renewal exists for: sockets open when the heap is frozen, closed after (abruptly
    for half of them: no close frame, a reset). What a renewal would find then is what they left."""
    cookies = [probe.guest() for _ in range(4)]
    tables = [full_table(probe, cookies) for _ in range(4)]
    watcher = probe.guest()
    clean(probe)
    opened: list[ClientConnection] = []
    with ExitStack() as stack:  # websockets wants its connections entered; each is closed below

        def open_socket(path: str, cookie: str) -> None:
            ws = stack.enter_context(connect(f"ws://127.0.0.1:{probe.port}{path}", additional_headers={"Cookie": cookie},
                                             open_timeout=20, max_size=2**24, ping_interval=None))
            ws.recv(timeout=10)
            opened.append(ws)

        for table in tables:
            for who, query in [(c, "") for c in cookies] + [(watcher, "?watch=1")]:
                open_socket(f"/ws/tables/{table}{query}", who)
        for _ in range(4):  # lobby sockets too (at most 8 from one address)
            open_socket("/ws/lobby", watcher)
        time.sleep(SETTLE)
        probe.collect(freeze=True)  # as the server's policy does after a long full collection
        for i, ws in enumerate(opened):
            if i % 2:
                ws.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                ws.socket.close()  # a reset, no close frame
            else:
                ws.close()
    time.sleep(2 * SETTLE)
    probe.collect()  # what any collection would free
    got = garbage_after(probe, len(opened), unfreeze=True)
    assert got["freed"] <= len(opened) // 2, got


def test_a_table_played_to_its_end_and_unloaded_leaves_no_cycles(probe: Probe) -> None:
    """Four guests play one round to its end (frozen mid-game, as a freeze may come at any time),
    then the hub drops the finished tables from memory: nothing of them in cycles, frozen or not."""
    cookies = [probe.guest() for _ in range(4)]

    def games(count: int, think: float) -> list[threading.Thread]:
        players = []
        for g in range(count):
            table = full_table(probe, cookies, rounds=1)
            players += [threading.Thread(target=probe.play_to_end, args=(table, c, 10 * g + i, think))
                        for i, c in enumerate(cookies)]
        for t in players:
            t.start()
        return players

    for t in games(1, 0.0):  # a first game: first-use caches
        t.join()
    probe.collect(unload=True)
    clean(probe)
    players = games(2, 0.1)
    time.sleep(1.0)
    probe.collect(freeze=True)  # mid-game
    for t in players:
        t.join(150)
        assert not t.is_alive()
    got = garbage_after(probe, 2, unload=True)
    assert got["unloaded"] >= 2, got  # both tables dropped from memory (the first game's too, if it was not yet)
    assert got["freed"] <= 8, got  # 8 sockets: 49 each before
    renewal = garbage_after(probe, 2, unfreeze=True)
    assert renewal["freed"] <= 8, renewal


def test_uvicorns_own_protocol_leaves_its_cycle_at_each_upgrade(tmp_path: Path) -> None:
    """Why ``updown serve`` passes its own HTTP protocol (``updown/server/protocol.py``): uvicorn's
    keeps its parser after a WebSocket upgrade, one cycle of its objects a socket. If uvicorn
    stops doing so, this fails and the protocol can go."""
    server = Probe(f"sqlite:///{tmp_path / 'auto.db'}", "auto")
    try:
        cookie = server.guest()
        table = server.table(cookie)
        server.socket_once(f"/ws/tables/{table}?watch=1", cookie)
        clean(server)
        for _ in range(SOCKETS):
            server.socket_once(f"/ws/tables/{table}?watch=1", cookie)
        got = garbage_after(server, SOCKETS)
        types = got["types"]
        assert isinstance(types, dict)
        assert types.get("uvicorn.protocols.http.httptools_impl.HttpToolsProtocol", 0) >= SOCKETS, got
    finally:
        server.stop()


@pytest.mark.parametrize("db", db_params())
def test_the_lease_statements_leave_no_cycles(db: str, tmp_path: Path) -> None:
    """A process on Redis renews its leases every few seconds, and takes tables (:meth:`Store.claim`)
    as it goes: built anew at each call, their ``OR`` left about ten objects in reference cycles a
    statement (640 in the 60 statements below). Counted in this process, its collector off."""
    from collections import Counter

    from hub_util import store_for, updown_table

    store = store_for(fresh_pg_db() if db == "postgresql" else f"sqlite:///{tmp_path / 'lease.db'}")
    try:
        updown_table(store, "t1")

        def leases() -> None:
            assert store.renew_leases("p1", 10.0) == ["t1"]
            assert store.claim("t1", "p1", 10.0) and not store.claim("t1", "p2", 10.0)
            assert store.claim("t1", "p2", 10.0, force=True)
            assert store.renew_leases("p1", 10.0) == []  # p2 holds it now
            assert store.claim("t1", "p1", 10.0, force=True)

        leases()  # the statements' first compilations are cached, not garbage
        gc.collect()
        gc.disable()
        try:
            for _ in range(12):
                leases()
            gc.set_debug(gc.DEBUG_SAVEALL)
            gc.collect()
            left = Counter(type(o).__name__ for o in gc.garbage)
        finally:
            gc.garbage.clear()
            gc.set_debug(0)
            gc.enable()
    finally:
        store.engine.dispose()
    assert sum(left.values()) <= 12, left.most_common(8)
