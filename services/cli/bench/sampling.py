"""A sampling profiler for one Shoal process, with nothing but the standard library.

``python -m services.cli.bench.sampling OUT.txt services.cli.main run binder`` runs the module
as ``__main__`` while a daemon thread samples the main thread's stack every ``interval``
seconds (``sys._current_frames``) and, at exit, writes the functions that were on the stack
(inclusive) and at its top (exclusive) with their share of the samples. Sampling costs the
process a few percent; unlike cProfile it does not slow every call, so asyncio timing stays
as it was. ``shoal bench e2e --profile DIR`` starts every service this way.
"""

from __future__ import annotations

import atexit
import collections
import os
import runpy
import sys
import threading
import time
from pathlib import Path
from types import FrameType

INTERVAL_S = 0.005
PATH_DEPTH = 6  # frames kept of each sample's stack top, to see who calls a hot function


class Sampler:
    def __init__(self, thread_id: int, interval: float = INTERVAL_S) -> None:
        self.thread_id = thread_id
        self.interval = interval
        self.samples = 0
        self.inclusive: collections.Counter[str] = collections.Counter()
        self.exclusive: collections.Counter[str] = collections.Counter()
        self.paths: collections.Counter[tuple[str, ...]] = collections.Counter()
        self._stop = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._run, name="sampler", daemon=True).start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            frame = sys._current_frames().get(self.thread_id)
            if frame is not None:
                self._take(frame)

    def _take(self, frame: FrameType) -> None:
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
        lines = [f"pid {os.getpid()}: {self.samples} samples every {self.interval * 1000:g} ms"]
        for title, counter in (("exclusive", self.exclusive), ("inclusive", self.inclusive)):
            lines.append(f"--- {title}")
            for name, count in counter.most_common(limit):
                lines.append(f"{100 * count / total:6.1f}%  {_short(name)}")
        lines.append("--- stack tops (callee first)")
        for path, count in self.paths.most_common(limit // 2):
            lines.append(f"{100 * count / total:6.1f}%  " + " < ".join(map(_short, path)))
        return "\n".join(lines) + "\n"


def _short(name: str) -> str:
    for marker in ("site-packages/", "/wt-perf/", "/lib/python3"):
        if marker in name:
            return name.split(marker, 1)[1]
    return name


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        raise SystemExit("usage: python -m services.cli.bench.sampling OUT MODULE [ARGS...]")
    out, module, *args = argv
    sampler = Sampler(threading.get_ident())
    started = time.monotonic()

    def write() -> None:
        seconds = time.monotonic() - started
        Path(out).write_text(f"{seconds:.1f} s wall\n" + sampler.report())

    atexit.register(write)
    sampler.start()
    sys.argv = [module, *args]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
