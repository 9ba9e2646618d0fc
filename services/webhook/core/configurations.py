"""The objects that register the webhook with kube-apiserver, rendered from ``WEBHOOKS``: one
MutatingWebhookConfiguration, one ValidatingWebhookConfiguration, and the ``spec.conversion``
each Kueue CRD needs.

The client config is a Service (in a cluster) or a URL (a local control plane reaching the
webhook on a host port); ``ca_bundle`` is the base64 PEM of the CA that signed the serving
certificate. deploy/ ships these objects as rendered here (a test keeps them equal).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from services.webhook.core.webhooks import CONVERSION_PATH, Webhook, registered

Obj = dict[str, Any]
MUTATING_CONFIGURATION = "shoal-mutating-webhook-configuration"
VALIDATING_CONFIGURATION = "shoal-validating-webhook-configuration"
# The Kueue CRDs Shoal ships (deploy/crds/kueue), each served in v1beta1 and v1beta2.
KUEUE_CRDS = (
    "clusterqueues.kueue.x-k8s.io",
    "cohorts.kueue.x-k8s.io",
    "localqueues.kueue.x-k8s.io",
    "resourceflavors.kueue.x-k8s.io",
    "workloadpriorityclasses.kueue.x-k8s.io",
    "workloads.kueue.x-k8s.io",
)


@dataclass(frozen=True)
class ClientConfig:
    """Where kube-apiserver reaches the webhook: a Service, or ``url`` (https://host:port)."""

    service: str = "shoal-webhook"
    namespace: str = "shoal-system"
    port: int = 443
    url: str = ""

    def render(self, path: str, ca_bundle: str = "") -> Obj:
        if self.url:
            out: Obj = {"url": self.url.rstrip("/") + path}
        else:
            out = {
                "service": {
                    "name": self.service,
                    "namespace": self.namespace,
                    "path": path,
                    "port": self.port,
                }
            }
        if ca_bundle:
            out["caBundle"] = ca_bundle
        return out


def _webhook(webhook: Webhook, client: ClientConfig, ca_bundle: str) -> Obj:
    rule = webhook.rule
    out: Obj = {
        "name": webhook.name,
        "admissionReviewVersions": ["v1"],
        "clientConfig": client.render(webhook.path, ca_bundle),
        "failurePolicy": webhook.failure_policy,
        "matchPolicy": webhook.match_policy,
        "rules": [
            {
                "apiGroups": [rule.group],
                "apiVersions": [rule.version],
                "operations": list(rule.operations),
                "resources": rule.resources,
                "scope": "*",
            }
        ],
        "sideEffects": webhook.side_effects,
        "timeoutSeconds": webhook.timeout_seconds,
    }
    if webhook.skip_system_namespaces:
        out["namespaceSelector"] = {
            "matchExpressions": [
                {
                    "key": "kubernetes.io/metadata.name",
                    "operator": "NotIn",
                    "values": [client.namespace, "kube-system"],
                }
            ]
        }
    if webhook.mutating:
        out["reinvocationPolicy"] = "Never"
    return out


def webhook_configurations(
    client: ClientConfig, ca_bundle: str = "", *, optional: Collection[str] = ()
) -> list[Obj]:
    """The MutatingWebhookConfiguration and the ValidatingWebhookConfiguration, with the
    ``optional`` webhooks named (``webhooks.OPTIONAL``) after the others."""
    webhooks = registered(optional)
    out = []
    for kind, name, mutating in (
        ("MutatingWebhookConfiguration", MUTATING_CONFIGURATION, True),
        ("ValidatingWebhookConfiguration", VALIDATING_CONFIGURATION, False),
    ):
        out.append(
            {
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": kind,
                "metadata": {"name": name, "labels": {"app.kubernetes.io/name": "shoal"}},
                "webhooks": [
                    _webhook(w, client, ca_bundle) for w in webhooks if w.mutating == mutating
                ],
            }
        )
    return out


def crd_conversion(client: ClientConfig, ca_bundle: str = "") -> Obj:
    """A Kueue CRD's ``spec.conversion``: through the webhook's conversion path."""
    return {
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": client.render(CONVERSION_PATH, ca_bundle),
            "conversionReviewVersions": ["v1"],
        },
    }
