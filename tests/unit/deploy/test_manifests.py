"""The deployment artefacts: CRDs, RBAC, the kustomize base and overlay, the Helm chart, the Kafka
topics, the Dockerfile and compose.yaml.

Kustomize is rendered offline with `kubectl kustomize`; the Helm chart with `helm template` (helm
built by `make control-plane`) and compared object for object with the kustomize base. Both are
applied with `--dry-run=server` to the real API server in tests/e2e/test_real_control_plane.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from services.cli.controlplane.real import tools_dir
from shared.config import KafkaSettings, ServiceSettings, env_name
from shared.kube.resources import RESOURCES
from shared.topics import STATE_TOPIC_OF_KIND, Topics

ROOT = Path(__file__).resolve().parents[3]
DEPLOY = ROOT / "deploy"
CHART = DEPLOY / "helm" / "shoal"
SERVICES = ("watcher", "jobcontroller", "scheduler", "binder")
NAMESPACE = "shoal-system"
KUBECTL = shutil.which("kubectl")

Obj = dict[str, Any]

needs_kubectl = pytest.mark.skipif(
    KUBECTL is None, reason="kubectl is not installed (its built-in kustomize renders the base)"
)


def _documents(text: str) -> list[Obj]:
    # The C loader: the CRDs carry upstream's full schemas (megabytes of YAML).
    return [doc for doc in yaml.load_all(text, Loader=yaml.CSafeLoader) if doc]


def _kustomize(path: Path) -> list[Obj]:
    assert KUBECTL is not None
    done = subprocess.run(
        [KUBECTL, "kustomize", str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return _documents(done.stdout)


HELM = tools_dir() / "bin" / "helm"


def _helm_objects(values: dict[str, Any] | None = None) -> list[Obj]:
    """``helm template`` of the chart (helm v3, built by ``make control-plane``), with the
    chart's values or ``values`` in their place."""
    if not HELM.is_file():
        if os.environ.get("SHOAL_REQUIRE_REAL"):
            pytest.fail("helm is not built: run `make control-plane`")
        pytest.skip("helm is not built (`make control-plane`)")
    argv = [str(HELM), "template", "shoal", str(CHART), "--namespace", NAMESPACE]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as file:
        if values is not None:
            yaml.safe_dump(values, file)
            file.flush()
            argv += ["--values", file.name]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return _documents(done.stdout)


def _find(objects: list[Obj], kind: str, name: str) -> Obj:
    found = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: found {len(found)}"
    return found[0]


def _ids(objects: list[Obj]) -> list[tuple[str, str]]:
    return sorted((o["kind"], o["metadata"]["name"]) for o in objects)


@pytest.fixture(scope="module")
def base() -> list[Obj]:
    if KUBECTL is None:
        pytest.skip("kubectl is not installed (its built-in kustomize renders the base)")
    return _kustomize(DEPLOY / "kustomize" / "base")


@pytest.fixture(scope="module")
def dev() -> list[Obj]:
    if KUBECTL is None:
        pytest.skip("kubectl is not installed (its built-in kustomize renders the overlay)")
    return _kustomize(DEPLOY / "kustomize" / "overlays" / "dev")


# --- CRDs -------------------------------------------------------------------------------------

