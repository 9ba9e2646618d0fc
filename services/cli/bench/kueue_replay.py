"""``shoal bench kueue-replay``: Kueue's scheduler baseline through the live admission alone.

The scenario of ``shoal bench kueue`` replayed in one process on a fake clock: every tick
creates the Workloads due, the runner finishes those whose runtime has passed (and unsets the
reservation of evicted ones), the statuses decided ``--lag`` ticks earlier are written (each
guarded by its resourceVersion, as the binder writes), the cache sees every change, and the
scheduler's ``AdmissionState`` decides. No Kafka, no API server, no other process: what is
left is the admission's own cost per cycle and what its semantics allow at a given loop
latency. It prints a digest of every decided status, so a change meant to be only faster can
be checked to decide exactly the same (run it before and after).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

import msgspec

from services.cli.bench.kueue import (
    BASELINE,
    COHORTS,
    NAMESPACE,
    NOMINAL,
    QUEUES_PER_COHORT,
    RUNTIME_LABEL,
    WorkloadSet,
    cluster_queue,
    workload,
)
from services.scheduler.admission import AdmissionState
from services.scheduler.kueue.status import StatusUpdate
from services.scheduler.kueue_writes import StatusPacing
from shared.cache import ObjectCache
from shared.errors import UserError
from shared.events import ObjectAdded, ObjectModified
from shared.kube.conditions import is_true, set_condition
from shared.kube.timefmt import format_rfc3339

Json = dict[str, Any]
START = 1_800_000_000.0
# The version the watcher lists and watches Kueue's kinds in (shared.kube.resources): the objects
# go straight into the scheduler's cache here, with no API server to convert them.
WATCHED = "kueue.x-k8s.io/v1beta2"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cohorts", type=int, default=COHORTS, help="cohorts (Kueue: 5)")
    parser.add_argument("--queues", type=int, default=QUEUES_PER_COHORT, help="per cohort (6)")
    parser.add_argument("--scale", type=float, default=0.1, help="fraction of each set")
    parser.add_argument("--tick", type=float, default=0.1, help="seconds between cycles")
    parser.add_argument("--lag", type=int, default=1, help="ticks from decision to write")
    parser.add_argument(
        "--window",
        type=int,
        default=0,
        help="equivalent waiting workloads per ClusterQueue a run looks at (the service's "
        "SHOAL_SCHEDULER_KUEUE_WINDOW, 64 by default; 0 here: all)",
    )
    parser.add_argument(
        "--paced", action="store_true", help="pace status writes as the service does"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


@dataclass
class FakeServer:
    """Objects by (kind, key) with one resourceVersion counter, and what changed since fed."""

    now: float = START
    version: int = 0
    objects: dict[tuple[str, str], Json] = field(default_factory=dict)
    changed: dict[tuple[str, str], bool] = field(default_factory=dict)  # → newly added

    def put(self, obj: Json, *, new: bool = False) -> None:
        self.version += 1
        meta = obj["metadata"]
        meta["resourceVersion"] = str(self.version)
        meta.setdefault("uid", f"uid-{meta['name']}")
        meta.setdefault("creationTimestamp", format_rfc3339(self.now))
        key = f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]
        self.objects[(obj["kind"], key)] = obj
        self.changed[(obj["kind"], key)] = new or self.changed.get((obj["kind"], key), False)

    def patch_status(self, kind: str, key: str, version: str, status: Json) -> None:
        """A merge patch of ``status`` guarded by ``version`` (a conflict is dropped)."""
        obj = self.objects.get((kind, key))
        if obj is None or obj["metadata"]["resourceVersion"] != version:
            return
        merged = dict(obj.get("status") or {})
        for name, value in status.items():
            if value is None:
                merged.pop(name, None)
            else:
                merged[name] = value
        obj["status"] = merged
        self.put(obj)

    def feed(self, cache: ObjectCache) -> None:
        for (kind, key), new in self.changed.items():
            obj = self.objects[(kind, key)]
            event = ObjectAdded if new else ObjectModified
            version = obj["metadata"]["resourceVersion"]
            raw = msgspec.Raw(msgspec.json.encode(obj))
            cache.apply(event(key=key, kind=kind, resourceVersion=version, object=raw))
        self.changed.clear()


@dataclass
class Replay:
    server: FakeServer
    sizes: dict[str, int]
    admitted: dict[str, float] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)
    used: float = 0.0

    def play_jobs(self) -> None:
        """The runner: finish what ran its time, unset the reservation of the evicted."""
        now = self.server.now
        stamp = format_rfc3339(now)
        for (kind, key), obj in list(self.server.objects.items()):
            name = obj["metadata"]["name"]
            conditions = [dict(c) for c in (obj.get("status") or {}).get("conditions") or []]
            if kind != "Workload" or name in self.finished:
                continue
            version = obj["metadata"]["resourceVersion"]
            if is_true(conditions, "Evicted") and obj["status"].get("admission"):
                why = "Evicted by the test runner"
                set_condition(conditions, "QuotaReserved", "False", "Pending", why, stamp)
                no = "The workload has no reservation"
                set_condition(conditions, "Admitted", "False", "NoReservation", no, stamp)
                status = {"conditions": conditions, "admission": None}
                self.server.patch_status(kind, key, version, status)
                self.used += self.sizes[name] * (now - self.admitted.pop(name, now))
            elif is_true(conditions, "Admitted"):
                started = self.admitted.setdefault(name, now)
                runtime = int(obj["metadata"]["labels"][RUNTIME_LABEL]) / 1000
                if now - started >= runtime - 1e-9:
                    set_condition(conditions, "Finished", "True", "ByTest", "By test runner", stamp)
                    self.server.patch_status(kind, key, version, {"conditions": conditions})
                    self.finished.add(name)
                    self.used += self.sizes[name] * (now - self.admitted.pop(name))


def _setup(server: FakeServer, cohorts: int, per_cohort: int) -> list[str]:
    server.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}, new=True)
    flavor = {"apiVersion": WATCHED, "kind": "ResourceFlavor", "metadata": {"name": "rf"}}
    server.put(flavor, new=True)
    queues = [f"cq-{c}-{q}" for c in range(cohorts) for q in range(per_cohort)]
    for name in queues:
        server.put(cluster_queue(name, f"cohort-{name.split('-')[1]}", WATCHED), new=True)
        local = {
            "apiVersion": WATCHED,
            "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": {"clusterQueue": name},
        }
        server.put(local, new=True)
    return queues


def replay(args: argparse.Namespace) -> Json:
    server = FakeServer()
    queues = _setup(server, args.cohorts, args.queues)
    counts = {s.name: max(1, round(s.count * args.scale)) for s in BASELINE}
    due: list[tuple[float, str, str, WorkloadSet]] = sorted(
        (START + i * s.interval_ms / 1000, f"{s.name}-{queue}-{i}", queue, s)
        for queue in queues
        for s in BASELINE
        for i in range(counts[s.name])
    )
    run = Replay(server, {name: s.cpu for _, name, _, s in due})
    pacing = StatusPacing(counter_refresh=2.0, max_waiting=200)
    state = AdmissionState(pacing=pacing if args.paced else None, window=args.window or None)
    cache = ObjectCache()
    in_flight: list[list[StatusUpdate]] = [[] for _ in range(args.lag)]
    digest = hashlib.sha256()
    took: list[float] = []
    tick = created = 0
    writes: dict[str, int] = {}  # decided statuses by kind
    while len(run.finished) < len(due):
        server.now = START + tick * args.tick
        while created < len(due) and due[created][0] <= server.now:
            _, name, queue, spec = due[created]
            server.put(workload(name, queue, spec, WATCHED), new=True)
            created += 1
        run.play_jobs()
        for update in sorted(in_flight.pop(0), key=lambda u: (u.kind, u.key)):
            server.patch_status(update.kind, update.key, update.resource_version, update.status)
        server.feed(cache)
        started = time.perf_counter()
        _, updates = state.decide(cache, server.now)
        state.envelopes(updates, epoch=1, cycle=tick, now=server.now, producer="replay")
        took.append(time.perf_counter() - started)
        in_flight.append(updates)
        for u in sorted(updates, key=lambda u: (u.kind, u.key)):
            writes[u.kind] = writes.get(u.kind, 0) + 1
            digest.update(msgspec.json.encode([u.kind, u.key, u.resource_version, u.status]))
        tick += 1
    wall = max(server.now - START, 1e-9)
    return {
        "workloads": len(due),
        "finished": len(run.finished),
        "wall_s": round(wall, 1),
        "usage_pct": round(100 * run.used / (NOMINAL * len(queues) * wall), 1),
        "cycles": len(took),
        "cycle_mean_ms": round(1000 * sum(took) / max(len(took), 1), 1),
        "cycle_max_ms": round(1000 * max(took, default=0.0), 1),
        "status_writes_per_workload": {
            kind: round(count / len(due), 2) for kind, count in sorted(writes.items())
        },
        "digest": digest.hexdigest()[:16],
    }


def render(result: Json) -> str:
    return (
        f"shoal bench kueue-replay: {result['finished']} of {result['workloads']} finished, "
        f"simulated wall {result['wall_s']} s, usage {result['usage_pct']} %, "
        f"{result['cycles']} cycles of {result['cycle_mean_ms']} ms "
        f"(max {result['cycle_max_ms']} ms), status writes per Workload "
        f"{result['status_writes_per_workload']}, decisions digest {result['digest']}"
    )


def run(args: argparse.Namespace) -> int:
    if args.cohorts < 1 or args.queues < 1 or args.lag < 1 or args.tick <= 0:
        raise UserError("--cohorts, --queues and --lag must be at least 1, --tick positive")
    if not 0 < args.scale <= 10:
        raise UserError("--scale must be in (0, 10]")
    result = replay(args)
    print(json.dumps(result) if args.json else render(result))
    return 0 if result["finished"] == result["workloads"] else 1
