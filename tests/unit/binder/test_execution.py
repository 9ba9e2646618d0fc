"""Binder execution rules with a fake API: idempotent binds, per-decision retries, fencing."""

from __future__ import annotations

import time
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from services.binder.executor import Executor, execute_all, superseded
from services.binder.fencing import EpochFence
from shared.bus import RetryLater
from shared.events import (
    DecisionDropped,
    KueueStatusDecided,
    PodBindDecided,
    PodBindFailed,
    PodBound,
    PodEvictDecided,
    PodEvicted,
    PodGroupStatusDecided,
)
from shared.hops import BIND_CALL, ENTERED_TO_BOUND, HopMetrics
from shared.kube import ApiError
from shared.kube.timefmt import format_rfc3339


class FakeKube:
    """Pods by key; ``flaky`` makes the next N bind calls fail with a 500."""

    def __init__(self) -> None:
        self.nodes: dict[str, str | None] = {}
        self.flaky = 0
        self.bind_calls = 0
        self.evicted: list[str] = []

    async def bind(self, namespace: str, pod: str, node: str, *, uid: str | None = None) -> None:
        self.bind_calls += 1
        if self.flaky:
            self.flaky -= 1
            raise ApiError(500, "InternalError", "injected")
        key = f"{namespace}/{pod}"
        if key not in self.nodes:
            raise ApiError(404, "NotFound", "no such pod")
        if self.nodes[key]:
            raise ApiError(409, "Conflict", "already assigned")
        self.nodes[key] = node

    async def get(self, rt: Any, name: str, namespace: str | None = None) -> dict[str, Any]:
        return {"metadata": {"uid": "u"}, "spec": {"nodeName": self.nodes[f"{namespace}/{name}"]}}

    async def evict(self, namespace: str, pod: str, *, uid: str | None = None) -> None:
        if f"{namespace}/{pod}" not in self.nodes:
            raise ApiError(404, "NotFound", "gone")
        self.evicted.append(pod)


def bind(pod: str, node: str, epoch: int = 1) -> PodBindDecided:
    return PodBindDecided(key=f"ns/{pod}", pod_uid="u", node=node, epoch=epoch)


async def run(kube: FakeKube, decisions: list[Any], attempts: int = 5) -> list[Any]:
    fence = EpochFence(producer="test")
    fence.learn(range(1, 6))  # the leader log holds epochs 1..5
    executor = Executor(kube, producer="test", fence=fence, post_events=False)  # type: ignore[arg-type]
    return await execute_all(executor, decisions, concurrency=8, attempts=attempts)


async def test_bind_same_node_twice_is_success_other_node_is_failure() -> None:
    kube = FakeKube()
    kube.nodes["ns/a"] = None
    results = await run(kube, [bind("a", "n1"), bind("a", "n1"), bind("a", "n2")])
    assert [type(r) for r in results] == [PodBound, PodBound, PodBindFailed]
    assert results[2].bound_to == "n1" and results[2].reason == "AlreadyBound"


async def test_transient_failures_are_retried_per_decision_not_per_batch() -> None:
    kube = FakeKube()
    kube.nodes.update({"ns/a": None, "ns/b": None, "ns/c": None})
    kube.flaky = 2
    results = await run(kube, [bind("a", "n1"), bind("b", "n2"), bind("c", "n3")])
    assert all(isinstance(r, PodBound) for r in results)
    assert kube.nodes == {"ns/a": "n1", "ns/b": "n2", "ns/c": "n3"}
    assert kube.bind_calls == 5  # three binds + two retries, no batch replay


async def test_a_decision_that_keeps_failing_asks_the_bus_to_retry_later() -> None:
    kube = FakeKube()
    kube.nodes["ns/a"] = None
    kube.flaky = 10
    with pytest.raises(RetryLater):
        await run(kube, [bind("a", "n1")], attempts=3)


