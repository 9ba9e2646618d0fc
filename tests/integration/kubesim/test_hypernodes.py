"""HyperNodes in kubesim: served cluster-scoped as topology.volcano.sh/v1alpha1 from the CRD,
read back into Shoal's model with each of the three member selectors, and checked by Volcano's
hypernode-validation-policy."""

from __future__ import annotations

from typing import Any

import pytest
from kubernetes_asyncio import client
from kubernetes_asyncio.client.exceptions import ApiException

from shared.models import HyperNode
from shared.models.registry import decode_object

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]
GROUP, VERSION, PLURAL = "topology.volcano.sh", "v1alpha1", "hypernodes"


def hyper_node(name: str, tier: int, members: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "HyperNode",
        "metadata": {"name": name},
        "spec": {"tier": tier, "members": members},
    }


async def test_a_hypernode_round_trips_into_the_model(custom: client.CustomObjectsApi) -> None:
    members = [
        {"type": "Node", "selector": {"exactMatch": {"name": "node-0"}}},
        {"type": "Node", "selector": {"regexMatch": {"pattern": "^rack1-"}}},
        {"type": "Node", "selector": {"labelMatch": {"matchLabels": {"rack": "r1"}}}},
    ]
    await custom.create_cluster_custom_object(GROUP, VERSION, PLURAL, hyper_node("s0", 1, members))
    body = await custom.get_cluster_custom_object(GROUP, VERSION, PLURAL, "s0")
    found = decode_object(body)
    assert isinstance(found, HyperNode)
    assert found.spec.tier == 1
    selectors = [m.selector for m in found.spec.members]
    assert selectors[0].exactMatch is not None and selectors[0].exactMatch.name == "node-0"
    assert selectors[1].regexMatch is not None and selectors[1].regexMatch.pattern == "^rack1-"
    assert selectors[2].labelMatch is not None
    assert selectors[2].labelMatch.matchLabels == {"rack": "r1"}


async def test_hypernodes_are_cluster_scoped(custom: client.CustomObjectsApi) -> None:
    await custom.create_cluster_custom_object(
        GROUP,
        VERSION,
        PLURAL,
        hyper_node("s1", 2, [{"type": "HyperNode", "selector": {"exactMatch": {"name": "s0"}}}]),
    )
    listed = await custom.list_cluster_custom_object(GROUP, VERSION, PLURAL)
    assert "s1" in {item["metadata"]["name"] for item in listed["items"]}
    assert all("namespace" not in item["metadata"] for item in listed["items"])


async def test_the_validation_policy_refuses_a_member_without_selector(
    custom: client.CustomObjectsApi,
) -> None:
    body = hyper_node("bad", 1, [{"type": "Node", "selector": {}}])
    with pytest.raises(ApiException) as raised:
        await custom.create_cluster_custom_object(GROUP, VERSION, PLURAL, body)
    assert raised.value.status == 422
    assert (
        "ValidatingAdmissionPolicy 'hypernode-validation-policy' with binding "
        "'hypernode-validation-policy-binding' denied request: member selector must have one of "
        "exactMatch, regexMatch, or labelMatch"
    ) in str(raised.value.body)
