"""PodGroup status and "why is my pod pending" as `kubectl describe` shows them
(issue: live correctness, defect 7).

What Volcano's scheduler writes (``framework/job_updater.go``, ``session.go`` ``jobStatus``,
``cache.go`` ``RecordJobStatusEvent``/``taskUnschedulable``): the PodGroup phase from its
scheduled and completed tasks (a job whose pods all ended, failed or not, is ``Completed``), the
``running``/``succeeded``/``failed`` counters, and for each pending pod a ``PodScheduled=False``
condition (reason ``Unschedulable``) with a ``FailedScheduling`` Event. Events about a PodGroup
name it by uid, so ``kubectl describe podgroup`` finds them.

Also defect 13: a Warning posted again and again is one Event whose ``count`` grows, as
client-go's event recorder aggregates it (here the scheduler re-sends the PodGroup status each
time something else overwrote it).
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from services.cli.stack import Stack, StackConfig
from shared.kube import KubeClient
from shared.kube.resources import EVENT
from tests.e2e.e2e_cluster import (
    BATCHJOB,
    CONFIGMAP,
    POD,
    PODGROUP,
    VCJOB,
    container,
    eventually,
    vcjob,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

Json = dict[str, Any]
STATUS_RESEND_S = 1.0


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    return StackConfig(
        workdir=tmp_path_factory.mktemp("stack"),
        nodes=4,
        node_cpu="8",
        env={"SHOAL_SCHEDULER_STATUS_RESEND": str(STATUS_RESEND_S)},
    )


async def _only_podgroup(kube: KubeClient, namespace: str) -> Json:
    groups, _ = await kube.list_all(PODGROUP, namespace=namespace)
    assert len(groups) == 1, [g["metadata"]["name"] for g in groups]
    return groups[0]


async def _events(kube: KubeClient, namespace: str) -> list[Json]:
    events, _ = await kube.list_all(EVENT, namespace=namespace)
    return events


def _unschedulable(group: Json) -> list[Json]:
    return [
        c
        for c in (group.get("status") or {}).get("conditions") or []
        if c.get("type") == "Unschedulable" and c.get("status") == "True"
    ]


def _batch_job(name: str, namespace: str, *, pods: int, exit_code: int) -> Json:
    annotations = {
        "sim.shoal.io/start-delay": "50ms",
        "sim.shoal.io/duration": "300ms",
        "sim.shoal.io/exit-code": str(exit_code),
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "completions": pods,
            "parallelism": pods,
            "backoffLimit": 0,
            "template": {
                "metadata": {"annotations": annotations},
                "spec": {
                    "schedulerName": "volcano",
                    "restartPolicy": "Never",
                    "containers": [container("work", "100m", "64Mi")],
                },
            },
        },
    }


@pytest.mark.parametrize(
    ("exit_code", "pods", "job_condition", "counter"),
    [(1, 1, "Failed", "failed"), (0, 2, "Complete", "succeeded")],
    ids=["failed-job", "completed-job"],
)
async def test_finished_job_podgroup_is_completed_without_warnings(
    kube: KubeClient, namespace: str, exit_code: int, pods: int, job_condition: str, counter: str
) -> None:
    # A batch/v1 Job keeps its PodGroup after it ends (a Volcano Job's controller deletes it).
    await kube.create(BATCHJOB, _batch_job("end", namespace, pods=pods, exit_code=exit_code))

    async def job_ended() -> bool:
        job = await kube.get(BATCHJOB, "end", namespace)
        conditions = (job.get("status") or {}).get("conditions") or []
        return any(c["type"] == job_condition and c["status"] == "True" for c in conditions)

    await eventually(job_ended, timeout=60, what=f"the Job to be {job_condition}")
    group: Json = {}

    async def settled() -> bool:
        nonlocal group
        group = await _only_podgroup(kube, namespace)
        status = group.get("status") or {}
        return bool(status.get("phase") == "Completed" and status.get(counter) == pods)

    try:
        await eventually(settled, timeout=30, what="the PodGroup to be Completed with counts")
    except AssertionError as exc:
        raise AssertionError(f"{exc}: {group.get('status')}") from None
    await asyncio.sleep(3)  # a few scheduling cycles: a wrong status would be written by now
    group = await _only_podgroup(kube, namespace)
    assert group["status"]["phase"] == "Completed", group["status"]
    assert not _unschedulable(group), group["status"]
    assert not group["status"].get("running"), group["status"]
    warnings = [e for e in await _events(kube, namespace) if e.get("type") == "Warning"]
    about_group = [e for e in warnings if e["involvedObject"].get("kind") == "PodGroup"]
    assert not about_group, [(e["reason"], e["message"]) for e in about_group]


async def test_running_gang_counts_running_pods(kube: KubeClient, namespace: str) -> None:
    await kube.create(VCJOB, vcjob("run", namespace, replicas=3, duration=None))

    async def running() -> bool:
        groups, _ = await kube.list_all(PODGROUP, namespace=namespace)
        status = groups[0].get("status") or {} if groups else {}
        return bool(status.get("phase") == "Running" and status.get("running") == 3)

    await eventually(running, timeout=60, what="the PodGroup to count 3 running pods")


async def test_unschedulable_gang_explains_itself_on_pods_and_podgroup(
    kube: KubeClient, namespace: str
) -> None:
    # Nodes have 8 CPUs: a gang of two 6-CPU pods fits, a gang of pods of 9 CPUs never does.
    await kube.create(VCJOB, vcjob("huge", namespace, replicas=2, cpu="9", duration=None))

    async def pods_explained() -> bool:
        pods, _ = await kube.list_all(POD, namespace=namespace)
        conditions = [
            c
            for pod in pods
            for c in (pod.get("status") or {}).get("conditions") or []
            if c.get("type") == "PodScheduled"
        ]
        return len(pods) == 2 and len(conditions) == 2

    await eventually(pods_explained, timeout=60, what="PodScheduled conditions on both pods")
    pods, _ = await kube.list_all(POD, namespace=namespace)
    for pod in pods:
        (scheduled,) = [c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled"]
        assert scheduled["status"] == "False", scheduled
        assert scheduled["reason"] == "Unschedulable", scheduled
        assert "insufficient cpu" in scheduled["message"].lower(), scheduled
    group = await _only_podgroup(kube, namespace)
    uid = group["metadata"]["uid"]

    async def described() -> bool:
        events = await _events(kube, namespace)
        on_group = [e for e in events if e["involvedObject"].get("uid") == uid]
        on_pods = [e for e in events if e.get("reason") == "FailedScheduling"]
        return bool(on_group) and len({e["involvedObject"]["name"] for e in on_pods}) == 2

    await eventually(described, timeout=30, what="Events on the PodGroup (by uid) and the pods")
    events = await _events(kube, namespace)
    on_group = [e for e in events if e["involvedObject"].get("uid") == uid]
    assert {e["reason"] for e in on_group} == {"Unschedulable"}, on_group
    assert all(e["type"] == "Warning" for e in on_group)


async def test_repeated_warning_is_one_event_with_a_count(kube: KubeClient, namespace: str) -> None:
    await kube.create(VCJOB, vcjob("stuck", namespace, replicas=2, cpu="9", duration=None))

    async def unschedulable() -> bool:
        groups, _ = await kube.list_all(PODGROUP, namespace=namespace)
        return bool(groups) and bool(_unschedulable(groups[0]))

    await eventually(unschedulable, timeout=60, what="the gang to be Unschedulable")
    name = (await _only_podgroup(kube, namespace))["metadata"]["name"]
    for _ in range(4):  # another writer drops the condition; the scheduler writes it back
        cleared = {"status": {"conditions": None}}
        await kube.patch(PODGROUP, name, cleared, namespace=namespace)
        await eventually(unschedulable, timeout=30, what="the condition written back")
    on_group = [
        e
        for e in await _events(kube, namespace)
        if e["involvedObject"].get("name") == name and e["reason"] == "Unschedulable"
    ]
    assert len(on_group) == 1, [(e["metadata"]["name"], e.get("count")) for e in on_group]
    assert on_group[0]["count"] >= 5, on_group[0]
    assert on_group[0]["lastTimestamp"] >= on_group[0]["firstTimestamp"]


async def test_rejected_conf_is_a_warning_on_its_configmap(
    kube: KubeClient, stack: Stack, namespace: str
) -> None:
    # issue 15 defect 15: a conf the scheduler refuses was visible only in its log.
    conf = 'actions: "enqueue, allocate"\ntiers:\n- plugins:\n  - name: gang\n  - name: no-such\n'
    configmap = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "volcano-scheduler-configmap", "namespace": namespace},
        "data": {"volcano-scheduler.conf": conf},
    }
    created = await kube.create(CONFIGMAP, configmap)
    try:
        warning: Json = {}

        async def warned() -> bool:
            nonlocal warning
            for e in await _events(kube, namespace):
                if e["involvedObject"].get("uid") == created["metadata"]["uid"]:
                    warning = e
                    return True
            return False

        await eventually(warned, timeout=30, what="a Warning Event on the ConfigMap")
        assert (warning["type"], warning["reason"]) == ("Warning", "InvalidSchedulerConf")
        assert "no-such" in warning["message"], warning["message"]
        port = stack.services["scheduler"].health_port
        url = f"http://127.0.0.1:{port}/metrics"
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            metrics = await response.text()
        assert "shoal_scheduler_conf_rejected 1.0" in metrics
        # The previous conf still schedules.
        await kube.create(VCJOB, vcjob("still", namespace, replicas=1, duration=None))

        async def bound() -> bool:
            pods, _ = await kube.list_all(POD, namespace=namespace)
            return bool(pods) and bool(pods[0]["spec"].get("nodeName"))

        await eventually(bound, timeout=30, what="a pod bound under the previous conf")
    finally:
        await kube.delete(CONFIGMAP, "volcano-scheduler-configmap", namespace)
