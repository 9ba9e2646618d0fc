"""Kafka topic names and record keys (architecture §2).

State topics carry API objects as the watcher saw them. Records are keyed so that every event of
one object — and, for pods and podgroups, of their owning job — lands in one partition in order.
Jobs, pods and podgroups topics have the same partition count, so a job controller that owns
partition *p* of the jobs topic also owns partition *p* of pods and podgroups (co-partitioning).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from shared.kube import keys

# Kind → state topic suffix. All three job kinds share one topic so that one consumer sees them.
STATE_TOPIC_OF_KIND: Mapping[str, str] = {
    "Pod": "state.pods",
    "Node": "state.nodes",
    "PodGroup": "state.podgroups",
    "Queue": "state.queues",
    "Job": "state.jobs",
    "PyTorchJob": "state.jobs",
    "CronJob": "state.jobs",
    "Command": "state.commands",
    "PriorityClass": "state.priorityclasses",
    "PodDisruptionBudget": "state.poddisruptionbudgets",
    "HyperNode": "state.hypernodes",
    "ConfigMap": "state.configmaps",
    "Service": "state.services",
    "ResourceFlavor": "state.kueue",
    "ClusterQueue": "state.kueue",
    "LocalQueue": "state.kueue",
    "Workload": "state.kueue",
    "Cohort": "state.kueue",
}


class Topics(msgspec.Struct, frozen=True, kw_only=True):
    """Every topic name, derived from one prefix (``SHOAL_TOPIC_PREFIX``, default ``shoal.``)."""

    prefix: str = "shoal."

    def state(self, kind: str) -> str:
        return self.prefix + STATE_TOPIC_OF_KIND[kind]

    def all_state(self) -> list[str]:
        return sorted({self.prefix + suffix for suffix in STATE_TOPIC_OF_KIND.values()})

    @property
    def binds(self) -> str:
        return self.prefix + "decisions.binds"

    @property
    def evictions(self) -> str:
        return self.prefix + "decisions.evictions"

    @property
    def podgroup_status(self) -> str:
        return self.prefix + "decisions.podgroups"

    @property
    def kueue_status(self) -> str:
        return self.prefix + "decisions.kueue"

    @property
    def results(self) -> str:
        return self.prefix + "results"

    @property
    def cycles(self) -> str:
        return self.prefix + "scheduler.cycles"

    @property
    def leader(self) -> str:
        """One partition; a record per election, whose offset + 1 is the leader's epoch."""
        return self.prefix + "scheduler.leader"

    @property
    def generation(self) -> str:
        """One partition; its first record names the log's generation (``bus.generation``)."""
        return self.prefix + "bus.generation"

    @property
    def deadletter(self) -> str:
        return self.prefix + "deadletter"

    def decisions(self) -> list[str]:
        return [self.binds, self.evictions, self.podgroup_status, self.kueue_status]

    def single_partition(self) -> list[str]:
        """Topics that must have exactly one partition (create them before the others)."""
        return [self.leader, self.generation]

    def everything(self) -> list[str]:
        return [
            *self.all_state(),
            *self.decisions(),
            self.results,
            self.cycles,
            self.deadletter,
            *self.single_partition(),
        ]


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def object_key(obj: Mapping[str, Any]) -> str:
    """``namespace/name`` (or ``name`` for cluster-scoped objects) of an API dict."""
    meta = _meta(obj)
    return keys.object_key(meta.get("namespace"), str(meta.get("name", "")))


def owner_job_key(obj: Mapping[str, Any]) -> str | None:
    """The key of the job that owns this pod/podgroup/service, if any (controller owner)."""
    meta = _meta(obj)
    for ref in meta.get("ownerReferences") or ():
        if isinstance(ref, Mapping) and ref.get("controller"):
            return keys.object_key(meta.get("namespace"), str(ref.get("name")))
    return None


def record_key(obj: Mapping[str, Any]) -> str:
    """The partitioning key of a state record: the owning job's key, else the object's own."""
    kind = obj.get("kind")
    if kind == "Command":  # bus.volcano.sh Commands travel with the job they target
        target = obj.get("target")
        namespace = _meta(obj).get("namespace")
        if isinstance(target, Mapping) and target.get("name") and namespace:
            return keys.object_key(namespace, target["name"])
    if kind in ("Pod", "PodGroup", "Service", "Workload"):
        owner = owner_job_key(obj)
        if owner is not None:
            return owner
    return object_key(obj)
