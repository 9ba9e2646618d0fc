"""``shoal simulate reconcile`` end to end through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.cli.debug import simulate_reconcile as simulate
from services.cli.main import main
from services.jobcontroller.kinds import RECONCILERS

DATA = Path(__file__).parents[2] / "data" / "jobcontroller"
NOW = "2024-05-01T12:00:00Z"


def run_cli(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = main(
        [
            "simulate",
            "reconcile",
            "-f",
            str(DATA / "batch-jobs.yaml"),
            "-o",
            "json",
            "--now",
            NOW,
            *extra,
        ]
    )
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_reconcile_batch_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys)
    assert code == 0
    result = json.loads(out)
    assert list(result) == ["ml/train", "ml/etl"]
    train = result["ml/train"]
    assert train["kind"] == "Job" and train["deleted"] == []
    (created,) = train["created"]
    assert created["metadata"]["name"].startswith("train-2-")
    assert created["metadata"]["annotations"] == {"batch.kubernetes.io/job-completion-index": "2"}
    assert created["spec"]["hostname"] == "train-2"
    assert train["status"]["completedIndexes"] == "0"
    assert (train["status"]["active"], train["status"]["ready"]) == (2, 1)
    etl = result["ml/etl"]
    # The failed pod is counted; its replacement waits for the 10 s back-off (failed 5 s ago);
    # the orphan is adopted and counts as active.
    assert etl["created"] == [] and etl["requeueAfter"] == 5.0
    assert (etl["status"]["active"], etl["status"]["failed"]) == (1, 1)
    assert [p["key"] for p in etl["patched"]] == ["ml/etl-orphan", "ml/etl-x1b2c"]


def test_simulate_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    first = run_cli(capsys)[1]
    assert run_cli(capsys)[1] == first


def test_pending_creations_hold_back_creation(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--pending-creations", "1")
    assert code == 0
    train = json.loads(out)["ml/train"]
    assert train["created"] == [] and train["status"]["completedIndexes"] == "0"


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ("apiVersion: v1\nkind: Gadget\nmetadata: {name: g}\n", "unknown kind v1/Gadget"),
        (
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n"
            "    spec:\n      containers:\n        - name: c\n          resources:\n"
            "            requests: {cpu: lots}\n",
            "cpu",
        ),
        (
            "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n"
            "  completionMode: Indexed\n",
            "spec.completions",
        ),
    ],
    ids=["unknown-kind", "invalid-quantity", "missing-completions"],
)
def test_bad_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], manifest: str, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(manifest)
    code = main(["simulate", "reconcile", "-f", str(path), "--now", NOW])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1


def test_unavailable_kind_is_an_error_entry() -> None:
    text = (DATA / "batch-jobs.yaml").read_text()
    table = {key: r for key, r in RECONCILERS.items() if key != ("batch/v1", "Job")}
    result, errors = simulate.simulate(text, now=0.0, table=table)
    assert result["ml/train"]["error"].startswith("reconcile for batch/v1 Job is not available")
    assert len(errors) == 2


PLAIN_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: etl-abcde
  namespace: ml
  uid: pod-uid-1
  annotations: {scheduling.volcano.sh/queue-name: etl-q}
spec:
  schedulerName: volcano
  containers: [{name: etl, resources: {requests: {cpu: "1"}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: ml, uid: pod-uid-2}
spec: {containers: [{name: web}]}
"""


def test_plain_pods_get_their_podgroup_as_actions() -> None:
    result, errors = simulate.simulate(PLAIN_POD, now=0.0)
    assert errors == []
    # Only the pod for Shoal's scheduler gets an entry; the default scheduler's is left alone.
    assert list(result) == ["ml/etl-abcde"]
    entry = result["ml/etl-abcde"]
    assert entry["kind"] == "Pod" and "status" not in entry and entry["deleted"] == []
    (podgroup,) = entry["created"]
    assert podgroup["kind"] == "PodGroup"
    assert podgroup["metadata"]["name"] == "podgroup-pod-uid-1"
    assert podgroup["spec"] == {"minMember": 1, "queue": "etl-q", "minResources": {"cpu": "1"}}
    annotate = {"metadata": {"annotations": {"scheduling.k8s.io/group-name": "podgroup-pod-uid-1"}}}
    assert entry["patched"] == [
        {"kind": "Pod", "key": "ml/etl-abcde", "type": "merge", "patch": annotate}
    ]
