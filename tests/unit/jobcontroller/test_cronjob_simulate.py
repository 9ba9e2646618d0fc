"""``shoal simulate reconcile`` on CronJobs: one sync at ``--now`` of each CronJob in the file,
with the Jobs in the file it controls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from services.cli.main import main

DATA = Path(__file__).parents[2] / "data" / "jobcontroller" / "cronjobs.yaml"


def simulate(capsys: pytest.CaptureFixture[str], now: str) -> dict[str, Any]:
    code = main(["simulate", "reconcile", "-f", str(DATA), "-o", "json", "--now", now])
    out, err = capsys.readouterr()
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def test_due_time_in_the_cronjob_zone_creates_its_job(capsys: pytest.CaptureFixture[str]) -> None:
    nightly = simulate(capsys, "2024-05-01T00:00:30Z")["ml/nightly"]
    (job,) = nightly["created"]
    meta = job["metadata"]
    assert meta["name"] == "nightly-28575360"  # 2024-05-01T00:00Z in minutes since the epoch
    assert meta["annotations"] == {
        "batch.kubernetes.io/cronjob-scheduled-timestamp": "2024-05-01T02:00:00+02:00"
    }
    assert meta["labels"] == {"kueue.x-k8s.io/queue-name": "user-queue"}
    assert nightly["status"]["lastScheduleTime"] == "2024-05-01T00:00:00Z"
    assert [e["reason"] for e in nightly["events"]] == ["SuccessfulCreate"]
    assert nightly["requeueAfter"] == pytest.approx(24 * 3600 - 30 + 0.1)


def test_forbid_with_a_running_job_skips(capsys: pytest.CaptureFixture[str]) -> None:
    exclusive = simulate(capsys, "2024-05-01T00:00:30Z")["ml/exclusive"]
    assert exclusive["created"] == []
    assert [e["reason"] for e in exclusive["events"]] == ["JobAlreadyActive"]
    assert [r["name"] for r in exclusive["status"]["active"]] == ["exclusive-28575300"]


def test_not_yet_due(capsys: pytest.CaptureFixture[str]) -> None:
    nightly = simulate(capsys, "2024-04-30T23:59:00Z")["ml/nightly"]
    assert nightly["created"] == []
    assert nightly["requeueAfter"] == pytest.approx(60.1)
