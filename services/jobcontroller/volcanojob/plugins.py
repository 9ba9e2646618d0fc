"""Volcano job plugins ``env``, ``svc`` and ``ssh``: how they shape pods and what they create.

Each plugin has the hooks of Volcano's ``PluginInterface`` that matter to a pure reconcile:
``on_pod_create`` edits a pod manifest, ``on_job_add`` returns the objects to create once (the job
status' ``controlledResources`` records ``plugin-<name>`` so they are not created twice), and
``on_job_delete`` names the objects to delete when the job is killed. Plugins run in name order
(Volcano iterates a Go map, so its order is arbitrary; sorting makes ours reproducible).
Arguments are read with Go's flag syntax (``goflags``), as each plugin's ``addFlags``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from services.jobcontroller.volcanojob.goflags import FlagKind, Value, parse_flags
from services.jobcontroller.volcanojob.spec import JobView, Task
from shared.kube.keys import namespaced_key
from shared.models import Json

SVC_MOUNT_PATH = "/etc/volcano"
SSH_DEFAULT_PATH = "/root/.ssh"
SSH_DEFAULT_PORT = 22
SSH_RELATIVE_PATH = ".ssh"
SSH_KEYS = ("id_rsa", "id_rsa.pub", "authorized_keys", "config")
# The shell fills in a fresh key pair: key generation is randomness a pure core must not hold.
SSH_KEYPAIR_ANNOTATION = "shoal.io/generate-ssh-keypair"


class Plugin(Protocol):
    NAME: str

    def on_pod_create(self, job: JobView, task: Task, index: int, pod: Json) -> None: ...

    def on_job_add(self, job: JobView) -> list[Json]: ...

    def on_job_delete(self, job: JobView) -> list[tuple[str, str]]: ...


def _containers(pod: Json) -> list[Json]:
    spec = pod["spec"]
    return [*spec.get("containers", []), *spec.get("initContainers", [])]


def _add_env(pod: Json, env: list[Json]) -> None:
    for container in _containers(pod):
        container["env"] = [*container.get("env", []), *env]


def _add_volume(pod: Json, volume: Json, mount: Json) -> None:
    pod["spec"]["volumes"] = [*pod["spec"].get("volumes", []), volume]
    for container in _containers(pod):
        container["volumeMounts"] = [*container.get("volumeMounts", []), dict(mount)]


def _host_names(job: JobView, task: Task) -> list[tuple[str, str]]:
    """``(hostname, subdomain)`` of every pod of ``task``; one entry if the template pins a
    hostname (``GenerateHosts``, ``generateSSHConfig``)."""
    spec = task.pod_spec()
    fixed_host = spec.get("hostname") or ""
    subdomain = spec.get("subdomain") or job.name
    if fixed_host:
        return [(fixed_host, subdomain)] if task.replicas > 0 else []
    return [(f"{job.name}-{task.name}-{i}", subdomain) for i in range(task.replicas)]


def _hosts(job: JobView, task: Task) -> list[str]:
    return [f"{host}.{subdomain}" for host, subdomain in _host_names(job, task)]


def _env_key(task: Task) -> str:
    return task.name.replace("-", "_")


def _meta(job: JobView, name: str) -> Json:
    return {"name": name, "namespace": job.namespace, "ownerReferences": [job.owner_reference()]}


def _pod_index(pod: Json) -> str:
    """``GetPodIndexUnderTask``: the last ``-`` field of the pod's name."""
    fields = str(pod["metadata"]["name"]).split("-")
    return fields[-1] if len(fields) >= 3 else ""


@dataclass(frozen=True, slots=True)
class EnvPlugin:
    """``VK_TASK_INDEX`` / ``VC_TASK_INDEX``: the pod's index within its task."""

    NAME = "env"

    def on_pod_create(self, job: JobView, task: Task, index: int, pod: Json) -> None:
        value = _pod_index(pod)
        _add_env(
            pod,
            [{"name": "VK_TASK_INDEX", "value": value}, {"name": "VC_TASK_INDEX", "value": value}],
        )

    def on_job_add(self, job: JobView) -> list[Json]:
        return []

    def on_job_delete(self, job: JobView) -> list[tuple[str, str]]:
        return []


