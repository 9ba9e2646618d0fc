"""``shoal explain -f FILE ns/workload``: a Kueue Workload admitted, pending and why, preempted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from services.cli.main import main
from tests.unit.scheduler.kueue_builders import cluster_queue, flavor, local_queue, quota, workload


def _manifests(tmp_path: Path) -> Path:
    docs = [
        flavor("default"),
        cluster_queue("cq", {"default": quota("3")}, within="LowerPriority"),
        cluster_queue("other", {"default": quota("2")}),
        local_queue("lq", "cq"),
        local_queue("other", "other"),
        workload("low", "3", minute=0, priority=1, admitted=("cq", "default")),
        workload("urgent", "2", minute=3, priority=100),
        workload("solo", "1", minute=1, queue="other"),
        workload("huge", "5", minute=2, queue="other"),
    ]
    path = tmp_path / "kueue.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    return path


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("default/urgent", "workload default/urgent: Pending"),
        ("default/low", "evicted to make room for default/urgent"),
        ("default/solo", "pod set main: 1 pods on cpu=default"),
        ("default/huge", "workload default/huge: Pending"),
    ],
    ids=["preemptor-waits", "lower-priority-evicted", "admitted", "more-than-the-quota"],
)
def test_explains_a_workload(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, expected: str
) -> None:
    argv = ["explain", "-f", str(_manifests(tmp_path)), name, "--now", "2024-05-01T12:00:00Z"]
    assert main(argv) == 0
    assert expected in capsys.readouterr().out


def test_json_names_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(_manifests(tmp_path))
    assert main(["explain", "-f", path, "default/huge", "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["state"] == "Pending"
    assert doc["reason"] and doc["message"]
