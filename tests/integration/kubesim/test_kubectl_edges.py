"""What a kubectl user meets beyond apply/get: typed `create` (protobuf), unknown kinds, logs,
explain, cordon, and the columns of `kubectl get` (server-side Table output)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from services.kubesim.app import KubeSim
from tests.integration.kubesim.kubesim_helpers import kubectl, needs_kubectl, run_kubectl

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "deploy" / "examples"
KUEUE = ROOT / "tests" / "data" / "upstream" / "kueue"
pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session"), needs_kubectl]


@pytest.mark.parametrize(
    ("args", "resource", "check"),
    [
        (["namespace", "edges"], "namespace/edges", ".status.phase"),
        (["configmap", "cm-edges", "--from-literal=key=value"], "configmap/cm-edges", ".data.key"),
        (["secret", "generic", "s-edges", "--from-literal=key=value"], "secret/s-edges",
         ".data.key"),
        (["job", "job-edges", "--image=busybox", "--", "echo", "hi"], "job.batch/job-edges",
         ".spec.template.spec.containers[0].command"),
    ],
    ids=["namespace", "configmap", "secret", "job"],
)  # fmt: skip
async def test_kubectl_create_typed(
    sim: KubeSim, args: list[str], resource: str, check: str
) -> None:
    out = await kubectl(sim, "create", *args)
    assert out.strip() == f"{resource} created"
    value = await kubectl(sim, "get", resource, "-o", f"jsonpath={{{check}}}")
    kind = resource.split("/")[0].split(".")[0]
    expected = {
        "namespace": "Active",
        "configmap": "value",
        "secret": base64.b64encode(b"value").decode(),
        "job": '["echo","hi"]',
    }[kind]
    assert value == expected


async def test_unknown_kind_is_no_matches_for_kind(sim: KubeSim, tmp_path: Path) -> None:
    manifest = tmp_path / "widget.yaml"
    manifest.write_text("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n")
    code, _, err = await run_kubectl(sim, "apply", "-f", str(manifest))
    assert code == 1
    assert 'no matches for kind "Widget" in version "example.com/v1"' in err
    assert "proto:" not in err


async def test_logs_say_they_are_simulated(sim: KubeSim) -> None:
    await kubectl(sim, "run", "logged", "--image=busybox", "--restart=Never")
    out = await kubectl(sim, "logs", "logged")
    assert out.startswith("[kubesim] logs are simulated")
    assert "container logged (image busybox)" in out
    code, _, err = await run_kubectl(sim, "logs", "logged", "-c", "nope")
    assert code == 1 and "container nope is not valid for pod logged" in err


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("vcjob.spec.minAvailable", "FIELD: minAvailable <integer>"),
        ("clusterqueues.spec.cohortName", "FIELD: cohortName <string>"),
        ("pytorchjobs.spec", "pytorchReplicaSpecs"),
        ("queues.scheduling.volcano.sh.spec", "weight"),
        ("vcjob.spec.policies", "FIELD: policies <[]Object>"),
        ("podgroups.spec.minMember", "MinMember defines the minimal number of members/tasks"),
        ("pytorchjobs.spec.nprocPerNode", "FIELD: nprocPerNode <string>"),
    ],
    ids=[
        "vcjob",
        "clusterqueue-v1beta2",
        "pytorchjob",
        "queue",
        "vcjob-policies",
        "podgroup-upstream-text",
        "pytorchjob-nprocpernode",
    ],
)
async def test_explain_has_the_crd_schema(sim: KubeSim, field: str, expected: str) -> None:
    out = await kubectl(sim, "explain", field)
    assert expected in out


async def test_cordoned_node_shows_scheduling_disabled(sim: KubeSim) -> None:
    await kubectl(sim, "cordon", "node-2")
    rows = (await kubectl(sim, "get", "nodes", "--no-headers")).splitlines()
    status = {row.split()[0]: row.split()[1] for row in rows}
    assert status["node-2"] == "Ready,SchedulingDisabled" and status["node-1"] == "Ready"
    await kubectl(sim, "uncordon", "node-2")


async def _status(sim: KubeSim, resource: str, status: dict[str, object]) -> None:
    await kubectl(
        sim, "patch", resource, "--subresource=status", "--type=merge", "-p",
        json.dumps({"status": status}),
    )  # fmt: skip


async def _setup_printed_objects(sim: KubeSim, tmp_path: Path) -> None:
    await kubectl(sim, "apply", "-f", str(EXAMPLES / "volcano-job.yaml"))
    await kubectl(sim, "apply", "-f", str(EXAMPLES / "pytorchjob.yaml"))
    await kubectl(sim, "apply", "-f", str(KUEUE / "single-clusterqueue-setup.yaml"))
    podgroup = tmp_path / "pg.yaml"
    podgroup.write_text(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata:\n  name: pg-print\n"
        "spec:\n  minMember: 2\n  queue: default\n"
    )
    await kubectl(sim, "apply", "-f", str(podgroup))
    await _status(sim, "vcjob/mpi-gang", {"state": {"phase": "Running"}, "minAvailable": 3,
                                          "running": 3})  # fmt: skip
    # No status subresource on PodGroup (as upstream): status is patched with the object.
    await kubectl(
        sim, "patch", "podgroup/pg-print", "--type=merge", "-p",
        json.dumps({"status": {"phase": "Running", "running": 2}}),
    )  # fmt: skip
    await _status(sim, "pytorchjob/mnist-ddp", {"conditions": [
        {"type": "Created", "status": "True"}, {"type": "Running", "status": "True"}]})  # fmt: skip
    await _status(sim, "clusterqueue/cluster-queue", {"pendingWorkloads": 4})
    await kubectl(sim, "create", "job", "printed", "--image=busybox")
    await _status(sim, "job/printed", {"succeeded": 1, "startTime": "2024-01-01T00:00:00Z",
        "completionTime": "2024-01-01T00:01:30Z",
        "conditions": [{"type": "Complete", "status": "True"}]})  # fmt: skip


GET_COLUMNS = [
    ("jobs.batch", "printed", ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
     ["printed", "Complete", "1/1", "90s"]),
    ("vcjob", "mpi-gang", ["NAME", "STATUS", "MINAVAILABLE", "RUNNINGS", "AGE"],
     ["mpi-gang", "Running", "3", "3"]),
    ("podgroups", "pg-print", ["NAME", "STATUS", "MINMEMBER", "RUNNINGS", "AGE"],
     ["pg-print", "Running", "2", "2"]),
    ("queues.scheduling.volcano.sh", "default", ["NAME", "PARENT"], ["default"]),
    ("pytorchjobs", "mnist-ddp", ["NAME", "STATE", "AGE"], ["mnist-ddp", "Running"]),
    ("clusterqueues", "cluster-queue", ["NAME", "COHORT", "PENDING", "WORKLOADS"],
     ["cluster-queue", "4"]),
    ("localqueues", "user-queue", ["NAME", "CLUSTERQUEUE", "PENDING", "WORKLOADS", "ADMITTED",
                                   "WORKLOADS"], ["user-queue", "cluster-queue"]),
    ("nodes", "node-0", ["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
     ["node-0", "Ready", "<none>"]),
]  # fmt: skip


async def test_get_prints_upstream_columns(sim: KubeSim, tmp_path: Path) -> None:
    await _setup_printed_objects(sim, tmp_path)
    for resource, name, header, cells in GET_COLUMNS:
        lines = (await kubectl(sim, "get", resource, name)).splitlines()
        assert lines[0].split() == header, resource
        assert lines[1].split()[: len(cells)] == cells, resource
