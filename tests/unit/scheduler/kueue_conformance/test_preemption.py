"""Kueue's ``pkg/scheduler/preemption/preemption_test.go`` ``TestPreemption`` table.

Each row of ``preemption_cases.yaml`` is one upstream case (same name): the ClusterQueues,
Cohorts and admitted Workloads, the incoming Workload with the flavor assignment upstream
hands to ``GetTargets`` (resource → flavor and mode), and the Workloads upstream evicts as
``Preempted``. Shoal's ``preemption_targets`` gets the same snapshot and assignment.
"""

from __future__ import annotations

from typing import Any

from services.scheduler.kueue.flavors import Assignment, FlavorChoice, Mode, PodSetAssignment
from services.scheduler.kueue.preemption import preemption_targets
from services.scheduler.kueue.snapshot import build
from services.scheduler.kueue.workloads import Priorities, Usage, workload_info
from shared.models import Workload, convert
from tests.unit.scheduler.kueue_conformance.tables import NOW, Table

TABLE = Table.load("preemption_cases.yaml")


def _assignment(info_podsets: Any, wanted: dict[str, dict[str, dict[str, str]]]) -> Assignment:
    usage: Usage = {}
    podsets: list[PodSetAssignment] = []
    for podset in info_podsets:
        flavors = wanted.get(podset.name, {})
        requests = podset.requests(count_pods="pods" in flavors)
        chosen = {
            resource: FlavorChoice(
                f["flavor"], Mode[f["mode"].upper().replace("NOFIT", "NO_FIT")], False
            )
            for resource, f in flavors.items()
        }
        for resource, choice in chosen.items():
            fr = (choice.flavor, resource)
            usage[fr] = usage.get(fr, 0) + requests.get(resource, 0)
        podsets.append(PodSetAssignment(podset.name, podset.count, chosen))
    return Assignment(podsets=podsets, usage=usage)


@TABLE.parametrize()
def test_preemption(case: dict[str, Any]) -> None:
    inputs = build(TABLE.objects(case), now=NOW)
    incoming = convert(case["incoming"], Workload, document=case["name"])
    info = workload_info(incoming, priorities=Priorities([]), now=NOW, source="incoming")
    cq = inputs.snapshot.cluster_queues[case["targetCQ"]]
    assignment = _assignment(info.podsets, case["assignment"])
    targets = preemption_targets(info, assignment, cq, inputs.snapshot)
    want = TABLE.want(case)
    assert sorted(t.info.key for t in targets) == want["preempted"]
    assert len(targets) == want["count"]
