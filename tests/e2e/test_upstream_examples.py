"""Every upstream example of issue 15, applied with the real kubectl, reaches upstream's end state.

The manifests under ``tests/data/upstream/`` are upstream's files unchanged (see its README):
the Kubernetes docs' Jobs (pi, indexed, backoff limit per index, pod failure policy, success
policy, sidecar), Volcano's ``example/`` jobs that use only Volcano Job/Queue/PodGroup, and
the training operator's (release-1.9) PyTorchJob examples. The only change this test makes is
to add kubesim's annotations to each pod template, standing in for what the containers do:
``sim.shoal.io/duration`` (run time; absent for servers such as nginx or sshd, which run until
deleted) and ``sim.shoal.io/exit-code`` (per completion index where the example's script exits
by index: ``1,0`` for "even indexes exit 1"). All examples run at once on one stack; those
that reuse a job name (Volcano's kubecon-2019-china samples, the two TensorFlow benchmarks,
the MPI ones) each get a namespace of their own. Volcano's hierarchical-jobs example runs
afterwards, with the hierarchical DRF conf of Volcano's hdrf design in the
``volcano-scheduler-configmap``.
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

from services.cli.stack import Stack, StackConfig
from shared.kube import ApiError, KubeClient
from shared.kube.resources import ResourceType
from tests.e2e.e2e_cluster import (
    BATCHJOB,
    CONFIGMAP,
    POD,
    PYTORCHJOB,
    QUEUE,
    VCJOB,
    create_namespace,
)

KUBECTL = shutil.which("kubectl")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(240),
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine"),
]

Json = dict[str, Any]
UPSTREAM = Path(__file__).parents[1] / "data" / "upstream"
TEN = ",".join(["2s", "2s", "300ms", "2s", "2s", "2s", "2s", "2s", "2s", "2s"])


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    """Room for every example at once (about 60 cpus requested), on nodes as large as
    PaddlePaddle's 10-cpu limit."""
    return StackConfig(workdir=tmp_path_factory.mktemp("stack"), nodes=6, node_cpu="16")


