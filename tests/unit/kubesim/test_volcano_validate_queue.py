"""Ported from volcano pkg/webhooks/admission/queues/validate/validate_queue_test.go
(``TestAdmitQueues``, master). Row ids are upstream's case names. ``TestAdmitHierarchicalQueues``
and the capability tests are not ported (kubesim does not check hierarchical resources)."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.admission.queues import ListedQueues
from services.kubesim.admission.volcano_queue import admit_queue

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
