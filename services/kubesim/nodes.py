"""Simulated nodes: their shape, the objects created from a node-pool config, and the status
their kubelet reports (Ready, capacity = allocatable, addresses)."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

Obj = dict[str, Any]
GPU = "nvidia.com/gpu"


@dataclass(frozen=True, kw_only=True)
class NodeShape:
    """Capacity of one node; every value is a Kubernetes quantity string."""

    cpu: str = "32"
    memory: str = "128Gi"
    pods: int = 110
    gpus: int = 0
    ephemeral_storage: str = "500Gi"

    def capacity(self) -> dict[str, str]:
        out = {
            "cpu": self.cpu,
            "memory": self.memory,
            "pods": str(self.pods),
            "ephemeral-storage": self.ephemeral_storage,
        }
        if self.gpus:
            out[GPU] = str(self.gpus)
        return out


@dataclass(frozen=True, kw_only=True)
class NodePool:
    """``count`` identical nodes named ``<prefix>-<i>``."""

    count: int
    prefix: str = "node"
    shape: NodeShape = field(default_factory=NodeShape)
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[dict[str, str], ...] = ()


def _ip_for(name: str) -> str:
    n = zlib.crc32(name.encode())
    return f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{(n & 253) + 1}"


def node_ip(node: Obj) -> str:
    for address in (node.get("status") or {}).get("addresses") or ():
        if address.get("type") == "InternalIP":
            return str(address.get("address", ""))
    return _ip_for(node["metadata"]["name"])


def _conditions(now: str) -> list[Obj]:
    def cond(type_: str, status: str, reason: str) -> Obj:
        return {
            "type": type_,
            "status": status,
            "reason": reason,
            "message": f"kubelet simulated: {reason}",
            "lastHeartbeatTime": now,
            "lastTransitionTime": now,
        }

    return [
        cond("MemoryPressure", "False", "KubeletHasSufficientMemory"),
        cond("DiskPressure", "False", "KubeletHasNoDiskPressure"),
        cond("PIDPressure", "False", "KubeletHasSufficientPID"),
        cond("Ready", "True", "KubeletReady"),
    ]


def registered_status(node: Obj, shape: NodeShape, now: str) -> Obj:
    """The status a kubelet reports for ``node``, keeping whatever the object already states."""
    status = dict(node.get("status") or {})
    capacity = status.get("capacity") or shape.capacity()
    status["capacity"] = capacity
    status.setdefault("allocatable", dict(capacity))
    status.setdefault("conditions", _conditions(now))
    name = node["metadata"]["name"]
    status.setdefault(
        "addresses",
        [{"type": "InternalIP", "address": _ip_for(name)}, {"type": "Hostname", "address": name}],
    )
    status.setdefault(
        "nodeInfo",
        {
            "kubeletVersion": "v1.32.0-kubesim",
            "containerRuntimeVersion": "kubesim://1",
            "operatingSystem": "linux",
            "architecture": "amd64",
            "osImage": "kubesim",
            "kernelVersion": "",
            "machineID": "",
            "systemUUID": "",
            "bootID": "",
            "kubeProxyVersion": "",
        },
    )
    status.setdefault("phase", "Running")
    return status


def pool_nodes(pool: NodePool, now: str) -> list[Obj]:
    """The node manifests of one pool, ready to create (status included)."""
    out = []
    for i in range(pool.count):
        name = f"{pool.prefix}-{i}"
        node: Obj = {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "labels": {
                    "kubernetes.io/hostname": name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                    **pool.labels,
                },
            },
            "spec": {"taints": [dict(t) for t in pool.taints]} if pool.taints else {},
        }
        node["status"] = registered_status(node, pool.shape, now)
        out.append(node)
    return out
