"""The webhook service: HTTPS admission and conversion reviews, stateless, scaled by replicas.

On start it takes its serving certificate from files (cert-manager or any mounted Secret) or,
with ``manage_certs``, makes it itself (``certmanager``) and keeps the CA patched into its
webhook configurations and the Kueue CRDs. It is ready once it serves TLS.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from pathlib import Path
from typing import Annotated

import msgspec
from msgspec import Meta

from services.webhook.certmanager import (
    ensure_certificates,
    inject_ca_bundle,
    write_serving_files,
)
from services.webhook.certs import service_names
from services.webhook.core.configurations import (
    KUEUE_CRDS,
    MUTATING_CONFIGURATION,
    VALIDATING_CONFIGURATION,
    ClientConfig,
    crd_conversion,
)
from services.webhook.lookups import ClusterReader
from services.webhook.server import build_app, server_ssl_context, start_server
from shared.config import Duration
from shared.kube import KubeClient
from shared.service import ServiceShell


class WebhookSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How the webhook serves (variables ``SHOAL_WEBHOOK_<FIELD>``)."""

    host: Annotated[str, Meta(description="address the HTTPS server binds")] = "0.0.0.0"
    port: Annotated[int, Meta(ge=0, le=65535, description="HTTPS port (0: any)")] = 9443
    cert_dir: Annotated[
        str,
        Meta(
            description="directory of tls.crt and tls.key (controller-runtime's default); "
            "written there when manage_certs is on"
        ),
    ] = "/tmp/k8s-webhook-server/serving-certs"
    manage_certs: Annotated[
        bool,
        Meta(
            description="make the CA and serving certificate into the Secret `secret` and "
            "patch the CA into the configurations and CRDs below (off: cert-manager or another "
            "tool provides cert_dir and the caBundles)"
        ),
    ] = False
    namespace: Annotated[str, Meta(description="namespace of the Service and the Secret")] = (
        "shoal-system"
    )
    service: Annotated[str, Meta(description="the Service kube-apiserver calls")] = "shoal-webhook"
    secret: Annotated[str, Meta(description="the Secret holding the certificates")] = (
        "shoal-webhook-server-cert"
    )
    url: Annotated[
        str,
        Meta(
            description="https://host:port kube-apiserver calls instead of the Service (a "
            "webhook outside the cluster); used in the CRDs' spec.conversion"
        ),
    ] = ""
    dns_names: Annotated[
        tuple[str, ...],
        Meta(description="names the serving certificate is for; empty: the Service's names"),
    ] = ()
    mutating_configurations: Annotated[
        tuple[str, ...], Meta(description="MutatingWebhookConfigurations given the CA")
    ] = (MUTATING_CONFIGURATION,)
    validating_configurations: Annotated[
        tuple[str, ...], Meta(description="ValidatingWebhookConfigurations given the CA")
    ] = (VALIDATING_CONFIGURATION,)
    crds: Annotated[
        tuple[str, ...], Meta(description="CRDs whose conversion webhook is given the CA")
    ] = KUEUE_CRDS
    inject_ca: Annotated[
        bool,
        Meta(
            description="patch the CA (made with manage_certs, else cert_dir/ca.crt as "
            "cert-manager writes it) into the configurations and CRDs below"
        ),
    ] = True
    crd_conversion: Annotated[
        bool,
        Meta(
            description="also write the CRDs' whole spec.conversion (through this webhook's "
            "Service), for CRDs installed without it such as a Helm chart's crds/"
        ),
    ] = False
    ca_injection_period: Annotated[
        Duration, Meta(description="how often the caBundles are checked and patched again")
    ] = 60.0


async def run_webhook(
    *,
    shell: ServiceShell,
    kube: KubeClient,
    settings: WebhookSettings,
    stopping: asyncio.Event,
) -> None:
    cert_dir = Path(settings.cert_dir)
    cert_file, key_file = cert_dir / "tls.crt", cert_dir / "tls.key"
    ca_bundle = ""
    if settings.manage_certs:
        names = list(settings.dns_names) or service_names(settings.service, settings.namespace)
        certs = await ensure_certificates(
            kube, secret=settings.secret, namespace=settings.namespace, names=names
        )
        cert_file, key_file = write_serving_files(certs, cert_dir)
        ca_bundle = certs.ca_bundle
    elif settings.inject_ca and (cert_dir / "ca.crt").exists():
        ca_bundle = base64.b64encode((cert_dir / "ca.crt").read_bytes()).decode()
    conversion = None
    if settings.crd_conversion:
        client = ClientConfig(
            service=settings.service, namespace=settings.namespace, url=settings.url
        )
        conversion = crd_conversion(client)
    reader = ClusterReader(kube)
    app = build_app(read=reader.snapshot, registry=shell.registry)
    server = await start_server(
        app,
        host=settings.host,
        port=settings.port,
        context=server_ssl_context(str(cert_file), str(key_file)),
    )
    shell.log.info("webhook serving", https=f"{settings.host}:{server.port}")
    shell.readiness.mark_ready()
    try:
        while not stopping.is_set():
            if ca_bundle and settings.inject_ca:
                missing = await inject_ca_bundle(
                    kube,
                    ca_bundle,
                    mutating=settings.mutating_configurations,
                    validating=settings.validating_configurations,
                    crds=settings.crds,
                    crd_conversion=conversion,
                )
                if missing:
                    shell.log.warning("not there yet to patch the CA into", missing=missing)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopping.wait(), settings.ca_injection_period)
    finally:
        shell.readiness.mark_not_ready("stopping")
        await server.stop()
