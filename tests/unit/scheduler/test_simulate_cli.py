"""``shoal simulate schedule`` end to end through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.cli.main import main

DATA = Path(__file__).parents[2] / "data" / "scheduler"


def test_simulate_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "simulate",
        "schedule",
        "-f",
        str(DATA / "gang_gpu.yaml"),
        "--now",
        "2024-01-01T00:00:00Z",
    ]
    assert main([*argv, "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert sorted(doc) == ["binds", "evictions", "pipelined", "podGroups"]
    assert sorted(doc["binds"]) == ["ml/train-0", "ml/train-1"]
    assert doc["evictions"] == [] and doc["pipelined"] == {}
    big = doc["podGroups"]["ml/big"]
    assert big["phase"] == "Inqueue"
    message = big["conditions"][0]["message"]
    assert message.startswith("2/2 tasks in gang unschedulable: ")
    assert "2 nodes insufficient nvidia.com/gpu (need 8, max free 4)" in message
    assert "1 node taint {dedicated=infra: NoSchedule} not tolerated" in message
    assert doc["podGroups"]["ml/train"]["phase"] == "Running"


def test_simulate_uses_configmap_conf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: volcano-scheduler-configmap}\n"
        'data:\n  volcano-scheduler.conf: |\n    actions: "enqueue"\n'
        "    tiers: [{plugins: [{name: gang}]}]\n---\n"
    )
    path = tmp_path / "in.yaml"
    path.write_text(conf + (DATA / "gang_gpu.yaml").read_text())
    assert main(["simulate", "schedule", "-f", str(path), "-o", "text"]) == 0
    out = capsys.readouterr().out
    assert "bind " not in out  # enqueue only: nothing is allocated
    assert "podgroup ml/train: Inqueue" in out
