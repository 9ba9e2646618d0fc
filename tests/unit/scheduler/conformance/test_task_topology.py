"""Volcano ``pkg/scheduler/plugins/task-topology/topology_test.go``:
``Test_readTopologyFromPgAnnotations``, one row per upstream case (its subtests are named
``case 0`` to ``case 6``; the rows take each case's ``description``). A job is a PodGroup with
the case's annotations and one pod per upstream ``TaskInfo`` (its ``TaskRole`` as the
``volcano.sh/task-spec`` annotation), read from a session as upstream reads its ``JobInfo``;
an error is compared by its message.
"""

from __future__ import annotations

import msgspec
import pytest

from services.scheduler.plugins.task_topology_buckets import (
    AFFINITY,
    ANTI_AFFINITY,
    TASK_ORDER,
    TaskTopology,
    TopologyError,
    read_topology,
)
from shared.models import Model, Pod, PodGroup
from shared.models.volcano import TASK_SPEC_KEY
from tests.unit.scheduler.builders import session, tiers_conf
from tests.unit.scheduler.conformance.upstream import build_pod, build_pod_group, build_queue

TF_TASKS = [
    ("job1-ps-0", "ps"),
    ("job1-ps-1", "ps"),
    ("job1-worker-0", "worker"),
    ("job1-worker-1", "worker"),
    ("job1-chief-0", "chief"),
    ("job1-evaluator-0", "evaluator"),
]
TF_TOPOLOGY = TaskTopology(
    affinity=[["ps", "worker"], ["ps", "chief"]],
    anti_affinity=[["ps"], ["worker", "chief"]],
    task_order=["ps", "worker", "chief", "evaluator"],
)


def _annotations(affinity: str, anti: str, order: str) -> dict[str, str]:
    return {AFFINITY: affinity, ANTI_AFFINITY: anti, TASK_ORDER: order}


CASES = [
    pytest.param(
        TF_TASKS,
        _annotations("ps,worker;ps,chief", "ps;worker,chief", "ps,worker,chief,evaluator"),
        TF_TOPOLOGY,
        id="correct annotation",
    ),
    pytest.param(
        [
            ("job1-ps-some-0", "ps-some"),
            ("job1-ps-some-1", "ps-some"),
            ("job1-worker-another-some-0", "worker-another-some"),
            ("job1-worker-another-some-1", "worker-another-some"),
            ("job1-chief-kk-0", "chief-kk"),
            ("job1-evaluator-tt-0", "evaluator-tt"),
        ],
        _annotations(
            "ps-some,worker-another-some;ps-some,chief-kk",
            "ps-some;worker-another-some,chief-kk",
            "ps-some,worker-another-some,chief-kk,evaluator-tt",
        ),
        TaskTopology(
            affinity=[["ps-some", "worker-another-some"], ["ps-some", "chief-kk"]],
            anti_affinity=[["ps-some"], ["worker-another-some", "chief-kk"]],
            task_order=["ps-some", "worker-another-some", "chief-kk", "evaluator-tt"],
        ),
        id="correct annotation with tasks whose names contain `-`",
    ),
    pytest.param([], {}, None, id="nil annotation"),
    pytest.param(
        TF_TASKS,
        _annotations(
            "$%GF$^trtqwrg^", "ps;worker,chief;#@FGEW^vfa897bgs;;", "ps,worker,chief,evaluator,,,"
        ),
        TopologyError("task $%GF$^trtqwrg^ do not exist in job <default/job1>"),
        id="invalid annotation",
    ),
    pytest.param(
        TF_TASKS[:4],
        _annotations("ps,worker", "ps", "ps,worker,chief"),
        TopologyError("task chief do not exist in job <default/job1>"),
        id="invalid task name",
    ),
    pytest.param(
        TF_TASKS[:4],
        _annotations("ps,worker", "ps,ps", "ps,worker"),
        TopologyError("task ps is duplicate in job <default/job1>"),
        id="duplicate task name",
    ),
    pytest.param(
        TF_TASKS,
        _annotations("ps,worker;ps,,chief,;", "ps;worker,chief;;;", "ps,worker,chief,evaluator,,,"),
        TaskTopology(
            affinity=[["ps", "worker"], ["ps", "", "chief", ""], [""]],
            anti_affinity=[["ps"], ["worker", "chief"], [""], [""], [""]],
            task_order=["ps", "worker", "chief", "evaluator", "", "", ""],
        ),
        id="redundant punctuations",
    ),
]


def _job_objects(tasks: list[tuple[str, str]], annotations: dict[str, str]) -> list[Model]:
    doc = msgspec.to_builtins(build_pod_group("job1", "default", "default", 0, None, "Inqueue"))
    doc["metadata"]["annotations"] = annotations
    pods = []
    for name, role in tasks:
        pod = msgspec.to_builtins(build_pod("default", name, "", "Pending", {}, "job1", {}, {}))
        pod["metadata"]["annotations"][TASK_SPEC_KEY] = role
        pods.append(msgspec.convert(pod, Pod))
    return [build_queue("default", 1, None), msgspec.convert(doc, PodGroup), *pods]


@pytest.mark.parametrize(("tasks", "annotations", "want"), CASES)
def test_read_topology_from_pg_annotations(
    tasks: list[tuple[str, str]],
    annotations: dict[str, str],
    want: TaskTopology | TopologyError | None,
) -> None:
    ssn = session(_job_objects(tasks, annotations), tiers_conf("allocate", [[{"name": "gang"}]]))
    job = ssn.jobs["default/job1"]
    if isinstance(want, TopologyError):
        with pytest.raises(TopologyError) as raised:
            read_topology(job)
        assert str(raised.value) == str(want)
    else:
        assert read_topology(job) == want
