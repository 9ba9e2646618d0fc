"""kubesim stores the objects that register webhooks as kube-apiserver's built-in kinds:
Mutating/ValidatingWebhookConfigurations and CustomResourceDefinitions, cluster-scoped, with
discovery, create, get, replace (409 on a stale resourceVersion) and delete."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from services.kubesim.app import KubeSim
from shared.kube import KubeClient
from shared.kube.client import ApiError
from shared.kube.resources import ResourceType

KINDS = [
    ("admissionregistration.k8s.io", "MutatingWebhookConfiguration",
     "mutatingwebhookconfigurations", {"webhooks": [{"name": "m.example.com"}]}),
    ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration",
     "validatingwebhookconfigurations", {"webhooks": [{"name": "v.example.com"}]}),
    ("apiextensions.k8s.io", "CustomResourceDefinition", "customresourcedefinitions",
     {"spec": {"group": "example.com", "names": {"plural": "things"}}}),
]  # fmt: skip


@pytest.mark.parametrize(("group", "kind", "plural", "content"), KINDS, ids=[k[1] for k in KINDS])
async def test_stored_as_built_in_kinds(
    sim: KubeSim, group: str, kind: str, plural: str, content: dict[str, Any]
) -> None:
    rt = ResourceType(group=group, version="v1", kind=kind, plural=plural, namespaced=False)
    kube = await KubeClient.connect(str(sim.kubeconfig_path))
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"{sim.url}/apis/{group}/v1") as response,
        ):
            discovered = await response.json()
        assert plural in [r["name"] for r in discovered["resources"]]
        obj = {"apiVersion": f"{group}/v1", "kind": kind, "metadata": {"name": "things"}}
        created = await kube.create(rt, {**obj, **content})
        assert created["metadata"]["uid"] and "namespace" not in created["metadata"]
        fetched = await kube.get(rt, "things")
        assert {k: fetched[k] for k in content} == content
        stale = {**fetched, "metadata": {**fetched["metadata"], "resourceVersion": "1"}}
        with pytest.raises(ApiError) as conflict:
            await kube.replace(rt, stale)
        assert conflict.value.status == 409
        await kube.delete(rt, "things")
        with pytest.raises(ApiError) as gone:
            await kube.get(rt, "things")
        assert gone.value.status == 404
    finally:
        await kube.close()
