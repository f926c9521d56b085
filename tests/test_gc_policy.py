"""The garbage collector's policy (``updown/server/gcpolicy.py``, issue 35): freeze after start-up
and after every full collection, renew (collect what is not frozen, unfreeze, collect, freeze) on
its schedule, every collection timed into the metric, and the setting that turns the freezing off.
Event-ordered: the collector's callback is called as the collector would, the schedule's sleep is
the test's."""

from __future__ import annotations

import asyncio
import gc
import weakref
from pathlib import Path
from typing import Any, Callable

import pytest
from prometheus_client import REGISTRY
from starlette.testclient import TestClient

from updown.server.app import create_app
from updown.server.gcpolicy import GcPolicy
from updown.server.settings import Settings, SettingsError


class FakeGc:
    """What the policy uses of ``gc``, recording each call in order."""

    def __init__(self) -> None:
        self.callbacks: list[Callable[[str, dict[str, Any]], None]] = []
        self.calls: list[str] = []
        self.frozen = 0
        self.clock_reads = 0
        self.cpu = 0.0
        """The collecting thread's CPU clock (the policy's ``cpu_clock``), moved by each collection."""
        self.threshold = (700, 10, 10)

    def collect(self, generation: int = 2) -> int:
        self.calls.append("collect")
        return 0

    def get_threshold(self) -> tuple[int, int, int]:
        return self.threshold

    def set_threshold(self, threshold0: int, threshold1: int = 10, threshold2: int = 10) -> None:
        self.threshold = (threshold0, threshold1, threshold2)

    def freeze(self) -> None:
        self.calls.append("freeze")
        self.frozen = 1000

    def unfreeze(self) -> None:
        self.calls.append("unfreeze")
        self.frozen = 0

    def get_freeze_count(self) -> int:
        return self.frozen

    def clock(self) -> float:
        self.clock_reads += 1
        return self.cpu

    def collection(self, generation: int, cpu: float = 0.3) -> None:
        """A collection of ``generation`` that takes ``cpu`` seconds, as the collector reports it to
        its callbacks."""
        for callback in list(self.callbacks):
            callback("start", {"generation": generation})
        self.cpu += cpu
        for callback in list(self.callbacks):
            callback("stop", {"generation": generation, "collected": 3, "uncollectable": 0})


class Sleeps:
    """The renewal schedule's sleep: each call waits until the test lets it end."""

    def __init__(self) -> None:
        self.asked: list[float] = []
        self.go = asyncio.Event()

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        await self.go.wait()
        self.go.clear()


def timed(generation: int) -> float:
    return REGISTRY.get_sample_value("updown_gc_seconds_count", {"generation": str(generation)}) or 0.0


def tracked() -> set[int]:
    """The ids of the objects in the collected generations (a frozen one is in none of them)."""
    return {id(o) for o in gc.get_objects()}


async def turn() -> None:
    """Let the event loop run what was handed to it (the freeze after a full collection)."""
    for _ in range(3):
        await asyncio.sleep(0)


def test_freezes_after_start_up_and_after_each_long_full_collection_only() -> None:
    async def main() -> None:
        fake = FakeGc()
        policy = GcPolicy(freeze=True, unfreeze_every=600, freeze_over=0.05, collector=fake, cpu_clock=fake.clock,
                          sleep=Sleeps())
        policy.start()
        assert fake.calls == ["collect", "freeze", "collect"]  # what start-up made: collected, frozen; Python's count reset
        assert policy._callback in fake.callbacks
        for generation in (0, 1, 0, 1):
            fake.collection(generation)
            await turn()
        assert fake.calls == ["collect", "freeze", "collect"]  # young collections freeze nothing
        fake.collection(2)
        assert fake.calls == ["collect", "freeze", "collect"]  # not from within the collector...
        await turn()
        assert fake.calls == ["collect", "freeze", "collect", "freeze"]  # ...but in the loop, right after
        fake.collection(2)
        fake.collection(2)  # two before the loop runs: one freeze does for both
        await turn()
        assert fake.calls == ["collect", "freeze", "collect", "freeze", "freeze"]
        fake.collection(2, cpu=0.04)  # a short one: what it looked at is mostly young, left to the collector
        await turn()
        assert fake.calls == ["collect", "freeze", "collect", "freeze", "freeze"]
        fake.collection(2, cpu=0.06)
        await turn()
        assert fake.calls == ["collect", "freeze", "collect", "freeze", "freeze", "freeze"]
        assert policy.collections == [2, 2, 5]
        await policy.stop()
        assert fake.calls[-1] == "unfreeze" and fake.callbacks == []
        fake.collection(2)  # unhooked: nothing more
        await turn()
        assert fake.calls.count("freeze") == 4

    asyncio.run(main())


