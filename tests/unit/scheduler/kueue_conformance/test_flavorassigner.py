"""Kueue's ``pkg/scheduler/flavorassigner/flavorassigner_test.go`` tables.

Each row of ``flavorassigner_cases.yaml`` is one upstream case (same name; ``table`` names the
upstream test function): the ClusterQueues (and Cohorts) built into a snapshot, the usage
upstream adds to them, the workload's pod sets, and upstream's fake preemption oracle
(``simulation``: flavor, resource, possibility, borrowing level; any other flavor/resource
answers Preempt at level 0, as upstream's ``testOracle``). Shoal's ``assign_flavors`` gets the
same; the representative mode, each pod set's flavors (mode and TriedFlavorIdx), its status
reasons, the usage and the borrowing level must match. ``TestIsPreferred`` rows compare
``isPreferred`` on two granular modes.
"""

from __future__ import annotations

from typing import Any

from services.scheduler.kueue import flavors as fa
from services.scheduler.kueue.flavors import Assignment, assign_flavors
from services.scheduler.kueue.model import Fungibility
from services.scheduler.kueue.modes import Attempt, Mode, Possibility
from services.scheduler.kueue.snapshot import build
from services.scheduler.kueue.workloads import FlavorResource, Priorities, Usage, workload_info
from shared.models import Workload, convert
from tests.unit.scheduler.kueue_conformance.tables import NOW, Table

TABLE = Table.load("flavorassigner_cases.yaml")
_MODES = {"NoFit": Mode.NO_FIT, "Preempt": Mode.PREEMPT, "Fit": Mode.FIT}
_MODE_NAMES = {mode: name for name, mode in _MODES.items()}
_POSSIBILITY_NAMES = {
    Possibility.NO_CANDIDATES: "NoCandidates",
    Possibility.PREEMPT: "Preempt",
    Possibility.RECLAIM: "Reclaim",
}
_GRANULAR = {
    "noFit": 0,
    "noPreemptionCandidates": int(Possibility.NO_CANDIDATES),
    "preempt": int(Possibility.PREEMPT),
    "reclaim": int(Possibility.RECLAIM),
    "fit": 4,
}


def _milli(resource: str, amount: int) -> int:
    """Upstream counts cpu in milli-units and everything else in units; Shoal in milli."""
    return amount if resource == "cpu" else amount * 1000


def _usage(rows: list[list[Any]]) -> Usage:
    return {(f, r): _milli(r, amount) for f, r, amount in rows}


def _oracle(rows: list[list[Any]]) -> fa.Oracle:
    results = {
        (f, r): (Possibility[p.upper().replace("NOCANDIDATES", "NO_CANDIDATES")], b)
        for f, r, p, b in rows
    }

    def simulate(fr: FlavorResource, amount: int) -> tuple[Possibility, int]:
        return results.get(fr, (Possibility.PREEMPT, 0))

    return simulate


def _run(case: dict[str, Any]) -> Assignment:
    inputs = build(TABLE.objects(case), now=NOW)
    snapshot = inputs.snapshot
    for name, rows in (case.get("usage") or {}).items():
        snapshot.cluster_queues[name].add_usage(_usage(rows))
    manifest = {
        "metadata": {"name": "wl", "namespace": "default"},
        "spec": {"podSets": case["podSets"]},
        "status": {"reclaimablePods": case.get("reclaimablePods") or []},
    }
    wl = convert(manifest, Workload, document=case["name"])
    gates = TABLE.gates(case)
    info = workload_info(
        wl,
        priorities=Priorities([]),
        now=NOW,
        source=case["name"],
        reclaimable_pods=gates.get("ReclaimablePods", True),
    )
    return assign_flavors(
        info,
        snapshot.cluster_queues[case["clusterQueue"]],
        snapshot.flavors,
        oracle=_oracle(case.get("simulation") or []),
        fair_sharing=bool(case.get("fairSharing")),
    )


def _podsets(assignment: Assignment) -> list[dict[str, Any]]:
    return [
        {
            "name": ps.name,
            "count": ps.count,
            "flavors": {
                r: {"flavor": c.flavor, "mode": _MODE_NAMES[c.mode], "tried": c.tried}
                for r, c in ps.flavors.items()
            },
            "reasons": sorted(r.message for r in ps.reasons),
        }
        for ps in assignment.podsets
    ]


def _attempt(attempt: Attempt) -> dict[str, Any]:
    possibility = attempt.possibility
    return {
        "flavor": attempt.flavor,
        "mode": _MODE_NAMES[attempt.mode],
        "borrow": attempt.borrow,
        "possibility": _POSSIBILITY_NAMES[possibility] if possibility is not None else None,
        "reasons": list(attempt.reasons),
        "noFitReason": attempt.no_fit_reason,
    }


def _assert_attempts(want: list[dict[str, Any]], got: list[Attempt]) -> None:
    """Upstream's flexAssertConsidered: when a flavor fits, only the flavors tried are
    compared (a wanted "does not provide resource" attempt may be a Fit); otherwise every
    wanted flavor must have been tried, as wanted."""
    wanted = {w["flavor"]: w for w in want}
    tried = {a.flavor: _attempt(a) for a in got}
    if any(a.mode == Mode.FIT for a in got):
        for flavor, attempt in tried.items():
            assert flavor in wanted, f"unexpected attempt {attempt}"
            if (
                attempt["mode"] == "Fit"
                and all("does not provide resource" in r for r in wanted[flavor]["reasons"])
                and wanted[flavor]["reasons"]
                and wanted[flavor]["mode"] == "NoFit"
            ):
                continue
            assert attempt == wanted[flavor]
        return
    for flavor, attempt in wanted.items():
        assert tried.get(flavor) == attempt


@TABLE.parametrize()
def test_flavorassigner(case: dict[str, Any]) -> None:
    if case["table"] == "TestIsPreferred":
        a, b = ((_GRANULAR[m], level) for m, level in (case["a"], case["b"]))
        config = case.get("config") or {}
        fungibility = Fungibility(preference=config.get("preference"))
        assert fa._preferred(fa._Granular(*a), fa._Granular(*b), fungibility) is case["want"]
        return
    want = TABLE.want(case)
    assignment = _run(case)
    if case["table"] == "TestIsNoFitDueToCapacityAndLimits":
        assert assignment.no_fit_reason == want["noFitReason"]
        for ps in assignment.podsets:
            for attempt in ps.attempts:
                if attempt.flavor in want["attempts"]:
                    assert attempt.no_fit_reason == want["attempts"][attempt.flavor]
        return
    assert assignment.mode == _MODES[want["mode"]]
    if case["table"] in ("TestReclaimBeforePriorityPreemption", "TestHierarchical"):
        got = {r: c.flavor for r, c in assignment.podsets[0].flavors.items()}
        assert got == want["flavors"]
        return
    assert _podsets(assignment) == [
        {k: v for k, v in ps.items() if k != "attempts"} for ps in want["podSets"]
    ]
    got_usage = {fr: v for fr, v in assignment.usage.items() if v}
    assert got_usage == {fr: v for fr, v in _usage(want["usage"]).items() if v}
    assert assignment.borrows == want["borrowing"]
    assert assignment.no_fit_reason == want["noFitReason"]
    for got_ps, want_ps in zip(assignment.podsets, want["podSets"], strict=True):
        if want_ps["attempts"]:
            _assert_attempts(want_ps["attempts"], got_ps.attempts)
