"""The real kubectl against kubesim: apply the example jobs, get, watch, delete."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from kubernetes_asyncio import client, watch

from services.kubesim.app import KubeSim
from tests.integration.kubesim.kubesim_helpers import KUBECTL, kubectl, run_kubectl

EXAMPLES = Path(__file__).resolve().parents[3] / "deploy" / "examples"
pytestmark = [
    pytest.mark.kubesim,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine"),
]


# Re-applying an unchanged Volcano Job is refused, as on a real Volcano cluster
# (volcano-sh/volcano#2238): kubectl's merge patch replaces `tasks` with the manifest's, without
# the defaults Volcano's mutating webhook added on create, and validateJobUpdate allows no change
# beyond minAvailable, replicas and priorityClassName.
REAPPLY_VOLCANO = (
    "job updates may not change fields other than `minAvailable`, `tasks[*].replicas under spec` "
    "and `PriorityClassName`"
)
# Re-applying the unchanged PyTorchJob is "configured", as against the training operator's CRD:
# its schema defaults the Master's port `protocol: TCP`, and kubectl's JSON merge patch replaces
# the manifest's `ports` list, which the server defaults again, so nothing changes.
REAPPLY_PYTORCHJOB = "configured"


@pytest.mark.parametrize(
    ("manifest", "resource", "name", "reapplied"),
    [
        ("volcano-job.yaml", "jobs.batch.volcano.sh", "mpi-gang", REAPPLY_VOLCANO),
        ("pytorchjob.yaml", "pytorchjobs", "mnist-ddp", REAPPLY_PYTORCHJOB),
    ],
    ids=["volcano-job", "pytorchjob"],
)
async def test_apply_get_delete_examples(
    sim: KubeSim, manifest: str, resource: str, name: str, reapplied: str
) -> None:
    out = await kubectl(sim, "apply", "-f", str(EXAMPLES / manifest))
    assert "created" in out
    _, again, err = await run_kubectl(sim, "apply", "-f", str(EXAMPLES / manifest))
    assert reapplied in again + err
    obj = json.loads(await kubectl(sim, "get", resource, name, "-o", "json"))
    assert obj["metadata"]["name"] == name and obj["metadata"]["uid"]
    assert obj["metadata"]["generation"] == 1  # a re-apply that was let through changed nothing
    await kubectl(sim, "delete", resource, name)
    listed = json.loads(await kubectl(sim, "get", resource, "-o", "json"))
    assert name not in [item["metadata"]["name"] for item in listed["items"]]


async def test_get_pods_json_and_watch_sees_a_change(sim: KubeSim, tmp_path: Path) -> None:
    manifest = tmp_path / "pod.yaml"
    manifest.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: kubectl-pod\n  labels: {app: demo}\n"
        "spec:\n  containers: [{name: c, image: busybox}]\n"
    )
    await kubectl(sim, "apply", "-f", str(manifest))
    pods = json.loads(await kubectl(sim, "get", "pods", "-l", "app=demo", "-o", "json"))
    assert [p["metadata"]["name"] for p in pods["items"]] == ["kubectl-pod"]
    assert KUBECTL is not None
    watcher = await asyncio.create_subprocess_exec(
        KUBECTL,
        "get",
        "pods",
        "kubectl-pod",
        "--watch",
        "--request-timeout=10s",
        stdout=asyncio.subprocess.PIPE,
        env={**os.environ, "KUBECONFIG": str(sim.kubeconfig_path)},
    )
    assert watcher.stdout is not None
    header = await asyncio.wait_for(watcher.stdout.readline(), 10)
    first = await asyncio.wait_for(watcher.stdout.readline(), 10)
    assert b"STATUS" in header and b"Pending" in first
    await kubectl(sim, "label", "pod", "kubectl-pod", "changed=yes")
    binding = tmp_path / "bind.json"
    binding.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Binding",
                "metadata": {"name": "kubectl-pod"},
                "target": {"kind": "Node", "name": "node-0"},
            }
        )
    )
    await kubectl(
        sim,
        "create",
        "--raw",
        "/api/v1/namespaces/default/pods/kubectl-pod/binding",
        "-f",
        str(binding),
    )
    lines: list[bytes] = []
    while not any(b"Running" in line for line in lines):
        lines.append(await asyncio.wait_for(watcher.stdout.readline(), 10))
    assert any(b"Running" in line for line in lines)  # the watch saw the kubelet start it
    watcher.terminate()
    await watcher.wait()
    await kubectl(sim, "delete", "pod", "kubectl-pod")
    out = await kubectl(sim, "get", "pods", "-l", "app=demo", "-o", "name")
    assert out.strip() == ""


NETWORK_POLICY = """\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: np-job
spec:
  podSelector:
    matchLabels: {volcano.sh/job-name: np-job, volcano.sh/job-namespace: default}
  ingress:
    - from:
        - podSelector:
            matchLabels: {volcano.sh/job-name: np-job, volcano.sh/job-namespace: default}
"""


async def test_network_policy_apply_get_watch_delete(
    sim: KubeSim, api: client.ApiClient, tmp_path: Path
) -> None:
    """networking.k8s.io/v1 NetworkPolicy (the Volcano svc plugin's): discovery (kubectl
    resolves ``netpol``), create with the API server's defaults, the printer's columns, a
    watch that sees it go, delete."""
    manifest = tmp_path / "netpol.yaml"
    manifest.write_text(NETWORK_POLICY)
    networking = client.NetworkingV1Api(api)
    listed = await networking.list_namespaced_network_policy("default")
    stream = watch.Watch().stream(
        networking.list_namespaced_network_policy,
        "default",
        resource_version=listed.metadata.resource_version,
        timeout_seconds=10,
    )
    assert "created" in await kubectl(sim, "apply", "-f", str(manifest))
    obj = json.loads(await kubectl(sim, "get", "netpol", "np-job", "-o", "json"))
    assert obj["apiVersion"] == "networking.k8s.io/v1"
    assert obj["spec"]["policyTypes"] == ["Ingress"]  # SetDefaults_NetworkPolicy
    table = await kubectl(sim, "get", "networkpolicy", "np-job")
    header, row = table.splitlines()
    assert header.split() == ["NAME", "POD-SELECTOR", "AGE"]
    assert row.split()[:2] == [
        "np-job", "volcano.sh/job-name=np-job,volcano.sh/job-namespace=default"
    ]  # fmt: skip
    await kubectl(sim, "delete", "networkpolicies.networking.k8s.io", "np-job")
    seen: list[str] = []
    async for event in stream:
        seen.append(f"{event['type']} {event['object'].metadata.name}")
        if event["type"] == "DELETED":
            break
    assert seen == ["ADDED np-job", "DELETED np-job"]
    assert (await kubectl(sim, "get", "networkpolicies", "-o", "name")).strip() == ""
