"""Self-managed certificates, as Kueue's internal cert manager does: the CA and serving
certificate live in one Secret (created once, reused while valid, so every replica serves the
same certificate), and the CA is patched into the webhook configurations' and the CRDs'
``clientConfig.caBundle``.

Only the named Secret, configurations and CRDs are touched (RBAC grants exactly those). A
configuration or CRD that does not exist yet is skipped and patched on a later pass.
"""

from __future__ import annotations

import copy
import datetime
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import structlog

from services.webhook.certs import Certificates, issue, still_good
from shared.kube import KubeClient
from shared.kube.client import ApiError
from shared.kube.resources import RESOURCES, ResourceType

Obj = dict[str, Any]
SECRET = RESOURCES[("v1", "Secret")]
MUTATING = RESOURCES[("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration")]
VALIDATING = RESOURCES[("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration")]
CRD = RESOURCES[("apiextensions.k8s.io/v1", "CustomResourceDefinition")]
_CONFLICT_RETRIES = 5
log = structlog.get_logger()


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


async def ensure_certificates(
    kube: KubeClient,
    *,
    secret: str,
    namespace: str,
    names: list[str],
    now: Callable[[], datetime.datetime] = _now,
) -> Certificates:
    """The certificates in ``secret``, made (or renewed) when missing or no longer good."""
    for _ in range(_CONFLICT_RETRIES):
        try:
            current: Obj | None = await kube.get(SECRET, secret, namespace)
        except ApiError as error:
            if error.status != 404:
                raise
            current = None
        if current is not None:
            stored = Certificates.from_secret_data(current.get("data") or {})
            if stored is not None and still_good(stored, names, now()):
                return stored
        certs = issue(names, now())
        body: Obj = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": secret, "namespace": namespace},
            "type": "kubernetes.io/tls",
            "data": certs.secret_data(),
        }
        try:
            if current is None:
                await kube.create(SECRET, body, namespace)
            else:
                body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
                await kube.replace(SECRET, body)
        except ApiError as error:
            if error.status == 409:  # another replica wrote it first: read theirs
                continue
            raise
        log.info("webhook certificates issued", secret=f"{namespace}/{secret}")
        return certs
    raise RuntimeError(f"the Secret {namespace}/{secret} keeps changing under the webhook")


def write_serving_files(certs: Certificates, cert_dir: Path) -> tuple[Path, Path]:
    """``tls.crt`` and ``tls.key`` in ``cert_dir`` (what the server loads)."""
    cert_dir.mkdir(parents=True, exist_ok=True)
    cert, key = cert_dir / "tls.crt", cert_dir / "tls.key"
    cert.write_bytes(certs.cert)
    key.write_bytes(certs.key)
    key.chmod(0o600)
    return cert, key


def _set_webhook_bundles(obj: Obj, ca_bundle: str) -> bool:
    changed = False
    for webhook in obj.get("webhooks") or []:
        client = webhook.setdefault("clientConfig", {})
        if client.get("caBundle") != ca_bundle:
            client["caBundle"] = ca_bundle
            changed = True
    return changed


def _conversion_setter(conversion: Obj | None) -> Callable[[Obj, str], bool]:
    """Sets the CA of a CRD's conversion webhook; with ``conversion``, the whole
    ``spec.conversion`` first (a CRD installed without it, as Helm's ``crds/`` are)."""

    def set_bundle(obj: Obj, ca_bundle: str) -> bool:
        spec = obj.setdefault("spec", {})
        if conversion is not None:
            wanted = copy.deepcopy(conversion)
            wanted["webhook"]["clientConfig"]["caBundle"] = ca_bundle
            changed: bool = spec.get("conversion") != wanted
            spec["conversion"] = wanted
            return changed
        current = spec.get("conversion") or {}
        if current.get("strategy") != "Webhook":
            return False  # installed without conversion through the webhook: left alone
        client = current.setdefault("webhook", {}).setdefault("clientConfig", {})
        if client.get("caBundle") == ca_bundle:
            return False
        client["caBundle"] = ca_bundle
        return True

    return set_bundle


async def _inject(
    kube: KubeClient,
    rt: ResourceType,
    name: str,
    ca_bundle: str,
    set_bundle: Callable[[Obj, str], bool],
) -> bool:
    """Whether ``name`` carries ``ca_bundle`` now (False: it does not exist)."""
    for _ in range(_CONFLICT_RETRIES):
        try:
            obj = await kube.get(rt, name)
        except ApiError as error:
            if error.status == 404:
                return False
            raise
        if not set_bundle(obj, ca_bundle):
            return True
        try:
            await kube.replace(rt, obj)
        except ApiError as error:
            if error.status == 409:
                continue
            raise
        log.info("caBundle patched", kind=rt.kind, name=name)
        return True
    raise RuntimeError(f"{rt.kind} {name} keeps changing under the webhook")


async def inject_ca_bundle(
    kube: KubeClient,
    ca_bundle: str,
    *,
    mutating: Sequence[str],
    validating: Sequence[str],
    crds: Sequence[str],
    crd_conversion: Obj | None = None,
) -> list[str]:
    """Patch ``ca_bundle`` into each named object (and ``crd_conversion`` into the CRDs when
    given); the names not found, to retry later."""
    missing = []
    setters: tuple[tuple[ResourceType, Sequence[str], Callable[[Obj, str], bool]], ...] = (
        (MUTATING, mutating, _set_webhook_bundles),
        (VALIDATING, validating, _set_webhook_bundles),
        (CRD, crds, _conversion_setter(crd_conversion)),
    )
    for rt, names, set_bundle in setters:
        for name in names:
            if not await _inject(kube, rt, name, ca_bundle, set_bundle):
                missing.append(f"{rt.kind}/{name}")
    return missing
