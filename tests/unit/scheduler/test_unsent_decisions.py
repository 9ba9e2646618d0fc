"""Decisions the broker did not acknowledge (architecture §3).

A failed publish is ambiguous: the broker may hold some of the records and the binder carry them
out. A bind or eviction that was not acknowledged keeps its place for ``UNSENT_TTL`` and is
decided again after that; a status is simply sent again by the next cycle. Forgetting a bind at
once let the next cycle place another pod on a node the first still took (a pod failed OutOfcpu
after the embedded broker restarted)."""

from __future__ import annotations

from services.scheduler.state import UNSENT_TTL, Assumption, SchedulerState
from shared.events import PodBindDecided, PodEvictDecided, PodGroupStatusDecided

NOW = 1_000.0


def state() -> SchedulerState:
    s = SchedulerState(assume_ttl=60.0)
    s.assumed["ns/a"] = Assumption(uid="ua", node="node-3", since=NOW)
    s.evicting["ns/v"] = NOW
    s.published["ns/pg"] = (b"digest", NOW, 10.0)
    return s


def test_an_unacknowledged_bind_holds_its_node_then_is_decided_again() -> None:
    s = state()
    s.unsent([PodBindDecided(key="ns/a", pod_uid="ua", node="node-3")], now=NOW + 1)
    s.expire(NOW + 1 + UNSENT_TTL - 0.5)
    assert s.assumed["ns/a"].node == "node-3", "within UNSENT_TTL the node stays taken"
    s.expire(NOW + 1 + UNSENT_TTL + 0.5)
    assert "ns/a" not in s.assumed, "after it the pod is decided again"
    assert "ns/a" not in s.assume_backoff, "an unsent bind is no failed bind: no longer ttl"


def test_an_unacknowledged_bind_of_another_pod_with_the_name_is_left_alone() -> None:
    s = state()
    s.unsent([PodBindDecided(key="ns/a", pod_uid="other", node="node-3")], now=NOW + 1)
    s.expire(NOW + 1 + UNSENT_TTL + 0.5)
    assert "ns/a" in s.assumed, "the assumption of the pod that is there keeps its own ttl"


def test_an_unacknowledged_eviction_holds_then_is_decided_again() -> None:
    s = state()
    s.unsent([PodEvictDecided(key="ns/v", pod_uid="uv")], now=NOW + 1)
    s.expire(NOW + 1 + UNSENT_TTL - 0.5)
    assert "ns/v" in s.evicting
    s.expire(NOW + 1 + UNSENT_TTL + 0.5)
    assert "ns/v" not in s.evicting


def test_an_unacknowledged_status_is_sent_again_by_the_next_cycle() -> None:
    s = state()
    s.unsent([PodGroupStatusDecided(key="ns/pg", phase="Running")], now=NOW + 1)
    assert "ns/pg" not in s.published
