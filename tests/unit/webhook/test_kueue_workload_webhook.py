"""Kueue's ``vworkload.kb.io`` (pkg/webhooks/workload_webhook_test.go): every row of
``TestValidateWorkload`` and ``TestValidateWorkloadUpdate``, named after upstream's cases, with
upstream's feature gates per row (the others at master's defaults). As upstream
(``cmpopts.IgnoreFields(field.Error{}, "Detail", "BadValue")``), errors compare by field and
type; the messages kube-apiserver shows are checked after the tables, with the mutation."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from services.webhook.core.kueue_features import KueueFeatures
from services.webhook.core.kueue_workload import (
    admit_workload,
    default_workload,
    validate_workload,
    validate_workload_update,
)
from services.webhook.core.queues import Snapshot
from shared.kube.fielderrors import Cause
from tests.unit.webhook.kueue_wrappers import (
    FORBIDDEN,
    INVALID,
    NOT_FOUND,
    NOT_SUPPORTED,
    REQUIRED,
    admission,
    assignment,
    container,
    pod_set,
    quota_reserved,
    with_containers,
    workload,
)

Obj = dict[str, Any]
DEFAULT = KueueFeatures()
PS0 = "spec.podSets[0]"
SPEC0 = f"{PS0}.template.spec"
PSU0 = "status.admissionChecks[0].podSetUpdates"
GATED_BY = "kueue.x-k8s.io/admission-gated-by"
GATED_BY_PATH = f"metadata.annotations[{GATED_BY}]"
BOOST = "kueue.x-k8s.io/priority-boost"
BOOST_PATH = f"metadata.annotations[{BOOST}]"
ELASTIC = {"kueue.x-k8s.io/elastic-job": "true"}
BAD_LABELS = {"valid": "invalid value with spaces, test-wec1"}
BAD_ANNOTATIONS = {"invalid/annotation/key/too/long/invalid": "val"}


def _without_admission() -> Obj:
    """``quotaReservedWithoutAdmission``."""
    wl = workload(pod_set("driver"))
    wl["status"] = {"conditions": [quota_reserved()]}
    return wl


def _metadata(labels: Obj | None = None, annotations: Obj | None = None) -> Obj:
    """A pod set ``bad-metadata`` (1) whose template has only this metadata."""
    meta = {k: v for k, v in (("labels", labels), ("annotations", annotations)) if v}
    return {"name": "bad-metadata", "count": 1, "template": {"metadata": meta}}


def _pod_level(kind: str, name: str, value: str) -> Obj:
    ps = pod_set("bad")
    ps["template"]["spec"]["resources"] = {kind: {name: value}}
    return ps


def _topology(**request: Any) -> Obj:
    return pod_set("bad", topologyRequest=request)


def _checks(*updates: Obj, **check: Any) -> list[Obj]:
    """``AdmissionChecks(AdmissionCheckState{PodSetUpdates: updates, ...})``."""
    return [{**check, "podSetUpdates": list(updates)}] if updates or check else [{}]


def _gated(value: str) -> Obj:
    return workload(pod_set(), annotations={GATED_BY: value})


def _boost(value: str | None) -> Obj:
    return workload(pod_set(), annotations=None if value is None else {BOOST: value})


TOLERATION = {"key": "t1", "operator": "Equal", "value": "t1v", "effect": "NoExecute",
              "tolerationSeconds": 5}  # fmt: skip
MATCHED = [
    {"name": "first", "labels": {"l1": "first"}, "annotations": {"foo": "bar"},
     "tolerations": [TOLERATION], "nodeSelector": {"type": "first"}},
    {"name": "second", "labels": {"l2": "second"}, "annotations": {"foo": "baz"},
     "tolerations": [{**TOLERATION, "key": "t2", "value": "t2v", "tolerationSeconds": 10}],
     "nodeSelector": {"type": "second"}},
]  # fmt: skip
FIRST_SECOND = (pod_set("first"), pod_set("second"))
# (name, gates, workload, [(field, type)])
CREATE: list[tuple[str, KueueFeatures, Obj, list[tuple[str, str]]]] = [
    ("valid", DEFAULT, workload(pod_set("driver"), pod_set("workers", 100)), []),
    ("quota reserved without an admission is refused, not a panic", DEFAULT,
     _without_admission(), [("status.admission", REQUIRED)]),
    ("should have a valid podSet name in status assignment", DEFAULT,
     workload(reserve=admission(assignment("@invalid"))),
     [("status.admission.podSetAssignments[0].name", NOT_FOUND)]),
    ("assignment usage should be divisible by count", DEFAULT,
     workload(with_containers(pod_set("main", 3), main=[container({"cpu": "1"})]),
              reserve=admission(assignment("main", 3, flavors={"cpu": "flv"},
                                           resourceUsage={"cpu": "1"}))),
     [("status.admission.podSetAssignments[0].resourceUsage[cpu]", INVALID)]),
    ("should not request num-pods resource", DEFAULT,
     workload(with_containers(pod_set("bad"), init=[container({"pods": "1"})],
                              main=[container({"pods": "1"})])),
     [(f"{SPEC0}.initContainers[0].resources.requests[pods]", INVALID),
      (f"{SPEC0}.containers[0].resources.requests[pods]", INVALID)]),
    ("should reject reserved pods resource key in limits", DEFAULT,
     workload(with_containers(pod_set("bad"), init=[container(limits={"pods": "1"})],
                              main=[container(limits={"pods": "1"})])),
     [(f"{SPEC0}.initContainers[0].resources.limits[pods]", INVALID),
      (f"{SPEC0}.containers[0].resources.limits[pods]", INVALID)]),
    ("should reject negative container resource request", DEFAULT,
     workload(with_containers(pod_set("bad"), main=[container({"cpu": "-1"})])),
     [(f"{SPEC0}.containers[0].resources.requests[cpu]", INVALID)]),
    ("should reject negative initContainer resource request", DEFAULT,
     workload(with_containers(pod_set("bad"), init=[container({"cpu": "-1"})])),
     [(f"{SPEC0}.initContainers[0].resources.requests[cpu]", INVALID)]),
    ("should accept invalid podSet template metadata when WorkloadValidationForPodSetMetadata is "
     "disabled", KueueFeatures(workload_validation_for_pod_set_metadata=False),
     workload(_metadata(BAD_LABELS, BAD_ANNOTATIONS)), []),
    ("should reject invalid podSet template label value", DEFAULT,
     workload(_metadata({"valid": "invalid value with spaces"})),
     [(f"{PS0}.template.metadata.labels", INVALID)]),
    ("should reject invalid podSet template annotation key", DEFAULT,
     workload(_metadata(annotations=BAD_ANNOTATIONS)),
     [(f"{PS0}.template.metadata.annotations", INVALID)]),
    ("should reject negative container resource limit", DEFAULT,
     workload(with_containers(pod_set("bad"), main=[container(limits={"cpu": "-1"})])),
     [(f"{SPEC0}.containers[0].resources.limits[cpu]", INVALID)]),
    ("should reject negative resource among multiple valid requests and limits", DEFAULT,
     workload(with_containers(pod_set("bad"), main=[container(
         {"cpu": "1", "memory": "-1Gi"}, {"cpu": "2", "memory": "-2Gi"})])),
     [(f"{SPEC0}.containers[0].resources.requests[memory]", INVALID),
      (f"{SPEC0}.containers[0].resources.limits[memory]", INVALID)]),
    ("should reject negative pod-level resource request", DEFAULT,
     workload(_pod_level("requests", "cpu", "-1")),
     [(f"{SPEC0}.resources.requests[cpu]", INVALID)]),
    ("should reject negative pod-level resource limit", DEFAULT,
     workload(_pod_level("limits", "memory", "-1Gi")),
     [(f"{SPEC0}.resources.limits[memory]", INVALID)]),
    ("should accept negative container resource request when "
     "WorkloadValidateResourcesAreNonNegative is disabled",
     KueueFeatures(workload_validate_resources_are_non_negative=False),
     workload(with_containers(pod_set("ok"), main=[container({"cpu": "-1"})])), []),
    ("should accept zero container resource request", DEFAULT,
     workload(with_containers(pod_set("ok"), main=[container({"cpu": "0"})])), []),
    ("should reject non-positive podSetSliceSize when TASValidateWorkloadSliceSize is enabled",
     DEFAULT, workload(_topology(podSetSliceRequiredTopology="kubernetes.io/hostname",
                                 podSetSliceSize=0)),
     [(f"{PS0}.topologyRequest.podSetSliceSize", INVALID)]),
    ("should reject podSetSliceSize without podSetSliceRequiredTopology when "
     "TASValidateWorkloadSliceSize is enabled", DEFAULT, workload(_topology(podSetSliceSize=1)),
     [(f"{PS0}.topologyRequest.podSetSliceSize", FORBIDDEN)]),
    ("should reject non-positive podsetSliceRequiredTopologyConstraints size when "
     "TASValidateWorkloadSliceSize is enabled", DEFAULT,
     workload(_topology(podsetSliceRequiredTopologyConstraints=[
         {"topology": "kubernetes.io/hostname", "size": 0}])),
     [(f"{PS0}.topologyRequest.podsetSliceRequiredTopologyConstraints[0].size", INVALID)]),
    ("should accept non-positive podSetSliceSize when TASValidateWorkloadSliceSize is disabled",
     KueueFeatures(tas_validate_workload_slice_size=False),
     workload(_topology(podSetSliceRequiredTopology="kubernetes.io/hostname",
                        podSetSliceSize=0)), []),
    ("empty podSetUpdates", DEFAULT, workload(admissionChecks=[{}]), []),
    ("should accept podSetUpdates for only a subset of podSets", DEFAULT,
     workload(*FIRST_SECOND, admissionChecks=_checks({"name": "first"})), []),
    ("mismatched names in podSetUpdates with names in podSets", DEFAULT,
     workload(*FIRST_SECOND, admissionChecks=_checks({"name": "first"}, {"name": "third"})),
     [(f"{PSU0}[1].name", NOT_SUPPORTED)]),
    ("matched names in podSetUpdates with names in podSets", DEFAULT,
     workload(*FIRST_SECOND, admissionChecks=_checks(*MATCHED)), []),
    ("invalid label name of podSetUpdate", DEFAULT,
     workload(admissionChecks=_checks({"name": "main", "labels": {"@abc": "foo"}})),
     [(f"{PSU0}[0].labels", INVALID)]),
    ("invalid node selector name of podSetUpdate", DEFAULT,
     workload(admissionChecks=_checks({"name": "main", "nodeSelector": {"@abc": "foo"}})),
     [(f"{PSU0}[0].nodeSelector", INVALID)]),
    ("invalid label value of podSetUpdate", DEFAULT,
     workload(admissionChecks=_checks({"name": "main", "labels": {"foo": "@abc"}})),
     [(f"{PSU0}[0].labels", INVALID)]),
    ("invalid reclaimablePods", DEFAULT,
     workload(pod_set("ps1", 3), reclaimablePods=[{"name": "ps1", "count": 4},
                                                  {"name": "ps2", "count": 1}]),
     [("status.reclaimablePods[ps1].count", INVALID),
      ("status.reclaimablePods[ps2].name", NOT_SUPPORTED)]),
    ("too many variable count podSets", DEFAULT,
     workload(pod_set("ps1", 3, minCount=2), pod_set("ps2", 3, minCount=1)),
     [("spec.podSets", INVALID)]),
    ("valid priority-boost", KueueFeatures(priority_boost=True), _boost("10"), []),
    ("valid priority-boost zero", KueueFeatures(priority_boost=True), _boost("0"), []),
    ("valid priority-boost negative", KueueFeatures(priority_boost=True), _boost("-5"), []),
    ("invalid priority-boost", KueueFeatures(priority_boost=True), _boost("invalid"),
     [(BOOST_PATH, INVALID)]),
    ("empty string priority-boost", KueueFeatures(priority_boost=True), _boost(""),
     [(BOOST_PATH, INVALID)]),
    ("missing priority-boost annotation", KueueFeatures(priority_boost=True), _boost(None), []),
    ("invalid priority-boost when feature off", KueueFeatures(priority_boost=False),
     _boost("invalid"), []),
    ("valid AdmissionGatedBy annotation with single gate", DEFAULT,
     _gated("example.com/controller"), []),
    ("valid AdmissionGatedBy annotation with multiple gates", DEFAULT,
     _gated("example.com/a,not.example.com/b"), []),
    ("AdmissionGatedBy annotation - leading space", DEFAULT, _gated(" example.com/gate"), []),
    ("AdmissionGatedBy annotation - space before comma", DEFAULT,
     _gated("example.com/gate ,example.com/gate2"), []),
    ("AdmissionGatedBy annotation - space after comma", DEFAULT,
     _gated("example.com/gate, example.com/gate2"), []),
    ("AdmissionGatedBy annotation - trailing space", DEFAULT, _gated("example.com/gate "), []),
    ("invalid AdmissionGatedBy annotation - not in subdomain/path format", DEFAULT,
     _gated("this is an invalid value"), [(GATED_BY_PATH, INVALID)]),
    ("invalid AdmissionGatedBy annotation - duplicate gates", DEFAULT,
     _gated("duplicates.are/invalid,duplicates.are/invalid"), [(GATED_BY_PATH, INVALID)]),
    ("invalid AdmissionGatedBy annotation - space in path component", DEFAULT,
     _gated("example.com/gate name"), [(GATED_BY_PATH, INVALID)]),
    ("invalid AdmissionGatedBy annotation - space in domain component", DEFAULT,
     _gated("example .com/gate"), [(GATED_BY_PATH, INVALID)]),
    ("invalid AdmissionGatedBy annotation - multiple gates with one containing space", DEFAULT,
     _gated("valid.com/gate,invalid gate.com/controller"), [(GATED_BY_PATH, INVALID)]),
    ("partial admission and elastic job cannot be used together", DEFAULT,
     workload(pod_set("main", 10, minCount=5), annotations=ELASTIC), [("spec.podSets", INVALID)]),
    ("non-negative subGroupCount is accepted without warning", DEFAULT,
     workload(pod_set("main", 1, subGroupCount=0)), []),
]  # fmt: skip


def _fields(causes: list[Cause]) -> list[tuple[str, str]]:
    return [(field, kind) for field, kind, _ in causes]


@pytest.mark.parametrize(
    ("features", "wl", "errors"), [c[1:] for c in CREATE], ids=[c[0] for c in CREATE]
)
def test_validate_workload(features: KueueFeatures, wl: Obj, errors: list[tuple[str, str]]) -> None:
    assert _fields(validate_workload(wl, features=features)) == errors


def _reserved(*pod_sets: Obj, assignments: tuple[Obj, ...], annotations: Obj | None = None,
              reclaimable: tuple[tuple[str, int], ...] = ()) -> Obj:  # fmt: skip
    """A Workload with quota reserved (``ReserveQuotaAt``) and its reclaimable pods."""
    status: Obj = {}
    if reclaimable:
        status["reclaimablePods"] = [{"name": n, "count": c} for n, c in reclaimable]
    return workload(*pod_sets, annotations=annotations, reserve=admission(*assignments), **status)


def _literal(name: str, count: int | None = None) -> Obj:
    """A ``kueue.PodSetAssignment{Name: name, Count: count}`` literal."""
    return {"name": name, **({} if count is None else {"count": count})}


PS1_PS2 = (pod_set("ps1", 3), pod_set("ps2", 3))
BOTH = (_literal("ps1"), _literal("ps2"))
ELASTIC_ON = KueueFeatures(elastic_jobs_via_workload_slices=True)


def _elastic(count: int, reclaim: int | None, admitted: int | None = None, *,
             annotated: bool = True) -> Obj:  # fmt: skip
    return _reserved(pod_set("ps1", count), assignments=(_literal("ps1", admitted),),
                     annotations=ELASTIC if annotated else None,
                     reclaimable=() if reclaim is None else (("ps1", reclaim),))  # fmt: skip


def _topology_assignment(count: int) -> Obj:
    return _literal("ps1") | {"topologyAssignment": {
        "levels": ["level"],
        "slices": [{"domainCount": 1, "podCounts": {"universal": count},
                    "valuesPerLevel": [{"universal": "abc"}]}]}}  # fmt: skip


def _ready(labels: Obj, **check: Any) -> Obj:
    checks = _checks({"name": "first", "labels": labels}, {"name": "second"}, state="Ready",
                     **check)  # fmt: skip
    return workload(*FIRST_SECOND, admissionChecks=checks)


def _dropping_finalizer() -> Obj:
    wl = _without_admission()
    wl["metadata"]["finalizers"] = ["kueue.x-k8s.io/resource-in-use"]
    return wl


def _suspended() -> Obj:
    checks = _checks({"name": "ps1"}, {"name": "ps2"}, state="Ready")
    reclaimable = [{"name": "ps1", "count": 0}, {"name": "ps2", "count": 1}]
    return workload(*PS1_PS2, admissionChecks=checks, reclaimablePods=reclaimable)


REPLACEMENT = {"kueue.x-k8s.io/workload-slice-replacement-for": "test-ns/test-workload"}
# (name, gates, before, after, [(field, type)])
UPDATE: list[tuple[str, KueueFeatures, Obj, Obj, list[tuple[str, str]]]] = [
    ("an update may not put a workload in quota reserved with no admission", DEFAULT,
     workload(pod_set("driver")), _without_admission(), [("status.admission", REQUIRED)]),
    ("a workload already in that state stays updatable so it can be removed", DEFAULT,
     _without_admission(), _without_admission(), []),
    ("reclaimable pod count can change up", DEFAULT,
     _reserved(*PS1_PS2, assignments=BOTH, reclaimable=(("ps1", 1),)),
     _reserved(*PS1_PS2, assignments=BOTH, reclaimable=(("ps1", 2), ("ps2", 1))), []),
    ("should accept invalid podSet template metadata on update when "
     "WorkloadValidationForPodSetMetadata is disabled",
     KueueFeatures(workload_validation_for_pod_set_metadata=False), workload(pod_set("driver")),
     workload(_metadata(BAD_LABELS, BAD_ANNOTATIONS) | {"name": "driver"}), []),
    ("should reject invalid podSet template label value on update", DEFAULT,
     workload(pod_set("driver")),
     workload(_metadata({"valid": "invalid value with spaces"}) | {"name": "driver"}),
     [(f"{PS0}.template.metadata.labels", INVALID)]),
    ("reclaimable pod count cannot change down", DEFAULT,
     _reserved(*PS1_PS2, assignments=BOTH, reclaimable=(("ps1", 2), ("ps2", 1))),
     _reserved(*PS1_PS2, assignments=BOTH, reclaimable=(("ps1", 1),)),
     [("status.reclaimablePods[ps1].count", INVALID), ("status.reclaimablePods[ps2]", REQUIRED)]),
    ("elastic workload: unchanged reclaimable pod count is tolerated while its podSet scales down "
     "below it", ELASTIC_ON, _elastic(8, 4), _elastic(3, 4), []),
    ("elastic workload: changed reclaimable pod count above the podSet count is rejected",
     ELASTIC_ON, _elastic(8, 4), _elastic(3, 5), [("status.reclaimablePods[ps1].count", INVALID)]),
    ("elastic workload: reclaimable pod count can decrease after its podSet scaled down below the "
     "admitted count", ELASTIC_ON, _elastic(3, 4, 8), _elastic(3, 3, 8), []),
    ("elastic workload: reclaimable pod count can decrease when scaled down below the admitted "
     "count even if the podSet still exceeds it", ELASTIC_ON, _elastic(10, 9, 20),
     _elastic(10, 0, 20), []),
    ("elastic workload: reclaimable pod count cannot decrease without a podSet scale-down",
     ELASTIC_ON, _elastic(8, 4), _elastic(8, 2), [("status.reclaimablePods[ps1].count", INVALID)]),
    ("elastic workload: reclaimable pod entry can be removed after its podSet scaled down below "
     "the admitted count", ELASTIC_ON, _elastic(8, 4, 8), _elastic(1, None, 8), []),
    ("elastic workload: reclaimable pod entry cannot be removed without a podSet scale-down",
     ELASTIC_ON, _elastic(8, 4), _elastic(8, None), [("status.reclaimablePods[ps1]", REQUIRED)]),
    ("non-elastic workload: stale reclaimable pod count is still rejected when its podSet scales "
     "down", ELASTIC_ON, _elastic(8, 4, annotated=False), _elastic(3, 4, annotated=False),
     [("status.reclaimablePods[ps1].count", INVALID)]),
    ("reclaimable pod count can go to 0 if the job is suspended", DEFAULT,
     _reserved(*PS1_PS2, assignments=BOTH, reclaimable=(("ps1", 2), ("ps2", 1))), _suspended(),
     []),
    ("podSetUpdates should be immutable when state is ready", DEFAULT, _ready({"foo": "bar"}),
     _ready({"foo": "baz"}), [("status.admissionChecks[0].podSetUpdates", INVALID)]),
    ("should change other fields of admissionchecks when podSetUpdates is immutable", DEFAULT,
     _ready({"foo": "bar"}, name="ac1", message="old"),
     _ready({"foo": "bar"}, name="ac1", message="new", lastTransitionTime="2026-01-02T00:00:00Z"),
     []),
    ("TopologyAssignment can be mutated", KueueFeatures(topology_aware_scheduling=True),
     _reserved(pod_set("ps1", 3), assignments=(_topology_assignment(2),)),
     _reserved(pod_set("ps1", 3), assignments=(_topology_assignment(3),)), []),
    # Upstream's rows call the wrapper's PodSets twice, which keeps the second call's list: the
    # admissions compared are [ps2] before and [ps1] after (and the reverse).
    ("PodSets cannot be removed from admission", KueueFeatures(topology_aware_scheduling=True),
     _reserved(*PS1_PS2, assignments=(_literal("ps2"),)),
     _reserved(*PS1_PS2, assignments=(_literal("ps1"),)), [("status.admission", INVALID)]),
    ("PodSets cannot be added to admission", KueueFeatures(topology_aware_scheduling=True),
     _reserved(*PS1_PS2, assignments=(_literal("ps1"),)),
     _reserved(*PS1_PS2, assignments=(_literal("ps2"),)), [("status.admission", INVALID)]),
    ("workload.podSets[].count is immutable", KueueFeatures(elastic_jobs_via_workload_slices=False),
     _reserved(pod_set("ps1", 3), pod_set("ps2", 4), assignments=BOTH),
     _reserved(pod_set("ps1", 3), pod_set("ps2", 3), assignments=BOTH),
     [("spec.podSets.1", INVALID)]),
    ("workload.podSets[].count is mutable with ElasticJobs feature gate", ELASTIC_ON,
     _reserved(pod_set("ps1", 3), pod_set("ps2", 4), assignments=BOTH),
     _reserved(pod_set("ps1", 3), pod_set("ps2", 3), assignments=BOTH), []),
    ("ClusterName doesn't have to be one of the nominatedClusterNames with ElasticJobs feature "
     "gate", ELASTIC_ON, workload(pod_set("ps1", 3), pod_set("ps2", 4)),
     _reserved(pod_set("ps1", 3), pod_set("ps2", 4), assignments=BOTH, annotations=REPLACEMENT)
     | {"status": _reserved(pod_set("ps1", 3), pod_set("ps2", 4), assignments=BOTH)["status"]
        | {"clusterName": "worker1"}}, []),
    ("reject adding AdmissionGatedBy annotation after workload creation", DEFAULT,
     workload(pod_set()), _gated("example.com/controller"), [(GATED_BY_PATH, FORBIDDEN)]),
    ("allow removing AdmissionGatedBy annotation with single gate", DEFAULT,
     _gated("example.com/controller1"), workload(pod_set()), []),
    ("allow removing AdmissionGatedBy annotation with multiple gates", DEFAULT,
     _gated("example.com/controller1,example.com/controller2"), workload(pod_set()), []),
    ("allow removing one gate from AdmissionGatedBy annotation", DEFAULT,
     _gated("example.com/controller1,example.com/controller2"), _gated("example.com/controller2"),
     []),
    ("reject injecting new gate in AdmissionGatedBy annotation", DEFAULT,
     _gated("example.com/controller1,example.com/controller2"), _gated("example.com/controller3"),
     [(GATED_BY_PATH, FORBIDDEN)]),
    ("allow reordering gates in AdmissionGatedBy annotation", DEFAULT,
     _gated("example.com/controller1,example.com/controller2"),
     _gated("example.com/controller2,example.com/controller1"), []),
    ("a workload whose quota reservation lost its admission can still drop its finalizer",
     DEFAULT, _dropping_finalizer(), _without_admission(), []),
]  # fmt: skip


@pytest.mark.parametrize(
    ("features", "before", "after", "errors"), [c[1:] for c in UPDATE], ids=[c[0] for c in UPDATE]
)
def test_validate_workload_update(
    features: KueueFeatures, before: Obj, after: Obj, errors: list[tuple[str, str]]
) -> None:
    assert _fields(validate_workload_update(after, before, features=features)) == errors


def test_the_answer_is_the_aggregate_kube_apiserver_shows() -> None:
    wl = workload(with_containers(pod_set("bad"), main=[container({"pods": "1", "cpu": "-1"})]))
    at = f"{SPEC0}.containers[0].resources.requests"
    assert admit_workload("CREATE", wl, None) == (
        f'[{at}[pods]: Invalid value: "pods": the key is reserved for internal kueue use, '
        f'{at}[cpu]: Invalid value: "-1": must be greater than or equal to 0]'
    )


def test_a_quota_reserved_workloads_pod_sets_are_immutable_with_the_default_gates() -> None:
    before = _reserved(pod_set("ps1", 3), assignments=(_literal("ps1"),))
    after = copy.deepcopy(before)
    after["spec"]["podSets"][0]["template"]["spec"]["restartPolicy"] = "OnFailure"
    scaled_down = copy.deepcopy(before)
    scaled_down["spec"]["podSets"][0]["count"] = 2
    assert admit_workload("UPDATE", after, before) == (
        'spec.podSets.0: Invalid value: {"name":"ps1","count":3,"template":{"spec":'
        '{"restartPolicy":"OnFailure","containers":[{"name":"c","resources":{"requests":{}}}]}}}: '
        "field is immutable"
    )
    assert admit_workload("UPDATE", scaled_down, before) == ""


@pytest.mark.parametrize(
    ("features", "kept"),
    [(KueueFeatures(), True), (KueueFeatures(partial_admission=False), False)],
    ids=["PartialAdmission on (default) keeps minCount", "PartialAdmission off drops minCount"],
)
def test_the_defaulter_drops_min_count_only_without_partial_admission(
    features: KueueFeatures, kept: bool
) -> None:
    wl = workload(pod_set("ps1", 3, minCount=2))
    default_workload(wl, Snapshot(), features=features)
    assert ("minCount" in wl["spec"]["podSets"][0]) is kept
