"""A child that exits during ``shoal up``'s start-up: its own one-line error for exit code 2
(a damaged kubesim journal with ``--keep-data``), a pointer to its log otherwise."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from services.cli.processes import Process, wait_until_ok
from shared.errors import UserError

LINE = (
    "journal /d/journal.wal is damaged at record 4, byte offset 620: checksum; start with --repair"
)


@pytest.mark.parametrize(
    ("code", "raised", "message"),
    [
        (2, UserError, f"kubesim: {LINE}"),
        (1, RuntimeError, "kubesim exited; see "),
    ],
    ids=["user-error-surfaces-its-line", "crash-points-to-the-log"],
)
async def test_a_child_that_exits_during_start(
    tmp_path: Path, code: int, raised: type[Exception], message: str
) -> None:
    script = f"import sys; print('noise'); print('shoal: {LINE}'); sys.exit({code})"
    process = Process("kubesim", [sys.executable, "-c", script], dict(os.environ),
                      tmp_path / "kubesim.log")  # fmt: skip
    process.start()
    process.wait(30)
    with pytest.raises(raised) as failure:
        await wait_until_ok("http://127.0.0.1:9/version", 5, process)
    assert str(failure.value).startswith(message)
    assert "\n" not in str(failure.value)
