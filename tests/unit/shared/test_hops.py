"""Per-hop metrics: what a hop observes, what it leaves out, and the wire field they rely on."""

from __future__ import annotations

import itertools

import msgspec
import pytest
from prometheus_client import CollectorRegistry

from shared.events import PodBindDecided, decision_decoder, encode
from shared.hops import BIND_CALL, BUCKETS, HOP_QUEUE_DEPTH, HOP_SECONDS, HopMetrics


def count(registry: CollectorRegistry, hop: str) -> float:
    value = registry.get_sample_value(f"{HOP_SECONDS}_count", {"hop": hop})
    return value or 0.0


def total(registry: CollectorRegistry, hop: str) -> float:
    return registry.get_sample_value(f"{HOP_SECONDS}_sum", {"hop": hop}) or 0.0


@pytest.mark.parametrize(
    ("since", "now", "counted", "seconds"),
    [
        (10.0, 10.25, 1, 0.25),
        (0.0, 10.0, 0, 0.0),  # unknown start (a rebuilt record): not a wait
        (10.5, 10.0, 1, 0.0),  # clocks of two processes: never negative
    ],
    ids=["timed", "unknown-start-skipped", "clock-skew-clamped"],
)
def test_observe(since: float, now: float, counted: int, seconds: float) -> None:
    registry = CollectorRegistry()
    HopMetrics(registry).observe(BIND_CALL, since, now)
    assert count(registry, BIND_CALL) == counted
    assert total(registry, BIND_CALL) == pytest.approx(seconds)


def test_observe_many_and_durations_share_the_histogram() -> None:
    registry = CollectorRegistry()
    hops = HopMetrics(registry)
    hops.observe_many(BIND_CALL, [1.0, 0.0, 2.0], 3.0)
    hops.durations(BIND_CALL, [0.5])
    assert count(registry, BIND_CALL) == 3
    assert total(registry, BIND_CALL) == pytest.approx(2.0 + 1.0 + 0.5)


def test_depth_is_read_at_scrape_time() -> None:
    registry = CollectorRegistry()
    queue = [1, 2]
    HopMetrics(registry).depth(BIND_CALL, lambda: float(len(queue)))
    assert registry.get_sample_value(HOP_QUEUE_DEPTH, {"hop": BIND_CALL}) == 2
    queue.append(3)
    assert registry.get_sample_value(HOP_QUEUE_DEPTH, {"hop": BIND_CALL}) == 3


def test_buckets_resolve_milliseconds_to_minutes() -> None:
    assert list(BUCKETS) == sorted(BUCKETS)
    assert BUCKETS[0] <= 0.001 and BUCKETS[-1] >= 60
    assert all(b / a <= 2.0 for a, b in itertools.pairwise(BUCKETS))


def test_entered_at_is_on_the_wire_only_when_known() -> None:
    unknown = PodBindDecided(key="ns/p", pod_uid="u", node="n")
    assert b"entered_at" not in encode(unknown)
    known = msgspec.structs.replace(unknown, entered_at=12.5)
    decoded = decision_decoder.decode(encode(known))
    assert isinstance(decoded, PodBindDecided) and decoded.entered_at == 12.5
    old = b'{"type":"PodBindDecided","key":"ns/p","pod_uid":"u","node":"n"}'
    assert decision_decoder.decode(old).entered_at == 0.0  # records from before still decode
