"""Invariants over random small clusters (hypothesis): capacity, gangs, victims."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.scheduler.result import SessionResult
from shared.models import Model
from tests.unit.scheduler.builders import conf_text, group, node, pod, queue, schedule

CONF = conf_text(
    "enqueue, allocate, preempt, reclaim, backfill",
    ["priority", "gang", "conformance"],
    ["drf", "predicates", "proportion", "nodeorder", "binpack"],
)


@st.composite
def clusters(draw: st.DrawFn) -> tuple[list[Model], dict[str, Any]]:
    n_nodes = draw(st.integers(1, 4))
    capacity = {f"n{i}": draw(st.integers(1, 8)) for i in range(n_nodes)}
    free = dict(capacity)
    objects: list[Model] = [node(name, str(cpu)) for name, cpu in capacity.items()]
    objects += [queue("q1"), queue("q2", weight=draw(st.integers(1, 3)))]
    meta: dict[str, Any] = {"capacity": capacity, "jobs": {}, "pods": {}}
    for j in range(draw(st.integers(1, 5))):
        name = f"j{j}"
        size = draw(st.integers(1, 4))
        minimum = draw(st.integers(1, size))
        prio = draw(st.integers(0, 3))
        q = draw(st.sampled_from(["q1", "q2"]))
        running = draw(st.booleans())
        objects.append(group(name, minimum, queue=q, phase="Running" if running else "Inqueue"))
        meta["jobs"][name] = {"min": minimum, "priority": prio, "queue": q}
        for t in range(size):
            cpu = draw(st.integers(1, 3))
            where = None
            if running:
                where = next((n for n, left in sorted(free.items()) if left >= cpu), None)
                if where is not None:
                    free[where] -= cpu
            key = f"default/{name}-{t}"
            meta["pods"][key] = {"job": name, "cpu": cpu, "node": where}
            objects.append(pod(f"{name}-{t}", name, str(cpu), node=where, priority=prio))
    return objects, meta


def _check(result: SessionResult, meta: dict[str, Any]) -> None:
    pods, jobs = meta["pods"], meta["jobs"]
    used = dict.fromkeys(meta["capacity"], 0)
    for info in pods.values():
        if info["node"] is not None:
            used[info["node"]] += info["cpu"]
    for key, where in result.binds.items():
        assert pods[key]["node"] is None, "bound pods are never re-bound"
        used[where] += pods[key]["cpu"]
    for name, total in used.items():
        assert total <= meta["capacity"][name] * 1, f"node {name} over-committed"

    for job, info in jobs.items():
        new = [k for k in result.binds if pods[k]["job"] == job]
        if new:
            placed = sum(1 for k, p in pods.items() if p["job"] == job and p["node"]) + len(new)
            assert placed >= info["min"], f"gang {job} bound below minMember"

    preemptors = [pods[k]["job"] for k in result.pipelined]
    for victim in result.evictions:
        vjob = jobs[pods[victim]["job"]]
        assert pods[victim]["node"] is not None
        assert any(
            jobs[p]["queue"] != vjob["queue"] or jobs[p]["priority"] > vjob["priority"]
            for p in preemptors
        ), f"{victim} evicted without a higher-priority or other-queue preemptor"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_invariants(case: tuple[list[Model], dict[str, Any]]) -> None:
    objects, meta = case
    result = schedule(objects, CONF)
    _check(result, meta)
    assert schedule(objects, CONF).decisions() == result.decisions()
