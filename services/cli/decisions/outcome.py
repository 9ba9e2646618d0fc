"""What one side decided in a scenario, as recorded from the API server, and the diff of two.

``decisions`` projects an outcome onto what its scenario determines, one named value per
decision: for a gang on its own, whether it ran (at least ``minMember`` pods bound), whether its
PodGroup was admitted (Inqueue or later) and reached Running, and how many of its pods were
evicted; for a class of interchangeable gangs the same as counts. A pod's node is compared when
it has a single candidate. A gang bound in part (fewer than ``minMember`` pods) breaks the gang
rule on that side and is always a decision of its own. ``diff`` is the decisions that differ.
"""

from __future__ import annotations

from collections import Counter

import msgspec

from services.cli.decisions.kueue import KueueScenario, job_classes
from services.cli.decisions.scenario import Gang, Scenario, classes, single_candidate

ADMITTED = frozenset({"Inqueue", "Running", "Completed"})
RUNNING = frozenset({"Running", "Completed"})


class GangOutcome(msgspec.Struct, kw_only=True):
    """One gang as a side left it: every pod ever bound (its first node), the pods deleted by
    the scheduler side (evicted), the PodGroup phases seen in order."""

    bound: dict[str, str] = msgspec.field(default_factory=dict)
    evicted: list[str] = msgspec.field(default_factory=list)
    phases: list[str] = msgspec.field(default_factory=list)


class WorkloadOutcome(msgspec.Struct, kw_only=True):
    """One Job's Workload as a side left it: admitted at least once, the cpu flavor of its
    first admission (the scenario's flavor name), how often it was evicted and preempted,
    whether it finished."""

    admitted: bool = False
    flavor: str = ""
    evicted: int = 0
    preempted: int = 0
    finished: bool = False


class Outcome(msgspec.Struct, kw_only=True):
    scenario: str
    side: str
    gangs: dict[str, GangOutcome] = msgspec.field(default_factory=dict)
    jobs: dict[str, WorkloadOutcome] = msgspec.field(default_factory=dict)
    seconds: float = 0.0
    error: str = ""  # the run failed (the plane, a timeout): no decisions to compare


class Difference(msgspec.Struct, frozen=True, kw_only=True):
    decision: str
    peer: object
    shoal: object


def _ran(gang: Gang, seen: GangOutcome) -> bool:
    return len(seen.bound) >= gang.min_member


def decisions(scenario: Scenario, outcome: Outcome) -> dict[str, object]:
    """The determined decisions of ``outcome``, by name."""
    out: dict[str, object] = {}
    for first, members in classes(scenario.gangs).items():
        seen = [(g, outcome.gangs.get(g.name, GangOutcome())) for g in members]
        label = f"gang {first}" if len(members) == 1 else f"class {first} (x{len(members)})"
        count = len(members) > 1

        def value(flags: list[bool], *, as_count: bool = count) -> object:
            return sum(flags) if as_count else flags[0]

        out[f"{label} ran"] = value([_ran(g, s) for g, s in seen])
        out[f"{label} admitted"] = value([bool(ADMITTED & set(s.phases)) for _, s in seen])
        out[f"{label} reached Running"] = value([bool(RUNNING & set(s.phases)) for _, s in seen])
        out[f"{label} pods bound"] = sum(len(s.bound) for _, s in seen)
        out[f"{label} pods evicted"] = sum(len(s.evicted) for _, s in seen)
        for gang, s in seen:
            if 0 < len(s.bound) < gang.min_member:
                out[f"gang {gang.name} bound in part"] = f"{len(s.bound)}/{gang.min_member}"
        node = single_candidate(scenario, members[0])
        if node is not None:
            nodes = Counter(n for _, s in seen for n in s.bound.values())
            out[f"{label} nodes"] = dict(sorted(nodes.items()))
    return out


def workload_decisions(scenario: KueueScenario, outcome: Outcome) -> dict[str, object]:
    """Kueue's determined decisions: per Job (or class of interchangeable Jobs) whether it was
    admitted, the flavors it was admitted with, whether it was evicted and preempted."""
    out: dict[str, object] = {}
    for first, members in job_classes(scenario.jobs).items():
        seen = [outcome.jobs.get(j.name, WorkloadOutcome()) for j in members]
        label = f"job {first}" if len(members) == 1 else f"class {first} (x{len(members)})"
        count = len(members) > 1

        def value(flags: list[bool], *, as_count: bool = count) -> object:
            return sum(flags) if as_count else flags[0]

        out[f"{label} admitted"] = value([s.admitted for s in seen])
        flavors = Counter(s.flavor for s in seen if s.admitted)
        out[f"{label} flavors"] = dict(sorted(flavors.items()))
        out[f"{label} evicted"] = value([s.evicted > 0 for s in seen])
        out[f"{label} preempted"] = value([s.preempted > 0 for s in seen])
    return out


def diff(scenario: Scenario | KueueScenario, peer: Outcome, shoal: Outcome) -> list[Difference]:
    """The determined decisions on which the two sides differ, in the scenario's order (a
    decision one side lacks compares as ``None``)."""
    if isinstance(scenario, KueueScenario):
        left, right = workload_decisions(scenario, peer), workload_decisions(scenario, shoal)
    else:
        left, right = decisions(scenario, peer), decisions(scenario, shoal)
    return [
        Difference(decision=name, peer=left.get(name), shoal=right.get(name))
        for name in dict.fromkeys([*left, *right])
        if left.get(name) != right.get(name)
    ]
