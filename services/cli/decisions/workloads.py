"""What a side decides of a Kueue scenario, seen from the API server: a LIST then WATCH of the
Workloads in its namespace, each read through its owning Job's name, keeping whether it was
ever admitted (``QuotaReserved``), the cpu flavor of its first admission, each distinct
``Evicted`` and ``Preempted`` (by the condition's transition time) and ``Finished``. A
reservation given or taken back counts as a change (a preemptor waits for its victims' quota).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from services.cli.decisions.kueue import KueueScenario
from services.cli.decisions.outcome import Outcome, WorkloadOutcome
from shared.kube import KubeClient, resource_for
from shared.kube.errors import CALL_ERRORS

Json = dict[str, Any]
WORKLOAD = resource_for("kueue.x-k8s.io/v1beta1", "Workload")


def _true(status: Json, kind: str) -> Json | None:
    for condition in status.get("conditions") or []:
        if condition.get("type") == kind and condition.get("status") == "True":
            return dict(condition)
    return None


class WorkloadRecorder:
    def __init__(self, kube: KubeClient, scenario: KueueScenario) -> None:
        self.kube = kube
        self.scenario = scenario
        self.jobs: dict[str, WorkloadOutcome] = {}
        self.reserved: dict[str, bool] = {}  # job → holds quota now
        self._evictions: dict[str, set[str]] = {}
        self._preemptions: dict[str, set[str]] = {}
        self.changed = time.monotonic()
        self._task: asyncio.Task[None] | None = None
        self._listed = asyncio.Event()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._follow())
        await asyncio.wait_for(self._listed.wait(), 30)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _follow(self) -> None:
        while True:
            try:
                items, version = await self.kube.list_all(WORKLOAD, namespace=self.scenario.name)
                for item in items:
                    self._on_workload(item)
                self._listed.set()
                async for kind, obj in self.kube.watch(
                    WORKLOAD,
                    resource_version=version,
                    timeout_seconds=120,
                    inactivity_timeout=30,
                    namespace=self.scenario.name,
                ):
                    if kind in ("ADDED", "MODIFIED"):
                        self._on_workload(obj)
            except (*CALL_ERRORS, ValueError):
                await asyncio.sleep(0.2)

    def _on_workload(self, workload: Json) -> None:
        owners = (workload.get("metadata") or {}).get("ownerReferences") or []
        job = next((str(o.get("name")) for o in owners if o.get("kind") == "Job"), "")
        if not job:
            return
        seen = self.jobs.setdefault(job, WorkloadOutcome())
        status = workload.get("status") or {}
        before = (*_state(seen), self.reserved.get(job))
        reserved = _true(status, "QuotaReserved") is not None
        self.reserved[job] = reserved
        if reserved and not seen.admitted:
            seen.admitted = True
            seen.flavor = self._flavor(status)
        for kind, store in (("Evicted", self._evictions), ("Preempted", self._preemptions)):
            condition = _true(status, kind)
            if condition is not None:
                store.setdefault(job, set()).add(str(condition.get("lastTransitionTime")))
        seen.evicted = len(self._evictions.get(job, ()))
        seen.preempted = len(self._preemptions.get(job, ()))
        seen.finished = _true(status, "Finished") is not None
        if (*_state(seen), reserved) != before:
            self.changed = time.monotonic()

    def _flavor(self, status: Json) -> str:
        prefix = f"{self.scenario.name}-"
        for assignment in (status.get("admission") or {}).get("podSetAssignments") or []:
            flavor = str((assignment.get("flavors") or {}).get("cpu", ""))
            return flavor.removeprefix(prefix)
        return ""

    def busy(self) -> bool:
        """A Job that is to end holds quota and has not finished."""
        finite = {j.name for j in self.scenario.jobs if j.duration is not None}
        return any(
            self.reserved.get(job) and not seen.finished
            for job, seen in self.jobs.items()
            if job in finite
        )

    def outcome(self, side: str, seconds: float) -> Outcome:
        jobs = {j.name: self.jobs.get(j.name, WorkloadOutcome()) for j in self.scenario.jobs}
        return Outcome(scenario=self.scenario.name, side=side, jobs=jobs, seconds=round(seconds, 2))


def _state(seen: WorkloadOutcome) -> tuple[object, ...]:
    return (seen.admitted, seen.flavor, seen.evicted, seen.preempted, seen.finished)
