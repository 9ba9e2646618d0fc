"""What the upstream webhooks enforce at the API server, enforced by Shoal's: kubesim calls the
webhook's core in-process, the real kube-apiserver calls the webhook service over HTTPS with
the registrations it installed itself. Same manifests, same answers."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from services.cli.stack import Stack, StackConfig
from services.webhook.core.webhooks import OPTIONAL
from shared.kube import ApiError, KubeClient
from shared.kube.resources import ResourceType, resource_for
from tests.e2e.e2e_cluster import BATCHJOB, POD, VCJOB, vcjob

HYPERNODE = resource_for("topology.volcano.sh/v1alpha1", "HyperNode")

KUBECTL = shutil.which("kubectl")
INVALID_JOBS = Path(__file__).parents[1] / "data" / "upstream" / "volcano" / "invalid_jobs"
DENIED = 'admission webhook "validatejob.volcano.sh" denied the request: '
KUEUE = "kueue.x-k8s.io"
CLUSTER_QUEUE_V1BETA2 = ResourceType(
    group=KUEUE, version="v1beta2", kind="ClusterQueue", plural="clusterqueues", namespaced=False
)
WORKLOAD_V1BETA2 = ResourceType(group=KUEUE, version="v1beta2", kind="Workload", plural="workloads")
pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed"),
]


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    """With the optional webhooks (Volcano's pod webhooks) registered too."""
    return StackConfig(
        workdir=tmp_path_factory.mktemp("stack"), nodes=4, node_cpu="8", optional_webhooks=OPTIONAL
    )


async def kubectl_fails(stack: Stack, *args: str) -> str:
    """kubectl's stderr; it must fail."""
    assert KUBECTL is not None
    proc = await asyncio.create_subprocess_exec(
        KUBECTL,
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "KUBECONFIG": str(stack.kubeconfig)},
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode != 0, f"kubectl {' '.join(args)} succeeded: {out.decode()}"
    return err.decode()


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ("duplicatedPolicyEvent-webhook-deny.yaml",
         "1 error occurred:\n\t* duplicate event PodFailed  across different policy"),
        ("duplicatedTaskName-webhook-deny.yaml", "duplicated task name task-1;"),
        ("minAvailable-webhook-deny.yaml",
         "job 'minAvailable' should not be greater than total replicas in tasks;"),
    ],
    ids=["duplicated-policy-event", "duplicated-task-name", "min-available"],
)  # fmt: skip
async def test_volcanos_invalid_examples_are_refused_with_upstreams_message(
    stack: Stack, kube: KubeClient, namespace: str, manifest: str, message: str
) -> None:
    err = await kubectl_fails(stack, "apply", "-n", namespace, "-f", str(INVALID_JOBS / manifest))
    assert "Error from server: error when creating" in err  # 400: Volcano sets no code
    assert DENIED + message in err
    with pytest.raises(ApiError) as missing:
        await kube.get(VCJOB, "test-job-webhook-disallow", namespace)
    assert missing.value.status == 404, "a refused job is not stored"


async def test_a_queue_labelled_job_is_stored_suspended_before_any_pod(
    kube: KubeClient, namespace: str
) -> None:
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": "labelled",
            "namespace": namespace,
            "labels": {"kueue.x-k8s.io/queue-name": "nowhere"},
        },
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox"}],
                }
            }
        },
    }
    created = await kube.create(BATCHJOB, job, namespace=namespace)
    assert created["spec"]["suspend"] is True, "Kueue's job webhook suspends it at creation"
    await asyncio.sleep(2)  # time for a controller that would (wrongly) start it
    pods, _ = await kube.list_all(POD, namespace=namespace)
    assert pods == [], "no pod before its Workload is admitted (its LocalQueue does not exist)"


async def test_a_volcano_pod_with_a_bad_disruption_budget_is_refused(
    kube: KubeClient, namespace: str
) -> None:
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "budgeted",
            "namespace": namespace,
            "annotations": {"volcano.sh/jdb-min-available": "100%"},
        },
        "spec": {"schedulerName": "volcano", "containers": [{"name": "c", "image": "busybox"}]},
    }
    with pytest.raises(ApiError) as refused:
        await kube.create(POD, pod)
    assert refused.value.status == 400
    assert refused.value.message == (
        'admission webhook "validatepod.volcano.sh" denied the request: invalid value <"100%"> '
        "for volcano.sh/jdb-min-available, it must be a valid percentage which between 1% ~ 99%"
    )
    pod["metadata"]["annotations"]["volcano.sh/jdb-min-available"] = "50%"
    created = await kube.create(POD, pod)
    assert created["spec"].get("nodeSelector") is None, "the default configuration mutates nothing"


