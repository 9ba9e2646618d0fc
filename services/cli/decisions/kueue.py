"""A Kueue scenario as data, its seeded generator, and the manifests both sides get.

A scenario has ResourceFlavors (each with a kwok node that carries its label, roomy enough
that quota, not nodes, decides), ClusterQueues (a cohort, per flavor a nominal CPU quota and a
borrowing limit, a preemption policy), a LocalQueue of each ClusterQueue's name in the
scenario's namespace, and batch/v1 Jobs labelled for a LocalQueue that arrive over time. Jobs
are created suspended, as Kueue's samples are; each side's own admission suspends them anyway.

Determined, as for Volcano: Jobs that arrive together with one shape are interchangeable
(Kueue orders equal Workloads by creation time, a second's resolution), compared by counts.

Families (``kueue_scenario(seed)``):
- ``quota``: one ClusterQueue with one or two flavors, waves of Jobs that run until the end:
  which are admitted, and with which flavor (flavors are tried in order).
- ``cohort``: two ClusterQueues in a cohort, one may borrow the other's idle quota.
- ``completions``: as ``quota``, but Jobs end: every Job that fits its queue alone is admitted
  sooner or later.
- ``preempt``: low-priority Jobs fill a ClusterQueue that preempts ``LowerPriority``, then a
  high-priority Job arrives.
- ``reclaim``: a ClusterQueue borrows its cohort's quota, then the lender's Job arrives and
  ``reclaimWithinCohort: Any`` takes it back.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec

from services.cli.decisions.scenario import PRIORITIES, described
from services.cli.decisions.volcano import KWOK_NODE_ANNOTATION, PRIORITY_PREFIX, SCENARIO_LABEL

Json = dict[str, Any]
KUEUE = "kueue.x-k8s.io/v1beta1"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
JOB_LABEL = "decisions.shoal.io/job"
FLAVOR_LABEL = "decisions.shoal.io/flavor"
WAVE_S = 2.0
MEMORY_QUOTA = "64Gi"
FAMILIES = ("quota", "cohort", "completions", "preempt", "reclaim")


class Quota(msgspec.Struct, frozen=True, kw_only=True):
    flavor: str
    cpu: int
    borrowing_limit: int | None = None


class ClusterQueue(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    quotas: tuple[Quota, ...]
    cohort: str = ""
    within: str = "Never"  # preemption.withinClusterQueue
    reclaim: str = "Never"  # preemption.reclaimWithinCohort


class Job(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    queue: str
    parallelism: int
    cpu_m: int
    priority: str = ""
    arrival: float = 0.0
    duration: float | None = None

    def shape(self) -> tuple[object, ...]:
        return (
            self.queue,
            self.parallelism,
            self.cpu_m,
            self.priority,
            self.arrival,
            self.duration,
        )


class KueueScenario(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    source: str
    flavors: tuple[str, ...]
    queues: tuple[ClusterQueue, ...]
    jobs: tuple[Job, ...]
    seed: int | None = None
    kind: str = ""
    peer: str = "kueue"

    @property
    def last_arrival(self) -> float:
        return max((j.arrival for j in self.jobs), default=0.0)


def job_classes(jobs: tuple[Job, ...]) -> dict[str, list[Job]]:
    out: dict[str, list[Job]] = {}
    first: dict[tuple[object, ...], str] = {}
    for job in sorted(jobs, key=lambda j: (j.arrival, j.name)):
        out.setdefault(first.setdefault(job.shape(), job.name), []).append(job)
    return out


def compared(scenario: KueueScenario) -> str:
    return described(job_classes(scenario.jobs), "job") + "; flavors of admitted Workloads"


# --- the generator ------------------------------------------------------------------------


def kueue_scenario(seed: int) -> KueueScenario:
    rng = random.Random(seed)
    family = FAMILIES[rng.randrange(len(FAMILIES))]
    flavors: tuple[str, ...]
    queues: tuple[ClusterQueue, ...]
    jobs: tuple[Job, ...]
    if family == "quota" or family == "completions":
        flavors = ("f0", "f1")[: rng.randint(1, 2)]
        queues = (
            ClusterQueue(
                name="cq0",
                quotas=tuple(Quota(flavor=f, cpu=rng.choice((2, 4, 6))) for f in flavors),
            ),
        )
        duration = float(rng.choice((1, 2))) if family == "completions" else None
        jobs = _waves(rng, queues, duration)
    elif family == "cohort":
        flavors = ("f0",)
        queues = tuple(
            ClusterQueue(
                name=f"cq{i}",
                cohort="co",
                quotas=(
                    Quota(
                        flavor="f0",
                        cpu=rng.choice((2, 4)),
                        borrowing_limit=rng.choice((None, 0, 2)),
                    ),
                ),
            )
            for i in range(2)
        )
        jobs = _waves(rng, queues, None)
    elif family == "preempt":
        flavors = ("f0",)
        cpu = rng.choice((2, 4))
        queues = (
            ClusterQueue(name="cq0", quotas=(Quota(flavor="f0", cpu=cpu),), within="LowerPriority"),
        )
        size = rng.choice((1, 2))
        low = [
            Job(name=f"low{i}", queue="cq0", parallelism=size, cpu_m=1000, priority="low")
            for i in range(cpu // size)
        ]
        high = Job(
            name="high",
            queue="cq0",
            parallelism=rng.choice((1, 2)),
            cpu_m=1000,
            priority="high",
            arrival=WAVE_S,
        )
        jobs = (*low, high)
    else:  # reclaim
        flavors = ("f0",)
        cpu = rng.choice((2, 4))
        queues = tuple(
            ClusterQueue(
                name=f"cq{i}",
                cohort="co",
                quotas=(Quota(flavor="f0", cpu=cpu),),
                reclaim="Any",
            )
            for i in range(2)
        )
        size = rng.choice((1, 2))
        borrowers = [
            Job(name=f"b{i}", queue="cq0", parallelism=size, cpu_m=1000)
            for i in range(2 * cpu // size)
        ]
        lender = Job(
            name="lend", queue="cq1", parallelism=rng.choice((1, 2)), cpu_m=1000, arrival=WAVE_S
        )
        jobs = (*borrowers, lender)
    return KueueScenario(
        name=f"k-{seed}",
        source="random",
        seed=seed,
        kind=family,
        flavors=flavors,
        queues=queues,
        jobs=tuple(jobs),
    )


def _waves(
    rng: random.Random, queues: tuple[ClusterQueue, ...], duration: float | None
) -> tuple[Job, ...]:
    jobs: list[Job] = []
    for wave in range(rng.randint(1, 3)):
        queue = rng.choice(queues).name
        parallelism = rng.randint(1, 3)
        cpu_m = rng.choice((500, 1000, 2000))
        priority = rng.choice(("", "", "high", "low"))
        for copy in range(rng.choice((1, 1, 2, 3))):
            jobs.append(
                Job(
                    name=f"w{wave}j{copy}",
                    queue=queue,
                    parallelism=parallelism,
                    cpu_m=cpu_m,
                    priority=priority,
                    arrival=wave * WAVE_S,
                    duration=duration,
                )
            )
    return tuple(jobs)


# --- manifests ----------------------------------------------------------------------------


def prefixed(scenario: KueueScenario, name: str) -> str:
    return f"{scenario.name}-{name}"


def setup(scenario: KueueScenario) -> list[Json]:
    """Namespace, flavors, their nodes, ClusterQueues and LocalQueues, in creation order."""
    out: list[Json] = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": scenario.name}}
    ]
    for flavor in scenario.flavors:
        name = prefixed(scenario, flavor)
        out.append(
            {
                "apiVersion": KUEUE,
                "kind": "ResourceFlavor",
                "metadata": {"name": name},
                "spec": {"nodeLabels": {FLAVOR_LABEL: name}},
            }
        )
        out.append(_node(scenario, name))
    for queue in scenario.queues:
        out.append(_cluster_queue(scenario, queue))
        out.append(
            {
                "apiVersion": KUEUE,
                "kind": "LocalQueue",
                "metadata": {"name": queue.name, "namespace": scenario.name},
                "spec": {"clusterQueue": prefixed(scenario, queue.name)},
            }
        )
    return out


def _node(scenario: KueueScenario, flavor: str) -> Json:
    capacity = {"cpu": "64", "memory": "256Gi", "pods": "110", "ephemeral-storage": "100Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": flavor,
            "annotations": {KWOK_NODE_ANNOTATION: "fake"},
            "labels": {
                "kubernetes.io/hostname": flavor,
                "kubernetes.io/os": "linux",
                "type": "kwok",
                FLAVOR_LABEL: flavor,
                SCENARIO_LABEL: scenario.name,
            },
        },
        "status": {"capacity": capacity, "allocatable": dict(capacity)},
    }


def _cluster_queue(scenario: KueueScenario, queue: ClusterQueue) -> Json:
    flavors = []
    for quota in queue.quotas:
        resource: Json = {"name": "cpu", "nominalQuota": quota.cpu}
        if quota.borrowing_limit is not None:
            resource["borrowingLimit"] = quota.borrowing_limit
        # Memory is covered too (a Workload asking for a resource its ClusterQueue does not
        # cover is never admitted), with quota to spare: CPU decides.
        memory = {"name": "memory", "nominalQuota": MEMORY_QUOTA}
        flavors.append({"name": prefixed(scenario, quota.flavor), "resources": [resource, memory]})
    spec: Json = {
        "namespaceSelector": {},
        "preemption": {"withinClusterQueue": queue.within, "reclaimWithinCohort": queue.reclaim},
        "resourceGroups": [{"coveredResources": ["cpu", "memory"], "flavors": flavors}],
    }
    if queue.cohort:
        spec["cohort"] = prefixed(scenario, queue.cohort)
    return {
        "apiVersion": KUEUE,
        "kind": "ClusterQueue",
        "metadata": {"name": prefixed(scenario, queue.name)},
        "spec": spec,
    }


def job(scenario: KueueScenario, spec: Job) -> Json:
    annotations = {"sim.shoal.io/start-delay": "50ms"}
    if spec.duration is not None:
        annotations["sim.shoal.io/duration"] = f"{int(spec.duration * 1000)}ms"
    pod: Json = {
        "restartPolicy": "Never",
        "terminationGracePeriodSeconds": 0,
        "containers": [
            {
                "name": "work",
                "image": "busybox:1.36",
                "resources": {"requests": {"cpu": f"{spec.cpu_m}m", "memory": "64Mi"}},
            }
        ],
    }
    if spec.priority:
        pod["priorityClassName"] = PRIORITY_PREFIX + spec.priority
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": spec.name,
            "namespace": scenario.name,
            "labels": {QUEUE_LABEL: spec.queue, JOB_LABEL: spec.name},
        },
        "spec": {
            "suspend": True,
            "parallelism": spec.parallelism,
            "completions": spec.parallelism,
            "backoffLimit": 0,
            "template": {"metadata": {"annotations": annotations}, "spec": pod},
        },
    }


def arrivals(scenario: KueueScenario) -> list[tuple[float, list[Json]]]:
    times = sorted({j.arrival for j in scenario.jobs})
    return [
        (
            at,
            [
                job(scenario, j)
                for j in sorted(scenario.jobs, key=lambda j: j.name)
                if j.arrival == at
            ],
        )
        for at in times
    ]


def priority_values() -> dict[str, int]:
    return {PRIORITY_PREFIX + name: value for name, value in PRIORITIES.items()}
