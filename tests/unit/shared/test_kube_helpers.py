"""shared.kube helpers: error classification, Event manifests, times, merge patch, keys, names."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import aiohttp
import pytest

from shared.kube import ApiError, WatchExpired
from shared.kube.errors import CALL_ERRORS, is_transient
from shared.kube.events import MAX_MESSAGE, event_manifest, involved_object
from shared.kube.keys import namespaced_key, object_key, split_key
from shared.kube.patch import merge_patch
from shared.kube.schedulers import (
    DEFAULT_SCHEDULER_NAME,
    SHOAL_SCHEDULER_NAMES,
    scheduler_name,
)
from shared.kube.timefmt import (
    format_rfc3339,
    go_duration,
    parse_datetime,
    parse_go_duration,
    parse_rfc3339,
)

T0 = 1_704_164_645.0  # 2024-01-02T03:04:05Z


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (ApiError(429, "TooManyRequests", ""), True),
        (ApiError(500, "InternalError", ""), True),
        (ApiError(502, "BadGateway", ""), True),
        (ApiError(503, "ServiceUnavailable", ""), True),
        (ApiError(504, "Timeout", ""), True),
        (ApiError(501, "NotImplemented", ""), False),
        (ApiError(404, "NotFound", ""), False),
        (ApiError(409, "AlreadyExists", ""), False),
        (ApiError(422, "Invalid", ""), False),
        (WatchExpired(410, "Expired", ""), False),
        (aiohttp.ClientConnectionError("reset"), True),
        (aiohttp.ServerDisconnectedError(), True),
        (TimeoutError(), True),
        (ConnectionRefusedError(), True),
        (ValueError("bug"), False),
        (KeyError("kind"), False),
    ],
    ids=[
        "429",
        "500",
        "502",
        "503",
        "504",
        "501",
        "404",
        "409",
        "422",
        "410-expired",
        "connection-reset",
        "server-disconnected",
        "timeout",
        "refused",
        "bug",
        "key-error",
    ],
)
def test_transient_errors(exc: BaseException, transient: bool) -> None:
    assert is_transient(exc) is transient
    assert isinstance(exc, CALL_ERRORS) is (transient or isinstance(exc, ApiError))


@pytest.mark.parametrize(
    ("obj", "involved"),
    [
        (
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {"name": "pi", "namespace": "team", "uid": "u"},
            },
            {
                "apiVersion": "batch/v1",
                "kind": "Job",
                "name": "pi",
                "namespace": "team",
                "uid": "u",
            },
        ),
        (
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}},
            {"apiVersion": "v1", "kind": "Pod", "name": "p", "namespace": "default", "uid": ""},
        ),
        ({}, {"apiVersion": "", "kind": "", "name": "", "namespace": "default", "uid": ""}),
    ],
    ids=["namespaced", "namespace-defaulted", "empty"],
)
def test_involved_object(obj: dict[str, Any], involved: dict[str, str]) -> None:
    assert involved_object(obj) == involved


def test_event_manifest_is_a_core_v1_event() -> None:
    involved = {"kind": "Pod", "namespace": "team", "name": "p-0", "uid": "u"}
    event = event_manifest(
        involved,
        type_="Normal",
        reason="Scheduled",
        message="Successfully assigned team/p-0 to n1",
        component="shoal-binder",
        now=T0 + 0.9,
    )
    assert event == {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"generateName": "p-0.", "namespace": "team"},
        "involvedObject": involved,
        "reason": "Scheduled",
        "message": "Successfully assigned team/p-0 to n1",
        "type": "Normal",
        "count": 1,
        "firstTimestamp": "2024-01-02T03:04:05Z",
        "lastTimestamp": "2024-01-02T03:04:05Z",
        "source": {"component": "shoal-binder"},
        "reportingComponent": "shoal-binder",
    }
    assert event["involvedObject"] is not involved  # a copy: the caller may reuse its dict


@pytest.mark.parametrize(
    ("involved", "namespace", "generate_name"),
    [
        ({"name": "pg", "namespace": "ns"}, "ns", "pg."),
        ({"name": "pg", "namespace": ""}, "default", "pg."),
        ({"name": ""}, "default", "object."),
    ],
    ids=["namespaced", "namespace-defaulted", "nameless"],
)
def test_event_name_and_namespace(
    involved: dict[str, str], namespace: str, generate_name: str
) -> None:
    event = event_manifest(
        involved, type_="Warning", reason="R", message="x" * 5000, component="c", now=T0
    )
    assert event["metadata"] == {"generateName": generate_name, "namespace": namespace}
    assert len(event["message"]) == MAX_MESSAGE == 1024


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.0, "1970-01-01T00:00:00Z"),
        (T0, "2024-01-02T03:04:05Z"),
        (T0 + 0.999, "2024-01-02T03:04:05Z"),  # sub-second precision is dropped, not rounded
        (951_782_400.0, "2000-02-29T00:00:00Z"),
    ],
    ids=["epoch", "seconds", "truncated", "leap-day"],
)
def test_format_rfc3339(seconds: float, text: str) -> None:
    assert format_rfc3339(seconds) == text


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("2024-01-02T03:04:05Z", T0),
        ("2024-01-02T03:04:05.250000Z", T0 + 0.25),
        ("2024-01-02T04:04:05+01:00", T0),
        ("2024-01-02T03:04:05", T0),  # no offset: UTC, as the API server means it
        ("", None),
        (None, None),
        ("yesterday", None),
        ("2024-13-01T00:00:00Z", None),
    ],
    ids=["zulu", "fraction", "offset", "naive", "empty", "absent", "words", "bad-month"],
)
def test_parse_rfc3339(text: str | None, seconds: float | None) -> None:
    assert parse_rfc3339(text) == seconds
    parsed = parse_datetime(text)
    if seconds is None:
        assert parsed is None
    else:
        assert parsed is not None and parsed.tzinfo is not None
        assert parsed.timestamp() == seconds


def test_rfc3339_round_trip() -> None:
    assert parse_rfc3339(format_rfc3339(T0 + 0.5)) == T0


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (59.9, "59s"), (61, "1m1s"), (3600, "1h0m0s"), (3723, "1h2m3s"), (-5, "0s")],
    ids=["zero", "fraction", "minutes", "hour", "all", "negative"],
)
def test_go_duration(seconds: float, text: str) -> None:
    assert go_duration(seconds) == text


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90s", 90.0),
        ("1h30m", 5400.0),
        ("2.5m", 150.0),
        ("500ms", 0.5),
        ("1m30s", 90.0),
        ("", None),
        ("10", None),
        ("5x", None),
        ("m", None),
    ],
    ids=[
        "seconds",
        "hours-minutes",
        "fraction",
        "millis",
        "minutes-seconds",
        "empty",
        "no-unit",
        "bad-unit",
        "no-number",
    ],
)
def test_parse_go_duration(text: str, seconds: float | None) -> None:
    assert parse_go_duration(text) == seconds


@pytest.mark.parametrize(
    ("target", "patch", "result"),
    [
        ({"a": 1, "b": 2}, {"a": None}, {"b": 2}),
        ({"a": {"x": 1, "y": 2}}, {"a": {"y": 3, "z": 4}}, {"a": {"x": 1, "y": 3, "z": 4}}),
        ({"a": [1, 2, 3]}, {"a": [4]}, {"a": [4]}),
        ({"a": 1}, {"b": {"c": None, "d": 1}}, {"a": 1, "b": {"d": 1}}),
        ({"a": {"b": 1}}, {"a": "s"}, {"a": "s"}),
        ({"a": 1}, ["whole"], ["whole"]),
        ("scalar", {"a": 1}, {"a": 1}),
        ({"a": 1}, {}, {"a": 1}),
        ({"a": 1}, {"missing": None}, {"a": 1}),
    ],
    ids=[
        "delete",
        "nested-merge",
        "list-replaces",
        "new-map-drops-nulls",
        "scalar-replaces-map",
        "non-map-patch",
        "non-map-target",
        "empty-patch",
        "delete-missing",
    ],
)
def test_merge_patch_rfc7386(target: Any, patch: Any, result: Any) -> None:
    assert merge_patch(target, patch) == result


def test_merge_patch_leaves_its_inputs_alone() -> None:
    target = {"status": {"active": 1, "conditions": [{"type": "Complete"}]}, "spec": {"x": 1}}
    patch = {"status": {"active": None, "succeeded": 1}}
    merged = merge_patch(target, patch)
    assert target["status"] == {"active": 1, "conditions": [{"type": "Complete"}]}
    assert patch == {"status": {"active": None, "succeeded": 1}}
    assert merged["spec"] is target["spec"]  # untouched subtrees are shared, not copied


@pytest.mark.parametrize(
    ("namespace", "name", "object_form", "namespaced_form"),
    [
        ("team", "job", "team/job", "team/job"),
        ("", "node-1", "node-1", "default/node-1"),
        (None, "queue", "queue", "default/queue"),
    ],
    ids=["namespaced", "empty-namespace", "no-namespace"],
)
def test_object_keys(
    namespace: str | None, name: str, object_form: str, namespaced_form: str
) -> None:
    assert object_key(namespace, name) == object_form
    assert namespaced_key(namespace, name) == namespaced_form


@pytest.mark.parametrize(
    ("key", "parts"),
    [("team/job", ("team", "job")), ("node-1", ("", "node-1")), ("/x", ("", "x"))],
    ids=["namespaced", "cluster-scoped", "empty-namespace"],
)
def test_split_key(key: str, parts: tuple[str, str]) -> None:
    assert split_key(key) == parts
    assert object_key(*split_key(key)) == key.lstrip("/")


@pytest.mark.parametrize(
    ("spec_value", "name", "shoal"),
    [
        ("volcano", "volcano", True),
        ("shoal", "shoal", True),
        (None, DEFAULT_SCHEDULER_NAME, False),
        ("", "default-scheduler", False),
        ("default-scheduler", "default-scheduler", False),
        ("kueue", "kueue", False),
    ],
    ids=["volcano", "shoal", "unset", "empty", "default", "other"],
)
def test_scheduler_names(spec_value: str | None, name: str, shoal: bool) -> None:
    assert scheduler_name(spec_value) == name
    assert (scheduler_name(spec_value) in SHOAL_SCHEDULER_NAMES) is shoal


def test_helpers_do_not_import_the_client() -> None:
    """The pure cores import these helpers; they must not drag in the I/O stack."""
    code = (
        "import sys\n"
        "import shared.kube.events, shared.kube.keys, shared.kube.patch\n"
        "import shared.kube.schedulers, shared.kube.timefmt\n"
        "print(sorted(m for m in ('aiohttp', 'kubernetes_asyncio', 'asyncio') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"
