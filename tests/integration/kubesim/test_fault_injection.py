"""Fault injection through the admin endpoint: on, observed by the client, then off."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from kubernetes_asyncio import client
from kubernetes_asyncio.client.exceptions import ApiException

from services.kubesim.app import KubeSim
from tests.integration.kubesim.kubesim_helpers import pod

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]


@pytest.fixture
async def faults(sim: KubeSim) -> AsyncIterator[Any]:
    async with aiohttp.ClientSession() as session:

        async def set_faults(config: dict[str, Any] | None) -> int:
            method = session.post if config is not None else session.delete
            async with method(f"{sim.url}/_sim/faults", json=config) as resp:
                return resp.status

        yield set_faults
        await set_faults(None)


async def test_error_rule_fails_only_its_verb_until_cleared(
    core: client.CoreV1Api, faults: Any
) -> None:
    rule = {"resource": "pods", "verb": "create", "rate": 1.0, "code": 503}
    assert await faults({"rules": [rule]}) == 200
    with pytest.raises(ApiException) as err:
        await core.create_namespaced_pod("default", pod("faulty"))
    assert err.value.status == 503
    await core.list_namespaced_pod("default")  # other verbs are untouched
    assert await faults(None) == 200
    created = await core.create_namespaced_pod("default", pod("faulty"))
    assert created.metadata.name == "faulty"


async def test_partial_rate_is_seeded(core: client.CoreV1Api, faults: Any) -> None:
    rule = {"resource": "*", "verb": "get", "rate": 0.5, "code": 500}
    await faults({"rules": [rule], "seed": 42})
    outcomes = []
    for _ in range(40):
        try:
            await core.read_namespace("default")
            outcomes.append(True)
        except ApiException as exc:
            assert exc.status == 500
            outcomes.append(False)
    assert 5 < outcomes.count(False) < 35


async def test_watch_faults_force_410_and_drop_streams(
    sim: KubeSim, core: client.CoreV1Api, faults: Any
) -> None:
    rv = (await core.list_namespaced_pod("default")).metadata.resource_version
    await faults({"watch": {"goneRate": 1.0}})
    url = f"{sim.url}/api/v1/namespaces/default/pods"
    async with aiohttp.ClientSession() as session:
        params = {"watch": "true", "resourceVersion": rv}
        async with session.get(url, params=params) as resp:
            body = await resp.read()
        assert b'"code":410' in body
        await faults({"watch": {"dropAfter": 0.2}})
        async with session.get(url, params=params) as resp:
            assert await resp.read() == b""  # closed after 0.2 s without events


async def test_bad_fault_config_is_400(faults: Any) -> None:
    assert await faults({"rules": [{"resource": "pods", "bogus": 1}]}) == 400
