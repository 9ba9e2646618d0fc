"""Job plugin arguments read as Go's ``flag`` package reads them (``flag.ContinueOnError``).

Volcano's job plugins parse ``spec.plugins[<name>]`` with a ``flag.FlagSet``: ``-name`` or
``--name``, ``=value`` or (non-boolean flags) the next argument; parsing stops at the first
argument that is not a flag, at ``--``, and at the first error (an undefined flag, a missing or
unparsable value), keeping what was set before it. A value that does not parse still sets the
flag, to the zero value ``strconv`` returned (``false``, ``0``), as ``boolValue.Set`` and
``intValue.Set`` do. Plugins log the error and go on with those values; so does Shoal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

FlagKind = Literal["bool", "int", "string"]
Value = bool | int | str

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})
_GO_OCTAL = re.compile(r"^[+-]?0[0-7_]+$")
_INT64 = 2**63


def _parse_bool(text: str) -> bool | None:
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return None


def _parse_int(text: str) -> int | None:
    """``strconv.ParseInt(text, 0, 64)``: base from the prefix, ``0`` alone is octal."""
    try:
        value = int(text.replace("_", ""), 8) if _GO_OCTAL.match(text) else int(text, 0)
    except ValueError:
        return None
    return max(-_INT64, min(_INT64 - 1, value))


def _set(kind: FlagKind, text: str) -> tuple[Value, bool]:
    """The value Go's ``Set`` stores, and whether it parsed."""
    if kind == "bool":
        parsed_bool = _parse_bool(text)
        return (parsed_bool or False), parsed_bool is not None
    if kind == "int":
        parsed_int = _parse_int(text)
        return (parsed_int or 0), parsed_int is not None
    return text, True


def parse_flags(
    args: Sequence[str], kinds: Mapping[str, FlagKind], defaults: Mapping[str, Value]
) -> dict[str, Value]:
    """``defaults`` updated with the flags ``args`` set, as ``FlagSet.Parse`` would."""
    values = dict(defaults)
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if len(arg) < 2 or not arg.startswith("-"):
            break
        minuses = 2 if arg[1] == "-" else 1
        if arg == "--":
            break
        name = arg[minuses:]
        if not name or name[0] in "-=":
            break  # bad flag syntax
        name, has_value, text = name.partition("=")
        kind = kinds.get(name)
        if kind is None:
            break  # flag provided but not defined
        if kind == "bool" and not has_value:
            values[name] = True
            continue
        if not has_value:
            if not rest:
                break  # flag needs an argument
            text = rest.pop(0)
        values[name], parsed = _set(kind, text)
        if not parsed:
            break
    return values
