"""Cycles that only refuse heads quietly are run in one go (``kueue/queueing.py``): the run
decides exactly what running them one by one decides — admissions, preemptions, every pending
workload's reason and message, the NoFit reasons, and the number of cycles."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from services.scheduler.kueue import AdmissionResult, admit
from services.scheduler.kueue import cycle as kueue_cycle
from services.scheduler.kueue.nomination import Nominator
from shared.models import Model, decode_object
from tests.unit.scheduler.kueue_builders import (
    NOW,
    Json,
    cluster_queue,
    flavor,
    local_queue,
    namespace,
    quota,
    workload,
)

Scenario = Callable[[], list[Json]]


def _backlog(queue: str, sizes: list[tuple[str, int]], *, start: int = 0) -> list[Json]:
    """Workloads of ``queue``, one per (cpu, priority), a minute apart."""
    return [
        workload(f"{queue}-{i}", cpu, queue=queue, priority=prio, minute=(start + i) % 60)
        for i, (cpu, prio) in enumerate(sizes)
    ]


def _cohort_backlog() -> list[Json]:
    """Two BestEffortFIFO queues lending to each other, a backlog that mostly cannot fit: big
    heads refused, small ones deep in the queue admitted between refusals."""
    sizes = [("6", 200)] * 5 + [("3", 100)] * 8 + [("1", 50)] * 20
    return [
        flavor("default"),
        cluster_queue("a", {"default": quota("4", borrowing="4")}, cohort="c"),
        cluster_queue("b", {"default": quota("4", borrowing="4")}, cohort="c"),
        local_queue("a", "a"),
        local_queue("b", "b"),
        workload("a-running", "3", queue="a", priority=10, admitted=("a", "default")),
        *_backlog("a", sizes),
        *_backlog("b", sizes[::2], start=7),
    ]


def _strict_fifo() -> list[Json]:
    """A StrictFIFO head that cannot fit blocks its queue; a BestEffortFIFO queue beside it
    keeps refusing and admitting."""
    return [
        flavor("default"),
        cluster_queue("s", {"default": quota("2")}, cohort="c", strategy="StrictFIFO"),
        cluster_queue("b", {"default": quota("3")}, cohort="c"),
        local_queue("s", "s"),
        local_queue("b", "b"),
        *_backlog("s", [("1", 5), ("8", 4), ("1", 3), ("1", 2)]),
        *_backlog("b", [("9", 9)] * 6 + [("1", 1)] * 4, start=10),
    ]


def _strict_alone() -> list[Json]:
    """A blocked StrictFIFO queue alone: one cycle blocks it, however long its backlog."""
    return [
        flavor("default"),
        cluster_queue("s", {"default": quota("2")}, strategy="StrictFIFO"),
        local_queue("s", "s"),
        *_backlog("s", [("1", 5), ("8", 4), ("8", 3), ("1", 2)]),
    ]


def _preemption() -> list[Json]:
    """Higher priorities preempt lower ones in their queue; the rest wait behind quota."""
    return [
        flavor("default"),
        cluster_queue("p", {"default": quota("4")}, cohort="c", within="LowerPriority"),
        cluster_queue("q", {"default": quota("4")}, cohort="c", reclaim="Any"),
        local_queue("p", "p"),
        local_queue("q", "q"),
        workload("p-low-0", "2", queue="p", priority=1, admitted=("p", "default")),
        workload("p-low-1", "2", queue="p", priority=1, admitted=("p", "default"), minute=1),
        workload("q-borrow", "2", queue="q", priority=1, admitted=("p", "default"), minute=2),
        *_backlog("p", [("2", 9)] * 3 + [("1", 0)] * 12, start=3),
        *_backlog("q", [("5", 3)] * 4 + [("1", 0)] * 6, start=20),
    ]


def _unreclaimable() -> list[Json]:
    """A queue that may not reclaim what it lends reserves quota for the cycle when it must
    preempt (Kueue's reserveCapacityForUnreclaimablePreempt): not a quiet refusal."""
    return [
        flavor("default"),
        cluster_queue("n", {"default": quota("4")}, cohort="c", within="LowerPriority"),
        cluster_queue("o", {"default": quota("4", borrowing="4")}, cohort="c"),
        local_queue("n", "n"),
        local_queue("o", "o"),
        workload("n-low", "3", queue="n", priority=1, admitted=("n", "default")),
        workload("o-big", "4", queue="o", priority=1, admitted=("o", "default"), minute=1),
        *_backlog("n", [("4", 1)] * 3 + [("1", 0)] * 5, start=2),
        *_backlog("o", [("3", 2)] * 5, start=12),
    ]


def _held_for_the_cycle() -> list[Json]:
    """A head that must preempt and finds nothing holds its queue's lent quota for the cycle,
    so a borrowing head after it in the same cycle no longer fits; the cycles after it, in
    which every head is refused, run in one go."""
    return [
        flavor("default"),
        cluster_queue("n", {"default": quota("4")}, cohort="c", within="LowerPriority"),
        cluster_queue("o", {"default": quota("2", borrowing="4")}, cohort="c"),
        local_queue("n", "n"),
        local_queue("o", "o"),
        workload("o-borrowing", "4", queue="o", priority=1, admitted=("o", "default")),
        *_backlog("n", [("3", 1)] * 4, start=2),
        *_backlog("o", [("1", 0)] + [("5", 0)] * 4, start=12),
    ]


def _namespaces() -> list[Json]:
    """Workloads from a namespace the queue does not select are set aside, even in a
    StrictFIFO queue."""
    selector = {"matchLabels": {"team": "x"}}
    return [
        flavor("default"),
        namespace("default", team="x"),
        namespace("other", team="y"),
        cluster_queue("s", {"default": quota("2")}, strategy="StrictFIFO", selector=selector),
        local_queue("s", "s"),
        local_queue("s", "s", namespace="other"),
        *[workload(f"o-{i}", "1", queue="s", namespace="other", minute=i) for i in range(4)],
        *_backlog("s", [("1", 0)] * 3 + [("5", 0)] * 2, start=5),
    ]


SCENARIOS: dict[str, Scenario] = {
    "cohort-backlog": _cohort_backlog,
    "strict-fifo": _strict_fifo,
    "strict-fifo-alone": _strict_alone,
    "preemption": _preemption,
    "unreclaimable-preempt": _unreclaimable,
    "held-for-the-cycle": _held_for_the_cycle,
    "namespace-set-aside": _namespaces,
}


Decided = tuple[dict[str, Any], dict[str, tuple[str, str]], dict[str, str], int]
"""decisions(), pending key → (reason, message), NoFit reasons, cycles."""


def _decide(docs: list[Json], max_cycles: int | None) -> Decided:
    objects = [decode_object(d, document=f"doc {i}") for i, d in enumerate(docs)]
    result: AdmissionResult = admit(objects, NOW, max_cycles=max_cycles)
    pending = {k: (s.reason, s.message) for k, s in sorted(result.pending.items())}
    return result.decisions(), pending, dict(sorted(result.no_fit.items())), result.cycles


@pytest.mark.parametrize("max_cycles", [None, 1, 3], ids=["settled", "one-cycle", "three-cycles"])
@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_quiet_cycles_in_one_go_decide_as_one_by_one(
    scenario: Scenario, max_cycles: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = scenario()
    at_once = _decide(docs, max_cycles)
    monkeypatch.setattr(kueue_cycle, "quiet_cycles", lambda *_args: (0, []))
    one_by_one = _decide(docs, max_cycles)
    assert at_once == one_by_one
    pending = at_once[1]
    assert pending or max_cycles == 1  # workloads are left waiting: quiet cycles happened


def _forty_waiting() -> list[Model]:
    """40 equal workloads waiting for quota held by another."""
    docs = [
        flavor("default"),
        cluster_queue("a", {"default": quota("2")}),
        local_queue("a", "a"),
        workload("a-running", "1", queue="a", admitted=("a", "default")),
        *_backlog("a", [("2", 0)] * 40),
    ]
    return [decode_object(d, document=f"doc {i}") for i, d in enumerate(docs)]


def _count_judgements(patch: pytest.MonkeyPatch) -> list[str]:
    """The keys ``Nominator.judged`` is asked about from now on."""
    calls: list[str] = []
    judged = Nominator.judged

    def counted(self: Any, info: Any, cq: Any) -> Any:
        calls.append(info.key)
        return judged(self, info, cq)

    patch.setattr(Nominator, "judged", counted)
    return calls


def test_quiet_cycles_count_as_the_cycles_they_replace() -> None:
    """40 equal workloads waiting for quota held by another: 40 cycles, each refusing one."""
    result = admit(_forty_waiting(), NOW)
    assert result.cycles == 40
    assert not result.admitted and len(result.pending) == 40
    assert {s.reason for s in result.pending.values()} == {"InsufficientQuota"}


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_runs_of_equivalent_heads_judged_once_decide_as_each_judged(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quiet run judges a run of equivalent heads once (``Nominator.shares``); judging
    each one decides the same, with at least as many judgements."""
    docs = scenario()
    calls = _count_judgements(monkeypatch)
    shared, shared_calls = _decide(docs, None), len(calls)
    calls.clear()
    monkeypatch.setattr(Nominator, "shares", lambda self, cq: False)
    assert _decide(docs, None) == shared
    assert shared_calls <= len(calls)


def test_a_run_of_equivalent_heads_is_judged_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """40 equal workloads waiting behind quota: the quiet run judges the first of them only."""
    objects = _forty_waiting()
    calls = _count_judgements(monkeypatch)
    result = admit(objects, NOW)
    assert len(result.pending) == 40 and result.cycles == 40
    assert len(calls) <= 3, calls  # the head nominated, then one judgement for the run
