"""``shoal bench client`` drives kubesim (its own process) through both HTTP stacks: each
round's calls all succeed and each stack reports its own figures."""

from __future__ import annotations

import argparse
from pathlib import Path

from services.cli.bench import client


async def test_both_stacks_make_every_call_and_report_their_cost(tmp_path: Path) -> None:
    args = argparse.Namespace(
        calls=40, concurrency=4, rounds=2, control_plane="kubesim", workdir=tmp_path, json=True
    )
    result = await client.bench(args)
    assert set(result["stacks"]) == {"aiohttp", "lean"}
    for figures in result["stacks"].values():
        assert len(figures["cpu_us_per_call"]) == 2
        assert all(cpu > 0 for cpu in figures["cpu_us_per_call"])
        assert all(rate > 0 for rate in figures["calls_per_s"])
    assert "lean" in client.render(result) and "aiohttp" in client.render(result)
