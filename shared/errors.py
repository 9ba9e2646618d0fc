"""User-facing errors: bad input that the CLI reports as one line and exit code 2."""

from __future__ import annotations


class UserError(Exception):
    """Invalid input from a user (manifest, flag, configuration); the message is shown as is."""


class ManifestError(UserError):
    """A manifest that cannot be used; names the document and the field."""

    def __init__(self, message: str, *, document: str = "", field: str = "") -> None:
        where = ", ".join(part for part in (document, field and f"field {field}") if part)
        super().__init__(f"{where}: {message}" if where else message)
        self.document = document
        self.field = field


class QuantityError(UserError, ValueError):
    """A Kubernetes resource quantity that does not parse."""
