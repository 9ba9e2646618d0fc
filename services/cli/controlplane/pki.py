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
from cryptography.hazmat.primitives.asymmetric import ec
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


def _new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey
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