# (file, name, group, kind, plural, scope, versions (the stored one first), shortNames, status
# subresource), as upstream.
_KUEUE = ["v1beta2", "v1beta1"]
CRDS = [
    ("scheduling.volcano.sh_podgroups.yaml", "podgroups.scheduling.volcano.sh",
     "scheduling.volcano.sh", "PodGroup", "podgroups", "Namespaced", ["v1beta1"],
     ["pg", "podgroup-v1beta1"], False),
    ("scheduling.volcano.sh_queues.yaml", "queues.scheduling.volcano.sh",
     "scheduling.volcano.sh", "Queue", "queues", "Cluster", ["v1beta1"],
     ["q", "queue-v1beta1"], True),
    ("batch.volcano.sh_jobs.yaml", "jobs.batch.volcano.sh",
     "batch.volcano.sh", "Job", "jobs", "Namespaced", ["v1alpha1"], ["vcjob", "vj"], True),
    ("bus.volcano.sh_commands.yaml", "commands.bus.volcano.sh",
     "bus.volcano.sh", "Command", "commands", "Namespaced", ["v1alpha1"], [], False),
    ("topology.volcano.sh_hypernodes.yaml", "hypernodes.topology.volcano.sh",
     "topology.volcano.sh", "HyperNode", "hypernodes", "Cluster", ["v1alpha1"], ["hn"], True),
    ("kubeflow/kubeflow.org_pytorchjobs.yaml", "pytorchjobs.kubeflow.org",
     "kubeflow.org", "PyTorchJob", "pytorchjobs", "Namespaced", ["v1"], [], True),
    ("kueue/kueue.x-k8s.io_resourceflavors.yaml", "resourceflavors.kueue.x-k8s.io",
     "kueue.x-k8s.io", "ResourceFlavor", "resourceflavors", "Cluster", _KUEUE,
     ["flavor", "flavors", "rf"], False),
    ("kueue/kueue.x-k8s.io_clusterqueues.yaml", "clusterqueues.kueue.x-k8s.io",
     "kueue.x-k8s.io", "ClusterQueue", "clusterqueues", "Cluster", _KUEUE, ["cq"], True),
    ("kueue/kueue.x-k8s.io_localqueues.yaml", "localqueues.kueue.x-k8s.io",
     "kueue.x-k8s.io", "LocalQueue", "localqueues", "Namespaced", _KUEUE,
     ["queue", "queues", "lq"], True),
    ("kueue/kueue.x-k8s.io_workloads.yaml", "workloads.kueue.x-k8s.io",
     "kueue.x-k8s.io", "Workload", "workloads", "Namespaced", _KUEUE,
     ["kwl", "kueueworkload", "kueueworkloads"], True),
    ("kueue/kueue.x-k8s.io_workloadpriorityclasses.yaml",
     "workloadpriorityclasses.kueue.x-k8s.io", "kueue.x-k8s.io", "WorkloadPriorityClass",
     "workloadpriorityclasses", "Cluster", _KUEUE, ["wpc"], False),
    ("kueue/kueue.x-k8s.io_cohorts.yaml", "cohorts.kueue.x-k8s.io",
     "kueue.x-k8s.io", "Cohort", "cohorts", "Cluster", _KUEUE, ["co"], True),
]  # fmt: skip
KUEUE_CRDS = sorted(c[1] for c in CRDS if c[2] == "kueue.x-k8s.io")


@pytest.mark.parametrize(
    ("file", "name", "group", "kind", "plural", "scope", "versions", "short", "status"),
    CRDS,
    ids=[c[4] + "." + c[2] for c in CRDS],
)
def test_crd_matches_upstream_names(
    file: str, name: str, group: str, kind: str, plural: str, scope: str, versions: list[str],
    short: list[str], status: bool,
) -> None:  # fmt: skip
    (crd,) = _documents((DEPLOY / "crds" / file).read_text())
    spec = crd["spec"]
    assert crd["apiVersion"] == "apiextensions.k8s.io/v1"
    assert crd["metadata"]["name"] == f"{plural}.{group}" == name
    assert (spec["group"], spec["names"]["kind"], spec["names"]["plural"]) == (group, kind, plural)
    assert spec["names"]["listKind"] == kind + "List"
    assert spec["names"].get("shortNames", []) == short
    assert spec["scope"] == scope
    served = sorted(
        ((v["name"], v["served"], v["storage"]) for v in spec["versions"]),
        key=lambda v: not v[2],
    )
    assert served == [(v, True, i == 0) for i, v in enumerate(versions)]
    for version in spec["versions"]:
        assert ("status" in (version.get("subresources") or {})) is status
        # Volcano's Command and Kueue's ResourceFlavor and Cohort have no printer columns upstream.
        assert version.get("additionalPrinterColumns") or kind in (
            "Command",
            "ResourceFlavor",
            "Cohort",
        )


def _schema_nodes(node: Obj, path: str) -> Iterator[tuple[str, Obj]]:
    yield path, node
    for key, child in node.get("properties", {}).items():
        yield from _schema_nodes(child, f"{path}.{key}")
    if isinstance(node.get("items"), dict):
        yield from _schema_nodes(node["items"], f"{path}[]")
    if isinstance(node.get("additionalProperties"), dict):
        yield from _schema_nodes(node["additionalProperties"], f"{path}{{}}")


