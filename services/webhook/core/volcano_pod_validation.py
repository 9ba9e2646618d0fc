"""Volcano's ``validatepod.volcano.sh`` (pkg/webhooks/admission/pods/validate), on pod CREATE:
a pod for the scheduler (``--scheduler-name``) may carry at most one of the job disruption
budget annotations, as a positive integer or a percentage between 1% and 99%.

Upstream also records a Warning Event for a bad value, with no object to attach it to, which
client-go's recorder drops; Shoal records none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from services.webhook.core.volcano_policies import go_list, go_quote
from shared.kube.schedulers import SHOAL_SCHEDULER_NAMES

Obj = dict[str, Any]
WEBHOOK = "validatepod.volcano.sh"
JDB_MIN_AVAILABLE = "volcano.sh/jdb-min-available"
JDB_MAX_UNAVAILABLE = "volcano.sh/jdb-max-unavailable"
_KEYS = (JDB_MIN_AVAILABLE, JDB_MAX_UNAVAILABLE)
_INT64 = 1 << 63
_DIGITS = re.compile(r"[+-]?[0-9]+")


class _AtoiError(ValueError):
    pass


def _atoi(text: str) -> int:
    """``strconv.Atoi`` (base 10, an optional sign, int64), its error as Go words it."""
    if not _DIGITS.fullmatch(text):
        raise _AtoiError(f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    value = int(text)
    if not -_INT64 <= value < _INT64:
        raise _AtoiError(f"strconv.Atoi: parsing {go_quote(text)}: value out of range")
    return value


def _int32(value: int) -> int:
    """``intstr.FromInt``: the value kept as an int32 (it wraps)."""
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def validate_int_percentage(key: str, value: str) -> str:
    """``validateIntPercentageStr``: "" when ``value`` is valid."""
    try:
        number = _atoi(value)
    except _AtoiError:
        pass
    else:  # intstr.Parse made it an Int
        if _int32(number) <= 0:
            return f"invalid value <{go_quote(value)}> for {key}, it must be a positive integer"
        return ""
    try:
        percent = _atoi(value.replace("%", ""))
    except _AtoiError as error:
        return f"invalid value {error} for {key}"
    if percent <= 0 or percent >= 100:
        return (
            f"invalid value <{go_quote(value)}> for {key}, it must be a valid percentage which "
            "between 1% ~ 99%"
        )
    return ""


def validate_annotation(pod: Obj) -> str:
    """``validateAnnotation``."""
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    found = 0
    for key in _KEYS:
        if key in annotations:
            found += 1
            message = validate_int_percentage(key, str(annotations[key]))
            if message:
                return message
    if found > 1:
        return f"not allow configure multiple annotations <{go_list(_KEYS)}> at same time"
    return ""


def validate_pod(pod: Obj, scheduler_names: Iterable[str] = SHOAL_SCHEDULER_NAMES) -> str:
    """``validatePod``: the refusal's message, "" when the pod is admitted."""
    if (pod.get("spec") or {}).get("schedulerName", "") not in tuple(scheduler_names):
        return ""
    return validate_annotation(pod).strip()
