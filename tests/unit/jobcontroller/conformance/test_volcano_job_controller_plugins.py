"""volcano ``pkg/controllers/job/job_controller_plugins_test.go``, ported through Shoal's pure
reconcile, each row under its upstream name.

Upstream calls ``pluginOnPodCreate``, ``pluginOnJobAdd`` and ``pluginOnJobDelete`` of a fake
controller with the plugins named in ``spec.plugins`` and reads the pod or the fake clients.
Here: pods are what a sync of the admitted job creates (``OnPodCreate``), plugin objects what
the first sync creates (``OnJobAdd``), and their deletion what a ``RestartJob`` kill deletes
(``OnJobDelete`` — upstream's test runs it on a job whose ``controlledResources`` are empty, so
its plugins delete nothing there; here they are recorded, so the deletions are visible). A
plugin Volcano has no builder for (``new``) fails the step with ``failed to get plugin new``:
the sync creates nothing and records a ``PluginError`` Warning; the kill deletes the pods but
writes no status and keeps the PodGroup, as ``killPods`` returns before them.
"""

from __future__ import annotations

import pytest

from tests.unit.jobcontroller.conformance.volcano_controller_cases import (
    NS,
    UID,
    build_pod,
    command,
    deleted,
    job,
    podgroup,
    sync,
    task,
)
from tests.unit.jobcontroller.statusjson import status_json

PLUGIN_ERROR = ("Warning", "PluginError",
                "Execute plugin when job add failed, err: failed to get plugin new")  # fmt: skip


@pytest.mark.parametrize(
    ("plugins", "ok"),
    [
        pytest.param(["env", "svc", "ssh"], True, id="All Plugin"),
        pytest.param(["new"], False, id="Wrong Plugin"),
    ],
)
def test_plugin_on_pod_create(plugins: list[str], ok: bool) -> None:
    vcjob = job("Job1", phase="Running", tasks=[task("task1", 1)], plugins=plugins,
                status={"controlledResources": {f"plugin-{p}": p for p in plugins}})  # fmt: skip
    actions = sync(vcjob, podgroups=[podgroup(f"Job1-{UID}", "Running")])
    pods = [o for o in actions.create if o["kind"] == "Pod"]
    if not ok:
        assert pods == [] and PLUGIN_ERROR in actions.events
        return
    (pod,) = pods
    for container in pod["spec"]["containers"]:
        assert container["env"]  # env
        mounts = [m["name"] for m in container["volumeMounts"]]
        assert "Job1-svc" in mounts and "Job1-ssh" in mounts  # svc, ssh


@pytest.mark.parametrize(
    ("plugins", "ok"),
    [
        pytest.param(["svc", "ssh", "env"], True, id="Plugins"),
        pytest.param(["new"], False, id="Wrong Plugin"),
    ],
)
def test_plugin_on_job_add(plugins: list[str], ok: bool) -> None:
    actions = sync(job("job1", tasks=[task("task1", 1)], plugins=plugins))
    created = {(o["kind"], o["metadata"]["name"]) for o in actions.create}
    if not ok:
        assert created == set() and PLUGIN_ERROR in actions.events
        return
    assert {("ConfigMap", "job1-svc"), ("Service", "job1"), ("Secret", "job1-ssh")} <= created
    assert status_json(actions)["controlledResources"]["plugin-env"] == "env"


@pytest.mark.parametrize(
    ("plugins", "ok"),
    [
        pytest.param(["svc", "ssh", "env"], True, id="Plugins"),
        pytest.param(["new"], False, id="Wrong Plugin"),
    ],
)
def test_plugin_on_job_delete(plugins: list[str], ok: bool) -> None:
    vcjob = job("job1", phase="Running", tasks=[task("task1", 1)], plugins=plugins,
                status={"controlledResources": {f"plugin-{p}": p for p in plugins}})  # fmt: skip
    pod = build_pod("job1-task1-0", "Running", "task1", job_name="job1")
    actions = sync(vcjob, [pod], [podgroup(f"job1-{UID}", "Running")],
                   [command("RestartJob", "job1")])  # fmt: skip
    assert deleted(actions, "Pod") == [f"{NS}/job1-task1-0"]
    if not ok:
        assert deleted(actions, "PodGroup") == []
        assert status_json(actions)["state"]["phase"] == "Running"
        return
    assert deleted(actions, "ConfigMap") == [f"{NS}/job1-svc"]
    assert deleted(actions, "Service") == [f"{NS}/job1"]
    assert deleted(actions, "Secret") == [f"{NS}/job1-ssh"]
    assert status_json(actions).get("controlledResources", {}) == {}
