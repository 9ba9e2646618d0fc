"""``volcano-scheduler.conf`` keys exactly as Volcano reads them.

Keys and defaults from Volcano's ``pkg/scheduler/conf/scheduler_conf.go`` (``PluginOption``) and
``pkg/scheduler/plugins/defaults.go`` (``ApplyPluginConfDefaults``, ported from its
``TestApplyPluginConfDefaults``): a conf that runs on Volcano must run on Shoal; keys Volcano
ignores are warnings naming the closest known key.
"""

from __future__ import annotations

import pytest

from services.scheduler.actions import default_actions
from services.scheduler.conf import FLAGS, SchedulerConf
from services.scheduler.framework.loading import load_conf
from services.scheduler.plugins import default_plugins

# Every PluginOption YAML key in scheduler_conf.go (current master).
VOLCANO_PLUGIN_OPTION_KEYS = [
    "enableJobOrder",
    "enableHierarchy",
    "enableJobReady",
    "enableJobPipelined",
    "enableTaskOrder",
    "enablePreemptable",
    "enableReclaimable",
    "enablePreemptive",
    "enableQueueOrder",
    "enabledClusterOrder",
    "enablePredicate",
    "enableBestNode",
    "enableNodeOrder",
    "enableTargetJob",
    "enableReservedNodes",
    "enableJobEnqueued",
    "enabledVictim",
    "enableJobStarving",
    "enabledOverused",
    "enabledAllocatable",
    "enabledHyperNodeOrder",
    "enabledSubJobReady",
    "enabledSubJobPipelined",
    "enabledSubJobOrder",
    "enabledHyperNodeGradient",
]


def parse(text: str) -> SchedulerConf:
    return load_conf(text, plugins=default_plugins(), actions=default_actions())


def test_shoal_knows_exactly_volcanos_plugin_option_keys() -> None:
    assert sorted(FLAGS) == sorted(VOLCANO_PLUGIN_OPTION_KEYS)


@pytest.mark.parametrize("key", VOLCANO_PLUGIN_OPTION_KEYS)
def test_every_volcano_switch_is_accepted_without_warning(key: str) -> None:
    conf = parse(f'actions: "allocate"\ntiers: [{{plugins: [{{name: gang, {key}: false}}]}}]')
    assert conf.warnings == ()
    assert conf.tiers[0][0].enabled(key) is False


def test_apply_plugin_conf_defaults() -> None:
    # TestApplyPluginConfDefaults: every switch it sets defaults to true; enableHierarchy and
    # enabledClusterOrder are left unset, which isEnabled reads as off.
    option = parse('actions: "allocate"\ntiers: [{plugins: [{name: gang}]}]').tiers[0][0]
    off = {"enableHierarchy", "enabledClusterOrder"}
    assert {key for key in VOLCANO_PLUGIN_OPTION_KEYS if not option.enabled(key)} == off


@pytest.mark.parametrize(
    ("option", "suggestion"),
    [
        ("enableAllocatable", "enabledAllocatable"),
        ("enableOverused", "enabledOverused"),
        ("enableSubJobReady", "enabledSubJobReady"),
        ("enableJobReadyy", "enableJobReady"),
    ],
    ids=["allocatable", "overused", "subjob-ready", "typo"],
)
def test_unknown_switch_is_ignored_with_a_warning(option: str, suggestion: str) -> None:
    conf = parse(f'actions: "allocate"\ntiers: [{{plugins: [{{name: gang, {option}: false}}]}}]')
    assert len(conf.warnings) == 1
    assert f"unknown key {option!r} is ignored (did you mean {suggestion!r}?)" in conf.warnings[0]
    assert conf.tiers[0][0].flags == {}  # ignored, as Volcano's YAML decoding ignores it


def test_unknown_top_level_key_metrics_and_configurations() -> None:
    conf = parse(
        'actions: "enqueue, allocate, preempt"\n'
        "tiers: [{plugins: [{name: gang}]}]\n"
        "configurations:\n"
        "- name: preempt\n"
        "  arguments: {enableTopologyAwarePreemption: true}\n"
        "- name: elect\n"
        "  arguments: {a: 1}\n"
        "metrics: {address: 'http://prometheus:9090', interval: 30s}\n"
        "action: allocate\n"
    )
    assert conf.configurations["preempt"] == {"enableTopologyAwarePreemption": True}
    assert conf.metrics == {"address": "http://prometheus:9090", "interval": "30s"}
    assert any(
        "unknown key 'action' is ignored (did you mean 'actions'?)" in w for w in conf.warnings
    )
    assert any("no action 'elect'" in w for w in conf.warnings)


def test_unknown_plugin_lists_what_shoal_supports() -> None:
    with pytest.raises(Exception, match=r"unknown plugin 'gpu-magic' \(Shoal has: .*gang.*\)"):
        parse('actions: "allocate"\ntiers: [{plugins: [{name: gpu-magic}]}]')