def _job_selector(job: JobView) -> dict[str, str]:
    return {"volcano.sh/job-name": job.name, "volcano.sh/job-namespace": job.namespace}


@dataclass(frozen=True, slots=True)
class SvcPlugin:
    """A headless Service ``<job>``, stable pod DNS names, the hosts of every task in the
    ConfigMap ``<job>-svc``, and a NetworkPolicy ``<job>`` that lets only the job's own pods
    reach them (unless ``--disable-network-policy``)."""

    NAME = "svc"
    publish_not_ready_addresses: bool = False
    disable_network_policy: bool = False
    inject_hosts_env: bool = True

    def config_map_name(self, job: JobView) -> str:
        return f"{job.name}-svc"

    def on_pod_create(self, job: JobView, task: Task, index: int, pod: Json) -> None:
        spec = pod["spec"]
        if not spec.get("hostname"):
            spec["hostname"] = pod["metadata"]["name"]
        if not spec.get("subdomain"):
            spec["subdomain"] = job.name
        cm_name = self.config_map_name(job)
        if self.inject_hosts_env:
            env: list[Json] = []
            for each in job.tasks:
                key = _env_key(each).upper()
                for name in (f"VC_{key}_HOSTS", f"VC_{key}_NUM"):
                    ref = {"configMapKeyRef": {"name": cm_name, "key": name}}
                    env.append({"name": name, "valueFrom": ref})
            _add_env(pod, env)
        volume = {"name": cm_name, "configMap": {"name": cm_name}}
        _add_volume(pod, volume, {"name": cm_name, "mountPath": SVC_MOUNT_PATH})

    def hosts_data(self, job: JobView) -> dict[str, str]:
        data: dict[str, str] = {}
        for task in job.tasks:
            hosts = _hosts(job, task)
            key = _env_key(task)
            data[f"{key}.host"] = "\n".join(hosts)
            data[f"VC_{key.upper()}_HOSTS"] = ",".join(hosts)
            data[f"VC_{key.upper()}_NUM"] = str(len(hosts))
        return data

    def network_policy(self, job: JobView) -> Json:
        """``createNetworkPolicyIfNotExist``: ingress to the job's pods only from its pods."""
        return {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": _meta(job, job.name),
            "spec": {
                "podSelector": {"matchLabels": _job_selector(job)},
                "ingress": [{"from": [{"podSelector": {"matchLabels": _job_selector(job)}}]}],
                "policyTypes": ["Ingress"],
            },
        }

    def on_job_add(self, job: JobView) -> list[Json]:
        config_map = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta(job, self.config_map_name(job)),
            "data": self.hosts_data(job),
        }
        service_spec: Json = {"clusterIP": "None", "selector": _job_selector(job)}
        if self.publish_not_ready_addresses:
            service_spec["publishNotReadyAddresses"] = True
        service = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(job, job.name),
            "spec": service_spec,
        }
        if self.disable_network_policy:
            return [config_map, service]
        return [config_map, service, self.network_policy(job)]

    def on_job_delete(self, job: JobView) -> list[tuple[str, str]]:
        objects = [
            ("ConfigMap", namespaced_key(job.namespace, self.config_map_name(job))),
            ("Service", namespaced_key(job.namespace, job.name)),
        ]
        if not self.disable_network_policy:
            objects.append(("NetworkPolicy", namespaced_key(job.namespace, job.name)))
        return objects


