"""Ended sessions close their sockets without the re-read asking about every socket's session every
2 s (issue 35).

The re-read reads the sessions of every socket only at a whole re-read (an admin action was
recorded, or every WHOLE_REREAD seconds) and while Redis is not heard; between them only new
sessions and those whose stored expiry came (``Hub._check_sessions``). These tests run a hub in this
process on a database of its own, with stand-in sockets, and call its re-read by hand: a session
that expires has its sockets closed at the first re-read after its expiry, one ended by admin at the
next re-read, one ended behind the server's back (a note lost) at the next whole re-read, or at the
next re-read while Redis is not heard; between those no session is read at all.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

import updown.server.hub as hub_module
from updown.server import admin
from updown.server.db import make_engine, upgrade
from updown.server.hub import UNSEATED, Hub
from updown.server.live import SPECTATOR
from updown.server.models import Seat, Session, Table
from updown.server.store import Store, token_hash

from test_server import db_urls, fresh_pg_db


@pytest.fixture(params=db_urls())
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'updown.db'}"
    return fresh_pg_db()


class Sock:
    """A stand-in for a spectator's WebSocket: its session and whether it was closed, and how."""

    def __init__(self, session: str, account_id: int):
        self.session = session
        self.account_id = account_id
        self.key = SPECTATOR
        self.closed: tuple[int, str] | None = None

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    async def send_text(self, text: str) -> None:
        pass


def _setup(store: Store, names: list[str]) -> dict[str, tuple[int, str]]:
    """A running table ``t1`` and, for each name, a person's account and a session: name -> (account, token)."""
    made = {}
    for name in names:
        account = store.create_account(name, "person", None)
        made[name] = (account, store.new_session(account))
    first = made[names[0]][0]
    store.create_table(
        Table(id="t1", game="updown", players=2, options="{}", seed="s", timer=None, grace=3600.0, rated=False,
              private=False, status="running", created_by=first, created_at=time.time()),
        [Seat(table_id="t1", seat=0, kind="bot", bot="random", name="bot 0"),
         Seat(table_id="t1", seat=1, kind="bot", bot="random", name="bot 1")])
    return made


def _expire(store: Store, token: str, at: float) -> None:
    with store.engine.begin() as conn:
        conn.execute(update(Session).where(Session.token_hash == token_hash(token)).values(expires_at=at))


def _end(store: Store, token: str) -> None:
    store.end_session(token)


def test_ended_sessions_close_their_sockets_and_between_times_no_session_is_read(
        db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = make_engine(db)
    upgrade(engine)
    store = Store(engine)
    made = _setup(store, ["ann", "ben", "cid", "dan", "eve"])
    hub = Hub(store, bot_delay=0)
    asked: list[list[str]] = []
    read = store.session_expiry

    def counted(hashes: Any) -> dict[str, float]:
        asked.append(list(hashes))
        return read(hashes)

    store.session_expiry = counted  # type: ignore[method-assign]
    clock = [time.time()]
    monkeypatch.setattr(hub_module.time, "time", lambda: clock[0])

    async def body() -> None:
        live = await hub.live("t1")
        assert live is not None
        socks = {name: Sock(token_hash(token), account) for name, (account, token) in made.items()}
        for sock in socks.values():
            live.conns.add(sock)

        async def reread(seconds: float = 2.0) -> None:
            clock[0] += seconds
            await hub._reread()
            await asyncio.sleep(0)  # (the closes are tasks)

        await reread()  # the first: whole, every session read
        assert sorted(asked[-1]) == sorted(s.session for s in socks.values())
        asked.clear()
        for _ in range(5):
            await reread()
        assert asked == [], "sessions were read between whole re-reads with nothing new or expiring"
        # A new socket's session is read at the next re-read, alone.
        fay = store.create_account("fay", "person", None)
        socks["fay"] = Sock(token_hash(store.new_session(fay)), fay)
        live.conns.add(socks["fay"])
        await reread()
        assert asked == [[socks["fay"].session]]
        asked.clear()
        # ann's session expires in 3 s: open until then, closed at the first re-read after it.
        _expire(store, made["ann"][1], clock[0] + hub_module.WHOLE_REREAD + 3.0)
        await reread(hub_module.WHOLE_REREAD)  # (a whole re-read: reads the new expiry)
        asked.clear()
        await reread()
        assert socks["ann"].closed is None and asked == []
        await reread()
        assert asked == [[socks["ann"].session]], "an expiry that came was not read (or more was)"
        assert socks["ann"].closed == (UNSEATED, "signed out") and socks["ann"] not in live.conns
        # ben's account gets a new password from admin (its sessions end, an admin action is
        # recorded): closed at the next re-read.
        admin.reset_password(store.engine, "ben", "a new password 1", "test", None)
        await reread()
        assert socks["ben"].closed == (UNSEATED, "signed out")
        # cid's session is deleted behind the server's back (a sign-out on another process whose
        # note was lost): closed at the next whole re-read, not read before it.
        _end(store, made["cid"][1])
        asked.clear()
        await reread()
        assert socks["cid"].closed is None and asked == []
        await reread(hub_module.WHOLE_REREAD)
        assert socks["cid"].closed == (UNSEATED, "signed out")
        for name in ("dan", "eve", "fay"):
            assert socks[name].closed is None and socks[name] in live.conns, f"{name}'s socket was closed"
        # While Redis is not heard (several processes), every re-read reads them all: dan's ended
        # session is closed at the next one.
        hub.multi = True
        monkeypatch.setattr(type(hub.bus), "listening", property(lambda self: False))
        _end(store, made["dan"][1])
        asked.clear()
        await reread()
        assert socks["dan"].closed == (UNSEATED, "signed out")
        assert sorted(asked[-1]) == sorted(socks[n].session for n in ("dan", "eve", "fay"))
        assert socks["eve"].closed is None and socks["fay"].closed is None

    try:
        asyncio.run(body())
    finally:
        engine.dispose()