@pytest.mark.parametrize("file", [c[0] for c in CRDS], ids=[c[4] for c in CRDS])
def test_crd_schema_is_structural(file: str) -> None:
    (crd,) = _documents((DEPLOY / "crds" / file).read_text())
    for version in crd["spec"]["versions"]:
        schema = version["schema"]["openAPIV3Schema"]
        for path, node in _schema_nodes(schema, ""):
            # Structural: every node has a type, except int-or-string quantities.
            assert "type" in node or node.get("x-kubernetes-int-or-string"), path or "root"
            if node.get("x-kubernetes-preserve-unknown-fields"):
                assert node["type"] == "object", path
            assert not ("properties" in node and "additionalProperties" in node), path
        assert schema["properties"]["metadata"] == {"type": "object"}


def test_chart_crds_link_to_the_source_of_truth() -> None:
    # Helm reads a chart's CRDs from its crds/ directory and follows symbolic links, so the chart
    # links to deploy/crds rather than holding a second copy.
    sources = {
        p.name: p for p in (DEPLOY / "crds").rglob("*.yaml") if p.name != "kustomization.yaml"
    }
    links = {p.name: p for p in (CHART / "crds").glob("*.yaml")}
    assert sorted(links) == sorted(sources)
    for name, link in links.items():
        assert link.is_symlink(), f"{link} is a copy"
        assert link.resolve() == sources[name].resolve(), f"{link} links elsewhere"


@needs_kubectl
def test_base_installs_volcano_crds_and_dev_adds_pytorchjob_and_kueue(
    base: list[Obj], dev: list[Obj]
) -> None:
    volcano = sorted(c[1] for c in CRDS if c[2] not in ("kubeflow.org", "kueue.x-k8s.io"))
    crds = sorted(o["metadata"]["name"] for o in base if o["kind"] == "CustomResourceDefinition")
    assert crds == volcano  # PyTorchJob and Kueue only if absent: opt-in components
    dev_crds = sorted(o["metadata"]["name"] for o in dev if o["kind"] == "CustomResourceDefinition")
    assert dev_crds == sorted([*volcano, "pytorchjobs.kubeflow.org", *KUEUE_CRDS])


# --- Deployments ------------------------------------------------------------------------------


def _container(deployment: Obj) -> Obj:
    containers: list[Obj] = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


@needs_kubectl
@pytest.mark.parametrize("service", SERVICES)
def test_deployment_runs_its_service_with_probes(base: list[Obj], service: str) -> None:
    deployment = _find(base, "Deployment", f"shoal-{service}")
    pod = deployment["spec"]["template"]["spec"]
    container = _container(deployment)
    assert container["image"] == "shoal:latest"
    assert [*container.get("command", []), *container.get("args", [])] == ["shoal", "run", service]
    assert container["ports"] == [{"name": "http", "containerPort": 8080}]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["SHOAL_HTTP_PORT"] == "8080"
    assert container["envFrom"] == [{"configMapRef": {"name": "shoal-settings"}}]
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert {"cpu", "memory"} <= set(container["resources"]["requests"])
    assert {"cpu", "memory"} <= set(container["resources"]["limits"])
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert pod["serviceAccountName"] == f"shoal-{service}"
    assert deployment["metadata"]["namespace"] == NAMESPACE
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert selector.items() <= deployment["spec"]["template"]["metadata"]["labels"].items()


@needs_kubectl
def test_settings_configmap_feeds_kafka_bootstrap(base: list[Obj], dev: list[Obj]) -> None:
    settings = _find(base, "ConfigMap", "shoal-settings")["data"]
    assert settings["KAFKA_BOOTSTRAP"].endswith(":9092")
    assert all(k == "KAFKA_BOOTSTRAP" or k.startswith("SHOAL_") for k in settings)
    dev_settings = _find(dev, "ConfigMap", "shoal-settings")["data"]
    assert dev_settings["KAFKA_BOOTSTRAP"] != settings["KAFKA_BOOTSTRAP"]
    assert dev_settings["SHOAL_REPLICATION_FACTOR"] == "1"
    assert dev_settings["SHOAL_TOPIC_PARTITIONS"] == settings["SHOAL_TOPIC_PARTITIONS"]


# Read outside shared/config.py's settings Structs: the kubeconfig path (shared/service.py) and
# the scheduler's conf path (the mounted volcano-scheduler-configmap).
OTHER_SETTINGS = {"KUBECONFIG", "SHOAL_SCHEDULER_CONF"}