def test_by_default_and_as_the_server_is_set_every_full_collection_is_followed_by_a_freeze() -> None:
    """The default (0 s of CPU since 30 November 2026): even a full collection of a millisecond is
    followed by a freeze, so the next looks only at what was made since (under churn at 5,000 idle
    players the 0.05 s it was gave twice the long pauses: docs/server.md)."""
    assert Settings().gc.freeze_over == 0.0

    async def main() -> None:
        fake = FakeGc()
        policy = GcPolicy(freeze=True, freeze_over=Settings().gc.freeze_over, collector=fake,
                          cpu_clock=fake.clock, sleep=Sleeps())
        default = GcPolicy(freeze=True, collector=FakeGc(), sleep=Sleeps())
        assert default.freeze_over == policy.freeze_over
        policy.start()
        fake.collection(1, cpu=0.001)
        await turn()
        assert fake.calls == ["collect", "freeze", "collect"]  # a young one still freezes nothing
        fake.collection(2, cpu=0.001)
        await turn()
        assert fake.calls == ["collect", "freeze", "collect", "freeze"]
        await policy.stop()

    asyncio.run(main())


def test_renews_on_its_schedule_and_not_before() -> None:
    async def main() -> None:
        fake = FakeGc()
        sleeps = Sleeps()
        # Memory that cannot be read (no /proc): a renewal every period, as without the growth rule
        policy = GcPolicy(freeze=True, unfreeze_every=900, collector=fake, cpu_clock=fake.clock, sleep=sleeps,
                          memory=lambda: None)
        policy.start()
        await turn()
        assert sleeps.asked == [900] and "unfreeze" not in fake.calls  # waiting for its time
        fake.calls.clear()
        sleeps.go.set()  # the 900 s are over
        await turn()
        assert fake.calls == ["collect", "unfreeze", "collect", "freeze", "collect"] and policy.renewals == 1
        assert sleeps.asked == [900, 900]  # and the next period begins
        sleeps.go.set()
        await turn()
        assert fake.calls == ["collect", "unfreeze", "collect", "freeze", "collect"] * 2 and policy.renewals == 2
        await policy.stop()  # the schedule ends with the server
        assert policy._renewer is None and fake.calls[-1] == "unfreeze"

    asyncio.run(main())


def test_a_renewal_waits_for_the_memory_to_grow_between_the_shortest_and_longest_periods() -> None:
    """Not before ``unfreeze_every``; then, looked at every minute, once the memory has grown by
    ``renew_growth`` since the last renewal; at the latest after ``unfreeze_longest``."""
    async def main() -> None:
        fake = FakeGc()
        sleeps = Sleeps()
        memory = [1000]

        policy = GcPolicy(freeze=True, unfreeze_every=600, unfreeze_longest=900, renew_growth=0.1,
                          collector=fake, cpu_clock=fake.clock, sleep=sleeps, memory=lambda: memory[0])
        policy.start()
        await turn()
        assert sleeps.asked == [600]  # never sooner than the shortest period
        memory[0] = 1099  # grown 9.9%: not yet
        sleeps.go.set()
        await turn()
        assert sleeps.asked == [600, 60] and policy.renewals == 0
        memory[0] = 1100  # 10% since start-up: renewed at the next look
        sleeps.go.set()
        await turn()
        assert policy.renewals == 1 and fake.calls[-5:] == ["collect", "unfreeze", "collect", "freeze", "collect"]
        assert sleeps.asked == [600, 60, 600]  # the next period measures from the memory now (1,100)
        memory[0] = 1150  # +4.5%: looked at each minute, renewed at the longest period, 900 s
        for _ in range(6):
            sleeps.go.set()
            await turn()
        assert sleeps.asked == [600, 60, 600, 60, 60, 60, 60, 60, 600]
        assert policy.renewals == 2 and fake.calls.count("unfreeze") == 2
        memory[0] = 5000  # grown far past the share during the shortest period: renewed at its end
        await turn()
        assert policy.renewals == 2  # (not before)
        sleeps.go.set()
        await turn()
        assert policy.renewals == 3 and sleeps.asked[-2:] == [600, 600]
        await policy.stop()

    asyncio.run(main())


