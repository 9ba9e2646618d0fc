"""Conf warnings are visible: counted on the scheduler's ``/metrics`` once per conf loaded, and
printed by ``shoal explain`` both for manifests (``-f``) and for a recorded cycle (``--file``,
the path ``--bootstrap`` takes)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
import yaml

from services.cli.debug.logfile import write_records
from services.cli.main import main
from services.scheduler.cycle import Scheduling
from services.scheduler.service import Scheduler, SchedulerSettings
from services.scheduler.snapshot import Snapshot
from shared.bus import MemoryBus
from shared.config import KafkaSettings, ServiceSettings
from shared.models import Model
from shared.service import KubeSettings, ServiceShell
from tests.unit.scheduler.builders import group, node, pod
from tests.unit.scheduler.state_records import conf_map, manifest, recorded_log

# Two keys Volcano ignores: a misspelt switch and an argument drf does not read.
TYPO_CONF = """\
actions: "enqueue, allocate"
tiers:
- plugins:
  - name: gang
    enableJobOrdr: true
  - name: drf
    arguments: {drf.enabledHierarchy: true}
"""
SWITCH_WARNING = "unknown key 'enableJobOrdr' is ignored (did you mean 'enableJobOrder'?)"
ARGUMENT_WARNING = "unknown argument 'drf.enabledHierarchy' is ignored"
CLUSTER: list[Model] = [node("n1"), group("job"), pod("job-0", "job")]


def test_scheduling_reports_the_warnings_of_each_conf_once() -> None:
    seen: list[Sequence[str]] = []
    scheduling = Scheduling(on_warnings=seen.append)
    snapshot = Snapshot.of(CLUSTER)
    snapshot.conf_text = TYPO_CONF
    for _ in range(2):
        result = scheduling.session(snapshot, now=0.0, scheduler_names=["volcano"])
    assert len(seen) == 1
    assert len(seen[0]) == 2
    assert result.binds == {"default/job-0": "n1"}
    assert len(result.conf_warnings) == 2
    assert SWITCH_WARNING in result.conf_warnings[0]


async def test_service_counts_conf_warnings_on_metrics(tmp_path: Path) -> None:
    conf = tmp_path / "volcano-scheduler.conf"
    conf.write_text(TYPO_CONF)
    shell = ServiceShell(
        service="scheduler",
        settings=ServiceSettings(http_port=0),
        kafka=KafkaSettings(bootstrap="memory", topic_prefix="warn."),
        kube=KubeSettings(),
    )
    bus = MemoryBus(partitions=1, topic_prefix="warn.", clock=lambda: 1_700_000_000.0)
    scheduler = Scheduler(
        shell=shell, bus=bus, settings=SchedulerSettings(standalone=True, conf=str(conf))
    )
    topics = shell.topics
    await bus.create_topics([*scheduler.state_topics(), *topics.decisions(), topics.cycles])
    for _ in range(2):
        await scheduler.run_cycle()
    assert shell.registry.get_sample_value("shoal_scheduler_conf_warnings_total") == 2.0


def test_explain_prints_conf_warnings_for_manifests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cluster.yaml"
    docs = [manifest(obj) for obj in [conf_map(TYPO_CONF), *CLUSTER]]
    path.write_text(yaml.safe_dump_all(docs))
    assert main(["explain", "-f", str(path), "default/job"]) == 0
    lines = capsys.readouterr().out.splitlines()
    warnings = [line for line in lines if line.startswith("conf warning: ")]
    assert len(warnings) == 2
    assert SWITCH_WARNING in warnings[0]
    assert ARGUMENT_WARNING in warnings[1]


async def test_explain_prints_conf_warnings_for_a_recorded_cycle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = await recorded_log([[conf_map(TYPO_CONF), *CLUSTER]], prefix="warnlog.")
    path = tmp_path / "log.jsonl"
    with path.open("wb") as log:
        write_records(log, records)
    capsys.readouterr()  # the recording service's own log lines
    argv = ["explain", "--file", str(path), "--topic-prefix", "warnlog.", "default/job"]
    assert main([*argv, "-o", "json"]) == 0
    doc = yaml.safe_load(capsys.readouterr().out)
    assert len(doc["confWarnings"]) == 2
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"conf warning: tiers[0].plugins[0] (gang): {SWITCH_WARNING}" in out
