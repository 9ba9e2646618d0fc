"""The webhook's certificates (made, judged reusable or not) and the configurations that
register it (rendered from the webhook table, for a Service or a URL)."""

from __future__ import annotations

import base64
import datetime

import pytest

from services.webhook.certs import Certificates, issue, service_names, still_good
from services.webhook.core.configurations import (
    ClientConfig,
    crd_conversion,
    webhook_configurations,
)
from services.webhook.core.webhooks import OPTIONAL, WEBHOOKS

NOW = datetime.datetime(2026, 11, 28, tzinfo=datetime.UTC)
NAMES = service_names("shoal-webhook", "shoal-system")
CERTS = issue(NAMES, NOW)
OTHER = issue(NAMES, NOW)
LOCAL = issue(["localhost", "127.0.0.1"], NOW)


def test_service_names_are_what_kube_apiserver_dials() -> None:
    assert "shoal-webhook.shoal-system.svc" in NAMES


REUSE = [
    ("fresh", CERTS, NAMES, NOW, True),
    ("fewer names", CERTS, NAMES[:2], NOW, True),
    ("another name", CERTS, [*NAMES, "x.example"], NOW, False),
    ("within 90 days of expiry", CERTS, NAMES, NOW + datetime.timedelta(days=3570), False),
    ("serving certificate of another CA",
     Certificates(OTHER.ca_cert, OTHER.ca_key, CERTS.cert, CERTS.key), NAMES, NOW, False),
    ("key of another certificate",
     Certificates(CERTS.ca_cert, CERTS.ca_key, CERTS.cert, OTHER.key), NAMES, NOW, False),
    ("not PEM", Certificates(b"x", b"x", b"x", b"x"), NAMES, NOW, False),
    ("an IP address", LOCAL, ["127.0.0.1"], NOW, True),
    ("another IP address", LOCAL, ["10.0.0.1"], NOW, False),
]  # fmt: skip


@pytest.mark.parametrize(
    ("certs", "names", "now", "good"), [r[1:] for r in REUSE], ids=[r[0] for r in REUSE]
)
def test_still_good(
    certs: Certificates, names: list[str], now: datetime.datetime, good: bool
) -> None:
    assert still_good(certs, names, now) is good


def test_the_secret_data_round_trips_and_garbage_is_none() -> None:
    assert Certificates.from_secret_data(CERTS.secret_data()) == CERTS
    assert Certificates.from_secret_data({"tls.crt": "x"}) is None
    assert base64.b64decode(CERTS.ca_bundle) == CERTS.ca_cert


def test_configurations_register_every_webhook_with_upstreams_policies() -> None:
    mutating, validating = webhook_configurations(ClientConfig(), "Q0E=")
    hooks = {w["name"]: w for w in [*mutating["webhooks"], *validating["webhooks"]]}
    assert sorted(hooks) == sorted(w.name for w in WEBHOOKS if not w.optional)
    mutating, validating = webhook_configurations(ClientConfig(), "Q0E=", optional=OPTIONAL)
    every = [w["name"] for w in [*mutating["webhooks"], *validating["webhooks"]]]
    assert sorted(every) == sorted(w.name for w in WEBHOOKS)
    assert {every[-1], mutating["webhooks"][-1]["name"]} == set(OPTIONAL)  # last in each
    job = hooks["validatejob.volcano.sh"]
    assert job["clientConfig"] == {
        "service": {"name": "shoal-webhook", "namespace": "shoal-system",
                    "path": "/volcano/jobs/validate", "port": 443},
        "caBundle": "Q0E=",
    }  # fmt: skip
    assert (job["failurePolicy"], job["sideEffects"], job["matchPolicy"]) == (
        "Fail",
        "NoneOnDryRun",
        "Equivalent",
    )
    assert job["namespaceSelector"]["matchExpressions"][0]["values"] == [
        "shoal-system",
        "kube-system",
    ]
    assert hooks["mjob.kb.io"]["sideEffects"] == "None"
    assert hooks["mjob.kb.io"]["namespaceSelector"] == job["namespaceSelector"]
    assert "namespaceSelector" not in hooks["validator.pytorchjob.training-operator.kubeflow.org"]
    assert hooks["mjob.kb.io"]["reinvocationPolicy"] == "Never"
    assert all(w["admissionReviewVersions"] == ["v1"] for w in hooks.values())
    workload = hooks["vworkload.kb.io"]["rules"][0]
    assert workload["resources"] == ["workloads", "workloads/status"]
    assert workload["operations"] == ["CREATE", "UPDATE"]


def test_a_url_client_config_for_a_webhook_outside_the_cluster() -> None:
    client = ClientConfig(url="https://127.0.0.1:9443/")
    conversion = crd_conversion(client, "Q0E=")
    assert conversion == {
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {"url": "https://127.0.0.1:9443/kueue/convert", "caBundle": "Q0E="},
            "conversionReviewVersions": ["v1"],
        },
    }
