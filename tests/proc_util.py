"""Helpers for the tests that start a command with worker processes in a session of its own and stop
it: whether its whole process group is gone, and a guard that kills the group if the test fails."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager


def group_gone(proc: subprocess.Popen[bytes], seconds: float = 10.0) -> bool:
    """Whether every process of ``proc``'s group (``start_new_session=True``) ends within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


@contextmanager
def killed_on_failure(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    """On any failure inside, the whole group is killed before the failure goes on."""
    try:
        yield
    except BaseException:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        raise
