"""The kubesim server: store + kubelet + garbage collector behind the HTTP API.

    async with KubeSim(SimConfig(node_pools=(pool(10, gpus=8),))) as sim:
        ...  # sim.url, sim.kubeconfig_path, sim.set_faults(...)

With ``SimConfig.data_dir`` the objects are journaled and restored on start (``journal``).

Admin endpoints (not part of the Kubernetes API): ``GET|POST|DELETE /_sim/faults``,
``POST /_sim/compact?resource=pods[.group]`` (forget watch history: older versions get 410),
and ``/healthz``, ``/livez``, ``/readyz``.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

import yaml

from services.kubesim.apierrors import ApiError
from services.kubesim.config import SimConfig
from services.kubesim.discovery import Discovery
from services.kubesim.disruption import controller as disruption_controller
from services.kubesim.event_ttl import EventExpiry
from services.kubesim.faults import FaultConfig, Faults, encode_faults, parse_faults
from services.kubesim.gc import GarbageCollector
from services.kubesim.handlers import ApiHandler, respond
from services.kubesim.http_messages import Request, Response
from services.kubesim.http_server import HttpServer
from services.kubesim.journal import Journal
from services.kubesim.kubelet import Kubelet
from services.kubesim.nodes import pool_nodes
from services.kubesim.registry import Registry, ResourceType
from services.kubesim.store import Store
from services.kubesim.watch import Event
from shared.kube.timefmt import format_rfc3339

Obj = dict[str, Any]
SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")


def kubeconfig(url: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "kubesim", "cluster": {"server": url}}],
        "users": [{"name": "kubesim", "user": {"token": "kubesim"}}],
        "contexts": [
            {
                "name": "kubesim",
                "context": {"cluster": "kubesim", "user": "kubesim", "namespace": "default"},
            }
        ],
        "current-context": "kubesim",
        "preferences": {},
    }


class KubeSim:
    """A simulated Kubernetes API server running in this event loop."""

    def __init__(self, config: SimConfig | None = None) -> None:
        self.config = config or SimConfig()
        self.registry = Registry()
        self.store = Store(
            self.registry,
            max_history=self.config.watch_history,
            strict_namespaces=self.config.strict_namespaces,
        )
        self.faults = Faults(self.config.faults)
        self._server: HttpServer | None = None
        self._kubelet: Kubelet | None = None
        self._expiry: asyncio.Task[None] | None = None
        self._tmpdir: tempfile.TemporaryDirectory[str] | None = None
        self._journal = (
            Journal(
                self.config.data_dir,
                fsync_interval=self.config.journal_fsync_interval,
                repair=self.config.journal_repair,
            )
            if self.config.data_dir
            else None
        )
        self.port = 0
        self.kubeconfig_path = Path()

    @property
    def url(self) -> str:
        host = self.config.host
        if ":" in host:
            host = f"[{host}]"
        elif host in ("0.0.0.0", ""):
            host = "127.0.0.1"
        return f"http://{host}:{self.port}"

    def set_faults(self, config: FaultConfig) -> None:
        self.faults.set(config)

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        config = self.config
        self._kubelet = Kubelet(
            self.store,
            default_shape=config.default_shape,
            start_delay=config.start_delay,
            stop_delay=config.stop_delay,
            loop=loop,
        )
        restored = self._journal.restore(self.store) if self._journal is not None else []
        self.store.listeners.append(self._kubelet)
        self.store.listeners.append(GarbageCollector(self.store, defer=loop.call_soon))
        budgets = disruption_controller(self.store, defer=loop.call_soon)
        if budgets is not None:
            self.store.listeners.append(budgets)
        expiry = EventExpiry(self.store, ttl=config.event_ttl, clock=self.store.clock)
        self.store.listeners.append(expiry)
        self._expiry = asyncio.create_task(self._expire_events(expiry), name="event ttl")
        if self._journal is not None:
            self._resume(restored, self._journal)
        self._seed()
        # After the seed: the default Queue is Volcano's install, not a user's create.
        self.store.webhooks.validating = config.webhooks
        self.store.webhooks.optional = config.optional_webhooks
        handler = ApiHandler(self.store, self.faults, Discovery(self.registry), config.watch)

        async def dispatch(request: Request) -> Response:
            path, method = request.path, request.method
            if path == "/_sim/faults":
                return self._faults_endpoint(request)
            if path == "/_sim/compact" and method == "POST":
                return self._compact_endpoint(request)
            if path in _PROBES and method in ("GET", "HEAD"):
                return Response(b"ok", content_type="text/plain; charset=utf-8")
            return await handler(request)

        self._server = HttpServer(dispatch, config.http)
        self.port = await self._server.start(config.host, config.port, backlog=1024)
        self.kubeconfig_path = self._write_kubeconfig()

    def _resume(self, restored: list[tuple[ResourceType, Obj]], journal: Journal) -> None:
        """Show the restored objects to the kubelet, GC and event expiry (nodes before pods),
        then journal every change from here on."""
        ordered = sorted(restored, key=lambda item: item[0].kind != "Node")
        for rtype, obj in ordered:
            event = Event("ADDED", obj, None, int(obj["metadata"]["resourceVersion"]))
            for listener in self.store.listeners:
                listener(rtype, event)
        journal.open(self.store)
        self.store.listeners.insert(0, journal)

    def _seed(self) -> None:
        """The system namespaces, the configured nodes and the default Queue, unless a restored
        store has them already."""
        namespaces = self.store.tables["namespaces"].rtype
        for name in SYSTEM_NAMESPACES:
            self._create_missing(namespaces, {"metadata": {"name": name}})
        nodes = self.store.tables["nodes"].rtype
        now = format_rfc3339(self.store.clock())
        for pool in self.config.node_pools:
            for node in pool_nodes(pool, now):
                self._create_missing(nodes, node)
        if self.config.default_queue:
            queues = self.registry.lookup("scheduling.volcano.sh", "v1beta1", "queues")
            assert queues is not None
            self._create_missing(queues, {"metadata": {"name": "default"}, "spec": {"weight": 1}})

    def _create_missing(self, rtype: ResourceType, obj: Obj) -> None:
        if self.store.find(rtype, "", obj["metadata"]["name"]) is None:
            self.store.create(rtype, "", obj)

    def _write_kubeconfig(self) -> Path:
        path = self.config.kubeconfig_out
        if path is None:
            self._tmpdir = tempfile.TemporaryDirectory(prefix="kubesim-")
            path = Path(self._tmpdir.name) / "kubeconfig"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(kubeconfig(self.url), sort_keys=False))
        return path

    async def _expire_events(self, expiry: EventExpiry) -> None:
        events = self.store.by_kind("v1", "Event")
        every = min(max(expiry.ttl / 10, 0.05), 60.0)
        while True:
            await asyncio.sleep(every)
            expiry.sweep(events)
            journal = self._journal
            if journal is not None and journal.needs_compaction(self._live_objects()):
                journal.open(self.store)

    def _live_objects(self) -> int:
        return sum(len(table.objects) for table in self.store.tables.values())

    async def stop(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        if self._kubelet is not None:
            self._kubelet.close()
        if self._server is not None:
            # Open watches never end on their own: they are ended, the rest get 1 s.
            await self._server.stop(grace=1.0)
            self._server = None
        if self._journal is not None:
            self._journal.close()
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir = None

    async def __aenter__(self) -> KubeSim:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    def _faults_endpoint(self, request: Request) -> Response:
        if request.method == "POST":
            try:
                self.set_faults(parse_faults(request.body))
            except ValueError as exc:
                return respond(ApiError(400, str(exc)).status(), 400)
        elif request.method == "DELETE":
            self.set_faults(FaultConfig())
        elif request.method != "GET":
            return respond(ApiError(405, "use GET, POST or DELETE").status(), 405)
        return respond(encode_faults(self.faults.config))

    def _compact_endpoint(self, request: Request) -> Response:
        name = request.query.get("resource", "")
        table = self.store.tables.get(name)
        if table is None:
            return respond(ApiError(404, f"no resource {name!r}").status(), 404)
        table.hub.compact()
        return respond({"compactedResourceVersion": str(table.hub.compacted_rv)})


_PROBES = frozenset({"/healthz", "/livez", "/readyz"})
