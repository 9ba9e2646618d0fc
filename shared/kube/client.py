"""A thin asynchronous Kubernetes client over kubernetes_asyncio's ApiClient.

It speaks raw JSON (no generated model classes) because Shoal passes objects through to Kafka as
they are and decodes them with msgspec; kubernetes_asyncio still provides configuration
(kubeconfig or in-cluster) and authentication. Calls with a whole response go over a lean
HTTP/1.1 pool (``transport``), watches over kubernetes_asyncio's aiohttp session, read a chunk
at a time (``watchlines``). Errors become ``ApiError`` with the Status reason and code, so
callers can treat 404/409/410 as the facts they are.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import aiohttp
import msgspec
from kubernetes_asyncio import client as k8s
from kubernetes_asyncio import config as k8s_config

from shared.kube.resources import ResourceType
from shared.kube.transport import pool_for
from shared.kube.watchlines import READ_BUFSIZE, lines, watch_line_decoder

Json = dict[str, Any]
_decoder = msgspec.json.Decoder()
_encoder = msgspec.json.Encoder()
# Characters a request path keeps as they are (RFC 3986 pchar and "/"; "%" for escapes).
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
PATCH_TYPES = {
    "merge": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "json": "application/json-patch+json",
}


class ApiError(Exception):
    """A non-2xx answer from the API server, with its Status fields."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(f"{status} {reason}: {message}")
        self.status = status
        self.reason = reason
        self.message = message


class WatchExpired(ApiError):
    """410 Gone: the requested resourceVersion is older than the server keeps; re-list."""


async def load_api_client(kubeconfig: str | None = None) -> k8s.ApiClient:
    """An ApiClient from a kubeconfig file, or from the in-cluster service account."""
    configuration = k8s.Configuration()
    if kubeconfig:
        await k8s_config.load_kube_config(
            config_file=kubeconfig, client_configuration=configuration
        )
    else:
        try:
            k8s_config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
        except k8s_config.ConfigException:
            await k8s_config.load_kube_config(client_configuration=configuration)
    api = k8s.ApiClient(configuration)
    # kubernetes_asyncio's session trusts the environment, so every request looks up proxy
    # settings and parses ~/.netrc in a thread: a quarter of the job controller's CPU, and it
    # serialises requests. Proxies come from the kubeconfig (configuration.proxy) instead.
    rest = api.rest_client
    trusting = rest.pool_manager
    rest.pool_manager = aiohttp.ClientSession(
        connector=trusting.connector, trust_env=False, read_bufsize=READ_BUFSIZE
    )
    trusting.detach()
    return api


@functools.lru_cache(maxsize=64)
def _timeout(total: float | None) -> aiohttp.ClientTimeout:
    """One (immutable) ClientTimeout per distinct value, not one per request."""
    return aiohttp.ClientTimeout(total=total)


async def _error_of(response: aiohttp.ClientResponse) -> ApiError:
    return _error_from(response.status, response.reason or "", await response.read())


def _error_from(code: int, reason: str, body: bytes) -> ApiError:
    """The ApiError of a non-2xx answer, with its Status body's reason and message."""
    message = body.decode(errors="replace")[:500]
    try:
        status = _decoder.decode(body)
        if isinstance(status, dict):
            reason = str(status.get("reason") or reason)
            message = str(status.get("message") or message)
    except msgspec.DecodeError:
        pass
    cls = WatchExpired if code == 410 else ApiError
    return cls(code, reason, message)


