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
_MINUS_INF = float("-inf")
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
    __slots__ = (
        "best",
        "cols",
        "fit",
        "local",
        "masked",
        "need",
        "passed",
        "pos",
        "req",
        "shape",
        "static",
    )

    def __init__(self, static: StaticMask, req: np.ndarray, local: bool, shape: bytes) -> None:
        self.static = static
        self.req = req
        self.shape = shape
        self.cols = np.flatnonzero(req)
        # (column, amount) of what the task asks for, as plain ints: the per-row fit check.
        self.need: list[tuple[int, int]] = [(c, int(req[c])) for c in self.cols.tolist()]
        self.local = local
        self.pos = 0
        n = len(static.passed)
        self.passed: list[bool] = static.passed.tolist()
        self.fit: BoolVec = np.zeros(n, dtype=bool)
        self.masked: FloatVec = np.full(n, -np.inf)
        # The first row holding the largest ``masked`` value (np.argmax), -1: not known.
        self.best = -1


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
        self._idle_memo: tuple[TaskInfo | None, int, int, bool] = (None, -1, -1, False)
        self._last: _Entry | None = None  # the entry used last (most recent in ``_entries``)

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
        last = self._last
        if last is not None and last.req is task.request and last.shape == task.shape:
            entry = last  # the most recent entry again (a gang's next task): no key to build
        else:
            key = (task.shape, task.request.tobytes())
            found = self._entries.get(key)
            if found is None:
                local = self._row_local(task)
                entry = _Entry(self.static(task), task.request, local, task.shape)
                self._refresh(entry, task, slice(None))
                entry.pos = len(self.nodes.changes)
                self._entries[key] = entry
                if len(self._entries) > _CACHE_SIZE:
                    self._entries.popitem(last=False)
                self._last = entry
                return entry
            entry = found
            self._entries.move_to_end(key)
            self._last = entry
        log = self.nodes.changes
        end = len(log)
        if entry.pos == end - 1 and entry.local:
            self._refresh_rows(entry, task, [log[-1]])  # one placement since: the usual case
        elif entry.pos < end:
            dirty = set(log[entry.pos :])
            if entry.local and len(dirty) <= 8:
                self._refresh_rows(entry, task, sorted(dirty))
            elif len(dirty) > 256:
                self._refresh(entry, task, slice(None))
            else:
                self._refresh(entry, task, np.array(sorted(dirty), dtype=np.intp))
        entry.pos = end
        return entry

    def _refresh(self, entry: _Entry, task: TaskInfo, rows: Rows) -> None:
        entry.fit[rows] = self._fits(entry.req, rows)
        score = self.scores(task, rows) if entry.local else 0.0
        ok = entry.fit[rows] & entry.static.passed[rows]
        entry.masked[rows] = np.where(ok, score, -np.inf)
        entry.best = -1

    def _refresh_rows(self, entry: _Entry, task: TaskInfo, rows: list[int]) -> None:
        """A few rows in plain Python: cheaper than NumPy's per-call overhead. The best row
        is kept up to date too: np.argmax's first maximum can only move to a refreshed row,
        unless the best row itself lost value (then it is looked for again)."""
        need, passed, nodes = entry.need, entry.passed, self.nodes
        future, fits, masked = nodes.future, entry.fit, entry.masked
        best = entry.best
        top = masked.item(best) if best >= 0 else 0.0
        if top != top:  # a NaN maximum: np.argmax's own rules apply
            best = -1
        for row in rows:
            fit = True
            if need:
                free = future[row].tolist()
                for col, amount in need:
                    if free[col] < amount:
                        fit = False
                        break
            fits[row] = fit
            score = 0.0
            for scorer in self.scorers:
                score += scorer.score_row(task, nodes, row)
            value = score if fit and passed[row] else _MINUS_INF
            masked[row] = value
            if best < 0:
                continue
            if value != value:  # NaN: np.argmax's own rules apply
                best = -1
            elif row == best:
                if value < top:
                    best = -1
                else:
                    top = value
            elif value > top or (value == top and row < best):
                best, top = row, value
        entry.best = best

    def _best(self, entry: _Entry) -> int:
        if entry.best < 0:
            entry.best = int(entry.masked.argmax())
        return entry.best

    def choose(self, task: TaskInfo, within: BoolVec | None = None) -> int:
        """The best feasible node row for ``task`` (-1 if none): Volcano's allocate pick;
        ``within`` limits it to some nodes (a HyperNode's)."""
        if not len(self.nodes):
            return -1
        entry = self._entry(task)
        # Tasks sharing an entry share shape and request, not labels, images or spread
        # constraints: whether the cached scores hold is asked per task.
        if not entry.local or not self._row_local(task):
            return self._choose_scoring(task, entry, within)
        filters = self.dynamic(task)
        masked = entry.masked
        if filters or within is not None:
            if within is not None:
                masked = np.where(within, masked, -np.inf)
            for f in filters:
                masked = np.where(f.passed, masked, -np.inf)
            row = int(masked.argmax())
            if masked[row] == -np.inf:
                return -1
        else:
            row = self._best(entry)
            if masked.item(row) == _MINUS_INF:
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

    def _row_local(self, task: TaskInfo) -> bool:
        local = True
        for scorer in self.scorers:  # a loop: asked per task, a generator costs more
            local = local and scorer.row_local(task)
        return local

    def fits_idle(self, task: TaskInfo, row: int) -> bool:
        """Does the task fit the node's idle now (else it can only be pipelined)? Asked by
        ``choose`` and then again by its caller for the same row: the answer is kept until
        the node table changes."""
        nodes = self.nodes
        memo = self._idle_memo
        if memo[0] is task and memo[1] == row and memo[2] == len(nodes.changes):
            return memo[3]
        idle = nodes.idle[row].tolist()
        fits = True
        for free, amount in zip(idle, task.request.tolist(), strict=True):
            if free < amount:
                fits = False
                break
        self._idle_memo = (task, row, len(nodes.changes), fits)
        return fits

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
