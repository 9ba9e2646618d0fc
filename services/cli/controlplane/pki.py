"""Certificates and keys for a local real control plane, as kind and envtest make them.

One CA signs the API server's serving certificate and the client certificates of the parts that
authenticate as themselves (the admin, kube-controller-manager, kube-scheduler, kwok); the
service-account key pair signs the tokens the Shoal services use. Everything is made with the
``cryptography`` package once per work directory and reused on the next start.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_VALID = datetime.timedelta(days=365)
# (file stem, common name, organisation): client identities the control plane's parts use.
CLIENTS = (
    ("admin", "shoal-admin", "system:masters"),
    ("kube-controller-manager", "system:kube-controller-manager", ""),
    ("kube-scheduler", "system:kube-scheduler", ""),
    ("kwok", "kwok-controller", "system:masters"),
)
SERVING_NAMES = ("localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc")


@dataclass(frozen=True)
class Pki:
    """Paths of everything the control plane needs; ``ensure`` makes what is missing."""

    root: Path

    @property
    def ca_cert(self) -> Path:
        return self.root / "ca.crt"

    @property
    def ca_key(self) -> Path:
        return self.root / "ca.key"

    @property
    def serving_cert(self) -> Path:
        return self.root / "apiserver.crt"

    @property
    def serving_key(self) -> Path:
        return self.root / "apiserver.key"

    @property
    def sa_key(self) -> Path:
        return self.root / "sa.key"

    @property
    def sa_pub(self) -> Path:
        return self.root / "sa.pub"

    def client_cert(self, stem: str) -> Path:
        return self.root / f"{stem}.crt"

    def client_key(self, stem: str) -> Path:
        return self.root / f"{stem}.key"

    def ensure(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if not (self.ca_cert.exists() and self.ca_key.exists()):
            key = _new_key()
            name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "shoal-local-ca")])
            cert = (
                _builder(name, name, key.public_key())
                .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                .add_extension(
                    x509.KeyUsage(
                        digital_signature=True,
                        content_commitment=False,
                        key_encipherment=False,
                        data_encipherment=False,
                        key_agreement=False,
                        key_cert_sign=True,
                        crl_sign=True,
                        encipher_only=False,
                        decipher_only=False,
                    ),
                    critical=True,
                )
                .sign(key, hashes.SHA256())
            )
            _write(self.ca_key, self.ca_cert, key, cert)
        ca_key = serialization.load_pem_private_key(self.ca_key.read_bytes(), None)
        assert isinstance(ca_key, ec.EllipticCurvePrivateKey)
        ca = x509.load_pem_x509_certificate(self.ca_cert.read_bytes())
        if not self.serving_cert.exists():
            sans: list[x509.GeneralName] = [x509.DNSName(n) for n in SERVING_NAMES]
            sans += [x509.IPAddress(ipaddress.ip_address(a)) for a in ("127.0.0.1", "10.96.0.1")]
            self._issue(
                ca,
                ca_key,
                self.serving_key,
                self.serving_cert,
                "kube-apiserver",
                "",
                ExtendedKeyUsageOID.SERVER_AUTH,
                sans,
            )
        for stem, common_name, org in CLIENTS:
            if not self.client_cert(stem).exists():
                self._issue(
                    ca,
                    ca_key,
                    self.client_key(stem),
                    self.client_cert(stem),
                    common_name,
                    org,
                    ExtendedKeyUsageOID.CLIENT_AUTH,
                    [],
                )
        if not self.sa_key.exists():
            key = _new_key()
            self.sa_pub.write_bytes(
                key.public_key().public_bytes(
                    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
                )
            )
            self.sa_key.write_bytes(_key_pem(key))
            self.sa_key.chmod(0o600)

    def _issue(
        self,
        ca: x509.Certificate,
        ca_key: ec.EllipticCurvePrivateKey,
        key_path: Path,
        cert_path: Path,
        common_name: str,
        org: str,
        usage: x509.ObjectIdentifier,
        sans: list[x509.GeneralName],
    ) -> None:
        key = _new_key()
        attributes = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
        if org:
            attributes.append(x509.NameAttribute(NameOID.ORGANIZATION_NAME, org))
        builder = _builder(x509.Name(attributes), ca.subject, key.public_key()).add_extension(
            x509.ExtendedKeyUsage([usage]), critical=False
        )
        if sans:
            builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        _write(key_path, cert_path, key, builder.sign(ca_key, hashes.SHA256()))


def cert_controller_secret(ca_name: str, dns_name: str, ip: str) -> dict[str, bytes]:
    """A CA and a serving certificate it signs, as the keys of the Secret cert-controller's
    rotator keeps (``ca.crt``, ``ca.key``, ``tls.crt``, ``tls.key``).

    The rotator keeps a Secret it finds valid: a CA whose DNS name is ``ca_name`` and a
    certificate for ``dns_name`` (its webhook Service). The certificate also names ``ip``, so
    that kube-apiserver can call the webhook by URL on this machine. The keys are RSA in PKCS #1,
    as the rotator makes them and parses the CA's when it injects the CA bundle."""
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca_subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ca_name)])
    ca = (
        _builder(ca_subject, ca_subject, ca_key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(ca_name)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    sans = [x509.DNSName(dns_name), x509.IPAddress(ipaddress.ip_address(ip))]
    cert = (
        _builder(
            x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, dns_name)]),
            ca.subject,
            key.public_key(),
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem, pkcs1 = serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL
    return {
        "ca.crt": ca.public_bytes(pem),
        "ca.key": ca_key.private_bytes(pem, pkcs1, serialization.NoEncryption()),
        "tls.crt": cert.public_bytes(pem),
        "tls.key": key.private_bytes(pem, pkcs1, serialization.NoEncryption()),
    }


def _new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey | rsa.RSAPublicKey
) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + _VALID)
    )


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _write(
    key_path: Path, cert_path: Path, key: ec.EllipticCurvePrivateKey, cert: x509.Certificate
) -> None:
    key_path.write_bytes(_key_pem(key))
    key_path.chmod(0o600)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
