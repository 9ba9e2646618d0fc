"""Kueue's current API in `simulate admit`: v1beta2 manifests (cohortName, priorityClassRef) and
the current FlavorFungibility values (MayStopSearch; Borrow/Preempt are its deprecated names)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.cli.main import main
from shared.errors import ManifestError
from tests.unit.scheduler.kueue_builders import (
    Json,
    cluster_queue,
    flavor,
    local_queue,
    priority_class,
    quota,
    run,
    summary,
    workload,
)

UPSTREAM = Path(__file__).parents[2] / "data" / "upstream" / "kueue"
V1BETA2 = "kueue.x-k8s.io/v1beta2"


def _v1beta2(obj: Json) -> Json:
    """``obj`` as Kueue's v1beta2 names it (objects of other groups unchanged)."""
    if not obj["apiVersion"].startswith("kueue.x-k8s.io/"):
        return obj
    out = {**obj, "apiVersion": V1BETA2}
    spec = dict(out.get("spec") or {})
    if "cohort" in spec:
        spec["cohortName"] = spec.pop("cohort")
    if "priorityClassName" in spec:
        name = spec.pop("priorityClassName")
        spec["priorityClassRef"] = {"group": "scheduling.k8s.io", "kind": "PriorityClass",
                                    "name": name}  # fmt: skip
    out["spec"] = spec
    return out


def _borrowing_setup(when_can_borrow: str | None) -> list[Json]:
    """cq-a has 2 CPUs of flavor x and 4 of y, in a cohort whose cq-b lends 4 CPUs of x: a
    3-CPU workload fits x only by borrowing, y without."""
    fungibility = {"whenCanBorrow": when_can_borrow} if when_can_borrow else None
    return [
        flavor("x"),
        flavor("y"),
        cluster_queue(
            "cq-a", {"x": quota("2"), "y": quota("4")}, cohort="team", fungibility=fungibility
        ),
        cluster_queue("cq-b", {"x": quota("4"), "y": quota("0")}, cohort="team"),
        local_queue("lq-a", "cq-a"),
        workload("w", "3", queue="lq-a"),
    ]


@pytest.mark.parametrize(
    ("when_can_borrow", "chosen"),
    [(None, "x"), ("MayStopSearch", "x"), ("Borrow", "x"), ("TryNextFlavor", "y")],
    ids=["default-may-stop-search", "may-stop-search", "borrow-deprecated-name", "try-next"],
)
@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
def test_when_can_borrow(version: str, when_can_borrow: str | None, chosen: str) -> None:
    objects = _borrowing_setup(when_can_borrow)
    if version == "v1beta2":
        objects = [_v1beta2(o) for o in objects]
    admitted, pending, _ = summary(run(objects))
    assert admitted == {"default/w": {"main/cpu": chosen}} and pending == []


@pytest.mark.parametrize(
    ("when_can_preempt", "admitted_to", "preempted"),
    [("MayStopSearch", {}, ["default/low"]), ("Preempt", {}, ["default/low"]),
     ("TryNextFlavor", {"default/high": {"main/cpu": "y"}}, [])],
    ids=["may-stop-search-preempts", "preempt-deprecated-name", "try-next-flavor"],
)  # fmt: skip
def test_when_can_preempt(
    when_can_preempt: str, admitted_to: dict[str, dict[str, str]], preempted: list[str]
) -> None:
    objects = [
        flavor("x"),
        flavor("y"),
        cluster_queue(
            "cq",
            {"x": quota("4"), "y": quota("4")},
            within="LowerPriority",
            fungibility={"whenCanPreempt": when_can_preempt},
        ),
        local_queue("lq", "cq"),
        workload("low", "4", priority=0, admitted=("cq", "x")),
        workload("high", "4", priority=10, minute=1),
    ]
    admitted, _, evicted = summary(run([_v1beta2(o) for o in objects]))
    assert admitted == admitted_to and evicted == preempted


def test_priority_class_ref_gives_the_priority() -> None:
    objects = [
        flavor("x"),
        cluster_queue("cq", {"x": quota("4")}, within="LowerPriority"),
        local_queue("lq", "cq"),
        priority_class("high", 1000),
        workload("low", "4", priority=0, admitted=("cq", "x")),
        workload("urgent", "4", priority_class="high", minute=1),
    ]
    _, pending, evicted = summary(run([_v1beta2(o) for o in objects]))
    assert pending == ["default/urgent"] and evicted == ["default/low"]


def test_unknown_fungibility_value_names_the_field() -> None:
    objects = [_v1beta2(o) for o in _borrowing_setup("Sometimes")]
    with pytest.raises(ManifestError, match=r"spec\.flavorFungibility\.whenCanBorrow"):
        run(objects)


def test_simulate_admit_takes_kueue_quick_start_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Kueue's own v1beta2 setup (9 CPUs) with three 3-CPU v1beta2 Workloads and a fourth."""
    workloads = [
        _v1beta2(workload(f"job-{i}", "1", count=3, queue="user-queue", minute=i)) for i in range(4)
    ]
    text = (UPSTREAM / "single-clusterqueue-setup.yaml").read_text()
    text += "\n---\n" + "\n---\n".join(json.dumps(w) for w in workloads)
    manifests = tmp_path / "quick-start.yaml"
    manifests.write_text(text)
    assert main(["simulate", "admit", "-f", str(manifests), "--now", "2024-05-01T12:00:00Z"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out["admitted"]) == ["default/job-0", "default/job-1", "default/job-2"]
    assert out["pending"] == ["default/job-3"]
    assert out["admitted"]["default/job-0"]["clusterQueue"] == "cluster-queue"
