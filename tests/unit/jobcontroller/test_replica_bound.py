"""A job asking for more pods than Shoal runs per task is refused by its view, before any
reconcile work that grows with the replicas (issue 15, defect 11: a sync stays bounded)."""

from __future__ import annotations

import msgspec
import pytest

from services.jobcontroller.pytorchjob.spec import pytorch_view
from services.jobcontroller.volcanojob.spec import job_view
from shared.errors import UserError
from shared.models import PyTorchJob, VolcanoJob
from shared.models.volcano import MAX_REPLICAS

TEMPLATE = {"spec": {"containers": [{"name": "c", "image": "x"}]}}


@pytest.mark.parametrize(
    ("replicas", "refused"),
    [(MAX_REPLICAS, False), (MAX_REPLICAS + 1, True), (1_000_000_000, True)],
    ids=["at-the-bound", "one-over", "a-billion"],
)
def test_volcano_task_replicas_bound(replicas: int, refused: bool) -> None:
    job = msgspec.convert(
        {
            "metadata": {"name": "j", "namespace": "ns", "uid": "u"},
            "spec": {"tasks": [{"name": "w", "replicas": replicas, "template": TEMPLATE}]},
        },
        VolcanoJob,
    )
    if refused:
        with pytest.raises(UserError, match=r"spec.tasks\[w\].replicas"):
            job_view(job)
    else:
        assert job_view(job).total_replicas == replicas


def test_pytorch_replicas_bound() -> None:
    job = msgspec.convert(
        {
            "metadata": {"name": "p", "namespace": "ns", "uid": "u"},
            "spec": {
                "pytorchReplicaSpecs": {
                    "Master": {"replicas": 1, "template": TEMPLATE},
                    "Worker": {"replicas": 1_000_000_000, "template": TEMPLATE},
                }
            },
        },
        PyTorchJob,
    )
    with pytest.raises(UserError, match=r"pytorchReplicaSpecs\.Worker\.replicas"):
        pytorch_view(job)
