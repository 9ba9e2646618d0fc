"""A head's nomination: its flavor assignment and preemption targets, before quota is
re-checked against the other heads of its cycle.

A head's verdict is a function of the workload's shape, priority and namespace (and its
timestamp where a preemption policy compares ages), its queue and the snapshot. So it is kept
by that equivalence until the snapshot's usage or the preempting set changes (``forget``):
a BestEffortFIFO queue full of equal workloads assigns flavors and searches preemption
targets once per change, not once per workload, with the same result (Kueue's
SchedulingEquivalenceHashing skips such workloads likewise).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from services.scheduler.api.status import Status
from services.scheduler.kueue.fair_sharing import FairSharing
from services.scheduler.kueue.flavors import Assignment, assign_flavors
from services.scheduler.kueue.model import LOWER_OR_NEWER_EQUAL_PRIORITY, ClusterQueueState
from services.scheduler.kueue.modes import Mode
from services.scheduler.kueue.partial import can_be_partially_admitted, search_counts
from services.scheduler.kueue.preemption import oracle, preemption_targets
from services.scheduler.kueue.queueing import Judged, Verdict, refusal, unschedulable
from services.scheduler.kueue.snapshot import Inputs
from services.scheduler.kueue.workloads import (
    AdmittedWorkload,
    WorkloadInfo,
    requests_over_limits,
)

NAMESPACE_LABEL = "kubernetes.io/metadata.name"
PARTIAL_ADMISSION = "PartialAdmission"


@dataclass
class Entry:
    """A head of a cycle, as nominated."""

    info: WorkloadInfo
    cq: ClusterQueueState
    assignment: Assignment | None = None
    targets: list[AdmittedWorkload] = field(default_factory=list)
    refusal: Status | None = None
    """Why the workload cannot be assigned at all (before quota)."""
    set_aside: bool = False
    """Refused in a way that does not block even a StrictFIFO queue."""

    def verdict(self) -> Verdict:
        return self.assignment, list(self.targets), self.refusal, self.set_aside

    def order(self) -> tuple[int, int, datetime, str]:
        borrows = self.assignment.borrows if self.assignment else 0
        return (borrows, -self.info.priority, self.info.timestamp, self.info.key)


class Nominator:
    """Nominates the heads of one run; ``preempted`` is the run's preempting set (shared)."""

    def __init__(
        self,
        inputs: Inputs,
        *,
        gates: Mapping[str, bool],
        fair_sharing: FairSharing | None,
        preempted: Mapping[str, AdmittedWorkload],
    ) -> None:
        self.inputs = inputs
        self.snapshot = inputs.snapshot
        self.gates = gates
        self.fair_sharing = fair_sharing
        self.preempted = preempted
        self.nominated: dict[tuple[object, ...], Judged] = {}
        self.by_time: dict[str, bool] = {}  # ClusterQueue → whether its policies compare ages

    def forget(self) -> None:
        """The snapshot's usage or the preempting set changed: verdicts may too."""
        self.nominated.clear()

    def nominate(self, info: WorkloadInfo, cq: ClusterQueueState) -> Entry:
        """A head's verdict before quota is re-checked (shared by equivalent heads)."""
        assignment, targets, refused, set_aside = self.judged(info, cq)[0]
        return Entry(info, cq, assignment, list(targets), refused, set_aside)

    def judged(self, info: WorkloadInfo, cq: ClusterQueueState) -> Judged:
        """The head's verdict and its ``refusal``, shared by equivalent heads."""
        key = self._equivalence(info, cq)
        judged = self.nominated.get(key) if key is not None else None
        if judged is None:
            verdict = self._verdict(info, cq)
            judged = (verdict, refusal(verdict))
            if key is not None:
                self.nominated[key] = judged
        return judged

    def shares(self, cq: ClusterQueueState) -> bool:
        """Whether the heads of ``cq`` with equal ``equivalence`` share one verdict (their
        age is no part of it, and fair sharing is off)."""
        return self.fair_sharing is None and not self._by_time(cq)

    def _by_time(self, cq: ClusterQueueState) -> bool:
        by_time = self.by_time.get(cq.name)
        if by_time is None:
            policies = (cq.preemption.within_cluster_queue, cq.preemption.reclaim_within_cohort)
            by_time = self.by_time[cq.name] = LOWER_OR_NEWER_EQUAL_PRIORITY in policies
        return by_time

    def _equivalence(self, info: WorkloadInfo, cq: ClusterQueueState) -> tuple[object, ...] | None:
        if self.fair_sharing is not None:
            return None  # fair preemption weighs the shares: not worth the risk
        return (cq.name, info.timestamp if self._by_time(cq) else None, info.equivalence)

    def _verdict(self, info: WorkloadInfo, cq: ClusterQueueState) -> Verdict:
        entry = Entry(info, cq)
        labels = {**self.inputs.namespace_labels.get(info.namespace, {})}
        labels.setdefault(NAMESPACE_LABEL, info.namespace)
        selector = cq.namespace_selector
        if selector is not None and not selector.matches(labels):
            entry.refusal = unschedulable(
                "NamespaceMismatch", "Workload namespace doesn't match ClusterQueue selector"
            )
            entry.set_aside = True
            return entry.verdict()
        invalid = requests_over_limits(info)
        if invalid:
            entry.refusal = unschedulable("InvalidResources", "; ".join(invalid))
            entry.set_aside = True
            return entry.verdict()
        entry.assignment, entry.targets = self.assign(info, cq)
        return entry.verdict()

    def assign(
        self,
        info: WorkloadInfo,
        cq: ClusterQueueState,
        nomination: Mapping[str, Mapping[str, str]] | None = None,
    ) -> tuple[Assignment, list[AdmittedWorkload]]:
        """Kueue's getInitialAssignments: the full counts, else the largest partial ones."""
        fair = self.fair_sharing
        simulate = oracle(info, cq, self.snapshot, preempting=self.preempted, fair_sharing=fair)

        def attempt(counts: list[int] | None) -> tuple[Assignment, list[AdmittedWorkload]]:
            assignment = assign_flavors(
                info,
                cq,
                self.snapshot.flavors,
                oracle=simulate,
                counts=counts,
                fair_sharing=fair is not None,
                nomination=nomination,
            )
            targets: list[AdmittedWorkload] = []
            if assignment.mode == Mode.PREEMPT:
                targets = preemption_targets(
                    info,
                    assignment,
                    cq,
                    self.snapshot,
                    preempting=self.preempted,
                    fair_sharing=fair,
                )
            return assignment, targets

        full, targets = attempt(None)
        if full.mode == Mode.FIT or targets:
            return full, targets
        counts = [ps.count for ps in info.podsets]
        minimums = [ps.min_count for ps in info.podsets]
        if self.gates[PARTIAL_ADMISSION] and can_be_partially_admitted(counts, minimums):
            found = search_counts(counts, minimums, lambda c: _usable(attempt(c)))
            if found is not None:
                return found
        return full, []


def _usable(
    attempt: tuple[Assignment, list[AdmittedWorkload]],
) -> tuple[Assignment, list[AdmittedWorkload]] | None:
    """An assignment that fits, or preempts with targets: partial admission accepts it."""
    assignment, targets = attempt
    return attempt if assignment.mode == Mode.FIT or targets else None
