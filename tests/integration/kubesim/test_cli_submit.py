"""``shoal submit`` against kubesim: create, then apply again; generateName manifests.

An existing object is merge-patched with the manifest, as ``kubectl apply`` changes it: an
unchanged batch/v1 Job (whose selector and template labels the API server generated) is
"unchanged", a changed Queue "configured"."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from kubernetes_asyncio import client

from services.cli.main import main
from services.kubesim.app import KubeSim

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  {name}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{{name: c, image: busybox}}]
"""
QUEUE = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata:
  {name}
spec:
  weight: 2
"""


@pytest.mark.parametrize(
    ("template", "name", "first", "second"),
    [
        (QUEUE, "name: fixed", ["queue/fixed created"], ["queue/fixed unchanged"]),
        (JOB, "name: pi", ["job/pi created"], ["job/pi unchanged"]),
        (JOB, "generateName: gen-", ["job/gen-"], ["job/gen-"]),
    ],
    ids=["queue-named-twice", "batch-job-named-twice", "generate-name-creates-each-time"],
)
async def test_submit(
    sim: KubeSim,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    template: str,
    name: str,
    first: list[str],
    second: list[str],
) -> None:
    manifest = tmp_path / "job.yaml"
    manifest.write_text(template.format(name=name))
    argv = ["submit", "-f", str(manifest), "--kubeconfig", str(sim.kubeconfig_path)]
    outputs = []
    for _ in range(2):
        code = await _in_thread(argv)
        assert code == 0
        outputs.append(capsys.readouterr().out.strip().splitlines())
    for expected, lines in zip((first, second), outputs, strict=True):
        assert len(lines) == 1 and lines[0].startswith(expected[0]), lines
    if name.startswith("generateName"):
        assert outputs[0][0] != outputs[1][0]  # two Jobs, each with its generated name
        assert outputs[0][0].endswith(" created") and outputs[1][0].endswith(" created")


async def _in_thread(argv: list[str]) -> int:
    """The CLI runs its own event loop: call it off this one."""
    return await asyncio.to_thread(main, argv)


async def test_submit_a_changed_manifest_configures_it(
    sim: KubeSim,
    custom: client.CustomObjectsApi,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    manifest = tmp_path / "queue.yaml"
    argv = ["submit", "-f", str(manifest), "--kubeconfig", str(sim.kubeconfig_path)]
    outputs = []
    for weight in (2, 5):
        manifest.write_text(QUEUE.format(name="name: changing").replace("2", str(weight)))
        assert await _in_thread(argv) == 0
        outputs.append(capsys.readouterr().out.strip())
    assert outputs == ["queue/changing created", "queue/changing configured"]
    queue = await custom.get_cluster_custom_object(
        "scheduling.volcano.sh", "v1beta1", "queues", "changing"
    )
    assert queue["spec"]["weight"] == 5
