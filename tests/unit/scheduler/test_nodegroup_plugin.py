"""nodegroup in whole sessions (allocate with the queue's affinity and limits), its reasons,
the policy it reads off Queues, and that it adds no per-task work when no queue uses it.
Upstream's own table is ported in ``conformance/test_nodegroup.py``."""

from __future__ import annotations

from typing import Any

import pytest

from services.scheduler.api import QueueInfo
from services.scheduler.api.resources import ResourceSpace
from services.scheduler.framework.placement import Placer
from services.scheduler.plugins.nodegroup import NodeGroupPlugin
from services.scheduler.plugins.nodegroup_policy import (
    LimitError,
    parse_limits,
    queue_policies,
)
from shared.models import Model, Node, Queue
from tests.unit.scheduler.builders import conf_text, group, node, pod, queue, schedule, session

GROUP = "volcano.sh/nodegroup-name"
LIMITS = "volcano.sh/nodegroup-resource-limits"


def _conf(**nodegroup: Any) -> str:
    return conf_text("allocate", ["gang"], ["predicates", {"name": "nodegroup", **nodegroup}])


def _queue(
    name: str, affinity: dict[str, Any] | None, limits: str | None = None, **spec: Any
) -> Queue:
    if affinity is not None:
        spec["affinity"] = affinity
    q = queue(name, **spec)
    if limits is not None:
        q.metadata.annotations[LIMITS] = limits
    return q


def _wants(required: list[str], preferred: list[str] | None = None) -> dict[str, Any]:
    return {
        "nodeGroupAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": required,
            "preferredDuringSchedulingIgnoredDuringExecution": preferred or [],
        }
    }


def _grouped(name: str, group_name: str | None, cpu: str = "8") -> Node:
    return node(name, cpu=cpu, labels={GROUP: group_name} if group_name else {})


def test_preferred_group_first_then_overflow_past_its_limit() -> None:
    objects: list[Model] = [
        _grouped("a1", "fixed"),
        _grouped("b1", "serverless"),
        _queue(
            "q", _wants(["fixed", "serverless"], ["serverless"]), '{"serverless": {"cpu": "3"}}'
        ),
        group("job", 3, queue="q"),
        *(pod(f"job-{i}", "job", cpu="1") for i in range(3)),
    ]
    result = schedule(objects, _conf())
    # Preferred serverless scores 150 against 100: it takes tasks until its 3-cpu limit.
    assert sorted(result.binds.values()) == ["b1", "b1", "b1"]
    objects.append(pod("job-3", "job", cpu="1"))
    result = schedule(objects, _conf())
    assert sorted(result.binds.values()) == ["a1", "b1", "b1", "b1"]


def test_a_discarded_gang_gives_its_share_of_the_limit_back() -> None:
    objects: list[Model] = [
        _grouped("a1", "fixed", cpu="4"),
        _queue("q", _wants(["fixed"]), '{"fixed": {"cpu": "3"}}'),
        # Three 1-cpu tasks fit the limit, the fourth does not: the gang is discarded.
        group("big", 4, queue="q"),
        *(pod(f"big-{i}", "big", cpu="1") for i in range(4)),
        group("small", 1, queue="q"),
        pod("small-0", "small", cpu="2"),
    ]
    result = schedule(objects, _conf())
    assert result.binds == {"default/small-0": "a1"}


def test_reasons_are_upstreams_messages() -> None:
    objects: list[Model] = [
        _grouped("a1", "fixed"),
        _grouped("b1", "other"),
        _grouped("c1", None),
        _queue("q", _wants(["fixed"]), '{"fixed": {"cpu": "1"}}'),
        group("job", 1, queue="q"),
        pod("job-0", "job", cpu="2"),
    ]
    ssn = session(objects, _conf())
    task = ssn.jobs["default/job"].tasks["default/job-0"]
    message = Placer(ssn).fit_errors(task).message()
    assert "1 node node group label not found" in message
    assert "1 node node does not satisfy the node group affinity" in message
    assert "1 node node group resource limit exceeded" in message


@pytest.mark.parametrize(
    ("strict", "binds"),
    [
        pytest.param(True, {}, id="strict: no unlabelled node"),
        pytest.param(False, {"default/job-0": "c1"}, id="not strict: unlabelled nodes only"),
    ],
)
def test_a_queue_without_affinity(strict: bool, binds: dict[str, str]) -> None:
    objects: list[Model] = [
        _grouped("a1", "fixed"),
        _grouped("c1", None),
        group("job", 1),
        pod("job-0", "job"),
    ]
    assert schedule(objects, _conf(arguments={"strict": strict})).binds == binds


