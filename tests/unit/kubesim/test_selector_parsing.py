"""Label and field selectors parse as the API server's do and select the right objects."""

from __future__ import annotations

from typing import Any

import pytest

from services.kubesim.selectors import SelectorError, parse_field_selector, parse_label_selector


def _obj(labels: dict[str, str], node: str = "", phase: str = "Pending") -> dict[str, Any]:
    return {
        "metadata": {"name": "p", "namespace": "ns", "labels": labels},
        "spec": {"nodeName": node} if node else {},
        "status": {"phase": phase},
    }


@pytest.mark.parametrize(
    ("selector", "labels", "selected"),
    [
        ("a=1", {"a": "1"}, True),
        ("a==1", {"a": "2"}, False),
        ("a!=1", {}, True),
        ("a in (1, 2)", {"a": "2"}, True),
        ("a notin (1,2)", {"a": "2"}, False),
        ("a notin (1,2)", {}, True),
        ("a", {"a": ""}, True),
        ("!a", {"a": "x"}, False),
        ("a=1,b in (x,y),!c", {"a": "1", "b": "y"}, True),
        ("example.com/team=ml", {"example.com/team": "ml"}, True),
    ],
    ids=[
        "eq",
        "double-eq",
        "neq-missing",
        "in",
        "notin",
        "notin-missing",
        "exists",
        "not-exists",
        "conjunction",
        "prefixed-key",
    ],
)
def test_label_selector(selector: str, labels: dict[str, str], selected: bool) -> None:
    predicate = parse_label_selector(selector)
    assert predicate is not None
    assert predicate(_obj(labels)) is selected


def test_empty_selectors_select_everything() -> None:
    assert parse_label_selector("") is None
    assert parse_field_selector(" ", "Pod") is None


@pytest.mark.parametrize("selector", ["a in (1", "a=1=2", "=x", "a b"], ids=str)
def test_malformed_label_selector_is_rejected(selector: str) -> None:
    with pytest.raises(SelectorError):
        parse_label_selector(selector)


@pytest.mark.parametrize(
    ("selector", "obj", "selected"),
    [
        ("spec.nodeName=n1", _obj({}, node="n1"), True),
        ("spec.nodeName=", _obj({}), True),
        ("spec.nodeName!=", _obj({}), False),
        ("status.phase!=Succeeded,status.phase!=Failed", _obj({}, phase="Running"), True),
        ("metadata.namespace==ns,metadata.name=p", _obj({}), True),
        ("metadata.name=q", _obj({}), False),
    ],
    ids=["node", "unbound", "bound", "not-terminal", "ns-and-name", "other-name"],
)
def test_field_selector(selector: str, obj: dict[str, Any], selected: bool) -> None:
    predicate = parse_field_selector(selector, "Pod")
    assert predicate is not None
    assert predicate(obj) is selected


def test_unsupported_field_label_is_rejected() -> None:
    with pytest.raises(SelectorError, match="field label not supported"):
        parse_field_selector("spec.nodeName=x", "ConfigMap")
