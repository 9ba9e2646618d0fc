"""The simulated kubelet's pure core: durations, exit codes, restarts, admission."""

from __future__ import annotations

import pytest

from services.kubesim.behaviour import (
    admission_failure,
    behaviour_of,
    parse_duration,
    pod_requests,
    should_restart,
)
from shared.resources import Resources


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("2", 2.0), ("0.5", 0.5), ("250ms", 0.25), ("1m30s", 90.0), ("1h", 3600.0)],
    ids=str,
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "abc", "5x", "1s2"], ids=repr)
def test_bad_duration(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_annotations_and_defaults() -> None:
    pod = {
        "metadata": {
            "annotations": {
                "sim.shoal.io/duration": "2s",
                "sim.shoal.io/exit-code": "7",
                "sim.shoal.io/fail-attempts": "2",
            }
        }
    }
    behaviour = behaviour_of(pod, default_start_delay=0.05)
    assert behaviour.start_delay == 0.05 and behaviour.duration == 2.0
    assert [behaviour.exit_code_of_run(i) for i in range(4)] == [1, 1, 7, 7]
    forever = behaviour_of({"metadata": {}}, default_start_delay=0.1)
    assert forever.duration is None and forever.exit_code == 0


@pytest.mark.parametrize(
    ("policy", "code", "restart"),
    [("Always", 0, True), ("OnFailure", 0, False), ("OnFailure", 2, True), ("Never", 2, False)],
    ids=["always", "onfailure-ok", "onfailure-error", "never"],
)
def test_restart_policy(policy: str, code: int, restart: bool) -> None:
    assert should_restart(policy, code) is restart


def test_requests_sum_containers_and_cover_init_containers() -> None:
    pod = {
        "spec": {
            "containers": [
                {"resources": {"requests": {"cpu": "500m"}}},
                {"resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
            ],
            "initContainers": [{"resources": {"requests": {"cpu": "4"}}}],
        }
    }
    requests = pod_requests(pod)
    assert requests["cpu"] == 4000 and requests["memory"] == 2**30 * 1000


@pytest.mark.parametrize(
    ("request_cpu", "pods_used", "reason"),
    [("1", 0, None), ("3", 0, "OutOfcpu"), ("1", 4, "OutOfpods")],
    ids=["fits", "cpu", "pods"],
)
def test_admission(request_cpu: str, pods_used: int, reason: str | None) -> None:
    allocatable = Resources.from_list({"cpu": "4", "pods": "4"})
    used = Resources.from_list({"cpu": "2"})
    failure = admission_failure(
        Resources.from_list({"cpu": request_cpu}), used, allocatable, pods_used
    )
    assert (failure[0] if failure else None) == reason
