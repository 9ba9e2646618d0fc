"""Ported from kubernetes pkg/apis/batch/validation/validation_test.go, ``TestValidateJob``
(its success and error cases; row ids are upstream's case names). As upstream, the Job is
validated as given (``ValidateJob``, no defaulting) and an error row lists the expected errors by
field and type (``field.ErrorType``), compared as a multiset."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.batch_selector import validate_defaulted_job
from services.kubesim.validation import validate

Obj = dict[str, Any]
UID, NAME = "1a2b3c", "myjob"
GENERATED = {"batch.kubernetes.io/controller-uid": UID, "controller-uid": UID,
             "batch.kubernetes.io/job-name": NAME, "job-name": NAME}  # fmt: skip
MANUAL = {"a": "b"}
ABC = {"name": "abc", "image": "image", "imagePullPolicy": "IfNotPresent",
       "terminationMessagePolicy": "File"}  # fmt: skip
DEF = {**ABC, "name": "def"}
INV, R, NS, D, TL, TM = ("FieldValueInvalid", "FieldValueRequired", "FieldValueNotSupported",
                       "FieldValueDuplicate", "FieldValueTooLong", "FieldValueTooMany")  # fmt: skip
PFP = "spec.podFailurePolicy.rules"
SP = "spec.successPolicy.rules"


def template(labels: dict[str, str], restart: str = "OnFailure", init: bool = True) -> Obj:
    spec: Obj = {"restartPolicy": restart, "dnsPolicy": "ClusterFirst", "containers": [ABC]}
    if init:
        spec["initContainers"] = [DEF]
    return {"metadata": {"labels": labels}, "spec": spec}


GEN = template(GENERATED)
GEN_NEVER = template(GENERATED, "Never")
MANUAL_TEMPLATE = template(MANUAL, init=False)


def job(uid: str = UID, annotations: dict[str, str] | None = None, **spec: Any) -> Obj:
    meta: Obj = {"name": NAME, "namespace": "default"}
    if uid:
        meta["uid"] = uid
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"selector": {"matchLabels": GENERATED}, "template": GEN, **spec}}  # fmt: skip


def manual(selector: Obj, tmpl: Obj) -> Obj:
    return job(selector=selector, manualSelector=True, template=tmpl)


def indexed(completions: int | None = None, **spec: Any) -> Obj:
    if completions is not None:
        spec["completions"] = completions
    return job(completionMode="Indexed", **spec)


def rule(action: str = "FailJob", **fields: Any) -> Obj:
    return {"action": action, **fields}


def codes(values: list[int], operator: str = "In", container: str | None = None) -> Obj:
    out: Obj = {"operator": operator, "values": values}
    if container is not None:
        out["containerName"] = container
    return out


def pfp(*rules: Obj, tmpl: Obj = GEN_NEVER, **spec: Any) -> Obj:
    return job(template=tmpl, podFailurePolicy={"rules": list(rules)}, **spec)


def success_policy(*rules: Obj) -> Obj:
    return indexed(5, template=GEN_NEVER, successPolicy={"rules": list(rules)})


DISRUPTION = {"type": "DisruptionTarget", "status": "True"}
LEGACY_UID_SELECTOR = {"matchLabels": {"controller-uid": UID}}

SUCCESS = [
    ("valid_success_policy", True, indexed(10, template=GEN_NEVER, successPolicy={"rules": [
        {"succeededCount": 1, "succeededIndexes": "0,2,4"}, {"succeededIndexes": "1,3,5-9"}]})),
    ("valid_pod_failure_policy", True, pfp(
        rule("Ignore", onPodConditions=[DISRUPTION]),
        rule("FailJob", onPodConditions=[{"type": "CustomConditionType", "status": "False"}]),
        rule("Count", onExitCodes=codes([1, 2, 3], container="abc")),
        rule("Ignore", onExitCodes=codes([4], container="def")),
        rule("FailJob", onExitCodes=codes([5, 6, 7], "NotIn")))),
    ("valid_pod_failure_policy_with_FailIndex", False, indexed(
        2, backoffLimitPerIndex=1, manualSelector=True, template=GEN_NEVER,
        podFailurePolicy={"rules": [rule("FailIndex", onExitCodes=codes([10]))]})),
    ("valid_manual_selector", True, {**manual({"matchLabels": MANUAL}, MANUAL_TEMPLATE),
                                     "metadata": {"name": NAME, "uid": UID,
                                                  "annotations": {"foo": "bar"}}}),
    ("valid_generated_selector", True, job()),
    ("valid_pod_replacement", True, job(podReplacementPolicy="TerminatingOrFailed")),
    ("valid_pod_replacement_with_failed", True, job(podReplacementPolicy="Failed")),
    ("valid_hostnet", True, job(template={**GEN, "spec": {
        **GEN["spec"], "hostNetwork": True,
        "containers": [{**ABC, "ports": [{"containerPort": 12345, "protocol": "TCP"}]}]}})),
    ("valid_NonIndexed_completion_mode", True, job(completionMode="NonIndexed")),
    ("valid_Indexed_completion_mode", True, indexed(2, parallelism=100000)),
    ("valid_parallelism_and_maxFailedIndexes_for_high_completions_when_backoffLimitPerIndex_is_"
     "used", True, indexed(100_000, parallelism=100_000, maxFailedIndexes=100_000,
                           backoffLimitPerIndex=1)),
    ("valid_parallelism_and_maxFailedIndexes_for_unlimited_completions_when_backoffLimitPerIndex"
     "_is_used", True, indexed(1_000_000_000, parallelism=10_000, maxFailedIndexes=10_000,
                               backoffLimitPerIndex=1)),
    ("valid_job_tracking_annotation", True, job()),
    ("valid_batch_labels", True, job()),
    ("do_not_allow_new_batch_labels", False, job(
        selector=LEGACY_UID_SELECTOR,
        template=template({"controller-uid": UID, "job-name": NAME}))),
    ("valid_managedBy_field", True, job(managedBy="example.com/foo")),
]  # fmt: skip


def _errors(obj: Obj, prefixed: bool) -> list[tuple[str, str]]:
    causes = validate("batch/v1", "Job", obj) + validate_defaulted_job(
        obj, prefixed_labels=prefixed
    )
    return sorted((field, kind) for field, kind, _ in causes)


@pytest.mark.parametrize(("prefixed", "obj"), [c[1:] for c in SUCCESS], ids=[c[0] for c in SUCCESS])
def test_validate_job_success_cases(prefixed: bool, obj: Obj) -> None:
    assert _errors(obj, prefixed) == []


ERRORS = [
    ("spec.managedBy:_Too_long:_may_not_be_longer_than_63",
     job(managedBy="example.com/" + "x" * 60), [("spec.managedBy", TL)]),
    ('spec.managedBy:_Invalid_value:_"invalid_custom_controller_name"',
     job(managedBy="invalid custom controller name"), [("spec.managedBy", INV)]),
    ("spec.successPolicy:_requires_indexed_completion_mode",
     job(template=GEN_NEVER, successPolicy={"rules": []}), [("spec.successPolicy", INV)]),
    ("spec.successPolicy.rules:_Required_value",
     indexed(5, template=GEN_NEVER, successPolicy={}), [(SP, R)]),
    ("spec.successPolicy.rules[0]:_Required_value", success_policy({}), [(f"{SP}[0]", R)]),
    ("spec.successPolicy.rules[0].succeededIndexes:_Invalid_value:_invalid-format",
     success_policy({"succeededIndexes": "invalid-format"}),
     [(f"{SP}[0].succeededIndexes", INV)]),
    ("spec.successPolicy.rules[0].succeededIndexes:_Too_long",
     success_policy({"succeededIndexes": "1" * (64 * 1024 + 1)}),
     [(f"{SP}[0].succeededIndexes", TL), (f"{SP}[0].succeededIndexes", INV)]),
    ("spec.successPolicy.rules[0].succeededCount:_must_be_greater_than_or_equal_to_0",
     success_policy({"succeededCount": -1}), [(f"{SP}[0].succeededCount", INV)]),
    ("spec.successPolicy.rules[0].succeededCount:_Invalid_value:_6",
     success_policy({"succeededCount": 6}), [(f"{SP}[0].succeededCount", INV)]),
    ("spec.successPolicy.rules[0].succeededCount:_Invalid_value:_4",
     success_policy({"succeededCount": 4, "succeededIndexes": "0-2"}),
     [(f"{SP}[0].succeededCount", INV)]),
    ("spec.successPolicy.rules:_Too_many:_21", success_policy(*[{"succeededCount": 5}] * 21),
     [(SP, TM)]),
    ("spec.podFailurePolicy.rules[0]:_specifying_one_of_OnExitCodes_and_OnPodConditions_is_"
     "required", pfp(rule()), [(f"{PFP}[0]", INV)]),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values[1]:_Duplicate_value:_11",
     pfp(rule(onExitCodes=codes([11, 11]))), [(f"{PFP}[0].onExitCodes.values[1]", D)]),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values:_Too_many:_256",
     pfp(rule(onExitCodes=codes(list(range(256))))),
     [(f"{PFP}[0].onExitCodes.values", TM), (f"{PFP}[0].onExitCodes.values[0]", INV)]),
    ("spec.podFailurePolicy.rules:_Too_many:_21",
     pfp(*[rule(onExitCodes=codes([i + 1])) for i in range(21)]), [(PFP, TM)]),
    ("spec.podFailurePolicy.rules[0].onPodConditions:_Too_many:_21",
     pfp(rule(onPodConditions=[{"type": f"CustomType_{i}", "status": "True"}
                               for i in range(21)])),
     [(f"{PFP}[0].onPodConditions", TM)]),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values[2]:_Duplicate_value:_13",
     pfp(rule(onExitCodes=codes([12, 13, 13, 13]))),
     [(f"{PFP}[0].onExitCodes.values[2]", D), (f"{PFP}[0].onExitCodes.values[3]", D)]),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values:_must_be_ordered",
     pfp(rule(onExitCodes=codes([19, 11]))), [(f"{PFP}[0].onExitCodes.values", INV)]),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values:_at_least_one_value_is_required",
     pfp(rule(onExitCodes=codes([]))), [(f"{PFP}[0].onExitCodes.values", INV)]),
    ("spec.podFailurePolicy.rules[0].action:_Required_value",
     pfp(rule("", onExitCodes=codes([1, 2, 3]))), [(f"{PFP}[0].action", R)]),
    ("spec.podFailurePolicy.rules[0].onExitCodes.operator:_Required_value",
     pfp(rule(onExitCodes=codes([1, 2, 3], ""))), [(f"{PFP}[0].onExitCodes.operator", R)]),
    ("spec.podFailurePolicy.rules[0]:_specifying_both_OnExitCodes_and_OnPodConditions_is_not_"
     "supported",
     pfp(rule(onExitCodes=codes([1, 2, 3], container="abc"), onPodConditions=[DISRUPTION])),
     [(f"{PFP}[0]", INV)]),
    ("spec.podFailurePolicy.rules[0].onExitCodes.values[1]:_must_not_be_0_for_the_In_operator",
     pfp(rule("Ignore", onExitCodes=codes([1, 0, 2]))),
     [(f"{PFP}[0].onExitCodes.values[1]", INV), (f"{PFP}[0].onExitCodes.values", INV)]),
    ("spec.podFailurePolicy.rules[1].onExitCodes.containerName:_Invalid_value:_xyz",
     pfp(rule("Ignore", onExitCodes=codes([1, 2, 3], container="abc")),
         rule(onExitCodes=codes([5, 6, 7], container="xyz"))),
     [(f"{PFP}[1].onExitCodes.containerName", INV)]),
    ("spec.podFailurePolicy.rules[0].action:_Unsupported_value:_UnknownAction",
     pfp(rule("UnknownAction", onExitCodes=codes([1, 2, 3], container="abc"))),
     [(f"{PFP}[0].action", NS)]),
    ("spec.podFailurePolicy.rules[0].onExitCodes.operator:_Unsupported_value:_UnknownOperator",
     pfp(rule("Ignore", onExitCodes=codes([1, 2, 3], "UnknownOperator"))),
     [(f"{PFP}[0].onExitCodes.operator", NS)]),
    ("spec.podFailurePolicy.rules[0].onPodConditions[0].status:_Required_value",
     pfp(rule("Ignore", onPodConditions=[{"type": "DisruptionTarget"}])),
     [(f"{PFP}[0].onPodConditions[0].status", R)]),
    ("spec.podFailurePolicy.rules[0].onPodConditions[0].status:_Unsupported_value",
     pfp(rule("Ignore", onPodConditions=[{"type": "DisruptionTarget",
                                          "status": "UnknownStatus"}])),
     [(f"{PFP}[0].onPodConditions[0].status", NS)]),
    ("spec.podFailurePolicy.rules[0].onPodConditions[0].type:_name_part_must_be_non-empty",
     pfp(rule("Ignore", onPodConditions=[{"status": "True"}])),
     [(f"{PFP}[0].onPodConditions[0].type", INV)] * 2),
    ("spec.podFailurePolicy.rules[0].onPodConditions[0].type:_Invalid_Condition_Type",
     pfp(rule("Ignore", onPodConditions=[{"type": "Invalid Condition Type", "status": "True"}])),
     [(f"{PFP}[0].onPodConditions[0].type", INV)]),
    ('spec.podReplacementPolicy:_Unsupported_value:_"TerminatingOrFailed"',
     pfp(rule("Ignore", onPodConditions=[DISRUPTION]), podReplacementPolicy="TerminatingOrFailed"),
     [("spec.podReplacementPolicy", NS)]),
    ('spec.podReplacementPolicy:_Unsupported_value:_""',
     job(template=GEN_NEVER, podReplacementPolicy=""), [("spec.podReplacementPolicy", NS)]),
    ('spec.template.spec.restartPolicy:_Invalid_value:_"OnFailure"',
     pfp(tmpl=template(GENERATED, init=False)), [("spec.template.spec.restartPolicy", INV)]),
    ("spec.parallelism:must_be_greater_than_or_equal_to_0", job(parallelism=-1),
     [("spec.parallelism", INV)]),
    ("spec.backoffLimit:must_be_greater_than_or_equal_to_0", job(backoffLimit=-1),
     [("spec.backoffLimit", INV)]),
    ("spec.backoffLimitPerIndex:_Invalid_value:_1:_requires_indexed_completion_mode",
     job(backoffLimitPerIndex=1), [("spec.backoffLimitPerIndex", INV)]),
    ("spec.backoffLimitPerIndex:must_be_greater_than_or_equal_to_0",
     indexed(backoffLimitPerIndex=-1),
     [("spec.backoffLimitPerIndex", INV), ("spec.completions", R)]),
    ("spec.maxFailedIndexes:_Invalid_value:_11:_must_be_less_than_or_equal_to_completions",
     indexed(10, maxFailedIndexes=11, backoffLimitPerIndex=1), [("spec.maxFailedIndexes", INV)]),
    ("spec.maxFailedIndexes:_Required_value:_must_be_specified_when_completions_is_above_100000",
     indexed(100_001, backoffLimitPerIndex=1), [("spec.maxFailedIndexes", R)]),
    ("spec.parallelism:_Invalid_value:_50000",
     indexed(100_001, parallelism=50_000, backoffLimitPerIndex=1, maxFailedIndexes=1),
     [("spec.parallelism", INV)]),
    ("spec.maxFailedIndexes:_Invalid_value:_100001:_must_be_less_than_or_equal_to_100000",
     indexed(100_001, backoffLimitPerIndex=1, maxFailedIndexes=100_001),
     [("spec.maxFailedIndexes", INV)] * 2),
    ("spec.maxFailedIndexes:_Invalid_value:_50000",
     indexed(100_001, backoffLimitPerIndex=1, maxFailedIndexes=50_000),
     [("spec.maxFailedIndexes", INV)]),
    ("spec.maxFailedIndexes:must_be_greater_than_or_equal_to_0",
     indexed(10, backoffLimitPerIndex=1, maxFailedIndexes=-1), [("spec.maxFailedIndexes", INV)]),
    ("spec.backoffLimitPerIndex:_Required_value:_when_maxFailedIndexes_is_specified",
     indexed(maxFailedIndexes=1), [("spec.backoffLimitPerIndex", R), ("spec.completions", R)]),
    ("spec.completions:must_be_greater_than_or_equal_to_0", job(completions=-1),
     [("spec.completions", INV)]),
    ("spec.activeDeadlineSeconds:must_be_greater_than_or_equal_to_0",
     job(activeDeadlineSeconds=-1), [("spec.activeDeadlineSeconds", INV)]),
    ("spec.selector:Required_value", {**job(), "spec": {"template": GEN}},
     [("spec.selector", R), ("spec.template.metadata.labels", INV)]),
    ('spec.template.metadata.labels:_Invalid_value:_{"y":"z"}',
     manual({"matchLabels": MANUAL}, template({"y": "z"}, init=False)),
     [("spec.template.metadata.labels", INV)]),
    ('spec.template.metadata.labels:_Invalid_value:_{"controller-uid":"4d5e6f"}',
     manual({"matchLabels": MANUAL}, template({"controller-uid": "4d5e6f"}, init=False)),
     [("spec.template.metadata.labels", INV)]),
    ("spec.template.spec.restartPolicy:_Required_value",
     manual({"matchLabels": MANUAL}, template(MANUAL, "Always", init=False)),
     [("spec.template.spec.restartPolicy", R)]),
    ("spec.template.spec.restartPolicy:_Unsupported_value",
     manual({"matchLabels": MANUAL}, template(MANUAL, "Invalid", init=False)),
     [("spec.template.spec.restartPolicy", NS)] * 2),
    ("spec.ttlSecondsAfterFinished:_must_be_greater_than_or_equal_to_0",
     job(ttlSecondsAfterFinished=-1), [("spec.ttlSecondsAfterFinished", INV)]),
    ("spec.completions:_Required_value:_when_completion_mode_is_Indexed", indexed(),
     [("spec.completions", R)]),
    ("spec.parallelism:_must_be_less_than_or_equal_to_100000_when_completion_mode_is_Indexed",
     indexed(2, parallelism=100001), [("spec.parallelism", INV)]),
    ("spec.selector:_Invalid_value:_`selector`_not_auto-generated",
     job(selector={"matchLabels": MANUAL}),
     [("spec.selector", INV), ("spec.template.metadata.labels", INV)]),
    ("spec.template.metadata.labels[batch.kubernetes.io/controller-uid]:_Required_value",
     job(selector={"matchLabels": {"batch.kubernetes.io/controller-uid": UID}},
         template=template({"batch.kubernetes.io/job-name": NAME, "controller-uid": UID,
                            "job-name": NAME})),
     [("spec.template.metadata.labels[batch.kubernetes.io/controller-uid]", R),
      ("spec.template.metadata.labels", INV)]),
]  # fmt: skip
# Rows upstream runs with RequirePrefixedLabels off.
UNPREFIXED = [
    ("spec.template.metadata.labels[controller-uid]:_Required_value:_must_be_'1a2b3c'",
     job(selector=LEGACY_UID_SELECTOR, template=template({"job-name": NAME})),
     [("spec.template.metadata.labels[controller-uid]", R),
      ("spec.template.metadata.labels", INV)]),
    ("metadata.uid:_Required_value",
     job(uid="", selector={"matchLabels": {"controller-uid": "test"}},
         template=template({"job-name": NAME})),
     [("metadata.uid", R), ("spec.selector", INV), ("spec.template.metadata.labels", INV),
      ("spec.template.metadata.labels[controller-uid]", R)]),
]  # fmt: skip
CASES = [(name, obj, want, True) for name, obj, want in ERRORS] + [
    (name, obj, want, False) for name, obj, want in UNPREFIXED
]


@pytest.mark.parametrize(
    ("obj", "expected", "prefixed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_validate_job_error_cases(
    obj: Obj, expected: list[tuple[str, str]], prefixed: bool
) -> None:
    assert _errors(obj, prefixed) == sorted(expected)
