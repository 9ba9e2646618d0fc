"""Kueue's own quick-start with the real kubectl: the v1beta2 setup applies unchanged, the
sample Job is created, and both API versions list the same objects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.kubesim.app import KubeSim
from tests.integration.kubesim.kubesim_helpers import kubectl, needs_kubectl, run_kubectl

UPSTREAM = Path(__file__).resolve().parents[2] / "data" / "upstream" / "kueue"
pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session"), needs_kubectl]


async def test_quick_start_applies_unchanged(sim: KubeSim) -> None:
    setup = str(UPSTREAM / "single-clusterqueue-setup.yaml")
    out = await kubectl(sim, "apply", "-f", setup)
    assert out.split("\n")[:3] == [
        "resourceflavor.kueue.x-k8s.io/default-flavor created",
        "clusterqueue.kueue.x-k8s.io/cluster-queue created",
        "localqueue.kueue.x-k8s.io/user-queue created",
    ]
    again = await kubectl(sim, "apply", "-f", setup)
    assert again.count("unchanged") == 3
    job = await kubectl(sim, "create", "-f", str(UPSTREAM / "sample-job.yaml"))
    assert job.startswith("job.batch/sample-job-") and job.strip().endswith("created")
    cq = json.loads(
        await kubectl(
            sim, "get", "clusterqueues.v1beta1.kueue.x-k8s.io", "cluster-queue", "-o", "json"
        )
    )
    assert cq["apiVersion"] == "kueue.x-k8s.io/v1beta1"
    assert cq["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] == 9


async def test_unknown_version_is_kubernetes_no_matches_error(sim: KubeSim, tmp_path: Path) -> None:
    manifest = tmp_path / "v1alpha9.yaml"
    manifest.write_text(
        "apiVersion: kueue.x-k8s.io/v1alpha9\nkind: ClusterQueue\nmetadata:\n  name: x\n"
    )
    code, _, err = await run_kubectl(sim, "apply", "-f", str(manifest))
    assert code == 1
    assert 'no matches for kind "ClusterQueue" in version "kueue.x-k8s.io/v1alpha9"' in err
