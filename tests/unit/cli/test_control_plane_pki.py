"""The real control plane's certificates: one CA signs the API server's serving certificate and
each client identity; the service-account key pair signs tokens; a second ensure reuses all.
Kueue's webhook Secret is one its cert-controller rotator keeps as valid."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from services.cli.controlplane.pki import CLIENTS, Pki, cert_controller_secret


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    made = Pki(tmp_path_factory.mktemp("pki"))
    made.ensure()
    return made


def _cert(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


def _signed_by_ca(pki: Pki, cert: x509.Certificate) -> bool:
    return _signed_by(_cert(pki.ca_cert), cert)


def _signed_by(ca: x509.Certificate, cert: x509.Certificate) -> bool:
    cert.verify_directly_issued_by(ca)  # raises if not
    return True


def test_the_serving_certificate_names_loopback_and_the_kubernetes_service(pki: Pki) -> None:
    cert = _cert(pki.serving_cert)
    assert _signed_by_ca(pki, cert)
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert ipaddress.ip_address("127.0.0.1") in names.get_values_for_type(x509.IPAddress)
    assert "kubernetes.default.svc" in names.get_values_for_type(x509.DNSName)
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.SERVER_AUTH]


@pytest.mark.parametrize(
    ("stem", "common_name", "organisation"), CLIENTS, ids=[c[0] for c in CLIENTS]
)
def test_each_client_identity_is_what_the_authorizer_expects(
    pki: Pki, stem: str, common_name: str, organisation: str
) -> None:
    cert = _cert(pki.client_cert(stem))
    assert _signed_by_ca(pki, cert)
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == common_name
    orgs = [a.value for a in cert.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    assert orgs == ([organisation] if organisation else [])
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.CLIENT_AUTH]


def test_a_second_ensure_keeps_every_key_and_certificate(pki: Pki) -> None:
    files = sorted(pki.root.iterdir())
    before = {p.name: p.read_bytes() for p in files}
    pki.ensure()
    assert {p.name: p.read_bytes() for p in sorted(pki.root.iterdir())} == before
    assert all(oct(p.stat().st_mode)[-3:] == "600" for p in files if p.suffix == ".key")


def _names(cert: x509.Certificate) -> x509.SubjectAlternativeName:
    return cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value


def test_the_cert_controller_secret_is_one_its_rotator_keeps() -> None:
    """cert-controller keeps a Secret whose CA verifies for the CA's name and whose certificate,
    signed by it, verifies for the webhook Service's name; kube-apiserver calls by 127.0.0.1."""
    secret = cert_controller_secret(
        "kueue-ca", "kueue-webhook-service.kueue-system.svc", "127.0.0.1"
    )
    assert set(secret) == {"ca.crt", "ca.key", "tls.crt", "tls.key"}
    ca = x509.load_pem_x509_certificate(secret["ca.crt"])
    cert = x509.load_pem_x509_certificate(secret["tls.crt"])
    assert _signed_by(ca, ca) and _signed_by(ca, cert)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert _names(ca).get_values_for_type(x509.DNSName) == ["kueue-ca"]
    names = _names(cert)
    assert names.get_values_for_type(x509.DNSName) == ["kueue-webhook-service.kueue-system.svc"]
    assert names.get_values_for_type(x509.IPAddress) == [ipaddress.ip_address("127.0.0.1")]
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.SERVER_AUTH]
    for key_name, holder in (("ca.key", ca), ("tls.key", cert)):
        # PKCS #1: the rotator parses the CA's key with ParsePKCS1PrivateKey.
        assert secret[key_name].startswith(b"-----BEGIN RSA PRIVATE KEY-----")
        key = serialization.load_pem_private_key(secret[key_name], None)
        assert key.public_key() == holder.public_key()
