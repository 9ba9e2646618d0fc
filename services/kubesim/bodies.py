"""Request bodies: JSON (the API's default) or Kubernetes protobuf, within the API server's
size limit (``MaxRequestBodyBytes``, 3 MiB → 413)."""

from __future__ import annotations

from typing import Any

import msgspec

from services.kubesim import apierrors, protobuf
from services.kubesim.apierrors import ApiError
from services.kubesim.http_messages import Request
from services.kubesim.protobuf import ProtobufError

JSON = "application/json"
MAX_REQUEST_BODY = 3 * 1024 * 1024
# A request without Content-Type reads as octet-stream; JSON is the API's default.
_JSON_TYPES = frozenset({JSON, "application/octet-stream"})
_decode = msgspec.json.decode


def decode_json(raw: bytes) -> Any:
    if not raw:
        raise apierrors.bad_request("a request body is required")
    try:
        return _decode(raw)
    except msgspec.DecodeError as exc:
        raise apierrors.bad_request(f"the request body is not valid JSON: {exc}") from exc


def read_body(request: Request, *, json_only: bool) -> Any:
    """The decoded body, or None without one. Protobuf is read for creates and updates (what
    kubectl's typed clients send); patches and deletes are JSON."""
    raw = request.body
    if not raw:
        return None
    if len(raw) > MAX_REQUEST_BODY:
        raise apierrors.too_large(MAX_REQUEST_BODY)
    if json_only or request.content_type in _JSON_TYPES:
        return decode_json(raw)
    if request.content_type == protobuf.MEDIA_TYPE:
        try:
            return protobuf.decode(raw)
        except ProtobufError as exc:
            raise apierrors.bad_request(f"the protobuf body cannot be read: {exc}") from exc
    raise ApiError(
        415,
        "the body of the request was in an unknown format - accepted media types include: "
        f"{JSON}, {protobuf.MEDIA_TYPE}",
    )
