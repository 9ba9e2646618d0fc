"""Which Kueue statuses a cycle publishes, and in what order.

The admission core says what every Workload, ClusterQueue and LocalQueue status should be now.
Each published status is a write through the binder to the API server, and comes back as a
watch event for every service; with thousands of workloads waiting, most of those writes
changed only an explanation, and they queued in front of the admissions in the binder. So:

- admissions and preemptions go first (the binder writes a cycle's decisions in order, and
  a job waits for them), then the queue counters, then waiting Workloads;
- which waiting Workloads get a new explanation is the admission core's answer, Kueue's: the
  heads a cycle evaluated (``workload_statuses``), not every workload whose explanation
  would read differently now;
- a queue whose counters alone change is rewritten at most every ``counter_refresh``
  seconds (Kueue's queue reconcilers coalesce the workload events of a burst the same way,
  ``constants.UpdatesBatchPeriod``); its ``Active`` condition goes out at once;
- at most ``max_waiting`` waiting Workloads per second, those never explained first, then the
  longest unrefreshed: with 10,000 arriving at once, their first explanations alone would
  fill the binder (the scheduler caps PodScheduled conditions per cycle for the same
  reason). The cap is a rate (a budget refilled with time, at most a second's worth), not
  per cycle: faster cycles must not mean more writes.

Whatever is held back is decided again by the next cycle, so the last word is always written.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from heapq import merge
from typing import Any

from services.scheduler.kueue.status import KueueObjects, StatusUpdate
from services.scheduler.kueue.workloads import WorkloadInfo
from shared.kube.conditions import same_ignoring_time

Json = dict[str, Any]
Build = Callable[[WorkloadInfo], StatusUpdate | None]


class StatusPacing:
    def __init__(
        self,
        *,
        counter_refresh: float = 0.0,
        max_waiting: int | None = None,
    ) -> None:
        self.counter_refresh = counter_refresh
        self.max_waiting = max_waiting
        self._budget = float(max_waiting or 0)  # waiting Workloads that may go out now
        self._refilled: float | None = None  # when the budget was last refilled
        self._queue_slots: set[tuple[str, str]] = set()  # the queues' slots in ``published``
        # (kind, key) → when a status of it that may be held back was last published.
        self.published: dict[tuple[str, str], float] = {}

    def select(
        self,
        updates: Sequence[StatusUpdate],
        objects: KueueObjects,
        workloads: Collection[str],
        decided: Collection[str],
        now: float,
        *,
        deferred: Sequence[WorkloadInfo] = (),
        build: Build | None = None,
        gone: Collection[str] | None = None,
    ) -> list[StatusUpdate]:
        """The updates to publish now, most urgent first; ``workloads``: the run's Workload
        keys; ``decided``: those it admitted or preempted; ``deferred``: waiting workloads
        whose explanation is to be written, not built yet (``build`` makes the update of
        one, None if nothing changes): only those that fit under the cap are built; ``gone``: the
        Workload keys the last run had and this one has not, when the caller knows them
        (else every published slot is looked up in ``workloads``)."""
        queues: dict[tuple[str, str], Json] = {
            ("ClusterQueue", q.metadata.name): q.status for q in objects.cluster_queues
        }
        for lq in objects.local_queues:
            key = f"{lq.metadata.namespace or 'default'}/{lq.metadata.name}"
            queues[("LocalQueue", key)] = lq.status
        for cohort in objects.cohorts:
            queues[("Cohort", cohort.metadata.name)] = cohort.status
        self._forget(workloads, queues, gone)
        urgent: list[StatusUpdate] = []
        counters: list[StatusUpdate] = []
        waiting: list[StatusUpdate] = []
        for update in updates:
            slot = (update.kind, update.key)
            if update.kind != "Workload":
                current = queues.get(slot)
                if current is None or not (
                    self._recent(slot, self.counter_refresh, now)
                    and same_ignoring_time(
                        current.get("conditions") or [], update.status.get("conditions") or []
                    )
                ):
                    counters.append(update)
                    self.published[slot] = now
                    self._queue_slots.add(slot)
            elif update.key in decided:
                urgent.append(update)
            else:
                waiting.append(update)
        waiting = self._capped(waiting, deferred, build, now)
        self._budget -= len(waiting)
        for update in waiting:
            self.published[(update.kind, update.key)] = now
        return [*urgent, *counters, *waiting]

    def _forget(
        self,
        workloads: Collection[str],
        queues: Mapping[tuple[str, str], Json],
        gone: Collection[str] | None,
    ) -> None:
        """Forget what is gone (or finished). Every Workload slot kept is one the last run
        had, so with ``gone`` only those need looking at."""
        if gone is None:
            self.published = {
                (kind, key): at
                for (kind, key), at in self.published.items()
                if key in workloads or (kind, key) in queues
            }
            return
        for key in gone:
            self.published.pop(("Workload", key), None)
        for slot in [s for s in self._queue_slots if s not in queues and s[1] not in workloads]:
            self._queue_slots.discard(slot)
            self.published.pop(slot, None)

    def _capped(
        self,
        waiting: list[StatusUpdate],
        deferred: Sequence[WorkloadInfo],
        build: Build | None,
        now: float,
    ) -> list[StatusUpdate]:
        """The waiting updates under the cap, those never published first, then the longest
        unrefreshed, in key order; a deferred one is built only when its turn comes."""
        allowed = self._allowance(now)
        built: list[StatusUpdate | WorkloadInfo] = list(waiting)
        later: list[StatusUpdate | WorkloadInfo] = sorted(deferred, key=_key)
        candidates = list(merge(built, later, key=_key))
        if allowed is not None and len(candidates) > allowed:
            candidates.sort(key=lambda c: self.published.get(("Workload", c.key), -1.0))
        out: list[StatusUpdate] = []
        for candidate in candidates:
            if allowed is not None and len(out) >= allowed:
                break
            if isinstance(candidate, StatusUpdate):
                update: StatusUpdate | None = candidate
            else:
                assert build is not None  # deferred ones come with how to build them
                update = build(candidate)
            if update is not None:
                out.append(update)
        return sorted(out, key=_key) if allowed is not None else out

    def _allowance(self, now: float) -> int | None:
        """How many waiting Workloads may go out now (None: no cap)."""
        rate = self.max_waiting
        if rate is None:
            return None
        if self._refilled is not None:
            self._budget = min(rate, self._budget + rate * max(0.0, now - self._refilled))
        self._refilled = now
        return max(0, int(self._budget))

    def _recent(self, slot: tuple[str, str], period: float, now: float) -> bool:
        last = self.published.get(slot)
        return last is not None and now - last < period


def _key(item: StatusUpdate | WorkloadInfo) -> str:
    return item.key
