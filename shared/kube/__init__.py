"""Kubernetes access for Shoal's services: resource table and a raw-JSON async client."""

from shared.kube.client import ApiError, KubeClient, WatchExpired, load_api_client
from shared.kube.resources import RESOURCES, ResourceType, resource_for

__all__ = [
    "RESOURCES",
    "ApiError",
    "KubeClient",
    "ResourceType",
    "WatchExpired",
    "load_api_client",
    "resource_for",
]
