"""Watch through kubernetes_asyncio's ``watch.Watch``: resume, 410 Gone, bookmarks."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest
from kubernetes_asyncio import client, watch
from kubernetes_asyncio.client.exceptions import ApiException

from services.kubesim.app import KubeSim
from services.watcher.service import too_large_resource_version
from shared.kube import ApiError, KubeClient, resource_for
from tests.integration.kubesim.kubesim_helpers import pod

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]


async def _collect(
    core: client.CoreV1Api, ns: str, count: int, **kwargs: Any
) -> list[tuple[str, str]]:
    """The first ``count`` events as (type, name)."""
    seen: list[tuple[str, str]] = []
    async with watch.Watch() as w:
        async for event in w.stream(core.list_namespaced_pod, ns, timeout_seconds=5, **kwargs):
            seen.append((event["type"], event["object"].metadata.name))
            if len(seen) == count:
                break
    return seen


async def test_list_then_watch_resumes_from_resource_version(core: client.CoreV1Api) -> None:
    ns = "watch-resume"
    await core.create_namespace({"metadata": {"name": ns}})
    await core.create_namespaced_pod(ns, pod("before"))
    listed = await core.list_namespaced_pod(ns)
    rv = listed.metadata.resource_version
    assert [p.metadata.name for p in listed.items] == ["before"]
    await core.create_namespaced_pod(ns, pod("after-1"))
    await core.patch_namespaced_pod("before", ns, {"metadata": {"labels": {"x": "y"}}})
    await core.delete_namespaced_pod("after-1", ns)
    events = await _collect(core, ns, 3, resource_version=rv)
    assert events == [("ADDED", "after-1"), ("MODIFIED", "before"), ("DELETED", "after-1")]


async def test_watch_without_version_starts_with_current_state(core: client.CoreV1Api) -> None:
    ns = "watch-initial"
    await core.create_namespace({"metadata": {"name": ns}})
    for name in ("a", "b"):
        await core.create_namespaced_pod(ns, pod(name))
    events = await _collect(core, ns, 2)
    assert sorted(events) == [("ADDED", "a"), ("ADDED", "b")]


async def test_selector_watch_sees_objects_leave_and_enter(core: client.CoreV1Api) -> None:
    ns = "watch-selector"
    await core.create_namespace({"metadata": {"name": ns}})
    await core.create_namespaced_pod(ns, pod("mover", labels={"team": "a"}))
    rv = (await core.list_namespaced_pod(ns)).metadata.resource_version
    await core.patch_namespaced_pod("mover", ns, {"metadata": {"labels": {"team": "b"}}})
    await core.patch_namespaced_pod("mover", ns, {"metadata": {"labels": {"team": "a"}}})
    events = await _collect(core, ns, 2, resource_version=rv, label_selector="team=a")
    assert events == [("DELETED", "mover"), ("ADDED", "mover")]


async def test_too_old_version_is_410_then_relist_works(
    core: client.CoreV1Api, sim: KubeSim
) -> None:
    ns = "watch-gone"
    await core.create_namespace({"metadata": {"name": ns}})
    old_rv = (await core.list_namespaced_pod(ns)).metadata.resource_version
    await core.create_namespaced_pod(ns, pod("p"))
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{sim.url}/_sim/compact", params={"resource": "pods"}) as resp:
            assert resp.status == 200
        async with session.get(
            f"{sim.url}/api/v1/namespaces/{ns}/pods",
            params={"watch": "true", "resourceVersion": old_rv},
        ) as resp:
            lines = (await resp.read()).decode().splitlines()
    # The real server answers 200 and sends one ERROR event carrying a 410 Status.
    assert len(lines) == 1 and '"type":"ERROR"' in lines[0] and '"code":410' in lines[0]
    with pytest.raises(ApiException) as err:
        await _collect(core, ns, 1, resource_version=old_rv)
    assert err.value.status == 410
    relisted = await core.list_namespaced_pod(ns)
    assert [p.metadata.name for p in relisted.items] == ["p"]
    await core.create_namespaced_pod(ns, pod("q"))
    events = await _collect(core, ns, 1, resource_version=relisted.metadata.resource_version)
    assert events == [("ADDED", "q")]


async def test_bookmarks_carry_the_latest_version(sim: KubeSim, core: client.CoreV1Api) -> None:
    ns = "watch-bookmarks"
    await core.create_namespace({"metadata": {"name": ns}})
    rv = (await core.list_namespaced_pod(ns)).metadata.resource_version
    await core.create_namespace({"metadata": {"name": "watch-bookmarks-other"}})
    bookmarks: list[int] = []
    async with watch.Watch() as w:
        stream = w.stream(
            core.list_namespaced_pod,
            ns,
            resource_version=rv,
            allow_watch_bookmarks=True,
            timeout_seconds=3,
        )
        async for event in stream:
            if event["type"] == "BOOKMARK":
                bookmarks.append(int(event["raw_object"]["metadata"]["resourceVersion"]))
                break
    assert bookmarks and bookmarks[0] > int(rv)  # the namespace create moved the clock on


async def test_watch_timeout_ends_the_stream(core: client.CoreV1Api) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    async with watch.Watch() as w:
        async for _ in w.stream(core.list_namespaced_pod, "kube-public", timeout_seconds=1):
            pass
    assert 0.9 < loop.time() - start < 3


async def test_watch_from_a_future_version_is_refused(sim: KubeSim) -> None:
    # A real API server answers a version it has not reached with 504 "Too large resource
    # version" (after a kubesim restart a client's stored version is such a version).
    kube = await KubeClient.connect(str(sim.kubeconfig_path))
    try:
        _, rv = await kube.list_all(resource_for("v1", "Pod"))
        future = str(int(rv) + 1000)
        with pytest.raises(ApiError) as err:
            async for _ in kube.watch(resource_for("v1", "Pod"), resource_version=future):
                break
        assert err.value.status == 504
        assert too_large_resource_version(err.value)
        assert f"Too large resource version: {future}, current: " in err.value.message
    finally:
        await kube.close()
