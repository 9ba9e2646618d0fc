"""Events expire after the event TTL counted from their last write, as on the API server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.kubesim.app import KubeSim
from services.kubesim.config import SimConfig
from shared.kube import KubeClient, resource_for

pytestmark = [pytest.mark.kubesim]
EVENT = resource_for("v1", "Event")


def event(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
        "reason": "Test",
        "message": name,
        "type": "Normal",
    }


async def test_events_expire_after_their_last_write() -> None:
    async with KubeSim(SimConfig(event_ttl=0.6)) as sim:
        kube = await KubeClient.connect(str(sim.kubeconfig_path))
        try:
            await kube.create(EVENT, event("old"))
            await asyncio.sleep(0.4)
            await kube.create(EVENT, event("young"))
            await kube.patch(EVENT, "old", {"count": 2}, namespace="default")  # written again
            await asyncio.sleep(0.4)
            names = {e["metadata"]["name"] for e in (await kube.list_all(EVENT))[0]}
            assert names == {"old", "young"}  # "old" was rewritten 0.4 s ago
            await asyncio.sleep(0.6)
            assert (await kube.list_all(EVENT))[0] == []
        finally:
            await kube.close()
