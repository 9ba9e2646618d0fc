"""Building the cohort tree from Cohort objects and the ClusterQueues' cohort names.

A cohort named by a ClusterQueue (``cohortName``, v1beta1 ``cohort``) or by a Cohort's
``parentName`` but with no Cohort object exists anyway, with no quota of its own (Kueue's
implicit cohort). Subtree quotas are summed from the leaves up, as Kueue's
``updateCohortResourceNode``. A ClusterQueue whose cohort chain has a cycle is inactive
(Kueue's ``HasCycle``) and left out of the tree; another inactive one keeps its place in the
quota tree but is not a member the cycle or preemption visits (Kueue's snapshot skips it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from services.scheduler.kueue.model import ClusterQueueState, Cohort, Quota, ResourceNode
from services.scheduler.kueue.workloads import FlavorResource
from shared.models.kueue import Cohort as CohortObject

HAS_CYCLE = "the cohort tree has a cycle"

CohortParser = Callable[[CohortObject], tuple[dict[FlavorResource, Quota], float]]
"""A Cohort's quota per flavor/resource and its fairSharing weight."""


def link(
    queues: Sequence[tuple[ClusterQueueState, str | None]],
    objects: Iterable[CohortObject],
    parse: CohortParser,
) -> dict[str, Cohort]:
    """Build the cohorts, attach every queue to its cohort and total the subtree quotas."""
    specs = {o.metadata.name: o for o in objects}
    cohorts: dict[str, Cohort] = {}

    def cohort(name: str) -> Cohort:
        found = cohorts.get(name)
        if found is None:
            spec = specs.get(name)
            quotas, weight = parse(spec) if spec else ({}, 1.0)
            found = cohorts[name] = Cohort(name=name, quotas=quotas, fair_weight=weight)
        return found

    for name in specs:
        cohort(name)
    for _, named in queues:
        if named:
            cohort(named)
    for name, spec in specs.items():
        parent = spec.spec.parentName
        if parent:
            cohort(name).parent = cohort(parent)
    cyclic = {name for name, c in cohorts.items() if _in_cycle(c)}
    for name in cyclic:
        cohorts[name].parent = None
    for c in cohorts.values():
        if c.parent is not None:
            c.parent.child_cohorts.append(c)
    for cq, named in queues:
        if not named:
            continue
        if named in cyclic:
            cq.inactive_reason = HAS_CYCLE
            continue
        cq.parent = cohorts[named]
        cq.parent.members.append(cq)
    for cq, _ in queues:
        if cq.parent is None:
            _sum_subtree(cq)
    for c in cohorts.values():
        if c.parent is None:
            _sum_subtree(c)
    # As Kueue's snapshot: an inactive queue still lends its quota and uses its parent's,
    # but is no member the cycle or preemption looks at.
    for c in cohorts.values():
        c.members = [q for q in c.members if q.inactive_reason is None]
    return cohorts


def _in_cycle(start: Cohort) -> bool:
    """Does following parents from ``start`` lead into a cycle?"""
    seen: set[int] = set()
    node: Cohort | None = start
    while node is not None:
        if id(node) in seen:
            return True
        seen.add(id(node))
        node = node.parent
    return False


def _sum_subtree(node: ResourceNode) -> None:
    node.subtree_quota = {fr: q.nominal for fr, q in node.quotas.items()}
    if not isinstance(node, Cohort):
        return
    children: list[ResourceNode] = [*node.child_cohorts, *node.members]
    for child in children:
        _sum_subtree(child)
        for fr, quota in child.subtree_quota.items():
            lent = quota - child.local_quota(fr)
            node.subtree_quota[fr] = node.subtree_quota.get(fr, 0) + lent
