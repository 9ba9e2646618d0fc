"""preempt with ``enableTopologyAwarePreemption``: kube-scheduler's victim selection with
reprieve (Volcano ``topologyAwarePreempt``, ``SelectVictimsOnNode``, ``SelectCandidate``).

On each node passing the preemptor's predicates, the plugins' victims are evicted in victim
order until the preemptor fits (queue allocatable, future idle, predicates), then given back
highest-priority first wherever it still fits without them: what is left is the node's minimal
victim set. Nodes are dry-run until ``numCandidates`` of them have a victim set
(``minCandidateNodesPercentage`` of the nodes, at least ``minCandidateNodesAbsolute``, at most
``maxCandidateNodesAbsolute``); the best one (lowest highest victim priority, lowest sum of
priorities, fewest victims, latest start of the highest-priority victims) is evicted and the
preemptor pipelined there.

Volcano starts the scan at a random node and dry-runs nodes in parallel
(``topologyAwarePreemptWorkerNum``), so which candidates it finds first is not deterministic;
Shoal's session is a pure function of its snapshot, so it scans nodes in order from the first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from services.scheduler.actions.victims import Attempt
from services.scheduler.api import TaskInfo
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.statement import Statement
from shared.kube.timefmt import parse_rfc3339

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

ENABLE = "enableTopologyAwarePreemption"
WORKER_NUM = "topologyAwarePreemptWorkerNum"
MIN_PERCENTAGE = "minCandidateNodesPercentage"
MIN_ABSOLUTE = "minCandidateNodesAbsolute"
MAX_ABSOLUTE = "maxCandidateNodesAbsolute"
_PRIORITY_OFFSET = 2**31  # Volcano adds MaxInt32+1 so negative priorities sum sensibly


@dataclass(frozen=True)
class TopologyArgs:
    min_percentage: int = 10
    min_absolute: int = 1
    max_absolute: int = 100

    @classmethod
    def of(cls, args: Arguments) -> TopologyArgs | None:
        """None unless the preempt action's arguments turn topology-aware preemption on."""
        if not args.flag(ENABLE, False):
            return None
        args.integer(WORKER_NUM, 16)  # parallelism only: no effect on the decisions
        return cls(
            min_percentage=args.integer(MIN_PERCENTAGE, cls.min_percentage),
            min_absolute=args.integer(MIN_ABSOLUTE, cls.min_absolute),
            max_absolute=args.integer(MAX_ABSOLUTE, cls.max_absolute),
        )

    def num_candidates(self, nodes: int) -> int:
        """``calculateNumCandidates``."""
        n = max(nodes * self.min_percentage // 100, self.min_absolute)
        return min(n, self.max_absolute, nodes)


def topology_aware_preempt(attempt: Attempt, args: TopologyArgs) -> bool:
    rows = [int(r) for r in np.flatnonzero(attempt.placer.static(attempt.preemptor).passed)]
    if not rows:
        return False
    wanted = args.num_candidates(len(rows))
    candidates: list[tuple[int, list[TaskInfo]]] = []
    for row in rows:
        victims = select_victims_on_node(attempt, row)
        if victims:
            candidates.append((row, victims))
            if len(candidates) >= wanted:
                break
    if not candidates:
        return False
    row, victims = select_candidate(attempt.ssn, candidates)
    node_stmt = Statement(attempt.ssn)
    for victim in victims:
        node_stmt.evict(victim)
    return attempt.pipeline(node_stmt, row)


def select_victims_on_node(attempt: Attempt, row: int) -> list[TaskInfo]:
    """``SelectVictimsOnNode``: a dry run that takes victims off the node (so no predicate
    sees them, as on Volcano's node copy) and puts them all back."""
    ssn = attempt.ssn
    victims = attempt.victims_on(row)
    if not victims:
        return []
    removed: list[TaskInfo] = []
    try:
        for victim in ssn.victim_order(victims, attempt.queue):
            ssn.simulate_remove(victim)
            removed.append(victim)
            if attempt.fits_on(row):
                break
        if not attempt.placer.passes_dynamic(attempt.preemptor, row):
            return []
        chosen: list[TaskInfo] = []
        for victim in list(reversed(removed)):  # reprieve higher-priority victims first
            ssn.simulate_add(victim, row)
            if attempt.fits_on(row):
                removed.remove(victim)
            else:
                ssn.simulate_remove(victim)
                chosen.append(victim)
        return chosen
    finally:
        for victim in reversed(removed):
            ssn.simulate_add(victim, row)


def select_candidate(
    ssn: Session, candidates: Sequence[tuple[int, list[TaskInfo]]]
) -> tuple[int, list[TaskInfo]]:
    """``pickOneNodeForPreemption`` without PDBs: each score keeps the best nodes; the
    first node left wins."""
    now = ssn.now.timestamp()

    def priority(task: TaskInfo) -> int:
        return task.pod.spec.priority or 0

    def highest_start(victims: list[TaskInfo]) -> float:
        top = max(priority(v) for v in victims)
        return min(
            parse_rfc3339(v.pod.status.startTime) or now for v in victims if priority(v) == top
        )

    scores: list[Callable[[list[TaskInfo]], float]] = [
        lambda vs: -priority(vs[0]),
        lambda vs: -sum(priority(v) + _PRIORITY_OFFSET for v in vs),
        lambda vs: -len(vs),
        highest_start,
    ]
    left = list(candidates)
    for score in scores:
        best = max(score(victims) for _, victims in left)
        left = [c for c in left if score(c[1]) == best]
        if len(left) == 1:
            break
    return left[0]