@needs_kubectl
def test_every_setting_is_one_a_service_reads(base: list[Obj]) -> None:
    known = OTHER_SETTINGS | {
        env_name(cls, field.name)
        for cls in (KafkaSettings, ServiceSettings)
        for field in msgspec.structs.fields(cls)
    }
    names = set(_find(base, "ConfigMap", "shoal-settings")["data"])
    for service in SERVICES:
        names |= {
            e["name"] for e in _container(_find(base, "Deployment", f"shoal-{service}"))["env"]
        }
    for spec in _compose()["services"].values():
        if spec.get("image") == "shoal:latest":
            names |= set(spec.get("environment", {}))
    assert names <= known, names - known


@needs_kubectl
@pytest.mark.parametrize(("overlay", "replicas"), [("base", 2), ("dev", 1)], ids=["base", "dev"])
def test_replicas(base: list[Obj], dev: list[Obj], overlay: str, replicas: int) -> None:
    objects = base if overlay == "base" else dev
    counts = {s: _find(objects, "Deployment", f"shoal-{s}")["spec"]["replicas"] for s in SERVICES}
    # The job controller shards statically: one replica per Deployment (one Deployment a shard).
    assert counts == {**dict.fromkeys(SERVICES, replicas), "jobcontroller": 1}


@needs_kubectl
def test_scheduler_mounts_volcano_scheduler_conf(base: list[Obj]) -> None:
    deployment = _find(base, "Deployment", "shoal-scheduler")
    volumes = deployment["spec"]["template"]["spec"]["volumes"]
    conf = next(v for v in volumes if "configMap" in v)
    assert conf["configMap"]["name"] == "volcano-scheduler-configmap"
    mount = next(m for m in _container(deployment)["volumeMounts"] if m["name"] == conf["name"])
    env = {e["name"]: e.get("value") for e in _container(deployment)["env"]}
    assert env["SHOAL_SCHEDULER_CONF"] == mount["mountPath"] + "/volcano-scheduler.conf"


@needs_kubectl
def test_volcano_default_conf_and_queue(base: list[Obj]) -> None:
    data = _find(base, "ConfigMap", "volcano-scheduler-configmap")["data"]
    conf = yaml.safe_load(data["volcano-scheduler.conf"])
    assert conf["actions"] == "enqueue, allocate, backfill"
    assert [[p["name"] for p in tier["plugins"]] for tier in conf["tiers"]] == [
        ["priority", "gang", "conformance"],
        ["overcommit", "drf", "predicates", "proportion", "nodeorder", "binpack"],
    ]
    queue = _find(base, "Queue", "default")
    assert queue["apiVersion"] == "scheduling.volcano.sh/v1beta1"
    assert queue["spec"] == {"weight": 1, "reclaimable": True}
    assert "namespace" not in queue["metadata"]  # cluster-scoped


# --- RBAC -------------------------------------------------------------------------------------

Rule = tuple[str, str, str]  # (apiGroup, resource, verb)


