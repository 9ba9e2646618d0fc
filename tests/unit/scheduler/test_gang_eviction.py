"""gangpreempt and gangreclaim on whole sessions: which bundles go, and what the conf says."""

from __future__ import annotations

from typing import Any

import pytest

from shared.models import Model
from tests.unit.scheduler.builders import (
    conf_text,
    group,
    node,
    pod,
    priority_class,
    queue,
    schedule,
)

TIERS: tuple[list[str | dict[str, Any]], ...] = (
    ["priority", "gang", "conformance"],
    ["drf", "predicates", "proportion", "nodeorder"],
)
PRIORITIES = [priority_class("low", 10), priority_class("high", 1000)]


def _gang(name: str, size: int, *, min_member: int, running: bool, **spec: str) -> list[Model]:
    pods: list[Model] = [
        pod(f"{name}-{i}", name, node="n1" if running else None) for i in range(size)
    ]
    phase = "Running" if running else "Inqueue"
    return [group(name, min_member, phase=phase, **spec), *pods]


CASES = [
    pytest.param(
        "gangpreempt",
        [
            node("n1", cpu="3"),
            *_gang("low", 2, min_member=1, running=True, priorityClassName="low"),
            *_gang("low-gang", 1, min_member=1, running=True, priorityClassName="low"),
            *_gang("high", 1, min_member=1, running=False, priorityClassName="high"),
        ],
        ["default/low-0"],
        {"default/high-0": "n1"},
        id="a task the victim gang can spare goes before any whole gang",
    ),
    pytest.param(
        "gangpreempt",
        [
            node("n1", cpu="2"),
            *_gang("low", 2, min_member=2, running=True, priorityClassName="low"),
            *_gang("high", 2, min_member=2, running=False, priorityClassName="high"),
        ],
        ["default/low-0", "default/low-1"],
        {"default/high-0": "n1", "default/high-1": "n1"},
        id="a gang evicts a whole lower-priority gang and is pipelined as a whole",
    ),
    pytest.param(
        "gangpreempt",
        [
            node("n1", cpu="2"),
            *_gang("low", 2, min_member=2, running=True, priorityClassName="low"),
            *_gang("high", 3, min_member=3, running=False, priorityClassName="high"),
        ],
        [],
        {},
        id="nothing is evicted when the gang cannot land even with every victim gone",
    ),
    pytest.param(
        "gangreclaim",
        [
            node("n1", cpu="2"),
            queue("q1"),
            queue("q2"),
            *_gang("theirs", 2, min_member=1, running=True, queue="q2"),
            *_gang("mine", 1, min_member=1, running=False, queue="q1"),
        ],
        ["default/theirs-0"],
        {"default/mine-0": "n1"},
        id="a queue within its deserved reclaims a task the other queue's gang can spare",
    ),
]


@pytest.mark.parametrize(("action", "objects", "evicted", "pipelined"), CASES)
def test_gang_eviction(
    action: str, objects: list[Model], evicted: list[str], pipelined: dict[str, str]
) -> None:
    result = schedule([*PRIORITIES, *objects], conf_text(f"enqueue, allocate, {action}", *TIERS))
    assert result.evictions == evicted
    assert result.pipelined == pipelined
    assert result.binds == {}


def test_conf_with_gang_actions_and_their_arguments_is_accepted() -> None:
    conf = conf_text("enqueue, allocate, gangpreempt, gangreclaim, backfill", *TIERS)
    conf += (
        "configurations:\n"
        "- name: gangpreempt\n  arguments: {maxDomains: 0, allowWholeBundle: false}\n"
        "- name: gangreclaim\n  arguments: {maxDomains: 3}\n"
    )
    objects = [node("n1", cpu="2"), *_gang("low", 2, min_member=2, running=True)]
    result = schedule([*PRIORITIES, *objects], conf)
    assert result.conf_warnings == []
    assert result.evictions == []
