"""Continue tokens: kube-apiserver's encoding, its refusals (``storage.DecodeContinue`` and the
etcd3 store's GetList), and pages cut from the state at the token's version."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from services.kubesim.apierrors import ApiError
from services.kubesim.paging import (
    FUTURE_REVISION,
    INCONSISTENT_CONTINUE,
    Continue,
    decode_continue,
    encode_continue,
    snapshot,
)
from services.kubesim.registry import Registry
from services.kubesim.store import Store

REGISTRY = Registry()


def _raw(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


def test_the_token_is_kube_apiservers_encoding() -> None:
    token = encode_continue(42, "ns/p-1\x00")
    assert base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)) == (
        b'{"v":"meta.k8s.io/v1","rv":42,"start":"ns/p-1\\u0000"}'
    )
    assert decode_continue(token, "") == Continue(42, "ns/p-1\x00")


INVALID = "invalid continue token: continue key is not valid"


@pytest.mark.parametrize(
    ("token", "resource_version", "message"),
    [
        ("!!!", "", f"{INVALID}: "),
        (_raw("not json"), "", f"{INVALID}: "),
        (
            _raw('{"v":"meta.k8s.io/v2","rv":5,"start":"a"}'),
            "",
            f"{INVALID}: server does not recognize this encoded version meta.k8s.io/v2",
        ),
        (
            _raw('{"v":"meta.k8s.io/v1","rv":0,"start":"a"}'),
            "",
            f"{INVALID}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
        ),
        (
            _raw('{"v":"meta.k8s.io/v1","rv":5,"start":""}'),
            "",
            f"{INVALID}: encoded start key empty (version meta.k8s.io/v1)",
        ),
        (_raw('{"v":"meta.k8s.io/v1","rv":5,"start":"../secrets/x"}'), "", f"{INVALID}: ../"),
        (
            encode_continue(5, "a\x00"),
            "7",
            "specifying resource version is not allowed when using continue",
        ),
    ],
    ids=[
        "not-base64",
        "not-json",
        "unknown-version",
        "resource-version-0",
        "empty-start",
        "start-climbs-out",
        "resource-version-with-continue",
    ],
)
def test_refused_tokens_are_400(token: str, resource_version: str, message: str) -> None:
    with pytest.raises(ApiError) as refused:
        decode_continue(token, resource_version)
    assert refused.value.code == 400 and refused.value.message.startswith(message)


def _store_with_history() -> tuple[Store, Any, int]:
    store = Store(REGISTRY, clock=lambda: 1_700_000_000.0, strict_namespaces=False)
    cms = store.tables["configmaps"].rtype
    for name in ("a", "b", "c"):
        store.create(cms, "ns", {"metadata": {"name": name}, "data": {"v": "1"}})
    listed = store.rv
    store.delete(cms, "ns", "a")
    b = store.get(cms, "ns", "b")
    store.update(cms, "ns", "b", {**b, "data": {"v": "2"}})
    store.create(cms, "ns", {"metadata": {"name": "d"}})
    return store, cms, listed


def test_a_snapshot_undoes_every_later_change() -> None:
    store, cms, listed = _store_with_history()
    objects = snapshot(store, cms, "ns", Continue(listed, "a\x00"))
    assert {o["metadata"]["name"]: o["data"]["v"] for o in objects} == {
        "a": "1", "b": "1", "c": "1"
    }  # fmt: skip
    latest = snapshot(store, cms, "ns", Continue(-1, "a\x00"))
    assert sorted(o["metadata"]["name"] for o in latest) == ["b", "c", "d"]


@pytest.mark.parametrize(
    ("rv", "code", "message"),
    [(1, 410, INCONSISTENT_CONTINUE), (999_999_999, 500, FUTURE_REVISION)],
    ids=["older-than-the-history-410", "newer-than-any-500"],
)
def test_versions_kubesim_cannot_serve(rv: int, code: int, message: str) -> None:
    store, cms, _ = _store_with_history()
    store.table(cms).hub.compact()
    with pytest.raises(ApiError) as refused:
        snapshot(store, cms, "ns", Continue(rv, "a\x00"))
    status = refused.value.status()
    assert (status["code"], status["message"]) == (code, message)
    if code == 410:
        assert status["reason"] == "Expired"
        goes_on = decode_continue(status["metadata"]["continue"], "")
        assert goes_on == Continue(-1, "a\x00")  # the rest, at the latest version
    else:
        assert "reason" not in status  # kube-apiserver passes etcd's error on as Unknown
