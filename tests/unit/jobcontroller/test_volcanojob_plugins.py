"""Volcano job plugins as master's ``pkg/controllers/job/plugins/{svc,ssh,env}`` shape them:
the svc plugin's NetworkPolicy and flags, the ssh config and key mode, Go flag parsing.

Upstream master has no ``svc_test.go`` or ``env_test.go`` (they exist only on unmerged pull
requests), so these rows are Shoal's, written from the plugins' source.
"""

from __future__ import annotations

import pytest

from services.jobcontroller.core import Observed
from services.jobcontroller.volcanojob import reconcile
from services.jobcontroller.volcanojob.goflags import FlagKind, Value, parse_flags
from shared.models import Json, PodGroup, convert
from shared.models.volcano import VolcanoJobStatus
from tests.unit.jobcontroller.statusjson import status_json
from tests.unit.jobcontroller.volcano_cases import NOW, command, run, vcjob, vcpod

SELECTOR = {"volcano.sh/job-name": "train", "volcano.sh/job-namespace": "ns"}
JOB_UID = "u-1"


def first_sync(plugins: dict[str, list[str]]) -> list[Json]:
    return reconcile(vcjob(plugins=plugins), Observed(), NOW).create


def pods(plugins: dict[str, list[str]]) -> list[Json]:
    job = vcjob(plugins=plugins)
    first = reconcile(job, Observed(), NOW)
    job.status = convert(status_json(first), VolcanoJobStatus)
    group = next(o for o in first.create if o["kind"] == "PodGroup")
    admitted = convert({**group, "status": {"phase": "Inqueue"}}, PodGroup)
    return [o for o in reconcile(job, Observed(podgroups=[admitted]), NOW + 1).create]


def of_kind(objects: list[Json], kind: str) -> list[Json]:
    return [o for o in objects if o["kind"] == kind]


def test_svc_creates_the_network_policy_of_create_network_policy_if_not_exist() -> None:
    (policy,) = of_kind(first_sync({"svc": []}), "NetworkPolicy")
    assert policy["apiVersion"] == "networking.k8s.io/v1"
    assert policy["metadata"]["name"] == "train" and policy["metadata"]["namespace"] == "ns"
    assert policy["metadata"]["ownerReferences"][0]["uid"] == JOB_UID
    assert policy["spec"] == {
        "podSelector": {"matchLabels": SELECTOR},
        "ingress": [{"from": [{"podSelector": {"matchLabels": SELECTOR}}]}],
        "policyTypes": ["Ingress"],
    }


@pytest.mark.parametrize(
    ("args", "has_policy"),
    [
        pytest.param([], True, id="default"),
        pytest.param(["--disable-network-policy"], False, id="--disable-network-policy"),
        pytest.param(["--disable-network-policy=true"], False, id="=true"),
        pytest.param(["--disable-network-policy=false"], True, id="=false"),
        pytest.param(["-disable-network-policy"], False, id="one dash"),
        pytest.param(["test1", "--disable-network-policy"], True, id="after a non-flag: unread"),
        pytest.param(["--unknown", "--disable-network-policy"], True, id="after an unknown flag"),
    ],
)
def test_svc_disable_network_policy(args: list[str], has_policy: bool) -> None:
    created = first_sync({"svc": args})
    assert len(of_kind(created, "NetworkPolicy")) == (1 if has_policy else 0)
    assert len(of_kind(created, "Service")) == 1 and len(of_kind(created, "ConfigMap")) == 1