@dataclass(frozen=True)
class Example:
    path: str
    # replica/task name (or "" for a Job's one template) → annotations added to its template
    annotations: dict[str, dict[str, str]]
    expect: Json  # what the end state must show (see ``_check``)
    namespace: str | None = None  # the manifest's own namespace, kept as upstream wrote it
    isolated: bool = False  # a namespace of its own (its job name is another example's too)
    # Files applied before it, as its README says; (path, kubectl's error) for those that a
    # current API server refuses.
    setup: tuple[str, ...] = ()
    refused: tuple[tuple[str, str], ...] = ()
    validate: str = "strict"  # kubectl's --validate for the example itself (strict: its default)


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
    # Volcano's kubecon-2019-china samples: MPI and Horovod complete when their master does
    # (TaskCompleted → CompleteJob), the TensorFlow benchmark when its workers do.
    Example(
        "volcano/examples/kubecon-2019-china/gang/mpi-example.yaml",
        {"mpimaster": _a("2s")},
        {"phase": "Completed", "succeeded": 1},
        isolated=True,
    ),
    Example(
        "volcano/examples/kubecon-2019-china/mpi-sample/mpi-example.yaml",
        {"mpimaster": _a("2s")},
        {"phase": "Completed", "succeeded": 1},
        isolated=True,
    ),
    Example(
        "volcano/examples/kubecon-2019-china/horovod-sample/lm-horovod-tf-mnist-v0.5.yaml",
        {"master": _a("2s")},
        {"phase": "Completed", "succeeded": 1},
        isolated=True,
    ),
    Example(
        "volcano/examples/kubecon-2019-china/tf-sample/tf-example.yaml",
        {"worker": _a("2s")},
        {"phase": "Completed", "succeeded": 2},
        isolated=True,
    ),
    # Its PriorityClasses are scheduling.k8s.io/v1beta1 (served until Kubernetes 1.21), and
    # the pods name them in ``priorityClass``, not a PodSpec field: Volcano's Job CRD does not
    # declare it, so kubectl's default strict validation refuses the job; with --validate=warn
    # the field is pruned and the job runs all 10 pods at the default priority, as it would on
    # a current cluster.
    Example(
        "volcano/examples/kubecon-2019-china/task-priority/elastic-job.yaml",
        {},
        {"phase": "Running", "running": 10, "pods": 10},
        isolated=True,
        validate="warn",
        refused=(
            (
                "volcano/examples/kubecon-2019-china/task-priority/elastic-job.yaml",
                'strict decoding error: unknown field "spec.tasks[0].template.spec.priorityClass"',
            ),
            (
                "volcano/examples/kubecon-2019-china/task-priority/high-priority.yaml",
                'no matches for kind "PriorityClass" in version "scheduling.k8s.io/v1beta1"',
            ),
            (
                "volcano/examples/kubecon-2019-china/task-priority/normal-priority.yaml",
                'no matches for kind "PriorityClass" in version "scheduling.k8s.io/v1beta1"',
            ),
        ),
    ),
    Example(
        "volcano/examples/integrations/tensorflow/benchmark/tf-example.yaml",
        {"worker": _a("2s")},
        {"phase": "Completed", "succeeded": 2},
        isolated=True,
    ),
    # ps-lite: the workers train, then the servers and the scheduler exit; no policy
    # completes the job early, so it is Completed when all five pods succeeded.
    Example(
        "volcano/examples/integrations/mxnet/train/train-mnist-cpu.yaml",
        {"worker": _a("2s"), "server": _a("3s"), "scheduler": _a("3s")},
        {"phase": "Completed", "succeeded": 5},
    ),
    # Each pod requests 1 cpu and limits 10 (and 30Gi): scheduled by its requests.
    Example(
        "volcano/examples/integrations/paddlepaddle/ctr-paddlepaddle-on-volcano.yaml",
        {"trainer": _a("2s")},
        {"phase": "Completed", "succeeded": 2},
    ),
    Example(
        "volcano/examples/MindSpore-example/mindspore_cpu/mindspore-cpu.yaml",
        {"pod": _a("2s")},
        {"phase": "Completed", "succeeded": 8},
    ),
    # The master sleeps an hour after mpiexec and the workers serve sshd: Running, each worker
    # on a GPU.
    Example(
        "volcano/examples/MindSpore-example/mindspore_gpu/mindspore-gpu.yaml",
        {},
        {"phase": "Running", "running": 3, "pods": 3},
    ),
    # The master starts once its 10 workers run, and completes the job when it exits.
    Example(
        "volcano/examples/task-start-dependency/mpi.yaml",
        {"mpimaster": _a("2s")},
        {"phase": "Completed", "succeeded": 1},
        isolated=True,
    ),
    Example("volcano/examples/deployment/queue.yaml", {}, {"queue": "Open"}),
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
    # Elastic, with an autoscaling/v2 Resource metric (the resource's name is not a quantity).
    Example(
        "training-operator/imagenet.yaml",
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


def manifests(example: Example) -> list[Json]:
    """The example's objects, each job's templates with the example's annotations."""
    docs = [dict(d) for d in yaml.safe_load_all((UPSTREAM / example.path).read_text()) if d]
    for doc in docs:
        if doc["kind"] not in ("Job", "PyTorchJob"):
            continue
        templates = _templates(doc)
        for name, notes in example.annotations.items():
            meta = templates[name].setdefault("metadata", {})
            meta.setdefault("annotations", {}).update(notes)
    return docs


async def kubectl(stack: Stack, *args: str, stdin: str, ok: bool = True) -> str:
    """kubectl's stdout (``ok``), or its stderr when it must fail."""
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
    if ok:
        assert proc.returncode == 0, f"kubectl {' '.join(args)}: {err.decode()}"
        return out.decode()
    assert proc.returncode != 0, f"kubectl {' '.join(args)} succeeded: {out.decode()}"
    return err.decode()


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
    if "queue" in expect and status.get("state") != expect["queue"]:
        wrong.append(f"queue state {status.get('state')} != {expect['queue']}")
    for counter in ("succeeded", "failed", "running", "failedIndexes", "completedIndexes"):
        if counter in expect and status.get(counter, 0) != expect[counter]:
            wrong.append(f"{counter} {status.get(counter, 0)!r} != {expect[counter]!r}")
    return wrong


def _resource(doc: Json) -> ResourceType:
    if doc["kind"] == "Queue":
        return QUEUE
    if doc["kind"] == "PyTorchJob":
        return PYTORCHJOB
    return BATCHJOB if doc["apiVersion"] == "batch/v1" else VCJOB


async def _pods_wrong(kube: KubeClient, name: str, namespace: str, want: int) -> list[str]:
    """A Running job has exactly ``want`` pods, each Running."""
    pods, _ = await kube.list_all(
        POD, namespace=namespace, label_selector=f"volcano.sh/job-name={name}"
    )
    phases = sorted((p.get("status") or {}).get("phase") or "" for p in pods)
    return [] if phases == ["Running"] * want else [f"pods {phases}, want {want} Running"]


async def _reaches(
    kube: KubeClient, doc: Json, namespace: str, expect: Json, deadline: float
) -> list[str]:
    rt = _resource(doc)
    name = doc["metadata"]["name"]
    wrong = ["never read"]
    while time.monotonic() < deadline:
        try:
            ns = None if rt is QUEUE else namespace
            status = (await kube.get(rt, name, ns)).get("status") or {}
        except ApiError:
            status = {}
        wrong = _check(status, expect)
        if not wrong and "pods" in expect:
            wrong = await _pods_wrong(kube, name, namespace, expect["pods"])
        if not wrong:
            return []
        await asyncio.sleep(1.0)
    return wrong


async def _apply(stack: Stack, example: Example, namespace: str) -> list[Json]:
    for path, message in example.refused:
        text = (UPSTREAM / path).read_text()
        err = await kubectl(stack, "apply", "-n", namespace, "-f", "-", stdin=text, ok=False)
        assert message in err, err
    for path in example.setup:
        setup = [d for d in yaml.safe_load_all((UPSTREAM / path).read_text()) if d]
        await _apply_queues_first(stack, setup, ["apply", "-f", "-"])
    docs = manifests(example)
    args = ["apply", f"--validate={example.validate}", "-f", "-"]
    args += [] if example.namespace else ["-n", namespace]
    await _apply_queues_first(stack, docs, args)
    return docs


async def _apply_queues_first(stack: Stack, docs: list[Json], args: list[str]) -> None:
    """The Queues, then once each is Open the rest: Volcano's job webhook refuses a job to a
    queue its queue controller has not opened yet (kubesim opens one at creation, Shoal's job
    controller within moments on a real cluster), so Volcano's e2e waits for it too."""
    queues = [d for d in docs if d["kind"] == "Queue"]
    if queues:
        await kubectl(stack, *args, stdin=yaml.safe_dump_all(queues))
        names = [f"queue/{q['metadata']['name']}" for q in queues]
        wait = ["wait", "--for=jsonpath={.status.state}=Open", "--timeout=30s", *names]
        await kubectl(stack, *wait, stdin="")
    rest = [d for d in docs if d["kind"] != "Queue"]
    if rest:
        await kubectl(stack, *args, stdin=yaml.safe_dump_all(rest))


async def test_every_upstream_example_reaches_its_upstream_end_state(
    stack: Stack, kube: KubeClient, namespace: str
) -> None:
    await create_namespace(kube, "kubeflow")
    placed: list[tuple[Example, Json, str]] = []
    for i, example in enumerate(EXAMPLES):
        target = example.namespace or (f"{namespace}-{i}" if example.isolated else namespace)
        if example.isolated:
            await create_namespace(kube, target)
        placed += [(example, doc, target) for doc in await _apply(stack, example, target)]
    deadline = time.monotonic() + 150
    checks: list[Awaitable[list[str]]] = [
        _reaches(kube, doc, target, example.expect, deadline) for example, doc, target in placed
    ]
    results = await asyncio.gather(*checks)
    failures = {
        f"{example.path} {doc['metadata']['name']}": wrong
        for (example, doc, _), wrong in zip(placed, results, strict=True)
        if wrong
    }
    assert not failures, failures


# Volcano's hdrf design (docs/design/hdrf.md): drf with ``enableHierarchy``, and no
# proportion plugin, which it conflicts with.
HDRF_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
    enableHierarchy: true
  - name: predicates
  - name: nodeorder
"""

HIERARCHICAL = Example(
    "volcano/examples/hierarchical-jobs/jobs.yaml",
    {},
    {"phase": "Running", "running": 6, "pods": 6},
    setup=("volcano/examples/hierarchical-jobs/queues.yaml",),
)


async def test_hierarchical_jobs_run_under_hierarchical_drf(
    stack: Stack, kube: KubeClient, namespace: str
) -> None:
    conf = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "volcano-scheduler-configmap", "namespace": namespace},
        "data": {"volcano-scheduler.conf": HDRF_CONF},
    }
    await kube.create(CONFIGMAP, conf)
    try:
        docs = await _apply(stack, HIERARCHICAL, namespace)
        deadline = time.monotonic() + 60
        checks = [_reaches(kube, doc, namespace, HIERARCHICAL.expect, deadline) for doc in docs]
        results = await asyncio.gather(*checks)
        failures = {
            doc["metadata"]["name"]: wrong
            for doc, wrong in zip(docs, results, strict=True)
            if wrong
        }
        assert not failures, failures
    finally:
        await kube.delete(CONFIGMAP, "volcano-scheduler-configmap", namespace)
