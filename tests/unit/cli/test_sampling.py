"""The stack sampler of ``bench e2e --profile``: it sees where a thread spends its time."""

from __future__ import annotations

import signal
import threading
import time

from services.cli.bench.sampling import Sampler


def spin_in_a_named_function(stop: threading.Event) -> None:
    while not stop.is_set():
        sum(range(1000))


def test_sampler_names_the_function_a_busy_thread_is_in() -> None:
    stop = threading.Event()
    worker = threading.Thread(target=spin_in_a_named_function, args=(stop,))
    worker.start()
    assert worker.ident is not None
    sampler = Sampler(worker.ident, interval=0.002)
    sampler.start()
    time.sleep(0.3)
    report = sampler.report()
    stop.set()
    worker.join()
    assert sampler.samples > 10
    assert "spin_in_a_named_function" in report.split("--- inclusive")[1]
    assert "--- stack tops" in report


def test_cpu_sampler_counts_only_time_on_the_cpu() -> None:
    sampler = Sampler(threading.get_ident(), interval=0.002)
    sampler.start_cpu()
    try:
        time.sleep(0.2)  # off the CPU: no samples
        idle = sampler.samples
        deadline = time.process_time() + 0.2
        while time.process_time() < deadline:
            spin_once_in_a_named_function()
    finally:
        report = sampler.report()
        signal.setitimer(signal.ITIMER_PROF, 0)
    assert idle <= 2
    assert sampler.samples > 20
    assert "spin_once_in_a_named_function" in report.split("--- inclusive")[1]


def spin_once_in_a_named_function() -> None:
    sum(range(1000))
