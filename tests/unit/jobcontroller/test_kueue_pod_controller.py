"""Port of Kueue's pkg/controller/jobs/pod/pod_controller_test.go (v0.17.0): each row named after
upstream's case. A row's pods and Workloads go through one ``kueue_pods.reconcile``; what it
decides is compared by effect (``summary``): Workloads created, pods started (gate removed,
flavor's labels), stopped (``TerminationTarget``), deleted, finalized, Workload conditions,
Events. Upstream posts each pod's Event on that pod; here they are listed in order."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.jobcontroller import kueue_pod_workloads, kueue_pods
from shared.kube.timefmt import format_rfc3339
from shared.models import Pod, Workload
from tests.unit.jobcontroller.kueue_pod_cases import (
    CLUSTER_QUEUE,
    NOW,
    POD_UID,
    PREEMPTED,
    TEST_QUEUE,
    UNIT_TEST_FLAVOR,
    USER_QUEUE,
    evicted,
    pod,
    summary,
    workload,
)

Json = dict[str, Any]
POD_WL = kueue_pod_workloads.workload_name_for_pod("pod", "test-uid")
STARTED_LABELS = {
    "kueue.x-k8s.io/local-queue-name": USER_QUEUE,
    "kueue.x-k8s.io/cluster-queue-name": CLUSTER_QUEUE,
}
ARM64 = {"kubernetes.io/arch": "arm64"}
REPLACEMENT = {
    "type": "WaitingForReplacementPods",
    "status": "True",
    "reason": "PodsFailed",
    "message": "Some Failed pods need replacement",
}
CPU_AND_MEMORY = "4ebdd4a6"  # upstream's role hash of a pod asking 1 CPU and 1Gi
PODS_READY_TIMEOUT = "Workload evicted due to a PodsReady timeout"
T0, T1, T2 = "2023-11-14T22:13:20Z", "2023-11-14T22:14:20Z", "2023-11-14T22:15:20Z"
SERVING = {kueue_pod_workloads.GROUP_SERVING_ANNOTATION: "true"}
PREEMPTED_REPLACEMENT = {**REPLACEMENT, "reason": "Preempted", "message": PREEMPTED}


def failed_at(offset: float) -> Json:
    """The ContainersReady condition of a pod whose containers failed ``offset`` s from NOW."""
    return {
        "type": "ContainersReady",
        "status": "False",
        "reason": "Failed",
        "lastTransitionTime": format_rfc3339(NOW + offset),
    }


def started(podset: str, wl: str, selector: dict[str, str] | None = None) -> Json:
    labels = {"kueue.x-k8s.io/podset": podset, **STARTED_LABELS}
    return {
        "nodeSelector": selector,
        "labels": labels,
        "annotations": {"kueue.x-k8s.io/workload": wl},
    }


def group_pod(name: str = "pod", total: str = "2", **kw: Any) -> Pod:
    return pod(name, group="test-group", total=total, **kw)


CASES: list[tuple[str, list[Pod], list[Workload], Json]] = [
    (
        "scheduling gate is removed and node selector is added if workload is admitted",
        [pod(gated=True)],
        [workload("unit-test", admitted=[("main", "unit-test-flavor")])],
        {
            "started": {"pod": started("main", "unit-test", ARM64)},
            "events": [("Normal", "Started", "Admitted by clusterQueue cq")],
        },
    ),
    (
        "non-matching admitted workload is deleted and pod is finalized",
        [pod()],
        [workload("unit-test", podsets=[("main", 2)], admitted=[("main", "unit-test-flavor")])],
        {
            "stopped": {
                "pod": (
                    "TerminationTarget",
                    "NoMatchingWorkload",
                    "No matching Workload; restoring pod templates according to existent Workload",
                )
            },
            "deleted": ["Pod/pod", "Workload/unit-test"],
            "events": [
                (
                    "Normal",
                    "Stopped",
                    "No matching Workload; restoring pod templates according to existent Workload",
                ),
                ("Normal", "DeletedWorkload", "Deleted not matching Workload: ns/unit-test"),
            ],
        },
    ),
    (
        "the workload is created when queue name is set",
        [pod(gated=True, queue=TEST_QUEUE)],
        [],
        {
            "created": [(POD_WL, [("main", 1)])],
            "events": [("Normal", "CreatedWorkload", f"Created Workload: ns/{POD_WL}")],
        },
    ),
    (
        "the pod reconciliation is skipped when 'kueue.x-k8s.io/managed' label is not set",
        [pod(managed=False, finalizer=False)],
        [],
        {},
    ),
    (
        "pod is stopped when workload is evicted",
        [pod(queue=TEST_QUEUE)],
        [workload("job", queue=TEST_QUEUE, conditions=[evicted()])],
        {
            "stopped": {"pod": ("TerminationTarget", "WorkloadEvictedDueToPreempted", PREEMPTED)},
            "deleted": ["Pod/pod"],
            "events": [("Normal", "Stopped", PREEMPTED)],
        },
    ),
    (
        "pod is finalized when it's succeeded",
        [pod(phase="Succeeded", message="Job finished successfully")],
        [workload("unit-test", admitted=[("main", "unit-test-flavor")])],
        {
            "finalized": ["pod"],
            "workload": {"Finished": ("True", "Succeeded", "Job finished successfully")},
            "events": [
                ("Normal", "FinishedWorkload", "Workload 'ns/unit-test' is declared finished")
            ],
        },
    ),
    (
        "workload status condition is added even if the pod is finalized",
        [pod(finalizer=False, phase="Succeeded", message="Job finished successfully")],
        [workload("unit-test", admitted=[("main", "unit-test-flavor")])],
        {
            "workload": {"Finished": ("True", "Succeeded", "Job finished successfully")},
            "events": [
                ("Normal", "FinishedWorkload", "Workload 'ns/unit-test' is declared finished")
            ],
        },
    ),
    (
        "pod without scheduling gate is terminated if workload is not admitted",
        [pod()],
        [workload("unit-test")],
        {
            "stopped": {
                "pod": ("TerminationTarget", "NotAdmitted", "Not admitted by cluster queue")
            },
            "deleted": ["Pod/pod"],
            "events": [("Normal", "Stopped", "Not admitted by cluster queue")],
        },
    ),
    (
        "when a workload is created for the pod it has its ProvReq annotations copied",
        [
            pod(
                gated=True,
                annotations={
                    "provreq.kueue.x-k8s.io/test-annotation": "test-val",
                    "invalid-provreq-prefix/test-annotation-2": "test-val-2",
                },
            )
        ],
        [],
        {
            "created": [(POD_WL, [("main", 1)])],
            "events": [("Normal", "CreatedWorkload", f"Created Workload: ns/{POD_WL}")],
        },
    ),
    (
        "workload is composed and created for the pod group",
        [group_pod(gated=True), group_pod("pod2", gated=True)],
        [],
        {
            "created": [("test-group", [(POD_UID, 2)])],
            "events": [("Normal", "CreatedWorkload", "Created Workload: ns/test-group")],
        },
    ),
    (
        "workload is composed and created for the pod group with fast admission",
        [
            group_pod(
                total="3",
                gated=True,
                annotations={kueue_pod_workloads.GROUP_FAST_ADMISSION_ANNOTATION: "true"},
            )
        ],
        [],
        {
            "created": [("test-group", [(POD_UID, 3)])],
            "events": [("Normal", "CreatedWorkload", "Created Workload: ns/test-group")],
        },
    ),
    (
        "workload is found for the pod group",
        [group_pod(gated=True), group_pod("pod2", gated=True)],
        [workload("test-group", owners=["pod", "pod2"], podsets=[(POD_UID, 2)])],
        {},
    ),
    (
        "scheduling gate is removed for all pods in the group if workload is admitted",
        [group_pod(gated=True), group_pod("pod2", gated=True)],
        [
            workload(
                "test-group",
                owners=["pod", "pod2"],
                podsets=[(POD_UID, 2)],
                admitted=[(POD_UID, "unit-test-flavor")],
            )
        ],
        {
            "started": {
                "pod": started(POD_UID, "test-group", ARM64),
                "pod2": started(POD_UID, "test-group", ARM64),
            },
            "events": [("Normal", "Started", "Admitted by clusterQueue cq")] * 2,
        },
    ),
    (
        "workload is not finished if the pod in the group is running",
        [group_pod(phase="Succeeded"), group_pod("pod2")],
        [
            workload(
                "test-group",
                owners=["pod", "pod2"],
                podsets=[(POD_UID, 2)],
                admitted=[("main", "unit-test-flavor")],
            )
        ],
        {"workload": {"reclaimablePods": [{"name": POD_UID, "count": 1}]}},
    ),
    (
        "workload is finished if all pods in the group has finished",
        [group_pod(phase="Succeeded"), group_pod("pod2", phase="Succeeded")],
        [
            workload(
                "test-group",
                owners=["pod", "pod2"],
                podsets=[(POD_UID, 2)],
                admitted=[("main", "unit-test-flavor")],
            )
        ],
        {
            "finalized": ["pod", "pod2"],
            "workload": {"Finished": ("True", "Succeeded", "Pods succeeded: 2/2.")},
            "events": [
                ("Normal", "FinishedWorkload", "Workload 'ns/test-group' is declared finished")
            ],
        },
    ),
    (
        "pod group remains stopped when workload is evicted",
        [
            group_pod(gated=True, queue=TEST_QUEUE),
            group_pod("pod2", gated=True, queue=TEST_QUEUE),
        ],
        [
            workload(
                "test-group",
                owners=["pod", "pod2"],
                podsets=[(POD_UID, 2)],
                queue=TEST_QUEUE,
                conditions=[evicted()],
            )
        ],
        {},
    ),
    (
        "workload for pod group with different queue names shouldn't be created",
        [
            group_pod(gated=True, queue=TEST_QUEUE),
            group_pod("pod2", gated=True, queue="new-test-queue"),
        ],
        [],
        {
            "events": [
                (
                    "Warning",
                    "ErrWorkloadCompose",
                    "pods 'pod' and 'pod2' has different queue names: test-queue!=new-test-queue",
                )
            ]
        },
    ),
    (
        "replacement pod should be started for pod group of size 1",
        [group_pod(total="1", phase="Failed"), group_pod("pod2", total="1", gated=True)],
        [
            workload(
                "test-group",
                owners=["pod", "pod2"],
                podsets=[(POD_UID, 2)],
                admitted=[(POD_UID, "unit-test-flavor")],
                conditions=[REPLACEMENT],
            )
        ],
        {
            "started": {"pod2": started(POD_UID, "test-group", ARM64)},
            "events": [("Normal", "Started", "Admitted by clusterQueue cq")],
        },
    ),
    (
        "pod group of size 2 is finished when 2 pods has succeeded and 1 pod has failed",
        [
            group_pod(phase="Failed"),
            group_pod("pod2", phase="Succeeded"),
            group_pod("pod3", phase="Succeeded"),
        ],
        [
            workload(
                "test-group",
                owners=["pod", "pod2", "pod3"],
                podsets=[(POD_UID, 2)],
                admitted=[("main", "unit-test-flavor")],
            )
        ],
        {
            "finalized": ["pod", "pod2", "pod3"],
            "workload": {"Finished": ("True", "Succeeded", "Pods succeeded: 2/2.")},
            "events": [
                ("Normal", "FinishedWorkload", "Workload 'ns/test-group' is declared finished")
            ],
        },
    ),
    (
        "wl should not get the quota reservation cleared for a running pod group of size 1",
        [group_pod(total="1", phase="Running", deleted=True)],
        [
            workload(
                "test-group",
                podsets=[(POD_UID, 1)],
                admitted=[("main", "unit-test-flavor")],
                conditions=[evicted(), PREEMPTED_REPLACEMENT],
            )
        ],
        {},
    ),
    (
        "wl should get the quota reservation cleared for a failed pod group of size 1",
        [group_pod(total="1", phase="Failed", deleted=True)],
        [
            workload(
                "test-group",
                podsets=[(POD_UID, 1)],
                admitted=[("main", "unit-test-flavor")],
                conditions=[evicted(), PREEMPTED_REPLACEMENT],
            )
        ],
        {
            "workload": {
                "Requeued": ("True", "Preempted", PREEMPTED),
                "QuotaReserved": ("False", "Pending", PREEMPTED),
                "Admitted": ("False", "NoReservation", "The workload has no reservation"),
                "admission": None,
            }
        },
    ),
    (
        "reclaimable pods updated for pod group",
        [
            group_pod(total="3", phase="Failed"),
            group_pod("pod2", total="3", phase="Running"),
            group_pod("pod3", total="3", phase="Succeeded", memory="1Gi"),
        ],
        [
            workload(
                "test-group",
                owners=["pod", "pod2", "pod3"],
                podsets=[(CPU_AND_MEMORY, 1), (POD_UID, 2)],
                admitted=[("main", "unit-test-flavor")],
                conditions=[REPLACEMENT],
            )
        ],
        {"workload": {"reclaimablePods": [{"name": CPU_AND_MEMORY, "count": 1}]}},
    ),
    (
        "reclaimablePods field is not updated for a serving pod group",
        [
            group_pod(total="3", phase="Failed", annotations=SERVING),
            group_pod("pod2", total="3", phase="Running", annotations=SERVING),
            group_pod("pod3", total="3", phase="Succeeded", memory="1Gi", annotations=SERVING),
        ],
        [
            workload(
                "test-group",
                owners=["pod", "pod2", "pod3"],
                podsets=[(CPU_AND_MEMORY, 1), (POD_UID, 2)],
                admitted=[("main", "unit-test-flavor")],
                conditions=[REPLACEMENT],
            )
        ],
        {},
    ),
    (
        "all pods in a group should receive the event about preemption, unless already terminating",
        [
            group_pod("pod1", total="3"),
            group_pod("pod2", total="3", deleted=True),
            group_pod("pod3", total="3"),
        ],
        [
            workload(
                "test-group",
                owners=["pod1", "pod2", "pod3"],
                podsets=[(POD_UID, 3)],
                conditions=[evicted(), PREEMPTED_REPLACEMENT],
            )
        ],
        {
            "stopped": {
                name: ("TerminationTarget", "WorkloadEvictedDueToPreempted", PREEMPTED)
                for name in ("pod1", "pod3")
            },
            "deleted": ["Pod/pod1", "Pod/pod3"],
            "events": [("Normal", "Stopped", PREEMPTED)] * 2,
        },
    ),
    (
        "preemption reason should be propagated to termination target",
        [group_pod("pod1", total="1")],
        [
            workload(
                "test-group",
                owners=["pod1"],
                podsets=[(POD_UID, 3)],
                conditions=[
                    evicted("PodsReadyTimeout", PODS_READY_TIMEOUT),
                    {
                        **PREEMPTED_REPLACEMENT,
                        "reason": "PodsReadyTimeout",
                        "message": PODS_READY_TIMEOUT,
                    },
                ],
            )
        ],
        {
            "stopped": {
                "pod1": (
                    "TerminationTarget",
                    "WorkloadEvictedDueToPodsReadyTimeout",
                    PODS_READY_TIMEOUT,
                )
            },
            "deleted": ["Pod/pod1"],
            "events": [("Normal", "Stopped", PODS_READY_TIMEOUT)],
        },
    ),
    (
        "replacement pod should be started for set of Running, Failed, Succeeded pods",
        [
            group_pod(total="3", phase="Running"),
            group_pod("pod2", total="3", phase="Failed"),
            group_pod("pod3", total="3", phase="Succeeded"),
            group_pod("replacement", total="3", gated=True),
        ],
        [
            workload(
                "test-group",
                owners=["pod", "pod2", "pod3"],
                podsets=[(POD_UID, 3)],
                admitted=[(POD_UID, "unit-test-flavor")],
                reclaimable=[(POD_UID, 1)],
            )
        ],
        {
            "owners": ["pod", "pod2", "pod3", "replacement"],
            "finalized": ["pod2"],
            "started": {"replacement": started(POD_UID, "test-group", ARM64)},
            "events": [
                ("Normal", "OwnerReferencesAdded", "Added 1 owner reference(s)"),
                ("Normal", "Started", "Admitted by clusterQueue cq"),
            ],
        },
    ),
    (
        "deleted pods in incomplete group are finalized",
        [
            pod("p1", group="group", total="3", gated=True, phase="Pending", deleted=True),
            pod("p2", group="group", total="3", gated=True, phase="Pending", deleted=True),
        ],
        [],
        {
            "finalized": ["p1", "p2"],
            "events": [
                (
                    "Warning",
                    "ErrWorkloadCompose",
                    "'group' group has fewer runnable pods than expected",
                )
            ],
        },
    ),
    (
        "excess pods before wl creation, youngest pods are deleted",
        [
            group_pod(total="1", gated=True, created=T0),
            group_pod("pod2", total="1", gated=True, created=T1),
        ],
        [],
        {
            "created": [("test-group", [(POD_UID, 1)])],
            "finalized": ["pod2"],
            "deleted": ["Pod/pod2"],
            "events": [
                ("Normal", "ExcessPodDeleted", "Excess pod deleted"),
                ("Normal", "CreatedWorkload", "Created Workload: ns/test-group"),
            ],
        },
    ),
    (
        "excess pods before admission, youngest pods are deleted",
        [
            group_pod(gated=True, created=T0),
            group_pod("pod2", gated=True, created=T1),
            group_pod("pod3", gated=True, created=T2),
        ],
        [workload("test-group", owners=["pod", "pod2", "pod3"], podsets=[(POD_UID, 2)])],
        {
            "finalized": ["pod3"],
            "deleted": ["Pod/pod3"],
            "events": [("Normal", "ExcessPodDeleted", "Excess pod deleted")],
        },
    ),
    (
        "workload is not deleted if all of the pods in the group are deleted",
        [group_pod(deleted=True), group_pod("pod2", deleted=True)],
        [
            workload(
                "test-group",
                owners=["pod", "pod2"],
                podsets=[(POD_UID, 2)],
                admitted=[("main", "unit-test-flavor")],
                conditions=[REPLACEMENT],
            )
        ],
        {},
    ),
    (
        "workload is not deleted if one pod role is absent from the cluster",
        [group_pod(deleted=True)],
        [
            workload(
                "test-group",
                owners=["pod"],
                podsets=[("absent-pod-role", 1), (POD_UID, 1)],
                admitted=[("main", "unit-test-flavor")],
                conditions=[REPLACEMENT],
            )
        ],
        {},
    ),
    (
        "excess pods in pod set after admission, youngest pods are deleted",
        [group_pod(created=T0), group_pod("pod2", gated=True, created=T2)],
        [
            workload(
                "test-group",
                owners=["pod"],
                podsets=[("aaf269e6", 1), (POD_UID, 1)],
                admitted=[("main", "unit-test-flavor")],
                conditions=[REPLACEMENT],
            )
        ],
        {
            "finalized": ["pod2"],
            "deleted": ["Pod/pod2"],
            "events": [("Normal", "ExcessPodDeleted", "Excess pod deleted")],
        },
    ),
    (
        "delete excess pod that is gated",
        [
            group_pod(created=T0),
            group_pod("pod2", created=T1),
            group_pod("pod3", gated=True, created=T1),
        ],
        [
            workload(
                "test-group",
                owners=["pod", "pod2", "pod3"],
                podsets=[(POD_UID, 2)],
                admitted=[("main", "unit-test-flavor")],
            )
        ],
        {
            "finalized": ["pod3"],
            "deleted": ["Pod/pod3"],
            "events": [("Normal", "ExcessPodDeleted", "Excess pod deleted")],
        },
    ),
    (
        "the failed pods are finalized in order",
        [
            group_pod("active-pod", total="4"),
            group_pod(
                "finished-with-error", total="4", phase="Failed", conditions=[failed_at(-300)]
            ),
            group_pod(
                "deleted",
                total="4",
                phase="Failed",
                deleted_at=format_rfc3339(NOW - 240),
                conditions=[failed_at(-180)],
            ),
            group_pod(
                "finished-with-error2", total="4", phase="Failed", conditions=[failed_at(-180)]
            ),
            group_pod("replacement1", total="4"),
            group_pod("replacement2", total="4"),
        ],
        [
            workload(
                "test-group",
                owners=["active-pod", "finished-with-error", "deleted", "finished-with-error2"],
                podsets=[(POD_UID, 4)],
                admitted=[("main", "unit-test-flavor")],
                conditions=[REPLACEMENT],
            )
        ],
        {
            "owners": [
                "active-pod",
                "finished-with-error",
                "deleted",
                "finished-with-error2",
                "replacement1",
                "replacement2",
            ],
            "finalized": ["deleted", "finished-with-error"],
            "events": [("Normal", "OwnerReferencesAdded", "Added 2 owner reference(s)")],
        },
    ),
    (
        "no unnecessary additional failed pods are finalized",
        [
            group_pod("finished-with-error", phase="Failed", conditions=[failed_at(-300)]),
            group_pod(
                "finished-with-error-no-finalizer",
                finalizer=False,
                phase="Failed",
                conditions=[failed_at(-180)],
            ),
            group_pod("replacement"),
        ],
        [
            workload(
                "test-group",
                owners=["finished-with-error", "finished-with-error-no-finalizer"],
                podsets=[(POD_UID, 4)],
                admitted=[("main", "unit-test-flavor")],
                conditions=[REPLACEMENT],
            )
        ],
        {
            "owners": [
                "finished-with-error",
                "finished-with-error-no-finalizer",
                "replacement",
            ],
            "events": [("Normal", "OwnerReferencesAdded", "Added 1 owner reference(s)")],
        },
    ),
    (
        "deletion of excess pod is blocked by another controller",
        [
            group_pod(total="1", gated=True, created=T0),
            group_pod(
                "pod2",
                total="1",
                gated=True,
                finalizer=False,
                other_finalizers=("kubernetes",),
                created=T1,
                deleted=True,
            ),
        ],
        [],
        {
            "created": [("test-group", [(POD_UID, 1)])],
            "events": [("Normal", "CreatedWorkload", "Created Workload: ns/test-group")],
        },
    ),
    (
        "deleted unschedulable pods are finalized",
        [
            group_pod("pod1", phase="Running", created=T0),
            group_pod("pod2", phase="Pending", deleted=True, created=T0),
            group_pod("replacement", gated=True, created=T1),
        ],
        [
            workload(
                "test-group",
                owners=["pod1", "pod2"],
                podsets=[(POD_UID, 2)],
                admitted=[(POD_UID, "no-such-flavor")],
            )
        ],
        {
            "owners": ["pod1", "pod2", "replacement"],
            "finalized": ["pod2"],
            "started": {"replacement": started(POD_UID, "test-group")},
            "events": [
                ("Normal", "OwnerReferencesAdded", "Added 1 owner reference(s)"),
                ("Normal", "Started", "Admitted by clusterQueue cq"),
            ],
        },
    ),
    (
        "if there's not enough non-failed pods in the group, workload should not be created",
        [group_pod(gated=True), group_pod("pod2", phase="Failed")],
        [],
        {
            "finalized": ["pod2"],
            "events": [
                (
                    "Warning",
                    "ErrWorkloadCompose",
                    "'test-group' group has fewer runnable pods than expected",
                )
            ],
        },
    ),
    (
        "pod group is considered finished if there is an unretriable pod and no running pods",
        [
            group_pod(
                total="3",
                phase="Failed",
                annotations={kueue_pod_workloads.RETRIABLE_IN_GROUP_ANNOTATION: "false"},
            ),
            group_pod("pod2", total="3", phase="Succeeded"),
            group_pod("pod3", total="3", phase="Failed"),
        ],
        [
            workload(
                "test-group",
                owners=["pod", "pod2", "pod3"],
                podsets=[(POD_UID, 3)],
                admitted=[(POD_UID, "unit-test-flavor")],
                conditions=[{**REPLACEMENT, "message": "Some Failed pods need replacement"}],
            )
        ],
        {
            "finalized": ["pod", "pod2", "pod3"],
            "workload": {"Finished": ("True", "Succeeded", "Pods succeeded: 1/3.")},
            "events": [
                ("Normal", "FinishedWorkload", "Workload 'ns/test-group' is declared finished")
            ],
        },
    ),
]

# Upstream rows that do not apply to Shoal's model, with why.
NOT_PORTED: dict[str, str] = {
    "workload is composed and created for the pod group with max exec time": (
        "maximumExecutionTimeSeconds is not modelled"
    ),
    "workload is recreated when max exec time changes": "maximumExecutionTimeSeconds",
    "workload is not deleted if the pod in group has been deleted after admission": (
        "needs the fake client's garbage collection of owner references"
    ),
    "Pods are finalized even if one of the pods in the finished group is absent": (
        "the ResourceInUse finalizer of Workloads is not modelled"
    ),
    "all pods in group should be removed if workload is deleted": (
        "the ResourceInUse finalizer of Workloads is not modelled"
    ),
    "if pod group is finished and wl is deleted, new workload shouldn't be created": (
        "the ResourceInUse finalizer of Workloads is not modelled"
    ),
    "if pod in group is scheduling gated and wl is deleted, workload should be recreated": (
        "the ResourceInUse finalizer of Workloads is not modelled"
    ),
    "finalize workload for non existent pod": (
        "the ResourceInUse finalizer of Workloads is not modelled"
    ),
    "deleted pods in group should not be finalized if the workload doesn't match": (
        "group Workload re-creation on mismatch is not ported yet"
    ),
    "waiting to observe previous deletion of excess pod, no pods are deleted": (
        "excess-pod expectations are not modelled"
    ),
    "replacement pods are owning the workload": (
        "owner references of replacement pods are not added to the Workload yet"
    ),
    "no failed pods are finalized while waiting for expectations": (
        "excess-pod expectations are not modelled"
    ),
    "workload is created with correct labels for a single pod": (
        "Configuration labelKeysToCopy is not read"
    ),
    "workload is created with correct labels for pod group": (
        "Configuration labelKeysToCopy is not read"
    ),
    "reconciler returns error in case pod group pod index is bigger or equal pod group "
    "total count": "topology-aware scheduling is not modelled",
    "reconciler returns error in case pod group pod index is less than 0": (
        "topology-aware scheduling is not modelled"
    ),
    "reconciler returns error in case of label mismatch in pod group": (
        "Configuration labelKeysToCopy is not read"
    ),
    "admission check message is recorded as event for a single pod": (
        "admission checks are not modelled"
    ),
    "admission check message is recorded as event for each pod in the group": (
        "admission checks are not modelled"
    ),
    "shouldn't set waiting for pods ready condition to true when all pods pending": (
        "waitForPodsReady is not modelled"
    ),
    "should set waiting for pods ready condition to true when at least one pod failed": (
        "waitForPodsReady is not modelled"
    ),
    "should set waiting for pods ready condition to true when at least one pod deleted": (
        "waitForPodsReady is not modelled"
    ),
    "should set waiting for pods ready condition to true when workload was evicted": (
        "waitForPodsReady is not modelled"
    ),
    "should update reason and message on waiting for pods ready condition when workload was "
    "evicted again": "waitForPodsReady is not modelled",
    "shouldn't change waiting for pods ready condition when it's true and workload was "
    "readmitted": "waitForPodsReady is not modelled",
    "should set waiting for pods ready condition to false when pods was replaced": (
        "waitForPodsReady is not modelled"
    ),
    "when the prebuilt workload exists its owner info is updated": (
        "prebuilt Workloads are not modelled"
    ),
    "when the prebuilt workload is partially owned": "prebuilt Workloads are not modelled",
    "when the prebuilt workload is not equivalent to the job": (
        "prebuilt Workloads are not modelled"
    ),
    "when workload is deactivated by kueue; objectRetentionPolicies.workloads."
    "afterDeactivatedByKueue=0; should delete the job": "objectRetentionPolicies is not read",
}


@pytest.mark.parametrize(
    ("pods", "workloads", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_reconciler(pods: list[Pod], workloads: list[Workload], want: Json) -> None:
    group = bool(kueue_pod_workloads.group_name(pods[0]))
    step = kueue_pods.reconcile(
        pods, workloads, {"unit-test-flavor": UNIT_TEST_FLAVOR}, group=group, now=NOW
    )
    assert summary(step.actions, workloads) == want


@pytest.mark.parametrize("reason", list(NOT_PORTED.values()), ids=list(NOT_PORTED))
def test_reconciler_not_ported(reason: str) -> None:
    pytest.skip(reason)


def test_rows_cover_upstream_table() -> None:
    """Every row of upstream's TestReconciler is here, ported or skipped with a reason."""
    assert len(CASES) + len(NOT_PORTED) == 69
    assert not {c[0] for c in CASES} & set(NOT_PORTED)


