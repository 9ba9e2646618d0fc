"""A sampling profiler for one Shoal process, with nothing but the standard library.

``python -m services.cli.bench.sampling OUT.txt services.cli.main run binder`` runs the module
as ``__main__`` while the main thread's stack is sampled every ``interval`` seconds of the
process's CPU time (``ITIMER_PROF``: user + system, so an idle event loop waiting in ``select``
takes no samples and the shares are shares of the CPU the process used) and, at exit, writes
the functions that were on the stack (inclusive) and at its top (exclusive) with their share
of the samples. With ``SHOAL_PROFILE_CLOCK=wall`` a daemon thread samples every ``interval``
seconds of wall time instead (``sys._current_frames``; waits show up, and calls that release
the GIL are over-counted). Sampling costs the process a few percent; unlike cProfile it does
not slow every call, so asyncio timing stays as it was. ``shoal bench e2e --profile DIR``
starts every service this way, and sends each one ``SIGUSR2`` when the burst starts: the
sampler forgets what it counted so far (start-up imports, the light-load run), so the report
is the burst's.
"""

from __future__ import annotations

import atexit
import collections
import gc
import os
import runpy
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

INTERVAL_S = 0.005
_ROOT = str(Path(__file__).resolve().parents[3]) + "/"  # the checkout, cut from file names
PATH_DEPTH = 6  # frames kept of each sample's stack top, to see who calls a hot function


class Sampler:
    def __init__(self, thread_id: int, interval: float = INTERVAL_S) -> None:
        self.thread_id = thread_id
        self.clock = "wall"
        self.interval = interval
        self.samples = 0
        self.inclusive: collections.Counter[str] = collections.Counter()
        self.exclusive: collections.Counter[str] = collections.Counter()
        self.paths: collections.Counter[tuple[str, ...]] = collections.Counter()
        self._stop = threading.Event()
        # Generation → (collections, CPU seconds) of the cyclic garbage collector.
        self.collections: dict[int, tuple[int, float]] = {}
        self._collecting_since = 0.0

    def start(self) -> None:
        """Sample every ``interval`` s of wall time from a thread."""
        threading.Thread(target=self._run, name="sampler", daemon=True).start()

    def start_cpu(self) -> None:
        """Sample every ``interval`` s of the process's CPU time (call from the main thread,
        whose stack the signal handler sees)."""
        signal.signal(signal.SIGPROF, self._on_signal)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)

    def watch_collector(self) -> None:
        """Time the cyclic garbage collector too: its passes run inside whatever function
        allocated when a threshold tripped, so samples alone charge them to that function."""
        gc.callbacks.append(self._on_collection)

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._collecting_since = time.process_time()
            return
        generation = info.get("generation", 0)
        spent = time.process_time() - self._collecting_since
        self.collections[generation] = self.collections.get(generation, (0, 0.0))
        count, seconds = self.collections[generation]
        self.collections[generation] = (count + 1, seconds + spent)

    def reset(self) -> None:
        self.samples = 0
        self.collections.clear()
        self.inclusive.clear()
        self.exclusive.clear()
        self.paths.clear()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if frame is not None and not self._stop.is_set():
            self.take(frame)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            frame = sys._current_frames().get(self.thread_id)
            if frame is not None:
                self.take(frame)

    def take(self, frame: FrameType) -> None:
        self.samples += 1
        seen: set[str] = set()
        path: list[str] = []
        current: FrameType | None = frame
        while current is not None:
            code = current.f_code
            name = f"{code.co_filename}:{code.co_firstlineno}:{code.co_name}"
            if not path:
                self.exclusive[name] += 1
            if len(path) < PATH_DEPTH:
                path.append(name)
            if name not in seen:
                seen.add(name)
                self.inclusive[name] += 1
            current = current.f_back
        self.paths[tuple(path)] += 1

    def report(self, limit: int = 60) -> str:
        self._stop.set()
        total = max(self.samples, 1)
        lines = [
            f"pid {os.getpid()}: {self.samples} samples every {self.interval * 1000:g} ms"
            f" of {self.clock} time"
        ]
        if self.collections:
            lines.append(
                "gc: "
                + ", ".join(
                    f"gen{gen} {count} x = {seconds:.3f} s"
                    for gen, (count, seconds) in sorted(self.collections.items())
                )
            )
        for title, counter in (("exclusive", self.exclusive), ("inclusive", self.inclusive)):
            lines.append(f"--- {title}")
            for name, count in counter.most_common(limit):
                lines.append(f"{100 * count / total:6.1f}%  {_short(name)}")
        lines.append("--- stack tops (callee first)")
        for path, count in self.paths.most_common(limit // 2):
            lines.append(f"{100 * count / total:6.1f}%  " + " < ".join(map(_short, path)))
        return "\n".join(lines) + "\n"


def _short(name: str) -> str:
    for marker in ("site-packages/", _ROOT, "/lib/python3"):
        if marker in name:
            return name.split(marker, 1)[1]
    return name


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        raise SystemExit("usage: python -m services.cli.bench.sampling OUT MODULE [ARGS...]")
    out, module, *args = argv
    sampler = Sampler(threading.get_ident())
    sampler.watch_collector()
    started = time.monotonic()

    def reset(signum: int, frame: FrameType | None) -> None:
        nonlocal started
        sampler.reset()
        started = time.monotonic()

    def write() -> None:
        seconds = time.monotonic() - started
        Path(out).write_text(f"{seconds:.1f} s wall\n" + sampler.report())

    atexit.register(write)
    signal.signal(signal.SIGUSR2, reset)
    if os.environ.get("SHOAL_PROFILE_CLOCK", "cpu") == "wall":
        sampler.start()
    else:
        sampler.clock = "cpu"
        sampler.start_cpu()
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
