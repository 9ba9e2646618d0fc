"""Merge, strategic merge and JSON patches produce what the API server would."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.patch import PatchError, json_patch, strategic_merge_patch
from shared.kube.patch import merge_patch

POD: dict[str, Any] = {
    "metadata": {"name": "p", "labels": {"a": "1", "b": "2"}, "finalizers": ["x"]},
    "spec": {
        "containers": [
            {"name": "main", "image": "v1", "env": [{"name": "A", "value": "1"}]},
            {"name": "side", "image": "s1"},
        ],
        "tolerations": [{"key": "k"}],
    },
}


@pytest.mark.parametrize(
    ("patch", "expected"),
    [
        ({"metadata": {"labels": {"c": "3"}}}, {"a": "1", "b": "2", "c": "3"}),
        ({"metadata": {"labels": {"a": None}}}, {"b": "2"}),
        ({"metadata": {"labels": None}}, None),
    ],
    ids=["add-key", "null-deletes", "null-map"],
)
def test_merge_patch_maps(patch: dict[str, Any], expected: Any) -> None:
    out = merge_patch(POD, patch)
    assert out["metadata"].get("labels") == expected
    assert POD["metadata"]["labels"] == {"a": "1", "b": "2"}  # input untouched


def test_merge_patch_replaces_lists() -> None:
    out = merge_patch(POD, {"spec": {"containers": [{"name": "only", "image": "x"}]}})
    assert [c["name"] for c in out["spec"]["containers"]] == ["only"]


@pytest.mark.parametrize(
    ("patch", "check"),
    [
        (
            {"spec": {"containers": [{"name": "main", "image": "v2"}]}},
            lambda o: (
                [(c["name"], c["image"]) for c in o["spec"]["containers"]]
                == [("main", "v2"), ("side", "s1")]
                and o["spec"]["containers"][0]["env"] == [{"name": "A", "value": "1"}]
            ),
        ),
        (
            {"spec": {"containers": [{"name": "new", "image": "n"}]}},
            lambda o: [c["name"] for c in o["spec"]["containers"]] == ["main", "side", "new"],
        ),
        (
            {"spec": {"containers": [{"name": "side", "$patch": "delete"}]}},
            lambda o: [c["name"] for c in o["spec"]["containers"]] == ["main"],
        ),
        (
            {"spec": {"containers": [{"name": "main", "env": [{"name": "B", "value": "2"}]}]}},
            lambda o: [e["name"] for e in o["spec"]["containers"][0]["env"]] == ["A", "B"],
        ),
        (
            {"spec": {"tolerations": [{"key": "other"}]}},
            lambda o: o["spec"]["tolerations"] == [{"key": "other"}],
        ),
        (
            {"metadata": {"finalizers": ["y"]}},
            lambda o: o["metadata"]["finalizers"] == ["x", "y"],
        ),
        (
            {"metadata": {"$deleteFromPrimitiveList/finalizers": ["x"]}},
            lambda o: o["metadata"]["finalizers"] == [],
        ),
        (
            {"metadata": {"labels": {"$patch": "replace", "z": "9"}}},
            lambda o: o["metadata"]["labels"] == {"z": "9"},
        ),
    ],
    ids=[
        "merge-by-name",
        "append-new",
        "delete-directive",
        "nested-env",
        "atomic-list",
        "set-finalizers",
        "delete-from-primitive",
        "replace-map",
    ],
)
def test_strategic_merge_patch(patch: dict[str, Any], check: Any) -> None:
    assert check(strategic_merge_patch(POD, patch))
    assert [c["image"] for c in POD["spec"]["containers"]] == ["v1", "s1"]


@pytest.mark.parametrize(
    ("ops", "check"),
    [
        (
            [{"op": "add", "path": "/metadata/labels/c", "value": "3"}],
            lambda o: o["metadata"]["labels"]["c"] == "3",
        ),
        (
            [{"op": "remove", "path": "/spec/containers/1"}],
            lambda o: len(o["spec"]["containers"]) == 1,
        ),
        (
            [{"op": "replace", "path": "/spec/containers/0/image", "value": "v9"}],
            lambda o: o["spec"]["containers"][0]["image"] == "v9",
        ),
        (
            [{"op": "move", "from": "/metadata/labels/a", "path": "/metadata/labels/z"}],
            lambda o: o["metadata"]["labels"] == {"b": "2", "z": "1"},
        ),
        (
            [{"op": "copy", "from": "/metadata/name", "path": "/metadata/labels/n"}],
            lambda o: o["metadata"]["labels"]["n"] == "p",
        ),
        (
            [
                {"op": "test", "path": "/metadata/name", "value": "p"},
                {"op": "add", "path": "/spec/containers/-", "value": {"name": "x"}},
            ],
            lambda o: o["spec"]["containers"][-1] == {"name": "x"},
        ),
        (
            [{"op": "add", "path": "/metadata/labels/a~1b", "value": "s"}],
            lambda o: o["metadata"]["labels"]["a/b"] == "s",
        ),
    ],
    ids=["add", "remove-index", "replace", "move", "copy", "test-then-append", "escaped"],
)
def test_json_patch(ops: list[dict[str, Any]], check: Any) -> None:
    assert check(json_patch(POD, ops))
    assert "c" not in POD["metadata"]["labels"]


@pytest.mark.parametrize(
    ("ops", "code"),
    [
        ([{"op": "test", "path": "/metadata/name", "value": "q"}], 422),
        ([{"op": "remove", "path": "/metadata/nope"}], 400),
        ([{"op": "frobnicate", "path": "/x"}], 400),
        ({"op": "add"}, 400),
    ],
    ids=["failed-test", "missing-path", "unknown-op", "not-a-list"],
)
def test_json_patch_errors(ops: Any, code: int) -> None:
    with pytest.raises(PatchError) as err:
        json_patch(POD, ops)
    assert err.value.code == code
