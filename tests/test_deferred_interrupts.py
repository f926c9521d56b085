"""Ctrl-C and a kill while a pool of workers runs (``updown.arena.runner.DeferredInterrupts``):
noted when they come, raised as ``KeyboardInterrupt`` only between waits on the workers, where no
lock of ``concurrent.futures`` is held (raised anywhere, one once left the panel unable to end)."""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import Future

import pytest

from updown.arena.runner import DeferredInterrupts, wait_first


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_is_noted_where_it_comes_and_raised_at_the_next_wait(signum: int) -> None:
    before = signal.getsignal(signum)
    never: Future[None] = Future()
    with DeferredInterrupts() as interrupts:
        try:
            os.kill(os.getpid(), signum)
            deadline = time.monotonic() + 5
            while interrupts.caught is None and time.monotonic() < deadline:
                time.sleep(0.01)  # the handler runs here, between bytecodes: it must not raise
        except KeyboardInterrupt:
            pytest.fail("raised where the signal came, not at the next wait")
        assert interrupts.caught == signum
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            wait_first({never}, interrupts)
        assert time.monotonic() - began < 1
    assert signal.getsignal(signum) is before  # the handlers are given back


def test_a_wait_returns_what_finished_and_raises_for_a_signal_that_comes_while_it_waits() -> None:
    done: Future[int] = Future()
    done.set_result(1)
    never: Future[None] = Future()
    with DeferredInterrupts() as interrupts:
        assert wait_first({done, never}, interrupts) == {done}
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            wait_first({never}, interrupts)
        assert 0.25 < time.monotonic() - began < 2
