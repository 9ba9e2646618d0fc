"""Field errors as apimachinery's ``field.Error`` prints them (util/validation/field/errors.go).

A cause is ``(field, type, body)``: the body is ``ErrorBody()`` — the type's text, the bad value
(``%q`` for strings, plain for numbers and booleans, JSON otherwise) and the detail — and the
API server's 422 message shows ``field: body``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

Cause = tuple[str, str, str]


def aggregate(messages: list[str]) -> str:
    """Several errors as one, as apimachinery's ``aggregate.Error``: duplicates once, more than
    one in brackets."""
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def go_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


def _with_detail(body: str, detail: str) -> str:
    return f"{body}: {detail}" if detail else body


def required(field: str, detail: str = "") -> Cause:
    return (field, "FieldValueRequired", _with_detail("Required value", detail))


def forbidden(field: str, detail: str) -> Cause:
    return (field, "FieldValueForbidden", _with_detail("Forbidden", detail))


def invalid(field: str, value: Any, detail: str) -> Cause:
    return (field, "FieldValueInvalid", _with_detail(f"Invalid value: {go_value(value)}", detail))


def invalid_omitted(field: str, detail: str) -> Cause:
    """``field.Invalid`` with ``field.OmitValueType{}``: no value shown."""
    return (field, "FieldValueInvalid", _with_detail("Invalid value", detail))


def not_supported(field: str, value: Any, allowed: Iterable[str]) -> Cause:
    """``field.NotSupported``: the supported values, when there are any."""
    choices = ", ".join(json.dumps(a) for a in allowed)
    body = f"Unsupported value: {go_value(value)}"
    detail = f"supported values: {choices}" if choices else ""
    return (field, "FieldValueNotSupported", _with_detail(body, detail))


def not_found(field: str, value: Any) -> Cause:
    return (field, "FieldValueNotFound", f"Not found: {go_value(value)}")


def duplicate(field: str, value: Any) -> Cause:
    return (field, "FieldValueDuplicate", f"Duplicate value: {go_value(value)}")


def too_long(field: str, max_bytes: int) -> Cause:
    unit = "byte" if max_bytes == 1 else "bytes"
    return (field, "FieldValueTooLong", f"Too long: may not be more than {max_bytes} {unit}")


def too_many(field: str, actual: int, maximum: int) -> Cause:
    unit = "item" if maximum == 1 else "items"
    return (field, "FieldValueTooMany", f"Too many: {actual}: must have at most {maximum} {unit}")


def error_text(cause: Cause) -> str:
    """The error's ``Error()``: ``field: body``."""
    field, _, body = cause
    return f"{field}: {body}"


def immutable(field: str, value: Any) -> Cause:
    """``ValidateImmutableField``'s error (``FieldImmutableErrorMsg``)."""
    return invalid(field, value, "field is immutable")


_LABEL_KEY = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    f"validation is '{_LABEL_KEY_FMT}')"
)
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def dns1123_subdomain_errors(value: str) -> list[str]:
    """apimachinery ``IsDNS1123Subdomain``."""
    errors = ["must be no more than 253 characters"] if len(value) > 253 else []
    if not _SUBDOMAIN.match(value):
        errors.append(_SUBDOMAIN_MSG)
    return errors


def qualified_name_errors(value: str) -> list[str]:
    """apimachinery ``IsQualifiedName`` (= ``content.IsLabelKey``): an optional DNS subdomain
    prefix and a name part."""
    parts = value.split("/")
    errors: list[str] = []
    if len(parts) > 2:
        return [
            f"a valid label key {_LABEL_KEY_MSG} with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            if len(prefix) > 253:
                errors.append("prefix part must be no more than 253 bytes")
            if not _SUBDOMAIN.match(prefix):
                errors.append(f"prefix part {_SUBDOMAIN_MSG}")
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part must be no more than 63 bytes")
    if not _LABEL_KEY.match(name):
        errors.append(f"name part {_LABEL_KEY_MSG}")
    return errors


_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
    "'my_value',  or '12345', regex used for validation is "
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def label_value_errors(value: str) -> list[str]:
    """apimachinery ``content.IsLabelValue``: at most 63 bytes, empty or alphanumeric ends."""
    errors: list[str] = []
    if len(value.encode()) > 63:
        errors.append("must be no more than 63 bytes")
    if not _LABEL_VALUE.match(value):
        errors.append(_LABEL_VALUE_MSG)
    return errors
