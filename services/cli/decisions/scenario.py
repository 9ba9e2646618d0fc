"""A differential scenario as data: the nodes, the queues and the scheduler conf it starts with,
then the gangs that arrive over time (a PodGroup and its pods) and how long their pods run.

A gang's pods complete by kwok's ``sim.shoal.io/duration`` stage; a gang without a duration runs
until the scenario ends. Arrivals are seconds after the scenario's start.

What a scenario determines: gangs that arrive together with the same shape are interchangeable
(a scheduler may take any of them: Volcano orders equal jobs by creation time, a second's
resolution, then by UID, which is random), so the diff compares a *class* of interchangeable
gangs by counts, and a class of one by identity (``classes``). A pod's node is determined only
when one node of the scenario can hold it at all (``single_candidate``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

Peer = Literal["volcano", "kueue"]
PEERS: tuple[Peer, ...] = ("volcano", "kueue")
# The priority classes a gang may name, made once per plane (cluster-scoped).
PRIORITIES = {"high": 1000, "low": 10}


class Node(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    cpu: int  # cores
    memory_gi: int = 32


class Queue(msgspec.Struct, frozen=True, kw_only=True):
    """A Volcano Queue; ``capability_cpu`` caps it (cores), ``None`` leaves it open."""

    name: str
    weight: int = 1
    capability_cpu: int | None = None
    reclaimable: bool = True


class Gang(msgspec.Struct, frozen=True, kw_only=True):
    """A PodGroup of ``min_member`` and ``replicas`` pods of one shape, created at ``arrival``;
    its pods run ``duration`` seconds once started (``None``: until the scenario ends)."""

    name: str
    queue: str
    replicas: int
    min_member: int
    cpu_m: int  # millicores per pod
    memory_mi: int = 256
    priority: str = ""  # a key of PRIORITIES, or none
    arrival: float = 0.0
    duration: float | None = None

    def shape(self) -> tuple[object, ...]:
        """What makes two gangs interchangeable to a scheduler (all but the name)."""
        return (
            self.queue,
            self.replicas,
            self.min_member,
            self.cpu_m,
            self.memory_mi,
            self.priority,
            self.arrival,
            self.duration,
        )

    def pod_names(self) -> list[str]:
        return [f"{self.name}-{i}" for i in range(self.replicas)]


class Scenario(msgspec.Struct, frozen=True, kw_only=True):
    """One replay. ``source`` says where it comes from (``random`` with its ``seed``, or an
    example's path); ``conf`` is the volcano-scheduler.conf both sides run it under."""

    name: str
    peer: Peer
    source: str
    conf: str
    nodes: tuple[Node, ...]
    queues: tuple[Queue, ...]
    gangs: tuple[Gang, ...]
    seed: int | None = None
    kind: str = ""  # the generator's family (waves, completions, preempt, reclaim, ...)

    @property
    def last_arrival(self) -> float:
        return max((g.arrival for g in self.gangs), default=0.0)


def classes(gangs: Sequence[Gang]) -> dict[str, list[Gang]]:
    """Interchangeable gangs, by the name of the first of each (in arrival, then name order)."""
    out: dict[str, list[Gang]] = {}
    first: dict[tuple[object, ...], str] = {}
    for gang in sorted(gangs, key=lambda g: (g.arrival, g.name)):
        key = first.setdefault(gang.shape(), gang.name)
        out.setdefault(key, []).append(gang)
    return out


def single_candidate(scenario: Scenario, gang: Gang) -> str | None:
    """The one node that can hold a pod of ``gang`` on its own, or ``None`` when none or
    several can (then where it lands is the scheduler's scoring, not determined)."""
    fits = [n.name for n in scenario.nodes if n.cpu * 1000 >= gang.cpu_m]
    return fits[0] if len(fits) == 1 else None


def compared(scenario: Scenario) -> str:
    """What the diff of this scenario compares, in words (printed per scenario)."""
    return described(classes(scenario.gangs), "gang") + (
        "; nodes of single-candidate pods"
        if any(single_candidate(scenario, g) for g in scenario.gangs)
        else ""
    )


def described(groups: Mapping[str, Sequence[object]], unit: str) -> str:
    """ "n <unit>(s) by identity; m class(es) of interchangeable <unit>s by counts"."""
    counted = sum(1 for members in groups.values() if len(members) > 1)
    parts = [
        f"{len(groups) - counted} {unit}(s) by identity" if len(groups) > counted else "",
        f"{counted} class(es) of interchangeable {unit}s by counts" if counted else "",
    ]
    return "; ".join(p for p in parts if p)
