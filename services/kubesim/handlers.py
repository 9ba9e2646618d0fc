"""HTTP handlers for the Kubernetes REST verbs over the store.

One catch-all route resolves the path (``routing``), applies injected faults, and dispatches on
(method, target). Bodies are decoded and encoded with msgspec; errors become Status bodies.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgspec

from services.kubesim import apierrors, structural, tables
from services.kubesim.apierrors import ApiError
from services.kubesim.apiwarnings import Collecting, header_value, warn
from services.kubesim.bodies import read_body
from services.kubesim.conversion import from_storage, to_storage
from services.kubesim.discovery import Discovery
from services.kubesim.faults import Faults
from services.kubesim.http_messages import STREAMED, Request, Response
from services.kubesim.logs import simulated_log
from services.kubesim.paging import decode_continue, page, single_node_selector, snapshot
from services.kubesim.patch import PatchError, json_patch, strategic_merge_patch
from services.kubesim.registry import ResourceType
from services.kubesim.routing import GroupVersion, Target, is_true, resolve
from services.kubesim.selectors import (
    SelectorError,
    combine,
    parse_field_selector,
    parse_label_selector,
)
from services.kubesim.store import Store
from services.kubesim.streaming import WatchSettings, serve_watch
from services.kubesim.subresources import bind, evict
from services.kubesim.watch import Render
from shared.kube.patch import merge_patch

Obj = dict[str, Any]
Predicate = Any
_encode = msgspec.json.encode
_decode = msgspec.json.decode
_JSON = "application/json"
_OPENAPI_PB = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
_PATCH_TYPES = {
    "application/merge-patch+json": "merge",
    "application/strategic-merge-patch+json": "strategic",
    "application/json-patch+json": "json",
}


def respond(body: Any, status: int = 200) -> Response:
    return Response(body if isinstance(body, bytes) else _encode(body), status=status)


def _int_param(query: Any, name: str) -> int | None:
    raw = query.get(name)
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError as exc:
        raise apierrors.bad_request(f"{name} must be an integer, got {raw!r}") from exc


_TYPE_FIELDS = ("apiVersion", "kind")


class ApiHandler:
    """The REST surface: discovery, CRUD, subresources, watch."""

    def __init__(
        self, store: Store, faults: Faults, discovery: Discovery, watch: WatchSettings
    ) -> None:
        self.store = store
        self.faults = faults
        self.discovery = discovery
        self.watch_settings = watch

    async def __call__(self, request: Request) -> Response:
        try:
            return await self._handle(request)
        except ApiError as exc:
            return respond(exc.status(), exc.code)

    async def _handle(self, request: Request) -> Response:
        path = request.path
        if path == "/openapi/v2" and "protobuf" in request.headers.get("Accept", ""):
            return Response(self.discovery.openapi_v2_protobuf, content_type=_OPENAPI_PB)
        static = self._static(path)
        if static is not None:
            return respond(static)
        resolved = resolve(self.store.registry, path)
        if isinstance(resolved, GroupVersion):
            body = self.discovery.resource_lists.get((resolved.group, resolved.version))
            if body is None:
                raise ApiError(404, f"the server could not find the requested resource ({path})")
            return respond(body)
        with Collecting() as warnings:
            if resolved.rtype.deprecation_warning:
                warn(resolved.rtype.deprecation_warning)
            try:
                response = await self._serve(request, resolved)
            except ApiError as exc:
                response = respond(exc.status(), exc.code)
            if warnings and response is not STREAMED:
                response.headers += [("Warning", header_value(text)) for text in warnings]
        return response

    async def _serve(self, request: Request, target: Target) -> Response:
        query = request.query
        verb = self._verb(request.method, target, query)
        if self.faults.active:
            await self._inject(target, verb)
        if verb == "watch":
            return await self._watch(request, target)
        if verb == "get" and target.subresource == "log":
            pod = self.store.get(target.rtype, self._namespace(target), target.name)
            text = simulated_log(pod, request.query.get("container"))
            return Response(text.encode(), content_type="text/plain; charset=utf-8")
        if verb == "get":
            return self._get(request, target)
        if verb == "list":
            return self._list(request, target)
        body = read_body(request, json_only=verb not in ("create", "update"))
        if verb == "create":
            return self._create(target, body, query)
        if verb == "update":
            return self._update(target, body, query)
        if verb == "patch":
            return self._patch(request, target, body)
        if verb == "delete":
            return self._delete(target, query, body)
        return self._delete_collection(request, target, body)

    def _static(self, path: str) -> bytes | None:
        if path.count("/") > 3 and not path.startswith("/openapi/"):
            return None  # an API path below a group-version (nearly every request)
        d = self.discovery
        if path in ("/api", "/api/"):
            return d.core_versions
        if path in ("/apis", "/apis/"):
            return d.group_list
        if path == "/version":
            return d.version
        if path == "/openapi/v3":
            return d.openapi_v3_root
        if path.startswith("/openapi/v3/"):
            body = d.openapi_v3.get(path[len("/openapi/v3/") :])
            if body is None:
                raise ApiError(404, f"the server could not find the requested resource ({path})")
            return body
        if path == "/openapi/v2":
            return d.openapi_v2
        parts = path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "apis":
            body = d.groups.get(parts[1])
            if body is None:
                raise ApiError(404, f"the server could not find the requested resource ({path})")
            return body
        return None

    @staticmethod
    def _verb(method: str, target: Target, query: Any) -> str:
        rtype = target.rtype
        if rtype.create_only and method != "POST":
            raise ApiError(405, f"the server does not allow this method on {rtype.plural}")
        if method == "GET":
            if is_true(query.get("watch")):
                return "watch"
            return "get" if target.name else "list"
        if method == "POST" and (not target.name or target.subresource in ("binding", "eviction")):
            return "create"
        if (
            target.name
            and method in ("PUT", "PATCH", "DELETE")
            and target.subresource not in ("binding", "eviction", "log")
        ):
            return {"PUT": "update", "PATCH": "patch", "DELETE": "delete"}[method]
        if method == "DELETE" and not target.name:
            return "deletecollection"
        raise ApiError(405, "the server does not allow this method on the requested resource")

    async def _inject(self, target: Target, verb: str) -> None:
        resource = target.rtype.plural
        if target.subresource:
            resource = f"{resource}/{target.subresource}"
        latency, rule = self.faults.decide(resource, verb)
        if latency:
            await asyncio.sleep(latency)
        if rule is not None:
            raise ApiError(rule.code, rule.message)

    def _namespace(self, target: Target) -> str:
        if not target.rtype.namespaced:
            return ""
        if target.namespace is None:
            raise apierrors.bad_request("a namespace is required for a namespaced resource")
        return target.namespace

    # ---- reads -------------------------------------------------------------------------------

    def _get(self, request: Request, target: Target) -> Response:
        obj = from_storage(
            target.rtype, self.store.get(target.rtype, self._namespace(target), target.name)
        )
        if tables.wants_table(request.headers.get("Accept", "")):
            rv = obj["metadata"]["resourceVersion"]
            return respond(tables.table(target.rtype, [obj], rv, time.time()))
        return respond(obj)

    def _predicate(self, query: Any, rtype: ResourceType) -> Predicate:
        try:
            labels = parse_label_selector(query.get("labelSelector", ""))
            fields = parse_field_selector(query.get("fieldSelector", ""), rtype.kind)
        except SelectorError as exc:
            raise apierrors.bad_request(str(exc)) from exc
        return combine(labels, fields)

    def _candidates(self, target: Target, query: Any) -> list[Obj]:
        rtype = target.rtype
        node = single_node_selector(query.get("fieldSelector", ""))
        if node is not None and rtype.kind == "Pod" and not rtype.group:
            objects = self.store.pods_on_node(node)
            if target.namespace is not None:
                return [o for o in objects if o["metadata"].get("namespace") == target.namespace]
            return objects
        return list(self.store.items(rtype, target.namespace))

    def _list(self, request: Request, target: Target) -> Response:
        rtype = target.rtype
        query = request.query
        predicate = self._predicate(query, rtype)
        token = query.get("continue", "")
        after = ""
        if token:  # the next page of a list: cut from the state at its version
            at = decode_continue(token, query.get("resourceVersion", ""))
            objects = snapshot(self.store, rtype, target.namespace, at)
            rv = str(self.store.rv if at.rv < 0 else at.rv)
            after = at.start
        else:
            objects = self._candidates(target, query)
            rv = str(self.store.rv)
        if predicate is not None:
            objects = [o for o in objects if predicate(o)]
        metadata: Obj = {"resourceVersion": rv}
        limit = _int_param(query, "limit")
        if limit or token:
            namespaced_list = target.namespace is not None
            objects, metadata = page(
                objects, limit or 0, after, rv, namespaced_list=namespaced_list
            )
        objects = [from_storage(rtype, o) for o in objects]
        if tables.wants_table(request.headers.get("Accept", "")):
            body = tables.table(rtype, objects, metadata["resourceVersion"], time.time())
            body["metadata"] = metadata
            return respond(body)
        if rtype.builtin:
            # As kube-apiserver: a built-in type's list items carry no apiVersion or kind.
            objects = [{k: v for k, v in o.items() if k not in _TYPE_FIELDS} for o in objects]
        return respond(
            {
                "kind": f"{rtype.kind}List",
                "apiVersion": rtype.api_version,
                "metadata": metadata,
                "items": objects,
            }
        )

    async def _watch(self, request: Request, target: Target) -> Response:
        predicate = self._predicate(request.query, target.rtype)
        render = None
        if tables.wants_table(request.headers.get("Accept", "")):
            render = tables.table_renderer(target.rtype)
        if target.rtype.stored_as != target.rtype.version:
            render = _converting(target.rtype, render)
        return await serve_watch(
            request,
            store=self.store,
            rtype=target.rtype,
            namespace=target.namespace if target.rtype.namespaced else None,
            predicate=predicate,
            render=render,
            faults=self.faults,
            settings=self.watch_settings,
        )

    # ---- writes ------------------------------------------------------------------------------

    def _create(self, target: Target, body: Any, query: Any) -> Response:
        if not isinstance(body, dict):
            raise apierrors.bad_request("the request body must be a JSON object")
        rtype = target.rtype
        if target.subresource == "binding" or rtype.create_only:
            bind(self.store, target.rtype, self._namespace(target), target.name, body)
            return respond(apierrors.success(201), 201)
        if target.subresource == "eviction":
            evict(self.store, target.rtype, self._namespace(target), target.name, body)
            return respond(apierrors.success(201), 201)
        kind = body.get("kind")
        if kind and kind != rtype.kind:
            raise apierrors.bad_request(f"the body kind {kind!r} does not match {rtype.kind!r}")
        structural.decode(rtype, body, query.get("fieldValidation", "Warn"))
        created = self.store.create(rtype, self._namespace(target), to_storage(rtype, body))
        return respond(from_storage(rtype, created), 201)

    def _update(self, target: Target, body: Any, query: Any) -> Response:
        if not isinstance(body, dict):
            raise apierrors.bad_request("the request body must be a JSON object")
        rtype = target.rtype
        status = target.subresource == "status"
        structural.decode(rtype, body, query.get("fieldValidation", "Warn"))
        obj = self.store.update(
            rtype, self._namespace(target), target.name, to_storage(rtype, body), status=status
        )
        return respond(from_storage(rtype, obj))

    def _patch(self, request: Request, target: Target, patch: Any) -> Response:
        rtype = target.rtype
        content_type = request.content_type
        kind = _PATCH_TYPES.get(content_type)
        accepted = [t for t, k in _PATCH_TYPES.items() if rtype.builtin or k != "strategic"]
        if kind is None or (kind == "strategic" and not rtype.builtin):
            raise ApiError(
                415,
                "the body of the request was in an unknown format - accepted media types "
                f"include: {', '.join(accepted)}",
            )
        namespace = self._namespace(target)
        current = from_storage(rtype, self.store.get(rtype, namespace, target.name))
        if kind != "json" and not isinstance(patch, dict):
            raise apierrors.bad_request("a merge patch must be a JSON object")
        try:
            if kind == "merge":
                patched = merge_patch(current, patch)
            elif kind == "strategic":
                patched = strategic_merge_patch(current, patch)
            else:
                patched = json_patch(current, patch)
        except PatchError as exc:
            if exc.code == 422:
                raise apierrors.invalid(
                    rtype.kind, rtype.group, target.name, [("", "FieldValueInvalid", str(exc))]
                ) from exc
            raise apierrors.bad_request(str(exc)) from exc
        if not isinstance(patched, dict) or not isinstance(patched.get("metadata"), dict):
            raise apierrors.bad_request("the patch removed the object's metadata")
        # A resourceVersion in the patch is a precondition; otherwise apply to the current one.
        wanted = (patch.get("metadata") or {}).get("resourceVersion") if kind != "json" else None
        patched["metadata"] = {
            **patched["metadata"],
            "resourceVersion": wanted or current["metadata"]["resourceVersion"],
        }
        status = target.subresource == "status"
        structural.decode(rtype, patched, request.query.get("fieldValidation", "Warn"))
        obj = self.store.update(
            rtype, namespace, target.name, to_storage(rtype, patched), status=status
        )
        return respond(from_storage(rtype, obj))

    def _delete(self, target: Target, query: Any, body: Any) -> Response:
        options = body if isinstance(body, dict) else {}
        preconditions = options.get("preconditions") or {}
        grace = _int_param(query, "gracePeriodSeconds")
        if grace is None:
            grace = options.get("gracePeriodSeconds")
        propagation = query.get("propagationPolicy") or options.get("propagationPolicy")
        if propagation is None and (
            is_true(query.get("orphanDependents")) or options.get("orphanDependents") is True
        ):
            propagation = "Orphan"
        rtype = target.rtype
        namespace = self._namespace(target)
        if rtype.kind == "Namespace" and not rtype.group:
            self._empty_namespace(target.name)
        obj, _ = self.store.delete(
            rtype,
            namespace,
            target.name,
            grace_seconds=grace,
            propagation=propagation,
            precondition_uid=preconditions.get("uid"),
            precondition_rv=preconditions.get("resourceVersion"),
        )
        return respond(from_storage(rtype, obj))

    def _empty_namespace(self, namespace: str) -> None:
        """Deleting a namespace deletes what it contains (done at once, not in the background)."""
        self.store.get(self.store.tables["namespaces"].rtype, "", namespace)
        for table in self.store.tables.values():
            if not table.rtype.namespaced:
                continue
            for obj in list(self.store.items(table.rtype, namespace)):
                try:
                    self.store.delete(table.rtype, namespace, obj["metadata"]["name"])
                except ApiError:
                    continue

    def _delete_collection(self, request: Request, target: Target, body: Any) -> Response:
        rtype = target.rtype
        predicate = self._predicate(request.query, rtype)
        options = body if isinstance(body, dict) else {}
        deleted = []
        for obj in list(self.store.items(rtype, target.namespace)):
            if predicate is not None and not predicate(obj):
                continue
            meta = obj["metadata"]
            try:
                gone, _ = self.store.delete(
                    rtype,
                    meta.get("namespace", ""),
                    meta["name"],
                    grace_seconds=options.get("gracePeriodSeconds"),
                    propagation=options.get("propagationPolicy"),
                )
            except ApiError:
                continue
            deleted.append(from_storage(rtype, gone))
        return respond(
            {
                "kind": f"{rtype.kind}List",
                "apiVersion": rtype.api_version,
                "metadata": {"resourceVersion": str(self.store.rv)},
                "items": deleted,
            }
        )


def _converting(rtype: ResourceType, render: Render | None) -> Render:
    """A watch renderer that shows stored objects in ``rtype``'s version."""

    def convert(type_: str, obj: Obj) -> bytes:
        shown = from_storage(rtype, obj)
        return render(type_, shown) if render is not None else _encode(shown)

    return convert