@dataclass(frozen=True, slots=True)
class SshPlugin:
    """A Secret ``<job>-ssh`` (keys and an ssh config naming every pod), mounted in each pod.
    The keys are the user's (``--ssh-private-key``/``--ssh-public-key``) or a fresh pair."""

    NAME = "ssh"
    key_path: str = SSH_DEFAULT_PATH
    private_key: str = ""
    public_key: str = ""
    port: int = SSH_DEFAULT_PORT

    def secret_name(self, job: JobView) -> str:
        return f"{job.name}-ssh"

    def on_pod_create(self, job: JobView, task: Task, index: int, pod: Json) -> None:
        name = self.secret_name(job)
        items = [{"key": key, "path": f"{SSH_RELATIVE_PATH}/{key}"} for key in SSH_KEYS]
        # Keys outside root's home are made readable (0644) for a non-root user (mountRsaKey).
        mode = 0o600 if self.key_path == SSH_DEFAULT_PATH else 0o644
        volume = {"name": name, "secret": {"secretName": name, "items": items, "defaultMode": mode}}
        mount = {"name": name, "mountPath": self.key_path, "subPath": SSH_RELATIVE_PATH}
        _add_volume(pod, volume, mount)

    def ssh_config(self, job: JobView) -> str:
        """``generateSSHConfig``."""
        config = "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"
        for task in job.tasks:
            for host, subdomain in _host_names(job, task):
                config += f"Host {host}\n  HostName {host}.{subdomain}\n  Port {self.port}\n"
        return config

    def on_job_add(self, job: JobView) -> list[Json]:
        meta = _meta(job, self.secret_name(job))
        data = {"config": self.ssh_config(job)}
        if self.private_key:
            public = self.public_key
            data |= {"id_rsa": self.private_key, "id_rsa.pub": public, "authorized_keys": public}
        else:
            meta["annotations"] = {SSH_KEYPAIR_ANNOTATION: "true"}
        return [
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": meta,
                "type": "Opaque",
                "stringData": data,
            }
        ]

    def on_job_delete(self, job: JobView) -> list[tuple[str, str]]:
        return [("Secret", namespaced_key(job.namespace, self.secret_name(job)))]


_SVC_FLAGS: dict[str, FlagKind] = {
    "publish-not-ready-addresses": "bool",
    "disable-network-policy": "bool",
    "inject-hosts-env": "bool",
}
_SSH_FLAGS: dict[str, FlagKind] = {
    "ssh-key-file-path": "string",
    "ssh-private-key": "string",
    "ssh-public-key": "string",
    "ssh-port": "int",
}


def svc_plugin(args: list[str]) -> SvcPlugin:
    defaults: dict[str, Value] = {
        "publish-not-ready-addresses": False,
        "disable-network-policy": False,
        "inject-hosts-env": True,
    }
    flags = parse_flags(args, _SVC_FLAGS, defaults)
    return SvcPlugin(
        publish_not_ready_addresses=bool(flags["publish-not-ready-addresses"]),
        disable_network_policy=bool(flags["disable-network-policy"]),
        inject_hosts_env=bool(flags["inject-hosts-env"]),
    )


def ssh_plugin(args: list[str]) -> SshPlugin:
    defaults: dict[str, Value] = {
        "ssh-key-file-path": SSH_DEFAULT_PATH,
        "ssh-private-key": "",
        "ssh-public-key": "",
        "ssh-port": SSH_DEFAULT_PORT,
    }
    flags = parse_flags(args, _SSH_FLAGS, defaults)
    port = int(flags["ssh-port"])
    if not 0 < port <= 65535:
        port = SSH_DEFAULT_PORT  # validateSSHPort
    return SshPlugin(
        key_path=str(flags["ssh-key-file-path"]),
        private_key=str(flags["ssh-private-key"]),
        public_key=str(flags["ssh-public-key"]),
        port=port,
    )


# Volcano's plugin registry (``plugins/factory.go``). Shoal implements env, svc and ssh; the
# distributed-framework plugins are accepted and do nothing here (see docs/compatibility.md).
VOLCANO_PLUGINS = ("ssh", "env", "svc", "tensorflow", "mpi", "pytorch", "hcclrank", "ray")


def unknown_plugins(configured: Mapping[str, list[str]]) -> list[str]:
    """Plugin names Volcano has no builder for, in name order (``failed to get plugin``)."""
    return sorted(name for name in configured if name not in VOLCANO_PLUGINS)


def build_plugins(configured: Mapping[str, list[str]]) -> list[Plugin]:
    """The plugins a job enables that Shoal implements, in name order."""
    plugins: list[Plugin] = []
    for name in sorted(configured):
        args = list(configured[name] or [])
        if name == EnvPlugin.NAME:
            plugins.append(EnvPlugin())
        elif name == SvcPlugin.NAME:
            plugins.append(svc_plugin(args))
        elif name == SshPlugin.NAME:
            plugins.append(ssh_plugin(args))
    return plugins


def controlled_key(plugin: Plugin) -> str:
    return f"plugin-{plugin.NAME}"
