"""A kubesim per test module, and kubernetes_asyncio clients built from its kubeconfig."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from kubernetes_asyncio import client, config

from services.kubesim.app import KubeSim
from services.kubesim.config import SimConfig, pool


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def sim() -> AsyncIterator[KubeSim]:
    settings = SimConfig(
        node_pools=(pool(3, cpu="4", memory="8Gi", pods=5, gpus=2),),
        start_delay=0.01,
        stop_delay=0.01,
    )
    async with KubeSim(settings) as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def api(sim: KubeSim) -> AsyncIterator[client.ApiClient]:
    api_client = await config.new_client_from_config(config_file=str(sim.kubeconfig_path))
    async with api_client:
        yield api_client


@pytest.fixture
def core(api: client.ApiClient) -> client.CoreV1Api:
    return client.CoreV1Api(api)


@pytest.fixture
def custom(api: client.ApiClient) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api)


@pytest.fixture
def batch(api: client.ApiClient) -> client.BatchV1Api:
    return client.BatchV1Api(api)
