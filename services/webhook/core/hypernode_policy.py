"""Volcano's ``hypernode-validation-policy`` (a ValidatingAdmissionPolicy, installer
``policy/hypernodes-validating.yaml``) on HyperNode create and update: its CEL validations in
their order, each with upstream's message; the first that fails denies the request."""

from __future__ import annotations

import re
from typing import Any

POLICY = "hypernode-validation-policy"
BINDING = "hypernode-validation-policy-binding"

Obj = dict[str, Any]
# CEL ``format.qualifiedName()``: an optional DNS-subdomain prefix and "/", then a name of at
# most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_PREFIX = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_SELECTORS = ("exactMatch", "regexMatch", "labelMatch")
_PAIRS = (
    ("(", ")", "parentheses"),
    ("[", "]", "square brackets"),
    ("{", "}", "curly braces"),
)


def _qualified_name(value: str) -> bool:
    prefix, slash, name = value.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _PREFIX.match(prefix)):
        return False
    return 0 < len(name) <= 63 and bool(_NAME.match(name))


def validate_hypernode(obj: Obj) -> str:
    """The message of the first validation that fails, "" if all pass."""
    members = (obj.get("spec") or {}).get("members") or []
    if not members:
        return "member must have at least one member"
    selectors = [member.get("selector") or {} for member in members]
    counts = [sum(1 for key in _SELECTORS if key in selector) for selector in selectors]
    if any(count < 1 for count in counts):
        return "member selector must have one of exactMatch, regexMatch, or labelMatch"
    if any(count > 1 for count in counts):
        return "cannot specify more than one selector type (exactMatch, regexMatch, labelMatch)"
    names = [str((s["exactMatch"] or {}).get("name", "")) for s in selectors if "exactMatch" in s]
    if any(name == "" for name in names):
        return "member exactMatch name is required"
    if not all(_qualified_name(name) for name in names):
        return (
            "member exactMatch validate failed [name part must consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character]"
        )
    patterns = [
        str((s["regexMatch"] or {}).get("pattern", "")) for s in selectors if "regexMatch" in s
    ]
    if any(pattern == "" for pattern in patterns):
        return "member regexMatch pattern is required"
    for opening, closing, what in _PAIRS:
        # As the policy's CEL: only a pattern containing the opening character is checked.
        if any(p.count(opening) != p.count(closing) for p in patterns if opening in p):
            return f"member regexMatch pattern is invalid: unmatched {what}"
    return ""
