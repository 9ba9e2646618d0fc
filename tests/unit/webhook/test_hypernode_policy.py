"""Volcano's hypernode-validation-policy: each of its validations, in its order, with its
message."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.hypernode_policy import validate_hypernode


def hyper_node(*selectors: dict[str, Any]) -> dict[str, Any]:
    members = [{"type": "Node", "selector": s} for s in selectors]
    return {"metadata": {"name": "s0"}, "spec": {"tier": 1, "members": members}}


EXACT = {"exactMatch": {"name": "node-0"}}
ROWS = [
    ("valid", hyper_node(EXACT, {"regexMatch": {"pattern": "^rack-(a|b)"}}), ""),
    ("no-members", hyper_node(), "member must have at least one member"),
    (
        "no-selector",
        hyper_node(EXACT, {}),
        "member selector must have one of exactMatch, regexMatch, or labelMatch",
    ),
    (
        "two-selectors",
        hyper_node({**EXACT, "regexMatch": {"pattern": "x"}}),
        "cannot specify more than one selector type (exactMatch, regexMatch, labelMatch)",
    ),
    ("empty-name", hyper_node({"exactMatch": {"name": ""}}), "member exactMatch name is required"),
    (
        "bad-name",
        hyper_node({"exactMatch": {"name": "-node"}}),
        "member exactMatch validate failed [name part must consist of alphanumeric characters, "
        "'-', '_' or '.', and must start and end with an alphanumeric character]",
    ),
    ("prefixed-name", hyper_node({"exactMatch": {"name": "example.com/node_1"}}), ""),
    (
        "empty-pattern",
        hyper_node({"regexMatch": {"pattern": ""}}),
        "member regexMatch pattern is required",
    ),
    (
        "parentheses",
        hyper_node({"regexMatch": {"pattern": "(a|b"}}),
        "member regexMatch pattern is invalid: unmatched parentheses",
    ),
    (
        "brackets",
        hyper_node({"regexMatch": {"pattern": "[ab"}}),
        "member regexMatch pattern is invalid: unmatched square brackets",
    ),
    (
        "braces",
        hyper_node({"regexMatch": {"pattern": "a{2"}}),
        "member regexMatch pattern is invalid: unmatched curly braces",
    ),
    # The policy checks a pattern only when it contains the opening character (upstream's CEL).
    ("closing-only", hyper_node({"regexMatch": {"pattern": "a)"}}), ""),
]


@pytest.mark.parametrize(("obj", "message"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_hypernode_validation_policy(obj: dict[str, Any], message: str) -> None:
    assert validate_hypernode(obj) == message