def test_get_workload_name_for_pod() -> None:
    """``TestGetWorkloadNameForPod``."""
    first = kueue_pod_workloads.workload_name_for_pod("unit-test", "test-uid")
    assert first.startswith("pod-unit-test-")
    assert kueue_pod_workloads.workload_name_for_pod("unit-test", "test-uid") == first
    other = kueue_pod_workloads.workload_name_for_pod("unit-test", "test-uid2")
    assert other != first and other.startswith("pod-unit-test-")


def test_pod_sets_no_annotations() -> None:
    """``TestPodSets``: "no annotations" (the TAS rows: topology requests are not modelled;
    the pod index label is named as with TAS on, Kueue's default)."""
    (podset,) = kueue_pod_workloads.pod_sets([pod()], group=False)
    assert podset["name"] == "main" and podset["count"] == 1
    assert podset["template"]["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "1"}}
    assert podset["topologyRequest"] == {
        "podIndexLabel": kueue_pod_workloads.POD_GROUP_POD_INDEX_LABEL
    }


def _terminating(name: str, ago: float, grace: int) -> Pod:
    """A running pod deleted ``ago`` seconds before NOW with a grace period of ``grace``."""
    running = pod(name, phase="Running")
    meta = msgspec.structs.replace(
        running.metadata,
        deletionTimestamp=format_rfc3339(NOW - ago),
        deletionGracePeriodSeconds=grace,
    )
    return msgspec.structs.replace(running, metadata=meta)


IS_ACTIVE_CASES: list[tuple[str, list[Pod], bool]] = [
    ("RegularPod", [], False),
    (
        "PodGroup_NotActive",
        [_terminating("a", 60, 30), pod("b", phase="Succeeded"), pod("c", phase="Failed")],
        False,
    ),
    (
        "PodGroup_Active",
        [
            _terminating("a", 60, 30),
            pod("b", phase="Succeeded"),
            pod("c", phase="Failed"),
            _terminating("d", 60, 90),
        ],
        True,
    ),
    (
        "FastQuotaRelease_Disabled_PodWithDeletionTimestampWithinGrace_Active",
        [_terminating("a", 10, 90)],
        True,
    ),
]


@pytest.mark.parametrize(
    ("pods", "want"), [c[1:] for c in IS_ACTIVE_CASES], ids=[c[0] for c in IS_ACTIVE_CASES]
)
def test_pod_is_active(pods: list[Pod], want: bool) -> None:
    """``TestPod_IsActive`` (FastQuotaReleaseInPodIntegration off, Kueue's default)."""
    assert kueue_pod_workloads.active(pods, NOW) is want


# The other tests of pod_controller_test.go, row by row, and why they are not ported.
OTHER_TESTS_NOT_PORTED: dict[str, str] = {
    "TestPodsReady/pod is ready": "waitForPodsReady (PodsReady) is not modelled",
    "TestPodsReady/pod is not ready": "waitForPodsReady (PodsReady) is not modelled",
    "TestRun/pod set info > 1 for the single pod": "a pod's start takes its one pod set by name",
    "TestPodSets/with required topology annotation": "topology requests are not modelled",
    "TestPodSets/with required topology preferred": "topology requests are not modelled",
    "TestPodSets/without required topology annotation if TAS is disabled": (
        "TopologyAwareScheduling is on, Kueue's default"
    ),
    "TestPodSets/without preferred topology annotation if TAS is disabled": (
        "TopologyAwareScheduling is on, Kueue's default"
    ),
    "TestPod_IsActive/FastQuotaRelease_PodWithDeletionTimestamp_Inactive": (
        "FastQuotaReleaseInPodIntegration is off, Kueue's default"
    ),
    "TestPod_IsActive/FastQuotaRelease_MixedGroup_SomeTerminating_SomeRunning": (
        "FastQuotaReleaseInPodIntegration is off, Kueue's default"
    ),
    "TestPod_IsActive/FastQuotaRelease_AllTerminating": (
        "FastQuotaReleaseInPodIntegration is off, Kueue's default"
    ),
    "TestReconciler_ErrorFinalizingPod": "API errors are the shell's (test_kueue_pods_shell.py)",
    "TestReconciler_DeletePodAfterTransientErrorsOnUpdateOrDeleteOps": (
        "API errors are the shell's (test_kueue_pods_shell.py)"
    ),
    "TestIsPodOwnerManagedByQueue/batch/v1/Job": (
        "the owner is judged by the webhook (test_kueue_pod_webhook.py's owner rows)"
    ),
    "TestIsPodOwnerManagedByQueue/apps/v1/ReplicaSet": (
        "the owner is judged by the webhook (test_kueue_pod_webhook.py's owner rows)"
    ),
    "TestIsPodOwnerManagedByQueue/ray.io/v1/RayCluster": "RayCluster is not served",
}


@pytest.mark.parametrize(
    "reason", list(OTHER_TESTS_NOT_PORTED.values()), ids=list(OTHER_TESTS_NOT_PORTED)
)
def test_other_rows_not_ported(reason: str) -> None:
    pytest.skip(reason)


def test_a_group_workload_is_owned_by_its_inactive_pods_too() -> None:
    """As ``ConstructComposableWorkload`` sets an owner reference for every pod it listed
    (upstream's "deletion of excess pod is blocked by another controller" wants both)."""
    pods = [
        group_pod(total="1", gated=True, created=T0),
        group_pod("pod2", total="1", gated=True, finalizer=False, created=T1, deleted=True),
    ]
    step = kueue_pods.reconcile(pods, [], {}, group=True, now=NOW)
    (created,) = step.actions.create
    assert [r["name"] for r in created["metadata"]["ownerReferences"]] == ["pod", "pod2"]
    assert created["metadata"]["annotations"] == {"kueue.x-k8s.io/is-group-workload": "true"}
