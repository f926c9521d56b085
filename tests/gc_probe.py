"""A server process that counts its own cyclic garbage (issue 35; docs/server.md, "What a closed
socket leaves to the collector"), for ``tests/test_gc_cycles.py`` and by hand.

``python tests/gc_probe.py DB PORT`` serves the real application (``create_app``) with uvicorn as
``updown serve`` configures it, with the collector switched off (``gc.disable()``, the server's own
freezing off), and one more route in front of it: ``GET /__gc`` collects in full with
``gc.DEBUG_SAVEALL`` and answers how many objects only that collection could free, by type
(``module.qualname``), then lets them go. Whatever a request did between two probes and left in
cycles is counted by the second; what reference counting freed is not. Its options:
``referrers=TYPE`` lists, for a few objects of that type among the garbage, the objects that refer
to them and the shortest chain of references that leads back to each (what closes its cycle);
``unload=1`` has the hub drop every table nothing needs first (``Hub.unload_idle`` as if their time
had come); ``freeze=1`` freezes what is alive after the collection, as the server's policy does, and
``unfreeze=1`` unfreezes before it, so that the next probe counts what a renewal would find;
``tasks=1`` lists the pending tasks and where each waits. ``PROBE_REDIS=URL`` in the environment
runs the server in Redis mode (as one of several processes).

:class:`Probe` starts it in a child process and is its client: plain HTTP and WebSocket calls from
the test's own process, whose garbage is its own. ``PROBE_HTTP=auto`` (the third argument) runs it
with uvicorn's own HTTP protocol instead of ``updown serve``'s, to see what that one leaves.
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

from server_util import free_port


def type_name(obj: object) -> str:
    t = type(obj)
    return f"{t.__module__}.{t.__qualname__}"


UNTRACKED = ("builtins.tuple", "builtins.dict")
"""What a collection may stop tracking without freeing it (:func:`probe`'s ``freed`` leaves them out)."""


def probe(referrers: str | None = None) -> dict[str, Any]:
    """A full collection with every unreachable object kept aside: its count by type, then freed.

    ``found`` counts what the collector itself found unreachable. A cycle that holds a generator
    (or anything with a finalizer) is broken by that finalizer inside the collection, before the
    count, and its objects are freed by their reference counts: the collector does not count them,
    nor keep them for ``DEBUG_SAVEALL``. So ``freed`` (and ``freed_types``) counts every tracked
    object the collection freed either way, from the objects alive before it and after it, by
    type: ``found``'s and the finalizers' (a websocket's parser was such a cycle). Tuples and dicts
    are left out of it: a collection stops tracking those that hold only atomic values, so they
    leave the tracked objects without being freed (a cycle has other objects in it anyway)."""
    alive = Counter(type_name(o) for o in gc.get_objects())
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        found = gc.collect()
        garbage = list(gc.garbage)
        gc.garbage.clear()
    finally:
        gc.set_debug(0)
    kinds = Counter(type_name(o) for o in garbage)
    out: dict[str, Any] = {"found": found, "types": dict(kinds.most_common())}
    frames = Counter(f"{o.f_code.co_filename.rsplit('/', 2)[-1]}:{o.f_code.co_qualname}"
                     for o in garbage if type(o).__name__ == "frame")
    if frames:  # where the frames among the garbage ran (an error's traceback keeps them)
        out["frames"] = dict(frames.most_common(40))
    if referrers:
        ids = {id(o) for o in garbage}
        shown = []
        for o in [o for o in garbage if type_name(o) == referrers][:5]:
            refs = [type_name(r) + (f"[{_key_of(r, o)}]" if isinstance(r, dict) else "")
                    for r in gc.get_referrers(o) if id(r) in ids]
            shown.append({"repr": repr(o)[:200], "referrers": refs, "cycle": cycle_through(o, ids)})
        out["referrers"] = shown
    del garbage
    gc.collect()  # what the lists above held (frames): nothing of it for the next probe
    freed = alive - Counter(type_name(o) for o in gc.get_objects())  # (the probe's own new objects only lower it)
    for untracked in UNTRACKED:
        freed.pop(untracked, None)
    out["freed"] = sum(freed.values())
    out["freed_types"] = dict(freed.most_common())
    return out


def cycle_through(start: object, within: set[int]) -> list[str]:
    """The shortest chain of references from ``start`` back to itself among the objects ``within``
    (ids): what closes its cycle, each step a type and, for a dict or an instance, the key."""
    previous: dict[int, tuple[int, object]] = {}
    objects = {id(start): start}
    frontier = [start]
    while frontier:
        following = []
        for o in frontier:
            for r in gc.get_referents(o):
                if r is start:
                    chain = [o]
                    while id(chain[-1]) != id(start):
                        chain.append(objects[previous[id(chain[-1])][0]])
                    chain.reverse()
                    return [type_name(x) + _edge(x, y) for x, y in zip(chain, chain[1:] + [start])]
                if id(r) in within and id(r) not in previous and id(r) != id(start):
                    previous[id(r)] = (id(o), r)
                    objects[id(r)] = r
                    following.append(r)
        frontier = following
    return []


def _edge(holder: object, held: object) -> str:
    d = holder if isinstance(holder, dict) else getattr(holder, "__dict__", None)
    if isinstance(d, dict):
        return f"[{_key_of(d, held)}]"
    if hasattr(holder, "f_code"):
        return f"({holder.f_code.co_qualname})"  # type: ignore[attr-defined]
    if hasattr(holder, "cr_code"):
        return f"({holder.cr_code.co_qualname})"  # type: ignore[attr-defined]
    if hasattr(holder, "__func__"):
        return f"({getattr(holder.__func__, '__qualname__', '?')})"  # type: ignore[attr-defined]
    if hasattr(holder, "__qualname__"):
        return f"({holder.__qualname__})"
    return ""


def _key_of(d: dict[Any, Any], value: object) -> str:
    return next((str(k)[:40] for k, v in d.items() if v is value), "?")


def serve(db: str, port: int, http: Any = "auto", ws: Any = "auto") -> None:
    """The real app behind the probe's route, the collector off (module docstring); ``http``:
    uvicorn's HTTP protocol (``updown serve``'s, :class:`updown.server.protocol.HttpProtocol`, unless
    ``auto``: uvicorn's own); ``ws``: its WebSocket protocol (``updown serve``'s,
    :class:`updown.server.protocol.WebSocketProtocol`, with the first; ``auto``: uvicorn's own)."""
    import asyncio

    import uvicorn
    from sqlalchemy import event

    from updown.server.app import create_app
    from updown.server.settings import Settings

    redis = os.environ.get("PROBE_REDIS") or None  # Redis mode: the server as one of several
    settings = Settings.load({"db": db, "port": port, "bot_delay": 0.0, "bot_workers": 0, "redis": redis})
    settings.gc.freeze = False
    for limit in ("accounts_per_address=off", "tables_per_guest=off",
                  *filter(None, os.environ.get("PROBE_LIMITS", "").split())):
        settings.limits.set(limit)
    app = create_app(settings)

    @app.get("/api/__fault")
    async def fault() -> None:
        """A route that fails (the 500 path): an error no handler knows."""
        raise RuntimeError("a fault in a route (the probe's)")

    engine = app.state.store.engine
    dbapi = engine.dialect.loaded_dbapi

    def away(*_args: Any) -> None:
        """Every statement fails as a database that cannot be reached (``db=away``): the DB-API's
        OperationalError, raised where SQLAlchemy (or the store's own driver) runs a statement, so that
        it is wrapped and handled as a real outage is."""
        raise dbapi.OperationalError("the probe's database is away")

    async def probed(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/__gc":
            query = dict(p.split("=", 1) for p in scope["query_string"].decode().split("&") if "=" in p)
            dropped = []
            if query.get("unload"):  # every table nothing needs, whatever its time since use
                dropped = await app.state.hub.unload_idle(time.time() + 10**6)
            tasks = []
            if query.get("tasks"):  # the pending tasks and where each waits, before the collection
                tasks = [f"{t.get_coro()!r} at " + ", ".join(f"{f.f_code.co_qualname}:{f.f_lineno}" for f in t.get_stack())
                         + (" (cancelling)" if t.cancelling() else "")
                         for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            if query.get("db") == "away" and not event.contains(engine, "before_cursor_execute", away):
                event.listen(engine, "before_cursor_execute", away)
            elif query.get("db") == "back" and event.contains(engine, "before_cursor_execute", away):
                event.remove(engine, "before_cursor_execute", away)
            if query.get("unfreeze"):  # what a renewal would find: the frozen objects looked at too
                gc.unfreeze()
            body = json.dumps({**probe(query.get("referrers")), "unloaded": len(dropped), "tasks": tasks}).encode()
            if query.get("freeze"):  # after the collection: what is alive now is frozen, as the policy does
                gc.freeze()
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    gc.disable()
    server = uvicorn.Server(uvicorn.Config(
        probed, host="127.0.0.1", port=port, log_config=None, log_level="warning", access_log=False, http=http, ws=ws,
        ws_max_size=2 * 1024 * 1024, ws_per_message_deflate=settings.ws_deflate, server_header=False,
        ws_ping_interval=settings.ws_ping_interval or None))
    server.run()


# -- the client's side ------------------------------------------------------------------------------

class Probe:
    """The probe server in a child process and the HTTP calls the counts need."""

    def __init__(self, db: str, http: str | None = None):
        """``http``: ``updown`` (the default) for ``updown serve``'s HTTP protocol, ``auto`` for
        uvicorn's own (or the environment's ``PROBE_HTTP``)."""
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        here = Path(__file__).resolve().parent
        # The package of this tree (a mutant's copy's), whatever the environment has installed.
        path = os.pathsep.join(p for p in (str(here.parent), os.environ.get("PYTHONPATH", "")) if p)
        self.proc = subprocess.Popen([sys.executable, str(here / "gc_probe.py"), db, str(self.port),
                                      http or os.environ.get("PROBE_HTTP", "updown")],
                                     cwd=str(here.parent), env={**os.environ, "PYTHONPATH": path})
        self.http = httpx.Client(base_url=self.base, timeout=30, verify=False)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the probe server exited with {self.proc.returncode}")
            try:
                if self.http.get("/api/health").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError("the probe server did not start in 60 s")

    def stop(self) -> None:
        self.http.close()
        self.proc.terminate()
        self.proc.wait(10)

    def collect(self, referrers: str | None = None, unload: bool = False, freeze: bool = False,
                unfreeze: bool = False, tasks: bool = False, db: str | None = None) -> dict[str, Any]:
        """The objects only a full collection frees, made since the last call (module docstring);
        ``unload``: the hub drops every table nothing needs first; ``unfreeze``: the frozen heap is
        unfrozen first (what a renewal finds); ``freeze``: what is alive after it is frozen;
        ``db``: ``away`` (every statement fails from now on, as when the database cannot be
        reached) or ``back``."""
        params = {"referrers": referrers} if referrers else {}
        if db:
            params["db"] = db
        for name, on in (("unload", unload), ("freeze", freeze), ("unfreeze", unfreeze), ("tasks", tasks)):
            if on:
                params[name] = "1"
        r = self.http.get("/__gc", params=params)
        r.raise_for_status()
        return dict(r.json())

    def guest(self) -> str:
        r = self.http.post("/api/guest", json={})
        r.raise_for_status()
        cookie = f"updown_session={r.cookies['updown_session']}"
        self.http.cookies.clear()
        return cookie

    def table(self, cookie: str, options: dict[str, Any] | None = None, game: str = "updown") -> str:
        r = self.http.post("/api/tables", json={"game": game, "options": options or {}, "grace": 3600},
                           headers={"Cookie": cookie})
        r.raise_for_status()
        return str(r.json()["id"])

    def join(self, table: str, cookie: str) -> None:
        self.http.post(f"/api/tables/{table}/join", json={}, headers={"Cookie": cookie}).raise_for_status()

    def socket_once(self, path: str, cookie: str | None, frames: int = 2) -> None:
        """Open a WebSocket at ``path``, read ``frames`` messages, close it."""
        headers = {"Cookie": cookie} if cookie else {}
        with connect(f"ws://127.0.0.1:{self.port}{path}", additional_headers=headers, open_timeout=20,
                     max_size=2**24, ping_interval=None) as ws:
            for _ in range(frames):
                ws.recv(timeout=10)

    def play_to_end(self, table: str, cookie: str, seed: int = 1, think: float = 0.0) -> int:
        """Play the seat ``cookie`` holds at ``table`` with random legal actions (``think`` seconds
        before each) until the game is finished, then close the socket. The actions sent."""
        rng = random.Random(seed)
        sent = 0
        with connect(f"ws://127.0.0.1:{self.port}/ws/tables/{table}", additional_headers={"Cookie": cookie},
                     open_timeout=20, max_size=2**24, ping_interval=None) as ws:
            me = json.loads(ws.recv(timeout=10))["seat"]
            deadline = time.time() + 120
            while time.time() < deadline:
                msg = json.loads(ws.recv(timeout=30))
                if msg["type"] == "table" and msg["table"]["status"] == "finished":
                    return sent
                if msg["type"] in ("snapshot", "frame") and msg.get("legal"):
                    time.sleep(think)
                    sent += 1
                    ws.send(json.dumps({"type": "act", "id": f"a{sent}", "seat": me,
                                        "action": rng.choice(msg["legal"])["id"]}))
        raise RuntimeError(f"table {table}: not finished in 120 s ({sent} actions sent)")


if __name__ == "__main__":
    if sys.argv[3:] == ["auto"]:
        serve(sys.argv[1], int(sys.argv[2]))
    else:
        from updown.server.protocol import HttpProtocol, WebSocketProtocol

        serve(sys.argv[1], int(sys.argv[2]), HttpProtocol, WebSocketProtocol)  # as ``updown serve`` runs them
