"""Test servers forked from one process that has already imported the server.

Starting ``updown serve`` as a new Python process costs about two seconds of CPU before it listens,
almost all of it importing (FastAPI, SQLAlchemy, Alembic, the bots, numpy), and the suite starts a
server a few hundred times (every SIGKILL in the crash tests is followed by a start). Here one
*zygote* per test process imports all that once and forks a child for each server: the child then
runs the same ``updown serve`` command line as ``python -c 'from updown.cli.app import main;
main()' serve ...`` would, with the test's environment and working directory of that moment, its
output in the server's log. It is a real process of its own: SIGKILL, SIGTERM, its exit code and
its descendants (the bot pool) behave as they do for a process started from scratch.

The zygote is single-threaded (forking a process with threads can leave a lock held in the child):
it waits on its control pipe and on SIGCHLD, forks on request, reaps its children and reports their
exit codes. It exits, killing the children left, when the test process goes away (end of file on
its control pipe). ``UPDOWN_TEST_NO_ZYGOTE=1`` starts every server as a new process instead.

Protocol (JSON lines): the test process writes ``{"args": [...], "env": {...}, "cwd": ..., "log":
path or null}``; the zygote answers ``{"pid": N}`` (or ``{"error": "..."}``) in order, and writes
``{"exit": N, "code": C}`` when child N ends (C as ``subprocess.Popen.returncode``: -9 for SIGKILL).
"""

from __future__ import annotations

import io
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import traceback
from typing import Any

# What a server imports before it listens; importing them here is the whole point.
PRELOAD = ("updown.cli.app", "updown.cli.cmd_serve", "updown.server.app", "uvicorn", "uvicorn.loops.auto",
           "uvicorn.protocols.http.auto", "uvicorn.protocols.websockets.auto", "uvicorn.lifespan.on",
           "alembic.command", "alembic.runtime.environment", "alembic.runtime.migration", "psycopg", "redis",
           "redis.asyncio")


# -- the zygote (its own process) ----------------------------------------------------------------------
def _write(fd: int, message: dict[str, Any]) -> None:
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]


def _child(request: dict[str, Any], close: list[int]) -> None:
    """In the forked child: become ``updown serve`` as asked; never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in close:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDWR)
        out = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644) if request.get("log") else null
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        # Unbuffered, as the server runs in the tests (PYTHONUNBUFFERED): a SIGKILL loses no log line.
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), write_through=True, line_buffering=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), write_through=True, line_buffering=True)
        sys.argv = ["-c", *request["args"]]
        from updown.cli.app import main

        main()
        code = 0
    except SystemExit as end:
        code = end.code if isinstance(end.code, int) else (0 if end.code is None else 1)
        if not isinstance(end.code, int) and end.code is not None:
            print(end.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - the child reports and exits, whatever happened
        traceback.print_exc()
    finally:
        os._exit(code)


def zygote_main() -> None:
    import importlib

    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:  # an optional one not installed: the child imports what it needs itself
            pass
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel = selectors.DefaultSelector()
    sel.register(0, selectors.EVENT_READ)
    sel.register(wake_r, selectors.EVENT_READ)
    children: set[int] = set()
    buf = b""

    def reap() -> None:
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            children.discard(pid)
            _write(1, {"exit": pid, "code": os.waitstatus_to_exitcode(status)})

    while True:
        for key, _ in sel.select():
            if key.fd == wake_r:
                os.read(wake_r, 4096)
                continue
            data = os.read(0, 65536)
            if not data:  # the test process is gone: so are its servers
                for pid in children:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                os._exit(0)
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                request = json.loads(line)
                try:
                    pid = os.fork()
                except OSError as error:
                    _write(1, {"error": str(error)})
                    continue
                if pid == 0:
                    sel.close()
                    _child(request, [wake_r, wake_w])
                children.add(pid)
                _write(1, {"pid": pid})
        reap()


# -- the test side --------------------------------------------------------------------------------------
class Zygote:
    """The test process's handle on its zygote: started on first use, one per process."""

    _one: Zygote | None = None
    _one_lock = threading.Lock()

    @classmethod
    def get(cls) -> Zygote:
        with cls._one_lock:
            if cls._one is None or cls._one.proc.poll() is not None:
                cls._one = cls()
            return cls._one

    def __init__(self) -> None:
        here = os.path.dirname(os.path.abspath(__file__))
        code = f"import sys; sys.path.insert(0, {here!r}); import server_zygote; server_zygote.zygote_main()"
        self.proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lock = threading.Lock()
        self.changed = threading.Condition()
        self.answers: list[dict[str, Any]] = []
        self.exits: dict[int, int] = {}
        threading.Thread(target=self._read, name="server-zygote", daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)
            with self.changed:
                if "exit" in message:
                    self.exits[message["exit"]] = message["code"]
                else:
                    self.answers.append(message)
                self.changed.notify_all()
        with self.changed:
            self.answers.append({"error": f"the server zygote exited with {self.proc.wait()}"})
            self.changed.notify_all()

    def spawn(self, args: list[str], env: dict[str, str], log: str | None) -> Forked:
        assert self.proc.stdin is not None
        with self.lock:  # answers come in the order of the requests
            self.proc.stdin.write((json.dumps({"args": args, "env": env, "cwd": os.getcwd(), "log": log}) + "\n").encode())
            self.proc.stdin.flush()
            with self.changed:
                if not self.changed.wait_for(lambda: bool(self.answers), timeout=120):
                    raise RuntimeError("the server zygote did not answer in 120 s")
                answer = self.answers.pop(0)
        if "pid" not in answer:
            raise RuntimeError(answer.get("error", "the server zygote refused"))
        return Forked(self, int(answer["pid"]), args)

    def exit_code(self, pid: int) -> int | None:
        with self.changed:
            return self.exits.get(pid)


class Forked:
    """A forked server, with the part of ``subprocess.Popen``'s interface the tests use."""

    def __init__(self, zygote: Zygote, pid: int, args: list[str]):
        self.zygote = zygote
        self.pid = pid
        self.args = args
        self.returncode: int | None = None
        try:  # a handle on this very process: a signal can never reach another that took its number
            self.pidfd: int | None = os.pidfd_open(pid)
        except OSError:  # gone already (its exit is on its way), or no pidfd on this system
            self.pidfd = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.zygote.exit_code(self.pid)
            if self.returncode is not None and self.pidfd is not None:
                os.close(self.pidfd)
                self.pidfd = None
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.zygote.changed:
            if not self.zygote.changed.wait_for(lambda: self.pid in self.zygote.exits,
                                                timeout=None if deadline is None else max(0.0, deadline - time.monotonic())):
                raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        code = self.poll()
        assert code is not None
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is not None:
            return
        try:
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd, sig)
            else:
                os.kill(self.pid, sig)
        except ProcessLookupError:
            pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __del__(self) -> None:
        if getattr(self, "pidfd", None) is not None:
            os.close(self.pidfd)  # type: ignore[arg-type]
