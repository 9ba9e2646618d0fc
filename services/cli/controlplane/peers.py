"""The peers Shoal is measured against (DESIGN §5, §6), run out of cluster on a
``RealControlPlane`` as upstream deploys them: Volcano's vc-scheduler and vc-controller-manager,
and Kueue's manager (kube-scheduler runs with the plane itself). ``make control-plane`` builds
them from pinned upstream modules and copies each release's CRDs, webhook registrations and
default configuration beside them (deploy/control-plane/build.sh, docs/peers.md).

Each peer installs its own release's CRDs over Shoal's (which follow upstream's main branch) and
runs with its default configuration; only what a process on this machine needs is changed:
- Volcano: the ``volcano-scheduler.conf`` its Helm chart installs, every default controller, and
  the chart's flags (leader election off, health checks on, here on free 127.0.0.1 ports).
  vc-webhook-manager is not run, so a Volcano Job gets no defaults: it names its schedulerName,
  queue and minAvailable.
- Kueue: the Configuration upstream ships (``controller_manager_config.yaml``) with leader
  election off, its servers on free 127.0.0.1 ports, and only the ``batch/job`` integration
  (upstream's built-in default; the other frameworks' CRDs are not installed). Its internal
  certificate management stays on, as upstream's default: with it off, the manager reads its
  metrics certificate from a fixed ``/etc/kueue/metrics/certs``. Its rotator keeps a Secret it
  finds valid, so the Secret is made beforehand with a serving certificate that also names
  127.0.0.1; kube-apiserver then calls Kueue's own webhooks (upstream's registrations for the
  enabled kinds) and CRD conversion (``/convert``, for the CRDs upstream converts) by URL.

The plane runs with ``shoal_admission=False`` (Shoal's webhook is not registered: the peers'
admission is upstream's), and each peer is a part the plane ``spawn``s, so ``RealControlPlane.stop``
stops whatever ``Peers.stop`` did not.
"""

from __future__ import annotations

import base64
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from services.cli.controlplane.pki import cert_controller_secret
from services.cli.controlplane.real import RealControlPlane, documents, tools_dir
from services.cli.processes import Process, free_port, wait_until_ok

Json = dict[str, Any]
VOLCANO_PARTS = ("vc-scheduler", "vc-controller-manager")
KUEUE_PART = "kueue"
KUEUE_NAMESPACE = "kueue-system"
# Upstream's defaults (apis/config/v1beta2/defaults.go) and names (config/default: "kueue-").
_KUEUE_SECRET = "kueue-webhook-server-cert"
_KUEUE_SERVICE = f"kueue-webhook-service.{KUEUE_NAMESPACE}.svc"
_KUEUE_CA = "kueue-ca"
_KUEUE_PREFIX = "kueue-"
# The CRDs upstream's kustomization converts through the manager (config/components/crd).
_KUEUE_CONVERTED = frozenset(
    f"{plural}.kueue.x-k8s.io"
    for plural in ("localqueues", "clusterqueues", "cohorts", "workloads", "multikueueclusters")
)
# The integrations enabled, and the (group, resource) their webhooks admit.
KUEUE_FRAMEWORKS = {"batch/job": ("batch", "jobs")}


def volcano_dir() -> Path:
    return tools_dir() / "volcano"


def kueue_dir() -> Path:
    return tools_dir() / "kueue" / "config" / "components"


