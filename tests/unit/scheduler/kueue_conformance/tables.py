"""Loading the ported upstream tables: one YAML file per upstream test file.

A table has ``fixtures`` (manifests every case starts from) and ``cases``: ``name`` (the
upstream case name, used as the test id), ``objects`` (the case's own manifests), ``want``;
a case Shoal cannot express has ``skip`` with the reason, one where Shoal knowingly differs
has ``departure`` with the reason (a strict xfail, so a fix shows up).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
import yaml

from services.scheduler.kueue import AdmissionResult, admit
from services.scheduler.kueue.fair_sharing import FairSharing
from services.scheduler.kueue.flavors import Assignment, FlavorChoice, PodSetAssignment
from services.scheduler.kueue.modes import Mode
from services.scheduler.kueue.preemption import preemption_targets
from services.scheduler.kueue.snapshot import build
from services.scheduler.kueue.workloads import (
    AdmittedWorkload,
    PodSetInfo,
    Priorities,
    Usage,
    workload_info,
)
from shared.models import Model, Workload, convert, decode_object

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
HERE = Path(__file__).parent
F = TypeVar("F", bound=Callable[..., object])


class Table:
    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.fixtures: list[dict[str, Any]] = list(doc.get("fixtures") or [])
        self.cases: list[dict[str, Any]] = list(doc["cases"])

    @classmethod
    def load(cls, name: str) -> Table:
        return cls(yaml.safe_load((HERE / name).read_text()))

    def parametrize(self) -> Callable[[F], F]:
        params = [pytest.param(case, id=case["name"], marks=_marks(case)) for case in self.cases]
        return pytest.mark.parametrize("case", params)

    def objects(self, case: Mapping[str, Any]) -> list[Model]:
        docs = [*self.fixtures, *(case.get("objects") or [])]
        return [
            decode_object(o, document=f"{case['name']} doc {i}", strict_kind=False)
            for i, o in enumerate(docs)
        ]

    @staticmethod
    def gates(case: Mapping[str, Any]) -> dict[str, bool]:
        return dict(case.get("featureGates") or {})

    @staticmethod
    def want(case: Mapping[str, Any]) -> dict[str, Any]:
        want: dict[str, Any] = case["want"]
        return want


def _marks(case: Mapping[str, Any]) -> list[pytest.MarkDecorator]:
    """Not expressible → skipped; a known departure from upstream → strict xfail."""
    if "skip" in case:
        return [pytest.mark.skip(reason=f"not expressible: {case['skip']}")]
    if "departure" in case:
        return [
            pytest.mark.xfail(strict=True, reason=f"departs from upstream: {case['departure']}")
        ]
    return []


def _assignment(
    info_podsets: Sequence[PodSetInfo], wanted: dict[str, dict[str, dict[str, str]]]
) -> Assignment:
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


def run_preemption(
    table: Table, case: Mapping[str, Any], *, fair_sharing: FairSharing | None = None
) -> list[AdmittedWorkload]:
    """Shoal's preemption_targets over a preemption table's case: the snapshot of its
    objects, the incoming workload and the resource → flavor/mode assignment upstream hands
    to ``GetTargets``."""
    inputs = build(table.objects(case), now=NOW)
    incoming = convert(case["incoming"], Workload, document=case["name"])
    info = workload_info(incoming, priorities=Priorities([]), now=NOW, source="incoming")
    cq = inputs.snapshot.cluster_queues[case["targetCQ"]]
    assignment = _assignment(info.podsets, case["assignment"])
    return preemption_targets(info, assignment, cq, inputs.snapshot, fair_sharing=fair_sharing)


def run_cycle(
    objects: Sequence[Model], *, gates: Mapping[str, bool], fair_sharing: bool = False
) -> AdmissionResult:
    """One Kueue scheduling cycle over ``objects`` (with Kueue's default fair sharing
    configuration when ``fair_sharing``)."""
    return admit(
        objects,
        NOW,
        max_cycles=1,
        gates=gates,
        fair_sharing=FairSharing() if fair_sharing else None,
    )


def admitted_by(result: AdmissionResult) -> dict[str, Any]:
    """The newly admitted workloads in the tables' shape."""
    return {
        key: {
            "clusterQueue": a.cluster_queue,
            "podSets": {
                name: {"count": ps.count, "flavors": dict(ps.flavors)}
                for name, ps in a.podsets.items()
            },
        }
        for key, a in result.admitted.items()
    }
