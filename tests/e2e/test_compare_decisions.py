"""A small differential comparison, so a regression in fidelity shows up in CI: 20 seeded
Volcano scenarios (``shoal compare decisions --peer volcano --count 20``) replayed under
vc-scheduler + vc-controller-manager and under Shoal, each on its own real control plane, both
at once. The full runs (hundreds of scenarios) are benchmarks (docs/peers.md), not tests.

This module manages its own planes (the conftest's per-module stack is Shoal's alone).
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from services.cli.decisions.command import run_sides
from services.cli.decisions.generating import volcano_scenario
from services.cli.decisions.report import compare, render
from services.cli.processes import die_with_parent
from tests.e2e.conftest import require_real

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

SEEDS = range(20)


async def test_volcano_and_shoal_decide_the_same(tmp_path: Path) -> None:
    require_real()
    corpus = [volcano_scenario(seed) for seed in SEEDS]
    main = threading.current_thread() is threading.main_thread()
    left, right = await run_sides(
        "volcano", corpus, tmp_path, preexec=die_with_parent() if main else None
    )
    report = compare("volcano", corpus, left, right)
    print(render(report))
    assert len(report.ran) == len(corpus), render(report)
    assert report.passed, render(report)
