"""Node filtering and scoring for one task, vectorised over every node and cached.

For each pod shape the static predicates are judged once per node class. For each
(shape, request) a cache keeps the resource-fit mask, the scores and the masked scores for
all nodes; after a placement only the rows logged in ``NodeTable.changes`` are recomputed,
so the identical tasks of a gang (and identical single-pod jobs) cost one row update and
one argmax each. Ties go to the lowest row (nodes are sorted by name): deterministic.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.resources import BoolVec, FloatVec
from services.scheduler.api.status import Code, FitErrors, Status, histogram
from services.scheduler.framework.extension import Filter, NodeScorer, Rows, StaticPredicate

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

RESOURCES = "resources"
_CACHE_SIZE = 64
_NOT_READY = Status(
    code=Code.UNRESOLVABLE, reason="NodeNotReady", message="not ready", plugin="nodes"
)


class StaticMask:
    __slots__ = ("codes", "passed", "reasons")

    def __init__(self, passed: BoolVec, codes: np.ndarray, reasons: list[Status]) -> None:
        self.passed = passed
        self.codes = codes
        self.reasons = reasons


class _Entry:
    __slots__ = ("cols", "fit", "local", "masked", "pos", "req", "score", "static")

    def __init__(self, static: StaticMask, req: np.ndarray, local: bool) -> None:
        self.static = static
        self.req = req
        self.cols = np.flatnonzero(req)
        self.local = local
        self.pos = 0
        n = len(static.passed)
        self.fit: BoolVec = np.zeros(n, dtype=bool)
        self.score: FloatVec = np.zeros(n, dtype=np.float64)
        self.masked: FloatVec = np.full(n, -np.inf)


class Placer:
    """Chooses nodes for tasks; explains failures as a node histogram per reason."""

    def __init__(self, ssn: Session) -> None:
        self.ssn = ssn
        self.nodes: NodeTable = ssn.nodes
        self.static_fns: list[StaticPredicate] = ssn.points.static_predicate.all
        self.dynamic_fns = ssn.points.dynamic_predicate.all
        self.scorers: list[NodeScorer] = ssn.points.node_order.all
        self._static: dict[bytes, StaticMask] = {}
        self._entries: OrderedDict[tuple[bytes, bytes], _Entry] = OrderedDict()

    # -- predicates ---------------------------------------------------------------------
    def static(self, task: TaskInfo) -> StaticMask:
        found = self._static.get(task.shape)
        if found is not None:
            return found
        reasons: list[Status] = []
        per_class = np.full(len(self.nodes.classes), -1, dtype=np.int16)
        for c, node_class in enumerate(self.nodes.classes):
            status = _NOT_READY if not node_class.ready else None
            for fn in self.static_fns:
                if status is not None:
                    break
                status = fn(task, node_class)
            if status is not None:
                if status not in reasons:
                    reasons.append(status)
                per_class[c] = reasons.index(status)
        codes = per_class[self.nodes.class_of] if len(self.nodes) else per_class[:0]
        mask = StaticMask(codes < 0, codes, reasons)
        self._static[task.shape] = mask
        return mask

    def dynamic(self, task: TaskInfo) -> list[Filter]:
        filters = []
        for fn in self.dynamic_fns:
            result: Filter | None = fn(task, self.nodes)
            if result is not None:
                filters.append(result)
        return filters

    def passes_dynamic(self, task: TaskInfo, row: int) -> bool:
        """The dynamic predicates (pod affinity) on one row, as the session stands now."""
        return all(bool(f.passed[row]) for f in self.dynamic(task))

    def feasible(self, task: TaskInfo, *, resources: bool) -> BoolVec:
        mask = self.static(task).passed.copy()
        for f in self.dynamic(task):
            mask &= f.passed
        if resources:
            mask &= self._fits(task.request, slice(None))
        return mask

    def _fits(self, req: np.ndarray, rows: Rows) -> BoolVec:
        cols = np.flatnonzero(req)
        if not len(cols):
            return np.ones(len(self.nodes.names), dtype=bool)[rows]
        fut = self.nodes.future[rows][:, cols]
        result: BoolVec = np.all(fut >= req[cols], axis=1)
        return result

    # -- scores ----------------------------------------------------------------------------
    def scores(self, task: TaskInfo, rows: Rows) -> FloatVec:
        total: FloatVec | None = None
        for scorer in self.scorers:
            part = scorer.score(task, self.nodes, rows)
            total = part if total is None else total + part
        if total is None:
            return np.zeros(len(np.arange(len(self.nodes))[rows]), dtype=np.float64)
        return total

    def _entry(self, task: TaskInfo) -> _Entry:
        key = (task.shape, task.request.tobytes())
        entry = self._entries.get(key)
        if entry is None:
            local = all(s.row_local(task) for s in self.scorers)
            entry = _Entry(self.static(task), task.request, local)
            self._refresh(entry, task, slice(None))
            entry.pos = len(self.nodes.changes)
            self._entries[key] = entry
            if len(self._entries) > _CACHE_SIZE:
                self._entries.popitem(last=False)
            return entry
        self._entries.move_to_end(key)
        log = self.nodes.changes
        if entry.pos < len(log):
            dirty = set(log[entry.pos :])
            if entry.local and len(dirty) <= 8:
                self._refresh_rows(entry, task, sorted(dirty))
            elif len(dirty) > 256:
                self._refresh(entry, task, slice(None))
            else:
                self._refresh(entry, task, np.array(sorted(dirty), dtype=np.intp))
            entry.pos = len(log)
        return entry

    def _refresh(self, entry: _Entry, task: TaskInfo, rows: Rows) -> None:
        entry.fit[rows] = self._fits(entry.req, rows)
        if entry.local:
            entry.score[rows] = self.scores(task, rows)
        ok = entry.fit[rows] & entry.static.passed[rows]
        entry.masked[rows] = np.where(ok, entry.score[rows], -np.inf)

    def _refresh_rows(self, entry: _Entry, task: TaskInfo, rows: list[int]) -> None:
        """A few rows in plain Python: cheaper than NumPy's per-call overhead."""
        cols = entry.cols.tolist()
        need = entry.req[entry.cols].tolist()
        future = self.nodes.future
        for row in rows:
            free = future[row, entry.cols].tolist() if cols else []
            fit = all(f >= r for f, r in zip(free, need, strict=True))
            entry.fit[row] = fit
            score = 0.0
            for scorer in self.scorers:
                score += scorer.score_row(task, self.nodes, row)
            entry.score[row] = score
            entry.masked[row] = score if fit and entry.static.passed[row] else -np.inf

    def choose(self, task: TaskInfo, within: BoolVec | None = None) -> int:
        """The best feasible node row for ``task`` (-1 if none): Volcano's allocate pick;
        ``within`` limits it to some nodes (a HyperNode's)."""
        if not len(self.nodes):
            return -1
        entry = self._entry(task)
        # Tasks sharing an entry share shape and request, not labels, images or spread
        # constraints: whether the cached scores hold is asked per task.
        if not entry.local or not all(s.row_local(task) for s in self.scorers):
            return self._choose_scoring(task, entry, within)
        masked = entry.masked
        if within is not None:
            masked = np.where(within, masked, -np.inf)
        for f in self.dynamic(task):
            masked = np.where(f.passed, masked, -np.inf)
        row = int(np.argmax(masked))
        if masked[row] == -np.inf:
            return -1
        if not self.fits_idle(task, row):
            # Volcano scores nodes whose idle fits before those that fit only once releasing
            # resources are gone (pipelining): prefer the best node that fits now, if any.
            cols = entry.cols
            now = np.all(self.nodes.idle[:, cols] >= entry.req[cols], axis=1)
            idle = np.where(now, masked, -np.inf)
            best = int(np.argmax(idle))
            if idle[best] > -np.inf:
                row = best
        return row

    def _choose_scoring(self, task: TaskInfo, entry: _Entry, within: BoolVec | None) -> int:
        """Volcano's ``prioritizeNodes``: score the feasible nodes whose idle fits the task,
        else those that fit its future idle; one candidate is taken unscored. Scores that
        normalise over the candidates (spread, pod affinity) see exactly these."""
        feasible = entry.fit & entry.static.passed
        if within is not None:
            feasible &= within
        for f in self.dynamic(task):
            feasible &= f.passed
        rows = np.flatnonzero(feasible)
        if not len(rows):
            return -1
        cols = entry.cols
        now = np.all(self.nodes.idle[rows][:, cols] >= entry.req[cols], axis=1)
        if now.any():
            rows = rows[now]
        if len(rows) == 1:
            return int(rows[0])
        return int(rows[int(np.argmax(self.scores(task, rows)))])

    def fits_idle(self, task: TaskInfo, row: int) -> bool:
        idle = self.nodes.idle[row].tolist()
        return all(i >= r for i, r in zip(idle, task.request.tolist(), strict=True))

    def ranked(self, task: TaskInfo, mask: BoolVec) -> list[int]:
        """Rows passing ``mask``, best score first (ties by row): preempt's node order."""
        rows = np.flatnonzero(mask)
        if not len(rows):
            return []
        scores = self.scores(task, rows)
        order = np.lexsort((rows, -scores))
        return [int(r) for r in rows[order]]

    # -- explanations ------------------------------------------------------------------
    def fit_errors(self, task: TaskInfo, within: BoolVec | None = None) -> FitErrors:
        """Attribute every node (of ``within``, if given) to the first reason it fails:
        static, dynamic, resources."""
        nodes = self.nodes
        counts: dict[Status, int] = {}
        static = self.static(task)
        codes = static.codes if within is None else np.where(within, static.codes, -1)
        for code in np.unique(codes[codes >= 0]):
            counts[static.reasons[int(code)]] = int(np.count_nonzero(codes == code))
        open_rows = static.passed.copy()
        if within is not None:
            open_rows &= within
        for f in self.dynamic(task):
            for status, failed in f.failures:
                hit = int(np.count_nonzero(failed & open_rows))
                if hit:
                    counts[status] = counts.get(status, 0) + hit
                open_rows &= ~failed
        req = task.request
        for col in np.flatnonzero(req):
            short = open_rows & (nodes.future[:, col] < req[col])
            hit = int(np.count_nonzero(short))
            if not hit:
                continue
            counts[self._shortage(int(col), int(req[col]), nodes.future[short, col])] = hit
            open_rows &= ~short
        total = len(nodes) if within is None else int(np.count_nonzero(within))
        return histogram(task.key, total, counts)

    def _shortage(self, col: int, need: int, free: np.ndarray) -> Status:
        space = self.nodes.space
        name = space.names[col]
        if col == space.pods:
            return Status(reason="TooManyPods", message="too many pods", plugin=RESOURCES)
        best = max(int(free.max()), 0)
        message = (
            f"insufficient {name} (need {space.format(name, need)}, "
            f"max free {space.format(name, best)})"
        )
        return Status(reason="InsufficientResource", message=message, plugin=RESOURCES)
