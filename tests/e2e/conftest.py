"""The whole system as processes (embedded broker, kubesim, the four services), one per module.

A module sets ``STACK = StackConfig(...)`` fields it needs through ``stack_config`` (override the
fixture); every test uses its own namespace, so tests in one module share the Stack.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.cli.stack import Stack, StackConfig
from shared.kube import KubeClient
from tests.e2e.e2e_cluster import Observer, create_namespace


@pytest.fixture(scope="module")
def stack_config(tmp_path_factory: pytest.TempPathFactory) -> StackConfig:
    return StackConfig(workdir=tmp_path_factory.mktemp("stack"), nodes=4, node_cpu="8")


@pytest.fixture(scope="module")
async def stack(stack_config: StackConfig) -> AsyncIterator[Stack]:
    running = Stack(stack_config)
    try:
        await running.start(timeout=90)
        yield running
    finally:
        codes = running.stop(grace=10)
        print(f"stack stopped: {codes}; logs in {Path(stack_config.workdir) / 'logs'}")


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
