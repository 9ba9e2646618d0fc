"""The admission cycle: Kueue's scheduler loop run until every queue has had its say.

Each ClusterQueue orders its pending workloads by priority, then queue timestamp. A Kueue
cycle takes the head of every queue, assigns flavors (and preemption targets; when neither
fits nor preempts, partial admission tries fewer pods), orders the heads (the lowest
borrowing level first, then priority, then timestamp; with fair sharing, the fair-sharing
tournament) and admits them in turn, re-checking quota because earlier heads of the cycle
used some. ``admit`` repeats cycles on the same snapshot until no queue has a head left to
try, which is where Kueue settles when nothing else changes:

- a head that does not fit blocks a StrictFIFO queue; a BestEffortFIFO queue sets it aside
  and tries the next one (a namespace mismatch is set aside under both, as in Kueue);
- a head that needs preemption marks its targets ``preempted``, reserves its quota and stays
  the head, pending until the targets are gone (a later run), so its queue waits too;
- a head that no longer fits because of an earlier head of the same cycle is retried in the
  next cycle; one whose targets overlap an earlier head's is assigned again as if those were
  gone (and then waits for them when it fits).

Cohort trees share no quota, so each tree settles on its own (``cycles`` counts the longest),
and the cycles in which every head would be refused without changing anything are run in one
go (``queueing``): the same verdicts, without a cycle per waiting workload. A head's
nomination (flavors, targets, shared by equivalent heads) is ``nomination``'s. The first head
of each queue that a run evaluated and did not admit is in ``heads``: Kueue's scheduler writes
a new explanation only for a head it evaluated.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from itertools import groupby

from services.scheduler.api.status import Status
from services.scheduler.kueue.fair_sharing import FairSharing, Nominee, fairest
from services.scheduler.kueue.flavors import Assignment
from services.scheduler.kueue.model import (
    ANY,
    STRICT_FIFO,
    ClusterQueueState,
    Snapshot,
)
from services.scheduler.kueue.modes import Mode
from services.scheduler.kueue.nomination import PARTIAL_ADMISSION, Entry, Nominator
from services.scheduler.kueue.queue_manager import Changes, QueueManager
from services.scheduler.kueue.queueing import (
    Judged,
    Queue,
    quiet_cycles,
    refusal,
    tree_of,
    unschedulable,
)
from services.scheduler.kueue.result import AdmissionResult, Admitted, PodSetFlavors
from services.scheduler.kueue.snapshot import Inputs, build
from services.scheduler.kueue.workloads import (
    AdmittedWorkload,
    Usage,
)
from shared.models import Model

PLUGIN = "scheduler"
RECOMPUTE_ON_OVERLAP = "RecomputeAssignmentUponPreemptionTargetsOverlap"
GATES: Mapping[str, bool] = {PARTIAL_ADMISSION: True, RECOMPUTE_ON_OVERLAP: True}
"""The Kueue feature gates the cycle honours, with upstream's defaults (pkg/features)."""


def admit(
    objects: Sequence[Model],
    now: datetime,
    *,
    source: str = "input",
    max_cycles: int | None = None,
    gates: Mapping[str, bool] | None = None,
    fair_sharing: FairSharing | None = None,
    kept: QueueManager | None = None,
    changes: Changes | None = None,
) -> AdmissionResult:
    """Admit what fits among the Workloads in ``objects``; ``now`` dates new admissions.

    ``max_cycles`` stops after that many scheduling cycles (Kueue's ``schedule()`` is one);
    ``gates`` sets Kueue feature gates by name (those in ``GATES``, defaults as upstream;
    others are ignored); ``fair_sharing`` is Kueue's Configuration ``fairSharing`` (off
    when None); ``kept`` keeps workloads and queues between runs (the caller's), and
    ``changes`` is the caller's word of which Workloads changed since its last run.
    """
    inputs = build(objects, now=now, source=source, kept=kept, changes=changes)
    enabled = {**GATES, **{k: v for k, v in (gates or {}).items() if k in GATES}}
    return _Run(inputs, now, gates=enabled, fair_sharing=fair_sharing).run(max_cycles)


