"""The object store: one table per resource type, a global resourceVersion, watch hubs.

Objects are plain dicts and are never mutated once stored: every change builds a new dict
(sharing unchanged subtrees), so watch history and in-flight encodings stay consistent.
All operations are synchronous, so each one is atomic on the event loop. Collaborators (the
simulated kubelet, the garbage collector) subscribe as listeners and are told about each change
after it is committed; they must defer their own writes (``loop.call_soon``) rather than nest.
"""

from __future__ import annotations

import itertools
import os
import random
import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from services.kubesim import apierrors, structural
from services.kubesim.admission import StoreView, Webhooks
from services.kubesim.defaulting import apply_defaults, decode_defaults, update_defaults
from services.kubesim.registry import Registry, ResourceType
from services.kubesim.validation import validate, validate_defaulted, validate_update
from services.kubesim.watch import Event, WatchHub
from services.webhook.core.kueue_jobs import KUEUE_DEFAULT_LOCAL_QUEUE
from shared.kube.timefmt import format_rfc3339

Obj = dict[str, Any]
Key = tuple[str, str]
_LOCAL_QUEUES = "localqueues.kueue.x-k8s.io"
_QUEUES = "queues.scheduling.volcano.sh"
_IMMUTABLE_META = ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds")
_GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


_uid_bits = random.Random(os.urandom(32))


def new_uid() -> str:
    """A random (version 4) UUID as text, like ``str(uuid.uuid4())`` at a fraction of its cost
    (no system call, no UUID object): every create needs one."""
    bits = _uid_bits.getrandbits(128)
    bits = (bits & ~(0xF000 << 64)) | (0x4000 << 64)  # version 4
    bits = (bits & ~(0xC000 << 48)) | (0x8000 << 48)  # RFC 4122 variant
    h = f"{bits:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class Listener(Protocol):
    def __call__(self, rtype: ResourceType, event: Event) -> None: ...


class Table:
    """Objects of one resource type keyed by (namespace, name), with optional field indexes."""

    def __init__(self, rtype: ResourceType, *, max_history: int) -> None:
        self.rtype = rtype
        self.objects: dict[Key, Obj] = {}
        self.hub = WatchHub(max_history=max_history)
        # pods by spec.nodeName: the kubelet's and field selectors' hot lookup.
        self.by_node: dict[str, set[Key]] | None = {} if rtype.kind == "Pod" else None

    def index(self, key: Key, old: Obj | None, new: Obj | None) -> None:
        if self.by_node is None:
            return
        before = (old or {}).get("spec", {}).get("nodeName") or ""
        after = (new or {}).get("spec", {}).get("nodeName") or ""
        if before == after and (old is None) == (new is None):
            return
        if old is not None:
            keys = self.by_node.get(before)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self.by_node[before]
        if new is not None:
            self.by_node.setdefault(after, set()).add(key)


def object_key(rtype: ResourceType, namespace: str, name: str) -> Key:
    return (namespace if rtype.namespaced else "", name)


