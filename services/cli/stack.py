"""The whole Shoal system as local processes: broker, kubesim and the four services.

Used by ``shoal up`` (``make run``), the end-to-end tests and ``shoal bench e2e``. Each part is a
child process with its own log file under the work directory; nothing is shared but Kafka and the
API server, exactly as in a cluster. Stopping sends SIGTERM (services drain and commit) and
SIGKILLs what is left after the grace period; the embedded broker is SIGKILLed by its own PID.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from services.cli.controlplane.kafka import KafkaBroker
from services.cli.controlplane.real import MANAGED_BY, RealConfig, RealControlPlane, tools_dir
from services.cli.processes import Process, cpu_seconds, free_port, wait_until_ok
from shared.broker import EmbeddedBroker
from shared.bus.kafka import KafkaBus
from shared.config import BrokerKind, KafkaSettings, load_settings
from shared.kube.schedulers import DEFAULT_SCHEDULER_NAME, SHOAL_SCHEDULER_NAMES
from shared.topics import Topics

SERVICES = ("watcher", "jobcontroller", "scheduler", "binder")


EMBEDDED_SCHEDULER_NAMES = ",".join((*SHOAL_SCHEDULER_NAMES, DEFAULT_SCHEDULER_NAME))


@dataclass
class StackConfig:
    """What to start. An external bootstrap or kubeconfig replaces the embedded part."""

    workdir: Path = Path(".shoal")
    # "kubesim": the embedded Tansu broker and kubesim; "real": etcd, kube-apiserver, its
    # controllers, kwok and Apache Kafka (services.cli.controlplane.real).
    control_plane: Literal["kubesim", "real"] = "kubesim"
    bootstrap: str | None = None
    # The broker beside kubesim: the embedded Tansu (its log in memory), or Apache Kafka from
    # ``make control-plane``'s jars (its log on disk, kept across a restart).
    broker: BrokerKind = "tansu"
    kubeconfig: Path | None = None
    nodes: int = 8
    node_cpu: str = "16"
    node_memory: str = "64Gi"
    node_gpus: int = 4
    services: Sequence[str] = SERVICES
    env: Mapping[str, str] = field(default_factory=dict)
    kubesim_args: Sequence[str] = ()
    # kubesim journals its objects here and restores them when it restarts (``--data-dir``).
    kubesim_data_dir: Path | None = None
    topic_prefix: str = "shoal."
    # A ``preexec_fn`` for every child (``shoal up``: die with the parent). Only for a stack
    # driven from the main thread: the kernel ties the child to the thread that started it.
    preexec: Callable[[], None] | None = None
    etcd_fsync: bool = True  # the real control plane's etcd; off for tests
    # The real control plane: kube-controller-manager's Job controller runs beside Shoal's, and
    # Shoal's runs only the Jobs whose spec.managedBy names it.
    builtin_job_controller: bool = False
    kube_scheduler: bool = True  # the real control plane's, for pods Shoal does not schedule
    # Shoal's optional webhooks, registered on either control plane (webhooks.OPTIONAL).
    optional_webhooks: tuple[str, ...] = ()
    profile_dir: Path | None = None  # sample each process's stacks (services.cli.bench.sampling)


class Stack:
    """Start, inspect, kill and restart the parts of a local Shoal system."""

    def __init__(self, config: StackConfig) -> None:
        self.config = config
        self.workdir = config.workdir
        self.broker: EmbeddedBroker | None = None
        self.kafka: KafkaBroker | None = None  # Apache Kafka beside kubesim
        self.bootstrap = config.bootstrap or ""
        self.kubeconfig = config.kubeconfig or self.workdir / "kubeconfig"
        self.kubesim: Process | None = None
        self.real: RealControlPlane | None = None
        self.services: dict[str, Process] = {}

    def _python(self, *args: str, profile: str = "") -> list[str]:
        if profile and self.config.profile_dir is not None:
            out = str(self.config.profile_dir / f"{profile}.txt")
            sampler = ["-m", "services.cli.bench.sampling", out, "services.cli.main"]
            return [sys.executable, *sampler, *args]
        return [sys.executable, "-m", "services.cli.main", *args]

    @property
    def broker_kind(self) -> BrokerKind:
        """`KafkaSettings.broker` of the stack's clients: tansu for the embedded broker, else
        what the services' environment says (kafka unless set)."""
        if self.broker is not None:
            return EmbeddedBroker.kind
        if self.kafka is not None:
            return KafkaBroker.kind
        return load_settings(KafkaSettings, {**os.environ, **self.config.env}).broker

    def service_env(self, name: str, health_port: int) -> dict[str, str]:
        env = dict(os.environ)
        kubeconfig = self.real.service_kubeconfig(name) if self.real else self.kubeconfig
        env.update(
            {
                "KAFKA_BOOTSTRAP": self.bootstrap,
                "KUBECONFIG": str(kubeconfig),
                "SHOAL_HTTP_PORT": str(health_port),
                "SHOAL_HTTP_HOST": "127.0.0.1",  # a local stack is not reachable from outside
                "SHOAL_LOG_FORMAT": "json",
                "SHOAL_TOPIC_PREFIX": self.config.topic_prefix,
            }
        )
        if self.broker is not None:
            # Tansu answers a parked fetch only when it next polls: a short wait is each hop's
            # latency, and the doorbell wakes every idle consumer when anything is published,
            # so an idle one can park longer.
            env["SHOAL_BROKER"] = EmbeddedBroker.kind
            env.setdefault("SHOAL_FETCH_MAX_WAIT_MS", "10")
            env.setdefault("SHOAL_DOORBELL", "true")
            env.setdefault("SHOAL_IDLE_FETCH_MAX_WAIT_MS", "450")
        if self.real is not None and name == "webhook":
            env.update(self.real.webhook_env())
        if self.real is not None and self.config.builtin_job_controller:
            # kube-controller-manager's Job controller runs the Jobs that do not name Shoal's.
            env.setdefault("SHOAL_JOBCONTROLLER_BATCH_MANAGED_BY", MANAGED_BY)
        if self.real is None and self.config.kubeconfig is None:
            # The simulated cluster has no kube-scheduler: Shoal plays the default scheduler's
            # part too, so an ordinary Job runs unchanged (a real cluster keeps its own).
            for variable in (
                "SHOAL_SCHEDULER_SCHEDULER_NAMES",
                "SHOAL_JOBCONTROLLER_SCHEDULER_NAMES",
            ):
                env.setdefault(variable, EMBEDDED_SCHEDULER_NAMES)
        env.update(self.config.env)
        return env

    async def start(self, *, timeout: float = 60.0) -> None:
        self.workdir.mkdir(parents=True, exist_ok=True)
        (self.workdir / "logs").mkdir(exist_ok=True)
        if self.config.control_plane == "real" and self.config.kubeconfig is None:
            await self._start_real(timeout)
        if not self.bootstrap and self.config.broker == "kafka":
            self.kafka = KafkaBroker(
                self.workdir / "kafka",
                tools_dir() / "kafka" / "libs",
                self.workdir / "logs" / "kafka.log",
                heap="512m",
                preexec=self.config.preexec,
            )
            await asyncio.to_thread(self.kafka.prepare)
            self.kafka.spawn()  # from this thread: a die-with-parent preexec ties it to it
            await asyncio.to_thread(self.kafka.wait, max(timeout, 120.0))
            self.bootstrap = self.kafka.bootstrap
        if not self.bootstrap:
            self._start_broker()
            assert self.broker is not None
            self.bootstrap = self.broker.bootstrap
        await self.create_topics()
        if self.config.kubeconfig is None and self.real is None:
            await self._start_kubesim(timeout)
        if self.real is not None:
            await self._start_webhook(timeout)
        for name in self.config.services:
            self.services[name] = self._service(name)
            self.services[name].start()
        await self.wait_ready(timeout=timeout)
        if self.real is not None:
            # Volcano's job webhook refuses jobs to a queue not yet Open: the stack is ready
            # once Shoal's job controller has opened the default Queue, as Volcano's would.
            await self.real.wait_queue_open("default", timeout)

    async def _start_webhook(self, timeout: float) -> None:
        """The webhook first on the real control plane (kubesim calls its core in-process):
        kube-apiserver calls it for what the other services and the tests write."""
        assert self.real is not None
        self.services["webhook"] = self._service("webhook")
        self.services["webhook"].start()
        await self.wait_ready(timeout=timeout, names=["webhook"])
        await self.real.wait_webhook_ca(timeout)

    async def create_topics(self) -> None:
        """Create every topic once, before any service starts: services racing to create the
        same topic is harmless on Kafka but not on the embedded broker."""
        settings = KafkaSettings(
            bootstrap=self.bootstrap, broker=self.broker_kind, topic_prefix=self.config.topic_prefix
        )
        topics = Topics(prefix=self.config.topic_prefix)
        async with KafkaBus(settings=settings) as bus:
            await bus.create_topics(topics.single_partition(), partitions=1)
            await bus.create_topics(topics.everything())

    async def _start_real(self, timeout: float) -> None:
        config = self.config
        self.real = RealControlPlane(
            RealConfig(
                workdir=self.workdir,
                nodes=config.nodes,
                node_cpu=config.node_cpu,
                node_memory=config.node_memory,
                node_gpus=config.node_gpus,
                etcd_fsync=config.etcd_fsync,
                builtin_job_controller=config.builtin_job_controller,
                kube_scheduler=config.kube_scheduler,
                optional_webhooks=config.optional_webhooks,
                preexec=config.preexec,
            )
        )
        try:
            await self.real.start(timeout=max(timeout, 120.0))
        except BaseException:
            self.real.stop(grace=5)
            raise
        self.kubeconfig = self.real.kubeconfig
        if not self.bootstrap:
            self.bootstrap = self.real.bootstrap

    async def _start_kubesim(self, timeout: float) -> None:
        if self.kubeconfig.exists():
            self.kubeconfig.unlink()
        port = free_port()
        argv = self._python(
            "run",
            "kubesim",
            "--port",
            str(port),
            "--nodes",
            str(self.config.nodes),
            "--node-cpu",
            self.config.node_cpu,
            "--node-memory",
            self.config.node_memory,
            "--node-gpus",
            str(self.config.node_gpus),
            "--kubeconfig-out",
            str(self.kubeconfig),
            *(
                ["--data-dir", str(self.config.kubesim_data_dir)]
                if self.config.kubesim_data_dir is not None
                else []
            ),
            *self.config.kubesim_args,
            *(
                ["--optional-webhooks", ",".join(self.config.optional_webhooks)]
                if self.config.optional_webhooks
                else []
            ),
            profile="kubesim",
        )
        self.kubesim = Process(
            "kubesim",
            argv,
            dict(os.environ),
            self.workdir / "logs" / "kubesim.log",
            preexec=self.config.preexec,
        )
        self.kubesim.start()
        self.kubesim_url = f"http://127.0.0.1:{port}"
        await self._poll(f"{self.kubesim_url}/version", timeout, self.kubesim)
        deadline = time.monotonic() + timeout
        while not self.kubeconfig.exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    def _service(self, name: str) -> Process:
        port = free_port()
        return Process(
            name,
            self._python("run", name, profile=name),
            self.service_env(name, port),
            self.workdir / "logs" / f"{name}.log",
            health_port=port,
            preexec=self.config.preexec,
        )

    async def _poll(self, url: str, timeout: float, process: Process | None) -> None:
        await wait_until_ok(url, timeout, process)

    async def wait_ready(
        self, *, timeout: float = 60.0, names: Sequence[str] | None = None
    ) -> None:
        for name in names or list(self.services):
            process = self.services[name]
            await self._poll(f"http://127.0.0.1:{process.health_port}/readyz", timeout, process)

    def kill(self, name: str) -> None:
        """SIGKILL a service (a crash, for reliability tests)."""
        process = self.services[name]
        process.signal(signal.SIGKILL)
        process.wait(10)

    async def restart(self, name: str, *, timeout: float = 60.0) -> None:
        process = self.services[name]
        if process.alive():
            process.stop(grace=20)
        self.services[name] = self._service(name)
        self.services[name].start()
        await self.wait_ready(timeout=timeout, names=[name])

    def _kafka(self) -> KafkaBroker | None:
        return self.kafka or (self.real.kafka if self.real is not None else None)

    def kill_broker(self) -> None:
        """SIGKILL the broker, as a crash."""
        kafka = self._kafka()
        if self.broker is not None:
            self.broker.stop()
        elif kafka is not None and kafka.process is not None:
            kafka.process.kill()
        else:
            raise RuntimeError("the stack uses an external broker")

    def start_broker_again(self) -> None:
        """Start the killed broker on its port, without waiting for it (``broker_back``): the
        embedded one comes back empty (no topics, no offsets), as a crashed broker without
        storage does; Apache Kafka comes back with its log."""
        kafka = self._kafka()
        if kafka is not None:
            kafka.spawn()
        elif self.broker is not None:
            self._start_broker(self.broker.port)

    async def broker_back(self, *, timeout: float = 120.0) -> None:
        """Wait until the broker serves again: the embedded one once it accepts connections;
        Kafka accepts them while it still loads its log, and serves once every partition has
        its leader again."""
        kafka = self._kafka()
        if kafka is None:
            return
        deadline = time.monotonic() + timeout
        await asyncio.to_thread(kafka.wait, timeout)
        while not await _leaders_elected(self.bootstrap):
            if time.monotonic() > deadline:
                raise TimeoutError(f"Kafka on {self.bootstrap} has partitions without a leader")
            await asyncio.sleep(0.1)

    async def restart_kubesim(self, *, timeout: float = 60.0) -> None:
        """SIGKILL kubesim, as a crash, and start it again on the same port; with
        ``kubesim_data_dir`` it comes back with its objects, else empty but for its seed."""
        if self.kubesim is None:
            raise RuntimeError("the stack uses an external cluster")
        self.kubesim.kill()
        self.kubesim.start()
        await self._poll(f"{self.kubesim_url}/version", timeout, self.kubesim)

    def _start_broker(self, port: int | None = None) -> None:
        self.broker = EmbeddedBroker(
            port=port, log_path=self.workdir / "logs" / "broker.log", preexec=self.config.preexec
        )
        self.broker.start()

    def children(self) -> Iterator[tuple[str, bool, int | None]]:
        """(name, alive, exit code) of every child process: broker, kubesim, services."""
        if self.broker is not None:
            yield "broker", self.broker.alive(), self.broker.returncode()
        if self.kafka is not None and self.kafka.process is not None:
            yield "kafka", self.kafka.process.alive(), self.kafka.process.returncode()
        if self.kubesim is not None:
            yield "kubesim", self.kubesim.alive(), self.kubesim.returncode()
        if self.real is not None:
            for name, process in self.real.processes.items():
                yield name, process.alive(), process.returncode()
        for name, process in self.services.items():
            yield name, process.alive(), process.returncode()

    def pids(self) -> dict[str, int]:
        """The PID of every running child process: broker, kubesim, control plane, services."""
        pids = {name: p.pid for name, p in self._parts().items() if p.alive() and p.pid}
        if self.broker is not None and self.broker.alive() and self.broker.pid:
            pids["broker"] = self.broker.pid
        if self.real is not None:
            for name, process in self.real.processes.items():
                if process.alive() and process.pid:
                    pids[name] = process.pid
        return pids

    def respawn(self, name: str) -> None:
        """Start a child that exited again, as it was (the broker and kubesim on their ports)."""
        if name in ("broker", "kafka") and self.real is None:
            self.kill_broker()
            self.start_broker_again()
        elif name == "kubesim" and self.kubesim is not None:
            self.kubesim.start()
        elif self.real is not None and name in self.real.processes:
            self.real.processes[name].start()
        else:
            self.services[name] = self._service(name)
            self.services[name].start()

    def _parts(self) -> dict[str, Process]:
        parts = dict(self.services)
        if self.kubesim:
            parts["kubesim"] = self.kubesim
        return parts

    def rss(self) -> dict[str, float | None]:
        used = {name: p.rss_mib() for name, p in self._parts().items()}
        if self.kafka is not None and self.kafka.process is not None:
            used["kafka"] = self.kafka.process.rss_mib()
        if self.real is not None:
            used.update(self.real.rss())
        return used

    def signal_all(self, sig: signal.Signals) -> None:
        """Send ``sig`` to kubesim and every service."""
        for process in self._parts().values():
            process.signal(sig)

    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far per process, the embedded broker included."""
        used = {name: p.cpu_seconds() for name, p in self._parts().items()}
        if self.broker is not None:
            used["broker"] = cpu_seconds(self.broker.pid) if self.broker.pid else None
        if self.kafka is not None and self.kafka.process is not None:
            used["kafka"] = self.kafka.process.cpu_seconds()
        if self.real is not None:
            used.update(self.real.cpu())
        return {name: seconds for name, seconds in used.items() if seconds is not None}

    def stop(self, *, grace: float = 20.0) -> dict[str, int | None]:
        codes: dict[str, int | None] = {}
        for process in self.services.values():
            process.signal(signal.SIGTERM)
        for name, process in self.services.items():
            codes[name] = process.stop(grace, signalled=True)
        if self.kubesim is not None:
            codes["kubesim"] = self.kubesim.stop(5)
        if self.broker is not None:
            self.broker.stop()
        if self.kafka is not None:
            codes["kafka"] = self.kafka.stop()
        if self.real is not None:
            codes.update(self.real.stop(grace=min(grace, 10.0)))
        return codes


async def _leaders_elected(bootstrap: str) -> bool:
    """Whether the broker answers metadata with a leader for every partition of every topic."""
    from aiokafka.client import AIOKafkaClient
    from aiokafka.errors import KafkaError

    client = AIOKafkaClient(bootstrap_servers=bootstrap)
    try:
        await client.bootstrap()
        metadata = await client.fetch_all_metadata()
    except KafkaError:
        return False
    finally:
        await client.close()
    topics = metadata.topics()
    return bool(topics) and all(
        len(metadata.available_partitions_for_topic(t) or ())
        == len(metadata.partitions_for_topic(t) or ())
        for t in topics
    )
