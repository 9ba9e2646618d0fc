"""A small differential comparison per peer, so a regression in fidelity shows up in CI: 20
seeded scenarios (``shoal compare decisions --peer volcano|kueue --count 20``) replayed under
the peer (vc-scheduler + vc-controller-manager; Kueue's manager) and under Shoal, each on its
own real control plane, both at once. The full runs (hundreds of scenarios) are benchmarks
(docs/peers.md), not tests.

This module manages its own planes (the conftest's per-module stack is Shoal's alone).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from services.cli.decisions.command import run_sides
from services.cli.decisions.generating import volcano_scenario
from services.cli.decisions.kueue import KueueScenario, kueue_scenario
from services.cli.decisions.report import compare, render
from services.cli.decisions.scenario import Scenario
from services.cli.processes import die_with_parent
from tests.e2e.conftest import require_real

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

SEEDS = range(20)
GENERATORS: dict[str, Callable[[int], Scenario | KueueScenario]] = {
    "volcano": volcano_scenario,
    "kueue": kueue_scenario,
}


@pytest.mark.parametrize("peer", sorted(GENERATORS))
async def test_the_peer_and_shoal_decide_the_same(peer: str, tmp_path: Path) -> None:
    require_real()
    corpus = [GENERATORS[peer](seed) for seed in SEEDS]
    main = threading.current_thread() is threading.main_thread()
    left, right = await run_sides(
        peer, corpus, tmp_path, preexec=die_with_parent() if main else None
    )
    report = compare(peer, corpus, left, right)
    print(render(report))
    assert len(report.ran) == len(corpus), render(report)
    assert report.passed, render(report)
