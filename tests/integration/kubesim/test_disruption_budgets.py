"""PodDisruptionBudgets in kubesim: served as policy/v1 and kept current as the disruption
controller keeps them (the scheduler's pdb plugin reads ``status.disruptionsAllowed``)."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes_asyncio import client

from tests.integration.kubesim.kubesim_helpers import binding, eventually, pod

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]
NS = "budgets"
LONG = {"sim.shoal.io/duration": "1h", "sim.shoal.io/start-delay": "5ms"}
OWNER = {"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "j-uid", "controller": True}


@pytest.fixture(scope="module", autouse=True)
async def running_pods(api: client.ApiClient) -> None:
    core = client.CoreV1Api(api)
    await core.create_namespace({"metadata": {"name": NS}})
    for i in range(3):
        name = f"web-{i}"
        body = pod(name, annotations=LONG, labels={"app": "web"}, owner=OWNER)
        await core.create_namespaced_pod(NS, body)
        await core.create_namespaced_pod_binding(
            name, NS, binding(name, f"node-{i}"), _preload_content=False
        )


def budget(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec},
    }


async def _status(policy: client.PolicyV1Api, name: str, want: dict[str, Any]) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        found = await policy.read_namespaced_pod_disruption_budget(name, NS)
        status = client.ApiClient().sanitize_for_serialization(found.status) or {}
        return dict(status)

    return await eventually(read, lambda s: all(s.get(k) == v for k, v in want.items()))


@pytest.mark.parametrize(
    ("spec", "want", "condition"),
    [
        (
            {"minAvailable": 2},
            {"expectedPods": 3, "currentHealthy": 3, "desiredHealthy": 2, "disruptionsAllowed": 1},
            ("True", "SufficientPods"),
        ),
        (
            {"minAvailable": 3},
            {"expectedPods": 3, "currentHealthy": 3, "desiredHealthy": 3, "disruptionsAllowed": 0},
            ("False", "InsufficientPods"),
        ),
        (
            {"maxUnavailable": 1},
            {"disruptionsAllowed": 0},
            ("False", "SyncFailed"),
        ),
    ],
    ids=["min-available-leaves-one", "min-available-all", "max-unavailable-needs-a-scale"],
)
async def test_budget_status(
    api: client.ApiClient,
    spec: dict[str, Any],
    want: dict[str, Any],
    condition: tuple[str, str],
) -> None:
    policy = client.PolicyV1Api(api)
    name = "pdb-" + "-".join(f"{k}{v}" for k, v in spec.items()).lower()
    await policy.create_namespaced_pod_disruption_budget(NS, budget(name, **spec))
    status = await _status(policy, name, want)
    assert {k: status.get(k) for k in want} == want
    [found] = status["conditions"]
    assert (found["type"], found["status"], found["reason"]) == ("DisruptionAllowed", *condition)


async def test_a_deleted_pod_spends_the_budget(api: client.ApiClient) -> None:
    policy, core = client.PolicyV1Api(api), client.CoreV1Api(api)
    await policy.create_namespaced_pod_disruption_budget(NS, budget("tracks", minAvailable=2))
    await _status(policy, "tracks", {"disruptionsAllowed": 1})
    await core.delete_namespaced_pod("web-0", NS, grace_period_seconds=0)
    status = await _status(policy, "tracks", {"currentHealthy": 2})
    assert (status["expectedPods"], status["disruptionsAllowed"]) == (2, 0)
