"""explain: per-plugin verdicts and per-task node histograms survive to the result, and
``shoal explain`` shows them for manifests and for a recorded cycle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from services.cli.debug.explain import as_dict, explain, render
from services.cli.debug.logfile import write_records
from services.cli.main import main
from services.scheduler.result import JobReasons, SessionResult
from shared.errors import UserError
from shared.models import Model
from tests.unit.scheduler.builders import group, node, pod, queue, schedule
from tests.unit.scheduler.state_records import manifest, recorded_log


def test_explain_lists_each_plugin_and_node_reason() -> None:
    result = schedule(
        [
            node("n1", "2"),
            node("n2", "8", taints=[{"key": "gpu", "effect": "NoSchedule"}]),
            queue("q", capability={"cpu": "1"}),
            group("capped", 1, queue="q", phase="Pending", minResources={"cpu": "4"}),
            pod("c0", "capped", "4"),
            group("big"),
            pod("b0", "big", "4"),
        ]
    )
    big = explain(result, "default/big")
    fit = big.tasks["default/b0"]
    reasons = {c.status.reason: c.nodes for c in fit.histogram}
    assert reasons == {"InsufficientResource": 1, "TaintNotTolerated": 1}
    capped = explain(result, "default/capped")
    assert [s.reason for s in capped.plugins["proportion"]] == ["QueueCapacityExceeded"]
    assert capped.phase == "Pending"
    text = render(big)
    assert "insufficient cpu (need 4, max free 2)" in text
    assert as_dict(capped)["plugins"]["proportion"][0]["plugin"] == "proportion"
    with pytest.raises(UserError, match="not in the session"):
        explain(result, "default/nope")


# --- shoal explain -------------------------------------------------------------------------

GPU = {"nvidia.com/gpu": "8"}
CLUSTER: list[Model] = [
    node("cpu-1", "8"),
    node("cpu-2", "8"),
    node(
        "gpu-1", "8", resources=GPU, taints=[{"key": "gpu", "value": "x", "effect": "NoSchedule"}]
    ),
    queue("default"),
    queue("small", capability={"cpu": "1"}),
    group("train", 2),
    *(pod(f"train-{i}", "train", "1", resources={"nvidia.com/gpu": "4"}) for i in range(2)),
    group("capped", 1, queue="small", phase="Pending", minResources={"cpu": "4"}),
    pod("capped-0", "capped", "4"),
]
TRAIN_TEXT = (
    "job default/train (queue default): Inqueue",
    "Unschedulable=True NotEnoughResources: 2/2 tasks in gang unschedulable",
    "task default/train-0: 0/3 nodes fit",
    "2 nodes: insufficient nvidia.com/gpu (need 4, max free 0)  [resources InsufficientResource]",
    "1 node: taint {gpu=x: NoSchedule} not tolerated  [predicates TaintNotTolerated]",
)


def _manifests(tmp_path: Path) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump_all([manifest(obj) for obj in CLUSTER]))
    return path


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        ("default/train", TRAIN_TEXT),
        ("default/capped", ("[proportion] QueueCapacityExceeded", "job default/capped")),
    ],
    ids=["gang-short-of-gpus", "queue-capacity"],
)
def test_cli_explains_from_manifests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], job: str, expected: tuple[str, ...]
) -> None:
    argv = ["explain", "-f", str(_manifests(tmp_path)), job, "--now", "2024-01-01T00:00:00Z"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    for line in expected:
        assert line in out


def test_cli_json_has_histogram_and_condition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", "-f", str(_manifests(tmp_path)), "default/train", "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    histogram = doc["tasks"]["default/train-0"]["histogram"]
    assert [(h["status"]["plugin"], h["nodes"]) for h in histogram] == [
        ("resources", 2),
        ("predicates", 1),
    ]
    assert [(c["type"], c["reason"]) for c in doc["conditions"]] == [
        ("Unschedulable", "NotEnoughResources")
    ]


async def test_cli_explains_a_recorded_cycle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = await recorded_log([CLUSTER], prefix="explain.")
    path = tmp_path / "log.jsonl"
    with path.open("wb") as log:
        write_records(log, records)
    argv = ["explain", "--file", str(path), "--topic-prefix", "explain.", "default/train"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "\ncycle 1 (record 0, producer " in "\n" + out
    for line in TRAIN_TEXT:
        assert line in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train"], "give the job as NAMESPACE/PODGROUP"),
        (["default/nope"], "job 'default/nope' was not in the session"),
        (["default/train", "--file", "log.jsonl"], "not both"),
    ],
    ids=["no-namespace", "unknown-job", "manifests-and-log"],
)
def test_cli_bad_input_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main(["explain", "-f", str(_manifests(tmp_path)), *args]) == 2
    assert message in capsys.readouterr().err


def test_cli_needs_a_source(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KAFKA_BOOTSTRAP", raising=False)
    assert main(["explain", "default/train"]) == 2
    assert "give -f FILE" in capsys.readouterr().err


def test_a_volcano_job_is_found_by_its_own_name() -> None:
    """`shoal explain ns/<job>` finds the PodGroup Volcano names `<job>-<uid>`."""
    key = "default/train-0b8f6c52-3a1e-4c9e-9f1d-2b7d5c0e8a11"
    reasons = JobReasons(job=key, queue="default", phase="Pending")
    result = SessionResult(reasons={key: reasons, "default/other": reasons})
    assert explain(result, "default/train") is reasons
    with pytest.raises(UserError, match="was not in the session"):
        explain(result, "default/tra")
