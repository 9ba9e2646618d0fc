"""The trust boundary as deployed (overlays/secure): Kafka over TLS with one SCRAM user and ACLs
per service, credentials wired into each Deployment, a NetworkPolicy per service; and the topics
the ACLs need provisioned, since no service may create one."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from shared.bus.security import client_options
from shared.config import KafkaSettings, ServiceSettings, env_name, load_settings
from shared.topics import Topics

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"
SERVICES = ("watcher", "jobcontroller", "scheduler", "binder")
KUBECTL = shutil.which("kubectl")
Obj = dict[str, Any]

pytestmark = pytest.mark.skipif(KUBECTL is None, reason="kubectl renders kustomize offline")


@pytest.fixture(scope="module")
def secure() -> list[Obj]:
    assert KUBECTL is not None
    done = subprocess.run(
        [KUBECTL, "kustomize", str(DEPLOY / "kustomize" / "overlays" / "secure")],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [doc for doc in yaml.safe_load_all(done.stdout) if doc]


def find(objects: list[Obj], kind: str, name: str) -> Obj:
    (found,) = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    return found


def writers(objects: list[Obj], topic: str) -> set[str]:
    """Services whose KafkaUser may write ``topic`` (literal or by prefix)."""
    who = set()
    for user in (o for o in objects if o["kind"] == "KafkaUser"):
        for acl in user["spec"]["authorization"]["acls"]:
            resource = acl["resource"]
            if resource["type"] != "topic" or "Write" not in acl["operations"]:
                continue
            name, pattern = resource["name"], resource["patternType"]
            if name == topic or (pattern == "prefix" and topic.startswith(name)):
                who.add(user["metadata"]["name"].removeprefix("shoal-"))
    return who


TOPICS = Topics()
ONLY_WRITER = (
    [(t, "scheduler") for t in TOPICS.decisions()]
    + [(TOPICS.results, "binder"), (TOPICS.cycles, "scheduler"), (TOPICS.leader, "scheduler")]
    + [(t, "watcher") for t in TOPICS.all_state()]
)


@pytest.mark.parametrize(("topic", "writer"), ONLY_WRITER, ids=[t for t, _ in ONLY_WRITER])
def test_only_one_service_writes_each_topic(secure: list[Obj], topic: str, writer: str) -> None:
    assert writers(secure, topic) == {writer}


def test_users_authenticate_with_scram_and_may_not_create_topics(secure: list[Obj]) -> None:
    users = [o for o in secure if o["kind"] == "KafkaUser"]
    assert sorted(u["metadata"]["name"] for u in users) == sorted(f"shoal-{s}" for s in SERVICES)
    for user in users:
        assert user["metadata"]["labels"]["strimzi.io/cluster"] == "shoal-kafka"
        assert user["spec"]["authentication"]["type"] == "scram-sha-512"
        operations = {
            op for acl in user["spec"]["authorization"]["acls"] for op in acl["operations"]
        }
        assert operations <= {"Read", "Write", "Describe"}, user["metadata"]["name"]


@pytest.mark.parametrize("service", SERVICES)
def test_each_deployment_logs_in_as_its_own_user_over_tls(secure: list[Obj], service: str) -> None:
    settings = find(secure, "ConfigMap", "shoal-settings")["data"]
    pod = find(secure, "Deployment", f"shoal-{service}")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    env = {e["name"]: e for e in container["env"]}
    assert env["SHOAL_SASL_USERNAME"]["value"] == f"shoal-{service}"
    secret = env["SHOAL_SASL_PASSWORD"]["valueFrom"]["secretKeyRef"]
    assert secret == {"name": f"shoal-{service}", "key": "password"}
    mount = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}["kafka-ca"]
    assert settings["SHOAL_SSL_CAFILE"].startswith(mount + "/")
    volume = {v["name"]: v for v in pod["volumes"]}["kafka-ca"]
    assert volume["secret"]["secretName"] == "shoal-kafka-cluster-ca-cert"
    # The settings as the service would load them are accepted by the bus.
    environ = {**settings, "SHOAL_SASL_USERNAME": f"shoal-{service}", "SHOAL_SASL_PASSWORD": "x"}
    environ["SHOAL_SSL_CAFILE"] = ""  # the CA file exists only in the pod
    options = client_options(load_settings(KafkaSettings, environ))
    assert options["security_protocol"] == "SASL_SSL"
    assert options["sasl_mechanism"] == "SCRAM-SHA-512"


def test_every_setting_of_the_overlay_is_one_a_service_reads(secure: list[Obj]) -> None:
    known = {
        env_name(cls, field.name)
        for cls in (KafkaSettings, ServiceSettings)
        for field in msgspec.structs.fields(cls)
    }
    assert set(find(secure, "ConfigMap", "shoal-settings")["data"]) <= known


@pytest.mark.parametrize("service", SERVICES)
def test_a_network_policy_per_service(secure: list[Obj], service: str) -> None:
    policy = find(secure, "NetworkPolicy", f"shoal-{service}")["spec"]
    labels = find(secure, "Deployment", f"shoal-{service}")["spec"]["template"]["metadata"]
    assert policy["podSelector"]["matchLabels"].items() <= labels["labels"].items()
    assert sorted(policy["policyTypes"]) == ["Egress", "Ingress"]
    (ingress,) = policy["ingress"]
    assert [p["port"] for p in ingress["ports"]] == [8080]
    egress_ports = {p["port"] for rule in policy["egress"] for p in rule.get("ports", [])}
    assert {53, 9093} <= egress_ports
    reaches_api_server = 443 in egress_ports or 6443 in egress_ports
    assert reaches_api_server is (service != "scheduler")


def test_health_endpoints_listen_on_all_addresses_in_a_cluster(secure: list[Obj]) -> None:
    assert find(secure, "ConfigMap", "shoal-settings")["data"]["SHOAL_HTTP_HOST"] == "0.0.0.0"
    assert ServiceSettings().http_host == "127.0.0.1", "the default stays loopback"
