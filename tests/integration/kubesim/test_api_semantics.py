"""kubesim through kubernetes_asyncio: CRUD, conflicts, selectors, binding, subresources."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes_asyncio import client
from kubernetes_asyncio.client.exceptions import ApiException

from services.kubesim.app import KubeSim
from tests.integration.kubesim.kubesim_helpers import binding, eventually, pod

NS = "default"
pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]


async def test_create_defaults_and_generate_name(core: client.CoreV1Api) -> None:
    body = pod("")
    body["metadata"] = {"generateName": "gen-"}
    created = await core.create_namespaced_pod(NS, body)
    assert created.metadata.name.startswith("gen-") and len(created.metadata.name) == 9
    assert created.metadata.uid and created.metadata.resource_version
    assert created.metadata.namespace == NS
    assert created.spec.scheduler_name == "default-scheduler"
    assert created.status.phase == "Pending"


async def test_stale_update_conflicts(core: client.CoreV1Api) -> None:
    created = await core.create_namespaced_pod(NS, pod("stale"))
    created.metadata.labels = {"v": "1"}
    updated = await core.replace_namespaced_pod("stale", NS, created)
    assert int(updated.metadata.resource_version) > int(created.metadata.resource_version)
    created.metadata.labels = {"v": "2"}
    with pytest.raises(ApiException) as err:
        await core.replace_namespaced_pod("stale", NS, created)  # still the old version
    assert err.value.status == 409
    assert json.loads(err.value.body)["reason"] == "Conflict"


async def test_create_twice_is_already_exists(core: client.CoreV1Api) -> None:
    await core.create_namespaced_pod(NS, pod("twice"))
    with pytest.raises(ApiException) as err:
        await core.create_namespaced_pod(NS, pod("twice"))
    assert err.value.status == 409
    assert json.loads(err.value.body)["reason"] == "AlreadyExists"


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda p: p["spec"]["containers"][0].pop("image"), "spec.containers[0].image"),
        (lambda p: p["spec"].update(containers=[]), "spec.containers"),
        (lambda p: p["metadata"].update(name="Bad_Name"), "metadata.name"),
        (
            lambda p: p["spec"]["containers"][0]["resources"]["requests"].update(cpu="lots"),
            "spec.containers[0].resources.requests[cpu]",
        ),
    ],
    ids=["missing-image", "no-containers", "bad-name", "bad-quantity"],
)
async def test_invalid_pod_is_422_naming_the_field(
    core: client.CoreV1Api, mutate: Any, field: str
) -> None:
    body = pod("invalid")
    mutate(body)
    with pytest.raises(ApiException) as err:
        await core.create_namespaced_pod(NS, body)
    status = json.loads(err.value.body)
    assert err.value.status == 422 and status["reason"] == "Invalid"
    assert status["kind"] == "Status" and status["status"] == "Failure"
    assert field in status["message"]
    assert field in [c["field"] for c in status["details"]["causes"]]


async def test_missing_object_and_namespace_are_404(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as err:
        await core.read_namespaced_pod("nope", NS)
    assert err.value.status == 404
    assert json.loads(err.value.body)["details"] == {"name": "nope", "kind": "pods"}
    with pytest.raises(ApiException) as err:
        await core.create_namespaced_pod("no-such-ns", pod("x"))
    assert err.value.status == 404


async def test_binding_sets_node_and_rejects_rebind(core: client.CoreV1Api) -> None:
    await core.create_namespaced_pod(NS, pod("bindme"))
    # The API server answers a binding with a Status, which the generated client cannot
    # deserialize as a V1Binding: read the raw response, as with a real cluster.
    first = await core.create_namespaced_pod_binding(
        "bindme", NS, binding("bindme", "node-0"), _preload_content=False
    )
    assert first.status == 201
    bound = await core.read_namespaced_pod("bindme", NS)
    assert bound.spec.node_name == "node-0"
    assert any(c.type == "PodScheduled" and c.status == "True" for c in bound.status.conditions)
    again = await core.create_namespaced_pod_binding(
        "bindme", NS, binding("bindme", "node-1"), _preload_content=False
    )
    assert again.status == 409
    assert "already assigned to node" in json.loads(await again.read())["message"]


@pytest.mark.parametrize(
    ("label_selector", "field_selector", "expected"),
    [
        ("tier=web", "", {"sel-a", "sel-b"}),
        ("tier==web,track!=canary", "", {"sel-a"}),
        ("tier in (web,db)", "", {"sel-a", "sel-b", "sel-c"}),
        ("tier notin (web),tier", "", {"sel-c"}),
        ("!track,tier", "", {"sel-a", "sel-c"}),
        ("tier", "spec.nodeName=node-2", {"sel-b"}),
        ("tier", "spec.nodeName=", {"sel-a", "sel-c"}),
        ("tier", "metadata.name=sel-c", {"sel-c"}),
        ("tier", "status.phase!=Pending", {"sel-b"}),
    ],
    ids=["eq", "eq-neq", "in", "notin-exists", "not-exists", "node", "unbound", "name", "phase"],
)
async def test_label_and_field_selectors(
    core: client.CoreV1Api, label_selector: str, field_selector: str, expected: set[str]
) -> None:
    ns = "selectors"
    try:
        await core.create_namespace({"metadata": {"name": ns}})
        await core.create_namespaced_pod(ns, pod("sel-a", labels={"tier": "web"}))
        await core.create_namespaced_pod(
            ns, pod("sel-b", labels={"tier": "web", "track": "canary"}, node="node-2")
        )
        await core.create_namespaced_pod(ns, pod("sel-c", labels={"tier": "db"}))
    except ApiException as exc:
        assert exc.status == 409  # created by an earlier case
    await eventually(
        lambda: core.read_namespaced_pod("sel-b", ns), lambda p: p.status.phase == "Running"
    )
    listed = await core.list_namespaced_pod(
        ns, label_selector=label_selector, field_selector=field_selector
    )
    assert {p.metadata.name for p in listed.items} == expected


async def test_bad_selector_is_400(core: client.CoreV1Api) -> None:
    with pytest.raises(ApiException) as err:
        await core.list_namespaced_pod(NS, field_selector="spec.bogus=1")
    assert err.value.status == 400


async def test_list_pages_with_limit_and_continue(core: client.CoreV1Api) -> None:
    ns = "paging"
    await core.create_namespace({"metadata": {"name": ns}})
    for i in range(7):
        await core.create_namespaced_pod(ns, pod(f"page-{i}"))
    names: list[str] = []
    token = None
    pages = 0
    while True:
        page = await core.list_namespaced_pod(ns, limit=3, _continue=token)
        names += [p.metadata.name for p in page.items]
        pages += 1
        token = page.metadata._continue
        if not token:
            break
    assert pages == 3
    assert names == sorted(f"page-{i}" for i in range(7))


async def test_list_items_of_a_builtin_type_carry_no_type_but_custom_ones_do(
    sim: KubeSim, custom: client.CustomObjectsApi
) -> None:
    """kube-apiserver's typed lists leave apiVersion/kind out of each item; a CRD's list is
    unstructured and keeps them. KubeClient.list_page puts them back for its callers."""
    from shared.kube import KubeClient, resource_for

    await custom.create_cluster_custom_object(
        "scheduling.volcano.sh", "v1beta1", "queues", {"metadata": {"name": "typed"}}
    )
    kube = await KubeClient.connect(str(sim.kubeconfig_path))
    try:
        raw = await kube._json("GET", "/api/v1/nodes")
        assert raw["kind"] == "NodeList" and raw["items"]
        assert all("kind" not in n and "apiVersion" not in n for n in raw["items"])
        queues = await kube._json("GET", "/apis/scheduling.volcano.sh/v1beta1/queues")
        assert all(q["kind"] == "Queue" for q in queues["items"])
        nodes, _ = await kube.list_all(resource_for("v1", "Node"))
        assert {(n["apiVersion"], n["kind"]) for n in nodes} == {("v1", "Node")}
    finally:
        await kube.close()


async def test_a_configmap_over_one_mebibyte_is_refused_as_kube_apiserver_does(
    core: client.CoreV1Api,
) -> None:
    """kube-apiserver 1.37 answers: ConfigMap "big" is invalid: []: Too long: may not be more
    than 1048576 bytes. binaryData counts decoded bytes, so 1 MiB less a little fits."""
    import base64

    just_fits = base64.b64encode(b"\0" * (1024 * 1024 - 64)).decode()
    await core.create_namespaced_config_map(
        NS, {"metadata": {"name": "fits"}, "binaryData": {"blob": just_fits}}
    )
    with pytest.raises(ApiException) as err:
        await core.create_namespaced_config_map(
            NS, {"metadata": {"name": "big"}, "data": {"blob": "x" * (1024 * 1024)}}
        )
    assert err.value.status == 422
    message = json.loads(err.value.body)["message"]
    assert message == (
        'ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes'
    )


async def test_status_subresource_is_separate(custom: client.CustomObjectsApi) -> None:
    group, version, plural = "scheduling.volcano.sh", "v1beta1", "queues"
    queue = {
        "apiVersion": f"{group}/{version}",
        "kind": "Queue",
        "metadata": {"name": "status-separate"},
        "spec": {"weight": 1},
        "status": {"state": "Closed", "pending": 7},
    }
    created = await custom.create_cluster_custom_object(group, version, plural, queue)
    assert (created.get("status") or {}).get("pending") is None  # status is dropped on create
    with_status = await custom.patch_cluster_custom_object_status(
        group,
        version,
        plural,
        "status-separate",
        {"status": {"state": "Open"}},
        _content_type="application/merge-patch+json",
    )
    assert with_status["status"]["state"] == "Open"
    assert with_status["metadata"]["generation"] == 1
    with_status["spec"]["weight"] = 3
    with_status["status"]["state"] = "Closed"
    replaced = await custom.replace_cluster_custom_object(
        group, version, plural, "status-separate", with_status
    )
    assert replaced["spec"]["weight"] == 3 and replaced["metadata"]["generation"] == 2
    assert replaced["status"]["state"] == "Open"  # the main resource ignores status


async def test_status_without_subresource_is_written_with_the_object(
    custom: client.CustomObjectsApi,
) -> None:
    # Volcano's PodGroup CRD has no status subresource: as on kube-apiserver, status is kept on
    # create, written through the object, counts as a change for the generation, and
    # .../status is not found.
    group, version, plural = "scheduling.volcano.sh", "v1beta1", "podgroups"
    pg = {
        "apiVersion": f"{group}/{version}",
        "kind": "PodGroup",
        "metadata": {"name": "pg1"},
        "spec": {"minMember": 2},
        "status": {"phase": "Pending"},
    }
    created = await custom.create_namespaced_custom_object(group, version, NS, plural, pg)
    assert created["status"] == {"phase": "Pending"}
    with pytest.raises(ApiException) as missing:
        await custom.patch_namespaced_custom_object_status(
            group, version, NS, plural, "pg1", {"status": {"phase": "Inqueue"}},
            _content_type="application/merge-patch+json",
        )  # fmt: skip
    assert missing.value.status == 404
    patched = await custom.patch_namespaced_custom_object(
        group, version, NS, plural, "pg1", {"status": {"phase": "Inqueue"}},
        _content_type="application/merge-patch+json",
    )  # fmt: skip
    assert patched["status"]["phase"] == "Inqueue"
    assert patched["metadata"]["generation"] == 2
    patched["status"]["phase"] = "Running"
    replaced = await custom.replace_namespaced_custom_object(
        group, version, NS, plural, "pg1", patched
    )
    assert replaced["status"]["phase"] == "Running"
    assert replaced["metadata"]["generation"] == 3


async def test_patch_formats(core: client.CoreV1Api, custom: client.CustomObjectsApi) -> None:
    await core.create_namespaced_pod(NS, pod("patchme", labels={"a": "1"}))
    patched = await core.patch_namespaced_pod(
        "patchme", NS, {"metadata": {"labels": {"b": "2"}}}
    )  # a dict body goes as a strategic merge patch
    assert patched.metadata.labels == {"a": "1", "b": "2"}
    patched = await core.patch_namespaced_pod(
        "patchme", NS, [{"op": "remove", "path": "/metadata/labels/a"}]
    )
    assert patched.metadata.labels == {"b": "2"}
    with pytest.raises(ApiException) as err:  # CRDs refuse strategic merge patch
        await custom.patch_namespaced_custom_object(
            "scheduling.volcano.sh",
            "v1beta1",
            NS,
            "podgroups",
            "pg1",
            {"spec": {}},
            _content_type="application/strategic-merge-patch+json",
        )
    assert err.value.status == 415


async def test_configmap_lease_and_crd_roundtrip(
    core: client.CoreV1Api, custom: client.CustomObjectsApi, api: client.ApiClient
) -> None:
    cm = await core.create_namespaced_config_map(
        NS, {"metadata": {"name": "volcano-scheduler-configmap"}, "data": {"k": "v"}}
    )
    assert cm.data == {"k": "v"}
    leases = client.CoordinationV1Api(api)
    lease = await leases.create_namespaced_lease(
        NS, {"metadata": {"name": "shoal-scheduler"}, "spec": {"holderIdentity": "a"}}
    )
    assert lease.spec.holder_identity == "a"
    queue = await custom.get_cluster_custom_object(
        "scheduling.volcano.sh", "v1beta1", "queues", "default"
    )
    assert queue["spec"]["weight"] == 1


async def test_batch_job_gets_selector_and_labels(batch: client.BatchV1Api) -> None:
    job = {
        "metadata": {"name": "bj"},
        "spec": {"template": {"spec": pod("x", restart_policy="Never")["spec"]}},
    }
    created = await batch.create_namespaced_job(NS, job)
    uid = created.metadata.uid
    assert created.spec.selector.match_labels == {"batch.kubernetes.io/controller-uid": uid}
    assert created.spec.template.metadata.labels["job-name"] == "bj"
    assert created.spec.completions == 1 and created.spec.backoff_limit == 6


async def test_sim_fixture_reports_url(sim: KubeSim) -> None:
    assert sim.url.startswith("http://127.0.0.1:") and sim.kubeconfig_path.exists()
