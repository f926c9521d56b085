"""Bots in their own process: ``exec:COMMAND`` plays a seat through a program (docs/bot-protocol.md).

The program reads one JSON object per line on stdin and answers each ``act`` message with one
line on stdout. It sees only what it is sent (its seat's view as JSON), so it cannot reach the
driver's memory as a bot in this process could. A program that crashes, stays silent past the
time limit or answers something that is not a legal action is stopped, and ``random`` plays the
seat from then on; the reason goes to the ``updown.bots`` logger (a warning) and to ``on_failure``.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import random
import re
import shlex
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import IO, Any

from updown.bots.base import Bot, RandomBot
from updown.core.errors import UpdownError
from updown.core.protocol import Game, View

PROTOCOL = 1
DEFAULT_TIME_LIMIT = 5.0
"""Seconds a program has for each move."""
STARTUP_GRACE = 10.0
"""Extra seconds for the first move, while the program starts."""
MAX_LINE = 1_000_000
"""The longest answer line read; a longer one counts as garbage."""

log = logging.getLogger("updown.bots")

_SPEC = re.compile(r"exec(?:\[(?P<limit>[0-9.]+)\])?:(?P<command>.*)", re.DOTALL)


def parse_spec(name: str) -> tuple[str, float] | None:
    """``exec:COMMAND`` or ``exec[SECONDS]:COMMAND`` as (command, time limit); None if not one."""
    m = _SPEC.fullmatch(name)
    if m is None:
        return None
    command = m["command"].strip()
    if not command:
        raise UpdownError("exec: needs a command, e.g. exec:python3 examples/random_bot.py")
    limit = DEFAULT_TIME_LIMIT
    if m["limit"] is not None:
        try:
            limit = float(m["limit"])
        except ValueError:
            raise UpdownError(f"exec[{m['limit']}]: the time limit must be a number of seconds") from None
        if not 0 < limit <= 3600:
            raise UpdownError(f"exec[{m['limit']}]: the time limit must be more than 0 and at most 3600 seconds")
    return command, limit


class ExecBot(Bot):
    """A seat played by an outside program; ``random`` takes over if the program fails."""

    name = "exec"
    description = "a program that speaks the JSON-lines bot protocol (exec:COMMAND)"

    def __init__(
        self,
        game: Game[Any],
        seat: int,
        rng: random.Random,
        command: str,
        time_limit: float = DEFAULT_TIME_LIMIT,
        on_failure: Callable[[str], None] | None = None,
        startup_grace: float = STARTUP_GRACE,
    ):
        super().__init__(game, seat, rng)
        self.command = command
        self.time_limit = time_limit
        self.startup_grace = startup_grace
        self.on_failure = on_failure
        self.failure: str | None = None
        self._fallback: RandomBot | None = None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=5)
        self._moves = 0
        try:
            argv = shlex.split(command)
        except ValueError as err:
            raise UpdownError(f"exec:{command}: {err}") from None
        if not argv:
            raise UpdownError("exec: needs a command")
        try:
            self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        except OSError as err:
            raise UpdownError(f"cannot start bot program {command!r}: {err.strerror or err}") from None
        assert self._proc.stdout is not None and self._proc.stderr is not None
        threading.Thread(target=self._read_stdout, args=(self._proc.stdout,), daemon=True).start()
        threading.Thread(target=self._read_stderr, args=(self._proc.stderr,), daemon=True).start()
        self._send({"type": "start", "protocol": PROTOCOL, "game": game.id, "seat": seat,
                    "time_limit": time_limit})

    # -- the pipes ------------------------------------------------------------------------------
    def _read_stdout(self, stream: IO[bytes]) -> None:
        try:
            while True:
                line = stream.readline(MAX_LINE + 1)
                if not line:
                    break
                self._lines.put(line)
                if len(line) > MAX_LINE:
                    break
        except (OSError, ValueError):
            pass
        self._lines.put(None)  # the program closed its output

    def _read_stderr(self, stream: IO[bytes]) -> None:
        try:
            while True:
                line = stream.readline(10_000)
                if not line:
                    break
                text = line.decode("utf-8", "replace").strip()
                if text:
                    self._stderr.append(text[:200])
        except (OSError, ValueError):
            pass

    def _send(self, message: dict[str, Any]) -> bool:
        proc = self._proc
        if proc is None or proc.stdin is None:
            return False
        try:
            proc.stdin.write(json.dumps(message, ensure_ascii=True).encode("ascii") + b"\n")
            proc.stdin.flush()
            return True
        except (OSError, ValueError):
            return False

    # -- playing --------------------------------------------------------------------------------
    def act(self, view: View, legal: Sequence[int]) -> int:
        if self._fallback is not None:
            return self._fallback.act(view, legal)
        message = {"type": "act", "view": view,
                   "legal": [{"id": a, "action": self.game.action_to_str(a)} for a in legal]}
        if not self._send(message):
            return self._fail(f"its input is closed{self._exit_note()}", view, legal)
        limit = self.time_limit + (self.startup_grace if self._moves == 0 else 0.0)
        self._moves += 1
        deadline = time.monotonic() + limit
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return self._fail(f"no answer within {limit:g} s", view, legal)
            if line is None:
                return self._fail(f"it stopped{self._exit_note()}", view, legal)
            if not line.strip():
                continue  # blank lines are allowed between answers
            break
        action, why = self._parse(line, legal)
        if action is None:
            return self._fail(why, view, legal)
        return action

    def _parse(self, line: bytes, legal: Sequence[int]) -> tuple[int | None, str]:
        if len(line) > MAX_LINE:
            return None, f"an answer longer than {MAX_LINE:,} bytes"
        text = line.decode("utf-8", "replace").strip()
        shown = repr(text if len(text) <= 60 else text[:59] + "…")
        answer: Any = text
        if text.startswith("{"):
            try:
                answer = json.loads(text).get("action")
            except (ValueError, AttributeError, RecursionError):
                return None, f"the answer {shown} is not a JSON object"
        if isinstance(answer, bool):
            return None, f"the answer {shown} is not an action"
        if isinstance(answer, int):
            action = answer
        elif isinstance(answer, str):
            try:
                action = self.game.parse_action(answer)
            except UpdownError:
                return None, f"the answer {shown} is not an action"
        else:
            return None, f"the answer {shown} names no action"
        if action not in legal:
            return None, f"the answer {shown} is not a legal action now"
        return action, ""

    def _exit_note(self) -> str:
        proc = self._proc
        if proc is None:
            return ""
        try:
            code = proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return ""
        last = f"; its last error line: {self._stderr[-1]}" if self._stderr else ""
        return f" (exit status {code}{last})"

    def _fail(self, why: str, view: View, legal: Sequence[int]) -> int:
        message = (f"bot program {self.command!r} for seat {self.seat} failed: {why}; "
                   f"random plays the seat from now on")
        self.failure = message
        log.warning(message)
        if self.on_failure is not None:
            self.on_failure(message)
        self.close()
        self._fallback = RandomBot(self.game, self.seat, self.rng)
        return self._fallback.act(view, legal)

    def close(self) -> None:
        """Tell the program the game is over and make sure it has stopped."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                try:
                    proc.stdin.write(b'{"type": "quit"}\n')
                    proc.stdin.close()
                except (OSError, ValueError):
                    pass
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5.0)
        finally:
            for stream in (proc.stdout, proc.stderr):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (never raise from a finaliser)
            pass
