"""Kueue-style admission: manifests in, admitted/pending/preempted out (one case per rule)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from services.cli.main import main
from shared.errors import ManifestError
from tests.unit.scheduler.kueue_builders import (
    Json,
    cluster_queue,
    flavor,
    local_queue,
    namespace,
    priority_class,
    quota,
    run,
    summary,
    workload,
)

DATA = Path(__file__).parents[2] / "data" / "admission"
D = "default"
TAINT = {"key": "spot", "value": "true", "effect": "NoSchedule"}
TOLERATE = {"key": "spot", "operator": "Exists", "effect": "NoSchedule"}


def one_queue(
    nominal: str = "4", *, strategy: str | None = None, within: str | None = None
) -> list[Json]:
    return [
        flavor(D),
        cluster_queue("cq", {D: quota(nominal)}, strategy=strategy, within=within),
        local_queue("lq", "cq"),
    ]


def cohort_of_two(a: Json, b: Json, *, reclaim: str | None = None) -> list[Json]:
    """ClusterQueues cq-a and cq-b in cohort "team" with LocalQueues lq-a and lq-b."""
    return [
        flavor(D),
        cluster_queue("cq-a", {D: a}, cohort="team", reclaim=reclaim),
        cluster_queue("cq-b", {D: b}, cohort="team"),
        local_queue("lq-a", "cq-a"),
        local_queue("lq-b", "cq-b"),
    ]


def two_flavors(fungibility: Json | None = None) -> list[Json]:
    """Flavors x and y (4 CPUs each); "low" fills x; withinClusterQueue LowerPriority."""
    return [
        flavor("x"),
        flavor("y"),
        cluster_queue(
            "cq",
            {"x": quota("4"), "y": quota("4")},
            within="LowerPriority",
            fungibility=fungibility,
        ),
        local_queue("lq", "cq"),
        workload("low", "4", priority=0, admitted=("cq", "x")),
    ]


@dataclass
class Case:
    id: str
    objects: list[Json]
    admitted: dict[str, dict[str, str]] = field(default_factory=dict)
    """Workload key → "podSet/resource" → flavor."""
    pending: list[str] = field(default_factory=list)
    preempted: list[str] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    """Pending workload key → expected reason."""


CPU = "main/cpu"
CASES = [
    Case(
        "fits-nominal-quota",
        [*one_queue("4"), workload("a", "1", count=3)],
        admitted={"default/a": {CPU: D}},
    ),
    Case(
        "over-nominal-quota-pending",
        [*one_queue("4"), workload("a", "5")],
        pending=["default/a"],
        reasons={"default/a": "ExceedsMaxQuota"},
    ),
    Case(
        "already-admitted-counts-as-usage",
        [*one_queue("4"), workload("old", "3", admitted=("cq", D)), workload("new", "2", minute=1)],
        pending=["default/new"],
        reasons={"default/new": "InsufficientQuota"},
    ),
    Case(
        "first-flavor-full-second-flavor",
        [
            flavor("on-demand"),
            flavor("spot"),
            cluster_queue("cq", {"on-demand": quota("2"), "spot": quota("4")}),
            local_queue("lq", "cq"),
            workload("a", "2"),
            workload("b", "2", minute=1),
        ],
        admitted={"default/a": {CPU: "on-demand"}, "default/b": {CPU: "spot"}},
    ),
    Case(
        "pod-sets-add-up-before-choosing-a-flavor",
        [
            flavor("x"),
            flavor("y"),
            cluster_queue("cq", {"x": quota("4"), "y": quota("4")}),
            local_queue("lq", "cq"),
            workload("a", "", podsets=[("driver", 1, "2"), ("workers", 1, "3")]),
        ],
        admitted={"default/a": {"driver/cpu": "x", "workers/cpu": "y"}},
    ),
    Case(
        "borrow-from-cohort-within-borrowing-limit",
        [*cohort_of_two(quota("2", borrowing="2"), quota("4")), workload("a", "4", queue="lq-a")],
        admitted={"default/a": {CPU: D}},
    ),
    Case(
        "borrowing-limit-caps-borrowing",
        [*cohort_of_two(quota("2", borrowing="1"), quota("4")), workload("a", "4", queue="lq-a")],
        pending=["default/a"],
        reasons={"default/a": "ExceedsMaxQuota"},
    ),
    Case(
        "no-cohort-no-borrowing",
        [
            flavor(D),
            cluster_queue("cq-a", {D: quota("2")}),
            cluster_queue("cq-b", {D: quota("4")}),
            local_queue("lq-a", "cq-a"),
            workload("a", "3", queue="lq-a"),
        ],
        pending=["default/a"],
    ),
    Case(
        "lending-limit-caps-what-the-lender-gives",
        [
            *cohort_of_two(quota("2"), quota("4", lending="1")),
            workload("four", "4", queue="lq-a"),
            workload("three", "3", queue="lq-a", minute=1),
        ],
        admitted={"default/three": {CPU: D}},
        pending=["default/four"],
    ),
    Case(
        "non-borrowing-head-goes-first-in-a-cycle",
        [
            *cohort_of_two(quota("2"), quota("2")),
            workload("borrower", "3", queue="lq-a"),
            workload("within", "2", queue="lq-b", minute=5),
        ],
        admitted={"default/within": {CPU: D}},
        pending=["default/borrower"],
    ),
    Case(
        "strict-fifo-head-blocks-the-queue",
        [
            *one_queue("4", strategy="StrictFIFO"),
            workload("big", "5"),
            workload("small", "1", minute=1),
        ],
        pending=["default/big", "default/small"],
        reasons={"default/small": "WaitingForHead"},
    ),
    Case(
        "best-effort-fifo-skips-to-the-next",
        [
            *one_queue("4", strategy="BestEffortFIFO"),
            workload("big", "5"),
            workload("small", "1", minute=1),
        ],
        admitted={"default/small": {CPU: D}},
        pending=["default/big"],
    ),
    Case(
        "higher-priority-first-then-older",
        [
            *one_queue("4"),
            priority_class("high", 100),
            workload("old-low", "3"),
            workload("new-high", "3", minute=2, priority_class="high"),
            workload("newer-high", "3", minute=3, priority=100),
        ],
        admitted={"default/new-high": {CPU: D}},
        pending=["default/newer-high", "default/old-low"],
    ),
    Case(
        "preempt-lower-priority-within-cluster-queue",
        [
            *one_queue("4", within="LowerPriority"),
            workload("low", "3", priority=0, admitted=("cq", D)),
            workload("low-small", "1", priority=0, admitted=("cq", D)),
            workload("high", "3", priority=10, minute=1),
        ],
        pending=["default/high"],
        preempted=["default/low"],
        reasons={"default/high": "PendingPreemption"},
    ),
    Case(
        "no-preemption-of-equal-priority",
        [
            *one_queue("4", within="LowerPriority"),
            workload("peer", "3", priority=10, admitted=("cq", D)),
            workload("high", "3", priority=10, minute=1),
        ],
        pending=["default/high"],
    ),
    Case(
        "no-preemption-when-policy-is-never",
        [
            *one_queue("4"),
            workload("low", "3", priority=0, admitted=("cq", D)),
            workload("high", "3", priority=10, minute=1),
        ],
        pending=["default/high"],
    ),
    Case(
        "reclaim-within-cohort-any",
        [
            *cohort_of_two(quota("4"), quota("4"), reclaim="Any"),
            workload("lender-back", "4", queue="lq-a", priority=0, minute=1),
            workload("borrower", "6", queue="lq-b", priority=100, admitted=("cq-b", D)),
        ],
        pending=["default/lender-back"],
        preempted=["default/borrower"],
    ),
    Case(
        "reclaim-lower-priority-spares-higher",
        [
            *cohort_of_two(quota("4"), quota("4"), reclaim="LowerPriority"),
            workload("lender-back", "4", queue="lq-a", priority=0, minute=1),
            workload("borrower", "6", queue="lq-b", priority=100, admitted=("cq-b", D)),
        ],
        pending=["default/lender-back"],
    ),
    Case(
        "reclaim-only-from-borrowing-queues",
        [
            *cohort_of_two(quota("4"), quota("4"), reclaim="Any"),
            workload("first", "2", queue="lq-a", admitted=("cq-a", D)),
            workload("second", "3", queue="lq-a", minute=1),
            workload("neighbour", "4", queue="lq-b", admitted=("cq-b", D)),
        ],
        pending=["default/second"],
    ),
    Case(
        "preempt-newer-equal-priority-when-allowed",
        [
            *one_queue("4", within="LowerOrNewerEqualPriority"),
            workload("newer-peer", "3", priority=10, minute=5, admitted=("cq", D)),
            workload("older", "3", priority=10, minute=1),
        ],
        pending=["default/older"],
        preempted=["default/newer-peer"],
    ),
    Case(
        "default-fungibility-tries-next-flavor-before-preempting",
        [*two_flavors(), workload("high", "4", priority=10, minute=1)],
        admitted={"default/high": {CPU: "y"}},
    ),
    Case(
        "fungibility-preempt-stays-on-first-flavor",
        [*two_flavors({"whenCanPreempt": "Preempt"}), workload("high", "4", priority=10, minute=1)],
        pending=["default/high"],
        preempted=["default/low"],
    ),
    Case(
        "borrow-within-cohort-preempts-lower-priority-borrower",
        [
            flavor(D),
            cluster_queue(
                "cq-a", {D: quota("2")}, cohort="team", reclaim="Any", borrow_within="LowerPriority"
            ),
            cluster_queue("cq-b", {D: quota("2")}, cohort="team"),
            local_queue("lq-a", "cq-a"),
            workload("low", "3", queue="lq-b", priority=0, admitted=("cq-b", D)),
            workload("high", "3", queue="lq-a", priority=10, minute=1),
        ],
        pending=["default/high"],
        preempted=["default/low"],
    ),
    Case(
        "no-borrowing-while-preempting-without-borrow-within-cohort",
        [
            *cohort_of_two(quota("2"), quota("2"), reclaim="Any"),
            workload("low", "3", queue="lq-b", priority=0, admitted=("cq-b", D)),
            workload("high", "3", queue="lq-a", priority=10, minute=1),
        ],
        pending=["default/high"],
    ),
    Case(
        "flavor-taint-needs-toleration",
        [
            flavor("spot", taints=[TAINT]),
            flavor("on-demand"),
            cluster_queue("cq", {"spot": quota("8"), "on-demand": quota("8")}),
            local_queue("lq", "cq"),
            workload("plain", "1"),
            workload("tolerant", "1", tolerations=[TOLERATE], minute=1),
        ],
        admitted={"default/plain": {CPU: "on-demand"}, "default/tolerant": {CPU: "spot"}},
    ),
    Case(
        "only-tainted-flavor-pending",
        [
            flavor("spot", taints=[TAINT]),
            cluster_queue("cq", {"spot": quota("8")}),
            local_queue("lq", "cq"),
            workload("plain", "1"),
        ],
        pending=["default/plain"],
        reasons={"default/plain": "UntoleratedTaint"},
    ),
    Case(
        "node-selector-picks-the-flavor",
        [
            flavor("spot", labels={"instance": "spot"}),
            flavor("on-demand", labels={"instance": "on-demand"}),
            cluster_queue("cq", {"spot": quota("8"), "on-demand": quota("8")}),
            local_queue("lq", "cq"),
            workload("picky", "1", node_selector={"instance": "on-demand", "zone": "a"}),
        ],
        admitted={"default/picky": {CPU: "on-demand"}},
    ),
    Case(
        "missing-local-queue-pending",
        [*one_queue("4"), workload("lost", "1", queue="nope")],
        pending=["default/lost"],
        reasons={"default/lost": "LocalQueueNotFound"},
    ),
    Case(
        "missing-cluster-queue-pending",
        [flavor(D), local_queue("lq", "gone"), workload("orphan", "1")],
        pending=["default/orphan"],
        reasons={"default/orphan": "ClusterQueueNotFound"},
    ),
    Case(
        "missing-flavor-makes-the-queue-inactive",
        [cluster_queue("cq", {D: quota("4")}), local_queue("lq", "cq"), workload("a", "1")],
        pending=["default/a"],
        reasons={"default/a": "ClusterQueueInactive"},
    ),
    Case(
        "namespace-selector",
        [
            flavor(D),
            cluster_queue("cq", {D: quota("4")}, selector={"matchLabels": {"team": "a"}}),
            namespace("ns-a", team="a"),
            namespace("ns-b", team="b"),
            local_queue("lq", "cq", namespace="ns-a"),
            local_queue("lq", "cq", namespace="ns-b"),
            workload("in", "1", namespace="ns-a"),
            workload("out", "1", namespace="ns-b"),
        ],
        admitted={"ns-a/in": {CPU: D}},
        pending=["ns-b/out"],
        reasons={"ns-b/out": "NamespaceMismatch"},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_admission(case: Case) -> None:
    result = run(case.objects)
    assert summary(result) == (case.admitted, sorted(case.pending), sorted(case.preempted))
    for key, reason in case.reasons.items():
        assert result.pending[key].reason == reason, result.pending[key]


def test_preemptor_reserves_its_quota_for_the_rest_of_the_run() -> None:
    """The quota the victims free is the preemptor's: a later small workload cannot take it."""
    result = run(
        [
            *one_queue("4", within="LowerPriority"),
            workload("low", "4", priority=0, admitted=("cq", D)),
            workload("high", "4", priority=10, minute=1),
            workload("small", "1", priority=5, minute=2),
        ]
    )
    assert summary(result) == ({}, ["default/high", "default/small"], ["default/low"])
    assert result.preempted == {"default/low": "default/high"}
    assert result.pending["default/small"].reason == "WaitingForHead"


