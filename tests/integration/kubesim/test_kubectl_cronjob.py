"""The real kubectl against kubesim's batch/v1 CronJob: apply with defaults, the printer's
columns, the short name, kube-apiserver's 422 for a bad schedule and a ``TZ=`` prefix, and a
status write through the status subresource."""

from __future__ import annotations

import json

import pytest
import yaml

from services.kubesim.app import KubeSim
from tests.integration.kubesim.kubesim_helpers import KUBECTL, kubectl, run_kubectl

pytestmark = [
    pytest.mark.kubesim,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed on this machine"),
]


def manifest(name: str, schedule: str, **spec: object) -> bytes:
    return yaml.safe_dump(
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "schedule": schedule,
                "jobTemplate": {
                    "spec": {
                        "template": {
                            "spec": {
                                "restartPolicy": "Never",
                                "containers": [{"name": "c", "image": "busybox"}],
                            }
                        }
                    }
                },
                **spec,
            },
        }
    ).encode()


async def test_apply_defaults_and_print(sim: KubeSim) -> None:
    out = await kubectl(sim, "apply", "-f", "-", stdin=manifest("hello", "*/1 * * * *"))
    assert "cronjob.batch/hello created" in out
    obj = json.loads(await kubectl(sim, "get", "cj", "hello", "-o", "json"))
    spec = obj["spec"]
    assert (spec["concurrencyPolicy"], spec["suspend"]) == ("Allow", False)
    assert (spec["successfulJobsHistoryLimit"], spec["failedJobsHistoryLimit"]) == (3, 1)
    table = (await kubectl(sim, "get", "cronjob", "hello")).splitlines()
    assert table[0].split() == ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE",
                                "LAST", "SCHEDULE", "AGE"]  # fmt: skip
    assert table[1].split()[:6] == ["hello", "*/1", "*", "*", "*", "*"]
    assert table[1].split()[6:10] == ["<none>", "False", "0", "<none>"]
    patch = json.dumps({"status": {"lastScheduleTime": "2016-05-19T10:00:00Z"}})
    await kubectl(sim, "patch", "cronjob", "hello", "--subresource=status", "--type=merge",
                  "-p", patch)  # fmt: skip
    obj = json.loads(await kubectl(sim, "get", "cronjob", "hello", "-o", "json"))
    assert obj["status"]["lastScheduleTime"] == "2016-05-19T10:00:00Z"
    await kubectl(sim, "delete", "cronjob", "hello")


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        (
            "obvious error schedule",
            'spec.schedule: Invalid value: "obvious error schedule": expected exactly 5 fields, '
            "found 3: [obvious error schedule]",
        ),
        (
            "TZ=UTC 0 * * * *",
            'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in '
            "schedule, use timeZone field instead",
        ),
    ],
    ids=["unparseable", "tz-prefix"],
)
async def test_bad_schedule_is_refused_with_kube_apiservers_message(
    sim: KubeSim, schedule: str, message: str
) -> None:
    code, _, err = await run_kubectl(sim, "create", "-f", "-", stdin=manifest("bad", schedule))
    assert code != 0
    assert 'The CronJob "bad" is invalid' in err
    assert message in err
