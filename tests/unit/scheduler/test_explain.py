"""explain: per-plugin verdicts and per-task node histograms survive to the result."""

from __future__ import annotations

import pytest

from services.scheduler.explain import as_dict, explain, render
from shared.errors import UserError
from tests.unit.scheduler.builders import group, node, pod, queue, schedule


def test_explain_lists_each_plugin_and_node_reason() -> None:
    result = schedule(
        [
            node("n1", "2"),
            node("n2", "8", taints=[{"key": "gpu", "effect": "NoSchedule"}]),
            queue("q", capability={"cpu": "1"}),
            group("capped", 1, queue="q", phase="Pending", minResources={"cpu": "4"}),
            pod("c0", "capped", "4"),
            group("big"),
            pod("b0", "big", "4"),
        ]
    )
    big = explain(result, "default/big")
    fit = big.tasks["default/b0"]
    reasons = {c.status.reason: c.nodes for c in fit.histogram}
    assert reasons == {"InsufficientResource": 1, "TaintNotTolerated": 1}
    capped = explain(result, "default/capped")
    assert [s.reason for s in capped.plugins["proportion"]] == ["QueueCapacityExceeded"]
    assert capped.phase == "Pending"
    text = render(big)
    assert "insufficient cpu (need 4, max free 2)" in text
    assert as_dict(capped)["plugins"]["proportion"][0]["plugin"] == "proportion"
    with pytest.raises(UserError, match="not in the session"):
        explain(result, "default/nope")
