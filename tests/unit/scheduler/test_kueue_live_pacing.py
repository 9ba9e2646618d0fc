"""What the live admission writes when: urgent statuses first, a waiting workload's new
explanation only when it is the head a cycle evaluated (Kueue's), counters paced, and what it
keeps between cycles (decoded workloads) without changing a verdict."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import msgspec
import pytest

from services.scheduler.admission import AdmissionState
from services.scheduler.kueue import admit
from services.scheduler.kueue.queue_manager import QueueManager
from services.scheduler.kueue.status import StatusUpdate
from services.scheduler.kueue_writes import StatusPacing
from shared.cache import ObjectCache
from shared.events import ObjectAdded
from shared.models import Model, decode_object
from tests.unit.scheduler.kueue_builders import (
    NOW,
    cluster_queue,
    flavor,
    local_queue,
    priority_class,
    quota,
    summary,
    workload,
)

Json = dict[str, Any]
T0 = NOW.timestamp()


class Cluster:
    """A cache fed as the watcher feeds it, one resourceVersion per object change."""

    def __init__(self, *objects: Json) -> None:
        self.cache = ObjectCache()
        self.rv = 0
        for obj in objects:
            self.add(obj)

    def add(self, obj: Json) -> None:
        self.rv += 1
        meta = {**obj["metadata"], "resourceVersion": str(self.rv), "uid": f"u{self.rv}"}
        meta.setdefault("creationTimestamp", "2024-05-01T11:00:00Z")
        obj = {**obj, "metadata": meta}
        self.cache.apply(
            ObjectAdded(
                key="k",
                kind=obj["kind"],
                resourceVersion=str(self.rv),
                object=msgspec.Raw(msgspec.json.encode(obj)),
            )
        )


def _message(updates: list[StatusUpdate], key: str) -> str | None:
    for update in updates:
        if update.kind == "Workload" and update.key == key:
            found = next(c for c in update.status["conditions"] if c["type"] == "QuotaReserved")
            return str(found["message"])
    return None


def _decide(state: AdmissionState, cluster: Cluster, now: float) -> list[StatusUpdate]:
    """One cycle whose decisions are then assumed, as the service does."""
    _, updates = state.decide(cluster.cache, now)
    state.envelopes(updates, epoch=1, cycle=1, now=now, producer="test")
    return updates


def _waiting_cluster(within: str | None = None) -> Cluster:
    # 3 CPUs, 1 used: "big" (3 CPUs) waits for 1 more.
    return Cluster(
        flavor("default"),
        cluster_queue("cq", {"default": quota("3")}, within=within),
        local_queue("lq", "cq"),
        workload("x", "1", minute=1, admitted=("cq", "default")),
        workload("big", "3", minute=2),
    )


def test_the_head_a_cycle_evaluated_gets_its_changed_explanation_at_once() -> None:
    """Kueue's ``requeueAndUpdate``: the head a cycle evaluated and did not admit gets its
    new ``QuotaReserved=False`` message as soon as it changes."""
    cluster = _waiting_cluster()
    state = AdmissionState(pacing=StatusPacing())
    first = _message(_decide(state, cluster, T0), "default/big")
    assert first is not None and first.endswith("1 more needed")
    cluster.add(workload("y", "1", minute=3, admitted=("cq", "default")))
    second = _message(_decide(state, cluster, T0 + 1), "default/big")
    assert second is not None and second.endswith("2 more needed")


def test_a_workload_behind_the_head_keeps_its_explanation() -> None:
    """Kueue writes a waiting workload's condition only when a cycle evaluates it as the
    head of its queue: one behind the head keeps its first explanation."""
    cluster = _waiting_cluster()
    cluster.add(workload("behind", "3", minute=5))
    state = AdmissionState(pacing=StatusPacing())
    first = _decide(state, cluster, T0)
    assert (_message(first, "default/big") or "").endswith("1 more needed")
    assert (_message(first, "default/behind") or "").endswith("1 more needed"), "its first"
    cluster.add(workload("y", "1", minute=3, admitted=("cq", "default")))
    second = _decide(state, cluster, T0 + 1)
    assert (_message(second, "default/big") or "").endswith("2 more needed")
    assert _message(second, "default/behind") is None, "not the head: not rewritten"


def test_a_workload_behind_the_head_is_told_at_once_when_its_queue_stops() -> None:
    """Kueue's workload controller writes ``Inadmissible`` (here ``Misconfigured``) when the
    ClusterQueue stops, head or not."""
    cluster = _waiting_cluster()
    cluster.add(workload("behind", "3", minute=5))
    state = AdmissionState(pacing=StatusPacing())
    _decide(state, cluster, T0)
    held = cluster_queue("cq", {"default": quota("3")})
    held["spec"]["stopPolicy"] = "Hold"
    cluster.add(held)
    updates = _decide(state, cluster, T0 + 1)
    reasons = {
        u.key: c["reason"]
        for u in updates
        if u.kind == "Workload"
        for c in u.status["conditions"]
        if c["type"] == "QuotaReserved"
    }
    assert reasons == {"default/big": "Misconfigured", "default/behind": "Misconfigured"}


def test_a_new_reason_is_written_at_once() -> None:
    cluster = _waiting_cluster(within="LowerPriority")
    state = AdmissionState(pacing=StatusPacing())
    _decide(state, cluster, T0)
    # A higher-priority workload of the same size preempts x: big's reason stays, but the new
    # one's first status and x's eviction go out at once, admissions and evictions first.
    cluster.add(workload("urgent", "3", minute=4, priority=100))
    updates = _decide(state, cluster, T0 + 1)
    kinds = [(u.kind, u.key) for u in updates]
    assert kinds[0] == ("Workload", "default/x"), "the eviction leads"
    assert ("Workload", "default/urgent") in kinds
    assert kinds.index(("ClusterQueue", "cq")) < kinds.index(("Workload", "default/urgent"))


@pytest.mark.parametrize(
    ("later", "rewritten"), [(1.0, False), (6.0, True)], ids=["within-refresh", "after-refresh"]
)
def test_queue_counters_alone_are_paced(later: float, rewritten: bool) -> None:
    cluster = _waiting_cluster()
    state = AdmissionState(pacing=StatusPacing(counter_refresh=5.0))
    first = [u for u in _decide(state, cluster, T0) if u.kind == "ClusterQueue"]
    assert first and first[0].status["pendingWorkloads"] == 1
    cluster.add(workload("more", "3", minute=5))
    again = [u for u in _decide(state, cluster, T0 + later) if u.kind == "ClusterQueue"]
    if rewritten:
        assert again and again[0].status["pendingWorkloads"] == 2
    else:
        assert again == [], "only a counter changed: written later"


def test_waiting_explanations_per_second_are_capped_never_explained_first() -> None:
    cluster = _waiting_cluster()
    state = AdmissionState(pacing=StatusPacing(max_waiting=1))
    assert _message(_decide(state, cluster, T0), "default/big") is not None
    # big's explanation changes ("2 more needed") as a new workload arrives: one goes out.
    cluster.add(workload("y", "1", minute=3, admitted=("cq", "default")))
    cluster.add(workload("later", "3", minute=4))
    first = [u.key for u in _decide(state, cluster, T0 + 1) if u.kind == "Workload"]
    assert first == ["default/later"], "never explained goes before a refresh"
    second = _decide(state, cluster, T0 + 2)
    assert [u.key for u in second if u.kind == "Workload"] == ["default/big"]
    message = _message(second, "default/big")
    assert message is not None and message.endswith("2 more needed")


@pytest.mark.parametrize(
    ("later", "written"), [(0.5, False), (1.0, True)], ids=["within-the-second", "a-second-later"]
)
def test_the_waiting_cap_is_a_rate_not_per_cycle(later: float, written: bool) -> None:
    cluster = _waiting_cluster()
    state = AdmissionState(pacing=StatusPacing(max_waiting=1))
    assert _message(_decide(state, cluster, T0), "default/big") is not None
    cluster.add(workload("later", "3", minute=4))
    again = [u.key for u in _decide(state, cluster, T0 + later) if u.kind == "Workload"]
    assert again == (["default/later"] if written else []), "one a second, however many cycles"


def test_decoded_workloads_are_reused_only_while_the_object_is_the_same() -> None:
    objects: list[Model] = [
        decode_object(o, document="doc")
        for o in (
            flavor("default"),
            cluster_queue("cq", {"default": quota("2")}),
            local_queue("lq", "cq"),
            priority_class("high", 10),
            {**workload("a", "1"), "spec": {**workload("a", "1")["spec"], "priority": None}},
        )
    ]
    kept = QueueManager()
    first = admit(objects, NOW, kept=kept)
    again = admit(objects, NOW + timedelta(seconds=1), kept=kept)
    assert summary(first) == summary(again)
    changed = workload("a", "3")
    objects[-1] = decode_object(changed, document="doc")
    result = admit(objects, NOW, kept=kept)
    assert "default/a" not in result.admitted, "a new object is decoded again (3 CPUs > 2)"
