"""The HyperNode tree of a session (Volcano ``HyperNodesInfo`` and the session's copy of it).

Each HyperNode resolves its members to real nodes: a ``Node`` member by ``exactMatch`` (a name),
``regexMatch`` (a pattern searched in node names, as Go's ``MatchString``) or ``labelMatch``
(a non-empty label selector); a ``HyperNode`` member (``exactMatch`` only) becomes a child whose
nodes the parent includes. A member HyperNode that does not exist is kept as an empty
placeholder of tier 0, as upstream's cache does. On top sits the virtual
``<cluster-top-hypernode>``, one tier above the highest, holding every node and every HyperNode
without a parent. A cycle, or a HyperNode claimed by two parents, leaves the tree not ready
(upstream's ``HyperNodesReadyToSchedule``): jobs with a network topology then wait.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from services.scheduler.api.node import NodeTable
from services.scheduler.api.resources import BoolVec
from shared.models import HyperNode
from shared.models.topology import MEMBER_TYPE_HYPERNODE, MEMBER_TYPE_NODE, MemberSelector

TOP = "<cluster-top-hypernode>"


class HyperNodeInfo:
    """One HyperNode: its tier, parent, children and the rows of its real nodes."""

    __slots__ = ("children", "members", "name", "parent", "rows", "tier", "tier_name")

    def __init__(self, name: str, tier: int, tier_name: str = "") -> None:
        self.name = name
        self.tier = tier
        self.tier_name = tier_name
        self.parent = ""
        self.children: list[str] = []
        self.members: list[tuple[str, MemberSelector]] = []
        self.rows: set[int] = set()


class HyperNodeTree:
    """HyperNodes by name and by tier, with their real nodes as NodeTable rows."""

    def __init__(self, infos: dict[str, HyperNodeInfo], by_tier: dict[int, list[str]]) -> None:
        self.infos = infos
        self.by_tier = by_tier
        self.tiers: list[int] = sorted(by_tier)
        self.error = ""
        self.tier_names: dict[str, int] = {
            i.tier_name: i.tier for i in infos.values() if i.tier_name and i.name != TOP
        }
        self._masks: dict[str, BoolVec] = {}
        self._size = 0
        # Per row, the HyperNode of the lowest tier holding it (upstream FindHyperNodeForNode).
        self.leaf_of_row: list[str] = []

    # -- building ----------------------------------------------------------------------
    @classmethod
    def build(cls, hyper_nodes: Sequence[HyperNode], nodes: NodeTable) -> HyperNodeTree:
        infos: dict[str, HyperNodeInfo] = {}
        by_tier: dict[int, list[str]] = {}
        for hn in sorted(hyper_nodes, key=lambda h: h.metadata.name):
            info = HyperNodeInfo(hn.metadata.name, hn.spec.tier, hn.spec.tierName)
            info.members = [(m.type, m.selector) for m in hn.spec.members]
            infos[info.name] = info
            by_tier.setdefault(info.tier, []).append(info.name)
        tree = cls(infos, by_tier)
        tree.error = tree._link()
        if not tree.error:
            tree.error = tree._resolve(nodes)
        tree._add_top(nodes)
        tree._size = len(nodes)
        lowest = sorted(by_tier[tree.tiers[0]]) if tree.tiers else []
        leaf = [""] * len(nodes)
        for name in reversed(lowest):
            for row in infos[name].rows:
                leaf[row] = name
        tree.leaf_of_row = leaf
        return tree

    def _link(self) -> str:
        for info in list(self.infos.values()):
            for member_type, selector in info.members:
                if member_type != MEMBER_TYPE_HYPERNODE or selector.exactMatch is None:
                    continue
                child_name = selector.exactMatch.name
                child = self.infos.get(child_name)
                if child is None:
                    child = self.infos[child_name] = HyperNodeInfo(child_name, 0)
                if child.parent and child.parent != info.name:
                    return (
                        f"HyperNode {child_name} already has a parent {child.parent}, "
                        f"and cannot set another parent {info.name}"
                    )
                child.parent = info.name
                if child_name not in info.children:
                    info.children.append(child_name)
        for info in self.infos.values():
            info.children.sort()
        return ""

    def _resolve(self, nodes: NodeTable) -> str:
        done: set[str] = set()

        def visit(name: str, chain: list[str]) -> str:
            if name in chain:
                return f"cyclic dependency detected: HyperNode {name} is already in the chain"
            if name in done:
                return ""
            info = self.infos[name]
            for member_type, selector in info.members:
                if member_type == MEMBER_TYPE_NODE:
                    info.rows |= _members(selector, nodes)
            for child in info.children:
                error = visit(child, [*chain, name])
                if error:
                    return error
                info.rows |= self.infos[child].rows
            done.add(name)
            return ""

        for name in sorted(self.infos):
            error = visit(name, [])
            if error:
                return error
        return ""

    def _add_top(self, nodes: NodeTable) -> None:
        top_tier = max([1, *(t + 1 for t in self.by_tier)])
        top = HyperNodeInfo(TOP, top_tier)
        top.rows = set(range(len(nodes)))
        for info in self.infos.values():
            if not info.parent:
                info.parent = TOP
                top.children.append(info.name)
        top.children.sort()
        self.infos[TOP] = top
        self.by_tier[top_tier] = [TOP]
        self.tiers = sorted(self.by_tier)

    # -- queries ---------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        return not self.error

    def tier(self, name: str) -> int:
        return self.infos[name].tier

    def mask(self, name: str) -> BoolVec:
        """The rows of the HyperNode's real nodes as a mask over the node table."""
        found = self._masks.get(name)
        if found is None:
            found = np.zeros(self._size, dtype=bool)
            rows = self.infos[name].rows if name in self.infos else set()
            if rows:
                found[sorted(rows)] = True
            self._masks[name] = found
        return found

    def ancestors(self, name: str) -> list[str]:
        """``name`` and its ancestors, lowest first (upstream ``GetAncestors``)."""
        out = [name]
        current = self.infos.get(name)
        while current is not None and current.parent and current.parent not in out:
            out.append(current.parent)
            current = self.infos.get(current.parent)
        return out

    def lca(self, left: str, right: str) -> str:
        """The lowest common ancestor (upstream ``GetLCAHyperNode``; an empty side gives the
        other)."""
        if not left:
            return right
        if not right:
            return left
        mine = set(self.ancestors(left))
        return next((a for a in self.ancestors(right) if a in mine), "")


def _members(selector: MemberSelector, nodes: NodeTable) -> set[int]:
    """Upstream ``GetMembers``: the rows a Node member selects (unknown exact names: none)."""
    out: set[int] = set()
    if selector.exactMatch is not None and selector.exactMatch.name:
        row = nodes.index.get(selector.exactMatch.name)
        if row is not None:
            out.add(row)
    if selector.regexMatch is not None:
        try:
            pattern = re.compile(selector.regexMatch.pattern)
        except re.error:
            return set()
        out |= {row for row, name in enumerate(nodes.names) if pattern.search(name)}
    if selector.labelMatch is not None:
        match = selector.labelMatch
        if match.matchLabels or match.matchExpressions:
            out |= {row for row, labels in enumerate(nodes.labels) if match.matches(labels)}
    return out
