"""The certificate manager against kubesim over HTTP: it creates the Secret, reuses it while
good, renews a bad one, and patches the CA into the webhook configurations and the CRDs'
conversion webhook (kubesim stores admissionregistration.k8s.io and apiextensions.k8s.io
objects as kube-apiserver does)."""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator

import pytest_asyncio

from services.kubesim.app import KubeSim
from services.kubesim.config import SimConfig
from services.webhook.certmanager import (
    CRD,
    MUTATING,
    SECRET,
    VALIDATING,
    ensure_certificates,
    inject_ca_bundle,
)
from services.webhook.certs import Certificates, service_names, still_good
from services.webhook.core.configurations import (
    MUTATING_CONFIGURATION,
    VALIDATING_CONFIGURATION,
    ClientConfig,
    crd_conversion,
    webhook_configurations,
)
from shared.kube import KubeClient

NAMESPACE = "shoal-system"
NAMES = service_names("shoal-webhook", NAMESPACE)
CQ_CRD = "clusterqueues.kueue.x-k8s.io"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def kube() -> AsyncIterator[KubeClient]:
    async with KubeSim(SimConfig(strict_namespaces=False)) as sim:
        client = await KubeClient.connect(str(sim.kubeconfig_path))
        try:
            yield client
        finally:
            await client.close()


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


async def test_the_secret_is_created_then_reused(kube: KubeClient) -> None:
    first = await ensure_certificates(kube, secret="s1", namespace=NAMESPACE, names=NAMES)
    secret = await kube.get(SECRET, "s1", NAMESPACE)
    assert secret["type"] == "kubernetes.io/tls"
    assert set(secret["data"]) == {"ca.crt", "ca.key", "tls.crt", "tls.key"}
    assert still_good(first, NAMES, now())
    again = await ensure_certificates(kube, secret="s1", namespace=NAMESPACE, names=NAMES)
    assert again == first


async def test_certificates_for_other_names_or_expiring_are_renewed(kube: KubeClient) -> None:
    first = await ensure_certificates(kube, secret="s2", namespace=NAMESPACE, names=NAMES)
    renamed = await ensure_certificates(
        kube, secret="s2", namespace=NAMESPACE, names=[*NAMES, "webhook.example"]
    )
    assert renamed != first and still_good(renamed, [*NAMES, "webhook.example"], now())
    late = await ensure_certificates(
        kube,
        secret="s2",
        namespace=NAMESPACE,
        names=[*NAMES, "webhook.example"],
        now=lambda: now() + datetime.timedelta(days=3600),
    )
    assert late != renamed
    stored = await kube.get(SECRET, "s2", NAMESPACE)
    assert Certificates.from_secret_data(stored["data"]) == late


async def test_the_ca_is_patched_into_configurations_and_crds(kube: KubeClient) -> None:
    client = ClientConfig(namespace=NAMESPACE)
    for obj in webhook_configurations(client):
        await kube.create(MUTATING if obj["kind"].startswith("Mutating") else VALIDATING, obj)
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": CQ_CRD},
        "spec": {"group": "kueue.x-k8s.io", "conversion": crd_conversion(client)},
    }
    await kube.create(CRD, crd)
    certs = await ensure_certificates(kube, secret="s3", namespace=NAMESPACE, names=NAMES)
    missing = await inject_ca_bundle(
        kube,
        certs.ca_bundle,
        mutating=[MUTATING_CONFIGURATION],
        validating=[VALIDATING_CONFIGURATION, "absent"],
        crds=[CQ_CRD],
    )
    assert missing == ["ValidatingWebhookConfiguration/absent"]
    for rt, name in ((MUTATING, MUTATING_CONFIGURATION), (VALIDATING, VALIDATING_CONFIGURATION)):
        stored = await kube.get(rt, name)
        bundles = {w["clientConfig"].get("caBundle") for w in stored["webhooks"]}
        assert bundles == {certs.ca_bundle}
    stored_crd = await kube.get(CRD, CQ_CRD)
    webhook = stored_crd["spec"]["conversion"]["webhook"]
    assert webhook["clientConfig"]["caBundle"] == certs.ca_bundle
    assert webhook["clientConfig"]["service"]["path"] == "/kueue/convert"
    before = stored_crd["metadata"]["resourceVersion"]
    await inject_ca_bundle(
        kube, certs.ca_bundle, mutating=[], validating=[], crds=[CQ_CRD]
    )  # already there: no write
    assert (await kube.get(CRD, CQ_CRD))["metadata"]["resourceVersion"] == before


async def test_a_crd_without_conversion_gets_the_whole_stanza_when_asked(kube: KubeClient) -> None:
    name = "cohorts.kueue.x-k8s.io"
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": name}, "spec": {"group": "kueue.x-k8s.io"}}  # fmt: skip
    await kube.create(CRD, crd)
    certs = await ensure_certificates(kube, secret="s4", namespace=NAMESPACE, names=NAMES)
    await inject_ca_bundle(kube, certs.ca_bundle, mutating=[], validating=[], crds=[name])
    assert "conversion" not in (await kube.get(CRD, name))["spec"]  # not asked: left alone
    client = ClientConfig(namespace=NAMESPACE)
    await inject_ca_bundle(
        kube,
        certs.ca_bundle,
        mutating=[],
        validating=[],
        crds=[name],
        crd_conversion=crd_conversion(client),
    )
    assert (await kube.get(CRD, name))["spec"]["conversion"] == crd_conversion(
        client, certs.ca_bundle
    )