@dataclass
class Peers:
    """Start and stop the peers on ``plane``, a started plane with ``shoal_admission=False``."""

    plane: RealControlPlane
    parts: list[str] = field(default_factory=list)

    @property
    def dir(self) -> Path:
        return self.plane.dir / "peers"

    # --- Volcano ----------------------------------------------------------------------------

    async def start_volcano(
        self,
        *,
        timeout: float = 60.0,
        client_qps: tuple[int, int] | None = None,
        conf: Path | None = None,
    ) -> None:
        """vc-scheduler and vc-controller-manager; ``client_qps``: their client's QPS and burst
        (their defaults: 2,000 / 2,000 and 50 / 100); ``conf``: the volcano-scheduler.conf
        (default: the one Volcano's Helm chart installs). vc-scheduler watches the folder of
        its conf and loads the file again when it is written or created there."""
        crds = [
            doc
            for path in sorted(volcano_dir().glob("config/crd/*/bases/*.yaml"))
            for doc in documents(path)
        ]
        await self.plane.apply(crds)
        await self.plane.wait_established([c["metadata"]["name"] for c in crds])
        if conf is None:
            conf = volcano_dir() / "installer/helm/chart/volcano/config/volcano-scheduler.conf"
        kubeconfig = f"--kubeconfig={self.plane.kubeconfig}"
        common = ["--leader-elect=false", "--enable-healthz=true"]
        if client_qps is not None:
            common += [f"--kube-api-qps={client_qps[0]}", f"--kube-api-burst={client_qps[1]}"]
        argvs = {
            "vc-controller-manager": [kubeconfig, *common],
            "vc-scheduler": [
                kubeconfig,
                *common,
                f"--scheduler-conf={conf}",
                f"--cache-dump-dir={self.dir}",
            ],
        }
        self.dir.mkdir(parents=True, exist_ok=True)
        # vc-scheduler first: it makes the root Queue the queue controller opens "default" under.
        for name in VOLCANO_PARTS:
            health = f"127.0.0.1:{free_port()}"
            process = self._spawn(
                name,
                [
                    self.plane.binary(name),
                    *argvs[name],
                    f"--healthz-address={health}",
                    f"--listen-address=127.0.0.1:{free_port()}",
                ],
            )
            await wait_until_ok(f"http://{health}/healthz", timeout, process)
        # vc-controller-manager's queue controller opens it; Volcano's jobs wait for that.
        await self.plane.wait_queue_open("default", timeout)

    # --- Kueue ------------------------------------------------------------------------------

    async def start_kueue(self, *, timeout: float = 60.0) -> None:
        work = self.dir / "kueue"
        certs = work / "certs"
        certs.mkdir(parents=True, exist_ok=True)
        webhook_port = free_port()
        url = f"https://127.0.0.1:{webhook_port}"
        secret = cert_controller_secret(_KUEUE_CA, _KUEUE_SERVICE, "127.0.0.1")
        for key in ("tls.crt", "tls.key"):  # what a mounted Secret would show the manager
            (certs / key).write_bytes(secret[key])
            (certs / key).chmod(0o600)
        ca_bundle = base64.b64encode(secret["ca.crt"]).decode()
        await self.plane.apply([_namespace(KUEUE_NAMESPACE), _secret(secret)])
        crds = [
            _converted(doc, url, ca_bundle)
            for path in sorted((kueue_dir() / "crd" / "bases").glob("*.yaml"))
            for doc in documents(path)
        ]
        await self.plane.apply(crds)
        await self.plane.wait_established([c["metadata"]["name"] for c in crds])
        await self.plane.apply(_kueue_webhooks(url, ca_bundle))

        health = f"127.0.0.1:{free_port()}"
        config = work / "controller_manager_config.yaml"
        config.write_text(yaml.safe_dump(_kueue_configuration(health, webhook_port, certs)))
        process = self._spawn(
            KUEUE_PART,
            [
                self.plane.binary(KUEUE_PART),
                # Its visibility server reads the flag, not $KUBECONFIG, for delegated auth.
                f"--kubeconfig={self.plane.kubeconfig}",
                f"--config={config}",
                f"--visibility-server-port={free_port()}",
                "--zap-log-level=2",  # as upstream's Deployment runs it
            ],
        )
        # Ready once its certificates are in place and its webhook server listens.
        await wait_until_ok(f"http://{health}/readyz", timeout, process)

    # --- stop -------------------------------------------------------------------------------

    def stop(self, *, grace: float = 10.0) -> dict[str, int | None]:
        """SIGTERM every peer at once, SIGKILL what is left after ``grace`` seconds."""
        running = [self.plane.processes.pop(name) for name in self.parts]
        self.parts.clear()
        for process in running:
            process.signal(signal.SIGTERM)
        return {p.name: p.stop(grace, signalled=True) for p in running}

    def _spawn(self, name: str, argv: list[str]) -> Process:
        process = self.plane.spawn(name, argv)
        self.parts.append(name)
        return process


def _kueue_configuration(health: str, webhook_port: int, cert_dir: Path) -> Json:
    config: Json = yaml.safe_load(
        (kueue_dir() / "manager" / "controller_manager_config.yaml").read_text()
    )
    config["namespace"] = KUEUE_NAMESPACE
    config["health"] = {**config.get("health", {}), "healthProbeBindAddress": health}
    config["metrics"] = {**config.get("metrics", {}), "bindAddress": f"127.0.0.1:{free_port()}"}
    config["webhook"] = {"host": "127.0.0.1", "port": webhook_port, "certDir": str(cert_dir)}
    config["leaderElection"] = {**config.get("leaderElection", {}), "leaderElect": False}
    frameworks = list(KUEUE_FRAMEWORKS)
    config["integrations"] = {**config.get("integrations", {}), "frameworks": frameworks}
    return config


def _kueue_webhooks(url: str, ca_bundle: str) -> list[Json]:
    """Upstream's registrations of the webhooks for Kueue's own kinds and the enabled
    integrations, named as its install names them, calling the manager by URL."""
    out = []
    for doc in documents(kueue_dir() / "webhook" / "manifests.yaml"):
        hooks = []
        for hook in doc["webhooks"]:
            rule = hook["rules"][0]
            group, resource = rule["apiGroups"][0], rule["resources"][0]
            if group == "kueue.x-k8s.io" or (group, resource) in KUEUE_FRAMEWORKS.values():
                path = hook["clientConfig"]["service"]["path"]
                hooks.append({**hook, "clientConfig": {"url": url + path, "caBundle": ca_bundle}})
        name = _KUEUE_PREFIX + doc["metadata"]["name"]
        out.append({**doc, "metadata": {**doc["metadata"], "name": name}, "webhooks": hooks})
    return out


def _converted(crd: Json, url: str, ca_bundle: str) -> Json:
    if crd["metadata"]["name"] not in _KUEUE_CONVERTED:
        return crd
    conversion = {
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {"url": f"{url}/convert", "caBundle": ca_bundle},
            "conversionReviewVersions": ["v1"],
        },
    }
    return {**crd, "spec": {**crd["spec"], "conversion": conversion}}


def _namespace(name: str) -> Json:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _secret(data: dict[str, bytes]) -> Json:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": _KUEUE_SECRET, "namespace": KUEUE_NAMESPACE},
        "type": "Opaque",
        "data": {k: base64.b64encode(v).decode() for k, v in data.items()},
    }
