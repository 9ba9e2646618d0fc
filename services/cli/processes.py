"""Child processes of a local stack: start with a log file, signal, stop with a grace period,
and read CPU time and RSS from /proc."""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
import socket
import ssl
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from shared.errors import UserError

USER_ERROR = 2  # the exit code of a UserError (services/cli/main.py)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time process ``pid`` used so far (from /proc; None if gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime and stime are fields 14 and 15 of stat(5); fields[0] here is field 3.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Process:
    name: str
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    health_port: int | None = None
    popen: subprocess.Popen[bytes] | None = None
    preexec: Callable[[], None] | None = None

    def start(self) -> None:
        log = self.log_path.open("ab")
        self.popen = subprocess.Popen(
            self.argv,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=self.preexec,
        )
        log.close()

    def returncode(self) -> int | None:
        return self.popen.poll() if self.popen is not None else None

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen else None

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def signal(self, sig: signal.Signals) -> None:
        if self.alive() and self.popen is not None:
            self.popen.send_signal(sig)

    def wait(self, timeout: float) -> int | None:
        if self.popen is None:
            return None
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> int | None:
        """SIGKILL, as a crash: nothing is flushed or closed."""
        self.signal(signal.SIGKILL)
        return self.wait(5)

    def stop(self, grace: float, *, signalled: bool = False) -> int | None:
        if not signalled:  # a second SIGTERM would hit a service already past its handler
            self.signal(signal.SIGTERM)
        code = self.wait(grace)
        if code is None and self.alive():
            self.signal(signal.SIGKILL)
            code = self.wait(5)
        return code

    def failure(self) -> Exception:
        """Why the process ended during start-up: its own one-line error for exit code 2 (a
        ``UserError``, e.g. kubesim's damaged journal), else a pointer to its log."""
        if self.returncode() == USER_ERROR:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
            if lines:
                return UserError(f"{self.name}: {lines[-1].removeprefix('shoal: ')}")
        return RuntimeError(f"{self.name} exited; see {self.log_path}")

    def cpu_seconds(self) -> float | None:
        if not self.alive() or self.popen is None:
            return None
        return cpu_seconds(self.popen.pid)

    def rss_mib(self) -> float | None:
        if not self.alive() or self.popen is None:
            return None
        try:
            for line in Path(f"/proc/{self.popen.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except OSError:
            return None
        return None


_PR_SET_PDEATHSIG = 1


def die_with_parent(sig: signal.Signals = signal.SIGTERM) -> Callable[[], None]:
    """A ``preexec_fn``: the child gets ``sig`` when the process that started it dies (Linux)."""

    def arrange() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)

    return arrange


async def wait_until_ok(
    url: str,
    timeout: float,
    process: Process | None,
    *,
    context: ssl.SSLContext | None = None,
    every: float = 0.1,
) -> None:
    """Poll ``url`` until it answers 200; fail at once if ``process`` exits first."""
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if process is not None and not process.alive():
                raise process.failure()
            try:
                async with session.get(
                    url, ssl=context or True, timeout=aiohttp.ClientTimeout(total=2)
                ) as response:
                    if response.status == 200:
                        return
            except (aiohttp.ClientError, TimeoutError):
                pass
            await asyncio.sleep(every)
    name = process.name if process is not None else url
    raise TimeoutError(f"{name} not ready at {url} after {timeout:.0f}s")
