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

# nodegroup places a queue's pods only on nodes of the groups its affinity names (and, strict
# by default, never on an unlabelled node): its confs run with the user guide's setup, n1 in
# a group the default queue requires.
NODE_GROUP_SETUP = """\
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec:
  weight: 1
  affinity: {nodeGroupAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [groupname1]}}
---
"""


def _objects(conf: str) -> str:
    tiers = yaml.safe_load(conf).get("tiers") or []
    if not any(p.get("name") == "nodegroup" for tier in tiers for p in tier.get("plugins") or []):
        return ONE_POD_JOB
    labelled = "labels: {kubernetes.io/hostname: n1, volcano.sh/nodegroup-name: groupname1}"
    return NODE_GROUP_SETUP + ONE_POD_JOB.replace("labels: {kubernetes.io/hostname: n1}", labelled)


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
    manifest.write_text(_configmap(conf) + "---\n" + _objects(conf))
    code = main(["simulate", "schedule", "-f", str(manifest), "-o", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)["binds"] == {"default/job-0": "n1"}
