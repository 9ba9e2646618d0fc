"""The placer's caches (refreshed rows, the best row kept across placements, the idle-fit
answer) choose exactly the node a fresh placer, scoring every node anew, chooses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.scheduler.conf import DEFAULT_CONF
from services.scheduler.framework.placement import Placer
from shared.models import Model
from tests.unit.scheduler.builders import conf_text, group, node, pod, session

MOST_REQUESTED = conf_text(
    "enqueue, allocate, backfill",
    ["priority", "gang"],
    [
        "drf",
        "predicates",
        "proportion",
        {"name": "nodeorder", "arguments": {"mostrequested.weight": 3}},
    ],
)


@settings(max_examples=40, deadline=None)
@given(
    nodes=st.lists(
        st.tuples(
            st.integers(1, 16), st.integers(1, 32), st.sampled_from(["", "running", "leaving"])
        ),
        min_size=1,
        max_size=12,
    ),
    tasks=st.lists(
        st.tuples(st.sampled_from([250, 500, 1000, 3000]), st.sampled_from([1, 2, 4])),
        min_size=1,
        max_size=40,
    ),
    conf=st.sampled_from([DEFAULT_CONF, MOST_REQUESTED]),
)
def test_cached_choice_matches_a_fresh_placer(
    nodes: list[tuple[int, int, str]], tasks: list[tuple[int, int]], conf: str
) -> None:
    objects: list[Model] = [
        node(f"n{i:02d}", str(cpu), f"{memory}Gi", labels={"busy": "yes"} if busy else {})
        for i, (cpu, memory, busy) in enumerate(nodes)
    ]
    # Running pods make some nodes' idle smaller from the start; a leaving (terminating) pod
    # frees its resources only in the future, so tasks that fit only there are pipelined.
    objects += [group("running", 1, phase="Running")]
    objects += [
        pod(f"running-{i}", "running", "2", node=f"n{i:02d}", deleting=busy == "leaving")
        for i, (_, _, busy) in enumerate(nodes)
        if busy
    ]
    for j, (cpu, memory) in enumerate(tasks):
        objects += [
            group(f"g{j:02d}"),
            pod(f"g{j:02d}-0", f"g{j:02d}", f"{cpu}m", memory=f"{memory}Gi"),
        ]
    ssn = session(objects, conf)
    cached = Placer(ssn)
    for job_key in sorted(k for k in ssn.jobs if k != "default/running"):
        task = next(iter(ssn.jobs[job_key].tasks.values()))
        row = cached.choose(task)
        assert row == Placer(ssn).choose(task), job_key
        if row < 0:
            continue
        if cached.fits_idle(task, row):
            ssn.apply_allocate(task, row)
        else:
            ssn.apply_pipeline(task, row)
