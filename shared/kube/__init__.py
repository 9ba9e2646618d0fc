"""Kubernetes access for Shoal's services: resource table and a raw-JSON async client, and the
helpers every service shares (API error classes, Event manifests, RFC 3339 times, merge patch,
object keys, scheduler names).

The client (kubernetes_asyncio, aiohttp) is imported on first use of its names only: the pure
cores import the helper modules here, and must neither pay for nor depend on the I/O stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shared.kube.resources import RESOURCES, ResourceType, resource_for

if TYPE_CHECKING:
    from shared.kube.client import ApiError, KubeClient, WatchExpired, load_api_client

_CLIENT_NAMES = frozenset({"ApiError", "KubeClient", "WatchExpired", "load_api_client"})

__all__ = [
    "RESOURCES",
    "ApiError",
    "KubeClient",
    "ResourceType",
    "WatchExpired",
    "load_api_client",
    "resource_for",
]


def __getattr__(name: str) -> object:
    if name in _CLIENT_NAMES:
        from shared.kube import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
