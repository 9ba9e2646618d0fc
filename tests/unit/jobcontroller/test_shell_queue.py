"""The work queue: dedupe, one worker per key, delayed and rate-limited requeues."""

from __future__ import annotations

import asyncio

import pytest

from services.jobcontroller.queue import QueueShutDown, WorkQueue


async def drain(queue: WorkQueue[str]) -> list[str]:
    keys = []
    while len(queue):
        key = await queue.get()
        keys.append(key)
        queue.done(key)
    return keys


@pytest.mark.parametrize(
    ("adds", "expected"),
    [
        (["a", "a", "a"], ["a"]),
        (["a", "b", "a", "c", "b"], ["a", "b", "c"]),
    ],
    ids=["same-key-once", "first-add-keeps-order"],
)
async def test_waiting_keys_are_deduplicated(adds: list[str], expected: list[str]) -> None:
    queue: WorkQueue[str] = WorkQueue()
    for key in adds:
        queue.add(key)
    assert len(queue) == len(expected)
    assert await drain(queue) == expected


async def test_key_being_synced_is_not_handed_out_again_until_done() -> None:
    queue: WorkQueue[str] = WorkQueue()
    queue.add("a")
    first = await queue.get()
    queue.add("a")  # changed while being synced
    assert len(queue) == 0  # not available to a second worker
    second = asyncio.create_task(queue.get())
    await asyncio.sleep(0.01)
    assert not second.done()
    queue.done(first)  # ... but queued again once the first sync finished
    assert await asyncio.wait_for(second, 1) == "a"
    queue.done("a")
    assert len(queue) == 0


async def test_workers_get_different_keys_concurrently() -> None:
    queue: WorkQueue[str] = WorkQueue()
    getters = [asyncio.create_task(queue.get()) for _ in range(2)]
    await asyncio.sleep(0)
    queue.add("a")
    queue.add("b")
    got = await asyncio.wait_for(asyncio.gather(*getters), 1)
    assert sorted(got) == ["a", "b"]


async def test_add_after_keeps_the_earliest_timer() -> None:
    queue: WorkQueue[str] = WorkQueue()
    queue.add_after("a", 10.0)
    queue.add_after("a", 0.01)
    queue.add_after("a", 5.0)
    assert queue.delayed == 1
    assert await asyncio.wait_for(queue.get(), 1) == "a"
    assert queue.delayed == 0


async def test_rate_limited_backoff_doubles_is_capped_and_resets_on_forget() -> None:
    queue: WorkQueue[str] = WorkQueue(backoff_base=0.01, backoff_max=0.03)
    delays = [queue.add_rate_limited("a") for _ in range(4)]
    assert delays == [0.01, 0.02, 0.03, 0.03]
    queue.forget("a")
    assert queue.failures("a") == 0
    assert queue.add_rate_limited("a") == 0.01
    queue.shutdown()


async def test_shutdown_releases_idle_workers_and_drops_timers() -> None:
    queue: WorkQueue[str] = WorkQueue()
    waiting = asyncio.create_task(queue.get())
    queue.add_after("b", 10.0)
    await asyncio.sleep(0)
    queue.shutdown()
    with pytest.raises(QueueShutDown):
        await asyncio.wait_for(waiting, 1)
    assert queue.delayed == 0
    queue.add("c")
    assert len(queue) == 0
