"""Request bodies in Kubernetes' protobuf encoding (``application/vnd.kubernetes.protobuf``).

kubectl's typed clients (``kubectl create namespace|configmap|secret|job``, ``drain``) send
protobuf and do not retry in JSON, so kubesim reads it. The message schemas are Kubernetes'
``generated.proto`` files (``proto/``, comments stripped; k8s.io/api and k8s.io/apimachinery);
their field names are the JSON names. A body is the 4-byte magic ``k8s\\0`` and a
``runtime.Unknown`` whose ``typeMeta`` names the kind and whose ``raw`` is the object.

Go's protobuf encoding writes non-pointer fields even when empty, which JSON omits: empty strings,
zero numbers, false and zero times are read as unset (so defaulting applies). A pointer field
explicitly set to 0 or false is therefore read as unset too; ``kubectl create`` sets none.
"""

from __future__ import annotations

import base64
import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

MAGIC = b"k8s\x00"
MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
PROTO_DIR = Path(__file__).resolve().parent / "proto"
_META = "k8s.io.apimachinery.pkg.apis.meta.v1"
_FIELD = re.compile(
    r"^\s*(?:(optional|repeated)\s+([\w.]+)|map<\s*string\s*,\s*([\w.]+)\s*>)\s+(\w+)\s*=\s*(\d+)"
)
_SCALARS = frozenset({"string", "bytes", "bool", "int32", "int64"})
# API groups whose protobuf package is not k8s.io.api.<first label of the group>.
_PACKAGES = {"": "core"}

Obj = dict[str, Any]


class ProtobufError(ValueError):
    """A body that is not a Kubernetes protobuf object kubesim can read."""


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    type: str  # a scalar name or a fully-qualified message name
    repeated: bool
    map: bool


Schema = dict[str, dict[int, Field]]


def _qualify(type_: str, package: str) -> str:
    if type_ in _SCALARS:
        return type_
    return type_[1:] if type_.startswith(".") else f"{package}.{type_}"


@functools.cache
def schema(directory: Path = PROTO_DIR) -> Schema:
    """Message name → field number → field, from the ``.proto`` files."""
    messages: Schema = {}
    for path in sorted(directory.glob("*.proto")):
        package, current = "", None
        for line in path.read_text().splitlines():
            if line.startswith("package "):
                package = line.split()[1].rstrip(";")
            elif line.startswith("message "):
                current = messages.setdefault(f"{package}.{line.split()[1]}", {})
            elif current is not None and (match := _FIELD.match(line)):
                label, type_, value_type, name, number = match.groups()
                current[int(number)] = Field(
                    name=name,
                    type=_qualify(type_ or value_type, package),
                    repeated=label == "repeated",
                    map=value_type is not None,
                )
    return messages


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise ProtobufError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ProtobufError("varint too long")


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def fields(data: bytes) -> list[tuple[int, int | bytes]]:
    """The (field number, varint or bytes) pairs of one message; fixed widths are skipped."""
    out: list[tuple[int, int | bytes]] = []
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
            out.append((number, value))
        elif wire == 2:
            size, pos = _varint(data, pos)
            if pos + size > len(data):
                raise ProtobufError("truncated field")
            out.append((number, data[pos : pos + size]))
            pos += size
        elif wire in (1, 5):
            pos += 8 if wire == 1 else 4
        else:
            raise ProtobufError(f"unsupported wire type {wire}")
    return out


def _time(message: Obj, *, micro: bool) -> str | None:
    seconds, nanos = message.get("seconds", 0), message.get("nanos", 0)
    if not seconds and not nanos:
        return None
    at = datetime.fromtimestamp(seconds + nanos / 1e9, UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.%fZ" if micro else "%Y-%m-%dT%H:%M:%SZ")


def _special(type_: str, message: Obj) -> Any:
    """The JSON form of the types that are not plain objects in JSON."""
    if type_ == "k8s.io.apimachinery.pkg.api.resource.Quantity":
        return message.get("string")
    if type_ == "k8s.io.apimachinery.pkg.util.intstr.IntOrString":
        return message.get("strVal", "") if message.get("type") == 1 else message.get("intVal", 0)
    if type_ in (f"{_META}.Time", f"{_META}.MicroTime"):
        return _time(message, micro=type_.endswith("MicroTime"))
    if type_ == f"{_META}.Duration":
        return f"{message.get('duration', 0) / 1e9:g}s"
    if type_ in (f"{_META}.FieldsV1", "k8s.io.apimachinery.pkg.runtime.RawExtension"):
        raw = message.get("Raw") or message.get("raw")
        return msgspec.json.decode(raw) if raw else None
    return message


def _scalar(type_: str, value: int | bytes) -> Any:
    if type_ == "string":
        return value.decode() if isinstance(value, bytes) else None
    if type_ == "bytes":
        return base64.b64encode(value).decode() if isinstance(value, bytes) else None
    if isinstance(value, bytes):
        return None
    if type_ == "bool":
        return bool(value)
    return _signed(value)


def decode_message(data: bytes, type_: str, messages: Schema) -> Any:
    known = messages.get(type_)
    out: Obj = {}
    raw: Obj = {}  # the message before its JSON special form
    for number, value in fields(data):
        spec = known.get(number) if known is not None else None
        if spec is None:
            continue  # an unknown field or message, as the API server drops unknown fields
        if spec.map:
            if not isinstance(value, bytes):
                continue
            entry = dict(fields(value))
            key = entry.get(1, b"")
            item = entry.get(2, b"")
            item_value = (
                _scalar(spec.type, item)
                if spec.type in _SCALARS
                else decode_message(item if isinstance(item, bytes) else b"", spec.type, messages)
            )
            out.setdefault(spec.name, {})[key.decode() if isinstance(key, bytes) else str(key)] = (
                item_value
            )
            continue
        if spec.type in _SCALARS:
            item = _scalar(spec.type, value)
        elif isinstance(value, bytes):
            item = decode_message(value, spec.type, messages)
        else:
            continue
        if spec.repeated:
            out.setdefault(spec.name, []).append(item)
        else:
            raw[spec.name] = item
    special = _special(type_, raw)
    if special is not raw:
        return special
    for name, item in raw.items():
        if item not in (None, "", 0, False):  # Go's zero values, which JSON omits
            out[name] = item
    return out


def _message_type(api_version: str, kind: str) -> str:
    group, _, version = api_version.rpartition("/")
    package = _PACKAGES.get(group, group.split(".")[0])
    return f"k8s.io.api.{package}.{version}.{kind}"


def decode(body: bytes) -> Obj:
    """A protobuf request body as the JSON object it stands for."""
    if not body.startswith(MAGIC):
        raise ProtobufError("the body lacks the Kubernetes protobuf prefix")
    messages = schema()
    unknown = decode_message(
        body[len(MAGIC) :], "k8s.io.apimachinery.pkg.runtime.Unknown", messages
    )
    type_meta = unknown.get("typeMeta") or {}
    api_version, kind = type_meta.get("apiVersion", ""), type_meta.get("kind", "")
    message = _message_type(api_version, kind)
    if message not in messages:
        raise ProtobufError(f"no protobuf schema for {api_version} {kind}")
    raw = base64.b64decode(unknown.get("raw", ""))
    obj = decode_message(raw, message, messages)
    if not isinstance(obj, dict):
        raise ProtobufError(f"{kind} is not an object")
    return {"apiVersion": api_version, "kind": kind, **obj}