def test_freeze_off_leaves_the_collector_alone_but_still_times_it() -> None:
    async def main() -> None:
        fake = FakeGc()
        sleeps = Sleeps()
        policy = GcPolicy(freeze=False, unfreeze_every=600, collector=fake, cpu_clock=fake.clock, sleep=sleeps)
        before = timed(2)
        policy.start()
        fake.collection(2)
        await turn()
        assert fake.calls == [] and sleeps.asked == [] and policy._renewer is None
        assert timed(2) == before + 1 and policy.collections == [0, 0, 1]
        await policy.stop()
        assert fake.calls == [] and fake.callbacks == []

    asyncio.run(main())


def test_the_metric_counts_every_collection_by_generation() -> None:
    async def main() -> None:
        fake = FakeGc()
        policy = GcPolicy(freeze=True, collector=fake, cpu_clock=fake.clock, sleep=Sleeps())
        counts = [timed(g) for g in range(3)]
        policy.start()
        for generation in (0, 0, 0, 1, 2):
            fake.collection(generation)
        await turn()
        assert [timed(g) - counts[g] for g in range(3)] == [3, 1, 1]
        # The CPU clock (a system call) is read only around the full collection, which it judges.
        assert fake.clock_reads == 2
        await policy.stop()

    asyncio.run(main())


