"""The webhook as deployed: its Deployment, Service and PodDisruptionBudget, the webhook
configurations (exactly what services/webhook renders), least-privilege RBAC, the Kueue
conversion component, and cert-manager as the alternative to self-managed certificates, in
kustomize and in Helm."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml

from services.webhook.certs import service_names
from services.webhook.core.configurations import (
    KUEUE_CRDS,
    MUTATING_CONFIGURATION,
    VALIDATING_CONFIGURATION,
    ClientConfig,
    crd_conversion,
    webhook_configurations,
)
from services.webhook.core.webhooks import OPTIONAL
from services.webhook.service import WebhookSettings
from shared.config import env_name
from tests.unit.deploy.test_manifests import (
    CHART,
    DEPLOY,
    KUBECTL,
    NAMESPACE,
    _find,
    _helm_objects,
    needs_kubectl,
)

Obj = dict[str, Any]
SETTINGS = WebhookSettings()
PREFIX = "SHOAL_WEBHOOK_"
pytestmark = needs_kubectl


def _kustomize_with(tmp_path: Path, *components: str) -> list[Obj]:
    """The base with ``components`` (a kustomization needs relative paths)."""
    assert KUBECTL is not None
    here = os.path.relpath(DEPLOY / "kustomize", tmp_path)
    (tmp_path / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {
                "apiVersion": "kustomize.config.k8s.io/v1beta1",
                "kind": "Kustomization",
                "resources": [f"{here}/base"],
                "components": [f"{here}/components/{c}" for c in components],
            }
        )
    )
    done = subprocess.run(
        [KUBECTL, "kustomize", str(tmp_path)], capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [d for d in yaml.safe_load_all(done.stdout) if d]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> list[Obj]:
    return _kustomize_with(tmp_path_factory.mktemp("base"))


def _container(objects: list[Obj]) -> Obj:
    (container,) = _find(objects, "Deployment", "shoal-webhook")["spec"]["template"]["spec"][
        "containers"
    ]
    return dict(container)


def _env(container: Obj) -> dict[str, Any]:
    return {e["name"]: e.get("value", e.get("valueFrom")) for e in container["env"]}


def test_the_deployment_runs_the_webhook_with_probes_and_two_replicas(base: list[Obj]) -> None:
    deployment = _find(base, "Deployment", "shoal-webhook")
    assert deployment["spec"]["replicas"] == 2
    pod = deployment["spec"]["template"]["spec"]
    container = _container(base)
    assert container["command"] == ["shoal", "run", "webhook"]
    assert {p["name"]: p["containerPort"] for p in container["ports"]} == {
        "http": 8080,
        "https": SETTINGS.port,
    }
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "http"}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "http"}
    assert pod["serviceAccountName"] == "shoal-webhook"
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    # The certificate directory is writable (under the /tmp emptyDir).
    assert SETTINGS.cert_dir.startswith("/tmp/")
    assert {"name": "tmp", "mountPath": "/tmp"} in container["volumeMounts"]


def test_every_webhook_setting_in_the_deployment_is_one_the_webhook_reads(base: list[Obj]) -> None:
    known = {env_name(WebhookSettings, f.name, prefix=PREFIX)
             for f in msgspec.structs.fields(WebhookSettings)}  # fmt: skip
    env = _env(_container(base))
    assert {k for k in env if k.startswith(PREFIX)} <= known
    assert env["SHOAL_WEBHOOK_MANAGE_CERTS"] == "true"
    assert env["SHOAL_WEBHOOK_NAMESPACE"] == {"fieldRef": {"fieldPath": "metadata.namespace"}}


def test_the_service_and_the_budget_select_the_webhook_pods(base: list[Obj]) -> None:
    labels = _find(base, "Deployment", "shoal-webhook")["spec"]["template"]["metadata"]["labels"]
    service = _find(base, "Service", SETTINGS.service)["spec"]
    assert service["selector"].items() <= labels.items()
    assert service["ports"] == [
        {"name": "https", "port": 443, "targetPort": "https", "protocol": "TCP"}
    ]
    budget = _find(base, "PodDisruptionBudget", "shoal-webhook")["spec"]
    assert budget["minAvailable"] == 1
    assert budget["selector"]["matchLabels"].items() <= labels.items()


def test_the_configurations_are_what_the_webhook_renders(base: list[Obj]) -> None:
    rendered = webhook_configurations(ClientConfig(service=SETTINGS.service, namespace=NAMESPACE))
    for obj in rendered:
        assert _find(base, obj["kind"], obj["metadata"]["name"]) == obj
    names = (SETTINGS.mutating_configurations, SETTINGS.validating_configurations)
    assert names == ((MUTATING_CONFIGURATION,), (VALIDATING_CONFIGURATION,))
    assert SETTINGS.crds == KUEUE_CRDS


def test_the_pod_webhooks_are_registered_only_with_their_component(tmp_path: Path) -> None:
    """Volcano's chart leaves /pods/mutate and /pods/validate out of enabled_admissions; Shoal
    registers them (last, in code order) only with the volcano-pod-webhooks component."""
    with_pods = _kustomize_with(tmp_path, "volcano-pod-webhooks")
    client = ClientConfig(service=SETTINGS.service, namespace=NAMESPACE)
    for obj in webhook_configurations(client, optional=OPTIONAL):
        assert _find(with_pods, obj["kind"], obj["metadata"]["name"]) == obj
    assert set(OPTIONAL) == {"mutatepod.volcano.sh", "validatepod.volcano.sh"}


def test_helm_registers_the_pod_webhooks_only_with_the_value() -> None:
    values = yaml.safe_load((CHART / "values.yaml").read_text())
    assert values["webhook"]["volcanoPodWebhooks"] is False
    client = ClientConfig(service=SETTINGS.service, namespace=NAMESPACE)
    for optional, chosen in (((), False), (OPTIONAL, True)):
        values["webhook"]["volcanoPodWebhooks"] = chosen
        rendered = _helm_objects(values)
        for obj in webhook_configurations(client, optional=optional):
            assert _find(rendered, obj["kind"], obj["metadata"]["name"]) == obj


def test_an_unknown_optional_webhook_is_refused() -> None:
    with pytest.raises(ValueError, match=r"no optional webhook mutatejob\.volcano\.sh; there are"):
        webhook_configurations(ClientConfig(), optional=["mutatejob.volcano.sh"])


def _grants(role: Obj) -> set[tuple[str, str, str, str]]:
    return {
        (group, resource, verb, name)
        for rule in role["rules"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
        for name in rule.get("resourceNames", ["*"])
    }


def test_rbac_is_exactly_the_reads_and_the_objects_it_manages(base: list[Obj]) -> None:
    cluster = _grants(_find(base, "ClusterRole", "shoal-webhook"))
    managed = {
        ("admissionregistration.k8s.io", "mutatingwebhookconfigurations", verb,
         MUTATING_CONFIGURATION) for verb in ("get", "update")
    } | {
        ("admissionregistration.k8s.io", "validatingwebhookconfigurations", verb,
         VALIDATING_CONFIGURATION) for verb in ("get", "update")
    } | {
        ("apiextensions.k8s.io", "customresourcedefinitions", verb, crd)
        for verb in ("get", "update") for crd in KUEUE_CRDS
    }  # fmt: skip
    reads = {
        ("scheduling.volcano.sh", "queues", "list", "*"),
        ("", "namespaces", "get", "*"),
        ("kueue.x-k8s.io", "localqueues", "get", "*"),
    }
    assert cluster == managed | reads
    secret = _grants(_find(base, "Role", "shoal-webhook"))
    assert secret == {
        ("", "secrets", "get", SETTINGS.secret),
        ("", "secrets", "update", SETTINGS.secret),
        ("", "secrets", "create", "*"),
    }
    binding = _find(base, "RoleBinding", "shoal-webhook")
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "shoal-webhook", "namespace": NAMESPACE}
    ]


def test_the_conversion_component_sends_every_kueue_crd_to_the_webhook(tmp_path: Path) -> None:
    objects = _kustomize_with(tmp_path, "kueue-crds", "kueue-conversion-webhook")
    crds = {o["metadata"]["name"]: o for o in objects if o["kind"] == "CustomResourceDefinition"}
    wanted = crd_conversion(ClientConfig(service=SETTINGS.service, namespace=NAMESPACE))
    for name, crd in crds.items():
        if name in KUEUE_CRDS:
            assert crd["spec"]["conversion"] == wanted, name
        else:
            assert "conversion" not in crd["spec"], name
    assert set(KUEUE_CRDS) <= set(crds)


def test_the_dev_overlay_converts_kueue_through_the_webhook() -> None:
    assert KUBECTL is not None
    done = subprocess.run(
        [KUBECTL, "kustomize", str(DEPLOY / "kustomize" / "overlays" / "dev")],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    dev = [d for d in yaml.safe_load_all(done.stdout) if d]
    for name in KUEUE_CRDS:
        assert _find(dev, "CustomResourceDefinition", name)["spec"]["conversion"]["strategy"] == (
            "Webhook"
        )
    assert _find(dev, "Deployment", "shoal-webhook")["spec"]["replicas"] == 1


def _cert_manager_checks(objects: list[Obj]) -> None:
    certificate = _find(objects, "Certificate", "shoal-webhook")["spec"]
    assert certificate["secretName"] == SETTINGS.secret
    assert set(certificate["dnsNames"]) <= set(service_names(SETTINGS.service, NAMESPACE))
    assert _find(objects, "Certificate", "shoal-webhook-ca")["spec"]["isCA"] is True
    container = _container(objects)
    assert _env(container)["SHOAL_WEBHOOK_MANAGE_CERTS"] == "false"
    mount = next(m for m in container["volumeMounts"] if m["name"] == "serving-certs")
    assert mount["mountPath"] == SETTINGS.cert_dir and mount["readOnly"] is True
    pod = _find(objects, "Deployment", "shoal-webhook")["spec"]["template"]["spec"]
    volume = next(v for v in pod["volumes"] if v["name"] == "serving-certs")
    assert volume["secret"]["secretName"] == SETTINGS.secret
    assert not [o for o in objects if o["kind"] in ("Role", "RoleBinding")]


def test_the_cert_manager_component(tmp_path: Path) -> None:
    _cert_manager_checks(_kustomize_with(tmp_path, "cert-manager"))


def _values(**webhook: Any) -> dict[str, Any]:
    values: dict[str, Any] = yaml.safe_load((CHART / "values.yaml").read_text())
    values["webhook"] = {**values["webhook"], **webhook}
    return values


def test_helm_cert_manager_renders_what_the_component_does(tmp_path: Path) -> None:
    helm = _helm_objects(_values(certManager={"enabled": True}))
    _cert_manager_checks(helm)
    component = _kustomize_with(tmp_path, "cert-manager")
    for kind, name in (("Certificate", "shoal-webhook"), ("Issuer", "shoal-webhook-ca"),
                       ("Deployment", "shoal-webhook")):  # fmt: skip
        assert _find(helm, kind, name) == _find(component, kind, name), name


def test_helm_kueue_conversion_has_the_webhook_write_spec_conversion() -> None:
    env = _env(_container(_helm_objects(_values(kueueConversion=True))))
    assert env["SHOAL_WEBHOOK_CRD_CONVERSION"] == "true"
    assert "crd_conversion" in {f.name for f in msgspec.structs.fields(WebhookSettings)}
    assert "SHOAL_WEBHOOK_CRD_CONVERSION" not in _env(_container(_helm_objects()))


def test_helm_webhook_replicas() -> None:
    helm = _helm_objects(_values(replicas=3))
    assert _find(helm, "Deployment", "shoal-webhook")["spec"]["replicas"] == 3
