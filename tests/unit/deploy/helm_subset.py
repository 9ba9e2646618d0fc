"""A renderer for the small subset of Helm's template language that deploy/helm/shoal uses.

Helm is not installable here, so the tests render the chart with this instead and compare the
result with the kustomize base. The subset is deliberately tiny, and anything outside it raises
`UnsupportedTemplate` rather than rendering something Helm would not:

    {{ .Values.a.b }}  {{ .Release.Namespace }}  {{ .Chart.AppVersion }}
    ... | quote        ... | nindent N            ... | indent N       toYaml .Values.a
    {{- ... }} and {{ ... -}} trim the whitespace before / after the action, as in Go templates.
    {{ if .Values.a }} ... {{ else }} ... {{ end }}, nested; Go's truthiness (false, 0, "",
    an empty map or list are false). A branch not taken is not evaluated, as in Go templates.

A `.Values` path that does not exist raises too (real Helm would print `<no value>`), so a typo
in a template fails a test instead of reaching a cluster.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import yaml

_ACTION = re.compile(r"\{\{(-?)\s*(.*?)\s*(-?)\}\}", re.DOTALL)
_PATH = re.compile(r"^\.(Values|Release|Chart)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)?$")


class UnsupportedTemplate(ValueError):
    """The template uses Go-template syntax outside the subset this renderer implements."""


def render(
    template: str,
    *,
    values: Mapping[str, Any],
    release: Mapping[str, Any],
    chart: Mapping[str, Any],
) -> str:
    scope = {"Values": values, "Release": release, "Chart": chart}
    out: list[str] = []
    pos = 0
    trim_next = False
    taken: list[bool] = []  # one per open `if`: whether its current branch renders
    for match in _ACTION.finditer(template):
        text = template[pos : match.start()]
        if trim_next:
            text = text.lstrip()
        if match.group(1):
            text = text.rstrip()
        rendering = all(taken)
        if rendering:
            out.append(text)
        action = match.group(2)
        words = action.split()
        if words[:1] == ["if"]:
            if len(words) != 2:
                raise UnsupportedTemplate(f"unsupported condition {{{{ {action} }}}}")
            taken.append(rendering and _truthy(_lookup(words[1], scope)))
        elif words in (["else"], ["end"]):
            if not taken:
                raise UnsupportedTemplate(f"{{{{ {action} }}}} without an if")
            branch = taken.pop()
            if words == ["else"]:
                taken.append(all(taken) and not branch)
        elif rendering:
            out.append(_evaluate(action, scope))
        trim_next = bool(match.group(3))
        pos = match.end()
    if taken:
        raise UnsupportedTemplate("an if without its end")
    tail = template[pos:]
    out.append(tail.lstrip() if trim_next else tail)
    return "".join(out)


def _truthy(value: Any) -> bool:
    return bool(value)  # Go's truthiness matches Python's for YAML's scalars and collections


def _evaluate(expression: str, scope: Mapping[str, Any]) -> str:
    stages = [stage.strip() for stage in expression.split("|")]
    words = stages[0].split()
    if len(words) == 2 and words[0] == "toYaml":
        text = _to_yaml(_lookup(words[1], scope))
    elif len(words) == 1:
        text = _to_string(_lookup(words[0], scope))
    else:
        raise UnsupportedTemplate(f"unsupported action {{{{ {expression} }}}}")
    for stage in stages[1:]:
        text = _apply(stage, text, expression)
    return text


def _apply(stage: str, text: str, expression: str) -> str:
    words = stage.split()
    if words == ["quote"]:
        return json.dumps(text)
    if len(words) == 2 and words[0] in ("indent", "nindent") and words[1].isdigit():
        pad = " " * int(words[1])
        indented = pad + text.replace("\n", "\n" + pad)
        return "\n" + indented if words[0] == "nindent" else indented
    raise UnsupportedTemplate(f"unsupported function {stage!r} in {{{{ {expression} }}}}")


def _lookup(path: str, scope: Mapping[str, Any]) -> Any:
    match = _PATH.match(path)
    if match is None:
        raise UnsupportedTemplate(f"unsupported reference {path!r}")
    value: Any = scope[match.group(1)]
    walked = "." + match.group(1)
    for name in (match.group(2) or "").split(".")[1:]:
        walked += "." + name
        if not isinstance(value, Mapping) or name not in value:
            raise KeyError(f"{walked} is not defined")
        value = value[name]
    return value


def _to_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping | list):
        raise UnsupportedTemplate("printing a map or list needs toYaml")
    return str(value)


def _to_yaml(value: Any) -> str:
    # Helm's toYaml: block style, keys sorted, no trailing newline.
    return yaml.safe_dump(value, default_flow_style=False, sort_keys=True).rstrip("\n")
