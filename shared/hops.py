"""Per-hop latency: where a job's pods wait on their way from creation to bound.

A Volcano Job's pods are bound after a chain of hops across the four services; each hop is
measured where it ends, as the time since the moment it began (a time the record carries, or
one the service noted itself), into the histogram ``shoal_hop_seconds{hop=...}`` of the
service that ends it. ``shoal_hop_queue_depth{hop=...}`` says how much waits in front of it.
``shoal bench e2e`` reads both from every service and prints them, so the slowest hop is
named by the measurement. Clocks are wall clocks (``time.time``): the hops cross processes.

Every record carries the time it entered the system: ``Envelope.occurred_at`` of a state record
is the watcher's observation; decisions and results carry ``entered_at``, the observation of the
object they are about, so ``shoal_hop_seconds{hop="entered_to_bound"}`` is the whole wait.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from prometheus_client import CollectorRegistry, Gauge, Histogram

WATCHER_PUBLISH: Final = "watcher_publish"
"""watcher: a watch event read → its record acknowledged by the broker."""
JOBCONTROLLER_SYNC: Final = "jobcontroller_sync"
"""job controller: a job's record observed by the watcher → the sync it caused finished (a
sync that created no pod, e.g. the PodGroup of a new Volcano Job)."""
PODGROUP_ENQUEUE_DECISION: Final = "podgroup_enqueue_decision"
"""scheduler: a PodGroup's record observed → its status decision (e.g. Inqueue) published."""
BINDER_STATUS_PATCH: Final = "binder_status_patch"
"""binder: a PodGroup status decided → its status patch written."""
POD_CREATION: Final = "pod_creation"
"""job controller: a record observed (the PodGroup turned Inqueue) → the sync creating the
job's pods finished."""
SCHEDULING_CYCLE: Final = "scheduling_cycle"
"""scheduler: one cycle, snapshot and session to decisions published."""
BIND_DECISION: Final = "bind_decision"
"""scheduler: a pending pod's record observed → its bind decision published."""
BIND_CALL: Final = "bind_call"
"""binder: a bind decided → the binding written and its result published."""
BIND_OBSERVED: Final = "bind_observed"
"""scheduler: the binder's bind call returned → the bound pod seen on the state topic."""
ENTERED_TO_BOUND: Final = "entered_to_bound"
"""binder: a pending pod observed by the watcher → its binding written."""
KUEUE_DECISION: Final = "kueue_decision"
"""scheduler: a Kueue Workload's record observed by the watcher → the admission run that first
saw it published its decisions (the broker crossing, the wait for a run and the run)."""
KUEUE_STATUS_PATCH: Final = "kueue_status_patch"
"""binder: a Kueue status decided → its patch written."""

HOPS: Final = (
    WATCHER_PUBLISH,
    JOBCONTROLLER_SYNC,
    PODGROUP_ENQUEUE_DECISION,
    BINDER_STATUS_PATCH,
    POD_CREATION,
    SCHEDULING_CYCLE,
    BIND_DECISION,
    BIND_CALL,
    BIND_OBSERVED,
    ENTERED_TO_BOUND,
    KUEUE_DECISION,
    KUEUE_STATUS_PATCH,
)
"""In the order a Volcano Job's pods meet them, then a Kueue Workload's."""

# Fine enough to read a p50 and a p99 from: about 1.6x apart, 1 ms to 2 min.
BUCKETS: Final = (
    0.001,
    0.002,
    0.004,
    0.006,
    0.01,
    0.015,
    0.025,
    0.04,
    0.06,
    0.1,
    0.15,
    0.25,
    0.4,
    0.6,
    1.0,
    1.5,
    2.5,
    4.0,
    6.0,
    10.0,
    15.0,
    25.0,
    40.0,
    60.0,
    120.0,
)

HOP_SECONDS: Final = "shoal_hop_seconds"
HOP_QUEUE_DEPTH: Final = "shoal_hop_queue_depth"


class HopMetrics:
    """The hop histograms and queue-depth gauges of one service."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._seconds = Histogram(
            HOP_SECONDS,
            "time a record spent in a hop of the job → bound chain",
            ["hop"],
            buckets=BUCKETS,
            registry=registry,
        )
        self._children: dict[str, Histogram] = {}
        self._depth = Gauge(
            HOP_QUEUE_DEPTH, "work waiting in front of a hop", ["hop"], registry=registry
        )

    def _child(self, hop: str) -> Histogram:
        """The hop's histogram, looked up once (``labels`` validates and locks per call, and
        services observe a hop per record)."""
        child = self._children.get(hop)
        if child is None:
            child = self._children[hop] = self._seconds.labels(hop)
        return child

    def observe(self, hop: str, since: float, now: float) -> None:
        """One record through ``hop``: it began at ``since`` (0: unknown, not counted)."""
        if since > 0:
            self._child(hop).observe(max(now - since, 0.0))

    def observe_many(self, hop: str, since: list[float], now: float) -> None:
        child = self._child(hop)
        for began in since:
            if began > 0:
                child.observe(max(now - began, 0.0))

    def durations(self, hop: str, seconds: list[float]) -> None:
        """Records through ``hop`` that took ``seconds`` each."""
        child = self._child(hop)
        for spent in seconds:
            child.observe(spent)

    def depth(self, hop: str, read: Callable[[], float]) -> None:
        """Report ``read()`` as the queue depth of ``hop`` at each scrape."""
        self._depth.labels(hop).set_function(read)
