"""Every upstream example of issue 15, applied with the real kubectl, reaches upstream's end state.

The manifests under ``tests/data/upstream/`` are upstream's files unchanged (see its README):
the Kubernetes docs' Jobs (pi, indexed, backoff limit per index, pod failure policy, success
policy, sidecar), Volcano's ``example/`` jobs that use only Volcano Job/Queue/PodGroup, and
the training operator's (release-1.9) PyTorchJob examples. The only change this test makes is
to add kubesim's annotations to each pod template, standing in for what the containers do:
``sim.shoal.io/duration`` (run time; absent for servers such as nginx or sshd, which run until
deleted) and ``sim.shoal.io/exit-code`` (per completion index where the example's script exits
by index: ``1,0`` for "even indexes exit 1"). All examples run at once on one stack.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.cli.stack import Stack
from shared.kube import ApiError, KubeClient
from tests.e2e.e2e_cluster import BATCHJOB, PYTORCHJOB, VCJOB, create_namespace

KUBECTL = shutil.which("kubectl")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(240),
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine"),
]

Json = dict[str, Any]
UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"
TEN = ",".join(["2s", "2s", "300ms", "2s", "2s", "2s", "2s", "2s", "2s", "2s"])


@dataclass(frozen=True)
class Example:
    path: str
    # replica/task name (or "" for a Job's one template) → annotations added to its template
    annotations: dict[str, dict[str, str]]
    expect: Json  # what the end state must show (see ``_check``)
    namespace: str | None = None  # the manifest's own namespace, kept as upstream wrote it


def _a(duration: str | None = None, exit_code: str | None = None) -> dict[str, str]:
    out = {}
    if duration is not None:
        out["sim.shoal.io/duration"] = duration
    if exit_code is not None:
        out["sim.shoal.io/exit-code"] = exit_code
    return out


EXAMPLES = [
    Example(
        "kubernetes/job.yaml",
        {"": _a("1s")},
        {"condition": ("Complete", None), "succeeded": 1},
    ),
    Example(
        "kubernetes/indexed-job.yaml",
        {"": _a("500ms")},
        {"condition": ("Complete", None), "succeeded": 5, "completedIndexes": "0-4"},
    ),
    Example(
        "kubernetes/job-backoff-limit-per-index-example.yaml",
        {"": _a("300ms", "1,0")},
        {
            "condition": ("Failed", "FailedIndexes"),
            "succeeded": 5,
            "failed": 10,
            "failedIndexes": "0,2,4,6,8",
            "completedIndexes": "1,3,5,7,9",
        },
    ),
    Example(
        "kubernetes/job-pod-failure-policy-example.yaml",
        {"": _a("1s", "42")},
        {"condition": ("Failed", "PodFailurePolicy")},
    ),
    Example(
        "kubernetes/job-success-policy.yaml",
        {"": _a(TEN, "1,1,0,1,1,1,1,1,1,1")},
        {
            "condition": ("Complete", None),
            "also": ("SuccessCriteriaMet", "SuccessPolicy"),
            "succeeded": 1,
            "completedIndexes": "2",
        },
    ),
    Example(
        "kubernetes/job-sidecar.yaml",
        {"": _a("1s")},
        {"condition": ("Complete", None), "succeeded": 1},
    ),
    Example("volcano/examples/job.yaml", {}, {"phase": "Running", "running": 6}),
    Example("volcano/examples/job-plugin.yaml", {}, {"phase": "Running", "running": 3}),
    Example(
        "volcano/examples/task-start-dependency-job.yaml",
        {},
        {"phase": "Running", "running": 11},
    ),
    Example(
        "volcano/examples/mpi-example.yaml",
        {"mpimaster": _a("2s")},
        {"phase": "Completed"},
    ),
    # The workers finish; their TaskCompleted policy completes the job (the ps is killed).
    Example(
        "volcano/examples/tf-dist-mnist-example.yaml",
        {"worker": _a("2s")},
        {"phase": "Completed"},
    ),
    # The ray plugin is Volcano's, accepted (not implemented in Shoal); the cluster runs.
    Example("volcano/examples/ray-example.yaml", {}, {"phase": "Running", "running": 3}),
    Example(
        "training-operator/simple.yaml",
        {"Master": _a("2s"), "Worker": _a("2s")},
        {"condition": ("Succeeded", None)},
        namespace="kubeflow",
    ),
    Example(
        "training-operator/pytorch_job_mnist_gloo.yaml",
        {"Master": _a("2s"), "Worker": _a("2s")},
        {"condition": ("Succeeded", None)},
    ),
    Example(
        "training-operator/echo.yaml",
        {"Worker": _a("2s")},
        {"condition": ("Succeeded", None)},
    ),
]


def _templates(doc: Json) -> dict[str, Json]:
    spec = doc["spec"]
    if doc["kind"] == "PyTorchJob":
        return {name: r["template"] for name, r in spec["pytorchReplicaSpecs"].items()}
    if "tasks" in spec:
        return {task["name"]: task["template"] for task in spec["tasks"]}
    return {"": spec["template"]}


def manifest(example: Example) -> Json:
    docs = [d for d in yaml.safe_load_all((UPSTREAM / example.path).read_text()) if d]
    (doc,) = docs
    templates = _templates(doc)
    for name, notes in example.annotations.items():
        meta = templates[name].setdefault("metadata", {})
        meta.setdefault("annotations", {}).update(notes)
    return dict(doc)


async def kubectl(stack: Stack, *args: str, stdin: str) -> str:
    assert KUBECTL is not None
    proc = await asyncio.create_subprocess_exec(
        KUBECTL,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "KUBECONFIG": str(stack.kubeconfig)},
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), 30)
    assert proc.returncode == 0, f"kubectl {' '.join(args)}: {err.decode()}"
    return out.decode()


def _true(status: Json, kind: str) -> Json | None:
    for cond in status.get("conditions") or []:
        if cond.get("type") == kind and cond.get("status") == "True":
            return dict(cond)
    return None


def _check(status: Json, expect: Json) -> list[str]:
    """What differs from the expected end state ([] when reached)."""
    wrong: list[str] = []
    if "condition" in expect:
        kind_, reason = expect["condition"]
        cond = _true(status, kind_)
        if cond is None or (reason is not None and cond.get("reason") != reason):
            wrong.append(f"condition {kind_}/{reason}: {status.get('conditions')}")
    if "also" in expect:
        kind_, reason = expect["also"]
        cond = _true(status, kind_)
        if cond is None or cond.get("reason") != reason:
            wrong.append(f"condition {kind_}/{reason}: {status.get('conditions')}")
    if "phase" in expect:
        phase = (status.get("state") or {}).get("phase")
        if phase != expect["phase"]:
            wrong.append(f"phase {phase} != {expect['phase']}")
    for counter in ("succeeded", "failed", "running", "failedIndexes", "completedIndexes"):
        if counter in expect and status.get(counter, 0) != expect[counter]:
            wrong.append(f"{counter} {status.get(counter, 0)!r} != {expect[counter]!r}")
    return wrong


async def _reaches(
    kube: KubeClient, doc: Json, namespace: str, expect: Json, deadline: float
) -> list[str]:
    rt = BATCHJOB if doc["apiVersion"] == "batch/v1" else VCJOB
    if doc["kind"] == "PyTorchJob":
        rt = PYTORCHJOB
    name = doc["metadata"]["name"]
    wrong = ["never read"]
    while time.monotonic() < deadline:
        try:
            status = (await kube.get(rt, name, namespace)).get("status") or {}
        except ApiError:
            status = {}
        wrong = _check(status, expect)
        if not wrong:
            return []
        await asyncio.sleep(1.0)
    return wrong


async def test_every_upstream_example_reaches_its_upstream_end_state(
    stack: Stack, kube: KubeClient, namespace: str
) -> None:
    await create_namespace(kube, "kubeflow")
    placed: list[tuple[Example, Json, str]] = []
    for example in EXAMPLES:
        doc = manifest(example)
        target = example.namespace or namespace
        args = ["apply", "-f", "-"] + ([] if example.namespace else ["-n", namespace])
        await kubectl(stack, *args, stdin=yaml.safe_dump(doc))
        placed.append((example, doc, target))
    deadline = time.monotonic() + 150
    checks: list[Awaitable[list[str]]] = [
        _reaches(kube, doc, target, example.expect, deadline) for example, doc, target in placed
    ]
    results = await asyncio.gather(*checks)
    failures = {
        example.path: wrong for (example, _, _), wrong in zip(placed, results, strict=True) if wrong
    }
    assert not failures, failures
