"""Warnings the scheduler has the binder post as Events: it never calls the API itself.

Two things a user must see outside the scheduler's log: a ``volcano-scheduler.conf`` it refused
(the previous conf runs) and a Node it left out because its allocatable cannot be read or is
beyond what it schedules (``cpu: 1e30``, ``memory: 16Ei``). Each becomes one ``WarningDecided``
per version of the object (uid, resourceVersion, message); a problem that goes away and comes
back is reported again.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from services.scheduler.conf import CONFIGMAP_NAME
from services.scheduler.result import SessionResult
from shared.cache import ObjectCache
from shared.events import WarningDecided
from shared.models import ConfigMap, Node

CONFIGMAP, NODE = "v1/ConfigMap", "v1/Node"
# Shoal's reasons: Volcano only logs "Scheduler config ... is invalid" and skips such nodes.
CONF_REJECTED = "InvalidSchedulerConf"
NODE_SKIPPED = "InvalidNodeAllocatable"
_NODE_PREFIX = "node/"


def conf_configmap(cache: ObjectCache) -> ConfigMap | None:
    for cm in cache.objects(CONFIGMAP):
        if isinstance(cm, ConfigMap) and cm.metadata.name == CONFIGMAP_NAME:
            return cm
    return None


class Warnings:
    def __init__(self) -> None:
        # involved object key → (uid, resourceVersion, message) last reported
        self.reported: dict[str, tuple[str, str, str]] = {}

    def decisions(
        self, result: SessionResult, cache: ObjectCache, *, cycle: int, common: dict[str, Any]
    ) -> list[WarningDecided]:
        out: list[WarningDecided] = []
        current: dict[str, tuple[str, str, str]] = {}
        for involved, reason, message in self._problems(result, cache):
            key = f"{involved['kind']}/{involved['namespace']}/{involved['name']}"
            seen = (involved["uid"], involved["resourceVersion"], message)
            current[key] = seen
            if self.reported.get(key) == seen:
                continue
            out.append(
                WarningDecided(
                    key=key,
                    involved=involved,
                    reason=reason,
                    message=message,
                    cycle=cycle,
                    **common,
                )
            )
        self.reported = current
        return out

    def _problems(
        self, result: SessionResult, cache: ObjectCache
    ) -> Iterator[tuple[dict[str, str], str, str]]:
        cm = conf_configmap(cache)
        if result.conf_error and cm is not None:  # else a conf file: the log and metric say it
            message = (
                f"Scheduler config {cm.metadata.name} is invalid, using the previous one: "
                f"{result.conf_error}"
            )
            yield _reference("ConfigMap", cm.metadata), CONF_REJECTED, message
        for key, why in result.skipped.items():
            if not key.startswith(_NODE_PREFIX):
                continue
            node = cache.get(NODE, key.removeprefix(_NODE_PREFIX))
            if isinstance(node, Node):
                message = f"node left out of scheduling: {why}"
                yield _reference("Node", node.metadata), NODE_SKIPPED, message


def _reference(kind: str, meta: Any) -> dict[str, str]:
    return {
        "apiVersion": "v1",
        "kind": kind,
        "namespace": meta.namespace or "",
        "name": meta.name,
        "uid": meta.uid,
        "resourceVersion": meta.resourceVersion or "",
    }
