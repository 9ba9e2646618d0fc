"""``shoal bench kueue``'s ClusterQueue usage, integrated as Kueue's recorder does."""

from __future__ import annotations

import pytest

from services.cli.bench.kueue import QueueUsage


def _status(cpu: str) -> dict[str, object]:
    return {"flavorsUsage": [{"name": "rf", "resources": [{"name": "cpu", "total": cpu}]}]}


def test_usage_holds_each_event_until_the_next_of_its_queue() -> None:
    usage = QueueUsage()
    usage.observe("a", {}, 0.0)  # no flavorsUsage yet: nothing used
    usage.observe("b", _status("0"), 0.0)
    usage.observe("a", _status("20"), 1.0)
    usage.observe("b", _status("500m"), 2.0)
    usage.observe("a", _status("0"), 3.0)  # a: 20 CPUs for 2 s
    usage.observe("b", _status("0"), 4.0)  # b: 0.5 CPU for 2 s
    assert usage.used == pytest.approx(41.0)
    # Two queues of nominal 20 over the 4 s from the first event to the last.
    assert usage.percent(40) == pytest.approx(100 * 41 / (40 * 4))


def test_no_elapsed_time_is_no_usage() -> None:
    usage = QueueUsage()
    assert usage.percent(20) == 0.0
    usage.observe("a", _status("20"), 5.0)
    assert usage.percent(20) == 0.0
