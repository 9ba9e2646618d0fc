"""``volcano.sh/preemptable`` as Volcano's ``GetPodPreemptable`` reads it: the annotation,
else the label, parsed with Go's ``strconv.ParseBool`` (an unparsable value is false), and
preemptable when neither is set."""

from __future__ import annotations

import pytest

from tests.unit.scheduler.builders import plugin_option, tiers_conf
from tests.unit.scheduler.conformance.upstream import (
    PREEMPTABLE,
    build_node,
    build_pod,
    build_pod_group,
    build_queue,
    build_resource_list,
    open_session,
)


@pytest.mark.parametrize(
    ("annotations", "labels", "expected"),
    [
        ({}, {}, True),
        ({PREEMPTABLE: "false"}, {}, False),
        ({}, {PREEMPTABLE: "F"}, False),
        ({PREEMPTABLE: "True"}, {PREEMPTABLE: "false"}, True),
        ({PREEMPTABLE: "0"}, {PREEMPTABLE: "true"}, False),
        ({PREEMPTABLE: "yes"}, {}, False),
        ({}, {PREEMPTABLE: " true"}, False),
    ],
    ids=[
        "unset",
        "annotation-false",
        "label-F",
        "annotation-wins-true",
        "annotation-wins-zero",
        "yes-is-not-a-go-bool",
        "spaces-are-not-trimmed",
    ],
)
def test_preemptable(annotations: dict[str, str], labels: dict[str, str], expected: bool) -> None:
    pod = build_pod("ns", "p", "n1", "Running", build_resource_list("1", "1G"), "pg", labels, {})
    pod.metadata.annotations.update(annotations)
    ssn = open_session(
        [
            build_queue("q", 1, None),
            build_node("n1", build_resource_list("4", "4G"), {}),
            build_pod_group("pg", "ns", "q", 1, {}, "Running"),
            pod,
        ],
        tiers_conf("allocate", [[plugin_option("priority")]]),
    )
    [task] = [t for job in ssn.jobs.values() for t in job.tasks.values()]
    assert task.preemptable is expected