def test_with_the_real_collector_frozen_garbage_waits_for_the_renewal(caplog: pytest.LogCaptureFixture) -> None:
    """Why the renewal exists: a cycle frozen while alive is not freed when it becomes garbage,
    until the heap is unfrozen and collected; and what a full collection leaves is frozen."""

    class Node:
        def __init__(self) -> None:
            self.me = self  # a cycle: only the collector frees it

    async def main() -> None:
        policy = GcPolicy(freeze=True, unfreeze_every=3600, log_over=0.0, freeze_over=0.0)
        try:
            policy.start()
            assert gc.get_freeze_count() > 0
            kept = [Node() for _ in range(2000)]  # made after start-up: not frozen yet
            ids = {id(node) for node in kept}
            assert ids <= tracked()
            gc.collect()  # a full collection: they survive it...
            assert ids <= tracked()
            await turn()
            assert not ids & tracked()  # ...and are frozen right after it
            probe = weakref.ref(kept[0])
            del kept
            gc.collect()
            assert probe() is not None  # frozen garbage: no collection looks at it
            young = [Node() for _ in range(500)]  # garbage never frozen: any collection frees it
            del young
            found = policy.renew()
            assert probe() is None  # the renewal freed it
            assert 2000 <= found < 2500  # and counts only what had been frozen
            assert gc.get_freeze_count() > 0  # and froze what is alive again
        finally:
            await policy.stop()
        assert gc.get_freeze_count() == 0 and policy._callback not in gc.callbacks

    with caplog.at_level("INFO", logger="updown.server.gc"):
        asyncio.run(main())
    assert any("garbage collection of generation 2" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("freeze", [True, False])
def test_the_app_freezes_after_start_up_as_its_setting_says(tmp_path: Path, freeze: bool) -> None:
    app = create_app(Settings(db=f"sqlite:///{tmp_path / 'gc.db'}", bot_delay=0, bot_workers=0,
                              gc={"freeze": freeze}))
    policy = app.state.gc_policy
    with TestClient(app) as client:
        assert client.get("/api/health").status_code == 200
        assert policy._callback in gc.callbacks
        assert (gc.get_freeze_count() > 0) is freeze
        assert (policy._renewer is not None) is freeze
    assert policy._callback not in gc.callbacks and gc.get_freeze_count() == 0


def test_gc_settings_from_the_environment_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPDOWN_GC__FREEZE", "false")
    monkeypatch.setenv("UPDOWN_GC__UNFREEZE_EVERY", "120")
    monkeypatch.setenv("UPDOWN_GC__FREEZE_OVER", "0.2")
    s = Settings.load()
    assert s.gc.freeze is False and s.gc.unfreeze_every == 120 and s.gc.log_over == 0.1 and s.gc.freeze_over == 0.2
    monkeypatch.setenv("UPDOWN_GC__UNFREEZE_EVERY", "1")
    with pytest.raises(SettingsError, match="gc.unfreeze_every"):
        Settings.load()
    monkeypatch.setenv("UPDOWN_GC__UNFREEZE_EVERY", "600")
    monkeypatch.setenv("UPDOWN_GC__UNFREEZE_LONGEST", "7200")
    monkeypatch.setenv("UPDOWN_GC__RENEW_GROWTH", "0.25")
    s = Settings.load()
    assert (s.gc.unfreeze_every, s.gc.unfreeze_longest, s.gc.renew_growth) == (600, 7200, 0.25)
    monkeypatch.setenv("UPDOWN_GC__UNFREEZE_LONGEST", "300")
    with pytest.raises(SettingsError, match=r"gc.unfreeze_longest \(300 s\) is shorter than gc.unfreeze_every \(600 s\)"):
        Settings.load()
    monkeypatch.setenv("UPDOWN_GC__UNFREEZE_LONGEST", "7200")
    monkeypatch.setenv("UPDOWN_GC__RENEW_GROWTH", "-1")
    with pytest.raises(SettingsError, match="gc.renew_growth"):
        Settings.load()


def test_the_third_threshold_is_the_policys_while_it_runs_and_pythons_after() -> None:
    """``full_after`` (docs/server.md, "A closed socket's parser"): Python's third threshold is the
    policy's while it runs, so full collections come after that many of the middle generation's;
    each is still followed by a freeze; the renewals keep their own schedule; Python's thresholds
    are back at the stop."""
    async def main() -> None:
        fake = FakeGc()
        sleeps = Sleeps()
        policy = GcPolicy(freeze=True, unfreeze_every=900, full_after=100, collector=fake, cpu_clock=fake.clock,
                          sleep=sleeps, memory=lambda: None)
        policy.start()
        await turn()
        assert fake.threshold == (700, 10, 100)
        start = len(fake.calls)
        fake.collection(2, cpu=0.001)
        await turn()
        assert fake.calls[start:] == ["freeze"]  # a full collection, as rare as it now is, then frozen
        assert policy.renewals == 0 and sleeps.asked == [900]
        sleeps.go.set()
        await turn()
        assert policy.renewals == 1
        await policy.stop()
        assert fake.threshold == (700, 10, 10)  # Python's own again

    asyncio.run(main())


@pytest.mark.parametrize("freeze, full_after", [(True, 0), (False, 100)])
def test_without_the_setting_or_the_freeze_python_keeps_its_threshold(freeze: bool, full_after: int) -> None:
    async def main() -> None:
        fake = FakeGc()
        policy = GcPolicy(freeze=freeze, full_after=full_after, collector=fake, cpu_clock=fake.clock,
                          sleep=Sleeps(), memory=lambda: None)
        policy.start()
        await turn()
        assert fake.threshold == (700, 10, 10)
        await policy.stop()
        assert fake.threshold == (700, 10, 10)

    asyncio.run(main())


def test_the_server_sets_the_third_threshold_by_default(tmp_path: Path) -> None:
    assert Settings().gc.full_after == 100
    before = gc.get_threshold()
    app = create_app(Settings(db=f"sqlite:///{tmp_path / 'gc.db'}", bot_delay=0, bot_workers=0))
    with TestClient(app) as client:
        assert client.get("/api/health").status_code == 200
        assert gc.get_threshold() == (before[0], before[1], 100)
    assert gc.get_threshold() == before


def test_after_start_up_pythons_next_full_collection_does_not_wait_for_a_quarter_of_the_heap() -> None:
    """With the real collector: start-up's full collection kept the whole heap, and Python starts
    one of its own only once what survived since passes a quarter of that; the policy resets that
    count (one more collection, of next to nothing, after the freeze), so the first automatic full
    collection comes when its count says, not after a quarter of the heap has piled up."""
    heap = [[] for _ in range(400_000)]  # a long-lived heap, as 5,000 idle players' (in objects)
    fulls: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 2:
            fulls.append(1)

    before = gc.get_threshold()

    async def main() -> None:
        gc.set_threshold(100, 2, before[2])
        policy = GcPolicy(freeze=True, unfreeze_every=3600, full_after=2)
        try:
            policy.start()
            await turn()
            gc.callbacks.append(count)
            kept = [[] for _ in range(20_000)]  # survivors: a twentieth of the heap, not a quarter
            assert fulls, "no automatic full collection after 20,000 survivors"
            del kept
        finally:
            if count in gc.callbacks:
                gc.callbacks.remove(count)
            await policy.stop()

    try:
        asyncio.run(main())
    finally:
        gc.set_threshold(*before)
    del heap
