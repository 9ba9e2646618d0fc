"""nodegroup (Volcano ``pkg/scheduler/plugins/nodegroup``): binds queues to node groups.

Nodes are grouped by their ``volcano.sh/nodegroup-name`` label. A Queue's ``spec.affinity``
names the groups its tasks may use (``nodeGroupAffinity`` required or preferred, unless
anti-required; an anti-preferred group stays usable) and how they score: 100 if required,
plus 50 if preferred (with ``enablePreferredOrder``, 50·(n-i)/n by list position), and -1
if anti-preferred. A queue without affinity may use no labelled node; an unlabelled node is
refused unless ``strict: false`` and the queue has no affinity. With ``enableHierarchy`` a
queue without affinity inherits its nearest ancestor's. A queue's
``volcano.sh/nodegroup-resource-limits`` annotation caps what its tasks hold per group
(accounted on allocate and deallocate); one that does not parse refuses every node to the
queue's tasks.

Verdicts depend on the node's class and the task's queue policy only, so the predicate is
static: when some queue's policy differs from the default, its tasks' placement shape carries
the policy (``TaskInfo.refine_shape``) and static masks and cached scores stay per policy.
Without any queue affinity or limits the plugin adds one static check per pod shape and node
class, no score and no per-task work. Only the limits are dynamic (a predicate per task of a
limited queue, and allocate/deallocate accounting).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.node import NodeClass
from services.scheduler.api.resources import BoolVec, FloatVec
from services.scheduler.api.status import Status
from services.scheduler.api.task import ALLOCATED_STATUSES
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import Filter, Rows
from services.scheduler.plugins.base import BasePlugin
from services.scheduler.plugins.nodegroup_policy import (
    DEFAULT_POLICY,
    LIMIT_EXCEEDED,
    NAME,
    NODE_GROUP_NAME_KEY,
    QueuePolicy,
    exceeds,
    queue_policies,
)

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

STRICT = "strict"
PREFERRED_ORDER = "enablePreferredOrder"
ARGUMENTS: tuple[str, ...] = (STRICT, PREFERRED_ORDER)


class NodeGroupPlugin(BasePlugin):
    name = NAME

    def __init__(self, *, strict: bool, preferred_order: bool) -> None:
        self.strict = strict
        self.preferred_order = preferred_order
        self.policies: dict[str, QueuePolicy] = {}
        self.row_scores: dict[str, tuple[FloatVec, list[float]]] = {}

    def on_session_open(self, ssn: Session) -> None:
        self.ssn = ssn
        option = next((o for tier in ssn.tiers for o in tier if o.name == NAME), None)
        hierarchy = option is not None and option.enabled("enableHierarchy")
        self.policies = queue_policies(ssn.queues, hierarchy=hierarchy)
        self.row_scores = {}
        ssn.points.static_predicate.add(NAME, self.predicate)
        if not self.policies:
            return
        for job in ssn.jobs.values():
            policy = self.policies.get(job.queue)
            key = "" if policy is None else policy.key
            for task in job.tasks.values():
                task.refine_shape(NAME, key)
        if any(p.affinity is not None for p in self.policies.values()):
            ssn.points.node_order.add(NAME, self)
        limited = {q: p for q, p in self.policies.items() if p.limits and not p.invalid}
        if limited:
            usage = GroupUsage(ssn, limited)
            ssn.points.dynamic_predicate.add(NAME, usage.predicate)
            ssn.points.on_allocate.add(NAME, usage.allocated)
            ssn.points.on_deallocate.add(NAME, usage.deallocated)

    def on_session_close(self, ssn: Session) -> None:
        self.policies, self.row_scores = {}, {}

    def policy(self, task: TaskInfo) -> QueuePolicy:
        job = self.ssn.jobs.get(task.job)
        return DEFAULT_POLICY if job is None else self.policies.get(job.queue, DEFAULT_POLICY)

    def predicate(self, task: TaskInfo, node: NodeClass) -> Status | None:
        group = node.labels.get(NODE_GROUP_NAME_KEY)
        return self.policy(task).verdict(group, strict=self.strict)

    # -- node order: per policy, a score per node class broadcast to the rows --------------
    def row_local(self, task: TaskInfo) -> bool:
        return True  # the queue's policy is in the task's shape

    def _scores(self, task: TaskInfo) -> tuple[FloatVec, list[float]]:
        policy = self.policy(task)
        found = self.row_scores.get(policy.key)
        if found is None:
            nodes = self.ssn.nodes
            per_class = np.array(
                [
                    policy.score(
                        c.labels.get(NODE_GROUP_NAME_KEY), preferred_order=self.preferred_order
                    )
                    for c in nodes.classes
                ],
                dtype=np.float64,
            )
            rows: FloatVec = per_class[nodes.class_of] if len(nodes) else per_class[:0]
            found = (rows, rows.tolist())
            self.row_scores[policy.key] = found
        return found

    def score(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        result: FloatVec = self._scores(task)[0][rows].copy()
        return result

    def score_row(self, task: TaskInfo, nodes: NodeTable, row: int) -> float:
        return self._scores(task)[1][row]


class GroupUsage:
    """What each queue with limits holds per limited group (upstream's
    ``nodeGroupAllocated``), and the predicate refusing a group the task would overfill."""

    def __init__(self, ssn: Session, limited: dict[str, QueuePolicy]) -> None:
        self.ssn = ssn
        space, nodes = ssn.space, ssn.nodes
        self.row_group: list[str | None] = [lab.get(NODE_GROUP_NAME_KEY) for lab in nodes.labels]
        # queue → group → [(column or -1 for a name no node or pod has, limit in milli)].
        self.limits: dict[str, dict[str, list[tuple[int, float]]]] = {
            queue: {
                group: [(space.index.get(name, -1), float(q)) for name, q in names.items()]
                for group, names in policy.limits.items()
                if names
            }
            for queue, policy in limited.items()
        }
        self.group_rows: dict[str, BoolVec] = {}
        self.held: dict[tuple[str, str], FloatVec] = {}
        self.counted: dict[str, tuple[str, str]] = {}
        for job in ssn.jobs.values():
            if job.queue in self.limits:
                for task in job.tasks.values():
                    if task.status in ALLOCATED_STATUSES and task.node >= 0:
                        self.allocated(task)

    def allocated(self, task: TaskInfo) -> None:
        job = self.ssn.jobs.get(task.job)
        if job is None or task.node < 0 or task.key in self.counted:
            return
        group = self.row_group[task.node]
        if group is None or group not in self.limits.get(job.queue, {}):
            return
        key = (job.queue, group)
        held = self.held.get(key)
        self.held[key] = task.qreq.copy() if held is None else held + task.qreq
        self.counted[task.key] = key

    def deallocated(self, task: TaskInfo) -> None:
        key = self.counted.pop(task.key, None)
        if key is not None:
            self.held[key] = self.held[key] - task.qreq

    def predicate(self, task: TaskInfo, nodes: NodeTable) -> Filter | None:
        job = self.ssn.jobs.get(task.job)
        groups = self.limits.get(job.queue) if job is not None else None
        if job is None or not groups:
            return None
        failed: BoolVec | None = None
        for group, limits in groups.items():
            if self._overfills(task, job.queue, group, limits):
                rows = self._rows(group)
                failed = rows if failed is None else failed | rows
        if failed is None:
            return None
        return Filter(~failed, ((LIMIT_EXCEEDED, failed),))

    def _overfills(
        self, task: TaskInfo, queue: str, group: str, limits: list[tuple[int, float]]
    ) -> bool:
        held = self.held.get((queue, group))
        for column, limit in limits:
            if column < 0:
                used = 0.0
            else:
                used = float(task.qreq[column]) + (float(held[column]) if held is not None else 0.0)
            if exceeds(used, limit):
                return True
        return False

    def _rows(self, group: str) -> BoolVec:
        rows = self.group_rows.get(group)
        if rows is None:
            rows = np.array([g == group for g in self.row_group], dtype=bool)
            self.group_rows[group] = rows
        return rows


def new(arguments: dict[str, Any]) -> NodeGroupPlugin:
    args = Arguments(arguments, known=ARGUMENTS)
    return NodeGroupPlugin(
        strict=args.flag(STRICT, True), preferred_order=args.flag(PREFERRED_ORDER, False)
    )
