"""Ported from volcano pkg/webhooks/admission/jobs/validate/util_test.go (``TestTopoSort``)."""

from __future__ import annotations

import pytest

from services.webhook.core.volcano_topology import topo_sort


def tasks(*deps: tuple[str, list[str] | None]) -> list[dict[str, object]]:
    return [
        {"name": name, **({"dependsOn": {"name": on}} if on is not None else {})}
        for name, on in deps
    ]


@pytest.mark.parametrize(
    ("job_tasks", "ordered"),
    [
        (tasks(("t1", ["t2", "t3"]), ("t2", ["t3"]), ("t3", [])), ["t3", "t2", "t1"]),
        (tasks(("t1", ["t2"]), ("t2", ["t1"]), ("t3", None)), None),
        (tasks(("t1", ["t2", "t3"]), ("t2", ["t2"]), ("t3", None)), None),
        (tasks(("t1", ["t2", "t3"]), ("t2", None), ("t3", ["t2"])), ["t2", "t3", "t1"]),
    ],
    ids=["test-1", "test-2", "test-3", "test-4"],
)
def test_topo_sort(job_tasks: list[dict[str, object]], ordered: list[str] | None) -> None:
    assert topo_sort(job_tasks) == ordered