class Store:
    """All objects of the simulated cluster."""

    def __init__(
        self,
        registry: Registry,
        *,
        max_history: int = 100_000,
        clock: Callable[[], float] = time.time,
        strict_namespaces: bool = True,
    ) -> None:
        self.registry = registry
        self.clock = clock
        self.strict_namespaces = strict_namespaces
        self.rv = 0
        # One table per resource, holding its objects in the storage version.
        self.tables = {r.key: Table(r, max_history=max_history) for r in registry.stored()}
        self.listeners: list[Listener] = []
        # The admission webhooks: mutation always (the API server's defaults as Volcano and
        # Kueue install them), validation once switched on (after the seed).
        self.webhooks = Webhooks(self._webhook_view, uid=new_uid, validating=False)
        self._suffix = itertools.count(1)
        self._cluster_ips = itertools.count(1)

    def table(self, rtype: ResourceType) -> Table:
        return self.tables[rtype.key]

    def by_kind(self, api_version: str, kind: str) -> ResourceType:
        rtype = self.registry.by_kind(api_version, kind)
        if rtype is None:
            raise apierrors.bad_request(
                f"no kind {kind!r} is registered for version {api_version!r}"
            )
        return rtype

    # ---- reads -------------------------------------------------------------------------------

    def get(self, rtype: ResourceType, namespace: str, name: str) -> Obj:
        obj = self.table(rtype).objects.get(object_key(rtype, namespace, name))
        if obj is None:
            raise apierrors.not_found(rtype.plural, rtype.group, name)
        return obj

    def find(self, rtype: ResourceType, namespace: str, name: str) -> Obj | None:
        return self.table(rtype).objects.get(object_key(rtype, namespace, name))

    def items(self, rtype: ResourceType, namespace: str | None = None) -> Iterable[Obj]:
        objects = self.table(rtype).objects.values()
        if namespace is None or not rtype.namespaced:
            return objects
        return (o for o in objects if o["metadata"].get("namespace") == namespace)

    def pods_on_node(self, node: str) -> list[Obj]:
        table = self.tables["pods"]
        assert table.by_node is not None
        return [table.objects[k] for k in table.by_node.get(node, ())]

    # ---- commit ------------------------------------------------------------------------------

    def _commit(self, rtype: ResourceType, type_: str, new: Obj, old: Obj | None) -> Obj:
        table = self.table(rtype)
        rtype = table.rtype
        self.rv += 1
        meta = dict(new["metadata"])
        meta["resourceVersion"] = str(self.rv)
        new = {**new, "metadata": meta}
        key = object_key(rtype, meta.get("namespace", ""), meta["name"])
        if type_ == "DELETED":
            table.objects.pop(key, None)
            table.index(key, old, None)
        else:
            table.objects[key] = new
            table.index(key, old, new)
        event = Event(type_, new, old, self.rv)
        table.hub.publish(event)
        for listener in self.listeners:
            listener(rtype, event)
        return new

    # ---- writes ------------------------------------------------------------------------------

    def _webhook_view(self) -> StoreView:
        def queues() -> Iterable[Obj]:
            table = self.tables.get(_QUEUES)
            return table.objects.values() if table is not None else ()

        def namespace_annotations(namespace: str) -> dict[str, str] | None:
            ns = self.tables["namespaces"].objects.get(("", namespace))
            return None if ns is None else dict(ns["metadata"].get("annotations") or {})

        return StoreView(queues, namespace_annotations, self._default_local_queue_exists)

    def _default_local_queue_exists(self, namespace: str) -> bool:
        table = self.tables.get(_LOCAL_QUEUES)
        return table is not None and (namespace, KUEUE_DEFAULT_LOCAL_QUEUE) in table.objects

    def _check_namespace(self, rtype: ResourceType, namespace: str) -> None:
        if not rtype.namespaced or not self.strict_namespaces:
            return
        ns = self.tables["namespaces"].objects.get(("", namespace))
        if ns is None:
            raise apierrors.not_found("namespaces", "", namespace)
        if ns["metadata"].get("deletionTimestamp"):
            raise apierrors.ApiError(
                403,
                f"unable to create new content in namespace {namespace} because it is being "
                "terminated",
                reason="Forbidden",
            )

    def _generate_name(self, rtype: ResourceType, namespace: str, prefix: str) -> str:
        objects = self.table(rtype).objects
        for _ in range(16):
            n = next(self._suffix) * 7919 + int(self.clock() * 1000)
            suffix = "".join(_GENERATE_ALPHABET[(n >> (4 * i)) % 27] for i in range(5))
            name = f"{prefix}{suffix}"
            if object_key(rtype, namespace, name) not in objects:
                return name
        raise apierrors.ApiError(500, "could not generate a unique name")

    def create(self, rtype: ResourceType, namespace: str, body: Obj) -> Obj:
        """Create from a freshly decoded body in the storage version (owned by the store from
        now on)."""
        rtype = self.table(rtype).rtype
        meta = body.get("metadata")
        if not isinstance(meta, dict):
            meta = body["metadata"] = {}
        if rtype.namespaced:
            if meta.get("namespace") not in (None, "", namespace):
                raise apierrors.bad_request(
                    "the namespace of the provided object does not match the namespace sent on "
                    "the request"
                )
            meta["namespace"] = namespace
        else:
            meta.pop("namespace", None)
        if not meta.get("name") and meta.get("generateName"):
            meta["name"] = self._generate_name(rtype, namespace, meta["generateName"])
        name = meta.get("name") or ""
        body["apiVersion"] = rtype.api_version
        body["kind"] = rtype.kind
        decode_defaults(rtype.api_version, rtype.kind, body)
        causes = validate(rtype.api_version, rtype.kind, body)
        if causes:
            raise apierrors.invalid(rtype.kind, rtype.group, name, causes)
        self._check_namespace(rtype, namespace)
        if object_key(rtype, namespace, name) in self.table(rtype).objects:
            raise apierrors.already_exists(rtype.plural, rtype.group, name)
        uid = new_uid()
        meta["uid"] = uid
        meta["creationTimestamp"] = format_rfc3339(self.clock())
        meta["generation"] = 1
        for field in ("resourceVersion", "deletionTimestamp", "deletionGracePeriodSeconds"):
            meta.pop(field, None)
        apply_defaults(rtype.api_version, rtype.kind, body, uid=uid, has_status=rtype.has_status)
        body = self.webhooks.mutate("CREATE", rtype, body)
        causes = structural.validate(rtype, body)
        causes += validate_defaulted(rtype.api_version, rtype.kind, body)
        if causes:
            raise apierrors.invalid(rtype.kind, rtype.group, name, causes)
        if rtype.kind == "Service" and rtype.group == "":
            self._allocate_cluster_ip(body)
        self.webhooks("CREATE", rtype, body, None)
        return self._commit(rtype, "ADDED", body, None)

    def _allocate_cluster_ip(self, obj: Obj) -> None:
        spec = obj["spec"]
        if spec.get("clusterIP") in (None, ""):
            n = next(self._cluster_ips)
            spec["clusterIP"] = f"10.96.{(n >> 8) & 255}.{n & 255}"
        if spec["clusterIP"] != "None":
            spec.setdefault("clusterIPs", [spec["clusterIP"]])

    def update(
        self, rtype: ResourceType, namespace: str, name: str, body: Obj, *, status: bool = False
    ) -> Obj:
        """PUT (or the result of a PATCH) of a storage-version body: optimistic concurrency on
        metadata.resourceVersion."""
        rtype = self.table(rtype).rtype
        old = self.get(rtype, namespace, name)
        meta = body.get("metadata")
        if not isinstance(meta, dict):
            raise apierrors.bad_request("metadata is required")
        if meta.get("name", name) != name:
            raise apierrors.bad_request(
                f"the name of the object ({meta.get('name')}) does not match the name on the URL "
                f"({name})"
            )
        wanted = meta.get("resourceVersion")
        if wanted and wanted != old["metadata"]["resourceVersion"]:
            raise apierrors.conflict(
                rtype.plural,
                rtype.group,
                name,
                "the object has been modified; please apply your changes to the latest version "
                "and try again",
            )
        if status:
            new = {**old, "status": body.get("status")}
            causes = structural.validate(rtype, new)
            if causes:
                raise apierrors.invalid(rtype.kind, rtype.group, name, causes)
            self.webhooks("UPDATE", rtype, new, old, subresource="status")
        else:
            decode_defaults(rtype.api_version, rtype.kind, body)
            update_defaults(rtype.api_version, rtype.kind, body)
            new = self._merge_update(rtype, old, body)
            causes = validate(rtype.api_version, rtype.kind, new)
            causes += structural.validate(rtype, new)
            causes += validate_defaulted(rtype.api_version, rtype.kind, new)
            causes += validate_update(rtype.api_version, rtype.kind, new, old)
            if causes:
                raise apierrors.invalid(rtype.kind, rtype.group, name, causes)
            self.webhooks("UPDATE", rtype, new, old)
        if _same_object(new, old):
            return old  # a no-op write: no new resourceVersion, no watch event (as etcd3)
        return self.replace(rtype, old, new)

    def _merge_update(self, rtype: ResourceType, old: Obj, body: Obj) -> Obj:
        old_meta = old["metadata"]
        meta = dict(body["metadata"])
        for field in ("name", "namespace", *_IMMUTABLE_META):
            if field in old_meta:
                meta[field] = old_meta[field]
            else:
                meta.pop(field, None)
        new = {**body, "metadata": meta, "apiVersion": rtype.api_version, "kind": rtype.kind}
        if rtype.has_status:
            if "status" in old:
                new["status"] = old["status"]
            else:
                new.pop("status", None)
        # As the apiextensions strategy: any change but metadata's counts, status too where it is
        # not a subresource of its own.
        ignored = ("metadata", "status") if rtype.has_status else ("metadata",)
        spec_changed = any(
            new.get(k) != old.get(k) for k in set(new) | set(old) if k not in ignored
        )
        meta["generation"] = old_meta.get("generation", 1) + (1 if spec_changed else 0)
        return new

    def replace(self, rtype: ResourceType, old: Obj, new: Obj) -> Obj:
        """Commit ``new`` over ``old``; a deleted object goes once its finalizers are gone."""
        meta = new["metadata"]
        if (
            meta.get("deletionTimestamp")
            and not meta.get("finalizers")
            and (rtype.kind != "Pod" or meta.get("deletionGracePeriodSeconds", 0) == 0)
        ):
            return self._commit(rtype, "DELETED", new, old)
        return self._commit(rtype, "MODIFIED", new, old)

    def update_status(self, rtype: ResourceType, old: Obj, status: Obj) -> Obj:
        """A controller's status write (the simulated kubelet), without a version check."""
        return self._commit(rtype, "MODIFIED", {**old, "status": status}, old)

    def delete(
        self,
        rtype: ResourceType,
        namespace: str,
        name: str,
        *,
        grace_seconds: int | None = None,
        propagation: str | None = None,
        precondition_uid: str | None = None,
        precondition_rv: str | None = None,
    ) -> tuple[Obj, bool]:
        """Delete; returns the object and whether it is gone (False: deletion is pending)."""
        old = self.get(rtype, namespace, name)
        if not old["metadata"].get("deletionTimestamp"):
            self.webhooks("DELETE", self.table(rtype).rtype, old, None)
        meta = old["metadata"]
        if precondition_uid and precondition_uid != meta["uid"]:
            raise apierrors.conflict(
                rtype.plural,
                rtype.group,
                name,
                f"Precondition failed: UID in precondition: "
                f"{precondition_uid}, UID in object meta: {meta['uid']}",
            )
        if precondition_rv and precondition_rv != meta["resourceVersion"]:
            raise apierrors.conflict(
                rtype.plural,
                rtype.group,
                name,
                "Precondition failed: ResourceVersion in "
                f"precondition: {precondition_rv}, ResourceVersion in object meta: "
                f"{meta['resourceVersion']}",
            )
        policy = propagation or rtype.default_propagation
        if policy not in ("Orphan", "Background", "Foreground"):
            raise apierrors.bad_request(f"unsupported propagationPolicy {policy!r}")
        grace = self._grace(rtype, old, grace_seconds)
        finalizers = list(meta.get("finalizers") or [])
        gc_finalizer = {"Orphan": "orphan", "Foreground": "foregroundDeletion"}.get(policy)
        if gc_finalizer and gc_finalizer not in finalizers and not meta.get("deletionTimestamp"):
            finalizers.append(gc_finalizer)
        if meta.get("deletionTimestamp"):
            current = meta.get("deletionGracePeriodSeconds", 0)
            if grace >= current:
                return old, False
        if grace == 0 and not finalizers:
            return self._commit(rtype, "DELETED", old, old), True
        new_meta = {
            **meta,
            "deletionTimestamp": format_rfc3339(self.clock() + grace),
            "deletionGracePeriodSeconds": grace,
            "finalizers": finalizers,
        }
        if not finalizers:
            del new_meta["finalizers"]
        return self._commit(rtype, "MODIFIED", {**old, "metadata": new_meta}, old), False

    def _grace(self, rtype: ResourceType, obj: Obj, requested: int | None) -> int:
        if rtype.kind != "Pod" or rtype.group:
            return 0
        if requested is not None and requested < 0:
            raise apierrors.bad_request("gracePeriodSeconds must be >= 0")
        spec = obj.get("spec", {})
        if not spec.get("nodeName") or obj.get("status", {}).get("phase") in (
            "Succeeded",
            "Failed",
        ):
            return 0
        if requested is not None:
            return requested
        return int(spec.get("terminationGracePeriodSeconds", 30))

    def bind(self, namespace: str, name: str, node: str, annotations: dict[str, str]) -> Obj:
        pods = self.tables["pods"].rtype
        old = self.get(pods, namespace, name)
        if old["metadata"].get("deletionTimestamp"):
            raise apierrors.conflict(
                "pods", "", name, "pod is being deleted, cannot be assigned to a host"
            )
        bound = old["spec"].get("nodeName")
        if bound:
            raise apierrors.conflict(
                "pods", "", name, f"pod {name} is already assigned to node {bound!r}"
            )
        meta = old["metadata"]
        if annotations:
            meta = {**meta, "annotations": {**(meta.get("annotations") or {}), **annotations}}
        now = format_rfc3339(self.clock())
        status = dict(old.get("status") or {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "PodScheduled"]
        conditions.append(
            {
                "type": "PodScheduled",
                "status": "True",
                "lastProbeTime": None,
                "lastTransitionTime": now,
            }
        )
        status["conditions"] = conditions
        new = {**old, "metadata": meta, "spec": {**old["spec"], "nodeName": node}, "status": status}
        return self._commit(pods, "MODIFIED", new, old)


def _same_object(new: Obj, old: Obj) -> bool:
    """Whether an update changes nothing but the resourceVersion it was sent with."""
    if new.keys() != old.keys():
        return False
    if any(new[k] != old[k] for k in new if k != "metadata"):
        return False
    new_meta, old_meta = new["metadata"], old["metadata"]
    keys = (new_meta.keys() | old_meta.keys()) - {"resourceVersion"}
    return all(new_meta.get(k) == old_meta.get(k) for k in keys)
