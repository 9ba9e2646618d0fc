"""Manifests and polling shared by the kubesim integration tests."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from services.kubesim.app import KubeSim

T = TypeVar("T")
KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")


async def run_kubectl(
    sim: KubeSim, *args: str, stdin: bytes | None = None, timeout: float = 20
) -> tuple[int, str, str]:
    """The real kubectl against ``sim``: (exit code, stdout, stderr)."""
    assert KUBECTL is not None
    proc = await asyncio.create_subprocess_exec(
        KUBECTL,
        *args,
        stdin=asyncio.subprocess.PIPE if stdin is not None else None,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "KUBECONFIG": str(sim.kubeconfig_path)},
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def kubectl(sim: KubeSim, *args: str, stdin: bytes | None = None) -> str:
    """stdout of a kubectl run that must succeed."""
    code, out, err = await run_kubectl(sim, *args, stdin=stdin)
    assert code == 0, f"kubectl {' '.join(args)}: {err}"
    return out


def pod(
    name: str,
    *,
    annotations: dict[str, str] | None = None,
    labels: dict[str, str] | None = None,
    cpu: str = "100m",
    restart_policy: str = "Never",
    node: str | None = None,
    owner: dict[str, Any] | None = None,
    finalizers: list[str] | None = None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": name,
        "labels": labels or {},
        "annotations": annotations or {},
    }
    if owner is not None:
        metadata["ownerReferences"] = [owner]
    if finalizers is not None:
        metadata["finalizers"] = finalizers
    spec: dict[str, Any] = {
        "restartPolicy": restart_policy,
        "containers": [
            {"name": "main", "image": "busybox", "resources": {"requests": {"cpu": cpu}}}
        ],
    }
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def binding(name: str, node: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": name},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }


async def eventually(
    probe: Callable[[], Awaitable[T]], check: Callable[[T], bool], timeout: float = 5.0
) -> T:
    """Poll ``probe`` until ``check`` holds; the last value when it never does (assert on it)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        value = await probe()
        if check(value) or asyncio.get_running_loop().time() > deadline:
            return value
        await asyncio.sleep(0.02)
