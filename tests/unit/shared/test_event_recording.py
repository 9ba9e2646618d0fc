"""Events posted in the background: recording never waits, a full backlog drops, close drains."""

from __future__ import annotations

import asyncio
from typing import Any

from shared.kube import ApiError
from shared.kube.recording import EventRecorder


class SlowKube:
    def __init__(self, *, fail: bool = False) -> None:
        self.posted: list[str] = []
        self.release = asyncio.Event()
        self.fail = fail

    async def create(self, rt: Any, obj: dict[str, Any], namespace: str | None = None) -> Any:
        await self.release.wait()
        if self.fail:
            raise ApiError(500, "InternalError", "injected")
        self.posted.append(obj["reason"])
        return obj

    async def patch(
        self,
        rt: Any,
        name: str,
        patch: Any,
        *,
        namespace: str | None = None,
        patch_type: str = "merge",
        subresource: str = "",
    ) -> Any:
        raise AssertionError("distinct Events are created, never patched")


async def test_record_returns_before_the_event_is_posted_and_close_drains() -> None:
    kube = SlowKube()
    recorder = EventRecorder(kube, concurrency=2)
    for reason in ("Scheduled", "Evict", "Unschedulable"):
        recorder.record({"reason": reason})
    await asyncio.sleep(0.01)
    assert kube.posted == []  # the API is slow; nobody waited for it
    kube.release.set()
    await recorder.close()
    assert sorted(kube.posted) == ["Evict", "Scheduled", "Unschedulable"]


async def test_a_full_backlog_drops_new_events_and_counts_them() -> None:
    kube = SlowKube()
    recorder = EventRecorder(kube, concurrency=1, backlog=2)
    recorder.record({"reason": "r0"})
    await asyncio.sleep(0.01)  # the poster holds it, waiting for the API
    for i in range(1, 5):
        recorder.record({"reason": f"r{i}"})
    assert recorder.dropped == 2  # two wait in the backlog; the rest were dropped
    kube.release.set()
    await recorder.close()
    assert len(kube.posted) == 3


async def test_failed_posts_are_ignored() -> None:
    kube = SlowKube(fail=True)
    kube.release.set()
    recorder = EventRecorder(kube)
    recorder.record({"reason": "Scheduled"})
    await recorder.flush()
    await recorder.close()
    assert kube.posted == [] and len(recorder) == 0
