"""kubesim as a child process, for benchmarks and tests that must not share its event loop.

async with KubeSimProcess(["--nodes", "10"]) as sim:
    ...  # sim.url, sim.kubeconfig_path, sim.pid, sim.rss_bytes()
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType


class KubeSimProcess:
    """Runs ``python -m services.kubesim ARGS`` and waits until it listens."""

    def __init__(self, args: Sequence[str] = (), *, start_timeout: float = 30.0) -> None:
        self.args = list(args)
        self.start_timeout = start_timeout
        self.url = ""
        self._tmpdir = tempfile.TemporaryDirectory(prefix="kubesim-proc-")
        self.kubeconfig_path = Path(self._tmpdir.name) / "kubeconfig"
        self._proc: asyncio.subprocess.Process | None = None

    @property
    def pid(self) -> int:
        assert self._proc is not None, "not started"
        return self._proc.pid

    async def start(self) -> None:
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "services.kubesim",
            "--kubeconfig-out",
            str(self.kubeconfig_path),
            *self.args,
            stdout=asyncio.subprocess.PIPE,
        )
        assert self._proc.stdout is not None
        try:
            async with asyncio.timeout(self.start_timeout):
                while not self.url:
                    line = await self._proc.stdout.readline()
                    if not line:
                        raise RuntimeError(f"kubesim exited with code {await self._proc.wait()}")
                    text = line.decode().strip()
                    if text.startswith("KUBESIM_URL="):
                        self.url = text.split("=", 1)[1]
        except BaseException:
            await self.stop()
            raise

    def rss_bytes(self) -> int:
        """Resident memory of the child (Linux /proc)."""
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    async def kill(self) -> None:
        """SIGKILL, as a crash: nothing is flushed or closed (tests of ``--data-dir``)."""
        proc = self._proc
        if proc is not None and proc.returncode is None:
            proc.kill()
            await proc.wait()

    async def stop(self) -> None:
        proc = self._proc
        if proc is not None and proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
        self._tmpdir.cleanup()

    async def __aenter__(self) -> KubeSimProcess:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()
