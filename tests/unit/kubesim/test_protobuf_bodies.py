"""Kubernetes protobuf request bodies (what kubectl's typed clients send) read as JSON."""

from __future__ import annotations

import pytest

from services.kubesim.protobuf import MAGIC, ProtobufError, decode


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _len(number: int, payload: bytes) -> bytes:
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _int(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _envelope(api_version: str, kind: str, raw: bytes) -> bytes:
    type_meta = _len(1, api_version.encode()) + _len(2, kind.encode())
    return MAGIC + _len(1, type_meta) + _len(2, raw) + _len(3, b"") + _len(4, b"")


def _meta(name: str, **extra: bytes) -> bytes:
    # ObjectMeta: name=1, generateName=2 (empty, as Go writes it), creationTimestamp=8 (zero).
    return _len(1, name.encode()) + _len(2, b"") + _len(8, b"") + b"".join(extra.values())


def test_configmap_with_data_map() -> None:
    entry = _len(1, b"key") + _len(2, b"value")
    body = _envelope("v1", "ConfigMap", _len(1, _meta("cm")) + _len(2, entry))
    assert decode(body) == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cm"},
        "data": {"key": "value"},
    }


def test_job_with_containers_quantities_and_zero_values() -> None:
    requests = _len(1, b"cpu") + _len(2, _len(1, b"500m"))
    container = (
        _len(1, b"c") + _len(2, b"busybox") + _len(3, b"echo") + _len(3, b"hi")
        + _len(8, _len(2, requests))
    )  # fmt: skip
    pod_spec = _len(2, container) + _len(3, b"Never") + _int(4, 0)
    template = _len(1, _meta("")) + _len(2, pod_spec)
    job_spec = _int(1, 2) + _len(6, template)  # parallelism = 1, template = 6
    body = _envelope("batch/v1", "Job", _len(1, _meta("j")) + _len(2, job_spec))
    job = decode(body)
    assert job["spec"]["parallelism"] == 2
    spec = job["spec"]["template"]["spec"]
    assert spec["restartPolicy"] == "Never" and "terminationGracePeriodSeconds" not in spec
    assert spec["containers"] == [
        {"name": "c", "image": "busybox", "command": ["echo", "hi"],
         "resources": {"requests": {"cpu": "500m"}}}
    ]  # fmt: skip


def test_secret_bytes_are_base64() -> None:
    entry = _len(1, b"k") + _len(2, b"\x00\x01")
    body = _envelope("v1", "Secret", _len(1, _meta("s")) + _len(2, entry))
    assert decode(body)["data"] == {"k": "AAE="}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{}", "prefix"),
        (_envelope("example.com/v1", "Widget", b""), "no protobuf schema"),
        (MAGIC + b"\x0a\xff", "truncated"),
    ],
    ids=["json-body", "unknown-kind", "truncated"],
)
def test_unreadable_bodies(body: bytes, message: str) -> None:
    with pytest.raises(ProtobufError, match=message):
        decode(body)
