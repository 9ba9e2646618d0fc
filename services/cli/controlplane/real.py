"""A real control plane on this machine: etcd, kube-apiserver, kube-controller-manager,
kube-scheduler, kwok and Apache Kafka, built from pinned upstream sources by
``make control-plane`` (deploy/control-plane/build.sh) into ``.tools/control-plane``.

The API server is started as kind and envtest start it, with TLS, client certificates, service
accounts and ``--authorization-mode=Node,RBAC``. Shoal's CRDs and deploy/'s RBAC are installed,
kwok plays N nodes (``deploy/control-plane/kwok/stages.yaml`` runs pods from kubesim's
``sim.shoal.io/*`` annotations), and each Shoal service gets a kubeconfig with its own
service account's token: no service runs as admin.

kube-controller-manager runs every default controller but its Job and CronJob controllers:
Shoal's job controller is the cluster's (``--controllers=*,-job,-cronjob``), as on kubesim.
With ``builtin_job_controller`` the built-in Job controller runs too, and each Job has one
controller through ``spec.managedBy``: Shoal claims the Jobs that name ``MANAGED_BY``
(``SHOAL_JOBCONTROLLER_BATCH_MANAGED_BY``), the built-in controller the rest. CronJobs are
always Shoal's (they have no ``managedBy``).

Each part is a child process with a log under ``<workdir>/logs``; ``stop`` sends SIGTERM and
SIGKILLs what is left.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import ssl
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import yaml

from services.cli.controlplane.kafka import KafkaBroker
from services.cli.controlplane.pki import Pki
from services.cli.processes import (
    Process,
    cpu_seconds,
    die_with_parent,
    free_port,
    wait_until_ok,
)
from services.webhook.core.configurations import (
    KUEUE_CRDS,
    MUTATING_CONFIGURATION,
    VALIDATING_CONFIGURATION,
    ClientConfig,
    crd_conversion,
    webhook_configurations,
)
from shared.kube.resources import resource_for

Json = dict[str, Any]
REPO = Path(__file__).resolve().parents[3]
DEPLOY = REPO / "deploy"
TOOLS_ENV = "SHOAL_CONTROL_PLANE_DIR"
SYSTEM_NAMESPACE = "shoal-system"
# The Job controller name Shoal claims on a cluster whose own Job controller runs.
MANAGED_BY = "shoal.io/job-controller"
SERVICE_ACCOUNTS = {
    "watcher": "shoal-watcher",
    "jobcontroller": "shoal-jobcontroller",
    "scheduler": "shoal-scheduler",
    "binder": "shoal-binder",
    "webhook": "shoal-webhook",
}
KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"
_TOKEN_SECONDS = 7 * 24 * 3600
_CRD = resource_for("apiextensions.k8s.io/v1", "CustomResourceDefinition")
_ADMISSION = "admissionregistration.k8s.io/v1"
_WEBHOOK_CONFIGURATIONS = (
    (resource_for(_ADMISSION, "MutatingWebhookConfiguration"), MUTATING_CONFIGURATION),
    (resource_for(_ADMISSION, "ValidatingWebhookConfiguration"), VALIDATING_CONFIGURATION),
)


def tools_dir() -> Path:
    return Path(os.environ.get(TOOLS_ENV) or REPO / ".tools" / "control-plane")


def built() -> bool:
    """Whether ``make control-plane`` has built every part, the peers' included."""
    root = tools_dir()
    names = (
        "etcd",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
        "kwok",
        "helm",
        "vc-scheduler",
        "vc-controller-manager",
        "kueue",
    )
    upstream = ("kafka/libs", "volcano/config", "kueue/config")
    return all((root / "bin" / n).is_file() for n in names) and all(
        (root / d).is_dir() for d in upstream
    )


@dataclass
class RealConfig:
    workdir: Path
    nodes: int = 8
    node_cpu: str = "16"
    node_memory: str = "64Gi"
    node_gpus: int = 4
    node_pods: int = 110
    # etcd without fsync: for tests, whose data dies with the run.
    etcd_fsync: bool = True
    builtin_job_controller: bool = False
    preexec: Callable[[], None] | None = None
    extra_apiserver_args: tuple[str, ...] = ()
    # kube-scheduler: whether it runs, and its client's QPS and burst (None: its defaults, 50
    # and 100; scheduler_perf runs it with 5,000 and 5,000).
    kube_scheduler: bool = True
    kube_scheduler_qps: int | None = None
    # Off where only an upstream peer runs (services.cli.controlplane.peers, shoal bench
    # compare): no broker, and no registration of Shoal's webhook, whose kinds the peers' own
    # admission handles.
    kafka: bool = True
    shoal_admission: bool = True
    # Shoal's optional webhooks to register too (services.webhook.core.webhooks.OPTIONAL).
    optional_webhooks: tuple[str, ...] = ()


