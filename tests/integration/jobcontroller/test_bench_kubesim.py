"""``shoal bench jobcontroller --target kubesim`` at tiny scale: every Pod appears in kubesim.

kubesim, the watcher and the job controller run as child processes over the test broker.
"""

from __future__ import annotations

import pytest

from services.cli.bench.jobcontroller_kubesim import bench_kubesim, table
from shared.config import BrokerKind

pytestmark = [pytest.mark.broker, pytest.mark.kubesim, pytest.mark.timeout(120)]


async def test_tiny_bench_creates_every_pod_through_the_services(
    kafka_bootstrap: str, broker_kind: BrokerKind
) -> None:
    result = await bench_kubesim(
        jobs=5, pods=2, bootstrap=kafka_bootstrap, broker=broker_kind, timeout=60
    )

    assert result.pods_created == 10
    assert result.pods_created_per_s > 0
    assert result.reconciles >= 1  # read from the job controller's own /metrics
    assert {"kubesim", "watcher", "jobcontroller", "bench"} <= set(result.rss_mib)
    assert all(mib > 0 for mib in result.rss_mib.values())
    assert "pods created/s" in table(result)
