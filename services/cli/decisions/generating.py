"""Seeded random scenarios: ``volcano_scenario(seed)`` is a pure function of its seed
(``random.Random(seed)``), so ``shoal compare decisions --seed N`` replays the same scenario.

Each seed draws one family, built so that upstream itself decides it the same way every time:

- ``waves``: gangs arrive in waves ``WAVE_S`` apart and run until the end. A wave holds copies
  of one shape (interchangeable: compared by counts); nothing ever frees room, so a gang left
  pending stays pending, and the order of waves is the order of creation timestamps. Only a
  rigid shape (``minMember`` = replicas) comes in several copies: elastic copies created
  together split the room by whether a scheduling cycle starts between their creates (one
  seen alone takes all its pods, the next may then miss its ``minMember``), on either side.
- ``completions``: the same, but every pod runs for a while and ends; every gang that fits the
  empty cluster on its own (and its queue's capability) runs sooner or later, whatever the
  order in between.
- ``preempt``: elastic low-priority gangs (more replicas than ``minMember``) fill one or two
  nodes, then a high-priority gang arrives under a conf with ``preempt``.
- ``reclaim``: elastic gangs of one queue fill the nodes, then a gang of a second queue
  arrives under a conf with ``reclaim``.
"""

from __future__ import annotations

import random

import msgspec

from services.cli.decisions.scenario import Gang, Node, Queue, Scenario

WAVE_S = 2.0

ALLOCATE_CONF = """\
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
    enablePreemptable: false
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
    enablePreemptable: false
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""

PREEMPT_CONF = """\
actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
"""

RECLAIM_CONF = PREEMPT_CONF.replace("preempt", "reclaim")

FAMILIES = ("waves", "completions", "preempt", "reclaim")
CPUS = (500, 1000, 2000)


def volcano_scenario(seed: int) -> Scenario:
    rng = random.Random(seed)
    family = FAMILIES[rng.randrange(len(FAMILIES))]
    build = {
        "waves": _waves,
        "completions": _completions,
        "preempt": _preempt,
        "reclaim": _reclaim,
    }[family]
    conf, nodes, queues, gangs = build(rng)
    return Scenario(
        name=f"v-{seed}",
        peer="volcano",
        source="random",
        seed=seed,
        kind=family,
        conf=conf,
        nodes=tuple(nodes),
        queues=tuple(queues),
        gangs=tuple(gangs),
    )


def _nodes(rng: random.Random, count: int) -> list[Node]:
    return [Node(name=f"n{i}", cpu=rng.choice((2, 4, 8))) for i in range(count)]


def _queues(rng: random.Random, count: int) -> list[Queue]:
    return [
        Queue(
            name=f"q{i}",
            weight=rng.randint(1, 4),
            capability_cpu=rng.choice((None, None, 4, 8)),
        )
        for i in range(count)
    ]


def _shape(rng: random.Random, name: str, queues: list[Queue]) -> Gang:
    replicas = rng.randint(1, 4)
    return Gang(
        name=name,
        queue=rng.choice(queues).name,
        replicas=replicas,
        min_member=rng.randint(1, replicas),
        cpu_m=rng.choice(CPUS),
        priority=rng.choice(("", "", "high", "low")),
    )


def _waves_of(rng: random.Random, queues: list[Queue], duration: float | None) -> list[Gang]:
    gangs: list[Gang] = []
    for wave in range(rng.randint(1, 3)):
        shape = _shape(rng, f"w{wave}", queues)
        copies = rng.choice((1, 1, 2, 3))
        if shape.min_member < shape.replicas:
            copies = 1  # elastic copies split by when a cycle falls between their creates
        for copy in range(copies):
            gangs.append(
                msgspec.structs.replace(
                    shape, name=f"w{wave}g{copy}", arrival=wave * WAVE_S, duration=duration
                )
            )
    return gangs


def _waves(rng: random.Random) -> tuple[str, list[Node], list[Queue], list[Gang]]:
    nodes = _nodes(rng, rng.randint(1, 3))
    queues = _queues(rng, rng.randint(1, 3))
    return ALLOCATE_CONF, nodes, queues, _waves_of(rng, queues, None)


def _completions(rng: random.Random) -> tuple[str, list[Node], list[Queue], list[Gang]]:
    nodes = _nodes(rng, rng.randint(1, 2))
    queues = _queues(rng, rng.randint(1, 2))
    duration = float(rng.choice((1, 2)))
    return ALLOCATE_CONF, nodes, queues, _waves_of(rng, queues, duration)


def _elastic(name: str, queue: str, cpu_m: int, replicas: int, priority: str) -> Gang:
    return Gang(
        name=name, queue=queue, replicas=replicas, min_member=1, cpu_m=cpu_m, priority=priority
    )


def _preempt(rng: random.Random) -> tuple[str, list[Node], list[Queue], list[Gang]]:
    nodes = [Node(name=f"n{i}", cpu=4) for i in range(rng.randint(1, 2))]
    queues = [Queue(name="q0")]
    room = 4 * len(nodes)
    cpu_m = rng.choice((1000, 2000))
    per_gang = rng.choice((2, 4))
    low = [
        _elastic(f"low{i}", "q0", cpu_m, per_gang, "low")
        for i in range(max(1, room * 1000 // (cpu_m * per_gang)))
    ]
    replicas = rng.randint(1, 2)
    high = Gang(
        name="high",
        queue="q0",
        replicas=replicas,
        min_member=replicas,
        cpu_m=cpu_m,
        priority="high",
        arrival=WAVE_S,
    )
    return PREEMPT_CONF, nodes, queues, [*low, high]


def _reclaim(rng: random.Random) -> tuple[str, list[Node], list[Queue], list[Gang]]:
    nodes = [Node(name=f"n{i}", cpu=4) for i in range(rng.randint(1, 2))]
    queues = [Queue(name=f"q{i}", weight=rng.randint(1, 3)) for i in range(2)]
    room = 4 * len(nodes)
    cpu_m = rng.choice((1000, 2000))
    per_gang = rng.choice((2, 4))
    filling = [
        _elastic(f"fill{i}", "q0", cpu_m, per_gang, "")
        for i in range(max(1, room * 1000 // (cpu_m * per_gang)))
    ]
    replicas = rng.randint(1, 2)
    claim = Gang(
        name="claim",
        queue="q1",
        replicas=replicas,
        min_member=replicas,
        cpu_m=cpu_m,
        arrival=WAVE_S,
    )
    return RECLAIM_CONF, nodes, queues, [*filling, claim]
