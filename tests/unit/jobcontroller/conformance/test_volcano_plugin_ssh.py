"""volcano ``pkg/controllers/job/plugins/ssh/ssh_test.go``, ported: ``TestSSHPlugin`` (each row
under its upstream name), ``TestGenerateSSHConfigWithCustomPort`` and
``TestInvalidSSHPortFallsBackToDefault``.

Upstream builds the plugin with ``New(clientset, args)`` and reads its parsed fields
(``sshKeyFilePath``, ``sshPrivateKey``, ``sshPublicKey``, ``sshPort``). Here a job with
``plugins: {ssh: args}`` goes through Shoal's reconcile: the first sync creates the plugin's
Secret, the second (PodGroup Inqueue) its pods; each field is read where it lands — the key path
as the pods' mount path, the keys in the Secret (none: the shell generates a pair), the port in
the ssh config's ``Port`` lines.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from services.jobcontroller.core import Actions, Observed
from services.jobcontroller.volcanojob import reconcile
from services.jobcontroller.volcanojob.plugins import SSH_KEYPAIR_ANNOTATION
from shared.models import Json, PodGroup, convert
from shared.models.volcano import VolcanoJobStatus
from tests.unit.jobcontroller.conformance.ssh_test_keys import PRIVATE_KEY, PUBLIC_KEY
from tests.unit.jobcontroller.statusjson import status_json
from tests.unit.jobcontroller.volcano_cases import NOW, PG_NAME, vcjob

SSH_ABSOLUTE_PATH = "/root/.ssh"


@dataclass(frozen=True)
class Synced:
    secret: Json
    pods: list[Json]


def sync_twice(params: list[str]) -> Synced:
    """The job's first sync (plugin objects, PodGroup) and, once admitted, its second (pods)."""
    job = vcjob(tasks=[("worker", 1)], plugins={"ssh": params})
    first = reconcile(job, Observed(), NOW)
    secret = next(o for o in first.create if o["kind"] == "Secret")
    job.status = convert(status_json(first), VolcanoJobStatus)
    group = next(o for o in first.create if o["kind"] == "PodGroup")
    admitted = convert({**group, "status": {"phase": "Inqueue"}}, PodGroup)
    assert admitted.metadata.name == PG_NAME
    second: Actions = reconcile(job, Observed(podgroups=[admitted]), NOW + 1)
    return Synced(secret=secret, pods=[o for o in second.create if o["kind"] == "Pod"])


def ssh_port(config: str) -> int:
    ports = {int(line.split()[1]) for line in config.splitlines() if line.startswith("  Port ")}
    assert len(ports) == 1, config
    return ports.pop()


@pytest.mark.parametrize(
    ("params", "key_path", "private_key", "public_key", "port"),
    [
        pytest.param([], SSH_ABSOLUTE_PATH, "", "", 22, id="no params specified"),
        pytest.param(
            ["--ssh-key-file-path=/a/b"], "/a/b", "", "", 22, id="--ssh-key-file-path=/a/b"
        ),
        pytest.param(
            [f"--ssh-private-key={PRIVATE_KEY}", f"--ssh-public-key={PUBLIC_KEY}"],
            SSH_ABSOLUTE_PATH,
            PRIVATE_KEY,
            PUBLIC_KEY,
            22,
            id="with user provided ssh keys",
        ),
        pytest.param(
            ["--ssh-port=2026"], SSH_ABSOLUTE_PATH, "", "", 2026, id="with custom ssh port"
        ),
    ],
)
def test_ssh_plugin(
    params: list[str], key_path: str, private_key: str, public_key: str, port: int
) -> None:
    synced = sync_twice(params)
    (pod,) = synced.pods
    mounts = [m for m in pod["spec"]["containers"][0]["volumeMounts"] if m["name"] == "train-ssh"]
    assert [m["mountPath"] for m in mounts] == [key_path]
    data = synced.secret["stringData"]
    annotations = synced.secret["metadata"].get("annotations") or {}
    if private_key:
        assert (data["id_rsa"], data["id_rsa.pub"]) == (private_key, public_key)
        assert data["authorized_keys"] == public_key
        assert SSH_KEYPAIR_ANNOTATION not in annotations
    else:  # generateRsaKey: a fresh pair, which the shell adds (randomness stays out of the core)
        assert "id_rsa" not in data and annotations[SSH_KEYPAIR_ANNOTATION] == "true"
    assert ssh_port(data["config"]) == port


def test_generate_ssh_config_with_custom_port() -> None:
    """``TestGenerateSSHConfigWithCustomPort``: the config names the port."""
    config = sync_twice(["--ssh-port=2026"]).secret["stringData"]["config"]
    assert "Port 2026" in config


def test_invalid_ssh_port_falls_back_to_default() -> None:
    """``TestInvalidSSHPortFallsBackToDefault``: ``--ssh-port=-10`` is port 22."""
    config = sync_twice(["--ssh-port=-10"]).secret["stringData"]["config"]
    assert ssh_port(config) == 22
