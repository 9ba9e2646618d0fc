"""Executing scheduler decisions against the API server, idempotently.

- Bind: POST pods/binding. A 409 means the pod already has a node: the same node is success (a
  retried or duplicated decision), another node is a failure reported with ``bound_to``.
  404 means the pod is gone. Transient failures (5xx, 429, connection) raise ``RetryLater`` so
  the bus retries the batch with back-off; a retried bind is harmless for the reasons above.
- Evict: POST pods/eviction; a pod that is already gone counts as evicted.
- PodGroup status: merge-patch ``status`` of the PodGroup itself (Volcano's CRD has no status
  subresource; Volcano's scheduler updates the whole object too); an Unschedulable condition
  also becomes a Warning Event on the PodGroup so ``kubectl describe`` answers "why is my job
  pending".
- Pod unschedulable: strategic-merge-patch the pod's ``PodScheduled=False`` condition and post
  a ``FailedScheduling`` Warning Event, as Volcano's ``taskUnschedulable``.
- Warning: an Event on the object the scheduler refused or left out (its conf, a Node).
- A decision whose epoch the ``EpochFence`` refuses (unknown to the leader log, or older than the
  newest accepted) is dropped, logged with its epoch and reported (``fencing``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import structlog

from services.binder import kueue
from services.binder.fencing import EpochFence
from shared.bus import RetryLater
from shared.events import (
    Envelope,
    KueueStatusDecided,
    PodBindDecided,
    PodBindFailed,
    PodBound,
    PodEvictDecided,
    PodEvicted,
    PodEvictFailed,
    PodGroupStatusDecided,
    PodUnschedulableDecided,
    WarningDecided,
)
from shared.hops import (
    BIND_CALL,
    BINDER_STATUS_PATCH,
    ENTERED_TO_BOUND,
    KUEUE_STATUS_PATCH,
    HopMetrics,
)
from shared.kube import ApiError, KubeClient
from shared.kube.errors import CALL_ERRORS, TRANSIENT_STATUS, is_transient
from shared.kube.events import event_manifest
from shared.kube.keys import split_key
from shared.kube.recording import EventRecorder
from shared.kube.resources import POD, PODGROUP
from shared.kube.timefmt import format_rfc3339

COMPONENT = "shoal-binder"
_log = structlog.get_logger()


class Executor:
    """Runs decisions; returns the result events to publish."""

    def __init__(
        self,
        kube: KubeClient,
        *,
        producer: str,
        fence: EpochFence,
        post_events: bool = True,
        hops: HopMetrics | None = None,
    ) -> None:
        self._kube = kube
        self._producer = producer
        self._post_events = post_events
        self._hops = hops
        self.fence = fence
        self.events = EventRecorder(kube)

    async def close(self) -> None:
        """Post the Events still queued (briefly) and stop the posters."""
        await self.events.close()

    async def execute(self, decision: Envelope) -> Envelope | None:
        dropped = self.fence.admit(decision)
        if dropped is not None:
            _log.warning(
                "decision dropped",
                decision=type(decision).__name__,
                key=decision.key,
                epoch=decision.epoch,
                newest_epoch=dropped.newest_epoch,
                reason=dropped.reason,
                producer=decision.producer,
            )
            return dropped
        try:
            if isinstance(decision, PodBindDecided):
                result = await self._bind(decision)
                self._timed(decision, BIND_CALL, ENTERED_TO_BOUND)
                return result
            if isinstance(decision, PodEvictDecided):
                return await self._evict(decision)
            if isinstance(decision, PodGroupStatusDecided):
                await self._podgroup_status(decision)
                self._timed(decision, BINDER_STATUS_PATCH)
                return None
            if isinstance(decision, PodUnschedulableDecided):
                await self._pod_unschedulable(decision)
                return None
            if isinstance(decision, WarningDecided):
                if self._post_events:
                    await self._event(
                        involved=decision.involved,
                        reason=decision.reason,
                        type_="Warning",
                        message=decision.message,
                    )
                return None
            if isinstance(decision, KueueStatusDecided):
                await kueue.write_status(self._kube, decision, self._normal_event)
                self._timed(decision, KUEUE_STATUS_PATCH)
                return None
        except CALL_ERRORS as exc:
            if is_transient(exc):
                raise RetryLater(str(exc)) from exc
            raise
        raise TypeError(f"not a decision: {type(decision).__name__}")

    def _timed(self, d: Envelope, hop: str, entered_hop: str = "") -> None:
        """``hop`` began when the scheduler decided; ``entered_hop`` when the watcher saw the
        object the decision is about."""
        if self._hops is None:
            return
        now = time.time()
        self._hops.observe(hop, d.occurred_at, now)
        if entered_hop:
            self._hops.observe(entered_hop, d.entered_at, now)

    async def _bind(self, d: PodBindDecided) -> Envelope:
        namespace, name = split_key(d.key)
        common: dict[str, Any] = {
            "key": d.key,
            "pod_uid": d.pod_uid,
            "node": d.node,
            "decision_id": d.id,
            "epoch": d.epoch,
            "producer": self._producer,
            "entered_at": d.entered_at,
        }
        try:
            await self._kube.bind(namespace, name, d.node, uid=d.pod_uid or None)
        except ApiError as exc:
            if exc.status == 404:
                return PodBindFailed(reason="NotFound", message=exc.message, **common)
            if exc.status != 409:
                if exc.status in TRANSIENT_STATUS:
                    raise
                return PodBindFailed(
                    reason=exc.reason or str(exc.status), message=exc.message, **common
                )
            current = await self._current_node(namespace, name, d.pod_uid)
            if current != d.node:
                return PodBindFailed(
                    reason="AlreadyBound" if current else "Conflict",
                    message=exc.message,
                    bound_to=current or "",
                    **common,
                )
        if self._post_events:
            await self._event(
                involved={"kind": "Pod", "namespace": namespace, "name": name, "uid": d.pod_uid},
                reason="Scheduled",
                type_="Normal",
                message=f"Successfully assigned {d.key} to {d.node}",
            )
        return PodBound(**common)

    async def _current_node(self, namespace: str, name: str, uid: str) -> str | None:
        try:
            pod = await self._kube.get(POD, name, namespace)
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise
        if uid and pod.get("metadata", {}).get("uid") != uid:
            return None
        node = pod.get("spec", {}).get("nodeName")
        return str(node) if node else None

    async def _evict(self, d: PodEvictDecided) -> Envelope:
        namespace, name = split_key(d.key)
        common: dict[str, Any] = {
            "key": d.key,
            "pod_uid": d.pod_uid,
            "decision_id": d.id,
            "epoch": d.epoch,
            "producer": self._producer,
        }
        try:
            await self._kube.evict(namespace, name, uid=d.pod_uid or None)
        except ApiError as exc:
            if exc.status != 404:
                if exc.status in TRANSIENT_STATUS and exc.status != 429:
                    raise
                return PodEvictFailed(
                    reason=exc.reason or str(exc.status), message=exc.message, **common
                )
        if self._post_events:
            await self._event(
                involved={"kind": "Pod", "namespace": namespace, "name": name, "uid": d.pod_uid},
                reason="Evict",
                type_="Warning",
                message=d.message or f"Evicted: {d.reason}",
            )
        return PodEvicted(**common)

    async def _podgroup_status(self, d: PodGroupStatusDecided) -> None:
        namespace, name = split_key(d.key)
        # Zero counters are removed (null), as Volcano's omitempty status shows them.
        counters = {"running": d.running, "succeeded": d.succeeded, "failed": d.failed}
        status: dict[str, Any] = {"phase": d.phase, "conditions": d.conditions}
        status |= {k: v or None for k, v in counters.items()}
        patch = {"status": status}
        try:
            await self._kube.patch(PODGROUP, name, patch, namespace=namespace)
        except ApiError as exc:
            if exc.status == 404:
                return  # the job and its PodGroup are gone; nothing to report on
            raise
        if not self._post_events:
            return
        for condition in d.conditions:
            if condition.get("type") == "Unschedulable" and condition.get("status") == "True":
                await self._event(
                    involved={
                        "kind": "PodGroup",
                        "namespace": namespace,
                        "name": name,
                        "uid": d.uid,
                        "apiVersion": "scheduling.volcano.sh/v1beta1",
                    },
                    reason="Unschedulable",  # Volcano: the condition type, not its reason
                    type_="Warning",
                    message=str(condition.get("message") or ""),
                )

    async def _pod_unschedulable(self, d: PodUnschedulableDecided) -> None:
        namespace, name = split_key(d.key)
        condition = {
            "type": "PodScheduled",
            "status": "False",
            "reason": d.reason,
            "message": d.message,
            "lastProbeTime": None,
            "lastTransitionTime": format_rfc3339(time.time()),
        }
        patch = {"metadata": {"uid": d.pod_uid}, "status": {"conditions": [condition]}}
        try:
            await self._kube.patch(
                POD, name, patch, namespace=namespace, subresource="status", patch_type="strategic"
            )
        except ApiError as exc:
            if exc.status in (404, 409):
                return  # gone, or replaced by a pod of the same name: nothing to explain
            raise
        if self._post_events:
            # Volcano's reason for the Event; the condition's reason is Unschedulable.
            await self._event(
                involved={"kind": "Pod", "namespace": namespace, "name": name, "uid": d.pod_uid},
                reason="FailedScheduling",
                type_="Warning",
                message=d.message,
            )

    async def _normal_event(self, involved: dict[str, str], reason: str, message: str) -> None:
        if self._post_events:
            await self._event(involved=involved, reason=reason, type_="Normal", message=message)

    async def _event(
        self, *, involved: dict[str, str], reason: str, type_: str, message: str
    ) -> None:
        event = event_manifest(
            involved,
            type_=type_,
            reason=reason,
            message=message,
            component=COMPONENT,
            now=time.time(),
        )
        # Events are best effort and posted in the background, as kube-scheduler's
        # broadcaster does: a bind never waits for the Event that reports it; repeats patch
        # one Event (the correlator).
        self.events.record(event)


def superseded(decisions: list[Envelope]) -> set[int]:
    """Indexes of status decisions a later one of the same leader replaces in the batch.
    Each carries the whole status, so only the last one needs writing; when the binder lags,
    a gang's intermediate conditions ("3 valid, 10 minAvailable", then "7 valid, ...") or a
    pending Workload's changing "N more needed" pile up in one batch. A Kueue status is
    written guarded by the resourceVersion it was computed from, so of two for one object
    the earlier would make the later fail (or fail itself): the later, computed on the
    earlier, is the one to write — unless the earlier posts an Event (an admission, a
    preemption), which is kept. Decisions of different epochs are all kept: the fence may
    refuse the later one."""
    last: dict[tuple[str, str, int], int] = {}
    skipped: set[int] = set()
    for index, decision in enumerate(decisions):
        if isinstance(decision, PodGroupStatusDecided):
            slot = ("PodGroup", decision.key, decision.epoch)
        elif isinstance(decision, KueueStatusDecided):
            slot = (decision.kind, decision.key, decision.epoch)
        else:
            continue
        previous = last.get(slot)
        if previous is not None and not _eventful(decisions[previous]):
            skipped.add(previous)
        last[slot] = index
    return skipped


def _eventful(decision: Envelope) -> bool:
    return isinstance(decision, KueueStatusDecided) and bool(kueue.events(decision))


async def _with_retries(executor: Executor, decision: Envelope, attempts: int) -> Envelope | None:
    """Retry one decision's transient failures itself (capped back-off), so one flaky call does
    not send the whole batch — and every other pod on the partition — back to the start."""
    delay = 0.05
    for attempt in range(1, attempts + 1):
        try:
            return await executor.execute(decision)
        except RetryLater:
            if attempt == attempts:
                raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)
    return None


async def execute_all(
    executor: Executor, decisions: list[Envelope], concurrency: int, attempts: int = 5
) -> list[Envelope]:
    """Run decisions concurrently across keys, in order within a key; results in input order."""
    by_key: dict[str, list[int]] = {}
    for index, decision in enumerate(decisions):
        by_key.setdefault(decision.key, []).append(index)
    results: list[Envelope | None] = [None] * len(decisions)
    gate = asyncio.Semaphore(concurrency)

    async def run_key(indexes: list[int]) -> None:
        async with gate:
            for index in indexes:
                results[index] = await _with_retries(executor, decisions[index], attempts)

    try:
        async with asyncio.TaskGroup() as group:
            for indexes in by_key.values():
                group.create_task(run_key(indexes))
    except ExceptionGroup as failed:
        errors: list[BaseException] = list(failed.exceptions)
        retry = [e for e in errors if isinstance(e, RetryLater)]
        raise (retry or errors)[0] from None
    return [r for r in results if r is not None]
