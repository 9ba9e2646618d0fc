"""``--data-dir``: kill -9 kubesim, start it again on the same directory — the objects are
there, resourceVersions go on from where they were, a watch from before the crash gets 410."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from services.kubesim.process import KubeSimProcess

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]
Obj = dict[str, Any]
CONFIGMAPS = "/api/v1/namespaces/kept/configmaps"
PODS = "/api/v1/namespaces/kept/pods"
VCJOBS = "/apis/batch.volcano.sh/v1alpha1/namespaces/kept/jobs"


async def call(url: str, method: str, path: str, body: Obj | None = None) -> tuple[int, Obj]:
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, url + path, json=body) as response,
    ):
        return response.status, await response.json()


async def _running(url: str, name: str) -> bool:
    for _ in range(200):
        _, pod = await call(url, "GET", f"{PODS}/{name}")
        if (pod.get("status") or {}).get("phase") == "Running":
            return True
        await asyncio.sleep(0.05)
    return False


async def _populate(url: str) -> tuple[str, int]:
    namespace = {"metadata": {"name": "kept"}}
    assert (await call(url, "POST", "/api/v1/namespaces", namespace))[0] == 201
    code, cm = await call(url, "POST", CONFIGMAPS, {"metadata": {"name": "cm"}, "data": {"k": "v"}})
    assert code == 201
    pod = {"metadata": {"name": "runner"}, "spec": {"nodeName": "node-0", "containers": [
        {"name": "c", "image": "busybox"}]}}  # fmt: skip
    assert (await call(url, "POST", PODS, pod))[0] == 201
    template = {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "b"}]}}
    job = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "vj"},
           "spec": {"tasks": [{"name": "t", "replicas": 1, "template": template}]}}  # fmt: skip
    assert (await call(url, "POST", VCJOBS, job))[0] == 201
    assert await _running(url, "runner")
    _, listed = await call(url, "GET", "/api/v1/configmaps")
    return cm["metadata"]["uid"], int(listed["metadata"]["resourceVersion"])


async def test_kill_9_and_restart_keeps_everything(tmp_path: Path) -> None:
    args = ["--data-dir", str(tmp_path / "data"), "--nodes", "2", "--start-delay", "0.01"]
    first = KubeSimProcess(args)
    await first.start()
    try:
        uid, before = await _populate(first.url)
    finally:
        await first.kill()
        await first.stop()
    async with KubeSimProcess(args) as second:
        url = second.url
        code, cm = await call(url, "GET", f"{CONFIGMAPS}/cm")
        assert code == 200 and cm["metadata"]["uid"] == uid and cm["data"] == {"k": "v"}
        assert (await call(url, "GET", f"{VCJOBS}/vj"))[1]["spec"]["queue"] == "default"
        assert await _running(url, "runner")  # the simulated kubelet runs it again
        _, nodes = await call(url, "GET", "/api/v1/nodes")
        assert sorted(n["metadata"]["name"] for n in nodes["items"]) == ["node-0", "node-1"]
        code, created = await call(url, "POST", CONFIGMAPS, {"metadata": {"name": "after"}})
        assert code == 201 and int(created["metadata"]["resourceVersion"]) > before
        watch = f"{CONFIGMAPS}?watch=1&resourceVersion={before - 1}&timeoutSeconds=2"
        async with aiohttp.ClientSession() as session, session.get(url + watch) as response:
            event = json.loads(await response.content.readline())
        assert event["type"] == "ERROR" and event["object"]["code"] == 410


async def test_a_damaged_journal_stops_the_start_until_repair(tmp_path: Path) -> None:
    data = tmp_path / "data"
    args = ["--data-dir", str(data), "--nodes", "1"]
    first = KubeSimProcess(args)
    await first.start()
    try:
        await _populate(first.url)
    finally:
        await first.kill()
        await first.stop()
    journal = data / "journal.wal"
    raw = journal.read_bytes()
    at = raw.index(b'"data":{"k":"v"}')
    journal.write_bytes(raw[:at] + raw[at:].replace(b'"k":"v"', b'"k":"w"', 1))
    refused = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "services.kubesim", *args, stderr=asyncio.subprocess.PIPE
    )
    _, stderr_bytes = await asyncio.wait_for(refused.communicate(), 60)
    stderr = stderr_bytes.decode()
    assert refused.returncode == 2
    assert stderr.count("\n") == 1 and "Traceback" not in stderr
    assert f"journal {journal} is damaged at record " in stderr
    async with KubeSimProcess([*args, "--repair"]) as repaired:
        assert (await call(repaired.url, "GET", f"{CONFIGMAPS}/cm"))[0] == 404
        assert (await call(repaired.url, "GET", f"{VCJOBS}/vj"))[0] == 200
    assert next(data.glob("journal.damaged-*")).read_bytes().count(b'"k":"w"') == 1
