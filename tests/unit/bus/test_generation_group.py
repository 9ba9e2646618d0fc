"""A consumer group per log generation (the scheduler's election, the binder's on the embedded
broker): a broker loss starts a new one."""

from __future__ import annotations

from shared.bus.generation import generation_group


def test_each_log_generation_elects_in_a_group_of_its_own() -> None:
    first = generation_group("shoal-scheduler", "3f2a9c0d11b24e6f8a7b")
    second = generation_group("shoal-scheduler", "77e0c1d2a3b4c5d6e7f8")
    assert first == "shoal-scheduler.3f2a9c0d11b2" and second != first
    assert generation_group("shoal-scheduler", "") == "shoal-scheduler"  # no generation log
