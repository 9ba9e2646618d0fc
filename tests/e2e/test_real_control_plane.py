"""What only the real control plane can show: two Job controllers on one cluster, and deploy/'s
RBAC enforced by kube-apiserver's authorizer.

The stack runs kube-controller-manager with its Job controller on (``builtin_job_controller``):
Shoal's job controller claims the Jobs whose ``spec.managedBy`` names it, the built-in one the
rest. Each Job must get exactly its pods, once, whoever runs it and whoever schedules its pods.

Each Shoal service holds only its own ServiceAccount's token; the table below is what deploy/rbac
grants and denies, asked of the API server (SubjectAccessReview) and, for what is denied, tried
with the service's own credentials.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.cli.controlplane.real import (
    MANAGED_BY,
    SERVICE_ACCOUNTS,
    SYSTEM_NAMESPACE,
    tools_dir,
)
from services.cli.stack import Stack, StackConfig
from shared.kube import ApiError, KubeClient
from tests.e2e.e2e_cluster import BATCHJOB, POD, Observer, container, eventually, indexed_job

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(300),
    pytest.mark.control_plane("real", reason="needs kube-controller-manager and RBAC"),
]

Json = dict[str, Any]


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    return StackConfig(
        workdir=tmp_path_factory.mktemp("real"),
        nodes=4,
        node_cpu="8",
        builtin_job_controller=True,
    )


def _job(name: str, namespace: str, *, scheduler: str, managed_by: str | None) -> Json:
    """The e2e Indexed Job (4 completions, 2 at a time), for ``scheduler``, claimed by
    ``managed_by`` (None: Kubernetes' own Job controller)."""
    job = indexed_job(name, namespace, completions=4, parallelism=2)
    job["spec"]["template"]["spec"]["schedulerName"] = scheduler
    if managed_by is not None:
        job["spec"]["managedBy"] = managed_by
    return job


def _complete(job: Json) -> bool:
    return any(
        c.get("type") == "Complete" and c.get("status") == "True"
        for c in (job.get("status") or {}).get("conditions") or []
    )


@pytest.mark.parametrize(
    ("name", "scheduler", "managed_by", "runs_it"),
    [
        ("builtin-default", "default-scheduler", None, "kube-controller-manager"),
        ("builtin-shoal", "shoal", None, "kube-controller-manager"),
        ("shoal-shoal", "shoal", MANAGED_BY, "shoal"),
        ("shoal-default", "default-scheduler", MANAGED_BY, "shoal"),
    ],
)
async def test_each_job_gets_exactly_its_pods_once_with_two_job_controllers(
    kube: KubeClient,
    observer: Observer,
    namespace: str,
    name: str,
    scheduler: str,
    managed_by: str | None,
    runs_it: str,
) -> None:
    await kube.create(BATCHJOB, _job(name, namespace, scheduler=scheduler, managed_by=managed_by))
    job: Json = {}

    async def complete() -> bool:
        nonlocal job
        job = await kube.get(BATCHJOB, name, namespace)
        return _complete(job)

    await eventually(complete, timeout=90, what=f"{runs_it} to complete job {name}")
    pods = observer.pods_of(namespace, name)
    indexes = sorted(
        p.last["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] for p in pods
    )
    assert indexes == ["0", "1", "2", "3"], f"pods of {name}: {[p.name for p in pods]}"
    assert not observer.rebound()
    assert job["status"]["succeeded"] == 4
    # The controller that ran the Job is the one that wrote its status: Shoal's names its
    # field manager after itself, kube-controller-manager's is its own.
    managers = {m.get("manager", "") for m in job["metadata"].get("managedFields") or []}
    if runs_it == "shoal":
        assert not any(m.startswith("kube-controller-manager") for m in managers), managers
    else:
        assert any(m.startswith("kube-controller-manager") for m in managers), managers


@dataclasses.dataclass(frozen=True)
class Access:
    service: str
    verb: str
    resource: str
    group: str = ""
    subresource: str = ""
    allowed: bool = False


ACCESS = [
    # The binder binds and evicts; it never creates or deletes pods.
    Access("binder", "create", "pods", subresource="binding", allowed=True),
    Access("binder", "create", "pods", subresource="eviction", allowed=True),
    Access("binder", "create", "pods"),
    Access("binder", "delete", "pods"),
    Access("binder", "patch", "podgroups", "scheduling.volcano.sh", allowed=True),
    Access("binder", "create", "podgroups", "scheduling.volcano.sh"),
    Access("binder", "create", "secrets"),
    # It writes the Kueue statuses the scheduler decides, the cohorts' fair shares included.
    Access("binder", "patch", "clusterqueues", "kueue.x-k8s.io", "status", allowed=True),
    Access("binder", "patch", "cohorts", "kueue.x-k8s.io", "status", allowed=True),
    Access("binder", "patch", "cohorts", "kueue.x-k8s.io"),
    # The job controller makes pods and PodGroups; it does not bind.
    Access("jobcontroller", "create", "pods", allowed=True),
    Access("jobcontroller", "create", "pods", subresource="binding"),
    Access("jobcontroller", "create", "podgroups", "scheduling.volcano.sh", allowed=True),
    Access("jobcontroller", "get", "secrets", allowed=True),  # its ssh Secrets (README)
    Access("jobcontroller", "list", "secrets"),
    Access("jobcontroller", "create", "workloads", "kueue.x-k8s.io", allowed=True),
    Access("jobcontroller", "patch", "workloads", "kueue.x-k8s.io", "status", allowed=True),
    Access("jobcontroller", "patch", "clusterqueues", "kueue.x-k8s.io", "status"),
    # The watcher only reads.
    Access("watcher", "watch", "pods", allowed=True),
    Access("watcher", "list", "jobs", "batch", allowed=True),
    Access("watcher", "create", "pods"),
    Access("watcher", "delete", "jobs", "batch"),
    # The webhook reads what its rules need and writes only its Secret and registrations.
    Access("webhook", "list", "queues", "scheduling.volcano.sh", allowed=True),
    Access("webhook", "create", "pods"),
    Access("webhook", "update", "clusterroles", "rbac.authorization.k8s.io"),
    # The scheduler talks to Kafka only.
    Access("scheduler", "list", "pods"),
    Access("scheduler", "create", "pods", subresource="binding"),
    # No service may grant itself more.
    Access("jobcontroller", "create", "clusterrolebindings", "rbac.authorization.k8s.io"),
    Access("binder", "escalate", "clusterroles", "rbac.authorization.k8s.io"),
]


@pytest.mark.parametrize(
    "access",
    ACCESS,
    ids=[
        f"{a.service}-{a.verb}-{a.resource}{'-' + a.subresource if a.subresource else ''}"
        for a in ACCESS
    ],
)
async def test_service_accounts_get_only_what_deploy_rbac_grants(
    stack: Stack, kube: KubeClient, access: Access
) -> None:
    assert stack.real is not None
    user = f"system:serviceaccount:{SYSTEM_NAMESPACE}:{SERVICE_ACCOUNTS[access.service]}"
    attributes: Json = {
        "namespace": "default",
        "verb": access.verb,
        "group": access.group,
        "resource": access.resource,
    }
    if access.subresource:
        attributes["subresource"] = access.subresource
    status, review = await stack.real.request(
        "POST",
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "spec": {"user": user, "resourceAttributes": attributes},
        },
    )
    assert status == 201, review
    assert review["status"].get("allowed", False) is access.allowed, review["status"]


async def test_a_service_token_is_refused_what_it_is_not_granted(
    stack: Stack, namespace: str
) -> None:
    """The binder's own credentials, as the binder process holds them: it cannot create a pod."""
    assert stack.real is not None
    binder = await KubeClient.connect(str(stack.real.service_kubeconfig("binder")))
    try:
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "forged", "namespace": namespace},
            "spec": {"containers": [container("x")]},
        }
        with pytest.raises(ApiError) as refused:
            await binder.create(POD, pod, namespace=namespace)
        assert refused.value.status == 403
    finally:
        await binder.close()


