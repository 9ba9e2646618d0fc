"""``shoal bench kueue-replay``: Kueue's baseline through the admission alone, on a fake clock."""

from __future__ import annotations

import argparse

import pytest

from services.cli.bench import kueue_replay


def _args(**overrides: object) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    kueue_replay.add_arguments(parser)
    args = parser.parse_args(["--cohorts", "1", "--queues", "2", "--scale", "0.02"])
    for name, value in overrides.items():
        setattr(args, name, value)
    return args


@pytest.mark.parametrize("window", [0, 2], ids=["whole-queues", "window-of-2"])
@pytest.mark.parametrize("paced", [False, True], ids=["every-status", "paced-as-the-service"])
def test_every_workload_finishes_and_a_replay_decides_the_same_twice(
    paced: bool, window: int
) -> None:
    first = kueue_replay.replay(_args(paced=paced, window=window))
    again = kueue_replay.replay(_args(paced=paced, window=window))
    assert first["finished"] == first["workloads"] == 20  # 7 + 2 + 1 per queue
    assert 0 < first["usage_pct"] <= 100
    assert first["digest"] == again["digest"]
