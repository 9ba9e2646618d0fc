"""kubesim settings: listen address, node pools, kubelet timing, watch tuning, faults.

Built from CLI flags and/or a YAML file::

    nodePools:
      - count: 10
        prefix: cpu
        cpu: "32"
        memory: 128Gi
        pods: 110
        gpus: 0
        labels: {pool: cpu}
        taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
    startDelay: 0.05
    faults: {rules: [...], watch: {...}}
    http: {readHeaderTimeout: 32, idleTimeout: 90, maxHeaderBytes: 1048576,
           maxBodyBytes: 3145728, maxConnections: 4096}
    watch: {bookmarkInterval: 1, defaultTimeout: 1800, maxBufferedBytes: 67108864}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import yaml

from services.kubesim.faults import FaultConfig
from services.kubesim.http_server import ServerLimits
from services.kubesim.nodes import NodePool, NodeShape
from services.kubesim.streaming import WatchSettings
from shared.errors import UserError


@dataclass(frozen=True, kw_only=True)
class SimConfig:
    """Everything a kubesim instance needs; the defaults give an empty, fault-free cluster."""

    # Interface to listen on; 127.0.0.1 keeps the unauthenticated API off the network.
    host: str = "127.0.0.1"
    # TCP port; 0 picks a free one (``KubeSim.url`` tells which).
    port: int = 0
    # Nodes created at start.
    node_pools: tuple[NodePool, ...] = ()
    # Capacity reported for nodes created through the API without a status.
    default_shape: NodeShape = field(default_factory=NodeShape)
    # Seconds from bind to Running when the pod has no sim.shoal.io/start-delay.
    start_delay: float = 0.05
    # Seconds the simulated kubelet takes to stop a gracefully deleted pod (capped by the grace).
    stop_delay: float = 0.05
    # Watch events kept per resource type for resuming watches (older versions get 410).
    watch_history: int = 100_000
    watch: WatchSettings = field(default_factory=WatchSettings)
    # What one HTTP client may hold: head deadline, keep-alive, header/body bytes, connections.
    http: ServerLimits = field(default_factory=ServerLimits)
    faults: FaultConfig = field(default_factory=FaultConfig)
    # Refuse namespaced objects in namespaces that do not exist (the real admission does).
    strict_namespaces: bool = True
    # Seconds an Event lives after its last write (the API server's --event-ttl).
    event_ttl: float = 3600.0
    # Create the Volcano ``default`` Queue (weight 1) at start, as a Volcano install does.
    default_queue: bool = True
    # Run the validating webhooks (services.webhook.core, called by services/kubesim/admission).
    webhooks: bool = True
    # The optional webhooks registered too (services.webhook.core.webhooks.OPTIONAL).
    optional_webhooks: frozenset[str] = frozenset()
    # Where to write a kubeconfig for kubectl / kubernetes_asyncio (a temp file when None).
    kubeconfig_out: Path | None = None
    # Keep the objects here across restarts (services/kubesim/journal.py); None: in memory only.
    data_dir: Path | None = None
    # Seconds between a journal write and its fsync (0: fsync every write); what a power loss,
    # not a killed process, can take.
    journal_fsync_interval: float = 1.0
    # Start from a damaged journal: keep every valid record, move the damaged bytes aside.
    journal_repair: bool = False


class _PoolFile(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    count: int
    prefix: str = "node"
    cpu: str = "32"
    memory: str = "128Gi"
    pods: int = 110
    gpus: int = 0
    labels: dict[str, str] = {}
    taints: list[dict[str, str]] = []


class _HttpFile(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    read_header_timeout: float | None = None
    idle_timeout: float | None = None
    max_header_bytes: int | None = None
    max_body_bytes: int | None = None
    max_connections: int | None = None


class _WatchFile(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    bookmark_interval: float | None = None
    default_timeout: float | None = None
    max_buffered_bytes: int | None = None


class _ConfigFile(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    node_pools: list[_PoolFile] = []
    start_delay: float | None = None
    stop_delay: float | None = None
    watch_history: int | None = None
    faults: FaultConfig | None = None
    http: _HttpFile | None = None
    watch: _WatchFile | None = None


def pool(
    count: int,
    *,
    prefix: str = "node",
    cpu: str = "32",
    memory: str = "128Gi",
    pods: int = 110,
    gpus: int = 0,
    labels: dict[str, str] | None = None,
    taints: tuple[dict[str, str], ...] = (),
) -> NodePool:
    """A node pool in one call: ``pool(10, cpu="32", memory="128Gi", gpus=8)``."""
    shape = NodeShape(cpu=cpu, memory=memory, pods=pods, gpus=gpus)
    return NodePool(
        count=count, prefix=prefix, shape=shape, labels=dict(labels or {}), taints=taints
    )


def _given(section: msgspec.Struct) -> dict[str, Any]:
    """The fields a config file section sets."""
    values = {name: getattr(section, name) for name in section.__struct_fields__}
    return {name: value for name, value in values.items() if value is not None}


def load_config_file(path: Path) -> dict[str, Any]:
    """The SimConfig fields a YAML file sets (to be combined with CLI flags)."""
    try:
        raw = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise UserError(f"cannot read kubesim config {path}: {exc}") from exc
    try:
        parsed = msgspec.convert(raw or {}, _ConfigFile)
    except msgspec.ValidationError as exc:
        raise UserError(f"invalid kubesim config {path}: {exc}") from exc
    fields: dict[str, Any] = {}
    if parsed.node_pools:
        fields["node_pools"] = tuple(
            pool(
                p.count,
                prefix=p.prefix,
                cpu=p.cpu,
                memory=p.memory,
                pods=p.pods,
                gpus=p.gpus,
                labels=p.labels,
                taints=tuple(p.taints),
            )
            for p in parsed.node_pools
        )
    if parsed.http is not None:
        fields["http"] = ServerLimits(**_given(parsed.http))
    if parsed.watch is not None:
        fields["watch"] = WatchSettings(**_given(parsed.watch))
    for name in ("start_delay", "stop_delay", "watch_history", "faults"):
        value = getattr(parsed, name)
        if value is not None:
            fields[name] = value
    return fields