async def test_a_hypernode_is_refused_by_volcanos_admission_policy(kube: KubeClient) -> None:
    """The policy deploy/ installs, evaluated by kube-apiserver; kubesim plays its rules."""
    hyper_node = {
        "apiVersion": "topology.volcano.sh/v1alpha1",
        "kind": "HyperNode",
        "metadata": {"name": "refused-rack"},
        "spec": {"tier": 1, "members": [{"type": "Node",
                                         "selector": {"regexMatch": {"pattern": "rack-(a"}}}]},
    }  # fmt: skip
    with pytest.raises(ApiError) as refused:
        await kube.create(HYPERNODE, hyper_node)
    assert refused.value.status == 422
    assert refused.value.message == (
        'hypernodes.topology.volcano.sh "refused-rack" is forbidden: ValidatingAdmissionPolicy '
        "'hypernode-validation-policy' with binding 'hypernode-validation-policy-binding' denied "
        "request: member regexMatch pattern is invalid: unmatched parentheses"
    )


async def test_kueues_invalid_cluster_queue_and_workload_update_are_refused_with_upstreams_message(
    kube: KubeClient, namespace: str
) -> None:
    """Kueue's ``vclusterqueue.kb.io`` refuses a lending limit without a cohort (no CEL rule of
    the CRD does), ``vworkload.kb.io`` an admission gate added after creation."""
    name = f"{namespace}-lending"  # cluster-scoped: one per test
    quota = {"name": "cpu", "nominalQuota": "1", "lendingLimit": "1"}
    queue = {
        "apiVersion": f"{KUEUE}/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu"],
                    "flavors": [{"name": "default", "resources": [quota]}],
                }
            ],
        },
    }
    with pytest.raises(ApiError) as refused:
        await kube.create(CLUSTER_QUEUE_V1BETA2, queue)
    assert refused.value.status == 403, refused.value
    assert (
        'admission webhook "vclusterqueue.kb.io" denied the request: '
        "spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: "
        'Invalid value: "1": must be nil when cohort is empty'
    ) in refused.value.message
    with pytest.raises(ApiError) as missing:
        await kube.get(CLUSTER_QUEUE_V1BETA2, name)
    assert missing.value.status == 404, "a refused ClusterQueue is not stored"

    container = {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": "1"}}}
    workload = {
        "apiVersion": f"{KUEUE}/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "gated", "namespace": namespace},
        "spec": {
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {"spec": {"restartPolicy": "Never", "containers": [container]}},
                }
            ]
        },
    }
    await kube.create(WORKLOAD_V1BETA2, workload, namespace=namespace)
    gate = {"metadata": {"annotations": {f"{KUEUE}/admission-gated-by": "example.com/gate"}}}
    with pytest.raises(ApiError) as forbidden:
        await kube.patch(WORKLOAD_V1BETA2, "gated", gate, namespace=namespace)
    assert forbidden.value.status == 403, forbidden.value
    assert (
        'admission webhook "vworkload.kb.io" denied the request: '
        "metadata.annotations[kueue.x-k8s.io/admission-gated-by]: "
        "Forbidden: cannot add admission gate after creation"
    ) in forbidden.value.message
    stored = await kube.get(WORKLOAD_V1BETA2, "gated", namespace)
    assert f"{KUEUE}/admission-gated-by" not in (stored["metadata"].get("annotations") or {})


@pytest.mark.control_plane("real", reason="kubesim calls the webhook's core in-process")
async def test_a_killed_webhook_admits_nothing_until_it_is_back(
    stack: Stack, kube: KubeClient, namespace: str
) -> None:
    """failurePolicy Fail: while the webhook is down kube-apiserver refuses what it must
    admit; after a restart (the same CA, from its Secret) the same write goes through."""
    stack.kill("webhook")
    invalid = vcjob("invalid", namespace, replicas=1)
    invalid["spec"]["minAvailable"] = 5
    valid = vcjob("valid", namespace, replicas=1)
    for job in (invalid, valid):
        with pytest.raises(ApiError) as down:
            await kube.create(VCJOB, job)
        assert "failed calling webhook" in down.value.message, down.value
    await stack.restart("webhook", timeout=60)
    await kube.create(VCJOB, valid)
    with pytest.raises(ApiError) as refused:
        await kube.create(VCJOB, invalid)
    assert refused.value.status == 400
    assert "should not be greater than total replicas" in refused.value.message
    with pytest.raises(ApiError) as missing:
        await kube.get(VCJOB, "invalid", namespace)
    assert missing.value.status == 404, "nothing was admitted unvalidated"
