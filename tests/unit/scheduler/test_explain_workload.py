"""``shoal explain -f FILE ns/workload``: a Kueue Workload admitted, pending and why, preempted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from services.cli.debug.logfile import write_records
from services.cli.main import main
from shared.models import decode_object
from tests.unit.scheduler.kueue_builders import cluster_queue, flavor, local_queue, quota, workload
from tests.unit.scheduler.state_records import recorded_log


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


@pytest.mark.parametrize(
    ("name", "reason", "verdict", "message"),
    [
        (
            "default/urgent",
            "WaitingForPreemptedWorkloads",
            "PendingPreemption",
            "Pending the preemption of 1 workload(s)",
        ),
        (
            "default/huge",
            "ExceedsMaxQuota",
            "ExceedsMaxQuota",
            "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor "
            "default, previously considered podsets requests (0) + current podset request (5) "
            "> maximum capacity (2)",
        ),
        (
            "default/lost",
            "Misconfigured",
            "LocalQueueNotFound",
            "LocalQueue default/nowhere doesn't exist",
        ),
    ],
    ids=["waiting-for-preempted-workloads", "exceeds-max-quota", "misconfigured"],
)
def test_json_names_kueues_pending_reason(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    reason: str,
    verdict: str,
    message: str,
) -> None:
    """The reason is the one Kueue's ``QuotaReserved=False`` condition carries (the live
    scheduler writes the same); the admission core's own verdict is kept beside it."""
    path = _manifests(tmp_path)
    with path.open("a") as extra:
        extra.write("---\n" + yaml.safe_dump(workload("lost", "1", queue="nowhere")))
    assert main(["explain", "-f", str(path), name, "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["state"], doc["reason"], doc["verdict"]) == ("Pending", reason, verdict)
    assert message in doc["message"]


def test_text_shows_the_condition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "-f", str(_manifests(tmp_path)), "default/huge"]) == 0
    out = capsys.readouterr().out
    assert "  QuotaReserved=False ExceedsMaxQuota: couldn't assign flavors" in out
    assert "  [admission ExceedsMaxQuota]" in out


async def test_explains_a_workload_of_a_recorded_cycle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """From the log (``--file``, as from ``--bootstrap``): the Kueue objects the recorded
    cycle's scheduler had, run through the live admission."""
    docs = yaml.safe_load_all(_manifests(tmp_path).read_text())
    objects = [decode_object(d, document="test") for d in docs]
    records = await recorded_log([objects], prefix="explainwl.")
    path = tmp_path / "log.jsonl"
    with path.open("wb") as log:
        write_records(log, records)
    capsys.readouterr()  # the service's own log lines
    argv = ["explain", "--file", str(path), "--topic-prefix", "explainwl."]
    assert main([*argv, "default/huge", "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["source"].startswith("cycle 1 ")
    assert (doc["state"], doc["reason"]) == ("Pending", "ExceedsMaxQuota")
    assert main([*argv, "default/solo"]) == 0
    assert "pod set main: 1 pods on cpu=default" in capsys.readouterr().out


def test_fair_sharing_from_the_environment_reaches_explain(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``shoal explain`` admits as the scheduler would with the same settings: a queue of no
    quota may reclaim a borrower's share only with Kueue's fair sharing on."""
    docs = [
        flavor("default"),
        cluster_queue("pool", {"default": quota("2")}, cohort="fs"),
        cluster_queue("a", {"default": quota("0")}, cohort="fs", reclaim="Any"),
        cluster_queue("b", {"default": quota("0")}, cohort="fs", reclaim="Any"),
        local_queue("a", "a"),
        local_queue("b", "b"),
        workload("a1", "1", queue="a", admitted=("a", "default")),
        workload("a2", "1", queue="a", minute=1, admitted=("a", "default")),
        workload("b1", "1", queue="b", minute=5),
    ]
    path = tmp_path / "fs.yaml"
    path.write_text(yaml.safe_dump_all(docs))
    argv = ["explain", "-f", str(path), "default/b1", "-o", "json"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["reason"] == "WaitingForQuota"
    monkeypatch.setenv("SHOAL_SCHEDULER_KUEUE_FAIR_SHARING", "true")
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["reason"] == "WaitingForPreemptedWorkloads"
