"""The examples corpus: the gangs of upstream's and Shoal's own example manifests, each on a few
cluster sizes (an example names no nodes), as scenarios.

Each example is transcribed from the file named in its ``source`` as the PodGroup its
controller would make (a Volcano Job: ``minAvailable`` and its tasks' pods; a ReplicaSet for
``schedulerName: volcano``: a PodGroup of ``minMember`` 1 per ReplicaSet, as Volcano's podgroup
controller makes). Only one-shape gangs are taken: an example whose tasks differ in requests
(Volcano's ``kubecon-2019-china/gang/mpi-example.yaml``,
``task-priority/elastic-job.yaml``, Shoal's ``deploy/examples/volcano-job.yaml``) is not in
the corpus yet.
"""

from __future__ import annotations

from services.cli.decisions.generating import ALLOCATE_CONF
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
    return [
        Scenario(
            name=f"vx-{name}-{label}",
            peer="volcano",
            source=source,
            kind="example",
            conf=ALLOCATE_CONF,
            nodes=nodes,
            queues=queues,
            gangs=gangs,
        )
        for name, source, queues, gangs in EXAMPLES
        for label, nodes in CLUSTERS
    ]
