"""Compact builders for scheduler test manifests (typed models, as the cache would hold)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec

from services.scheduler.actions import default_actions
from services.scheduler.conf import DEFAULT_CONF
from services.scheduler.framework.loading import load_conf
from services.scheduler.framework.session import Session
from services.scheduler.plugins import default_plugins
from services.scheduler.result import SessionResult
from services.scheduler.runner import open_session, run_session
from services.scheduler.snapshot import Snapshot, build_cluster
from shared.models import Model, Node, Pod, PodGroup, PriorityClass, Queue

NOW = datetime(2024, 1, 1, tzinfo=UTC)


def node(name: str, cpu: str = "4", memory: str = "16Gi", **extra: Any) -> Node:
    allocatable = {"cpu": cpu, "memory": memory, **extra.pop("resources", {})}
    return msgspec.convert(
        {
            "metadata": {"name": name, "labels": extra.pop("labels", {})},
            "spec": extra,
            "status": {"allocatable": allocatable},
        },
        Node,
    )


def pod(
    name: str,
    group: str,
    cpu: str | None = "1",
    *,
    ns: str = "default",
    node: str | None = None,
    phase: str | None = None,
    memory: str = "1Gi",
    priority: int | None = None,
    deleting: bool = False,
    scheduler: str = "volcano",
    **spec: Any,
) -> Pod:
    requests = {"cpu": cpu, "memory": memory, **spec.pop("resources", {})} if cpu else {}
    meta: dict[str, Any] = {
        "name": name,
        "namespace": ns,
        "annotations": {"scheduling.k8s.io/group-name": group, **spec.pop("annotations", {})},
        "labels": spec.pop("labels", {}),
    }
    if deleting:
        meta["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    body = {
        "schedulerName": scheduler,
        "containers": [{"name": "c", "resources": {"requests": requests}}],
        **spec,
    }
    if node:
        body["nodeName"] = node
    if priority is not None:
        body["priority"] = priority
    status = {"phase": phase or ("Running" if node else "Pending")}
    return msgspec.convert({"metadata": meta, "spec": body, "status": status}, Pod)


def group(
    name: str,
    min_member: int = 1,
    *,
    ns: str = "default",
    queue: str = "default",
    phase: str = "Inqueue",
    **spec: Any,
) -> PodGroup:
    return msgspec.convert(
        {
            "metadata": {"name": name, "namespace": ns},
            "spec": {"minMember": min_member, "queue": queue, **spec},
            "status": {"phase": phase},
        },
        PodGroup,
    )


def queue(name: str, weight: int = 1, **spec: Any) -> Queue:
    return msgspec.convert({"metadata": {"name": name}, "spec": {"weight": weight, **spec}}, Queue)


def priority_class(name: str, value: int) -> PriorityClass:
    return msgspec.convert({"metadata": {"name": name}, "value": value}, PriorityClass)


def conf_text(actions: str, *tiers: list[str | dict[str, Any]]) -> str:
    import yaml

    doc = {
        "actions": actions,
        "tiers": [
            {"plugins": [p if isinstance(p, dict) else {"name": p} for p in tier]} for tier in tiers
        ],
    }
    return yaml.safe_dump(doc)


def schedule(objects: list[Model], conf: str | None = None) -> SessionResult:
    plugins, actions = default_plugins(), default_actions()
    parsed = load_conf(conf or DEFAULT_CONF, plugins=plugins, actions=actions)
    return run_session(Snapshot.of(objects), parsed, NOW, plugins=plugins, actions=actions)


def session(objects: list[Model], conf: str, now: datetime = NOW) -> Session:
    """A session opened on ``objects`` with ``conf``'s plugins and nothing run yet: upstream's
    ``RegisterSession``, for tests that call one extension point as the Go tests do."""
    plugins, actions = default_plugins(), default_actions()
    parsed = load_conf(conf, plugins=plugins, actions=actions)
    return open_session(build_cluster(Snapshot.of(objects)), parsed, now, plugins=plugins)


def plugin_option(
    name: str, *enabled: str, arguments: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A tier entry with only ``enabled`` switches on, every other switch written as false.

    Volcano's own unit tests build ``conf.PluginOption`` in Go without
    ``ApplyPluginConfDefaults``, so an unset switch there is off, not defaulted to true.
    """
    from services.scheduler.conf import FLAGS

    unknown = set(enabled) - set(FLAGS)
    if unknown:
        raise ValueError(f"unknown PluginOption switches {sorted(unknown)}")
    option: dict[str, Any] = {"name": name, **{flag: flag in enabled for flag in FLAGS}}
    if arguments:
        option["arguments"] = arguments
    return option


def tiers_conf(
    actions: str,
    tiers: list[list[dict[str, Any]]],
    configurations: dict[str, dict[str, Any]] | None = None,
) -> str:
    """A conf from explicit tier entries (``plugin_option``) and per-action arguments."""
    import yaml

    doc: dict[str, Any] = {
        "actions": actions,
        "tiers": [{"plugins": tier} for tier in tiers],
    }
    if configurations:
        doc["configurations"] = [
            {"name": name, "arguments": arguments} for name, arguments in configurations.items()
        ]
    return yaml.safe_dump(doc)