def _grants(role: Obj) -> set[Rule]:
    return {
        (group, resource, verb)
        for rule in role["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }


def _rules(*rows: tuple[str, str, str]) -> set[Rule]:
    """Rows of space-separated (apiGroups, resources, verbs); `core` is the "" group."""
    return {
        ("" if group == "core" else group, resource, verb)
        for groups, resources, verbs in rows
        for group in groups.split()
        for resource in resources.split()
        for verb in verbs.split()
    }


READ = "get list watch"
EVENTS = ("core events.k8s.io", "events", "create patch")
EXPECTED_GRANTS: dict[str, set[Rule]] = {
    "watcher": _rules(
        ("core", "pods nodes services configmaps", READ),
        ("scheduling.k8s.io", "priorityclasses", READ),
        ("policy", "poddisruptionbudgets", READ),
        ("topology.volcano.sh", "hypernodes", READ),
        ("batch batch.volcano.sh", "jobs", READ),
        ("batch", "cronjobs", READ),
        ("scheduling.volcano.sh", "podgroups queues", READ),
        ("bus.volcano.sh", "commands", READ),
        ("kubeflow.org", "pytorchjobs", READ),
        ("kueue.x-k8s.io", "resourceflavors clusterqueues localqueues workloads cohorts", READ),
        EVENTS,
    ),
    "jobcontroller": _rules(
        ("core", "pods services configmaps", "create delete patch"),
        ("core", "pods/status", "patch"),
        ("core", "pods/finalizers", "update"),
        ("core", "secrets", "get create delete"),
        ("networking.k8s.io", "networkpolicies", "get create delete"),
        ("scheduling.volcano.sh", "podgroups", "create delete patch"),
        ("batch", "jobs", "get create delete patch"),
        ("batch", "cronjobs", "get"),
        ("batch", "cronjobs/status", "update patch"),
        ("batch", "cronjobs/finalizers", "update"),
        ("batch batch.volcano.sh", "jobs/status", "update patch"),
        ("batch batch.volcano.sh", "jobs/finalizers", "update"),
        ("kubeflow.org", "pytorchjobs/status", "update patch"),
        ("kubeflow.org", "pytorchjobs/finalizers", "update"),
        ("kubeflow.org", "pytorchjobs", "patch"),
        ("scheduling.volcano.sh", "queues/status", "patch"),
        ("kueue.x-k8s.io", "workloads", "create delete patch"),
        ("kueue.x-k8s.io", "workloads/status", "patch"),
        ("bus.volcano.sh", "commands", "delete"),
        EVENTS,
    ),
    "binder": _rules(
        ("core", "pods", "get"),
        ("core", "pods/binding pods/eviction", "create"),
        ("core", "pods/status", "patch"),
        ("scheduling.volcano.sh", "podgroups", "patch"),
        (
            "kueue.x-k8s.io",
            "workloads/status clusterqueues/status localqueues/status cohorts/status",
            "patch",
        ),
        EVENTS,
    ),
}


@needs_kubectl
@pytest.mark.parametrize("service", sorted(EXPECTED_GRANTS))
def test_cluster_role_grants_exactly_the_least_set(base: list[Obj], service: str) -> None:
    role = _find(base, "ClusterRole", f"shoal-{service}")
    assert all("resourceNames" not in r and "nonResourceURLs" not in r for r in role["rules"])
    assert _grants(role) == EXPECTED_GRANTS[service]


# (service, apiGroup, resource, verb) that must be denied: the point of least privilege.
DENIED = [
    ("binder", "", "pods", "create"),
    ("binder", "", "pods", "delete"),
    ("binder", "", "pods", "patch"),
    # PodGroup status is written with the object (no status subresource upstream); the binder
    # still never creates or deletes one.
    ("binder", "scheduling.volcano.sh", "podgroups", "create"),
    ("binder", "scheduling.volcano.sh", "podgroups", "delete"),
    ("watcher", "", "pods", "create"),
    ("watcher", "", "secrets", "get"),
    ("jobcontroller", "", "pods", "list"),
    ("jobcontroller", "", "secrets", "list"),
    ("jobcontroller", "", "secrets", "patch"),
    ("jobcontroller", "networking.k8s.io", "networkpolicies", "list"),
    ("jobcontroller", "networking.k8s.io", "networkpolicies", "patch"),
    ("jobcontroller", "", "pods/binding", "create"),
    ("jobcontroller", "", "nodes", "patch"),
    # A CronJob's Jobs come through the jobs topic: the controller never lists them, and only
    # writes a CronJob's status.
    ("jobcontroller", "batch", "jobs", "list"),
    ("jobcontroller", "batch", "cronjobs", "patch"),
]


@needs_kubectl
@pytest.mark.parametrize(
    ("service", "group", "resource", "verb"), DENIED, ids=["-".join(d) for d in DENIED]
)
def test_cluster_role_denies(
    base: list[Obj], service: str, group: str, resource: str, verb: str
) -> None:
    grants = _grants(_find(base, "ClusterRole", f"shoal-{service}"))
    assert not any(
        g in (group, "*") and r in (resource, "*") and v in (verb, "*") for g, r, v in grants
    )


@needs_kubectl
def test_watcher_can_read_every_mirrored_resource(base: list[Obj]) -> None:
    grants = _grants(_find(base, "ClusterRole", "shoal-watcher"))
    mirrored = [r for r in RESOURCES.values() if r.kind in STATE_TOPIC_OF_KIND]
    assert len(mirrored) >= len(STATE_TOPIC_OF_KIND)
    for resource in mirrored:
        for verb in READ.split():
            assert (resource.group, resource.plural, verb) in grants, resource


@needs_kubectl
def test_scheduler_has_no_api_access(base: list[Obj]) -> None:
    account = _find(base, "ServiceAccount", "shoal-scheduler")
    assert account["automountServiceAccountToken"] is False
    pod = _find(base, "Deployment", "shoal-scheduler")["spec"]["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    for binding in (o for o in base if o["kind"] in ("RoleBinding", "ClusterRoleBinding")):
        assert all(s["name"] != "shoal-scheduler" for s in binding.get("subjects", []))
    roles = [o["metadata"]["name"] for o in base if o["kind"] in ("Role", "ClusterRole")]
    assert "shoal-scheduler" not in roles


@needs_kubectl
@pytest.mark.parametrize("service", sorted(EXPECTED_GRANTS))
def test_binding_gives_each_account_only_its_own_role(base: list[Obj], service: str) -> None:
    binding = _find(base, "ClusterRoleBinding", f"shoal-{service}")
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": f"shoal-{service}",
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": f"shoal-{service}", "namespace": NAMESPACE}
    ]


# --- Kafka topics -----------------------------------------------------------------------------

CO_PARTITIONED = ["state.jobs", "state.pods", "state.podgroups", "state.services"]


def _strimzi_topics() -> dict[str, Obj]:
    topics = _documents((DEPLOY / "kafka" / "topics.yaml").read_text())
    assert all(t["kind"] == "KafkaTopic" for t in topics)
    return {t["spec"]["topicName"]: t["spec"] for t in topics}


def test_topics_are_the_ones_shoal_uses() -> None:
    topics = _strimzi_topics()
    assert sorted(topics) == sorted(Topics().everything())


def test_co_partitioned_topics_have_equal_partition_counts() -> None:
    topics = _strimzi_topics()
    counts = {name: topics["shoal." + name]["partitions"] for name in CO_PARTITIONED}
    assert len(set(counts.values())) == 1, counts
    assert {"Pod", "PodGroup", "Job"} <= {k for k, v in STATE_TOPIC_OF_KIND.items() if v in counts}


def test_state_topics_are_compacted_and_the_rest_retained() -> None:
    for name, spec in _strimzi_topics().items():
        policy = spec["config"]["cleanup.policy"]
        if name.startswith("shoal.state."):
            assert policy == "compact", name
        elif name in Topics().single_partition():  # the leader and generation logs never expire
            assert policy == "delete" and spec["config"]["retention.ms"] == "-1", name
            assert spec["partitions"] == 1, name
        else:
            assert policy == "delete" and int(spec["config"]["retention.ms"]) > 0, name


def test_topic_script_creates_the_same_topics(tmp_path: Path) -> None:
    calls = tmp_path / "calls"
    fake = tmp_path / "kafka-topics.sh"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    fake.chmod(0o755)
    env = {"PATH": os.environ["PATH"], "KAFKA_BOOTSTRAP": "broker:9092", "KAFKA_TOPICS": str(fake)}
    done = subprocess.run(
        ["bash", str(DEPLOY / "kafka" / "create-topics.sh")],
        env=env, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    created: dict[str, Obj] = {}
    for line in calls.read_text().splitlines():
        args = line.split()
        assert args[:5] == [
            "--bootstrap-server",
            "broker:9092",
            "--create",
            "--if-not-exists",
            "--topic",
        ]
        configs = dict(args[i + 1].split("=", 1) for i, a in enumerate(args) if a == "--config")
        partitions = int(args[args.index("--partitions") + 1])
        assert args[args.index("--replication-factor") + 1] == "3"
        created[args[5]] = {"partitions": partitions, "config": configs}
    strimzi = {
        name: {"partitions": s["partitions"], "config": {k: str(v) for k, v in s["config"].items()}}
        for name, s in _strimzi_topics().items()
    }
    assert created == strimzi


# --- Helm chart -------------------------------------------------------------------------------


@needs_kubectl
def test_helm_chart_renders_exactly_the_kustomize_base(base: list[Obj]) -> None:
    helm = _helm_objects()
    in_cluster = [o for o in base if o["kind"] != "CustomResourceDefinition"]
    assert _ids(helm) == _ids(in_cluster)
    by_id = {(o["kind"], o["metadata"]["name"]): o for o in in_cluster}
    for obj in helm:
        assert obj == by_id[(obj["kind"], obj["metadata"]["name"])], obj["metadata"]["name"]


# (values path, new value, kind, name, path in the rendered object)
CONTAINER = ("spec", "template", "spec", "containers", 0)
OVERRIDES = [
    ("kafka.bootstrap", "k1:9092,k2:9092", "ConfigMap", "shoal-settings",
     ("data", "KAFKA_BOOTSTRAP")),
    ("kafka.topicPartitions", 24, "ConfigMap", "shoal-settings",
     ("data", "SHOAL_TOPIC_PARTITIONS")),
    ("scheduler.replicas", 3, "Deployment", "shoal-scheduler", ("spec", "replicas")),
    ("binder.resources", {"limits": {"memory": "1Gi"}}, "Deployment", "shoal-binder",
     (*CONTAINER, "resources")),
    ("image.tag", "v9", "Deployment", "shoal-watcher", (*CONTAINER, "image")),
    ("schedulerConf", "actions: allocate\n", "ConfigMap", "volcano-scheduler-configmap",
     ("data", "volcano-scheduler.conf")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("key", "value", "kind", "name", "field"), OVERRIDES, ids=[o[0] for o in OVERRIDES]
)
def test_helm_values_reach_the_objects(
    key: str, value: Any, kind: str, name: str, field: tuple[str | int, ...]
) -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    *parents, leaf = key.split(".")
    node = values
    for part in parents:
        node = node[part]
    node[leaf] = value
    rendered: Any = _find(_helm_objects(values), kind, name)
    for step in field:
        rendered = rendered[step]
    expected = {"image.tag": "shoal:v9", "kafka.topicPartitions": "24"}.get(key, value)
    assert _within(expected, rendered), f"{key}: {expected!r} not in {rendered!r}"


def _within(given: Any, rendered: Any) -> bool:
    """Whether ``given`` reached ``rendered``: Helm deep-merges a map value into the chart's
    defaults, so the keys it sets are there and the defaults it leaves alone stay."""
    if isinstance(given, dict):
        return isinstance(rendered, dict) and all(
            k in rendered and _within(v, rendered[k]) for k, v in given.items()
        )
    return bool(given == rendered)


def _secured_values(*, tls: bool, sasl: bool) -> dict[str, Any]:
    values: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text())
    values["kafka"]["bootstrap"] = "shoal-kafka-kafka-bootstrap.kafka.svc:9093"
    values["kafka"]["tls"]["enabled"] = tls
    values["kafka"]["sasl"]["enabled"] = sasl
    return values


@needs_kubectl
def test_helm_with_tls_and_sasl_renders_the_secure_overlays_kafka_settings() -> None:
    secure = _kustomize(DEPLOY / "kustomize" / "overlays" / "secure")
    helm = _helm_objects(_secured_values(tls=True, sasl=True))
    assert (
        _find(helm, "ConfigMap", "shoal-settings")["data"]
        == (_find(secure, "ConfigMap", "shoal-settings")["data"])
    )
    for service in ("watcher", "jobcontroller", "scheduler", "binder"):
        ours = _find(helm, "Deployment", f"shoal-{service}")["spec"]["template"]["spec"]
        theirs = _find(secure, "Deployment", f"shoal-{service}")["spec"]["template"]["spec"]
        pairs = [(ours["volumes"], theirs["volumes"])]  # the order of a list merge aside
        pairs += [
            (ours["containers"][0][k], theirs["containers"][0][k]) for k in ("env", "volumeMounts")
        ]
        for got, want in pairs:
            assert _by_name(got) == _by_name(want), service


def _by_name(items: list[Obj]) -> list[Obj]:
    return sorted(items, key=lambda item: str(item["name"]))


@pytest.mark.parametrize(
    ("tls", "sasl", "protocol"),
    [(True, False, "SSL"), (False, True, "SASL_PLAINTEXT"), (False, False, None)],
    ids=["tls-only", "sasl-only", "plaintext"],
)
def test_helm_kafka_security_protocol(tls: bool, sasl: bool, protocol: str | None) -> None:
    helm = _helm_objects(_secured_values(tls=tls, sasl=sasl))
    settings = _find(helm, "ConfigMap", "shoal-settings")["data"]
    assert settings.get("SHOAL_SECURITY_PROTOCOL") == protocol
    assert ("SHOAL_SSL_CAFILE" in settings) is tls
    assert ("SHOAL_SASL_MECHANISM" in settings) is sasl
    pod = _find(helm, "Deployment", "shoal-binder")["spec"]["template"]["spec"]
    env = {e["name"] for e in pod["containers"][0]["env"]}
    assert ("SHOAL_SASL_PASSWORD" in env) is sasl
    assert any(v["name"] == "kafka-ca" for v in pod["volumes"]) is tls


# --- Dockerfile and compose -------------------------------------------------------------------


def test_dockerfile_builds_from_the_lock_as_non_root() -> None:
    text = (ROOT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+)", text, re.MULTILINE)
    assert stages == ["python:3.11-slim", "python:3.11-slim"]  # multi-stage
    assert "pip install --no-cache-dir uv==0.13.9" in text
    assert re.search(r"uv sync --frozen --no-dev\b", text)
    user = re.findall(r"^USER (\S+)", text, re.MULTILINE)
    assert user and not user[-1].startswith(("root", "0"))
    assert re.search(r'^ENTRYPOINT \["shoal"\]$', text, re.MULTILINE)
    for source in re.findall(r"^COPY (?!--from)(.+) \S+$", text, re.MULTILINE):
        for path in source.split():
            assert (ROOT / path).exists() or path == "deploy/examples", path


def _compose() -> Obj:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    assert isinstance(compose, dict)
    return compose


def test_compose_runs_the_whole_stack() -> None:
    services = _compose()["services"]
    assert {"kafka", "kubesim", *SERVICES, "demo"} <= set(services)
    assert services["kafka"]["image"] == "apache/kafka:3.8.0"
    assert services["kafka"]["environment"]["KAFKA_PROCESS_ROLES"] == "broker,controller"
    sim = services["kubesim"]["command"]
    assert sim[:2] == ["run", "kubesim"]
    assert sim[sim.index("--nodes") + 1] == "8"
    assert sim[sim.index("--port") + 1] == "6443"
    assert sim[sim.index("--kubeconfig-out") + 1] == "/shared/kubeconfig"
    for service in SERVICES:
        spec = services[service]
        assert spec["image"] == "shoal:latest" and spec["command"] == ["run", service]
        assert spec["environment"]["KAFKA_BOOTSTRAP"] == "kafka:9092"
        api = spec["environment"].get("KUBECONFIG")
        assert api == (None if service == "scheduler" else "/shared/kubeconfig"), service
    assert services["demo"]["command"] == ["submit", "-f", "/app/deploy/examples/"]
    assert services["demo"]["restart"] == "no"


def test_compose_dependencies_wait_for_health() -> None:
    services = _compose()["services"]
    for name, spec in services.items():
        for dependency, rule in spec.get("depends_on", {}).items():
            assert dependency in services, (name, dependency)
            if rule["condition"] == "service_healthy":
                check = services[dependency].get("healthcheck", {})
                assert check.get("test") and not check.get("disable"), (name, dependency)
            else:
                assert rule["condition"] == "service_completed_successfully", (name, dependency)
                assert services[dependency].get("restart") == "no", dependency
    assert set(services["demo"]["depends_on"]) == set(SERVICES)
    assert "kubesim" not in services["scheduler"]["depends_on"]


def _has_compose() -> bool:
    if shutil.which("docker") is None:
        return False
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.mark.skipif(
    not _has_compose(),
    reason="the docker compose plugin is not installed (compose.yaml is checked in Python above)",
)
def test_compose_config_is_valid() -> None:
    done = subprocess.run(
        ["docker", "compose", "-f", str(ROOT / "compose.yaml"), "config", "-q"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_examples_use_kinds_the_crds_serve() -> None:
    served = set()
    for path in (DEPLOY / "crds").rglob("*.yaml"):
        for crd in _documents(path.read_text()):
            if crd["kind"] == "CustomResourceDefinition":
                spec = crd["spec"]
                served |= {
                    (f"{spec['group']}/{v['name']}", spec["names"]["kind"])
                    for v in spec["versions"]
                }
    groups = {api_version.split("/")[0] for api_version, _ in served}
    examples = [
        d for p in sorted((DEPLOY / "examples").glob("*.yaml")) for d in _documents(p.read_text())
    ]
    assert examples
    for doc in examples:
        if doc["apiVersion"].split("/")[0] in groups:
            assert (doc["apiVersion"], doc["kind"]) in served, doc["metadata"]["name"]