# --- deploy/ as a user installs it: helm and kustomize, checked by the real API server ---------

DEPLOY = Path(__file__).parents[2] / "deploy"
KUBECTL = shutil.which("kubectl")


async def _run(argv: list[str], stack: Stack, stdin: bytes | None = None) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "KUBECONFIG": str(stack.kubeconfig)},
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin), 120)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


# The local plane registered Shoal's webhook by URL; a manifest registering it by Service is
# checked by a whole-object replace (a server-side apply would merge the two into an object
# with both, which the API server refuses). Kinds of other projects' CRDs are left out.
_REGISTRATIONS = {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}
_FOREIGN = {"kafka.strimzi.io"}


def _registers_webhook(doc: Json) -> bool:
    conversion = (doc.get("spec") or {}).get("conversion") or {}
    return doc["kind"] in _REGISTRATIONS or conversion.get("strategy") == "Webhook"


async def _dry_run(stack: Stack, rendered: str) -> str:
    """The API server decodes, defaults, validates (schemas, RBAC escalation, admission) and
    stores nothing: ``--dry-run=server``."""
    assert KUBECTL is not None, "kubectl is needed"
    docs = [
        d
        for d in yaml.safe_load_all(rendered)
        if d and str(d.get("apiVersion", "")).split("/")[0] not in _FOREIGN
    ]
    out = ""
    applied = [d for d in docs if not _registers_webhook(d)]
    replaced = [d for d in docs if _registers_webhook(d)]
    for verb, chosen in (
        (["apply", "--server-side", "--force-conflicts"], applied),
        (["replace"], replaced),
    ):
        if not chosen:
            continue
        argv = [KUBECTL, *verb, "--dry-run=server", "-f", "-"]
        code, text, err = await _run(argv, stack, yaml.safe_dump_all(chosen).encode())
        assert code == 0, err
        out += text
    return out


