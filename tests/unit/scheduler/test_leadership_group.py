"""The leader election's consumer group is per log generation (a broker loss starts a new one)."""

from __future__ import annotations

from services.scheduler.service import leader_group


def test_each_log_generation_elects_in_a_group_of_its_own() -> None:
    first = leader_group("shoal-scheduler", "3f2a9c0d11b24e6f8a7b")
    second = leader_group("shoal-scheduler", "77e0c1d2a3b4c5d6e7f8")
    assert first == "shoal-scheduler.3f2a9c0d11b2" and second != first
    assert leader_group("shoal-scheduler", "") == "shoal-scheduler"  # no generation log
