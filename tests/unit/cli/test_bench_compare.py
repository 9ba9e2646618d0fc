"""``shoal bench compare``'s pure parts: the pods it creates, how processes are grouped into
sides, the summary of runs and its table, and the arguments it refuses."""

from __future__ import annotations

import argparse
import asyncio
import time

import pytest

from services.cli.bench import compare
from services.cli.main import main

BASIC = compare.WORKLOADS["basic"]


def test_pod_is_scheduler_perfs_default_pod_for_the_side() -> None:
    manifest = compare.pod_manifest("pod-1", BASIC, "shoal")
    spec = manifest["spec"]
    assert spec["schedulerName"] == "shoal"
    resources = spec["containers"][0]["resources"]
    assert resources["requests"] == {"cpu": "100m", "memory": "500Mi"}
    assert resources["limits"] == resources["requests"]
    assert manifest["metadata"] == {"name": "pod-1", "namespace": compare.NAMESPACE}


def test_processes_group_into_the_scheduler_side_and_the_shared_control_plane() -> None:
    cpu = {
        "kube-apiserver": 10.0,
        "etcd": 2.0,
        "kwok": 1.0,
        "kube-controller-manager": 0.5,
        "scheduler": 3.0,
        "binder": 1.0,
        "kafka": 2.0,
        "webhook": None,
    }
    assert compare._grouped(cpu) == {"scheduler_side": 6.0, "kube-apiserver": 10.0, "etcd": 2.0}


def _run(side: str, pods_per_s: float, apiserver: float) -> compare.Json:
    return {
        "side": side,
        "nodes": 10,
        "unit": "pod",
        "init": 1,
        "count": 100,
        "units_bound": 100,
        "pods": 100,
        "backlog": True,
        "pods_bound": 100,
        "complete": True,
        "seconds": 1.0,
        "created_in_s": 1.0,
        "pods_per_s": pods_per_s,
        "create_to_bound_p50_s": 0.5,
        "create_to_bound_p99_s": 0.9,
        "cpu_s": {"scheduler_side": 1.0, "kube-apiserver": apiserver, "etcd": 1.0},
        "cpu_s_per_process": {"kube-scheduler": 1.0},
        "rss_mib_peak": {"scheduler_side": 100.0, "kube-apiserver": 1.0, "etcd": 1.0},
        "writes_per_unit": {"create pods": 1.0, "create pods/binding": 1.0},
        "load_average": [1.0, 1.0, 1.0],
        "workdir": "w",
    }


def test_summary_takes_medians_per_side_and_the_ratio_of_shoal_to_the_peer() -> None:
    runs = [
        _run("kube-scheduler", 100, 10),
        _run("shoal", 300, 4),
        _run("kube-scheduler", 80, 12),
        _run("shoal", 100, 6),
        _run("kube-scheduler", 90, 11),
        _run("shoal", 200, 5),
    ]
    summary = compare.summarize(BASIC, runs)
    assert summary["sides"] == ["kube-scheduler", "shoal"]
    rows = {row["row"]: row for row in summary["rows"]}
    assert rows["pods/s"]["kube-scheduler"] == {"runs": [100.0, 80.0, 90.0], "median": 90.0}
    assert rows["pods/s"]["shoal"]["median"] == 200.0
    assert rows["pods/s"]["ratio"] == 2.22
    assert rows["kube-apiserver CPU-s"]["ratio"] == 0.45
    assert rows["API writes per pod"]["shoal"]["median"] == 2.0
    table = compare.render(summary)
    assert "backlog; 3 run(s) per side" in table
    assert "pods/s" in table and "2.22" in table


def test_one_side_alone_has_no_ratio() -> None:
    summary = compare.summarize(BASIC, [_run("shoal", 10, 1)])
    assert summary["sides"] == ["shoal"]
    assert all("ratio" not in row for row in summary["rows"])
    assert "shoal / peer" not in compare.render(summary)


