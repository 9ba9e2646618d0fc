"""What the CLI says when its surroundings fail: one line per cause, never a traceback.

A missing or bad kubeconfig, an API server or a Kafka broker that cannot be reached, or an API
server that refuses us are the user's environment, not a bug: ``describe`` turns them into one
line (exit code 2, like bad input). Anything else is a bug and keeps its traceback. The client
libraries are imported only once something failed, so ``shoal --help`` stays fast.
"""

from __future__ import annotations

import os
from pathlib import Path


def describe(exc: BaseException) -> str | None:
    """One line for an environment failure; None for anything else."""
    message = _describe(exc)
    return " ".join(message.split()) if message is not None else None


def _describe(exc: BaseException) -> str | None:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    import yaml
    from aiohttp import ClientError
    from aiokafka.errors import KafkaError
    from kubernetes_asyncio.config import ConfigException

    from shared.kube import ApiError

    if isinstance(exc, ConfigException):
        return f"cannot load a kubeconfig: {exc} (set --kubeconfig or KUBECONFIG)"
    if isinstance(exc, yaml.YAMLError):  # manifests are parsed elsewhere, as ManifestError
        return f"cannot load a kubeconfig: not YAML: {exc}"
    if isinstance(exc, ClientError):
        return f"cannot reach the API server: {exc}"
    if isinstance(exc, ApiError):
        return f"the API server refused: {exc.status} {exc.reason}: {exc.message}"
    if isinstance(exc, KafkaError):
        return f"cannot reach Kafka: {exc!r}"
    if isinstance(exc, TimeoutError):
        return "timed out talking to the API server or Kafka"
    return None


def check_kubeconfig(path: str | None) -> None:
    """Refuse a kubeconfig path that does not exist (the client would read it as empty), and
    no kubeconfig at all outside a cluster."""
    from shared.errors import UserError

    named = path or os.environ.get("KUBECONFIG", "")
    for part in filter(None, named.split(os.pathsep)):
        if not Path(part).expanduser().is_file():
            raise UserError(f"kubeconfig {part}: no such file")
    in_cluster = bool(os.environ.get("KUBERNETES_SERVICE_HOST"))
    if not named and not in_cluster and not Path("~/.kube/config").expanduser().is_file():
        raise UserError("no kubeconfig: set --kubeconfig or KUBECONFIG (no ~/.kube/config)")
