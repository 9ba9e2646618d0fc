"""SSH key pairs for Volcano's ``ssh`` plugin.

The pure reconcile asks for a Secret carrying the ``shoal.io/generate-ssh-keypair`` annotation;
the shell fills in a fresh RSA key pair just before creating it (randomness stays out of the
core), with the keys Volcano's plugin mounts: ``id_rsa``, ``id_rsa.pub``, ``authorized_keys``.
"""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from services.jobcontroller.volcanojob.plugins import SSH_KEYPAIR_ANNOTATION

Json = dict[str, Any]


def wants_keypair(obj: Json) -> bool:
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    return obj.get("kind") == "Secret" and annotations.get(SSH_KEYPAIR_ANNOTATION) == "true"


def with_keypair(obj: Json, *, bits: int = 2048) -> Json:
    """A copy of the Secret manifest with a new key pair in ``stringData``."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        .decode()
    )
    string_data = dict(obj.get("stringData") or {})
    string_data.update({"id_rsa": private, "id_rsa.pub": public, "authorized_keys": public})
    return {**obj, "stringData": string_data}
