"""Per-hop waits of a running stack, read from the services' ``/metrics`` (``shared.hops``).

``HopReading`` takes the cumulative ``shoal_hop_seconds`` buckets of every service; the
difference of two readings is what happened between them, and its p50/p99 are interpolated
inside the buckets as Prometheus' ``histogram_quantile`` does. ``DepthSampler`` reads the
``shoal_hop_queue_depth`` gauges while a run goes on (mean and max per hop).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from shared.hops import HOP_QUEUE_DEPTH, HOP_SECONDS, HOPS

Json = dict[str, Any]
# (service, hop) → {upper bound: cumulative count}
Buckets = dict[tuple[str, str], dict[float, float]]


async def scrape(ports: Mapping[str, int]) -> dict[str, str]:
    """The ``/metrics`` text of each service (missing when it does not answer)."""
    texts: dict[str, str] = {}
    async with aiohttp.ClientSession() as session:
        for name, port in ports.items():
            try:
                url = f"http://127.0.0.1:{port}/metrics"
                async with session.get(url, timeout=aiohttp.ClientTimeout(total=5)) as r:
                    texts[name] = await r.text()
            except (aiohttp.ClientError, TimeoutError):
                continue
    return texts


def hop_buckets(texts: Mapping[str, str]) -> Buckets:
    out: Buckets = {}
    for service, text in texts.items():
        for family in text_string_to_metric_families(text):
            if family.name != HOP_SECONDS:
                continue
            for sample in family.samples:
                if sample.name.endswith("_bucket"):
                    bound = float(sample.labels["le"])
                    out.setdefault((service, sample.labels["hop"]), {})[bound] = sample.value
    return out


def hop_depths(texts: Mapping[str, str]) -> dict[tuple[str, str], float]:
    out: dict[tuple[str, str], float] = {}
    for service, text in texts.items():
        for family in text_string_to_metric_families(text):
            if family.name == HOP_QUEUE_DEPTH:
                for sample in family.samples:
                    out[(service, sample.labels["hop"])] = sample.value
    return out


def quantile(cumulative: Mapping[float, float], q: float) -> float:
    """``histogram_quantile``: the bucket holding rank ``q``, interpolated linearly."""
    bounds = sorted(cumulative)
    total = cumulative[bounds[-1]] if bounds else 0.0
    if total <= 0:
        return math.nan
    rank = q * total
    lower, below = 0.0, 0.0
    for bound in bounds:
        count = cumulative[bound]
        if count >= rank:
            if math.isinf(bound):
                return lower  # beyond the last finite bucket: its bound is all we know
            inside = count - below
            return lower + (bound - lower) * ((rank - below) / inside if inside else 1.0)
        lower, below = bound, count
    return lower


@dataclass
class HopRow:
    service: str
    hop: str
    count: int
    p50_s: float
    p99_s: float
    depth_mean: float | None = None
    depth_max: float | None = None


def difference(before: Buckets, after: Buckets) -> Buckets:
    return {
        key: {b: c - before.get(key, {}).get(b, 0.0) for b, c in buckets.items()}
        for key, buckets in after.items()
    }


@dataclass
class DepthSampler:
    """Samples the queue-depth gauges every ``interval`` seconds until cancelled."""

    ports: Mapping[str, int]
    interval: float = 0.5
    samples: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    async def run(self) -> None:
        while True:
            for key, value in hop_depths(await scrape(self.ports)).items():
                self.samples.setdefault(key, []).append(value)
            await asyncio.sleep(self.interval)


def table(delta: Buckets, depths: Mapping[tuple[str, str], list[float]]) -> list[HopRow]:
    """One row per hop that saw records, in the order of the chain."""
    rows: list[HopRow] = []
    for (service, hop), buckets in sorted(delta.items(), key=lambda kv: _order(kv[0][1])):
        count = int(max(buckets.values(), default=0.0))
        if count <= 0:
            continue
        seen = depths.get((service, hop)) or []
        rows.append(
            HopRow(
                service=service,
                hop=hop,
                count=count,
                p50_s=round(quantile(buckets, 0.5), 4),
                p99_s=round(quantile(buckets, 0.99), 4),
                depth_mean=round(sum(seen) / len(seen), 1) if seen else None,
                depth_max=max(seen) if seen else None,
            )
        )
    return rows


def slowest(rows: list[HopRow]) -> str | None:
    """The hop with the largest p50, the end-to-end total left out."""
    candidates = [r for r in rows if r.hop != "entered_to_bound"]
    return max(candidates, key=lambda r: r.p50_s).hop if candidates else None


def render_rows(rows: list[Json]) -> list[str]:
    lines = [f"    {'hop':<28}{'service':<15}{'count':>7}{'p50 s':>9}{'p99 s':>9}{'depth':>14}"]
    for r in rows:
        depth = "" if r["depth_max"] is None else f"{r['depth_mean']:g}/{r['depth_max']:g}"
        lines.append(
            f"    {r['hop']:<28}{r['service']:<15}{r['count']:>7}"
            f"{r['p50_s']:>9.3f}{r['p99_s']:>9.3f}{depth:>14}"
        )
    lines.append("    (depth: mean/max waiting in front of the hop while the burst ran)")
    return lines


def _order(hop: str) -> int:
    return HOPS.index(hop) if hop in HOPS else len(HOPS)
