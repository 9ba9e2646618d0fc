"""Kueue's pod integration through the whole system (issue 28): plain Pods labelled
``kueue.x-k8s.io/queue-name`` hold their ClusterQueue's quota.

Kueue's ``single-clusterqueue-setup.yaml`` (9 CPU), then four pods of 3 CPU and a group of two
pods of 1 CPU (``kueue.x-k8s.io/pod-group-name`` with ``pod-group-total-count: 2``), all for
``user-queue``. Kueue's pod webhook (kubesim plays it; the webhook service answers it on the
real control plane) gates each; the job controller gives each pod, and the group, one Workload;
the scheduler admits what fits the 9 CPU and the rest wait gated with their Workload pending;
as pods finish, the others are admitted, ungated and run. Never more than 9 CPU run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from services.cli.stack import Stack
from shared.kube import KubeClient
from shared.kube.resources import resource_for
from tests.e2e.e2e_cluster import KUBECTL, POD, eventually, kubectl

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(240),
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine"),
]

Json = dict[str, Any]
UPSTREAM = Path(__file__).parents[1] / "data" / "upstream" / "kueue"
WORKLOAD = resource_for("kueue.x-k8s.io/v1beta1", "Workload")
GATE = "kueue.x-k8s.io/admission"
QUOTA_CPU = 9
SINGLES = 4


def _pod(name: str, cpu: str, *, group: str = "") -> Json:
    labels = {"kueue.x-k8s.io/queue-name": "user-queue"}
    annotations = {"sim.shoal.io/duration": "8s", "sim.shoal.io/start-delay": "50ms"}
    if group:
        labels["kueue.x-k8s.io/pod-group-name"] = group
        annotations["kueue.x-k8s.io/pod-group-total-count"] = "2"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels, "annotations": annotations},
        "spec": {
            "schedulerName": "shoal",
            "restartPolicy": "Never",
            "containers": [
                {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
            ],
        },
    }


PODS = [_pod(f"single-{i}", "3") for i in range(SINGLES)] + [
    _pod(f"grouped-{i}", "1", group="pair") for i in range(2)
]
CPU = {p["metadata"]["name"]: int(p["spec"]["containers"][0]["resources"]["requests"]["cpu"])
       for p in PODS}  # fmt: skip


def _ours(pods: list[Json]) -> list[Json]:
    return [p for p in pods if p["metadata"]["name"] in CPU]


def _running_cpu(pods: list[Json]) -> int:
    return sum(
        CPU[p["metadata"]["name"]]
        for p in _ours(pods)
        if (p.get("spec") or {}).get("nodeName")
        and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    )


def _gated(pod: Json) -> bool:
    return any(g.get("name") == GATE for g in (pod.get("spec") or {}).get("schedulingGates") or [])


def _conditions(obj: Json) -> dict[str, Json]:
    return {c["type"]: c for c in (obj.get("status") or {}).get("conditions") or []}


async def test_plain_pods_and_a_pod_group_hold_the_quota(stack: Stack, kube: KubeClient) -> None:
    await kubectl(stack, "apply", "-f", str(UPSTREAM / "single-clusterqueue-setup.yaml"))
    for body in PODS:
        await kube.create(POD, body, namespace="default")
    created, _ = await kube.list_all(POD, namespace="default")
    assert all(_gated(p) for p in _ours(created)), "every queue-labelled pod is created gated"

    peak = 0

    def _owner_names(wl: Json) -> set[str]:
        return {r["name"] for r in wl["metadata"].get("ownerReferences") or []}

    async def some_run_others_wait() -> bool:
        """Pods run within the quota while the Workloads that do not fit wait, pods gated."""
        nonlocal peak
        pods, _ = await kube.list_all(POD, namespace="default")
        peak = max(peak, _running_cpu(pods))
        workloads, _ = await kube.list_all(WORKLOAD, namespace="default")
        pending = [w for w in workloads if not (w.get("status") or {}).get("admission")]
        by_name = {p["metadata"]["name"]: p for p in _ours(pods)}
        waiting = [n for w in pending for n in _owner_names(w) if n in by_name]
        if len(workloads) != SINGLES + 1 or not pending or _running_cpu(pods) == 0:
            return False
        assert all(_gated(by_name[n]) for n in waiting), "a pending Workload's pod is ungated"
        return True

    await eventually(some_run_others_wait, timeout=90, what="pods running, others gated")
    assert peak <= QUOTA_CPU, f"{peak} CPUs ran at once, quota {QUOTA_CPU}"
    workloads, _ = await kube.list_all(WORKLOAD, namespace="default")
    group = next(w for w in workloads if w["metadata"]["name"] == "pair")
    assert [ps["count"] for ps in group["spec"]["podSets"]] == [2]
    assert _owner_names(group) == {"grouped-0", "grouped-1"}
    singles = [w for w in workloads if w["metadata"]["name"] != "pair"]
    assert sorted(n for w in singles for n in _owner_names(w)) == [
        f"single-{i}" for i in range(SINGLES)
    ], "one Workload per pod"

    async def all_done() -> bool:
        nonlocal peak
        pods, _ = await kube.list_all(POD, namespace="default")
        peak = max(peak, _running_cpu(pods))
        done = [p for p in _ours(pods) if (p.get("status") or {}).get("phase") == "Succeeded"]
        return len(done) == len(PODS)

    await eventually(all_done, timeout=150, what="every pod Succeeded", every=0.2)
    assert peak <= QUOTA_CPU, f"{peak} CPUs ran at once, quota {QUOTA_CPU}"

    async def workloads_finished() -> bool:
        found, _ = await kube.list_all(WORKLOAD, namespace="default")
        return len(found) == SINGLES + 1 and all(
            _conditions(w).get("Finished", {}).get("status") == "True" for w in found
        )

    await eventually(workloads_finished, timeout=30, what="every Workload Finished")
    pods, _ = await kube.list_all(POD, namespace="default")
    assert all(not p["metadata"].get("finalizers") for p in _ours(pods)), "finalizers released"
