"""binpack: prefer nodes the task fills most (Volcano's BinPackingScore, 0-100 times weight)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.resources import FloatVec, IntVec
from services.scheduler.framework.arguments import Arguments
from services.scheduler.framework.extension import Rows
from services.scheduler.plugins.base import BasePlugin
from shared.resources import CPU, MEMORY

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "binpack"
RESOURCES_PREFIX = "binpack.resources."


def _resource_weight(args: Arguments, key: str) -> int:
    """A per-resource weight; Volcano's ``calculateWeight`` turns a negative one into 1."""
    weight = args.integer(key, 1)
    return 1 if weight < 0 else weight


class BinpackPlugin(BasePlugin):
    name = NAME

    def __init__(self, args: Arguments) -> None:
        self.weight = args.integer("binpack.weight", 1)
        self.resource_weights = {
            CPU: _resource_weight(args, "binpack.cpu"),
            MEMORY: _resource_weight(args, "binpack.memory"),
        }
        extra = args.text("binpack.resources", "")
        for name in (n.strip() for n in extra.split(",")):
            if name and name not in (CPU, MEMORY):
                self.resource_weights[name] = _resource_weight(args, RESOURCES_PREFIX + name)
        for key in args.raw:
            if key.startswith(RESOURCES_PREFIX) and key[len(RESOURCES_PREFIX) :] not in (
                self.resource_weights
            ):
                args.integer(key, 1)

    def on_session_open(self, ssn: Session) -> None:
        index = ssn.space.index
        self.columns = [(index[n], w) for n, w in self.resource_weights.items() if n in index and w]
        self._requests: dict[int, tuple[IntVec, list[tuple[int, float, int]], int]] = {}
        if self.weight:
            ssn.points.node_order.add(NAME, self)

    def row_local(self, task: TaskInfo) -> bool:
        return True

    def _terms(self, request: IntVec) -> tuple[list[tuple[int, float, int]], int]:
        """(column, weight, amount) of the scored resources the request asks for, and the sum
        of their weights; kept per request vector (the tasks of one template share theirs)."""
        known = self._requests.get(id(request))
        if known is None or known[0] is not request:
            amounts = request.tolist()
            terms = [(c, float(w), amounts[c]) for c, w in self.columns if amounts[c] != 0]
            weight_sum = sum(w for c, w in self.columns if amounts[c] != 0)
            known = self._requests[id(request)] = (request, terms, weight_sum)
        return known[1], known[2]

    def score_row(self, task: TaskInfo, nodes: NodeTable, row: int) -> float:
        """One row's score; the same float operations in the same order as ``score``."""
        terms, weight_sum = self._terms(task.request)
        alloc = nodes.allocatable_rows[row]
        used = nodes.used[row].tolist()
        score, overflow = 0.0, False
        for col, weight, amount in terms:
            final = used[col] + amount
            capacity = alloc[col]
            if capacity > 0:
                overflow = overflow or final > capacity
                score += final * weight / float(capacity)
        if weight_sum:
            score /= weight_sum
        return 0.0 if overflow else score * (100 * self.weight)

    def score(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        alloc = nodes.allocatable[rows]
        used = nodes.used[rows]
        score = np.zeros(len(alloc), dtype=np.float64)
        overflow = np.zeros(len(alloc), dtype=bool)
        weight_sum = 0
        for col, weight in self.columns:
            request = int(task.request[col])
            if request == 0:
                continue
            capacity = alloc[:, col].astype(np.float64)
            final = used[:, col] + request
            # A node without the resource scores 0 for it but is no overflow (Volcano's
            # ResourceBinPackingScore checks the capacity first); predicates reject it anyway.
            overflow |= (final > alloc[:, col]) & (capacity > 0)
            score += np.divide(
                final * float(weight), capacity, out=np.zeros_like(capacity), where=capacity > 0
            )
            weight_sum += weight
        if weight_sum:
            score /= weight_sum
        result: FloatVec = np.where(overflow, 0.0, score * (100 * self.weight))
        return result


def new(arguments: dict[str, Any]) -> BinpackPlugin:
    known = ("binpack.weight", "binpack.cpu", "binpack.memory", "binpack.resources")
    return BinpackPlugin(Arguments(arguments, known=known, prefixes=(RESOURCES_PREFIX,)))
