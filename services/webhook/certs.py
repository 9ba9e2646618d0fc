"""The webhook's CA and serving certificate, as Kueue's internal cert manager makes them
(open-policy-agent/cert-controller: a self-signed CA, a serving certificate for the Service's
DNS names, both in one Secret under ``ca.crt`` ``ca.key`` ``tls.crt`` ``tls.key``).

Pure: bytes in, bytes out, the clock passed in. ``certmanager`` stores them and patches the CA
into the webhook configurations and CRDs.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
from dataclasses import dataclass

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# cert-controller's defaults: a CA for 10 years, a serving certificate for 10 years, renewed
# when less than 90 days are left.
CA_VALIDITY = datetime.timedelta(days=3650)
SERVING_VALIDITY = datetime.timedelta(days=3650)
LOOKAHEAD = datetime.timedelta(days=90)
CA_NAME = "shoal-webhook-ca"


@dataclass(frozen=True)
class Certificates:
    """PEM bytes of the CA and of the serving certificate and key."""

    ca_cert: bytes
    ca_key: bytes
    cert: bytes
    key: bytes

    def secret_data(self) -> dict[str, str]:
        """The Secret's ``data`` (base64 values)."""
        raw = {"ca.crt": self.ca_cert, "ca.key": self.ca_key, "tls.crt": self.cert}
        raw["tls.key"] = self.key
        return {k: base64.b64encode(v).decode() for k, v in raw.items()}

    @classmethod
    def from_secret_data(cls, data: dict[str, str]) -> Certificates | None:
        try:
            raw = {k: base64.b64decode(data[k]) for k in ("ca.crt", "ca.key", "tls.crt", "tls.key")}
        except (KeyError, ValueError, TypeError):
            return None
        return cls(raw["ca.crt"], raw["ca.key"], raw["tls.crt"], raw["tls.key"])

    @property
    def ca_bundle(self) -> str:
        """The ``caBundle`` of a webhook clientConfig (base64 of the CA's PEM)."""
        return base64.b64encode(self.ca_cert).decode()


def service_names(service: str, namespace: str) -> list[str]:
    """The DNS names kube-apiserver uses to reach the Service."""
    return [
        service,
        f"{service}.{namespace}",
        f"{service}.{namespace}.svc",
        f"{service}.{namespace}.svc.cluster.local",
    ]


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _usage(*, ca: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=not ca,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


def _subject_names(names: list[str]) -> list[x509.GeneralName]:
    """DNS names, and IP addresses as IP SANs (a webhook reached at https://127.0.0.1:port)."""
    out: list[x509.GeneralName] = []
    for name in names:
        try:
            out.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            out.append(x509.DNSName(name))
    return out


def issue(names: list[str], now: datetime.datetime) -> Certificates:
    """A new CA and a serving certificate for ``names`` signed by it."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_NAME)])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + CA_VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(_usage(ca=True), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + SERVING_VALIDITY)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_usage(ca=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(_subject_names(names)), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    return Certificates(
        ca.public_bytes(pem), _pem_key(ca_key), cert.public_bytes(pem), _pem_key(key)
    )


def still_good(certs: Certificates, names: list[str], now: datetime.datetime) -> bool:
    """Whether stored certificates can be reused: parseable, the serving certificate signed by
    the CA, for every name, its key the certificate's, and not within ``LOOKAHEAD`` of expiry."""
    try:
        ca = x509.load_pem_x509_certificate(certs.ca_cert)
        cert = x509.load_pem_x509_certificate(certs.cert)
        key = serialization.load_pem_private_key(certs.key, None)
        cert.verify_directly_issued_by(ca)
        sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    except (ValueError, TypeError, InvalidSignature, x509.ExtensionNotFound):
        return False
    if key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    ) != cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    ):
        return False
    present = set(sans.value.get_values_for_type(x509.DNSName))
    present |= {str(ip) for ip in sans.value.get_values_for_type(x509.IPAddress)}
    if not {str(n.value) for n in _subject_names(names)} <= present:
        return False
    horizon = now + LOOKAHEAD
    return min(ca.not_valid_after_utc, cert.not_valid_after_utc) > horizon
