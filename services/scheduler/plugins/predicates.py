"""predicates: node unschedulable, nodeSelector and required node affinity, taints, and
required pod affinity/anti-affinity (including existing pods' anti-affinity).

The first three are static (pod shape by node class, evaluated once and broadcast); pod
affinity is dynamic and only runs for pods that carry terms, or when a placed pod does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.node import NodeClass
from services.scheduler.api.resources import BoolVec
from services.scheduler.api.status import Code, Status
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import Filter
from services.scheduler.plugins.base import BasePlugin
from shared.models import Pod, Taint
from shared.models.base import LabelSelectorRequirement, requirement_matches
from shared.models.core import NodeSelectorTerm, PodAffinityTerm

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "predicates"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
_ENABLES = (
    "NodeAffinityEnable",
    "NodePortsEnable",
    "TaintTolerationEnable",
    "PodAffinityEnable",
    "NodeVolumeLimitsEnable",
    "VolumeZoneEnable",
    "PodTopologySpreadEnable",
    "CacheEnable",
    "ProportionalEnable",
    "GPUSharingEnable",
    "GPUNumberEnable",
    "DynamicResourceAllocationEnable",
)
KNOWN = (*(f"predicate.{e}" for e in _ENABLES), "predicate.resources")


def _status(reason: str, message: str) -> Status:
    return Status(code=Code.UNRESOLVABLE, reason=reason, message=message, plugin=NAME)


def _term_matches(term: NodeSelectorTerm, labels: dict[str, str]) -> bool:
    if not term.matchExpressions and not term.matchFields:
        return False
    # matchFields (metadata.name) are not evaluated per node class; a term using them fails.
    return not term.matchFields and all(
        requirement_matches(
            LabelSelectorRequirement(key=r.key, operator=r.operator, values=r.values), labels
        )
        for r in term.matchExpressions
    )


def node_affinity(task: TaskInfo, node: NodeClass) -> Status | None:
    spec = task.pod.spec
    for key, value in spec.nodeSelector.items():
        if node.labels.get(key) != value:
            return _status("NodeSelectorMismatch", f"didn't match nodeSelector {{{key}: {value}}}")
    affinity = spec.affinity.nodeAffinity if spec.affinity else None
    required = affinity.requiredDuringSchedulingIgnoredDuringExecution if affinity else None
    if required is not None and not any(
        _term_matches(t, node.labels) for t in required.nodeSelectorTerms
    ):
        return _status("NodeAffinityMismatch", "didn't match required node affinity")
    return None


def taint_toleration(task: TaskInfo, node: NodeClass) -> Status | None:
    tolerations = task.pod.spec.tolerations
    for taint in node.taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(t.tolerates(taint) for t in tolerations):
            shown = f"{taint.key}={taint.value}" if taint.value else taint.key
            return _status("TaintNotTolerated", f"taint {{{shown}: {taint.effect}}} not tolerated")
    return None


def node_unschedulable(task: TaskInfo, node: NodeClass) -> Status | None:
    if not node.unschedulable:
        return None
    taint = Taint(key=UNSCHEDULABLE_TAINT, effect="NoSchedule")
    if any(t.tolerates(taint) for t in task.pod.spec.tolerations):
        return None
    return _status("NodeUnschedulable", "unschedulable (spec.unschedulable)")


def _required(pod: Pod, anti: bool) -> list[PodAffinityTerm]:
    affinity = pod.spec.affinity
    if affinity is None:
        return []
    group = affinity.podAntiAffinity if anti else affinity.podAffinity
    return list(group.requiredDuringSchedulingIgnoredDuringExecution) if group else []


def _selects(term: PodAffinityTerm, owner: TaskInfo, pod: TaskInfo) -> bool:
    namespaces = term.namespaces or [owner.namespace]
    if term.namespaceSelector is None and pod.namespace not in namespaces:
        return False
    selector = term.labelSelector
    return selector is not None and selector.matches(pod.pod.metadata.labels)


class PredicatesPlugin(BasePlugin):
    name = NAME

    def __init__(self, args: Arguments) -> None:
        self.node_affinity = args.flag("predicate.NodeAffinityEnable", True)
        self.taints = args.flag("predicate.TaintTolerationEnable", True)
        self.pod_affinity = args.flag("predicate.PodAffinityEnable", True)
        for enable in _ENABLES:
            args.flag(f"predicate.{enable}", True)

    def on_session_open(self, ssn: Session) -> None:
        self.nodes = ssn.nodes
        ssn.points.static_predicate.add(NAME, self.static)
        if self.pod_affinity:
            self.holders: dict[str, TaskInfo] = {}
            for row_tasks in ssn.nodes.tasks:
                for task in row_tasks.values():
                    self._track(task)
            ssn.points.dynamic_predicate.add(NAME, self.dynamic)
            ssn.points.on_allocate.add(NAME, self._track)
            ssn.points.on_deallocate.add(NAME, self._untrack)

    def static(self, task: TaskInfo, node: NodeClass) -> Status | None:
        status = node_unschedulable(task, node)
        if status is None and self.node_affinity:
            status = node_affinity(task, node)
        if status is None and self.taints:
            status = taint_toleration(task, node)
        return status

    def _track(self, task: TaskInfo) -> None:
        if task.pod.spec.affinity is not None and _required(task.pod, anti=True):
            self.holders[task.key] = task

    def _untrack(self, task: TaskInfo) -> None:
        self.holders.pop(task.key, None)

    def _placed(self) -> Iterable[TaskInfo]:
        for row_tasks in self.nodes.tasks:
            yield from row_tasks.values()

    def _domains(self, key: str, rows: Iterable[int]) -> set[str]:
        labels = self.nodes.labels
        return {labels[r][key] for r in rows if key in labels[r]}

    def _in(self, key: str, domains: set[str]) -> BoolVec:
        return np.array([lab.get(key) in domains for lab in self.nodes.labels], dtype=bool)

    def dynamic(self, task: TaskInfo, nodes: NodeTable) -> Filter | None:
        if not self.holders and task.pod.spec.affinity is None:
            return None
        affinity = _required(task.pod, anti=False)
        anti = _required(task.pod, anti=True)
        holders = [h for h in self.holders.values() if h.key != task.key and h.node >= 0]
        if not affinity and not anti and not holders:
            return None
        passed = np.ones(len(nodes), dtype=bool)
        failures = []
        for term in affinity:
            rows = [t.node for t in self._placed() if _selects(term, task, t)]
            if not rows and _selects(term, task, task):
                continue  # the first pod of a self-affine group may go anywhere
            ok = self._in(term.topologyKey, self._domains(term.topologyKey, rows))
            failures.append(
                (_status("PodAffinityNotMatch", "didn't match pod affinity rules"), ~ok)
            )
            passed &= ok
        for term in anti:
            rows = [t.node for t in self._placed() if _selects(term, task, t)]
            bad = self._in(term.topologyKey, self._domains(term.topologyKey, rows))
            failures.append(
                (_status("PodAntiAffinityConflict", "didn't satisfy pod anti-affinity rules"), bad)
            )
            passed &= ~bad
        for holder in holders:
            for term in _required(holder.pod, anti=True):
                if _selects(term, holder, task):
                    bad = self._in(term.topologyKey, self._domains(term.topologyKey, [holder.node]))
                    failures.append(
                        (
                            _status(
                                "ExistingPodAntiAffinity",
                                f"violates anti-affinity of existing pod {holder.key}",
                            ),
                            bad,
                        )
                    )
                    passed &= ~bad
        return Filter(passed, tuple(failures))


def new(arguments: dict[str, Any]) -> PredicatesPlugin:
    return PredicatesPlugin(Arguments(arguments, known=KNOWN, prefixes=("predicate.resources.",)))