def test_no_affinity_anywhere_adds_no_per_task_work() -> None:
    objects: list[Model] = [_grouped("c1", None), group("job", 1), pod("job-0", "job")]
    only = conf_text("allocate", [{"name": "nodegroup", "arguments": {"strict": False}}])
    ssn = session(objects, only)
    plugin = next(p for p in ssn.plugins if isinstance(p, NodeGroupPlugin))
    assert plugin not in ssn.points.node_order.all
    assert not ssn.points.dynamic_predicate.all
    assert not ssn.points.on_allocate.all
    assert ssn.jobs["default/job"].tasks["default/job-0"].shape == b"default"


def test_queues_of_equal_pods_keep_their_own_verdicts() -> None:
    """Two queues' pods of one shape: the static mask of one is not reused for the other."""
    objects: list[Model] = [
        _grouped("a1", "fixed"),
        _grouped("b1", "other"),
        _queue("qa", _wants(["fixed"])),
        _queue("qb", _wants(["other"])),
        group("ja", 1, queue="qa"),
        group("jb", 1, queue="qb"),
        pod("ja-0", "ja"),
        pod("jb-0", "jb"),
    ]
    assert schedule(objects, _conf()).binds == {"default/ja-0": "a1", "default/jb-0": "b1"}


def _infos(*queues: Queue) -> dict[str, QueueInfo]:
    space = ResourceSpace(())
    return {q.metadata.name: QueueInfo(q, space) for q in queues}


@pytest.mark.parametrize(
    ("queues", "hierarchy", "want"),
    [
        pytest.param(
            [_queue("root", _wants(["g"])), _queue("a", None), _queue("b", None, parent="a")],
            True,
            {"root": "root", "a": "root", "b": "root"},
            id="nearest ancestor, root by default",
        ),
        pytest.param(
            [_queue("root", _wants(["g"])), _queue("a", None)],
            False,
            {"root": "root"},
            id="no inheritance without hierarchy",
        ),
        pytest.param(
            [_queue("a", None, parent="b"), _queue("b", None, parent="a")],
            True,
            {},
            id="a cycle ends the walk",
        ),
        pytest.param(
            [_queue("root", _wants(["g"])), _queue("a", None, parent="missing")],
            True,
            {"root": "root"},
            id="a missing parent ends the walk",
        ),
        pytest.param(
            [_queue("root", _wants(["g"])), _queue("a", {})],
            True,
            {"root": "root"},
            id="an empty affinity is the queue's own and inherits nothing",
        ),
    ],
)
def test_queue_policies(queues: list[Queue], hierarchy: bool, want: dict[str, str]) -> None:
    policies = queue_policies(_infos(*queues), hierarchy=hierarchy)
    assert {name: p.source for name, p in policies.items()} == want


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        pytest.param('{"g": {"cpu": "1500m", "memory": 1}}', {"g": {"cpu": 1500, "memory": 1000}}),
        pytest.param("null", {}, id="null"),
        pytest.param('{"g": null}', {"g": {}}, id="a null group"),
        pytest.param('{"g": {"count/pods": "2", "cpu": null}}', {"g": {"cpu": 0}}, id="count"),
    ],
)
def test_parse_limits(raw: str, want: dict[str, dict[str, int]]) -> None:
    assert parse_limits(raw) == want


@pytest.mark.parametrize(
    "raw", ['{"g": {"cpu": ', '["g"]', '{"g": 3}', '{"g": {"cpu": "x"}}', '{"g": {"cpu": true}}']
)
def test_parse_limits_refuses(raw: str) -> None:
    with pytest.raises(LimitError):
        parse_limits(raw)


def test_a_shape_part_is_replaced_not_stacked() -> None:
    """A task seen by a later session gets that session's policy, never an earlier one's."""
    ssn = session([_grouped("c1", None), group("job", 1), pod("job-0", "job")], _conf())
    task = ssn.jobs["default/job"].tasks["default/job-0"]
    task.refine_shape("nodegroup", "qa|0")
    task.refine_shape("other", "x")
    task.refine_shape("nodegroup", "qb|0")
    assert task.shape == b"default\x00nodegroup=qb|0\x00other=x"
    task.refine_shape("nodegroup", "")
    task.refine_shape("other", "")
    assert task.shape == b"default"
