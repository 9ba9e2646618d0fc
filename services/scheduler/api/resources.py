"""Dense resource vectors: one column per resource name, shared by every node, task and queue.

Node arithmetic is exact int64 milli-units (the placement hot path is NumPy over these rows).
Queue and share arithmetic is float64, as Volcano's, with ``inf`` standing for "no limit".
The ``pods`` column counts pods (1000 per pod) and is left out of shares and quotas, as
Volcano keeps pod counts apart from its resource dimensions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import numpy.typing as npt

from shared.quantities import format_milli
from shared.resources import CPU, MEMORY, PODS

IntVec = npt.NDArray[np.int64]
FloatVec = npt.NDArray[np.float64]
BoolVec = npt.NDArray[np.bool_]

# Volcano's LessEqual tolerance (minResource) so float round-off never flips a quota decision.
EPSILON = 0.1
_INF = float("inf")
_BYTES = frozenset({MEMORY, "ephemeral-storage", "storage"})


class ResourceSpace:
    """The column layout: cpu, memory, pods, then every other name seen, sorted."""

    __slots__ = ("index", "names", "pods", "quota_dims", "quota_mask")

    def __init__(self, names: Iterable[str]) -> None:
        rest = sorted(set(names) - {CPU, MEMORY, PODS})
        self.names: tuple[str, ...] = (CPU, MEMORY, PODS, *rest)
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.pods = self.index[PODS]
        mask = np.ones(len(self.names), dtype=bool)
        mask[self.pods] = False
        self.quota_mask: BoolVec = mask
        self.quota_dims: tuple[int, ...] = tuple(int(i) for i in np.flatnonzero(mask))

    def __len__(self) -> int:
        return len(self.names)

    def vector(self, amounts: Mapping[str, int]) -> IntVec:
        out = np.zeros(len(self.names), dtype=np.int64)
        for name, value in amounts.items():
            out[self.index[name]] = value
        return out

    def quota(self, amounts: Mapping[str, int], *, missing: float = 0.0) -> FloatVec:
        """A float quota vector; names absent from ``amounts`` get ``missing`` (0 or inf)."""
        out = np.full(len(self.names), missing, dtype=np.float64)
        for name, value in amounts.items():
            if name in self.index:
                out[self.index[name]] = float(value)
        out[self.pods] = 0.0
        return out

    def zeros(self) -> FloatVec:
        return np.zeros(len(self.names), dtype=np.float64)

    def describe(self, vector: IntVec | FloatVec, *, skip_pods: bool = True) -> str:
        """``cpu 2, memory 4Gi`` for the non-zero, finite entries."""
        parts = []
        for i, name in enumerate(self.names):
            value = vector[i]
            if (skip_pods and i == self.pods) or value == 0 or not np.isfinite(value):
                continue
            parts.append(f"{name} {self.format(name, int(value))}")
        return ", ".join(parts) or "nothing"

    @staticmethod
    def format(name: str, milli: int) -> str:
        return format_milli(milli, binary=name in _BYTES or name.startswith("hugepages-"))


def less_equal(left: FloatVec, right: FloatVec) -> bool:
    """Every dimension of ``left`` is within ``right`` (Volcano ``LessEqual`` with tolerance).
    Plain floats: for a handful of dimensions NumPy's per-call cost is most of the work."""
    for lv, rv in zip(left.tolist(), right.tolist(), strict=True):
        if not (lv <= rv or abs(lv - rv) < EPSILON):
            return False
    return True


def within_for(allocated: FloatVec, request: FloatVec, limit: FloatVec) -> bool:
    """``less_equal_in(allocated + request, limit, request > 0)`` in plain floats (the same
    additions and comparisons): the per-task queue check."""
    bounds = limit.tolist()
    for have, asked, bound in zip(allocated.tolist(), request.tolist(), bounds, strict=True):
        if asked > 0:
            wanted = have + asked
            if wanted > bound and abs(wanted - bound) >= EPSILON:
                return False
    return True


def less_equal_in(left: FloatVec, right: FloatVec, dims: BoolVec) -> bool:
    """``less_equal`` restricted to ``dims`` (Volcano ``LessEqualWithDimension``)."""
    for lv, rv, on in zip(left.tolist(), right.tolist(), dims.tolist(), strict=True):
        if on and lv > rv and abs(lv - rv) >= EPSILON:
            return False
    return True


def share(allocated: FloatVec, total: FloatVec, dims: tuple[int, ...]) -> float:
    """max over ``dims`` of allocated/total; a dimension with total 0 counts 1 if used, else 0."""
    best = 0.0
    have_all, whole_all = allocated.tolist(), total.tolist()
    for i in dims:
        have, whole = have_all[i], whole_all[i]
        if whole == 0.0:
            value = 1.0 if have > 0 else 0.0
        elif whole == _INF:
            value = 0.0
        else:
            value = have / whole
        if value > best:
            best = value
    return best
