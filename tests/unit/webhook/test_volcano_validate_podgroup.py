"""Ported from volcano pkg/webhooks/admission/podgroups/validate/validate_podgroup_test.go
(``TestValidatePodGroup``, master); row ids are upstream's case names."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.queues import ListedQueues
from services.webhook.core.volcano_podgroup import validate_podgroup

Obj = dict[str, Any]
BOTH = {"mode": "hard", "highestTierAllowed": 1, "highestTierName": "volcano.sh/hypernode"}


def podgroup(**spec: Any) -> Obj:
    return {"metadata": {"name": "test-podgroup"}, "spec": spec}


def queues(state: str | None) -> ListedQueues:
    if state is None:  # upstream adds an empty Queue: no queue named test-queue exists
        return ListedQueues([])
    return ListedQueues([{"metadata": {"name": "test-queue"}, "status": {"state": state}}])


CASES = [
    ("valid_podgroup_with_open_queue", podgroup(queue="test-queue"), "Open", []),
    ("invalid_podgroup_with_closed_queue", podgroup(queue="test-queue"), "Closed",
     ["can only submit PodGroup to queue with state `Open`, queue `test-queue` status is "
      "`Closed`."]),
    ("valid_podgroup_with_empty_queue", podgroup(queue=""), None, []),
    ("invalid_podgroup_with_a_queue_that_does_not_exist", podgroup(queue="test-queue"), None,
     ['unable to find queue: queue.scheduling.volcano.sh "test-queue" not found']),
    ("valid_podgroup_configured_with_SubGroupPolicy_containing_HighestTierName",
     podgroup(subGroupPolicy=[{"name": "test-policy", "networkTopology": {
         "mode": "hard", "highestTierName": "volcano.sh/hypernode"}}]), None, []),
    ("valid_podgroup_configured_with_SubGroupPolicy_containing_HighestTierAllowed",
     podgroup(subGroupPolicy=[{"name": "test-policy", "networkTopology": {
         "mode": "hard", "highestTierAllowed": 1}}]), None, []),
    ("invalid_podgroup_configured_with_SubGroupPolicy_containing_HighestTierAllowed_and_"
     "HighestTierName",
     podgroup(subGroupPolicy=[{"name": "test-policy", "networkTopology": BOTH}]), None,
     ["in subGroupPolicy 'test-policy': must not specify 'highestTierAllowed' and "
      "'highestTierName' in networkTopology simultaneously."]),
    ("invalid_podgroup_configured_with_NetworkTopology_containing_HighestTierAllowed_and_"
     "HighestTierName", podgroup(networkTopology=BOTH), None,
     ["must not specify 'highestTierAllowed' and 'highestTierName' in networkTopology"]),
    ("invalid_podgroup_failing_both_queue_and_networkTopology_checks_reports_a_separated_message",
     podgroup(queue="test-queue", networkTopology=BOTH), None,
     ["unable to find queue", "; ", "must not specify 'highestTierAllowed' and "
      "'highestTierName'"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pg", "state", "contains"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_validate_podgroup(pg: Obj, state: str | None, contains: list[str]) -> None:
    message = validate_podgroup(pg, queues(state))
    assert bool(message) is bool(contains)
    for part in contains:
        assert part in message
