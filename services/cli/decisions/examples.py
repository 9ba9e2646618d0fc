"""The examples corpus: the gangs of upstream's and Shoal's own example manifests, each on a few
cluster sizes (an example names no nodes), and Kueue's site examples, as scenarios.

Each example is transcribed from the file named in its ``source`` as the PodGroup its
controller would make (a Volcano Job: ``minAvailable`` and its tasks' pods; a ReplicaSet for
``schedulerName: volcano``: a PodGroup of ``minMember`` 1 per ReplicaSet, as Volcano's podgroup
controller makes). Only one-shape gangs are taken: an example whose tasks differ in requests
(Volcano's ``kubecon-2019-china/gang/mpi-example.yaml``,
``task-priority/elastic-job.yaml``, Shoal's ``deploy/examples/volcano-job.yaml``) is not in
the corpus yet.
"""

from __future__ import annotations

import msgspec

from services.cli.decisions.generating import ALLOCATE_CONF, WAVE_S
from services.cli.decisions.kueue import ClusterQueue, Job, KueueScenario, Quota
from services.cli.decisions.scenario import Gang, Node, Queue, Scenario

VOLCANO = "volcano-sh/volcano v1.14.1 "
# (name, source, queues, gangs)
EXAMPLES: tuple[tuple[str, str, tuple[Queue, ...], tuple[Gang, ...]], ...] = (
    (
        "job",
        VOLCANO + "example/job.yaml",
        (Queue(name="default"),),
        (Gang(name="test-job", queue="default", replicas=6, min_member=3, cpu_m=1000),),
    ),
    (
        "drf",
        VOLCANO + "example/kubecon-2019-china/drf/nginx-1.yaml, nginx-2.yaml",
        (Queue(name="default"),),
        tuple(
            Gang(name=f"nginx-{i}", queue="default", replicas=8, min_member=1, cpu_m=1000)
            for i in (1, 2)
        ),
    ),
    (
        "gang-rs",
        VOLCANO + "example/kubecon-2019-china/gang/nginx.yaml",
        (Queue(name="default"),),
        (Gang(name="nginx", queue="default", replicas=6, min_member=6, cpu_m=1000),),
    ),
    (
        "task-priority",
        VOLCANO + "example/kubecon-2019-china/task-priority/nginx.yaml",
        (Queue(name="default"),),
        (Gang(name="nginx", queue="default", replicas=4, min_member=1, cpu_m=1000),),
    ),
    (
        "weighted",
        "deploy/examples/00-queues.yaml, weighted-queues.yaml",
        (Queue(name="research", weight=3), Queue(name="batch", weight=1)),
        (
            Gang(
                name="research-sweep",
                queue="research",
                replicas=3,
                min_member=3,
                cpu_m=1000,
                memory_mi=1024,
                duration=3.0,
            ),
            Gang(
                name="nightly-etl",
                queue="batch",
                replicas=2,
                min_member=2,
                cpu_m=1000,
                memory_mi=1024,
                duration=3.0,
            ),
        ),
    ),
)

# (label, nodes): a single node too small, just right, and roomy; two nodes that split a gang.
CLUSTERS: tuple[tuple[str, tuple[Node, ...]], ...] = (
    ("1x2", (Node(name="n0", cpu=2),)),
    ("1x4", (Node(name="n0", cpu=4),)),
    ("2x3", (Node(name="n0", cpu=3), Node(name="n1", cpu=3))),
    ("1x16", (Node(name="n0", cpu=16),)),
)


def volcano_examples() -> list[Scenario]:
    """Each example on each cluster size; an example's gangs arrive ``WAVE_S`` apart in the
    order listed, as files applied one after another: gangs of different shapes (or elastic
    ones) created together are not determined on either side (which one a cycle sees first
    decides, and Volcano's cycles run on a 1 s period where Shoal's start on a change)."""
    return [
        Scenario(
            name=f"vx-{name}-{label}",
            peer="volcano",
            source=source,
            kind="example",
            conf=ALLOCATE_CONF,
            nodes=nodes,
            queues=queues,
            gangs=tuple(
                msgspec.structs.replace(gang, arrival=i * WAVE_S) for i, gang in enumerate(gangs)
            ),
        )
        for name, source, queues, gangs in EXAMPLES
        for label, nodes in CLUSTERS
    ]


KUEUE = "kubernetes-sigs/kueue v0.17.0 site/static/examples/"


def kueue_examples() -> list[KueueScenario]:
    """Kueue's quick start (``getting-started/quick-start-setup.yaml``: 9 CPUs of one flavor,
    and copies of ``quick-start-job.yaml``, 3 pods of 1 CPU) and its shared quota
    (``admin/shared-quota-setup.yaml``: flavors on-demand and spot of 9 CPUs each, tried in
    order, and copies of ``shared-quota-sample-job.yaml``, 1 pod of 3 CPUs; the setup's
    ``cpu_credits`` group, which no Job asks for, is left out), each with copies that run
    until the end and copies that end after 2 s."""
    quick = (ClusterQueue(name="cluster-queue", quotas=(Quota(flavor="default-flavor", cpu=9),)),)
    shared = (
        ClusterQueue(
            name="team-cluster-queue",
            quotas=(Quota(flavor="on-demand", cpu=9), Quota(flavor="spot", cpu=9)),
        ),
    )
    cases = (
        ("quick-start", "getting-started/quick-start-*.yaml", ("default-flavor",), quick, 3, 1000),
        ("shared-quota", "admin/shared-quota-*.yaml", ("on-demand", "spot"), shared, 1, 3000),
    )
    out = []
    for name, source, flavors, queues, parallelism, cpu_m in cases:
        for copies in (2, 4, 7):
            for duration in (None, 2.0):
                jobs = tuple(
                    Job(
                        name=f"sample-job-{i}",
                        queue=queues[0].name,
                        parallelism=parallelism,
                        cpu_m=cpu_m,
                        duration=duration,
                    )
                    for i in range(copies)
                )
                ends = "ends" if duration else "runs"
                out.append(
                    KueueScenario(
                        name=f"kx-{name}-{copies}-{ends}",
                        source=KUEUE + source,
                        kind="example",
                        flavors=flavors,
                        queues=queues,
                        jobs=jobs,
                    )
                )
    return out