@pytest.mark.parametrize(
    ("objects", "needle"),
    [
        (
            [flavor(D), cluster_queue("cq", {D: quota("lots")})],
            "nominalQuota",
        ),
        ([{**one_queue()[1], "spec": {"queueingStrategy": "Random"}}], "queueingStrategy"),
        ([{**workload("a", "1"), "spec": {"queueName": "lq"}}], "at least one pod set"),
        ([workload("a", "1", priority_class="missing")], "PriorityClass 'missing' not found"),
    ],
    ids=["bad-quantity", "bad-strategy", "no-pod-sets", "unknown-priority-class"],
)
def test_bad_input_names_the_field(objects: list[Json], needle: str) -> None:
    with pytest.raises(ManifestError, match=needle):
        run(objects)


def test_cli_single_clusterqueue_example(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "single_clusterqueue.yaml"
    code = main(["simulate", "admit", "-f", str(path), "-o", "json", "--now", "2024-05-01T12:00Z"])
    out = json.loads(capsys.readouterr().out)
    flavors = {"cpu": "default-flavor", "memory": "default-flavor"}
    assert code == 0
    assert out == {
        "admitted": {
            "default/job-sample-job-8c7zt": {
                "clusterQueue": "cluster-queue",
                "podSets": {"main": {"count": 3, "flavors": flavors}},
            },
            "default/job-small-job-q9wfd": {
                "clusterQueue": "cluster-queue",
                "podSets": {"main": {"count": 2, "flavors": flavors}},
            },
        },
        "pending": ["default/job-big-job-5xk2p"],
        "preempted": [],
    }


def test_cli_text_output_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    path = DATA / "single_clusterqueue.yaml"
    assert main(["simulate", "admit", "-f", str(path), "-o", "text"]) == 0
    out = capsys.readouterr().out
    assert "admit default/job-small-job-q9wfd -> cluster-queue" in out
    assert "pending default/job-big-job-5xk2p: InsufficientQuota: " in out


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: AdmissionCheck\nmetadata: {name: x}\n",
            "unknown kind",
        ),
        (
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
            "spec: {resourceGroups: [{coveredResources: [cpu], flavors: [{name: f, resources:"
            " [{name: cpu, nominalQuota: 1x}]}]}]}\n",
            "nominalQuota",
        ),
        (
            "apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: cq}\n"
            "spec: {resourceGroups: [{coveredResources: [cpu], flavors: [{resources: []}]}]}\n",
            "name",
        ),
    ],
    ids=["unknown-kind", "invalid-quantity", "missing-required-field"],
)
def test_cli_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needle: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    assert main(["simulate", "admit", "-f", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err
