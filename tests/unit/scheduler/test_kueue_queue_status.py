"""Queue status in the live scheduler: reservations, usage, shares and counts after a run."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from services.scheduler.admission import AdmissionState
from services.scheduler.kueue import FairSharing
from services.scheduler.kueue.usage import kueue_value, resource_quantity
from shared.quantities import parse_quantity
from tests.unit.scheduler.kueue_builders import cluster_queue, flavor, local_queue, quota, workload
from tests.unit.scheduler.test_kueue_live import T0, _by_key, _cache

Json = dict[str, Any]


@pytest.mark.parametrize(
    ("resource", "quantity", "text"),
    [
        ("cpu", "2500m", "2500m"),
        ("cpu", "3", "3"),
        ("cpu", "2000", "2k"),
        ("memory", "3Gi", "3Gi"),
        ("memory", "1536Mi", "1536Mi"),
        ("memory", "1G", "1G"),
        ("memory", "2G", "1953125Ki"),
        ("memory", "1000", "1k"),
        ("ephemeral-storage", "10Gi", "10Gi"),
        ("hugepages-2Mi", "4Mi", "4Mi"),
        ("nvidia.com/gpu", "2", "2"),
        ("nvidia.com/gpu", "3000", "3k"),
        ("example.com/bytes", "1Ki", "1024"),
        ("memory", "0.5", "1"),
    ],
    ids=[
        "cpu-milli",
        "cpu-whole",
        "cpu-thousands",
        "memory-binary",
        "memory-mebibytes",
        "memory-decimal-stays-decimal",
        "memory-decimal-whole-in-ki-turns-binary",
        "memory-below-1024-decimal",
        "ephemeral-storage-binary",
        "hugepages-binary",
        "extended-resource",
        "extended-resource-thousands",
        "other-resources-decimal",
        "bytes-rounded-up",
    ],
)
def test_quantities_as_kueues_resource_formatter(resource: str, quantity: str, text: str) -> None:
    value = kueue_value(resource, parse_quantity(quantity).milli())
    assert resource_quantity(resource, value) == text


def _team(name: str, nominal: str) -> Json:
    return cluster_queue(name, {"default": quota(nominal)}, cohort="team", reclaim="Any")


def _usage(status: Json, key: str = "flavorsReservation") -> dict[str, tuple[str, str]]:
    return {
        f"{f['name']}/{r['name']}": (r["total"], r.get("borrowed", "-"))
        for f in status[key]
        for r in f["resources"]
    }


def _admitted(name: str, cpu: str, **kwargs: Any) -> Json:
    """A workload holding quota in ``cq`` with ``Admitted=True`` (the builder's has only
    ``QuotaReserved``: a reservation whose admission checks are not all ready)."""
    wl = workload(name, cpu, admitted=("cq", "default"), **kwargs)
    wl["status"]["conditions"].append(
        {"type": "Admitted", "status": "True", "lastTransitionTime": "2024-05-01T11:00:00Z"}
    )
    return wl


@pytest.mark.parametrize(
    ("objects", "reserved", "used", "counts"),
    [
        (
            [workload("a", "1", minute=1), workload("b", "1500m", minute=2)],
            "2500m",
            "2500m",
            (0, 2, 2),
        ),
        ([_admitted("old", "3"), workload("new", "2")], "3", "3", (1, 1, 1)),
        (
            [_admitted("low", "2", priority=1), workload("high", "3", priority=9)],
            "2",
            "2",
            (1, 1, 1),
        ),
        ([workload("reserved", "2", admitted=("cq", "default"))], "2", "0", (0, 1, 0)),
    ],
    ids=[
        "admitted-by-this-run-reserve-and-use",
        "a-workload-that-does-not-fit-reserves-nothing",
        "a-preemptor-reserves-nothing-until-its-targets-are-gone",
        "a-reservation-not-admitted-is-not-usage",
    ],
)
def test_cluster_queue_reservation_after_the_run(
    objects: list[Json], reserved: str, used: str, counts: tuple[int, int, int]
) -> None:
    cache = _cache(
        flavor("default"),
        cluster_queue("cq", {"default": quota("3")}, within="LowerPriority"),
        local_queue("lq", "cq"),
        *objects,
    )
    _, updates = AdmissionState().decide(cache, T0)
    status = _by_key(updates, "ClusterQueue")["cq"]
    assert _usage(status) == {"default/cpu": (reserved, "0")}
    assert _usage(status, "flavorsUsage") == {"default/cpu": (used, "0")}
    got = tuple(status[k] for k in ("pendingWorkloads", "reservingWorkloads", "admittedWorkloads"))
    assert got == counts


def _cohort_cache(*more: Json) -> Any:
    cohort: Json = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Cohort",
        "metadata": {"name": "team"},
        "spec": {},
    }
    return _cache(
        flavor("default"),
        cohort,
        _team("a", "4"),
        _team("b", "4"),
        local_queue("lq", "a"),
        workload("borrower", "6", minute=1),
        *more,
    )


@pytest.mark.parametrize(
    ("fair_sharing", "shares"),
    [(None, {}), (FairSharing(), {"a": 250, "b": 0})],
    ids=["fair-sharing-off-no-share", "fair-sharing-on-weighted-share"],
)
def test_borrowing_in_a_cohort(fair_sharing: FairSharing | None, shares: dict[str, int]) -> None:
    """a borrows 2 of b's idle 4: borrowed 2, and with fair sharing a's share is
    2 / 8 lendable * 1000 = 250 (Kueue's dominantResourceShare)."""
    _, updates = AdmissionState(fair_sharing=fair_sharing).decide(_cohort_cache(), T0)
    queues = _by_key(updates, "ClusterQueue")
    assert _usage(queues["a"]) == {"default/cpu": ("6", "2")}
    got = {
        name: q["fairSharing"]["weightedShare"] for name, q in queues.items() if "fairSharing" in q
    }
    assert got == shares
    cohorts = _by_key(updates, "Cohort")
    if fair_sharing is None:
        assert cohorts == {}
    else:
        assert cohorts == {"team": {"fairSharing": {"weightedShare": 0}}}, "a root has no share"


def test_fair_sharing_turned_off_removes_the_share() -> None:
    """Kueue sets ``status.fairSharing`` to nil when fair sharing is off: a merge patch null."""
    state = AdmissionState(fair_sharing=FairSharing())
    cache = _cohort_cache()
    _, updates = state.decide(cache, T0)
    state.envelopes(updates, epoch=1, cycle=1, now=T0, producer="test")
    _, later = AdmissionState().decide(_cache_with_statuses(cache, updates), T0 + 1)
    assert _by_key(later, "ClusterQueue")["a"]["fairSharing"] is None
    assert _by_key(later, "Cohort")["team"] == {"fairSharing": None}


def _cache_with_statuses(cache: Any, updates: list[Any]) -> Any:
    """The cache's objects with the decided statuses written (as the binder would)."""
    decided = {(u.kind, u.key): u.status for u in updates}
    objects: list[Json] = []
    for kind in ("ResourceFlavor", "Cohort", "ClusterQueue", "LocalQueue", "Workload"):
        for key, obj in cache.items(f"kueue.x-k8s.io/v1beta2/{kind}"):
            raw = _as_json(obj)
            raw["status"] = {**(raw.get("status") or {}), **decided.get((kind, key), {})}
            objects.append(raw)
    return _cache(*objects)


def _as_json(obj: Any) -> Json:
    raw: Json = msgspec.to_builtins(obj)
    return raw


def test_pending_counts_leave_out_inactive_workloads_and_stopped_local_queues() -> None:
    """Kueue's queue manager queues only admissible workloads (``IsAdmissible``: active,
    no reservation) of LocalQueues that are not stopped."""
    inactive = workload("off", "1", minute=1)
    inactive["spec"]["active"] = False
    stopped = local_queue("held", "cq")
    stopped["spec"]["stopPolicy"] = "Hold"
    cache = _cache(
        flavor("default"),
        cluster_queue("cq", {"default": quota("0")}),
        local_queue("lq", "cq"),
        stopped,
        inactive,
        workload("waits", "1", minute=2),
        workload("held-back", "1", minute=3, queue="held"),
    )
    _, updates = AdmissionState().decide(cache, T0)
    assert _by_key(updates, "ClusterQueue")["cq"]["pendingWorkloads"] == 1
    local = _by_key(updates, "LocalQueue")
    assert local["default/lq"]["pendingWorkloads"] == 1
    assert local["default/held"]["pendingWorkloads"] == 0
    assert local["default/held"]["conditions"][0]["reason"] == "Stopped"


def test_a_local_queue_gets_v1beta2_flavors_usage() -> None:
    """The status is written as v1beta2, which names a LocalQueue's admitted usage
    ``flavorsUsage`` (v1beta1: ``flavorUsage``, which the API server converts it to)."""
    cache = _cache(
        flavor("default"),
        cluster_queue("cq", {"default": quota("3")}),
        local_queue("lq", "cq"),
        workload("a", "2"),
    )
    _, updates = AdmissionState().decide(cache, T0)
    status = _by_key(updates, "LocalQueue")["default/lq"]
    assert "flavorUsage" not in status
    assert status["flavorsUsage"] == [
        {"name": "default", "resources": [{"name": "cpu", "total": "2"}]}
    ]
    assert status["flavorsReservation"] == status["flavorsUsage"]
