"""List pages (``limit``/``continue``) served from one snapshot, and the ``spec.nodeName`` fast
path.

A paged list is consistent as kube-apiserver's (an etcd range read at the first page's
revision): the continue token carries the list's resourceVersion and the next key, in
kube-apiserver's own encoding (``storage.EncodeContinue``: unpadded base64url of
``{"v":"meta.k8s.io/v1","rv":N,"start":"<key>\\x00"}``), and each later page is cut from the
state at that version. kubesim has no MVCC store: it rebuilds that state from the current
objects by undoing the resource's watch history back to the version, so a version older than
the history (``WatchHub.compacted_rv``: trimmed, ``/_sim/compact``, a restart) is what etcd
calls compacted, and gets 410 Expired with kube-apiserver's message and a token that goes on
at the latest version. Tokens are refused as ``storage.DecodeContinue`` refuses them (400
``invalid continue token: ...``); a version newer than any is etcd's future-revision error,
which kube-apiserver passes on as a 500.
"""

from __future__ import annotations

import base64
import binascii
import heapq
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from services.kubesim import apierrors
from services.kubesim.apierrors import ApiError
from services.kubesim.registry import ResourceType
from services.kubesim.store import Key, Store, object_key

Obj = dict[str, Any]
_API_VERSION = "meta.k8s.io/v1"
_INVALID = "continue key is not valid"
# staging/src/k8s.io/apiserver/pkg/storage/etcd3/errors.go
INCONSISTENT_CONTINUE = (
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this "
    "response to retrieve the remainder of the results. Continuing with the provided token "
    "results in an inconsistent list - objects that were created, modified, or deleted between "
    "the time the first chunk was returned and now may show up in the list."
)
FUTURE_REVISION = "etcdserver: mvcc: required revision is a future revision"


class _Token(msgspec.Struct):
    v: str = ""
    rv: int = 0
    start: str = ""


_encode_token = msgspec.json.Encoder().encode
_decode_token = msgspec.json.Decoder(_Token).decode


def single_node_selector(text: str) -> str | None:
    """The node name of a field selector that is exactly ``spec.nodeName=<node>``."""
    if "," in text or "!" in text:
        return None
    path, sep, value = text.replace("==", "=").partition("=")
    if sep and path.strip() == "spec.nodeName" and value.strip():
        return value.strip()
    return None


@dataclass(frozen=True, slots=True)
class Continue:
    """A decoded continue token: the list's version (-1: the latest) and the first key."""

    rv: int
    start: str


def encode_continue(rv: int, start: str) -> str:
    raw = _encode_token(_Token(v=_API_VERSION, rv=rv, start=start))
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _invalid(detail: str) -> ApiError:
    return apierrors.bad_request(f"invalid continue token: {detail}")


def decode_continue(token: str, resource_version: str) -> Continue:
    """``storage.DecodeContinue`` and the checks of the etcd3 store's GetList."""
    try:
        padded = token + "=" * (-len(token) % 4)
        if "=" in token:
            raise binascii.Error(f"illegal base64 data at input byte {token.index('=')}")
        data = base64.urlsafe_b64decode(padded.encode("ascii"))
        decoded = _decode_token(data)
    except (binascii.Error, ValueError, msgspec.DecodeError) as exc:
        raise _invalid(f"{_INVALID}: {exc}") from exc
    if decoded.v != _API_VERSION:
        raise _invalid(f"{_INVALID}: server does not recognize this encoded version {decoded.v}")
    if decoded.rv == 0:
        raise _invalid(
            f"{_INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)"
        )
    if not decoded.start:
        raise _invalid(f"{_INVALID}: encoded start key empty (version meta.k8s.io/v1)")
    key = decoded.start if decoded.start.startswith("/") else "/" + decoded.start
    if posixpath.normpath(key) != key:  # Go's path.Clean: no climbing out of the list's range
        raise _invalid(f"{_INVALID}: {decoded.start}")
    if resource_version not in ("", "0"):
        raise apierrors.bad_request(
            "specifying resource version is not allowed when using continue"
        )
    return Continue(decoded.rv, decoded.start)


class _Expired(ApiError):
    """410 Expired whose Status carries a token that goes on at the latest version
    (``handleCompactedErrorForPaging``)."""

    def __init__(self, start: str) -> None:
        super().__init__(410, INCONSISTENT_CONTINUE, reason="Expired")
        self.token = encode_continue(-1, start)

    def status(self) -> dict[str, Any]:
        body = super().status()
        body["metadata"] = {"continue": self.token}
        return body


class _FutureRevision(ApiError):
    """etcd's error, which kube-apiserver answers as a 500 without a reason."""

    def __init__(self) -> None:
        super().__init__(500, FUTURE_REVISION)

    def status(self) -> dict[str, Any]:
        body = super().status()
        del body["reason"]
        return body


def _sort_key(o: Obj, namespaced_list: bool) -> str:
    meta = o["metadata"]
    namespace = meta.get("namespace", "")
    if namespace and not namespaced_list:
        return f"{namespace}/{meta['name']}"
    return str(meta["name"])


def snapshot(store: Store, rtype: ResourceType, namespace: str | None, at: Continue) -> list[Obj]:
    """The objects of ``rtype`` (in ``namespace``) as they were at the token's version: the
    current ones with every later change undone. 410 when the history no longer reaches back
    to it; a version of -1 is the latest."""
    table = store.table(rtype)
    hub = table.hub
    rv = store.rv if at.rv < 0 else at.rv
    if rv > store.rv:
        raise _FutureRevision()
    if rv < hub.compacted_rv:
        raise _Expired(at.start)
    objects: dict[Key, Obj] = dict(table.objects)
    for event in reversed(hub.since(rv)):
        meta = event.obj["metadata"]
        key = object_key(rtype, meta.get("namespace", ""), meta["name"])
        if event.old is None:
            objects.pop(key, None)
        else:
            objects[key] = event.old
    values: Iterable[Obj] = objects.values()
    if namespace is not None and rtype.namespaced:
        values = (o for o in values if o["metadata"].get("namespace") == namespace)
    return list(values)


def page(
    objects: list[Obj], limit: int, after: str, rv: str, *, namespaced_list: bool
) -> tuple[list[Obj], Obj]:
    """One page in key order (``namespace/name``, or ``name`` within a namespace) starting
    after ``after``; the continue token carries the list's version and the next key."""

    def key(o: Obj) -> str:
        return _sort_key(o, namespaced_list)

    rest = [o for o in objects if key(o) >= after] if after else objects
    chosen = heapq.nsmallest(limit + 1, rest, key=key) if limit else sorted(rest, key=key)
    metadata: Obj = {"resourceVersion": rv}
    if limit and len(chosen) > limit:
        chosen = chosen[:limit]
        metadata["continue"] = encode_continue(int(rv), key(chosen[-1]) + "\x00")
        metadata["remainingItemCount"] = len(rest) - limit
    return chosen, metadata
