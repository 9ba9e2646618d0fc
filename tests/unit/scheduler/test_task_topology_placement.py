"""task-topology end to end through allocate: affine tasks of a job share a node, self
anti-affine ones spread, and the annotated task order places the first task first."""

from __future__ import annotations

import msgspec
import pytest

from services.scheduler.plugins.task_topology_buckets import AFFINITY, ANTI_AFFINITY, TASK_ORDER
from shared.models import Model, PodGroup
from shared.models.volcano import TASK_SPEC_KEY
from tests.unit.scheduler.builders import conf_text, group, node, pod, queue, schedule, session

SPREADING = {"leastrequested.weight": 1, "balancedresource.weight": 0}
PACKING = {"leastrequested.weight": 0, "mostrequested.weight": 1, "balancedresource.weight": 0}


def _job(annotations: dict[str, str], roles: list[str]) -> list[Model]:
    doc = msgspec.to_builtins(group("tf", len(roles)))
    doc["metadata"]["annotations"] = annotations
    pods = [
        pod(f"tf-{role}-{i}", "tf", annotations={TASK_SPEC_KEY: role})
        for i, role in enumerate(roles)
    ]
    return [
        queue("default"),
        *(node(f"n{i}") for i in range(3)),
        msgspec.convert(doc, PodGroup),
        *pods,
    ]


def _conf(nodeorder: dict[str, int], topology: bool) -> str:
    plugins: list[str | dict[str, object]] = [{"name": "nodeorder", "arguments": nodeorder}]
    if topology:
        plugins.append({"name": "task-topology", "arguments": {"task-topology.weight": 10}})
    return conf_text("allocate", ["gang"], ["predicates", *plugins])


@pytest.mark.parametrize(
    ("annotations", "nodeorder", "together"),
    [
        pytest.param(
            {AFFINITY: "ps,worker"}, SPREADING, True, id="affinity-packs-against-spreading"
        ),
        pytest.param(
            {ANTI_AFFINITY: "worker"}, PACKING, False, id="anti-affinity-spreads-against-packing"
        ),
    ],
)
def test_topology_overrides_node_scores(
    annotations: dict[str, str], nodeorder: dict[str, int], together: bool
) -> None:
    roles = ["ps", "worker", "worker"] if AFFINITY in annotations else ["worker", "worker"]
    objects = _job(annotations, roles)
    without = set(schedule(objects, _conf(nodeorder, topology=False)).binds.values())
    placed = schedule(objects, _conf(nodeorder, topology=True)).binds
    assert len(placed) == len(roles)
    assert (len(set(placed.values())) == 1) is together
    assert (len(without) == 1) is not together  # the node scores alone would do the opposite


def test_task_order_annotation_puts_named_task_first() -> None:
    objects = _job({AFFINITY: "ps,worker", TASK_ORDER: "worker,ps"}, ["ps", "worker", "worker"])
    ssn = session(objects, _conf(SPREADING, topology=True))
    tasks = sorted(ssn.jobs["default/tf"].tasks.values(), key=ssn.task_order_key)
    assert [t.pod.metadata.annotations[TASK_SPEC_KEY] for t in tasks] == ["worker", "worker", "ps"]
    unordered = session(objects, _conf(SPREADING, topology=False))
    first = min(unordered.jobs["default/tf"].tasks.values(), key=unordered.task_order_key)
    assert first.name == "tf-ps-0"