async def test_stale_epoch_is_dropped_and_missing_pods_are_reported() -> None:
    kube = FakeKube()
    kube.nodes["ns/a"] = None
    decisions = [bind("a", "n1", epoch=5), bind("a", "n2", epoch=4), bind("gone", "n1", epoch=5)]
    results = await run(kube, decisions)
    assert isinstance(results[1], DecisionDropped) and results[1].newest_epoch == 5
    assert isinstance(results[2], PodBindFailed) and results[2].reason == "NotFound"


async def test_evicting_a_pod_that_is_gone_counts_as_evicted() -> None:
    kube = FakeKube()
    results = await run(kube, [PodEvictDecided(key="ns/x", pod_uid="u", epoch=1)])
    assert isinstance(results[0], PodEvicted)


async def test_bind_is_timed_from_the_decision_and_from_when_the_pod_entered() -> None:
    kube = FakeKube()
    kube.nodes["ns/a"] = None
    registry = CollectorRegistry()
    fence = EpochFence(producer="test")
    fence.learn([1])
    executor = Executor(
        kube,  # type: ignore[arg-type]
        producer="test",
        fence=fence,
        post_events=False,
        hops=HopMetrics(registry),
    )
    now = time.time()
    decision = PodBindDecided(
        key="ns/a", pod_uid="u", node="n1", epoch=1, occurred_at=now - 1, entered_at=now - 3
    )
    [result] = await execute_all(executor, [decision], concurrency=1)
    assert isinstance(result, PodBound) and result.entered_at == now - 3
    call = registry.get_sample_value("shoal_hop_seconds_sum", {"hop": BIND_CALL})
    whole = registry.get_sample_value("shoal_hop_seconds_sum", {"hop": ENTERED_TO_BOUND})
    assert call is not None and 1.0 <= call < 2.0
    assert whole is not None and 3.0 <= whole < 4.0


def status(key: str, phase: str, epoch: int = 1) -> PodGroupStatusDecided:
    return PodGroupStatusDecided(key=key, phase=phase, epoch=epoch)


@pytest.mark.parametrize(
    ("decisions", "skipped"),
    [
        ([status("ns/a", "Inqueue"), status("ns/a", "Running")], {0}),
        ([status("ns/a", "Inqueue"), status("ns/b", "Inqueue")], set()),
        ([status("ns/a", "Inqueue", 1), status("ns/a", "Running", 2)], set()),
        ([status("ns/a", "P"), bind("a", "n1"), status("ns/a", "I"), status("ns/a", "R")], {0, 2}),
    ],
    ids=["later-status-wins", "other-podgroup", "other-epoch-kept", "only-the-last-of-three"],
)
def test_superseded_podgroup_statuses(decisions: list[Any], skipped: set[int]) -> None:
    assert superseded(decisions) == skipped


def kueue_status(key: str, rv: str, conditions: list[dict[str, Any]]) -> KueueStatusDecided:
    return KueueStatusDecided(
        key=key,
        kind="Workload",
        resource_version=rv,
        status={"conditions": conditions},
        epoch=1,
        occurred_at=DECIDED_AT,
    )


DECIDED_AT = 1_800_000_000.0
WAITING = [{"type": "QuotaReserved", "status": "False", "reason": "WaitingForQuota"}]
RESERVED = [
    {
        "type": "QuotaReserved",
        "status": "True",
        "reason": "QuotaReserved",
        "lastTransitionTime": format_rfc3339(DECIDED_AT),
    }
]


@pytest.mark.parametrize(
    ("decisions", "skipped"),
    [
        ([kueue_status("ns/w", "5", WAITING), kueue_status("ns/w", "5", WAITING)], {0}),
        ([kueue_status("ns/w", "5", WAITING), kueue_status("ns/v", "5", WAITING)], set()),
        ([kueue_status("ns/w", "5", RESERVED), kueue_status("ns/w", "5", WAITING)], set()),
        ([status("ns/w", "Inqueue"), kueue_status("ns/w", "5", WAITING)], set()),
    ],
    ids=["later-pending-wins", "other-workload", "admission-event-kept", "podgroup-of-same-key"],
)
def test_superseded_kueue_statuses(decisions: list[Any], skipped: set[int]) -> None:
    assert superseded(decisions) == skipped
