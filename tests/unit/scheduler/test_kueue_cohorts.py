"""The cohort tree in Shoal's Kueue core: Cohort objects (v1beta1 and v1beta2) with quota of
their own and a parent, implicit cohorts, cycles, and partial admission through the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.cli.main import main
from tests.unit.scheduler.kueue_builders import (
    Json,
    cluster_queue,
    flavor,
    local_queue,
    quota,
    run,
    summary,
    workload,
)


def cohort(
    name: str, *, parent: str | None = None, cpu: str | None = None, v: str = "v1beta2"
) -> Json:
    spec: Json = {}
    if parent:
        spec["parentName"] = parent
    if cpu:
        spec["resourceGroups"] = [
            {
                "coveredResources": ["cpu"],
                "flavors": [
                    {"name": "default", "resources": [{"name": "cpu", "nominalQuota": cpu}]}
                ],
            }
        ]
    return {
        "apiVersion": f"kueue.x-k8s.io/{v}",
        "kind": "Cohort",
        "metadata": {"name": name},
        "spec": spec,
    }


BASE = [flavor("default"), local_queue("lq", "cq")]


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
def test_a_cohorts_own_quota_is_lent_to_its_subtree(version: str) -> None:
    objects = [
        *BASE,
        cluster_queue("cq", {"default": quota("0")}, cohort="team"),
        cohort("team", parent="org", v=version),
        cohort("org", cpu="4", v=version),
        workload("fits", "3"),
        workload("too-big", "2", minute=1),
    ]
    admitted, pending, _ = summary(run(objects))
    assert admitted == {"default/fits": {"main/cpu": "default"}}
    assert pending == ["default/too-big"]


def test_a_lending_limit_keeps_a_cohorts_quota_from_the_parent() -> None:
    objects = [
        *BASE,
        local_queue("lq-other", "other"),
        cluster_queue("cq", {"default": quota("0")}, cohort="left"),
        cluster_queue("other", {"default": quota("0")}, cohort="right"),
        cohort("left", parent="root"),
        {
            **cohort("right", parent="root"),
            "spec": {
                "parentName": "root",
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu"],
                        "flavors": [
                            {
                                "name": "default",
                                "resources": [
                                    {"name": "cpu", "nominalQuota": "4", "lendingLimit": "1"}
                                ],
                            }
                        ],
                    }
                ],
            },
        },
        workload("borrows-two", "2"),
        workload("own", "3", queue="lq-other"),
    ]
    admitted, pending, _ = summary(run(objects))
    assert sorted(admitted) == ["default/own"]
    assert pending == ["default/borrows-two"]


def test_a_cycle_of_cohorts_makes_its_queues_inactive() -> None:
    objects = [
        *BASE,
        cluster_queue("cq", {"default": quota("4")}, cohort="a"),
        cohort("a", parent="b"),
        cohort("b", parent="a"),
        workload("wl", "1"),
    ]
    result = run(objects)
    assert result.admitted == {}
    assert result.pending["default/wl"].reason == "ClusterQueueInactive"
    assert "cycle" in result.pending["default/wl"].message


def test_partial_admission_admits_the_largest_count_that_fits() -> None:
    wl = workload("partial", "1", count=6)
    wl["spec"]["podSets"][0]["minCount"] = 2
    result = run([*BASE, cluster_queue("cq", {"default": quota("4")}), wl])
    assert result.admitted["default/partial"].podsets["main"].count == 4


V1BETA2 = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: org}
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: "4"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: team}
spec: {parentName: org}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  cohortName: team
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: "1"}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: lq, namespace: default}
spec: {clusterQueue: cq}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: wl, namespace: default}
spec:
  queueName: lq
  podSets:
  - name: main
    count: 6
    minCount: 2
    template:
      spec:
        containers:
        - name: c
          resources: {requests: {cpu: "1"}}
"""


def test_simulate_admit_reads_v1beta2_cohorts_and_min_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cohort.yaml"
    path.write_text(V1BETA2)
    assert main(["simulate", "admit", "-f", str(path), "-o", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # 1 cpu of the queue's own and 4 of the parent Cohort's: 5 of the 6 pods (minCount 2).
    assert out["admitted"]["default/wl"]["podSets"]["main"]["count"] == 5


def test_a_bad_cohort_quota_exits_2_naming_the_cohort(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cohort.yaml"
    path.write_text(V1BETA2.replace('nominalQuota: "4"', "nominalQuota: 4x"))
    assert main(["simulate", "admit", "-f", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Cohort org" in err and "nominalQuota" in err


def test_a_stopped_queue_still_lends_its_unused_quota() -> None:
    stopped = cluster_queue("stopped", {"default": quota("4")}, cohort="team")
    stopped["spec"]["stopPolicy"] = "Hold"
    objects = [
        *BASE,
        cluster_queue("cq", {"default": quota("0")}, cohort="team"),
        stopped,
        workload("held", "2", admitted=("stopped", "default")),
        workload("borrows", "2", minute=1),
        workload("too-much", "1", minute=2),
    ]
    admitted, pending, _ = summary(run(objects))
    assert admitted == {"default/borrows": {"main/cpu": "default"}}
    assert pending == ["default/too-much"]
