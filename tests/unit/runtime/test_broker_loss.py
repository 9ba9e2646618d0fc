"""Surviving a lost broker log: the generation record, and a service body re-run per generation."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from shared import recovery
from shared.bus import MemoryBus, TopicPartition
from shared.bus.generation import GenerationLog
from shared.health import Readiness
from shared.recovery import run_per_generation


async def test_services_agree_on_one_generation_and_its_resync_mark() -> None:
    bus = MemoryBus(partitions=1)
    watcher = GenerationLog(bus, "gen", producer="watcher")
    binder = GenerationLog(bus, "gen", producer="binder")
    first, second = await asyncio.gather(watcher.join(), binder.join())
    assert first == second, "the first record wins"
    assert not await binder.wait_resynced(first, timeout=0.05, period=0.01)
    await watcher.mark_resynced(first)
    assert await binder.wait_resynced(first, timeout=1, period=0.01)


async def test_lost_returns_when_the_log_holds_another_generation() -> None:
    bus = MemoryBus(partitions=1)
    log = GenerationLog(bus, "gen", producer="s")
    generation = await log.join()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(log.lost(generation, period=0.01), 0.1)
    await log.lost("a-generation-from-before-the-loss", period=0.01)


class TruncatedBus(MemoryBus):
    """A bus whose reader found a partition deleted under it, once."""

    def __init__(self) -> None:
        super().__init__(partitions=1)
        self.truncated: set[TopicPartition] = set()

    def take_truncated(self) -> set[TopicPartition]:
        taken, self.truncated = self.truncated, set()
        return taken


async def test_a_deleted_topic_ends_the_generation_for_every_service() -> None:
    bus = TruncatedBus()
    finder = GenerationLog(bus, "gen", producer="scheduler")
    other = GenerationLog(bus, "gen", producer="binder")
    generation = await finder.join()
    assert await other.join() == generation
    bus.truncated = {TopicPartition("shoal.state.jobs", 0)}  # found before: not this one's
    watching = asyncio.create_task(finder.lost(generation, period=0.01))
    await asyncio.sleep(0.05)
    assert not watching.done(), "a truncation from before the generation began is old news"
    bus.truncated = {TopicPartition("shoal.state.pods", 2)}
    await asyncio.wait_for(watching, 1)
    await asyncio.wait_for(other.lost(generation, period=0.01), 1)  # sees the mark too
    new = await other.join()
    assert new != generation and await finder.join() == new, "one new generation for all"
    with pytest.raises(TimeoutError):  # and it stays: the old "lost" mark is not about it
        await asyncio.wait_for(finder.lost(new, period=0.01), 0.1)


class FakeGenerations:
    """Generation g1, lost once the test says so; then g2, never lost."""

    def __init__(self) -> None:
        self.lose = asyncio.Event()
        self.joined: list[str] = []
        self.waited: list[str] = []

    async def join(self) -> str:
        self.joined.append("g1" if not self.lose.is_set() else "g2")
        return self.joined[-1]

    async def lost(self, generation: str, *, period: float) -> None:
        if generation == "g1":
            await self.lose.wait()
        else:
            await asyncio.Event().wait()

    async def wait_resynced(self, generation: str, *, timeout: float, period: float) -> bool:
        self.waited.append(generation)
        return True


class Host:
    def __init__(self) -> None:
        self.readiness = Readiness()
        self.generation = ""
        self.fresh = 0
        self.unready_reasons: list[str] = []

    def fresh_metrics(self) -> None:
        self.fresh += 1
        self.unready_reasons.append(self.readiness.reason)


def _per_generation(
    generations: FakeGenerations,
    host: Host,
    body: Callable[[asyncio.Event], Coroutine[Any, Any, None]],
    stopping: asyncio.Event,
    *,
    waits_for_state: bool,
) -> asyncio.Task[None]:
    """The service loop over generations, running in the background."""
    return asyncio.create_task(
        run_per_generation(
            host=host,
            generations=generations,
            body=body,
            stopping=stopping,
            waits_for_state=waits_for_state,
            period=0.01,
            resync_timeout=1,
        )
    )


@pytest.mark.parametrize(
    ("waits_for_state", "waited"), [(True, ["g2"]), (False, [])], ids=["consumer", "watcher"]
)
async def test_body_is_rerun_from_scratch_after_a_lost_log(
    waits_for_state: bool, waited: list[str]
) -> None:
    generations, host, stopping = FakeGenerations(), Host(), asyncio.Event()
    runs: list[str] = []

    async def body(inner: asyncio.Event) -> None:
        runs.append(host.generation)
        host.readiness.mark_ready()
        await inner.wait()

    loop = _per_generation(generations, host, body, stopping, waits_for_state=waits_for_state)
    await asyncio.sleep(0.05)
    generations.lose.set()
    await asyncio.sleep(0.05)
    stopping.set()
    await asyncio.wait_for(loop, 5)
    assert runs == ["g1", "g2"]
    assert host.fresh == 1 and "lost its log" in host.unready_reasons[0]
    assert generations.waited == waited


async def test_a_crash_without_a_lost_log_ends_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    generations, host = FakeGenerations(), Host()

    async def body(inner: asyncio.Event) -> None:
        raise RuntimeError("a real bug")

    monkeypatch.setattr(recovery, "_CRASH_CHECK_S", 0.05)
    with pytest.raises(RuntimeError, match="a real bug"):
        await run_per_generation(
            host=host,
            generations=generations,
            body=body,
            stopping=asyncio.Event(),
            waits_for_state=True,
            period=0.01,
            resync_timeout=1,
        )


async def test_a_body_that_does_not_stop_when_cancelled_is_left_behind(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a lost log, a body that neither ends by itself nor when cancelled (stopping a
    consumer caught mid-join once never returned) does not keep the service from
    rebuilding: the next generation's body runs."""
    generations, host, stopping = FakeGenerations(), Host(), asyncio.Event()
    runs: list[str] = []
    release = asyncio.Event()

    async def body(inner: asyncio.Event) -> None:
        runs.append(host.generation)
        if host.generation == "g1":
            try:
                await asyncio.Event().wait()  # deaf to ``inner``
            except asyncio.CancelledError:
                await release.wait()  # and its clean-up never returns
            return
        await inner.wait()

    monkeypatch.setattr(recovery, "_STOP_TIMEOUT_S", 0.05)
    monkeypatch.setattr(recovery, "_CANCEL_TIMEOUT_S", 0.05)
    loop = _per_generation(generations, host, body, stopping, waits_for_state=False)
    await asyncio.sleep(0.05)
    generations.lose.set()
    for _ in range(100):
        if runs == ["g1", "g2"]:
            break
        await asyncio.sleep(0.01)
    assert runs == ["g1", "g2"], "rebuilt without the stuck body"
    assert len(recovery._LEFT_BEHIND) == 1
    release.set()  # the stuck clean-up returns at last: forgotten
    stopping.set()
    await asyncio.wait_for(loop, 5)
    await asyncio.sleep(0)
    assert not recovery._LEFT_BEHIND
