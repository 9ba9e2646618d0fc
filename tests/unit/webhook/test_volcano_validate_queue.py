"""Ported from volcano pkg/webhooks/admission/queues/validate/validate_queue_test.go (master):
``TestAdmitQueues``, ``TestAdmitHierarchicalQueues`` (with ``EnableQueueAllocatedPodsCheck``, as
there), ``TestValidateQueueDepthDynamic``, ``TestValidateChildAgainstAncestorForCapability``,
``TestValidateChildrenConstraintsForCapability``. Row ids are upstream's case names."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.queues import ListedQueues
from services.webhook.core.volcano_queue import admit_queue, validate_queue_depth
from services.webhook.core.volcano_queue_hierarchy import (
    validate_child_against_ancestor,
    validate_children_constraints,
)

Obj = dict[str, Any]


def queue(name: str, state: str | None = None, **spec: Any) -> Obj:
    out: Obj = {"metadata": {"name": name}, "spec": {"weight": 1, **spec}}
    if state is not None:
        out["status"] = {"state": state}
    return out


def hierarchical(name: str, hierarchy: str, weights: str) -> Obj:
    out = queue(name)
    out["metadata"]["annotations"] = {
        "volcano.sh/hierarchy": hierarchy,
        "volcano.sh/hierarchy-weights": weights,
    }
    return out


OPEN = queue("normal-case-set-open", "Open")
CLOSED = queue("normal-case-set-closed", "Closed")
WRONG = queue("abnormal-case", "wrong")
WRONG_STATE = 'requestBody.spec.state: Invalid value: "wrong": queue state must be in [Open Closed]'
LISTED = ListedQueues([
    queue("open-state-for-delete", "Open"),
    queue("closed-state-for-delete", "Closed"),
    queue("positive-weight-for-update"),
    hierarchical("ordinary-hierarchical-queue", "root/node1/node2", "1/2/3"),
])  # fmt: skip

CASES = [
    ("Normal_Case_State_Not_Set_During_Creating", "CREATE", queue("normal-case-not-set"), None, ""),
    ("Normal_Case_Set_State_of_Open_During_Creating", "CREATE", OPEN, None, ""),
    ("Normal_Case_Set_State_of_Closed_During_Creating", "CREATE", CLOSED, None, ""),
    ("Abnormal_Case_Wrong_State_Configured_During_Creating", "CREATE", WRONG, None, WRONG_STATE),
    ("Normal_Case_Changing_State_From_Open_to_Closed_During_Updating", "UPDATE", CLOSED, OPEN, ""),
    ("Normal_Case_Changing_State_From_Closed_to_Open_During_Updating", "UPDATE", OPEN, CLOSED, ""),
    ("Abnormal_Case_Changing_State_From_Open_to_Wrong_State_During_Updating", "UPDATE", WRONG,
     OPEN, WRONG_STATE),
    ("Normal_Case_Queue_With_Closed_State_Can_Be_Deleted", "DELETE",
     queue("closed-state-for-delete", "Closed"), None, ""),
    ("Normal_Case_Queue_With_Open_State_Can_Be_Deleted_(Until_close_queue_in_kubectl_supported)",
     "DELETE", queue("open-state-for-delete", "Open"), None, ""),
    ("Normal_Case_Hierarchy_Is_A_Substring_of_Another_Queue", "CREATE",
     hierarchical("hierarchical-queue-with-name-that-is-substring-of-other-queue", "root/node",
                  "1/4"), None, ""),
    ("Abnormal_Case_default_Queue_Can_Not_Be_Deleted", "DELETE", queue("default", "Open"), None,
     "`default` queue can not be deleted"),
    ("Invalid_Action", "Invalid", queue("default", "Open"), None,
     "invalid operation `Invalid`, expect operation to be `CREATE`, `UPDATE` or `DELETE`"),
    ("Create_queue_without_resource", "CREATE", queue("resource-not-set"), None, ""),
    ("Create_queue_with_deserved_resource", "CREATE",
     queue("only-deserved-set", deserved={"cpu": "1", "memory": "1Gi"}), None, ""),
    ("Create_queue_with_guarantee_but_no_deserved_should_be_rejected", "CREATE",
     queue("only-guarantee-set", guarantee={"resource": {"cpu": "1"}}), None,
     'requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be >= '
     "guarantee[cpu]=1"),
    ("Create_queue_with_capability_less_deserved", "CREATE",
     queue("capability-less-deserved", capability={"cpu": "1", "memory": "1Gi"},
           deserved={"cpu": "2", "memory": "1Gi"}), None,
     'requestBody.spec.deserved.cpu: Invalid value: "2": deserved[cpu]=2 must be <= '
     "capability[cpu]=1"),
    ("Create_queue_with_deserved_less_guarantee", "CREATE",
     queue("deserved-less-guarantee", deserved={"cpu": "2", "memory": "1Gi"},
           guarantee={"resource": {"cpu": "2", "memory": "3Gi"}}), None,
     'requestBody.spec.deserved.memory: Invalid value: "1Gi": deserved[memory]=1Gi must be >= '
     "guarantee[memory]=3Gi"),
    ("Abnormal_Case_Hierarchy_And_Weights_Do_Not_Match", "CREATE",
     hierarchical("hierarchy-weights-dont-match", "root/a/b", "1/2/3/4"), None,
     'requestBody.metadata.annotations: Invalid value: "root/a/b": volcano.sh/hierarchy must '
     "have the same length with volcano.sh/hierarchy-weights"),
    ("Abnormal_Case_Weights_Is_Negative", "CREATE",
     hierarchical("hierarchy-weights-dont-match", "root/a/b", "1/-1/3"), None,
     'requestBody.metadata.annotations: Invalid value: "1/-1/3": -1 in the 1/-1/3 must be '
     "larger than 0"),
    ("Abnormal_Case_Weights_Is_Format_Illegal", "CREATE",
     hierarchical("hierarchy-weights-dont-match", "root/a/b", "1/a/3"), None,
     'requestBody.metadata.annotations: Invalid value: "1/a/3": a in the 1/a/3 is invalid '
     'number: strconv.ParseFloat: parsing "a": invalid syntax'),
    ("Abnormal_Case_Hierarchy_Is_In_Sub_Path_of_Another_Queue", "CREATE",
     hierarchical("hierarchical-queue-in-sub-path-of-another-queue", "root/node1", "1/4"), None,
     'requestBody.metadata.annotations: Invalid value: "root/node1": root/node1 is not allowed '
     "to be in the sub path of root/node1/node2 of queue ordinary-hierarchical-queue"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("operation", "new", "old", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_admit_queues(operation: str, new: Obj, old: Obj | None, message: str) -> None:
    assert admit_queue(operation, new, old, LISTED) == message


def hq(name: str, parent: str | None = None, *, pods: str | None = None,
       capability: Obj | None = None, guarantee: Obj | None = None,
       deserved: Obj | None = None, weight: int | None = 1) -> Obj:  # fmt: skip
    """A queue as TestAdmitHierarchicalQueues builds them."""
    spec: Obj = {}
    for key, value in (("parent", parent), ("weight", weight), ("capability", capability),
                       ("deserved", deserved)):  # fmt: skip
        if value is not None:
            spec[key] = value
    if guarantee is not None:
        spec["guarantee"] = {"resource": guarantee}
    out: Obj = {"metadata": {"name": name}, "spec": spec}
    if pods is not None:
        out["status"] = {"allocated": {"pods": pods}}
    return out


def cm(cpu: str, memory: str) -> Obj:
    return {"cpu": cpu, "memory": memory}


PARENT_TO_UPDATE = hq("parent-queue-to-update", "root", capability=cm("20", "40Gi"),
                      guarantee=cm("15", "30Gi"))  # fmt: skip
EMPTY_PARENT = hq("parent-queue-empty-parent", "", capability=cm("100", "100Gi"))
HIERARCHY = ListedQueues([
    hq("queue-with-jobs", "root", pods="1", weight=None),
    hq("queue-without-jobs", "root", pods="0", weight=None),
    hq("child-queue", "queue-with-child-queues", weight=None),
    hq("queue-with-child-queues", "root", weight=None),
    hq("parent-queue-has-child-with-jobs", "root", pods="1", weight=None),
    hq("child-queue-a-with-jobs", "parent-queue-has-child-with-jobs", pods="1"),
    hq("queue-without-child-queues", "root", weight=None),
    hq("parent-queue-resource-test", "root", capability=cm("10", "20Gi"),
       guarantee=cm("8", "16Gi")),
    hq("sibling-queue-resource-test", "parent-queue-resource-test", capability=cm("3", "6Gi"),
       guarantee=cm("2", "4Gi")),
    hq("parent-queue-small-capability", "root", capability=cm("5", "10Gi")),
    hq("child-queue-larger-capability", "parent-queue-small-capability",
       capability=cm("10", "20Gi")),
    PARENT_TO_UPDATE,
    hq("child-queue-a", "parent-queue-to-update", capability=cm("12", "24Gi"),
       guarantee=cm("8", "16Gi")),
    hq("child-queue-b-for-update", "parent-queue-to-update", capability=cm("8", "16Gi"),
       guarantee=cm("5", "10Gi")),
    EMPTY_PARENT,
    hq("child-of-empty-parent", "parent-queue-empty-parent", capability=cm("50", "50Gi")),
])  # fmt: skip


def _updated(queue: Obj, **spec: Any) -> Obj:
    return {**queue, "spec": {**queue["spec"], **spec}}


HIERARCHICAL = [
    ("Queue_cannot_use_itself_as_parent", "CREATE",
     hq("self-referencing-queue", "self-referencing-queue"), None,
     "queue self-referencing-queue cannot use itself as parent"),
    ("Parent_Queue_has_jobs", "CREATE", hq("parent-queue-with-jobs", "queue-with-jobs"), None,
     "queue queue-with-jobs cannot be the parent queue of queue parent-queue-with-jobs because "
     "it has allocated Pods: 1"),
    ("Parent_Queue_has_no_jobs", "CREATE", hq("parent-queue-without-jobs", "queue-without-jobs"),
     None, ""),
    ("Parent_Queue_has_child_with_jobs", "CREATE",
     hq("child-queue-b", "parent-queue-has-child-with-jobs"), None, ""),
    ("Delete_queue_with_child_queue", "DELETE", hq("queue-with-child-queues", "root"), None,
     "queue queue-with-child-queues can not be deleted because it has 1 child queues: "
     "child-queue"),
    ("Delete_queue_with_allocated_pods", "DELETE", hq("queue-with-jobs", "root"), None,
     "queue queue-with-jobs cannot be deleted because it has allocated Pods: 1"),
    ("Delete_queue_without_child_queue", "DELETE", hq("queue-without-child-queues", "root"), None,
     ""),
    ("Child_capability_exceeds_parent_capability", "CREATE",
     hq("child-capability-exceeds-parent", "parent-queue-resource-test",
        capability=cm("20", "40Gi")), None,
     "queue child-capability-exceeds-parent capability[cpu]=20 exceeds its ancestor's "
     "capability=10"),
    ("Siblings_guarantee_sum_exceeds_parent_guarantee", "CREATE",
     hq("siblings-guarantee-exceeds", "parent-queue-resource-test", capability=cm("7", "14Gi"),
        deserved=cm("7", "14Gi"), guarantee=cm("7", "14Gi")), None,
     "parent queue parent-queue-resource-test validation failed: sum of children's guarantee "
     "(cpu 9000.00, memory 19327352832.00) exceeds parent's guarantee limit (cpu 8000.00, "
     "memory 17179869184.00)"),
    ("Parent_capability_less_than_child_capability_on_UPDATE", "UPDATE",
     _updated(PARENT_TO_UPDATE, capability=cm("10", "20Gi"), deserved=cm("10", "20Gi"),
              guarantee={"resource": cm("8", "16Gi")}), PARENT_TO_UPDATE,
     "queue parent-queue-to-update capability[cpu]=10 is smaller than its descendants' max "
     "capability=12"),
    ("Sum_of_children's_guarantee_exceeds_parent_guarantee_on_UPDATE", "UPDATE",
     _updated(PARENT_TO_UPDATE, capability=cm("20", "40Gi"), deserved=cm("20", "40Gi"),
              guarantee={"resource": cm("10", "20Gi")}), PARENT_TO_UPDATE,
     "queue parent-queue-to-update validation failed: sum of children's guarantee (cpu 13000.00, "
     "memory 27917287424.00) exceeds parent's guarantee limit (cpu 10000.00, memory "
     "21474836480.00)"),
    ("Update_queue_with_empty_parent_-_should_validate_child_constraints", "UPDATE",
     _updated(EMPTY_PARENT, capability=cm("30", "30Gi")), EMPTY_PARENT,
     "queue parent-queue-empty-parent capability[cpu]=30 is smaller than its descendants' max "
     "capability=50"),
    ("Queue_with_negative_capability_should_be_rejected", "CREATE",
     hq("queue-negative-capability", "root", capability={"cpu": "-10"}), None,
     'requestBody.spec.capability.cpu: Invalid value: "-10": must be greater than or equal to 0'),
    ("Queue_with_negative_deserved_should_be_rejected", "CREATE",
     hq("queue-negative-deserved", "root", deserved={"cpu": "-5"}), None,
     'requestBody.spec.deserved.cpu: Invalid value: "-5": must be greater than or equal to 0'),
    ("Queue_with_negative_guarantee_should_be_rejected", "CREATE",
     hq("queue-negative-guarantee", "root", guarantee={"cpu": "-2"}), None,
     '[requestBody.spec.guarantee.resource.cpu: Invalid value: "-2": must be greater than or '
     'equal to 0, requestBody.spec.deserved.cpu: Invalid value: "<nil>": deserved[cpu] must be '
     '>= guarantee[cpu]=-2]'),
]  # fmt: skip


@pytest.mark.parametrize(
    ("operation", "new", "old", "message"),
    [c[1:] for c in HIERARCHICAL],
    ids=[c[0] for c in HIERARCHICAL],
)
def test_admit_hierarchical_queues(operation: str, new: Obj, old: Obj | None, message: str) -> None:
    got = admit_queue(operation, new, old, HIERARCHY, allocated_pods_check=True)
    assert got == message


CHAIN = ListedQueues([hq("q1", "root", weight=None), hq("q2", "q1", weight=None)])


@pytest.mark.parametrize(
    ("max_depth", "refused"),
    [(5, False), (3, False), (2, True)],
    ids=["Depth_3_is_allowed_when_maxDepth_is_5", "Depth_3_is_allowed_when_maxDepth_is_3",
         "Depth_3_is_rejected_when_maxDepth_is_2"],
)  # fmt: skip
def test_validate_queue_depth_dynamic(max_depth: int, refused: bool) -> None:
    q3 = hq("q3", "q2", weight=None)
    assert bool(validate_queue_depth(q3, CHAIN, max_depth)) is refused


GPU = "nvidia.com/gpu"
ANCESTORS = ListedQueues([
    hq("ancestor-gp", "root", capability={"cpu": "100", "memory": "100Gi", GPU: "8"}),
    hq("ancestor-p", "ancestor-gp", capability=cm("50", "50Gi")),
    hq("ancestor-p-nocap", "ancestor-gp"),
])  # fmt: skip


@pytest.mark.parametrize(
    ("child", "refused"),
    [
        (hq("child-exceed-cpu", "ancestor-p", capability={"cpu": "60"}), True),
        (hq("child-exceed-mem", "ancestor-p", capability={"memory": "55Gi"}), True),
        (hq("child-exceed-gpu", "ancestor-p", capability={GPU: "10"}), True),
        (hq("child-within-limits", "ancestor-p",
            capability={"cpu": "40", "memory": "40Gi", GPU: "4"}), False),
        (hq("child-no-cap", "ancestor-p"), False),
        (hq("child-under-nocap", "ancestor-p-nocap", capability={"cpu": "200"}), True),
        (hq("child-under-nocap-ok", "ancestor-p-nocap", capability={"cpu": "80"}), False),
    ],
    ids=["Child_CPU_exceeds_direct_parent_capability",
         "Child_memory_exceeds_grandparent_capability_(skips_parent_with_lower_limit)",
         "Child_GPU_exceeds_grandparent_capability_(parent_has_no_GPU)",
         "Child_within_all_ancestor_limits", "Child_without_capability_should_pass",
         "Child_under_parent_without_capability_-_checks_grandparent",
         "Child_under_parent_without_capability_-_within_grandparent_limits"],
)  # fmt: skip
def test_validate_child_against_ancestor_for_capability(child: Obj, refused: bool) -> None:
    message = validate_child_against_ancestor(child, ANCESTORS)
    assert bool(message) is refused
    assert "exceeds its ancestor's capability" in message or not refused


PARENT_A = hq("vc-parent-a", "root", capability={"cpu": "20", "memory": "20Gi", GPU: "4"},
              guarantee=cm("20", "20Gi"), deserved=cm("20", "20Gi"))  # fmt: skip
CHILD_A1 = hq("vc-child-a1", "vc-parent-a", capability={"memory": "15Gi"})
CHILD_A2 = hq("vc-child-a2", "vc-parent-a", capability={"cpu": "10", "memory": "10Gi", GPU: "3"})
PARENT_B = hq("vc-parent-b", "root", capability=cm("50", "50Gi"), guarantee=cm("50", "50Gi"),
              deserved=cm("50", "50Gi"))  # fmt: skip
CHILD_B1 = hq("vc-child-b1", "vc-parent-b", capability={"cpu": "30"})
CHILD_B2 = hq("vc-child-b2", "vc-parent-b", capability={"cpu": "20"})
PARENT_C = hq("vc-parent-c", "root")
CHILD_C1 = hq("vc-child-c1", "vc-parent-c", capability={"cpu": "100"})
SUBTREES = ListedQueues([
    PARENT_A, CHILD_A1, hq("vc-grandchild-a1-1", "vc-child-a1", capability={"cpu": "25"}),
    CHILD_A2, PARENT_B, CHILD_B1, CHILD_B2, PARENT_C, CHILD_C1,
])  # fmt: skip


@pytest.mark.parametrize(
    ("parent", "children", "refused"),
    [
        (PARENT_A, [CHILD_A1, CHILD_A2], True),
        (PARENT_B, [CHILD_B1, CHILD_B2], False),
        (PARENT_C, [CHILD_C1], False),
        (PARENT_B, [], False),
        (PARENT_A, [hq("child-gpu-ok", "vc-parent-a", capability={GPU: "3"})], False),
        (PARENT_A, [hq("child-gpu-exceed", "vc-parent-a", capability={GPU: "5"})], True),
    ],
    ids=["Grandchild_CPU_exceeds_parent_capability_via_subtree_(child_has_no_CPU_cap)",
         "All_children_within_parent_capability",
         "Parent_without_capability_skips_capability_check", "Parent_with_no_children",
         "Child_GPU_capability_within_parent_GPU_limit",
         "Child_GPU_capability_exceeds_parent_GPU_limit_via_subtree"],
)  # fmt: skip
def test_validate_children_constraints_for_capability(
    parent: Obj, children: list[Obj], refused: bool
) -> None:
    message = validate_children_constraints(parent, children, SUBTREES)
    assert bool(message) is refused
    assert "is smaller than its descendants' max capability" in message or not refused
