"""Extension points as typed slots: one per point, each with its own ``add`` for plugins.

A plugin fills the points it implements when the session opens, as Volcano's ``AddJobOrderFn``
and friends do (``ssn.points.job_order.add(NAME, key)``); the callback's type is the point's, so
mypy checks every callback. When every plugin has registered, the session seals the points:
each keeps, per tier of the conf, the callbacks of the plugins whose ``PluginOption`` switch for
that point is on. A plugin registering twice at one point is an error, not a silent overwrite.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Generic, TypeVar

from services.scheduler.conf import PluginOption
from services.scheduler.framework import extension as ext

F = TypeVar("F")


class ExtensionPoint(Generic[F]):
    """The callbacks of one extension point, by plugin, then by tier once sealed."""

    def __init__(self, name: str, flag: str | None) -> None:
        self.name = name
        self.flag = flag  # the PluginOption switch that turns the point on; None: always on
        self._by_plugin: dict[str, F] = {}
        self.tiers: list[list[F]] = []
        self.all: list[F] = []

    def add(self, plugin: str, fn: F) -> None:
        if plugin in self._by_plugin:
            raise ValueError(f"plugin {plugin!r} registered {self.name} twice")
        self._by_plugin[plugin] = fn

    def seal(self, tiers: Sequence[Sequence[PluginOption]]) -> None:
        self.tiers = [
            [
                self._by_plugin[option.name]
                for option in tier
                if option.name in self._by_plugin
                and (self.flag is None or option.enabled(self.flag))
            ]
            for tier in tiers
        ]
        self.all = [fn for tier in self.tiers for fn in tier]


class ExtensionPoints:
    """Every extension point of a session, with the switch that enables it per plugin."""

    def __init__(self) -> None:
        self.job_order = ExtensionPoint[ext.JobOrderKey]("job_order", "enableJobOrder")
        self.task_order = ExtensionPoint[ext.TaskOrderKey]("task_order", "enableTaskOrder")
        self.queue_order = ExtensionPoint[ext.QueueOrderKey]("queue_order", "enableQueueOrder")
        self.job_valid = ExtensionPoint[ext.JobValidFn]("job_valid", None)
        self.job_ready = ExtensionPoint[ext.JobCheck]("job_ready", "enableJobReady")
        self.job_pipelined = ExtensionPoint[ext.JobVoteFn]("job_pipelined", "enableJobPipelined")
        self.job_starving = ExtensionPoint[ext.JobCheck]("job_starving", "enableJobStarving")
        self.job_enqueueable = ExtensionPoint[ext.JobVoteFn]("job_enqueueable", "enableJobEnqueued")
        self.job_enqueued = ExtensionPoint[ext.JobEvent]("job_enqueued", "enableJobEnqueued")
        self.overused = ExtensionPoint[ext.QueueCheck]("overused", "enabledOverused")
        self.allocatable = ExtensionPoint[ext.QueueTaskCheck]("allocatable", "enabledAllocatable")
        self.preemptive = ExtensionPoint[ext.QueueTasksCheck]("preemptive", "enablePreemptive")
        self.preemptable = ExtensionPoint[ext.VictimFn]("preemptable", "enablePreemptable")
        self.reclaimable = ExtensionPoint[ext.VictimFn]("reclaimable", "enableReclaimable")
        # Volcano checks no PluginOption switch for UnifiedEvictable: always on.
        self.unified_evictable = ExtensionPoint[ext.UnifiedEvictableFn]("unified_evictable", None)
        # Capacity's VictimQueueOrderFn: a key per (victim queue, preemptor queue), smaller
        # evicted first; no switch either.
        self.victim_queue_order = ExtensionPoint[ext.VictimQueueKey]("victim_queue_order", None)
        self.victim_tasks = ExtensionPoint[ext.VictimTasksFn]("victim_tasks", "enabledVictim")
        self.static_predicate = ExtensionPoint[ext.StaticPredicate](
            "static_predicate", "enablePredicate"
        )
        self.dynamic_predicate = ExtensionPoint[ext.DynamicPredicate](
            "dynamic_predicate", "enablePredicate"
        )
        self.node_order = ExtensionPoint[ext.NodeScorer]("node_order", "enableNodeOrder")
        self.hyper_node_gradient = ExtensionPoint[ext.HyperNodeGradientFn](
            "hyper_node_gradient", "enabledHyperNodeGradient"
        )
        self.hyper_node_order = ExtensionPoint[ext.HyperNodeOrderFn](
            "hyper_node_order", "enabledHyperNodeOrder"
        )
        self.sub_job_ready = ExtensionPoint[ext.SubJobCheck]("sub_job_ready", "enabledSubJobReady")
        self.sub_job_pipelined = ExtensionPoint[ext.SubJobVoteFn](
            "sub_job_pipelined", "enabledSubJobPipelined"
        )
        self.sub_job_order = ExtensionPoint[ext.SubJobOrderKey](
            "sub_job_order", "enabledSubJobOrder"
        )
        self.hyper_node_gradient_for_sub_job = ExtensionPoint[ext.SubJobGradientFn](
            "hyper_node_gradient_for_sub_job", "enabledHyperNodeGradient"
        )
        self.on_allocate = ExtensionPoint[ext.TaskEvent]("on_allocate", None)
        self.on_deallocate = ExtensionPoint[ext.TaskEvent]("on_deallocate", None)

    def __iter__(self) -> Iterator[ExtensionPoint[object]]:
        for value in vars(self).values():
            if isinstance(value, ExtensionPoint):
                yield value

    def seal(self, tiers: Sequence[Sequence[PluginOption]]) -> None:
        for point in self:
            point.seal(tiers)
