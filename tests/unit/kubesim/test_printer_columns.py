"""Table cells: the JSONPath subset of CRD printer columns, and the batch Job printer."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim import jsonpath, tables
from services.kubesim.registry import Registry

Obj = dict[str, Any]
OBJ: Obj = {
    "metadata": {"name": "x"},
    "status": {
        "conditions": [
            {"type": "QuotaReserved", "status": "True"},
            {"type": "Admitted", "status": "False"},
        ],
        "running": 2,
    },
}


@pytest.mark.parametrize(
    ("path", "found"),
    [
        (".status.running", [2]),
        (".status.missing", []),
        (".status.conditions[-1:].type", ["Admitted"]),
        (".status.conditions[0].status", ["True"]),
        (".status.conditions[*].type", ["QuotaReserved", "Admitted"]),
        (".status.conditions[?(@.type=='Admitted')].status", ["False"]),
        ('.status.conditions[?(@.type!="Admitted")].type', ["QuotaReserved"]),
        ("{.metadata.name}", ["x"]),
    ],
    ids=["key", "missing-key", "last-slice", "index", "star", "filter", "filter-not-equal",
         "braces"],
)  # fmt: skip
def test_jsonpath_find(path: str, found: list[Any]) -> None:
    assert jsonpath.find(OBJ, path) == found


def test_unsupported_jsonpath_is_an_error() -> None:
    with pytest.raises(jsonpath.JsonPathError):
        jsonpath.parse(".a..b")


JOBS = Registry().lookup("batch", "v1", "jobs")


@pytest.mark.parametrize(
    ("spec", "status", "meta", "cells"),
    [
        ({"completions": 3}, {"succeeded": 1}, {}, ["Running", "1/3", ""]),
        ({"parallelism": 4}, {}, {}, ["Running", "0/1 of 4", ""]),
        ({"parallelism": 1}, {"succeeded": 1}, {}, ["Running", "1/1", ""]),
        ({"completions": 1}, {"conditions": [{"type": "Complete", "status": "True"}],
         "startTime": "2024-01-01T00:00:00Z", "completionTime": "2024-01-01T00:05:00Z"}, {},
         ["Complete", "0/1", "5m"]),
        ({"completions": 1}, {"conditions": [{"type": "Failed", "status": "True"}]}, {},
         ["Failed", "0/1", ""]),
        ({"completions": 1}, {}, {"deletionTimestamp": "2024-01-01T00:00:00Z"},
         ["Terminating", "0/1", ""]),
        ({"completions": 1}, {"conditions": [{"type": "Suspended", "status": "True"}]}, {},
         ["Suspended", "0/1", ""]),
        ({"completions": 1}, {"conditions": [{"type": "FailureTarget", "status": "True"}]}, {},
         ["FailureTarget", "0/1", ""]),
    ],
    ids=["running", "parallel-no-completions", "parallelism-one", "complete-duration", "failed",
         "terminating", "suspended", "failure-target"],
)  # fmt: skip
def test_job_printer(spec: Obj, status: Obj, meta: Obj, cells: list[str]) -> None:
    assert JOBS is not None
    job = {"metadata": {"name": "j", **meta}, "spec": spec, "status": status}
    row = tables.table(JOBS, [job], "1", 0.0)["rows"][0]["cells"]
    assert row[1:4] == cells