def _kueue_run(side: str, wall: float, usage: float) -> compare.Json:
    return {
        "side": side,
        "unit": "workload",
        "count": 15000,
        "complete": True,
        "wall_s": wall,
        "kueue_usage_pct": usage,
        "usage_pct": usage - 20,
        "admission_mean_s": {"small": 60.0, "medium": 40.0, "large": 0.5},
        "finished": 15000,
        "evictions": 3,
        "cpu_s": {"scheduler_side": 10.0, "kube-apiserver": 20.0, "etcd": 5.0},
        "cpu_s_per_process": {"kueue": 10.0},
        "rss_mib_peak": {"scheduler_side": 100.0, "kube-apiserver": 1.0, "etcd": 1.0},
        "writes_per_unit": {"create workloads": 1.0, "patch workloads/status": 3.0},
        "load_average": [1.0, 1.0, 1.0],
        "workdir": "w",
    }


def test_the_kueue_baseline_is_summarized_by_kueues_checker_measures() -> None:
    kueue = compare.WORKLOADS["kueue"]
    runs = [_kueue_run("kueue", 300.0, 55.0), _kueue_run("shoal", 100.0, 95.0)]
    summary = compare.summarize(kueue, runs)
    assert summary["sides"] == ["kueue", "shoal"]
    rows = {row["row"]: row for row in summary["rows"]}
    assert rows["wall s (all finished)"]["ratio"] == 0.33
    assert rows["ClusterQueue usage %"]["ratio"] == 1.73
    assert rows["API writes per workload"]["shoal"]["median"] == 4.0
    table = compare.render(summary)
    assert "15000 workloads; 1 run(s) per side" in table
    assert "15000/15000 workloads finished in 100.0 s" in table
    assert "pods/s" not in table


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sides", "volcano"], "--sides takes peer and shoal, not volcano"),
        (["--runs", "0"], "--runs must be at least 1"),
        (["--count", "0"], "--count must be at least 1"),
        (["--init", "-1"], "--init must not be negative"),
        (["--scale", "0"], "--scale must be in (0, 10]"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "compare", "basic", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_volcano_unit_is_a_job_of_ten_pods_bound_when_all_are() -> None:
    volcano = compare.WORKLOADS["volcano"]
    job = compare.unit_manifest("job-1", volcano, "volcano")
    assert (job["kind"], job["metadata"]["namespace"]) == ("Job", compare.NAMESPACE)
    assert (job["spec"]["minAvailable"], job["spec"]["queue"]) == (10, "default")
    placement = compare.Placement(volcano.pods_per_job, "volcano.sh/job-name")

    def pod(i: int, node: str) -> dict[str, object]:
        labels = {"volcano.sh/job-name": "job-1"}
        return {"metadata": {"name": f"job-1-w-{i}", "labels": labels}, "spec": {"nodeName": node}}

    for i in range(9):
        placement.observe(pod(i, "n1"), float(i))
    placement.observe(pod(3, "n1"), 20.0)  # a pod seen again counts once
    assert placement.bound == {}
    placement.observe(pod(9, ""), 21.0)  # not bound yet
    placement.observe(pod(9, "n2"), 22.0)
    assert placement.bound == {"job-1": 22.0}


async def test_wait_returns_once_every_awaited_unit_is_bound_or_at_the_deadline() -> None:
    placement = compare.Placement()

    def pod(name: str) -> dict[str, object]:
        return {"metadata": {"name": name}, "spec": {"nodeName": "n1"}}

    placement.observe(pod("a"), 1.0)  # bound before the wait: counted at once
    waiting = asyncio.create_task(placement.wait(["a", "b", "c"], time.monotonic() + 30))
    await asyncio.sleep(0)
    placement.observe(pod("b"), 2.0)
    await asyncio.sleep(0)
    assert not waiting.done()
    placement.observe(pod("c"), 3.0)
    assert await waiting == 3
    assert await placement.wait(["d"], time.monotonic() + 0.05) == 0  # the deadline


def test_the_workload_is_a_choice() -> None:
    parser = argparse.ArgumentParser()
    compare.add_arguments(parser)
    with pytest.raises(SystemExit):
        parser.parse_args(["nonesuch"])
