"""Volcano Job lifecycle policies as the job webhook checks them (validate/util.go).

The events and actions a user may name are those ``policyEventMap`` and ``policyActionMap``
allow (volcano.sh/apis bus/v1alpha1 names). Errors are joined as hashicorp/go-multierror
prints them, since the webhook writes ``err.Error()`` into its message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Obj = dict[str, Any]
ANY_EVENT = "*"
# policyEventMap, allowed entries, in declaration order.
VALID_EVENTS = (
    ANY_EVENT,
    "PodFailed",
    "PodEvicted",
    "PodPending",
    "Unknown",
    "TaskCompleted",
    "TaskFailed",
    "JobUpdated",
)
# policyActionMap, allowed entries, in declaration order.
VALID_ACTIONS = (
    "AbortJob",
    "RestartJob",
    "RestartTask",
    "RestartPod",
    "RestartPartition",
    "TerminateJob",
    "CompleteJob",
    "ResumeJob",
)


def go_list(items: Sequence[object]) -> str:
    """A slice as Go's ``%v`` prints it."""
    return "[" + " ".join(str(i) for i in items) + "]"


_C_ESCAPES = {"\a": "a", "\b": "b", "\f": "f", "\n": "n", "\r": "r", "\t": "t", "\v": "v"}


def _quoted_char(char: str) -> str:
    code = ord(char)
    if char in '"\\':
        return "\\" + char
    if char in _C_ESCAPES:
        return "\\" + _C_ESCAPES[char]
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if not char.isprintable():
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    return char


def go_quote(value: object) -> str:
    """A value as ``field.Invalid`` shows it: ``%q`` (``strconv.Quote``) for strings."""
    if not isinstance(value, str):
        return str(value)
    return '"' + "".join(_quoted_char(c) for c in value) + '"'


def multierror(errors: list[str]) -> str:
    """hashicorp/go-multierror's default ``ListFormatFunc``."""
    if not errors:
        return ""
    if len(errors) == 1:
        return f"1 error occurred:\n\t* {errors[0]}\n\n"
    points = "\n\t".join(f"* {e}" for e in errors)
    return f"{len(errors)} errors occurred:\n\t{points}\n\n"


def _events(policy: Obj) -> list[str]:
    """``getEventList``: ``events`` then ``event``, duplicates once."""
    events = list(policy.get("events") or [])
    if policy.get("event"):
        events.append(policy["event"])
    return list(dict.fromkeys(events))


def _policy_errors(policies: list[Obj], path: str) -> list[str]:
    errors: list[str] = []
    seen_events: set[str] = set()
    seen_codes: set[Any] = set()
    for policy in policies:
        has_event = bool(policy.get("event")) or bool(policy.get("events"))
        exit_code = policy.get("exitCode")
        if has_event and exit_code is not None:
            errors.append("must not specify event and exitCode simultaneously")
            break
        if not has_event and exit_code is None:
            errors.append("either event and exitCode should be specified")
            break
        if has_event:
            stop = False
            for event in _events(policy):
                action = policy.get("action", "")
                if event not in VALID_EVENTS:
                    errors.append(f"{path}: Invalid value: {go_quote(event)}: invalid policy event")
                elif action not in VALID_ACTIONS:
                    errors.append(
                        f"{path}: Invalid value: {go_quote(action)}: invalid policy action"
                    )
                elif event in seen_events:
                    errors.append(f"duplicate event {event}  across different policy")
                else:
                    seen_events.add(event)
                    continue
                stop = True
                break
            if stop:
                break
        else:
            if exit_code == 0:
                errors.append("0 is not a valid error code")
                break
            if exit_code in seen_codes:
                errors.append(f"duplicate exitCode {exit_code}")
                break
            seen_codes.add(exit_code)
    if ANY_EVENT in seen_events and len(seen_events) > 1:
        errors.append("if there's * here, no other policy should be here")
    return errors


def validate_policies(policies: list[Obj], path: str) -> str:
    """``validatePolicies``: the multierror text, or empty."""
    return multierror(_policy_errors(policies, path))
