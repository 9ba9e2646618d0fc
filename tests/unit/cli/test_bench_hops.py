"""The per-hop table of ``shoal bench e2e``: quantiles from histogram buckets, differences."""

from __future__ import annotations

import math

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from services.cli.bench.hops import difference, hop_buckets, hop_depths, quantile, slowest, table
from shared.hops import BIND_CALL, BIND_DECISION, ENTERED_TO_BOUND, WATCHER_PUBLISH, HopMetrics

INF = math.inf


@pytest.mark.parametrize(
    ("cumulative", "q", "expected"),
    [
        ({0.1: 0, 0.2: 10, INF: 10}, 0.5, 0.15),
        ({0.1: 5, 0.2: 10, INF: 10}, 0.5, 0.1),
        ({0.1: 0, 0.2: 0, INF: 4}, 0.99, 0.2),
        ({1.0: 50, 2.0: 100, INF: 100}, 0.99, 1.98),
    ],
    ids=["middle-of-bucket", "bucket-edge", "beyond-last-bucket", "p99-interpolated"],
)
def test_quantile_as_histogram_quantile(
    cumulative: dict[float, float], q: float, expected: float
) -> None:
    assert quantile(cumulative, q) == pytest.approx(expected)


def test_quantile_of_nothing_is_nan() -> None:
    assert math.isnan(quantile({0.1: 0, INF: 0}, 0.5))


def scrape_of(registry: CollectorRegistry) -> str:
    return generate_latest(registry).decode()


def test_table_is_the_difference_in_chain_order_with_depths() -> None:
    registry = CollectorRegistry()
    hops = HopMetrics(registry)
    hops.durations(BIND_CALL, [0.3] * 5)
    before = hop_buckets({"binder": scrape_of(registry)})
    hops.durations(BIND_CALL, [0.03] * 10)
    hops.durations(WATCHER_PUBLISH, [0.005] * 4)
    hops.depth(BIND_CALL, lambda: 7.0)
    after = hop_buckets({"binder": scrape_of(registry)})
    assert hop_depths({"binder": scrape_of(registry)}) == {("binder", BIND_CALL): 7.0}
    rows = table(difference(before, after), {("binder", BIND_CALL): [1.0, 7.0]})
    assert [(r.hop, r.count) for r in rows] == [(WATCHER_PUBLISH, 4), (BIND_CALL, 10)]
    bind = rows[1]
    assert 0.025 <= bind.p50_s <= 0.04  # the five slow ones before are not in the difference
    assert (bind.depth_mean, bind.depth_max) == (4.0, 7.0)
    assert slowest(rows) == BIND_CALL


def test_slowest_leaves_out_the_end_to_end_total() -> None:
    registry = CollectorRegistry()
    hops = HopMetrics(registry)
    hops.durations(ENTERED_TO_BOUND, [9.0])
    hops.durations(BIND_DECISION, [1.0])
    rows = table(hop_buckets({"s": scrape_of(registry)}), {})
    assert slowest(rows) == BIND_DECISION
