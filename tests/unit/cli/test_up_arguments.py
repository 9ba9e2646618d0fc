"""``shoal up`` refuses a bad node shape with one line and exit 2, before starting anything."""

from __future__ import annotations

import pytest

from services.cli.main import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--node-cpu", "lots"], "--node-cpu 'lots': invalid quantity"),
        (["--node-memory", "12Qi"], "--node-memory '12Qi': invalid quantity"),
        (["--node-gpus", "-1"], "--node-gpus -1: must be >= 0"),
    ],
    ids=["cpu", "memory", "gpus"],
)
def test_bad_node_shape(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["up", "--no-demo", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