class KubeClient:
    """JSON-in, JSON-out verbs on any ResourceType."""

    def __init__(self, api_client: k8s.ApiClient) -> None:
        self._api = api_client
        # Calls with a whole JSON response go through the lean pool; watches through aiohttp.
        # ``None``: every call on aiohttp's session (``shoal bench client`` compares the two).
        self.lean_pool = pool_for(api_client)
        self._base_path = urlsplit(api_client.configuration.host or "").path.rstrip("/")

    @classmethod
    async def connect(cls, kubeconfig: str | None = None) -> KubeClient:
        return cls(await load_api_client(kubeconfig))

    async def close(self) -> None:
        if self.lean_pool is not None:
            await self.lean_pool.close()
        await self._api.close()

    async def _call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        request_timeout: float | None = 30.0,
    ) -> aiohttp.ClientResponse:
        """One request on kubernetes_asyncio's session, with its configuration (host, TLS,
        proxy) and its authentication (a token refreshed as its own calls do), but without its
        per-call model serialisation: our bodies are plain JSON already, and walking each one
        (``sanitize_for_serialization``, then ``json.dumps``) cost more CPU than the request."""
        api = self._api
        headers = {
            **api.default_headers,
            "Accept": "application/json",
            "Content-Type": content_type,
        }
        params = [(k, v) for k, v in (query or {}).items() if v is not None]
        await api.update_params_for_auth(headers, params, ["BearerToken"])
        url = (api.configuration.host or "") + path
        if params:
            url += "?" + urlencode(params)
        rest = api.rest_client
        extra: dict[str, Any] = {}
        if rest.proxy:
            extra["proxy"] = rest.proxy
            if rest.proxy_headers:
                extra["proxy_headers"] = rest.proxy_headers
        if rest.server_hostname:
            extra["server_hostname"] = rest.server_hostname
        response: aiohttp.ClientResponse = await rest.pool_manager.request(
            method,
            url,
            headers=headers,
            data=None if body is None else _encoder.encode(body),
            timeout=_timeout(request_timeout),
            **extra,
        )
        if response.status >= 300:
            error = await _error_of(response)
            response.release()
            raise error
        return response

    async def _send(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        request_timeout: float | None = 30.0,
    ) -> bytes:
        """One call with a whole response: its body, or ApiError for a status >= 300. The
        same headers, authentication and body as ``_call``, on the lean pool when there is
        one (``shared.kube.transport``)."""
        if self.lean_pool is None:
            response = await self._call(
                method,
                path,
                query=query,
                body=body,
                content_type=content_type,
                request_timeout=request_timeout,
            )
            try:
                return await response.read()
            finally:
                response.release()
        api = self._api
        headers = {
            **api.default_headers,
            "Accept": "application/json",
            "Content-Type": content_type,
        }
        params = [(k, v) for k, v in (query or {}).items() if v is not None]
        await api.update_params_for_auth(headers, params, ["BearerToken"])
        target = quote(self._base_path + path, safe=_PATH_SAFE)
        if params:
            target += "?" + urlencode(params)
        data = None if body is None else _encoder.encode(body)
        pool = self.lean_pool
        answer = await pool.request(method, target, headers, data, timeout=request_timeout)
        if answer.status >= 300:
            raise _error_from(answer.status, answer.reason, answer.body)
        return answer.body

    async def _json(self, method: str, path: str, **kwargs: Any) -> Json:
        data: Json = _decoder.decode(await self._send(method, path, **kwargs))
        return data

    async def list_page(
        self,
        rt: ResourceType,
        *,
        namespace: str | None = None,
        limit: int = 500,
        continue_token: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
    ) -> Json:
        query = {
            "limit": limit,
            "continue": continue_token,
            "labelSelector": label_selector,
            "fieldSelector": field_selector,
        }
        page = await self._json("GET", rt.collection_path(namespace), query=query)
        # kube-apiserver leaves apiVersion and kind out of the items of a built-in type's list
        # (they are the list's, less "List"); every consumer here reads them off the object.
        for item in page.get("items") or ():
            if isinstance(item, dict):
                item.setdefault("apiVersion", rt.api_version)
                item.setdefault("kind", rt.kind)
        return page

    async def list_all(self, rt: ResourceType, **kwargs: Any) -> tuple[list[Json], str]:
        """Every object (following ``continue``) and the list's resourceVersion."""
        items: list[Json] = []
        token: str | None = None
        while True:
            page = await self.list_page(rt, continue_token=token, **kwargs)
            items.extend(page.get("items") or [])
            meta = page.get("metadata") or {}
            token = meta.get("continue") or None
            if not token:
                return items, str(meta.get("resourceVersion", ""))

    async def watch(
        self,
        rt: ResourceType,
        *,
        resource_version: str,
        timeout_seconds: int = 300,
        inactivity_timeout: float = 60.0,
        namespace: str | None = None,
    ) -> AsyncIterator[tuple[str, Json]]:
        """Yield (type, object) from a watch; raise WatchExpired on 410; stop when the stream
        ends or stays silent longer than ``inactivity_timeout`` (a frozen watch)."""
        async for kind, raw in self.watch_raw(
            rt,
            resource_version=resource_version,
            timeout_seconds=timeout_seconds,
            inactivity_timeout=inactivity_timeout,
            namespace=namespace,
        ):
            obj = _decoder.decode(raw)
            yield kind, obj if isinstance(obj, dict) else {}

    async def watch_raw(
        self,
        rt: ResourceType,
        *,
        resource_version: str,
        timeout_seconds: int = 300,
        inactivity_timeout: float = 60.0,
        namespace: str | None = None,
    ) -> AsyncIterator[tuple[str, msgspec.Raw]]:
        """``watch`` with each object left as its JSON (for a caller that passes it on).

        The stream is read a chunk at a time (one timer per chunk, not per line: a burst of
        events arrives many lines per chunk); a line longer than ``MAX_WATCH_LINE`` raises
        ValueError, as aiohttp's ``readline`` does past its limit."""
        query = {
            "watch": "true",
            "resourceVersion": resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": timeout_seconds,
        }
        response = await self._call(
            "GET", rt.collection_path(namespace), query=query, request_timeout=timeout_seconds + 30
        )
        try:
            async for line in lines(response.content, inactivity_timeout):
                if not line.strip():
                    continue
                event = watch_line_decoder.decode(line)
                if event.type == "ERROR":
                    status = _decoder.decode(event.object)
                    status = status if isinstance(status, dict) else {}
                    code = int(status.get("code", 500))
                    cls = WatchExpired if code == 410 else ApiError
                    raise cls(code, str(status.get("reason", "")), str(status.get("message", "")))
                yield event.type, event.object
        finally:
            response.release()

    async def get_path(self, path: str) -> bytes:
        """GET a path that is no resource (``/metrics``, ``/readyz``): the body as sent."""
        return await self._send("GET", path)

    async def get(self, rt: ResourceType, name: str, namespace: str | None = None) -> Json:
        return await self._json("GET", rt.object_path(name, namespace))

    async def create(self, rt: ResourceType, obj: Json, namespace: str | None = None) -> Json:
        ns = namespace or (obj.get("metadata") or {}).get("namespace")
        return await self._json("POST", rt.collection_path(ns), body=obj)

    async def create_unread(
        self, rt: ResourceType, obj: Json, namespace: str | None = None
    ) -> None:
        """``create`` for a caller that does not read the created object back: the response
        is not decoded (a pod's is a few kilobytes of JSON, and a burst creates thousands)."""
        ns = namespace or (obj.get("metadata") or {}).get("namespace")
        await self._send("POST", rt.collection_path(ns), body=obj)

    async def replace(self, rt: ResourceType, obj: Json, *, subresource: str = "") -> Json:
        meta = obj.get("metadata") or {}
        path = rt.object_path(meta["name"], meta.get("namespace"), subresource)
        return await self._json("PUT", path, body=obj)

    async def patch(
        self,
        rt: ResourceType,
        name: str,
        patch: Any,
        *,
        namespace: str | None = None,
        patch_type: str = "merge",
        subresource: str = "",
    ) -> Json:
        path = rt.object_path(name, namespace, subresource)
        return await self._json("PATCH", path, body=patch, content_type=PATCH_TYPES[patch_type])

    async def delete(
        self,
        rt: ResourceType,
        name: str,
        namespace: str | None = None,
        *,
        grace_period_seconds: int | None = None,
        propagation_policy: str | None = None,
        uid: str | None = None,
    ) -> Json:
        body: Json = {"kind": "DeleteOptions", "apiVersion": "v1"}
        if grace_period_seconds is not None:
            body["gracePeriodSeconds"] = grace_period_seconds
        if propagation_policy:
            body["propagationPolicy"] = propagation_policy
        if uid:
            body["preconditions"] = {"uid": uid}
        return await self._json("DELETE", rt.object_path(name, namespace), body=body)

    async def bind(self, namespace: str, pod: str, node: str, *, uid: str | None = None) -> None:
        binding: Json = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": pod, "namespace": namespace},
            "target": {"apiVersion": "v1", "kind": "Node", "name": node},
        }
        if uid:
            binding["metadata"]["uid"] = uid
        path = f"/api/v1/namespaces/{namespace}/pods/{pod}/binding"
        await self._send("POST", path, body=binding)

    async def evict(self, namespace: str, pod: str, *, uid: str | None = None) -> None:
        eviction: Json = {
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": {"name": pod, "namespace": namespace},
        }
        if uid:
            eviction["deleteOptions"] = {"preconditions": {"uid": uid}}
        path = f"/api/v1/namespaces/{namespace}/pods/{pod}/eviction"
        await self._send("POST", path, body=eviction)
