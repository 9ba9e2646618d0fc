"""The whole system as processes, one stack per module and control plane.

Every module runs twice: on kubesim with the embedded Tansu broker, and on the real control plane
(etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, Apache Kafka) built by
``make control-plane``. A module sets the ``StackConfig`` fields it needs by overriding
``stack_config``; every test uses its own namespace, so tests in one module share the Stack.
A test or module that cannot run on one control plane says so with
``@pytest.mark.control_plane("kubesim", reason=...)``; the real runs are skipped, with that
reason, only where the real parts are not built and ``SHOAL_REQUIRE_REAL`` is unset.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.cli.controlplane.real import built
from services.cli.processes import die_with_parent
from services.cli.stack import Stack, StackConfig
from shared.kube import KubeClient
from tests.e2e.e2e_cluster import Observer, create_namespace


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    return StackConfig(workdir=tmp_path_factory.mktemp("stack"), nodes=4, node_cpu="8")


CONTROL_PLANES = ("kubesim", "real")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the runs on a control plane a test's ``control_plane`` marker leaves out."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        plane = callspec.params.get("control_plane") if callspec is not None else None
        marker = item.get_closest_marker("control_plane")
        if plane is None or marker is None or plane in marker.args:
            continue
        reason = marker.kwargs.get("reason", "")
        item.add_marker(pytest.mark.skip(reason=f"not on the {plane} control plane: {reason}"))


def require_real() -> None:
    """Skip what needs the real control plane where it is not built, or fail with
    ``SHOAL_REQUIRE_REAL`` set (``make test``, CI)."""
    if not built():
        if os.environ.get("SHOAL_REQUIRE_REAL"):
            pytest.fail("the real control plane is not built: run `make control-plane`")
        pytest.skip("the real control plane is not built (`make control-plane`)")


@pytest.fixture(scope="module", params=CONTROL_PLANES)
def control_plane(request: pytest.FixtureRequest) -> str:
    plane: str = request.param
    if plane == "real":
        require_real()
    return plane


def plane_config(stack_config: StackConfig, control_plane: str) -> StackConfig:
    """The module's stack on ``control_plane``, its children tied to this process's life."""
    config = stack_config
    if control_plane == "real":
        workdir = Path(stack_config.workdir) / "real"
        config = dataclasses.replace(
            stack_config, control_plane="real", workdir=workdir, etcd_fsync=False
        )
    if threading.current_thread() is threading.main_thread():
        # A killed test run takes its stack with it (children started from this thread).
        config = dataclasses.replace(config, preexec=die_with_parent())
    return config


@pytest.fixture(scope="module")
async def stack(stack_config: StackConfig, control_plane: str) -> AsyncIterator[Stack]:
    config = plane_config(stack_config, control_plane)
    running = Stack(config)
    try:
        await running.start(timeout=90)
        yield running
    finally:
        codes = running.stop(grace=10)
        print(f"stack stopped: {codes}; logs in {Path(config.workdir) / 'logs'}")


@pytest.fixture(scope="module")
async def kube(stack: Stack) -> AsyncIterator[KubeClient]:
    client = await KubeClient.connect(str(stack.kubeconfig))
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture(scope="module")
async def observer(kube: KubeClient) -> AsyncIterator[Observer]:
    watching = Observer(kube)
    await watching.start()
    try:
        yield watching
    finally:
        await watching.stop()


@pytest.fixture
async def namespace(kube: KubeClient, request: pytest.FixtureRequest) -> str:
    name = f"{request.node.originalname.replace('_', '-')[:40]}-{uuid.uuid4().hex[:5]}".strip("-")
    await create_namespace(kube, name)
    return name
