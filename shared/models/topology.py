"""Volcano HyperNode (topology.volcano.sh/v1alpha1): a network topology domain.

A HyperNode of ``spec.tier`` groups nodes (members of type ``Node``) or lower-tier HyperNodes
(members of type ``HyperNode``), each member chosen by exactly one selector: ``exactMatch``
(a name), ``regexMatch`` (a name pattern) or ``labelMatch`` (node labels; Node members only).
Field names, member types and defaults are upstream's (volcano-sh/apis
``pkg/apis/topology/v1alpha1/hypernode_types.go``).
"""

from __future__ import annotations

import msgspec

from shared.models.base import Condition, LabelSelector, Model, ObjectMeta

MEMBER_TYPE_NODE = "Node"
MEMBER_TYPE_HYPERNODE = "HyperNode"


class ExactMatch(Model):
    name: str = ""


class RegexMatch(Model):
    pattern: str = ""


class MemberSelector(Model):
    exactMatch: ExactMatch | None = None
    regexMatch: RegexMatch | None = None
    labelMatch: LabelSelector | None = None


class MemberSpec(Model):
    type: str = ""
    selector: MemberSelector = msgspec.field(default_factory=MemberSelector)


class HyperNodeSpec(Model):
    tier: int = 0
    tierName: str = ""
    members: list[MemberSpec] = []


class HyperNodeStatus(Model):
    conditions: list[Condition] = []
    nodeCount: int = 0


class HyperNode(Model):
    apiVersion: str = "topology.volcano.sh/v1alpha1"
    kind: str = "HyperNode"
    metadata: ObjectMeta = msgspec.field(default_factory=ObjectMeta)
    spec: HyperNodeSpec = msgspec.field(default_factory=HyperNodeSpec)
    status: HyperNodeStatus = msgspec.field(default_factory=HyperNodeStatus)
