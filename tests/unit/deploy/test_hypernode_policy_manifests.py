"""The HyperNode ValidatingAdmissionPolicy deploy/ installs: Volcano's, unchanged, and the rules
kubesim plays in-process (services/webhook/core/hypernode_policy.py) are its rules: each of its
validations, in its order, refuses with its message there too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from services.kubesim.admission import POLICIES
from services.webhook.core.hypernode_policy import BINDING, POLICY, validate_hypernode
from tests.unit.deploy.test_manifests import DEPLOY, _find, _kustomize, needs_kubectl

Obj = dict[str, Any]
UPSTREAM = Path(__file__).parents[2] / "data" / "upstream" / "volcano" / "policy"
SHIPPED = DEPLOY / "kustomize" / "base" / "hypernode-policy.yaml"


def _documents(path: Path) -> list[Obj]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _policy() -> Obj:
    return _find(_documents(SHIPPED), "ValidatingAdmissionPolicy", POLICY)


def test_the_shipped_policy_and_binding_are_volcanos() -> None:
    assert _documents(SHIPPED) == _documents(UPSTREAM / "hypernodes-validating.yaml")
    binding = _find(_documents(SHIPPED), "ValidatingAdmissionPolicyBinding", BINDING)
    assert binding["spec"]["policyName"] == POLICY
    assert binding["spec"]["validationActions"] == ["Deny"]


@needs_kubectl
def test_the_base_installs_the_policy() -> None:
    base = _kustomize(DEPLOY / "kustomize" / "base")
    assert _find(base, "ValidatingAdmissionPolicy", POLICY) == _policy()
    assert _find(base, "ValidatingAdmissionPolicyBinding", BINDING)


def test_kubesim_plays_it_on_the_policys_resources() -> None:
    (rule,) = _policy()["spec"]["matchConstraints"]["resourceRules"]
    assert rule["operations"] == ["CREATE", "UPDATE"]
    for group in rule["apiGroups"]:
        for resource in rule["resources"]:
            assert POLICIES[(group, resource)][:2] == (POLICY, BINDING)


def _hyper_node(*selectors: Obj) -> Obj:
    members = [{"type": "Node", "selector": s} for s in selectors]
    return {"metadata": {"name": "s0"}, "spec": {"tier": 1, "members": members}}


# One HyperNode per validation of the policy, in its order, failing that one first.
VIOLATIONS = [
    _hyper_node(),
    _hyper_node({}),
    _hyper_node({"exactMatch": {"name": "n"}, "labelMatch": {}}),
    _hyper_node({"exactMatch": {"name": ""}}),
    _hyper_node({"exactMatch": {"name": "-n"}}),
    _hyper_node({"regexMatch": {"pattern": ""}}),
    _hyper_node({"regexMatch": {"pattern": "rack-(a"}}),
    _hyper_node({"regexMatch": {"pattern": "rack-[a"}}),
    _hyper_node({"regexMatch": {"pattern": "rack-{a"}}),
]


@pytest.mark.parametrize("index", range(len(VIOLATIONS)))
def test_each_validation_refuses_in_kubesim_with_the_policys_message(index: int) -> None:
    validations = _policy()["spec"]["validations"]
    assert len(validations) == len(VIOLATIONS)
    assert validate_hypernode(VIOLATIONS[index]) == validations[index]["message"]
