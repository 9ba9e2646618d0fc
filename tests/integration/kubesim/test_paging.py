"""A ``continue`` walk is a snapshot: pages after the first come from the state at the list's
resourceVersion, whatever changes meanwhile; a token older than kubesim's history is 410."""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest

from services.kubesim.app import KubeSim
from services.kubesim.paging import INCONSISTENT_CONTINUE

pytestmark = [pytest.mark.kubesim, pytest.mark.asyncio(loop_scope="session")]
Obj = dict[str, Any]
NS = "walk"
CMS = f"/api/v1/namespaces/{NS}/configmaps"


async def _call(
    session: aiohttp.ClientSession, url: str, method: str, path: str, body: Obj | None = None
) -> tuple[int, Obj]:
    async with session.request(method, url + path, json=body) as response:
        return response.status, await response.json()


async def _walk(sim: KubeSim) -> tuple[list[str], list[str]]:
    """The names a walk of pages of 7 returns, with deletes and creates between its pages;
    and the names after the walk."""
    url = sim.url
    async with aiohttp.ClientSession() as session:
        _, first = await _call(session, url, "GET", f"{CMS}?limit=7")
        walked = [o["metadata"]["name"] for o in first["items"]]
        token = first["metadata"].get("continue")
        step = 0
        while token:
            await _call(session, url, "DELETE", f"{CMS}/cm-{step * 3:03d}")
            await _call(session, url, "DELETE", f"{CMS}/cm-{99 - step:03d}")
            await _call(session, url, "POST", CMS, {"metadata": {"name": f"cm-{step:03d}x"}})
            await _call(session, url, "POST", CMS, {"metadata": {"name": f"zz-{step:03d}"}})
            code, page = await _call(session, url, "GET", f"{CMS}?limit=7&continue={token}")
            assert code == 200, page
            assert page["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
            walked += [o["metadata"]["name"] for o in page["items"]]
            token = page["metadata"].get("continue")
            step += 1
        _, now = await _call(session, url, "GET", CMS)
    return walked, [o["metadata"]["name"] for o in now["items"]]


async def test_a_continue_walk_returns_exactly_the_snapshot(sim: KubeSim) -> None:
    async with aiohttp.ClientSession() as session:
        await _call(session, sim.url, "POST", "/api/v1/namespaces", {"metadata": {"name": NS}})
        for i in range(100):
            code, _ = await _call(
                session, sim.url, "POST", CMS, {"metadata": {"name": f"cm-{i:03d}"}}
            )
            assert code == 201
    snapshot = [f"cm-{i:03d}" for i in range(100)]
    walked, after = await _walk(sim)
    assert walked == snapshot  # no created object, every deleted one, in key order, once
    assert after != snapshot and "zz-000" in after and "cm-000" not in after  # it did change


async def test_an_expired_token_is_410_with_a_token_for_the_rest(sim: KubeSim) -> None:
    async with aiohttp.ClientSession() as session:
        _, first = await _call(session, sim.url, "GET", f"{CMS}?limit=5")
        token = first["metadata"]["continue"]
        await _call(session, sim.url, "POST", CMS, {"metadata": {"name": "after-the-list"}})
        assert (await _call(session, sim.url, "POST", "/_sim/compact?resource=configmaps"))[
            0
        ] == 200
        code, status = await _call(session, sim.url, "GET", f"{CMS}?limit=5&continue={token}")
        assert (code, status["reason"], status["message"]) == (
            410,
            "Expired",
            INCONSISTENT_CONTINUE,
        )
        rest = status["metadata"]["continue"]
        code, page = await _call(session, sim.url, "GET", f"{CMS}?limit=5&continue={rest}")
        assert code == 200 and len(page["items"]) == 5  # the rest, at the latest version
