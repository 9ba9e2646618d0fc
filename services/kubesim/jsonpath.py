"""The subset of Kubernetes JSONPath that CRD printer columns use.

``.a.b``, ``.items[0]``, ``.conditions[-1:]``, ``.conditions[*]`` and filters
``[?(@.type=='Ready')]`` (``==`` / ``!=`` on a string or number). ``find`` returns every match,
in order, as ``FindResults`` does; a missing key is no match (``AllowMissingKeys``).
"""

from __future__ import annotations

import re
from typing import Any

_TOKEN = re.compile(
    r"""\.(?P<key>[\w-]+)
      | \[\?\(@\.(?P<fkey>[\w.-]+)\s*(?P<op>==|!=)\s*
          (?:'(?P<fstr>[^']*)'|"(?P<fdq>[^"]*)"|(?P<fnum>-?[\d.]+))\)\]
      | \[(?P<slice>-?\d*:-?\d*)\]
      | \[(?P<index>-?\d+)\]
      | \[(?P<star>\*)\]
    """,
    re.VERBOSE,
)


class JsonPathError(ValueError):
    pass


def parse(path: str) -> list[re.Match[str]]:
    text = path.strip()
    if text.startswith("{") and text.endswith("}"):
        text = text[1:-1]
    if text.startswith("$"):
        text = text[1:]
    tokens, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise JsonPathError(f"unsupported JSONPath {path!r} at {text[pos:]!r}")
        tokens.append(match)
        pos = match.end()
    return tokens


def _get(value: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def _step(values: list[Any], token: re.Match[str]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if token["key"] is not None:
            if isinstance(value, dict) and token["key"] in value:
                out.append(value[token["key"]])
        elif not isinstance(value, list):
            continue
        elif token["star"] is not None:
            out.extend(value)
        elif token["index"] is not None:
            index = int(token["index"])
            if -len(value) <= index < len(value):
                out.append(value[index])
        elif token["slice"] is not None:
            start, _, stop = token["slice"].partition(":")
            out.extend(value[int(start) if start else None : int(stop) if stop else None])
        else:
            wanted: Any = token["fstr"] if token["fstr"] is not None else token["fdq"]
            if wanted is None:
                wanted = float(token["fnum"])
            for item in value:
                got = _get(item, token["fkey"])
                if isinstance(wanted, float) and isinstance(got, int | float):
                    got = float(got)
                if (got == wanted) == (token["op"] == "=="):
                    out.append(item)
    return out


def find(obj: Any, path: str) -> list[Any]:
    values = [obj]
    for token in parse(path):
        values = _step(values, token)
    return values