@dataclass
class RealControlPlane:
    """Start, inspect and stop the parts; ``kubeconfig`` is the admin's."""

    config: RealConfig
    processes: dict[str, Process] = field(default_factory=dict)
    apiserver_url: str = ""
    bootstrap: str = ""
    _admin_ssl: ssl.SSLContext | None = None
    # Where kube-apiserver calls Shoal's webhook, which the Stack runs as a service.
    webhook_port: int = field(default_factory=free_port)
    _kafka: KafkaBroker | None = None

    @property
    def dir(self) -> Path:
        return self.config.workdir / "control-plane"

    @property
    def kafka(self) -> KafkaBroker | None:
        """The cluster's Kafka broker, once started."""
        return self._kafka

    @property
    def pki(self) -> Pki:
        return Pki(self.dir / "pki")

    @property
    def kubeconfig(self) -> Path:
        return self.dir / "admin.kubeconfig"

    @property
    def webhook_url(self) -> str:
        return f"https://127.0.0.1:{self.webhook_port}"

    def webhook_env(self) -> dict[str, str]:
        """The webhook service's settings: it serves on ``webhook_port`` with a certificate
        for 127.0.0.1 it makes and keeps in its Secret, and patches its CA into the
        registrations ``_install`` made (as in a cluster, without cert-manager)."""
        return {
            "SHOAL_WEBHOOK_HOST": "127.0.0.1",
            "SHOAL_WEBHOOK_PORT": str(self.webhook_port),
            "SHOAL_WEBHOOK_CERT_DIR": str(self.dir / "webhook-certs"),
            "SHOAL_WEBHOOK_MANAGE_CERTS": "true",
            "SHOAL_WEBHOOK_NAMESPACE": SYSTEM_NAMESPACE,
            "SHOAL_WEBHOOK_DNS_NAMES": "127.0.0.1",
            "SHOAL_WEBHOOK_URL": self.webhook_url,
        }

    async def wait_webhook_ca(self, timeout: float = 60.0) -> None:
        """Until the webhook has patched its CA into every registration: before that,
        kube-apiserver cannot call it, and a write it must admit fails."""
        deadline = time.monotonic() + timeout
        while True:
            waiting = await self._without_ca()
            if not waiting:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"the webhook's CA is not in {waiting} after {timeout:.0f}s")
            await asyncio.sleep(0.2)

    async def wait_queue_open(self, name: str, timeout: float = 60.0) -> None:
        """Until the Volcano Queue ``name`` has ``status.state: Open``."""
        path = resource_for("scheduling.volcano.sh/v1beta1", "Queue").object_path(name)
        deadline = time.monotonic() + timeout
        while True:
            status, queue = await self.request("GET", path)
            if status == 200 and (queue.get("status") or {}).get("state") == "Open":
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"Queue {name} not Open after {timeout:.0f}s")
            await asyncio.sleep(0.1)

    async def _without_ca(self) -> list[str]:
        waiting = []
        for rtype, name in _WEBHOOK_CONFIGURATIONS:
            _, obj = await self.request("GET", rtype.object_path(name))
            hooks = obj.get("webhooks") or [{}]
            if not all((w.get("clientConfig") or {}).get("caBundle") for w in hooks):
                waiting.append(name)
        for name in KUEUE_CRDS:
            _, crd = await self.request("GET", _CRD.object_path(name))
            conversion = (crd.get("spec") or {}).get("conversion") or {}
            if not ((conversion.get("webhook") or {}).get("clientConfig") or {}).get("caBundle"):
                waiting.append(name)
        return waiting

    def service_kubeconfig(self, service: str) -> Path:
        return self.dir / f"{SERVICE_ACCOUNTS[service]}.kubeconfig"

    # --- start ------------------------------------------------------------------------------

    async def start(self, *, timeout: float = 120.0) -> None:
        if not built():
            raise RuntimeError(
                f"the real control plane is not built in {tools_dir()}: run `make control-plane`"
            )
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.config.workdir / "logs").mkdir(parents=True, exist_ok=True)
        self.pki.ensure()
        if not self.config.kafka:
            await self._start_kubernetes(timeout)
            return
        # Children are started from this thread: a die-with-parent preexec ties them to it.
        kafka = asyncio.create_task(self._start_kafka())
        try:
            await self._start_kubernetes(timeout)
        except BaseException:
            # Kafka is not left starting behind a failed start (the caller stops what runs).
            kafka.cancel()
            await asyncio.gather(kafka, return_exceptions=True)
            raise
        await kafka
        await self._wait_kafka(timeout)

    async def _start_kubernetes(self, timeout: float) -> None:
        await self._start_etcd(timeout)
        await self._start_apiserver(timeout)
        for name, stem in (
            ("admin", "admin"),
            ("kcm", "kube-controller-manager"),
            ("kube-scheduler", "kube-scheduler"),
            ("kwok", "kwok"),
        ):
            self._write_kubeconfig(self.dir / f"{name}.kubeconfig", client=stem)
        await self._install()
        self._start_kcm()
        if self.config.kube_scheduler:
            self._start_kube_scheduler()
        self._start_kwok()
        await self._service_accounts()
        await self._wait_nodes_ready(timeout)

    def binary(self, name: str) -> str:
        return str(tools_dir() / "bin" / name)

    def spawn(self, name: str, argv: list[str]) -> Process:
        """Start ``argv`` as the part ``name``, logging to ``<workdir>/logs/<name>.log``;
        ``stop`` stops it with the API server's other clients."""
        # With a die-with-parent preexec, the parts die by SIGKILL: kube-apiserver, told to
        # stop after etcd is gone, waits for it forever. An orderly stop signals them in order.
        preexec = die_with_parent(signal.SIGKILL) if self.config.preexec is not None else None
        process = Process(
            name,
            argv,
            dict(os.environ),
            self.config.workdir / "logs" / f"{name}.log",
            preexec=preexec,
        )
        process.start()
        self.processes[name] = process
        return process

    async def _start_etcd(self, timeout: float) -> None:
        client, peer = free_port(), free_port()
        self.etcd_url = f"http://127.0.0.1:{client}"
        argv = [
            self.binary("etcd"),
            "--name=shoal",
            f"--data-dir={self.dir / 'etcd'}",
            f"--listen-client-urls={self.etcd_url}",
            f"--advertise-client-urls={self.etcd_url}",
            f"--listen-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
            f"--initial-cluster=shoal=http://127.0.0.1:{peer}",
            "--quota-backend-bytes=8589934592",
            "--log-level=warn",
        ]
        if not self.config.etcd_fsync:
            argv.append("--unsafe-no-fsync")
        process = self.spawn("etcd", argv)
        await self._poll(f"{self.etcd_url}/health", timeout, process, tls=False)

    async def _start_apiserver(self, timeout: float) -> None:
        port = free_port()
        self.apiserver_url = f"https://127.0.0.1:{port}"
        pki = self.pki
        argv = [
            self.binary("kube-apiserver"),
            f"--etcd-servers={self.etcd_url}",
            "--bind-address=127.0.0.1",
            "--advertise-address=127.0.0.1",
            "--endpoint-reconciler-type=none",  # as envtest: no kubernetes Service endpoints
            f"--secure-port={port}",
            f"--cert-dir={self.dir / 'apiserver-certs'}",
            f"--tls-cert-file={pki.serving_cert}",
            f"--tls-private-key-file={pki.serving_key}",
            f"--client-ca-file={pki.ca_cert}",
            f"--service-account-key-file={pki.sa_pub}",
            f"--service-account-signing-key-file={pki.sa_key}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--api-audiences=https://kubernetes.default.svc.cluster.local",
            "--service-cluster-ip-range=10.96.0.0/16",
            "--authorization-mode=Node,RBAC",
            "--allow-privileged=true",
            # As envtest: no admission of pods' service-account token volumes (kwok runs no
            # containers, and a namespace's default ServiceAccount may come a moment after it).
            "--disable-admission-plugins=ServiceAccount",
            "--profiling=false",
            "--v=0",
            *self.config.extra_apiserver_args,
        ]
        process = self.spawn("kube-apiserver", argv)
        await self._poll(f"{self.apiserver_url}/readyz", timeout, process, tls=True)

    def _start_kcm(self) -> None:
        pki = self.pki
        self.spawn(
            "kube-controller-manager",
            [
                self.binary("kube-controller-manager"),
                f"--kubeconfig={self.dir / 'kcm.kubeconfig'}",
                f"--authentication-kubeconfig={self.dir / 'kcm.kubeconfig'}",
                f"--authorization-kubeconfig={self.dir / 'kcm.kubeconfig'}",
                "--bind-address=127.0.0.1",
                f"--secure-port={free_port()}",
                "--leader-elect=false",
                # Shoal's job controller runs the CronJobs always (a CronJob has no managedBy).
                "--controllers=*,-cronjob"
                if self.config.builtin_job_controller
                else "--controllers=*,-job,-cronjob",
                "--use-service-account-credentials=true",
                f"--service-account-private-key-file={pki.sa_key}",
                f"--root-ca-file={pki.ca_cert}",
                f"--cluster-signing-cert-file={pki.ca_cert}",
                f"--cluster-signing-key-file={pki.ca_key}",
                "--v=0",
            ],
        )

    def _start_kube_scheduler(self) -> None:
        kubeconfig = self.dir / "kube-scheduler.kubeconfig"
        connection = [f"--kubeconfig={kubeconfig}"]
        if self.config.kube_scheduler_qps is not None:
            # A client QPS is set only in a KubeSchedulerConfiguration (its flags for it are
            # ignored once --config is given): the file names the kubeconfig too.
            qps = self.config.kube_scheduler_qps
            path = self.dir / "kube-scheduler-config.yaml"
            config = {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "KubeSchedulerConfiguration",
                "leaderElection": {"leaderElect": False},
                "clientConnection": {"kubeconfig": str(kubeconfig), "qps": qps, "burst": qps},
            }
            path.write_text(json.dumps(config, indent=2))  # YAML reads JSON
            connection = [f"--config={path}"]
        self.spawn(
            "kube-scheduler",
            [
                self.binary("kube-scheduler"),
                *connection,
                f"--authentication-kubeconfig={kubeconfig}",
                f"--authorization-kubeconfig={kubeconfig}",
                "--bind-address=127.0.0.1",
                f"--secure-port={free_port()}",
                "--leader-elect=false",
                "--v=0",
            ],
        )

    def _start_kwok(self) -> None:
        self.spawn(
            "kwok",
            [
                self.binary("kwok"),
                f"--kubeconfig={self.dir / 'kwok.kubeconfig'}",
                f"--config={DEPLOY / 'control-plane' / 'kwok' / 'stages.yaml'}",
                f"--manage-nodes-with-annotation-selector={KWOK_NODE_ANNOTATION}=fake",
                "--node-lease-duration-seconds=40",
                "--cidr=10.128.0.1/10",
                f"--server-address=127.0.0.1:{free_port()}",
                "--v=0",
            ],
        )

    # --- Kafka ------------------------------------------------------------------------------

    async def _start_kafka(self) -> None:
        preexec = die_with_parent(signal.SIGKILL) if self.config.preexec is not None else None
        broker = KafkaBroker(
            self.dir / "kafka",
            tools_dir() / "kafka" / "libs",
            self.config.workdir / "logs" / "kafka.log",
            preexec=preexec,
        )
        self.bootstrap = broker.bootstrap
        await asyncio.to_thread(broker.prepare)
        broker.spawn()  # from this thread: a die-with-parent preexec ties the JVM to it
        assert broker.process is not None
        self.processes["kafka"] = broker.process
        self._kafka = broker

    async def _wait_kafka(self, timeout: float) -> None:
        assert self._kafka is not None
        await asyncio.to_thread(self._kafka.wait, timeout)

    # --- objects ----------------------------------------------------------------------------

    def _ssl(self) -> ssl.SSLContext:
        context = ssl.create_default_context(cafile=str(self.pki.ca_cert))
        context.load_cert_chain(self.pki.client_cert("admin"), self.pki.client_key("admin"))
        return context

    def _write_kubeconfig(
        self, path: Path, *, client: str | None = None, token: str | None = None, user: str = ""
    ) -> None:
        user = user or client or "shoal"
        credentials: Json = (
            {"token": token}
            if token is not None
            else {
                "client-certificate": str(self.pki.client_cert(client or "admin")),
                "client-key": str(self.pki.client_key(client or "admin")),
            }
        )
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "shoal-real",
                    "cluster": {
                        "server": self.apiserver_url,
                        "certificate-authority": str(self.pki.ca_cert),
                    },
                }
            ],
            "users": [{"name": user, "user": credentials}],
            "contexts": [
                {
                    "name": "shoal-real",
                    "context": {"cluster": "shoal-real", "user": user, "namespace": "default"},
                }
            ],
            "current-context": "shoal-real",
        }
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        path.chmod(0o600)

    async def request(
        self,
        method: str,
        path: str,
        body: Json | None = None,
        *,
        session: aiohttp.ClientSession | None = None,
    ) -> tuple[int, Json]:
        """One call as the admin: (HTTP status, JSON body)."""
        if session is None:
            async with aiohttp.ClientSession() as own:
                return await self.request(method, path, body, session=own)
        async with session.request(
            method, self.apiserver_url + path, json=body, ssl=self._ssl_context()
        ) as response:
            data = await response.json(content_type=None)
            return response.status, data if isinstance(data, dict) else {}

    def _ssl_context(self) -> ssl.SSLContext:
        if self._admin_ssl is None:
            self._admin_ssl = self._ssl()
        return self._admin_ssl

    async def apply(self, objects: Iterable[Json], *, concurrency: int = 1) -> None:
        """Create each object, or replace it if it exists (an install run again); up to
        ``concurrency`` at a time (objects that do not depend on each other, such as nodes)."""
        limit = asyncio.Semaphore(concurrency)
        async with aiohttp.ClientSession() as session:

            async def one(obj: Json) -> None:
                async with limit:
                    await self._apply_one(obj, session)

            await asyncio.gather(*(one(obj) for obj in objects))

    async def _apply_one(self, obj: Json, session: aiohttp.ClientSession) -> None:
        key = (obj.get("apiVersion", ""), obj.get("kind", ""))
        meta = obj.get("metadata") or {}
        collection = resource_for(*key).collection_path(meta.get("namespace", "default"))
        status, answer = await self.request("POST", collection, obj, session=session)
        if status == 409:
            item = f"{collection}/{meta['name']}"
            current_status, current = await self.request("GET", item, session=session)
            if current_status == 200:
                version = current["metadata"]["resourceVersion"]
                obj = {**obj, "metadata": {**meta, "resourceVersion": version}}
                status, answer = await self.request("PUT", item, obj, session=session)
        if status >= 300:
            raise RuntimeError(
                f"installing {key[1]} {meta.get('name')}: {answer.get('message', status)}"
            )

    async def _install(self) -> None:
        await self.apply(
            [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": SYSTEM_NAMESPACE}}]
        )
        crds = [
            doc
            for path in sorted((DEPLOY / "crds").rglob("*.yaml"))
            if path.name != "kustomization.yaml"
            for doc in documents(path)
        ]
        webhook = ClientConfig(namespace=SYSTEM_NAMESPACE, url=self.webhook_url)
        for crd in crds:
            if self.config.shoal_admission and crd["metadata"]["name"] in KUEUE_CRDS:
                # v1beta1 <-> v1beta2 through the webhook
                crd["spec"]["conversion"] = crd_conversion(webhook)
        await self.apply(crds)
        await self.apply(
            doc
            for path in sorted((DEPLOY / "rbac").glob("*.yaml"))
            if path.name != "kustomization.yaml"
            for doc in documents(path)
        )
        await self.wait_established([c["metadata"]["name"] for c in crds])
        await self.apply(documents(DEPLOY / "kustomize" / "base" / "default-queue.yaml"))
        await self.apply(self.node_manifests(), concurrency=16)
        if self.config.shoal_admission:
            await self.apply(documents(DEPLOY / "kustomize" / "base" / "hypernode-policy.yaml"))
            # Last: with failurePolicy Fail, what they match is refused until the webhook runs.
            optional = self.config.optional_webhooks
            await self.apply(webhook_configurations(webhook, optional=optional))

    async def wait_established(self, names: list[str], timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        waiting = set(names)
        while waiting and time.monotonic() < deadline:
            for name in list(waiting):
                status, crd = await self.request(
                    "GET",
                    _CRD.object_path(name),
                )
                conditions = (crd.get("status") or {}).get("conditions") or []
                if status == 200 and any(
                    c.get("type") == "Established" and c.get("status") == "True" for c in conditions
                ):
                    waiting.discard(name)
            if waiting:
                await asyncio.sleep(0.2)
        if waiting:
            raise TimeoutError(f"CRDs not established: {sorted(waiting)}")

    def node_manifests(self) -> list[Json]:
        capacity = {
            "cpu": self.config.node_cpu,
            "memory": self.config.node_memory,
            "pods": str(self.config.node_pods),
            "ephemeral-storage": "500Gi",
        }
        if self.config.node_gpus:
            capacity["nvidia.com/gpu"] = str(self.config.node_gpus)
        nodes = []
        for i in range(self.config.nodes):
            name = f"node-{i}"
            nodes.append(
                {
                    "apiVersion": "v1",
                    "kind": "Node",
                    "metadata": {
                        "name": name,
                        "annotations": {KWOK_NODE_ANNOTATION: "fake"},
                        "labels": {
                            "kubernetes.io/hostname": name,
                            "kubernetes.io/os": "linux",
                            "kubernetes.io/arch": "amd64",
                            "type": "kwok",
                        },
                    },
                    "status": {"capacity": capacity, "allocatable": dict(capacity)},
                }
            )
        return nodes

    async def _wait_nodes_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name in ("kwok", "kube-controller-manager", "kube-scheduler"):
                process = self.processes.get(name)  # kube-scheduler may be left out
                if process is not None and not process.alive():
                    raise RuntimeError(f"{name} exited; see {process.log_path}")
            _, nodes = await self.request("GET", "/api/v1/nodes")
            ready = [
                n
                for n in nodes.get("items") or []
                if any(
                    c.get("type") == "Ready" and c.get("status") == "True"
                    for c in (n.get("status") or {}).get("conditions") or []
                )
            ]
            if len(ready) >= self.config.nodes:
                return
            await asyncio.sleep(0.2)
        raise TimeoutError(f"kwok's nodes not Ready after {timeout:.0f}s")

    async def _service_accounts(self) -> None:
        """A token of each service's own ServiceAccount (deploy/rbac), in its kubeconfig."""
        for service, account in SERVICE_ACCOUNTS.items():
            status, answer = await self.request(
                "POST",
                f"/api/v1/namespaces/{SYSTEM_NAMESPACE}/serviceaccounts/{account}/token",
                {
                    "apiVersion": "authentication.k8s.io/v1",
                    "kind": "TokenRequest",
                    "spec": {"expirationSeconds": _TOKEN_SECONDS},
                },
            )
            token = (answer.get("status") or {}).get("token")
            if status != 201 or not token:
                raise RuntimeError(f"no token for {account}: {answer.get('message', status)}")
            self._write_kubeconfig(self.service_kubeconfig(service), token=token, user=account)

    async def _poll(self, url: str, timeout: float, process: Process, *, tls: bool) -> None:
        context = self._ssl() if tls else None
        await wait_until_ok(url, timeout, process, context=context, every=0.2)

    # --- inspect and stop -------------------------------------------------------------------

    def alive(self) -> dict[str, bool]:
        return {name: p.alive() for name, p in self.processes.items()}

    def cpu(self) -> dict[str, float]:
        used = {
            n: cpu_seconds(p.pid) if p.pid and p.alive() else None
            for n, p in self.processes.items()
        }
        return {n: s for n, s in used.items() if s is not None}

    def rss(self) -> Mapping[str, float | None]:
        return {name: p.rss_mib() for name, p in self.processes.items()}

    def stop(self, *, grace: float = 10.0) -> dict[str, int | None]:
        """Stop in the reverse order of start: the API server's clients (every part ``spawn``
        started, peers included, and Kafka) at once, then the API server, then etcd, each
        given ``grace`` seconds before SIGKILL."""
        codes: dict[str, int | None] = {}
        last = ("kube-apiserver", "etcd")
        clients = tuple(name for name in self.processes if name not in last)
        for wave in (clients, ("kube-apiserver",), ("etcd",)):
            running = [self.processes[name] for name in wave if name in self.processes]
            for process in running:
                process.signal(signal.SIGTERM)
            for process in running:
                codes[process.name] = process.stop(grace, signalled=True)
        return codes


def documents(path: Path) -> list[Json]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if isinstance(doc, dict)]
