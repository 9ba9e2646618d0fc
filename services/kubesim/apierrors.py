"""API errors as the Kubernetes API server reports them: a ``Status`` body with a code.

Handlers raise ``ApiError``; the HTTP layer turns it into the JSON body and status code.
"""

from __future__ import annotations

from typing import Any

from shared.kube.fielderrors import aggregate

_REASONS = {
    400: "BadRequest",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    403: "Forbidden",
    409: "Conflict",
    410: "Expired",
    413: "RequestEntityTooLarge",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


class ApiError(Exception):
    """A failed API call; ``status()`` is the body the real server would send."""

    def __init__(
        self,
        code: int,
        message: str,
        *,
        reason: str = "",
        details: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason or _REASONS.get(code, "Unknown")
        self.details = details

    def status(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "code": self.code,
        }
        if self.reason:  # omitempty: a webhook's refusal may carry none
            body["reason"] = self.reason
        if self.details is not None:
            body["details"] = self.details
        return body


def _details(kind: str, name: str, group: str) -> dict[str, Any]:
    details: dict[str, Any] = {"name": name, "kind": kind}
    if group:
        details["group"] = group
    return details


def _resource(plural: str, group: str) -> str:
    return f"{plural}.{group}" if group else plural


def not_found(plural: str, group: str, name: str) -> ApiError:
    return ApiError(
        404,
        f'{_resource(plural, group)} "{name}" not found',
        details=_details(plural, name, group),
    )


def already_exists(plural: str, group: str, name: str) -> ApiError:
    return ApiError(
        409,
        f'{_resource(plural, group)} "{name}" already exists',
        reason="AlreadyExists",
        details=_details(plural, name, group),
    )


def conflict(plural: str, group: str, name: str, why: str) -> ApiError:
    return ApiError(
        409,
        f'Operation cannot be fulfilled on {_resource(plural, group)} "{name}": {why}',
        details=_details(plural, name, group),
    )


def invalid(kind: str, group: str, name: str, causes: list[tuple[str, str, str]]) -> ApiError:
    """422 Invalid (``NewInvalid``); a cause is (field, reason, ErrorBody) of a ``field.Error``."""
    text = aggregate([f"{fld}: {msg}" for fld, _, msg in causes])
    details = _details(kind, name, group)
    details["causes"] = [
        {"reason": reason, "message": f"{msg}", "field": fld} for fld, reason, msg in causes
    ]
    label = f'{kind}.{group} "{name}"' if group else f'{kind} "{name}"'
    return ApiError(422, f"{label} is invalid: {text}", details=details)


def webhook_denied(webhook: str, result: dict[str, Any]) -> ApiError:
    """A webhook's refusal as kube-apiserver reports it (``webhookerrors.ToStatusErr``): the
    webhook's own status, its code raised to at least 400, its message after
    ``admission webhook "<name>" denied the request``; no reason unless the webhook gave one."""
    code = int(result.get("code") or 0)
    denied = f'admission webhook "{webhook}" denied the request'
    message = str(result.get("message") or result.get("reason") or "")
    error = ApiError(
        max(code, 400),
        f"{denied}: {message}" if message else f"{denied} without explanation",
        details=result.get("details"),
    )
    error.reason = str(result.get("reason") or "")
    return error


def policy_denied(
    plural: str, group: str, name: str, policy: str, binding: str, message: str
) -> ApiError:
    """A ValidatingAdmissionPolicy's denial as the API server reports it: Forbidden's message,
    reason ``Invalid`` (the validation's reason) and so 422, the denial as the one cause."""
    resource = _resource(plural, group)
    denied = (
        f"ValidatingAdmissionPolicy '{policy}' with binding '{binding}' denied request: {message}"
    )
    details = _details(plural, name or "Unknown", group)
    details["causes"] = [{"message": denied}]
    return ApiError(
        422,
        f'{resource} "{name or "Unknown"}" is forbidden: {denied}',
        reason="Invalid",
        details=details,
    )


def too_large(limit: int) -> ApiError:
    """``NewRequestEntityTooLargeError``: a request body over the server's limit."""
    return ApiError(
        413, f"Request entity too large: limit is {limit}", reason="RequestEntityTooLarge"
    )


def bad_request(message: str) -> ApiError:
    return ApiError(400, message)


def gone(message: str) -> ApiError:
    return ApiError(410, message, reason="Expired")


def too_large_resource_version(requested: int, current: int) -> ApiError:
    """A watch or list from a version the server has not reached (the watch cache's
    ``NewTooLargeResourceVersionError``): clients re-list from scratch."""
    return ApiError(
        504,
        f"Timeout: Too large resource version: {requested}, current: {current}",
        reason="Timeout",
        details={
            "causes": [
                {"reason": "ResourceVersionTooLarge", "message": "Too large resource version"}
            ],
            "retryAfterSeconds": 1,
        },
    )


def success(code: int = 201, details: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "code": code,
    }
    if details is not None:
        body["details"] = details
    return body