async def test_the_helm_chart_lints_renders_and_passes_a_server_dry_run(stack: Stack) -> None:
    helm = str(tools_dir() / "bin" / "helm")
    chart = str(DEPLOY / "helm" / "shoal")
    code, out, err = await _run([helm, "lint", "--strict", chart], stack)
    assert code == 0, out + err
    code, rendered, err = await _run(
        [helm, "template", "shoal", chart, "--namespace", SYSTEM_NAMESPACE, "--include-crds"],
        stack,
    )
    assert code == 0, err
    kinds = {doc["kind"] for doc in yaml.safe_load_all(rendered) if doc}
    assert {"Deployment", "ClusterRole", "CustomResourceDefinition"} <= kinds
    assert {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} <= kinds
    out = await _dry_run(stack, rendered)
    assert "deployment.apps/shoal-scheduler serverside-applied (server dry run)" in out
    assert "shoal-mutating-webhook-configuration replaced (server dry run)" in out


@pytest.mark.parametrize("path", ["base", "overlays/dev", "overlays/secure"])
async def test_each_kustomization_passes_a_server_dry_run(stack: Stack, path: str) -> None:
    assert KUBECTL is not None, "kubectl is needed"
    kustomization = str(DEPLOY / "kustomize" / path)
    code, rendered, err = await _run([KUBECTL, "kustomize", kustomization], stack)
    assert code == 0, err
    out = await _dry_run(stack, rendered)
    assert "deployment.apps/shoal-scheduler serverside-applied (server dry run)" in out


UPSTREAM_CRDS = Path(__file__).parents[1] / "data" / "upstream-crds"
# (upstream CRD file, field path under the stored version's schema): one field of each kind.
EXPLAINED = [
    ("volcano/batch.volcano.sh_jobs.yaml", "spec.policies"),
    ("volcano/scheduling.volcano.sh_podgroups.yaml", "spec.minMember"),
    ("volcano/scheduling.volcano.sh_queues.yaml", "spec.weight"),
    ("volcano/topology.volcano.sh_hypernodes.yaml", "spec.tier"),
    ("volcano/bus.volcano.sh_commands.yaml", "action"),
    ("training-operator/kubeflow.org_pytorchjobs.yaml", "spec.runPolicy"),
    ("kueue/kueue.x-k8s.io_workloads.yaml", "spec.podSets"),
    ("kueue/kueue.x-k8s.io_clusterqueues.yaml", "spec.cohortName"),
    ("kueue/kueue.x-k8s.io_localqueues.yaml", "spec.clusterQueue"),
    ("kueue/kueue.x-k8s.io_resourceflavors.yaml", "spec.nodeLabels"),
    ("kueue/kueue.x-k8s.io_cohorts.yaml", "spec.parentName"),
    ("kueue/kueue.x-k8s.io_workloadpriorityclasses.yaml", "value"),
]


_KUBECTL_TYPES = {
    "array": "<[]",
    "string": "<string>",
    "integer": "<integer>",
    "boolean": "<boolean>",
    "number": "<number>",
}


def _schema_at(crd: Json, path: str) -> tuple[str, Json]:
    """The stored version's name and its schema of ``path``."""
    version = next(v for v in crd["spec"]["versions"] if v.get("storage"))
    node: Json = version["schema"]["openAPIV3Schema"]
    for part in path.split("."):
        node = node["properties"][part]
    return version["name"], node


@pytest.mark.parametrize(("crd_file", "path"), EXPLAINED, ids=[p for p, _ in EXPLAINED])
async def test_kubectl_explain_shows_upstreams_text_and_types(
    stack: Stack, crd_file: str, path: str
) -> None:
    assert KUBECTL is not None, "kubectl is needed"
    crd = next(d for d in yaml.safe_load_all((UPSTREAM_CRDS / crd_file).read_text()) if d)
    version, schema = _schema_at(crd, path)
    group, plural = crd["spec"]["group"], crd["spec"]["names"]["plural"]
    argv = [KUBECTL, "explain", f"{plural}.{path}", f"--api-version={group}/{version}"]
    code, out, err = await _run(argv, stack)
    assert code == 0, err
    flat = " ".join(out.split())
    if schema.get("description"):
        assert " ".join(schema["description"].split())[:60] in flat, out
    shown = _KUBECTL_TYPES.get(str(schema.get("type")), "<Object>")
    if schema.get("additionalProperties"):
        shown = "<map["
    assert f"FIELD: {path.rsplit('.', 1)[-1]} {shown}" in out, out
    for name in list((schema.get("properties") or {}) | _item_properties(schema))[:5]:
        assert name in out, f"{name} missing from: {out}"


def _item_properties(schema: Json) -> dict[str, Any]:
    items = schema.get("items") or {}
    return dict(items.get("properties") or {})
