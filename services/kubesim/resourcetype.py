"""One REST resource type, as the API server describes it in discovery."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_ALL_VERBS = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")


@dataclass(frozen=True, kw_only=True)
class ResourceType:
    """One REST resource as the API server describes it in discovery."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    subresources: tuple[str, ...] = ()
    short_names: tuple[str, ...] = ()
    # Custom resources (CRDs) refuse strategic merge patch, as the real API server does.
    builtin: bool = True
    # Only create is served (the legacy ``bindings`` resource).
    create_only: bool = False
    # The propagation policy used when a DELETE names none (batch/v1 Job orphans, for history).
    default_propagation: str = "Background"
    categories: tuple[str, ...] = ()
    singular: str = field(default="")
    # The version objects are stored in; empty: this version.
    storage_version: str = ""
    # Sent as a ``Warning`` header on every request to a deprecated version.
    deprecation_warning: str = ""
    # A CRD's additionalPrinterColumns and openAPIV3Schema for this version.
    printer_columns: tuple[dict[str, Any], ...] = field(default=(), compare=False)
    schema: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def key(self) -> str:
        """Stable identity used for stores and watch hubs: ``plural.group``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def stored_as(self) -> str:
        return self.storage_version or self.version

    @property
    def has_status(self) -> bool:
        return "status" in self.subresources

    @property
    def verbs(self) -> tuple[str, ...]:
        return ("create",) if self.create_only else _ALL_VERBS