@pytest.mark.parametrize(
    ("args", "deleted"),
    [
        pytest.param([], ["ConfigMap", "Service", "NetworkPolicy"], id="default"),
        pytest.param(["--disable-network-policy"], ["ConfigMap", "Service"], id="disabled"),
    ],
)
def test_svc_on_job_delete(args: list[str], deleted: list[str]) -> None:
    """An aborted job's plugin objects go (``OnJobDelete``), the NetworkPolicy unless disabled."""
    job = vcjob(
        phase="Running",
        plugins={"svc": args},
        status={"controlledResources": {"plugin-svc": "svc"}},
    )
    running = [vcpod("master", 0), vcpod("worker", 0), vcpod("worker", 1)]
    actions = run(job, running, commands=[command("AbortJob")])
    kinds = [k for k in actions.delete_kinds if k not in ("Pod", "PodGroup")]
    assert kinds == deleted
    assert "ns/train" in [
        key for key, kind in zip(actions.delete, actions.delete_kinds, strict=True)
        if kind in ("Service", "NetworkPolicy")
    ]  # fmt: skip
    assert "plugin-svc" not in status_json(actions).get("controlledResources", {})


def test_svc_service_is_headless_without_ports() -> None:
    """``createServiceIfNotExist``: no placeholder port (upstream removed it)."""
    (service,) = of_kind(first_sync({"svc": []}), "Service")
    assert service["spec"] == {"clusterIP": "None", "selector": SELECTOR}
    (published,) = of_kind(first_sync({"svc": ["--publish-not-ready-addresses"]}), "Service")
    assert published["spec"]["publishNotReadyAddresses"] is True


@pytest.mark.parametrize(
    ("args", "env_names"),
    [
        pytest.param(
            [],
            ["VC_MASTER_HOSTS", "VC_MASTER_NUM", "VC_WORKER_HOSTS", "VC_WORKER_NUM"],
            id="inject-hosts-env default true",
        ),
        pytest.param(["--inject-hosts-env=false"], [], id="--inject-hosts-env=false"),
    ],
)
def test_svc_inject_hosts_env(args: list[str], env_names: list[str]) -> None:
    pod = of_kind(pods({"svc": args}), "Pod")[0]
    container = pod["spec"]["containers"][0]
    assert [e["name"] for e in container.get("env", [])] == env_names
    assert [m["mountPath"] for m in container["volumeMounts"]] == ["/etc/volcano"]


def test_ssh_config_and_key_mode() -> None:
    """``generateSSHConfig`` word for word; keys outside /root/.ssh are mode 0644."""
    (secret,) = of_kind(first_sync({"ssh": ["--ssh-port", "2222"]}), "Secret")
    hosts = ["train-master-0", "train-worker-0", "train-worker-1"]
    assert secret["stringData"]["config"] == (
        "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"
        + "".join(f"Host {h}\n  HostName {h}.train\n  Port 2222\n" for h in hosts)
    )
    for args, mode in (([], 0o600), (["--ssh-key-file-path=/home/user/.ssh"], 0o644)):
        pod = of_kind(pods({"ssh": args}), "Pod")[0]
        (volume,) = [v for v in pod["spec"]["volumes"] if v["name"] == "train-ssh"]
        assert volume["secret"]["defaultMode"] == mode


KINDS: dict[str, FlagKind] = {"b": "bool", "n": "int", "s": "string"}
DEFAULTS: dict[str, Value] = {"b": False, "n": 7, "s": "x"}


@pytest.mark.parametrize(
    ("args", "want"),
    [
        pytest.param(["-b", "--n=3", "-s", "y"], {"b": True, "n": 3, "s": "y"}, id="forms"),
        pytest.param(["--n", "0x10"], {"n": 16}, id="hex"),
        pytest.param(["--n=010"], {"n": 8}, id="leading zero is octal"),
        pytest.param(["--n=abc", "-b"], {"n": 0}, id="bad int sets 0 and stops"),
        pytest.param(["--b=yes", "-s=z"], {"b": False}, id="bad bool sets false and stops"),
        pytest.param(["-b", "--", "-s=z"], {"b": True}, id="double dash ends flags"),
        pytest.param(["--s"], {}, id="missing value"),
        pytest.param(["---b"], {}, id="bad syntax"),
    ],
)
def test_go_flag_parsing(args: list[str], want: dict[str, Value]) -> None:
    assert parse_flags(args, KINDS, DEFAULTS) == {**DEFAULTS, **want}