class _Run:
    def __init__(
        self,
        inputs: Inputs,
        now: datetime,
        *,
        gates: Mapping[str, bool],
        fair_sharing: FairSharing | None,
    ) -> None:
        self.inputs = inputs
        self.gates = gates
        self.fair_sharing = fair_sharing
        self.snapshot: Snapshot = inputs.snapshot
        self.now = now
        self.result = AdmissionResult(
            pending=dict(inputs.unqueued),
            snapshot=inputs.snapshot,
            workloads=inputs.workloads,
            admissible=inputs.admissible,
        )
        self.preempted: dict[str, AdmittedWorkload] = {}
        self.heads_of: set[str] = set()  # ClusterQueues whose evaluated head waits
        self.queues: list[Queue] = []
        self.reserved_in_cycle = False
        self.reserved_for_cycle: list[tuple[ClusterQueueState, Usage]] = []
        self.nominator = Nominator(
            inputs, gates=gates, fair_sharing=fair_sharing, preempted=self.preempted
        )
        # Queues by cohort tree: trees share no quota, so each settles on its own.
        self.trees: dict[str, list[Queue]] = {}
        for name in sorted(inputs.queued):
            cq = self.snapshot.cluster_queues[name]
            queue = Queue(cq, inputs.queued[name])
            self.queues.append(queue)
            self.trees.setdefault(tree_of(cq), []).append(queue)

    def run(self, max_cycles: int | None = None) -> AdmissionResult:
        for queue in self.queues:
            if queue.cq.inactive_reason is not None:
                why = unschedulable(
                    "ClusterQueueInactive",
                    f"ClusterQueue {queue.cq.name} is inactive: {queue.cq.inactive_reason}",
                )
                self.result.pending.update((w.key, why) for w in queue.workloads)
                queue.position = len(queue.workloads)
        for tree in sorted(self.trees):
            self.nominator.forget()  # verdicts hold within a tree: no other tree moves them
            cycles = self._settle(self.trees[tree], max_cycles)
            self.result.cycles = max(self.result.cycles, cycles)
        self._explain_the_rest()
        return self.result

    def _settle(self, queues: list[Queue], max_cycles: int | None) -> int:
        """Kueue cycles over the queues of one cohort tree until none has a head left (or
        ``max_cycles``); returns how many ran."""
        cycles = 0
        while True:
            heads = [(q, w) for q in queues if (w := q.head()) is not None]
            if not heads or (max_cycles is not None and cycles >= max_cycles):
                return cycles
            limit = None if max_cycles is None else max_cycles - cycles
            if self.fair_sharing is None:  # (verdicts are not kept under fair sharing)
                queued = [q for q, _ in heads]
                quiet, runs = quiet_cycles(
                    queued, self.nominator.judged, limit, self.nominator.shares
                )
                if quiet:
                    for queue, run in zip(queued, runs, strict=True):
                        self._pass(queue, run[:quiet])
                    cycles += quiet
                    continue
            cycles += 1
            entries = sorted((self.nominator.nominate(w, q.cq) for q, w in heads), key=Entry.order)
            by_cq = {q.cq.name: q for q, _ in heads}
            self.reserved_in_cycle = False
            for entry in self._in_order(entries):
                self._process(entry, by_cq[entry.cq.name])
            for cq, reserved in self.reserved_for_cycle:
                cq.remove_usage(reserved)
                self._changed()
            self.reserved_for_cycle.clear()

    def _in_order(self, entries: list[Entry]) -> Iterator[Entry]:
        """Kueue's entry iterator: classical order, or the fair-sharing tournament (run
        again before each entry, as admissions change the shares)."""
        if self.fair_sharing is None:
            yield from entries
            return
        remaining = [
            Nominee(
                entry=e,
                key=e.info.key,
                queue=e.cq,
                usage=e.assignment.usage if e.assignment else {},
                priority=e.info.priority,
                timestamp=e.info.timestamp,
            )
            for e in entries
        ]
        while remaining:
            chosen = fairest(remaining, first=lambda nominees: nominees[0])
            remaining.remove(chosen)
            yield chosen.entry

    def _changed(self) -> None:
        self.nominator.forget()

    def _pass(self, queue: Queue, heads: list[Judged]) -> None:
        """Refuse the next ``heads`` of ``queue``, as the quiet cycles would (``_refuse``
        for each, written out: this runs for every waiting workload in every run, so each
        run of heads sharing one judgement is written at once)."""
        pending, no_fit = self.result.pending, self.result.no_fit
        strict = queue.cq.strategy == STRICT_FIFO
        workloads = queue.workloads
        for _, group in groupby(heads, key=id):
            alike = list(group)
            verdict, why = alike[0]
            assert why is not None  # quiet_cycles saw it
            blocks = strict and not verdict[3]  # only its first: the StrictFIFO queue stops
            count = 1 if blocks else len(alike)
            keys = [w.key for w in workloads[queue.position : queue.position + count]]
            assignment = verdict[0]
            if (
                assignment is not None
                and assignment.mode == Mode.NO_FIT
                and assignment.no_fit_reason
            ):
                no_fit.update(dict.fromkeys(keys, assignment.no_fit_reason))
            elif no_fit:
                for key in keys:
                    no_fit.pop(key, None)
            pending.update(dict.fromkeys(keys, why))
            if keys:
                self._evaluated(queue, keys[0])
            if blocks:
                queue.blocked_by = why
                return  # a quiet run ends at the head that blocks its StrictFIFO queue
            queue.position += count

    def _refuse(
        self,
        queue: Queue,
        key: str,
        assignment: Assignment | None,
        set_aside: bool,
        why: Status,
    ) -> None:
        """Record why ``key`` waits; its queue moves on, or a StrictFIFO one stops there."""
        if assignment is not None and assignment.mode == Mode.NO_FIT and assignment.no_fit_reason:
            self.result.no_fit[key] = assignment.no_fit_reason
        self.result.pending[key] = why
        self._evaluated(queue, key)
        if queue.cq.strategy == STRICT_FIFO and not set_aside:
            queue.blocked_by = why
        else:
            queue.position += 1

    def _evaluated(self, queue: Queue, key: str) -> None:
        """A Kueue cycle evaluated ``key`` at the head of ``queue`` and did not admit it: the
        first of each queue is ``result.heads``' (the one whose explanation is written)."""
        if queue.cq.name not in self.heads_of:
            self.heads_of.add(queue.cq.name)
            self.result.heads.add(key)

    def _process(self, entry: Entry, queue: Queue) -> None:
        key, assignment = entry.info.key, entry.assignment
        self.result.no_fit.pop(key, None)
        why = refusal((assignment, entry.targets, entry.refusal, entry.set_aside))
        if why is not None:
            if assignment is not None and assignment.mode == Mode.PREEMPT:
                self._reserve_unreclaimable(entry.cq, assignment)
            self._refuse(queue, key, assignment, entry.set_aside, why)
            return
        assert assignment is not None  # else refused
        if self.gates[RECOMPUTE_ON_OVERLAP] and self._overlaps(entry):
            # Kueue's RecomputeAssignmentUponPreemptionTargetsOverlap: assign again as if the
            # workloads being preempted were gone.
            nomination = {
                ps.name: {r: c.flavor for r, c in ps.flavors.items()} for ps in assignment.podsets
            }
            with self.snapshot.without(self.preempted.values()):
                entry.assignment, entry.targets = self.nominator.assign(
                    entry.info, entry.cq, nomination
                )
            assignment = entry.assignment
            if assignment.mode == Mode.FIT:  # DeferredFit: fits once the preemptions end
                entry.cq.add_usage(assignment.usage)
                self._changed()
                queue.blocked_by = self.result.pending[key] = unschedulable(
                    "PendingPreemption",
                    "Workload has overlapping preemption targets with another workload, but "
                    "will fit after these preemptions complete",
                )
                self._evaluated(queue, key)
                return
        if self._overlaps(entry):
            self.result.pending[key] = unschedulable(
                "SkippedInCycle",
                "Workload has overlapping preemption targets with another workload",
            )
            self._evaluated(queue, key)
            return
        with self.snapshot.without([*self.preempted.values(), *entry.targets]):
            fits = entry.cq.fits(assignment.usage)
        if not fits:
            why = unschedulable(
                "SkippedInCycle", "Workload no longer fits after processing another workload"
            )
            if self.reserved_in_cycle:
                self.result.pending[key] = why  # retried in the next cycle
                self._evaluated(queue, key)
            else:
                # Nothing else in the tree changed: retrying would loop.
                self._refuse(queue, key, None, entry.set_aside, why)
            return
        self.reserved_in_cycle = True
        self._changed()
        for target in entry.targets:
            self.preempted[target.info.key] = target
            self.result.preempted.setdefault(target.info.key, key)
        if assignment.mode == Mode.PREEMPT:
            entry.cq.add_usage(assignment.usage)
            queue.blocked_by = self.result.pending[key] = unschedulable(
                "PendingPreemption",
                f"{assignment.status().message}. Pending the preemption of "
                f"{len(entry.targets)} workload(s)",
            )
            self._evaluated(queue, key)
            return
        self._admit(entry, assignment)
        queue.position += 1

    def _reserve_unreclaimable(self, cq: ClusterQueueState, assignment: Assignment) -> None:
        """Kueue's reserveCapacityForUnreclaimablePreempt, for a head that must preempt and
        has nothing to preempt: a queue that cannot always reclaim what it lends holds its
        share, so others cannot take it meanwhile. Only for this cycle: the next one starts
        from a fresh snapshot in Kueue."""
        if cq.preemption.reclaim_within_cohort == ANY:
            return
        reserved = quota_to_reserve(cq, assignment)
        cq.add_usage(reserved)
        self._changed()
        self.reserved_for_cycle.append((cq, reserved))

    def _overlaps(self, entry: Entry) -> bool:
        return any(t.info.key in self.preempted for t in entry.targets)

    def _admit(self, entry: Entry, assignment: Assignment) -> None:
        key = entry.info.key
        self.result.pending.pop(key, None)
        self.result.no_fit.pop(key, None)
        podsets = {
            ps.name: PodSetFlavors(ps.count, {r: c.flavor for r, c in ps.flavors.items()})
            for ps in assignment.podsets
        }
        self.result.admitted[key] = Admitted(entry.cq.name, podsets)
        if self.result.admissible is not None:
            self.result.admissible[entry.info.local_queue] -= 1
        self.snapshot.add_workload(
            AdmittedWorkload(
                info=entry.info,
                cluster_queue=entry.cq.name,
                flavors={name: ps.flavors for name, ps in podsets.items()},
                counts={name: ps.count for name, ps in podsets.items()},
                usage=assignment.usage,
                admitted_at=self.now,
            )
        )

    def _explain_the_rest(self) -> None:
        """Workloads never tried wait behind their queue's blocked head."""
        for queue in self.queues:
            if queue.blocked_by is None or queue.position >= len(queue.workloads):
                continue
            head = queue.workloads[queue.position]
            for info in queue.workloads[queue.position + 1 :]:
                self.result.pending[info.key] = unschedulable(
                    "WaitingForHead",
                    f"waiting behind {head.key} at the head of StrictFIFO ClusterQueue "
                    f"{queue.cq.name} ({queue.blocked_by.reason})"
                    if queue.cq.strategy == STRICT_FIFO
                    else f"waiting behind {head.key}, which is preempting in ClusterQueue "
                    f"{queue.cq.name}",
                )


def quota_to_reserve(cq: ClusterQueueState, assignment: Assignment) -> Usage:
    """Kueue's quotaResourcesToReserve: what a head holds for the rest of the cycle — its
    usage, or, when it must preempt, what its own quota (and borrowing limit, when it
    borrows) leaves of it."""
    if assignment.mode != Mode.PREEMPT:
        return dict(assignment.usage)
    reserved: Usage = {}
    for fr, amount in assignment.usage.items():
        quota, used = cq.quota(fr), cq.usage.get(fr, 0)
        if assignment.borrows:
            limit = quota.borrowing_limit
            reserved[fr] = amount if limit is None else min(amount, quota.nominal + limit - used)
        else:
            reserved[fr] = max(0, min(amount, quota.nominal - used))
    return reserved
