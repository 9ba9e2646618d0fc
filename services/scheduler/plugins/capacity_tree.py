"""The hierarchical queue tree as capacity walks it when reclaiming (Volcano capacity's
``ancestors`` list, ``queueAncestorAtDepth``, ``getQueueLevel``).

A queue's ancestors are listed root first, the queue itself left out; depth 1 is the parent,
depth 2 the grandparent, and so on. ``ancestorReclaimLevel`` names how many of those depths
reclaim also checks.
"""

from __future__ import annotations

from collections.abc import Mapping

ROOT = "root"


class QueueTree:
    """Ancestors of every queue, from a child → parent map."""

    def __init__(self, parent: Mapping[str, str]) -> None:
        self._ancestors: dict[str, list[str]] = {}
        for name in parent:
            self.ancestors(name, parent)

    def ancestors(self, name: str, parent: Mapping[str, str] | None = None) -> list[str]:
        """Root first, ``name`` itself left out (a cycle ends the walk)."""
        found = self._ancestors.get(name)
        if found is not None or parent is None:
            return found or []
        chain: list[str] = []
        seen = {name}
        current = name
        while current in parent and parent[current] not in seen:
            current = parent[current]
            seen.add(current)
            chain.append(current)
        chain.reverse()
        self._ancestors[name] = chain
        return chain

    def at_depth(self, name: str, depth: int) -> str | None:
        """``queueAncestorAtDepth``: depth 1 is the parent; None above the root."""
        chain = self.ancestors(name)
        if depth <= 0 or len(chain) < depth:
            return None
        return chain[len(chain) - depth]

    def within_level(self, name: str, level: int) -> dict[int, str]:
        """``ancestorsByLevel``: the ancestor at each depth 1..level that exists."""
        found = {}
        for depth in range(1, level + 1):
            ancestor = self.at_depth(name, depth)
            if ancestor is not None:
                found[depth] = ancestor
        return found

    def shares_non_root_ancestor(self, left: str, right: str, level: int) -> bool:
        """``sharesAnyNonRootAncestorWithinLevel``."""
        if level <= 0:
            return False
        mine = set(self.within_level(left, level).values()) - {ROOT}
        return bool(mine & set(self.within_level(right, level).values()))

    def ancestor_to_check(self, reclaimer: str, reclaimee: str, depth: int) -> str | None:
        """``getReclaimeeAncestorToCheck``: the reclaimee's ancestor at ``depth`` unless it is
        the root or the reclaimer's ancestor at that depth too (no contention above it)."""
        theirs = self.at_depth(reclaimee, depth)
        if theirs is None or theirs == ROOT:
            return None
        if self.at_depth(reclaimer, depth) == theirs:
            return None
        return theirs

    def level(self, left: str, right: str) -> int:
        """``getQueueLevel``: the index (root first) of the deepest ancestor both share."""
        level = 0
        for i, (a, b) in enumerate(zip(self.ancestors(left), self.ancestors(right), strict=False)):
            if a != b:
                return level
            level = i
        return level
