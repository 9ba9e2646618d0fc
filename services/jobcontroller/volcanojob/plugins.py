"""Volcano job plugins ``env``, ``svc`` and ``ssh``: how they shape pods and what they create.

Each plugin has the hooks of Volcano's ``PluginInterface`` that matter to a pure reconcile:
``on_pod_create`` edits a pod manifest, ``on_job_add`` returns the objects to create once (the job
status' ``controlledResources`` records ``plugin-<name>`` so they are not created twice), and
``on_job_delete`` names the objects to delete when the job is killed. Plugins run in name order
(Volcano iterates a Go map, so its order is arbitrary; sorting makes ours reproducible).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from services.jobcontroller.volcanojob.spec import JobView, Task
from shared.kube.keys import namespaced_key
from shared.models import Json

SVC_MOUNT_PATH = "/etc/volcano"
SSH_DEFAULT_PATH = "/root/.ssh"
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


def _hosts(job: JobView, task: Task) -> list[str]:
    """``hostname.subdomain`` of every pod of ``task``; one entry if the template pins a name."""
    spec = task.pod_spec()
    fixed_host = spec.get("hostname") or ""
    subdomain = spec.get("subdomain") or job.name
    if fixed_host:
        return [f"{fixed_host}.{subdomain}"]
    return [f"{job.name}-{task.name}-{i}.{subdomain}" for i in range(task.replicas)]


def _env_key(task: Task) -> str:
    return task.name.replace("-", "_")


def _meta(job: JobView, name: str) -> Json:
    return {"name": name, "namespace": job.namespace, "ownerReferences": [job.owner_reference()]}


@dataclass(frozen=True, slots=True)
class EnvPlugin:
    """``VK_TASK_INDEX`` / ``VC_TASK_INDEX``: the pod's index within its task."""

    NAME = "env"

    def on_pod_create(self, job: JobView, task: Task, index: int, pod: Json) -> None:
        value = str(index)
        _add_env(
            pod,
            [{"name": "VK_TASK_INDEX", "value": value}, {"name": "VC_TASK_INDEX", "value": value}],
        )

    def on_job_add(self, job: JobView) -> list[Json]:
        return []

    def on_job_delete(self, job: JobView) -> list[tuple[str, str]]:
        return []


@dataclass(frozen=True, slots=True)
class SvcPlugin:
    """A headless Service ``<job>``, stable pod DNS names and the hosts of every task."""

    NAME = "svc"
    publish_not_ready_addresses: bool = False

    def config_map_name(self, job: JobView) -> str:
        return f"{job.name}-svc"

    def on_pod_create(self, job: JobView, task: Task, index: int, pod: Json) -> None:
        spec = pod["spec"]
        spec.setdefault("hostname", pod["metadata"]["name"])
        spec.setdefault("subdomain", job.name)
        cm_name = self.config_map_name(job)
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

    def on_job_add(self, job: JobView) -> list[Json]:
        config_map = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": _meta(job, self.config_map_name(job)),
            "data": self.hosts_data(job),
        }
        selector = {"volcano.sh/job-name": job.name, "volcano.sh/job-namespace": job.namespace}
        service_spec: Json = {
            "clusterIP": "None",
            "selector": selector,
            "ports": [
                {"name": "placeholder-volcano", "port": 1, "protocol": "TCP", "targetPort": 1}
            ],
        }
        if self.publish_not_ready_addresses:
            service_spec["publishNotReadyAddresses"] = True
        service = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": _meta(job, job.name),
            "spec": service_spec,
        }
        return [config_map, service]

    def on_job_delete(self, job: JobView) -> list[tuple[str, str]]:
        return [
            ("ConfigMap", namespaced_key(job.namespace, self.config_map_name(job))),
            ("Service", namespaced_key(job.namespace, job.name)),
        ]


@dataclass(frozen=True, slots=True)
class SshPlugin:
    """A Secret ``<job>-ssh`` (keys and an ssh config naming every pod), mounted in each pod."""

    NAME = "ssh"
    key_path: str = SSH_DEFAULT_PATH

    def secret_name(self, job: JobView) -> str:
        return f"{job.name}-ssh"

    def on_pod_create(self, job: JobView, task: Task, index: int, pod: Json) -> None:
        name = self.secret_name(job)
        items = [{"key": key, "path": f"{SSH_RELATIVE_PATH}/{key}"} for key in SSH_KEYS]
        volume = {
            "name": name,
            "secret": {"secretName": name, "items": items, "defaultMode": 0o600},
        }
        mount = {"name": name, "mountPath": self.key_path, "subPath": SSH_RELATIVE_PATH}
        _add_volume(pod, volume, mount)

    def ssh_config(self, job: JobView) -> str:
        lines = ["StrictHostKeyChecking no", "UserKnownHostsFile /dev/null"]
        for task in job.tasks:
            for fqdn in _hosts(job, task):
                host = fqdn.split(".", 1)[0]
                lines += [f"Host {host}", f"  HostName {fqdn}"]
        return "\n".join(lines) + "\n"

    def on_job_add(self, job: JobView) -> list[Json]:
        meta = _meta(job, self.secret_name(job))
        meta["annotations"] = {SSH_KEYPAIR_ANNOTATION: "true"}
        return [
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": meta,
                "type": "Opaque",
                "stringData": {"config": self.ssh_config(job)},
            }
        ]

    def on_job_delete(self, job: JobView) -> list[tuple[str, str]]:
        return [("Secret", namespaced_key(job.namespace, self.secret_name(job)))]


def _flag(args: list[str], name: str) -> str | None:
    """The value of ``--name=value`` / ``--name value``; ``"true"`` for a bare ``--name``."""
    for i, arg in enumerate(args):
        if arg == f"--{name}":
            nxt = args[i + 1] if i + 1 < len(args) else ""
            return "true" if not nxt or nxt.startswith("--") else nxt
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
    return None


def build_plugins(configured: Mapping[str, list[str]]) -> list[Plugin]:
    """The plugins a job enables, in name order; unknown plugin names are ignored."""
    plugins: list[Plugin] = []
    for name in sorted(configured):
        args = configured[name]
        if name == EnvPlugin.NAME:
            plugins.append(EnvPlugin())
        elif name == SvcPlugin.NAME:
            publish = _flag(args, "publish-not-ready-addresses") in ("true", "True", "1")
            plugins.append(SvcPlugin(publish_not_ready_addresses=publish))
        elif name == SshPlugin.NAME:
            plugins.append(SshPlugin(key_path=_flag(args, "ssh-key-file-path") or SSH_DEFAULT_PATH))
    return plugins


def controlled_key(plugin: Plugin) -> str:
    return f"plugin-{plugin.NAME}"
