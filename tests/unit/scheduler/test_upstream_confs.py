"""Every ``volcano-scheduler.conf`` of Volcano's installer, ``docs/user-guide`` and
``benchmark/`` (copied from upstream master into tests/data/upstream/volcano/confs, one file per
conf, named after its source) runs in ``shoal simulate schedule`` and places a one-pod job.

Plugins that need inputs Shoal does not simulate (device plugins, node agents, metrics,
HyperNodes, an HTTP extender) are accepted with that part left out (see each plugin module);
an unknown plugin stays an error naming what Shoal has (``test_bad_input``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from services.cli.main import main

CONFS = Path(__file__).parents[2] / "data" / "upstream" / "volcano" / "confs"
ONE_POD_JOB = """\
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}
status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: job, namespace: default}
spec: {minMember: 1, queue: default}
status: {phase: Inqueue}
---
apiVersion: v1
kind: Pod
metadata:
  name: job-0
  namespace: default
  annotations: {scheduling.k8s.io/group-name: job}
spec:
  schedulerName: volcano
  containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]
status: {phase: Pending}
"""


def _configmap(conf: str) -> str:
    doc = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "volcano-scheduler-configmap"},
        "data": {"volcano-scheduler.conf": conf},
    }
    return yaml.safe_dump(doc)


@pytest.mark.parametrize("path", sorted(CONFS.glob("*.conf")), ids=lambda p: p.stem)
def test_upstream_conf_places_a_one_pod_job(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    conf = path.read_text()
    manifest = tmp_path / "in.yaml"
    manifest.write_text(_configmap(conf) + "---\n" + ONE_POD_JOB)
    code = main(["simulate", "schedule", "-f", str(manifest), "-o", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)["binds"] == {"default/job-0": "n1"}
