"""Bad input: invalid confs fail loudly; bad objects are contained to their own job."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from services.cli.main import main
from services.scheduler.actions import default_actions
from services.scheduler.framework.loading import load_conf
from services.scheduler.framework.points import ExtensionPoints
from services.scheduler.framework.registry import Registry
from services.scheduler.plugins import default_plugins, priority
from shared.errors import UserError
from shared.models import Pod
from tests.unit.scheduler.builders import group, node, pod, schedule

DATA = Path(__file__).parents[2] / "data" / "scheduler"


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('actions: "enqueue, alocate"\ntiers: []', "unknown action 'alocate'"),
        ('actions: "allocate"\ntiers: [{plugins: [{name: gangg}]}]', "unknown plugin 'gangg'"),
        (
            'actions: "allocate"\ntiers: [{plugins: [{name: gang, enableJobReady: maybe}]}]',
            "expected true or false",
        ),
        ('actions: "allocate"\ntiers: [{plugins: [{name: gang}, {name: gang}]}]', "twice"),
        ("actions: [allocate]", "field actions"),
    ],
    ids=[
        "unknown-action",
        "unknown-plugin",
        "flag-not-bool",
        "duplicate-plugin",
        "actions-not-string",
    ],
)
def test_invalid_conf_names_the_culprit(text: str, needle: str) -> None:
    with pytest.raises(UserError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        load_conf(text, plugins=default_plugins(), actions=default_actions())


def test_unknown_plugin_argument_is_a_warning_naming_the_closest() -> None:
    """Volcano's plugins ignore arguments they do not read; Shoal warns and goes on."""
    text = (
        'actions: "allocate"\n'
        "tiers: [{plugins: [{name: nodeorder, arguments: {leastrequested.wieght: 2}}]}]"
    )
    conf = load_conf(text, plugins=default_plugins(), actions=default_actions())
    assert conf.warnings == (
        "tiers[0].plugins[0] (nodeorder): unknown argument 'leastrequested.wieght' is ignored"
        " (did you mean 'leastrequested.weight'?)",
    )


@pytest.mark.parametrize(
    ("arguments", "warning"),
    [
        (
            "{binpack.weight: heavy}",
            "could not parse argument 'heavy' for key 'binpack.weight' to int: "
            "the default 1 is kept",
        ),
        (
            "{binpack.weight: 2.5}",
            "could not parse argument 2.5 for key 'binpack.weight' to int: the default 1 is kept",
        ),
    ],
    ids=["string-for-int", "float-for-int"],
)
def test_argument_of_the_wrong_type_keeps_its_default(arguments: str, warning: str) -> None:
    """Volcano's ``Arguments.GetInt`` logs and keeps the default: the conf still runs."""
    text = f'actions: "allocate"\ntiers: [{{plugins: [{{name: binpack, arguments: {arguments}}}]}}]'
    conf = load_conf(text, plugins=default_plugins(), actions=default_actions())
    assert conf.warnings == (f"tiers[0].plugins[0] (binpack): {warning}",)


@pytest.mark.parametrize(
    ("action", "arguments", "warning"),
    [
        (
            "preempt",
            "{enableTopologyAwarePreemption: maybe}",
            "could not parse argument 'maybe' for key 'enableTopologyAwarePreemption' to bool: "
            "the default False is kept",
        ),
        (
            "preempt",
            "{enableTopologyAwarePreemption: true, minCandidateNodesAbsolute: 2.5}",
            "could not parse argument 2.5 for key 'minCandidateNodesAbsolute' to int: "
            "the default 1 is kept",
        ),
        (
            "gangpreempt",
            "{maxDomains: many}",
            "could not parse argument 'many' for key 'maxDomains' to int: the default 8 is kept",
        ),
    ],
    ids=["preempt-string-for-bool", "preempt-float-for-int", "gangpreempt-string-for-int"],
)
def test_action_argument_of_the_wrong_type_warns_as_a_plugin_argument_does(
    action: str, arguments: str, warning: str
) -> None:
    """Actions and plugins read arguments with one ``framework.Arguments``: a value of the
    wrong type keeps the default with a warning, never silently."""
    text = (
        f'actions: "{action}"\ntiers: [{{plugins: [{{name: gang}}]}}]\n'
        f"configurations: [{{name: {action}, arguments: {arguments}}}]"
    )
    conf = load_conf(text, plugins=default_plugins(), actions=default_actions())
    assert conf.warnings == (f"configurations ({action}): {warning}",)


def test_registry_refuses_duplicates() -> None:
    registry = default_plugins()
    with pytest.raises(ValueError, match="already registered"):
        registry.register(priority.NAME, priority.new)
    empty: Registry[object] = Registry("plugin")
    with pytest.raises(UserError, match="unknown plugin"):
        empty.get("gang")


def test_extension_point_refuses_a_second_callback_of_one_plugin() -> None:
    points = ExtensionPoints()
    points.job_order.add("priority", lambda job: 0.0)
    with pytest.raises(ValueError, match="registered job_order twice"):
        points.job_order.add("priority", lambda job: 1.0)


def test_bad_quantity_marks_only_its_job() -> None:
    bad = msgspec.convert(
        msgspec.to_builtins(pod("bad-0", "bad"))
        | {
            "spec": {
                "schedulerName": "volcano",
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "lots"}}}],
            }
        },
        Pod,
    )
    result = schedule([node("n1"), group("bad"), bad, group("good"), pod("good-0", "good")])
    assert result.binds == {"default/good-0": "n1"}
    condition = result.pod_groups["default/bad"].conditions[0]
    assert (condition.type, condition.reason) == ("Unschedulable", "InvalidQuantity")
    assert "lots" in (condition.message or "")


def test_missing_queue_is_a_condition_not_a_crash() -> None:
    result = schedule(
        [node("n1"), group("lost", queue="nowhere"), pod("l0", "lost"), group("ok"), pod("o", "ok")]
    )
    assert result.binds == {"default/o": "n1"}
    condition = result.pod_groups["default/lost"].conditions[0]
    assert condition.reason == "QueueNotFound"
    assert "nowhere" in (condition.message or "")


def test_a_scheduling_gated_pod_is_left_out_until_ungated() -> None:
    gate = [{"name": "kueue.x-k8s.io/admission"}]
    result = schedule(
        [node("n1"), group("g"), pod("gated", "g", schedulingGates=gate), group("o"), pod("o", "o")]
    )
    assert result.binds == {"default/o": "n1"}
    assert result.skipped["default/gated"] == "scheduling gated: kueue.x-k8s.io/admission"
    assert schedule([node("n1"), group("g"), pod("gated", "g")]).binds == {"default/gated": "n1"}


def test_pods_without_podgroup_are_skipped_with_reason() -> None:
    result = schedule([node("n1"), pod("orphan", "missing")])
    assert result.binds == {}
    assert "not found" in result.skipped["default/orphan"]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
            "  - name: c\n    resources: {requests: {cpu: lots}}\n",
            "requests.cpu",
        ),
        ("apiVersion: v1\nkind: Gizmo\nmetadata: {name: g}\n", "unknown kind"),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: volcano-scheduler-configmap}\n"
            'data:\n  volcano-scheduler.conf: |\n    actions: "allocate, teleport"\n',
            "unknown action 'teleport'",
        ),
    ],
    ids=["invalid-quantity", "unknown-kind", "invalid-conf"],
)
def test_simulate_bad_input_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, needle: str
) -> None:
    path = tmp_path / "in.yaml"
    path.write_text(body)
    assert main(["simulate", "schedule", "-f", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert needle in err
    assert str(path) in err
