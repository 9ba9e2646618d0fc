"""kube-scheduler's NodeResourcesBalancedAllocation as Volcano's nodeorder configures it
(``balancedresource.weight``; resources cpu, memory and ``nvidia.com/gpu``, weight 1 each).

A node scores ``(1 - std) * 100`` (truncated) over the fractions ``min(requested /
allocatable, 1)`` of the resources it has: a resource the node does not have is left out,
the GPU counts only for pods asking for it, and a pod asking for none of the three is not
scored at all (kube-scheduler's PreScore skip for best-effort pods). Two fractions give
``|f0 - f1| / 2``, three the population standard deviation, fewer a perfect 100.
"""

from __future__ import annotations

import math

import numpy as np

from services.scheduler.api import NodeTable
from services.scheduler.api.resources import FloatVec, IntVec
from services.scheduler.framework.extension import Rows

MAX_SCORE = 100
_CPU, _MEMORY = 0, 1


def columns(req: IntVec | list[int], gpu: int | None) -> list[int]:
    """The resource columns scored for a request; empty when it asks for none of them."""
    cols = [_CPU, _MEMORY]
    if gpu is not None and req[gpu] > 0:
        cols.append(gpu)
    return cols if any(req[c] > 0 for c in cols) else []


def balanced_score(nodes: NodeTable, req: IntVec, rows: Rows, gpu: int | None) -> FloatVec:
    cols = columns(req, gpu)
    size = len(nodes.class_of[rows])
    if not cols:
        return np.zeros(size, dtype=np.float64)
    alloc = nodes.allocatable[rows][:, cols].astype(np.float64)
    requested = (nodes.used[rows][:, cols] + req[cols]).astype(np.float64)
    valid = alloc > 0
    frac = np.minimum(np.divide(requested, alloc, out=np.zeros_like(alloc), where=valid), 1.0)
    count = valid.sum(axis=1)
    if len(cols) == 2:
        std = np.where(count == 2, np.abs((frac[:, 0] - frac[:, 1]) / 2), 0.0)
    else:
        f0, f1, f2 = frac[:, 0], frac[:, 1], frac[:, 2]
        # Exactly two present: the pair in column order, as Go appends them.
        first = np.where(valid[:, 0], f0, f1)
        second = np.where(valid[:, 2], f2, f1)
        pair = np.abs((first - second) / 2)
        mean = (f0 + f1 + f2) / 3
        spread = np.sqrt(
            ((f0 - mean) * (f0 - mean) + (f1 - mean) * (f1 - mean) + (f2 - mean) * (f2 - mean)) / 3
        )
        std = np.where(count == 3, spread, np.where(count == 2, pair, 0.0))
    out: FloatVec = np.trunc((1 - std) * MAX_SCORE)
    return out


def balanced_row(alloc: list[int], used: list[int], req: list[int], cols: list[int]) -> float:
    """``balanced_score`` for one row in plain Python (the same float operations)."""
    if not cols:
        return 0.0
    if len(cols) == 2 and alloc[0] > 0 and alloc[1] > 0:  # cpu and memory: the common case
        first = min((used[0] + req[0]) / alloc[0], 1.0)
        second = min((used[1] + req[1]) / alloc[1], 1.0)
        return float(math.trunc((1 - abs((first - second) / 2)) * MAX_SCORE))
    fractions = [min((used[c] + req[c]) / alloc[c], 1.0) for c in cols if alloc[c] > 0]
    std = 0.0
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = (fractions[0] + fractions[1] + fractions[2]) / 3
        squares = 0.0
        for fraction in fractions:
            squares = squares + (fraction - mean) * (fraction - mean)
        std = math.sqrt(squares / 3)
    return float(math.trunc((1 - std) * MAX_SCORE))
