"""Volcano Job ``dependsOn``: a task's pods wait for the tasks it depends on.

Rows of ``TestIsDependsOnPodsReady`` (volcano
``pkg/controllers/job/job_controller_actions_test.go``) plus the reconcile around it: ``syncJob``
creates a waiting task's pods only once its dependencies are ready; ``iteration: Any`` with
several names needs one of them.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from shared.models import Pod
from tests.unit.jobcontroller.volcano_cases import created_names, run, vcjob, vcpod


def ready(pod: Pod, value: bool = True) -> Pod:
    statuses = [msgspec.structs.replace(c, ready=value) for c in pod.status.containerStatuses]
    return msgspec.structs.replace(
        pod, status=msgspec.structs.replace(pod.status, containerStatuses=statuses)
    )


def job_with(depends: dict[str, Any], tasks: tuple[tuple[str, int], ...], **kwargs: Any) -> Any:
    job = vcjob(tasks, phase="Pending", minAvailable=1, **kwargs)
    for task in job.spec.tasks:
        if task.name in depends:
            task.dependsOn = depends[task.name]
    return job


UPSTREAM = [
    (
        "DependsOn task has all pods succeeded",
        [vcpod("task1", 0, "Succeeded"), vcpod("task1", 1, "Succeeded")],
        True,
    ),
    (
        "DependsOn task has pods running and ready",
        [ready(vcpod("task1", 0)), ready(vcpod("task1", 1))],
        True,
    ),
    (
        "DependsOn task has pods running but not ready",
        [ready(vcpod("task1", 0), False), ready(vcpod("task1", 1), False)],
        False,
    ),
]


@pytest.mark.parametrize(
    ("pods", "starts"), [r[1:] for r in UPSTREAM], ids=[r[0] for r in UPSTREAM]
)
def test_is_depends_on_pods_ready(pods: list[Pod], starts: bool) -> None:
    job = job_with({"task2": {"name": ["task1"]}}, (("task1", 2), ("task2", 1)))
    created = created_names(run(job, pods))
    assert ("train-task2-0" in created) is starts


@pytest.mark.parametrize(
    ("depends", "pods", "starts"),
    [
        ({"name": ["a", "b"]}, [ready(vcpod("a", 0))], False),
        ({"name": ["a", "b"], "iteration": "Any"}, [ready(vcpod("a", 0))], True),
        ({"name": ["a", "b"]}, [ready(vcpod("a", 0)), vcpod("b", 0, "Succeeded")], True),
        ({"name": ["a"]}, [ready(vcpod("a", 0)), vcpod("b", 0, "Pending")], True),
    ],
    ids=["all-needs-every-task", "any-needs-one", "all-ready", "running-but-a-pending-sibling"],
)
def test_depends_on_iteration(depends: dict[str, Any], pods: list[Pod], starts: bool) -> None:
    job = job_with({"c": depends}, (("a", 1), ("b", 1), ("c", 2)))
    created = [n for n in created_names(run(job, pods)) if n.startswith("train-c-")]
    assert created == (["train-c-0", "train-c-1"] if starts else [])


def test_first_task_starts_and_the_chain_waits() -> None:
    # volcano example/task-start-dependency: nginx2 waits for nginx1, nginx3 for nginx2.
    job = job_with(
        {"nginx2": {"name": ["nginx1"]}, "nginx3": {"name": ["nginx2"]}},
        (("nginx1", 1), ("nginx2", 2), ("nginx3", 2)),
    )
    assert created_names(run(job)) == ["train-nginx1-0"]
    pods = [ready(vcpod("nginx1", 0))]
    assert created_names(run(job, pods)) == ["train-nginx2-0", "train-nginx2-1"]
    pods += [ready(vcpod("nginx2", 0)), ready(vcpod("nginx2", 1))]
    assert created_names(run(job, pods)) == ["train-nginx3-0", "train-nginx3-1"]
