"""resource-strategy-fit (Volcano ``pkg/scheduler/plugins/resource-strategy-fit``).

Node order: each resource the task requests that ``resources`` names (exactly, else by the
longest ``prefix/*`` pattern) scores MostAllocated ``(used + request) * weight / allocatable``
or LeastAllocated ``(allocatable - used - request) * weight / allocatable``; the sum over the
weights, times 100 and ``resourceStrategyFitWeight`` (default 10; default resources cpu and
memory LeastAllocated, weight 1), is the node's score, 0 when any of those resources would
overflow. A pod may choose its own strategy and weights with the
``volcano.sh/resource-strategy-scoring-type`` and ``volcano.sh/resource-strategy-weight``
annotations. ``sra`` adds ``(1 - scarce weights the node has / all) * 100 * weight`` on nodes
holding every resource the task requests, steering tasks away from nodes with scarce
resources; ``proportional`` is a predicate keeping, on nodes with a scarce resource, idle cpu
and memory in proportion to its idle amount for the tasks that will ask for it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.resources import BoolVec, FloatVec
from services.scheduler.api.status import Code, Status
from services.scheduler.framework.arguments import Arguments, warn_argument
from services.scheduler.framework.extension import Filter, Rows
from services.scheduler.plugins.base import BasePlugin
from shared.errors import UserError
from shared.resources import CPU, MEMORY

if TYPE_CHECKING:
    from services.scheduler.framework.session import Session

NAME = "resource-strategy-fit"
DEFAULT_WEIGHT = 10
LEAST_ALLOCATED = "LeastAllocated"
MOST_ALLOCATED = "MostAllocated"
STRATEGY_ANNOTATION = "volcano.sh/resource-strategy-scoring-type"
WEIGHT_ANNOTATION = "volcano.sh/resource-strategy-weight"
MAX_SCORE = 100
ARGUMENTS: tuple[str, ...] = ("resourceStrategyFitWeight", "resources", "sra", "proportional")
# Volcano memory is in bytes and a scarce resource in milli-units; Shoal memory in milli-bytes.
_MEMORY_PER_RATE = 1000 * 1000 * 1000


@dataclass(frozen=True, slots=True)
class ResourceStrategy:
    type: str
    weight: int


def _mapping(value: Any, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise UserError(f"argument {key!r}: expected a mapping, got {value!r}")
    return {str(k): v for k, v in value.items()}


def _int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise UserError(f"argument {key!r}: expected an integer, got {value!r}")
    return int(value)


def _number(value: Any, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UserError(f"argument {key!r}: expected a number, got {value!r}")
    return float(value)


def valid_pattern(pattern: str) -> bool:
    """Volcano's ``isValidWildcardPattern``: no ``*``, or one trailing ``*`` after a prefix."""
    if "*" not in pattern:
        return True
    return pattern != "*" and pattern.endswith("*") and pattern.count("*") == 1


def parse_resources(raw: Any) -> dict[str, ResourceStrategy]:
    """``resources``: per resource (or ``prefix/*``) a strategy type and weight; a weight of 0
    or less reads as 1 and an unknown type as LeastAllocated, as Volcano's calculateWeight."""
    table = _mapping(raw, "resources") if raw is not None else {}
    if not table:
        default = ResourceStrategy(LEAST_ALLOCATED, 1)
        return {CPU: default, MEMORY: default}
    resources = {}
    for name, spec in table.items():
        if not valid_pattern(name):
            warn_argument(
                f"argument 'resources': pattern {name!r} is ignored (only one trailing '*'"
                " after a prefix is supported, e.g. 'cloudml.gpu/*')"
            )
            continue
        fields = {k.lower(): v for k, v in _mapping(spec, f"resources.{name}").items()}
        weight = _int(fields.get("weight", 0), f"resources.{name}.weight")
        kind = fields.get("type", "")
        resources[name] = ResourceStrategy(
            kind if kind in (LEAST_ALLOCATED, MOST_ALLOCATED) else LEAST_ALLOCATED,
            weight if weight > 0 else 1,
        )
    return resources


def find_resource_config(
    name: str, resources: dict[str, ResourceStrategy]
) -> ResourceStrategy | None:
    """An exact entry first, else the wildcard with the longest matching prefix."""
    exact = resources.get(name)
    if exact is not None:
        return exact
    best, found = "", None
    for pattern, strategy in resources.items():
        if "*" in pattern:
            prefix = pattern.removesuffix("*")
            if name.startswith(prefix) and len(prefix) > len(best):
                best, found = prefix, strategy
    return found


def most_requested(requested: float, used: float, capacity: float, weight: int) -> float | None:
    """One resource's MostAllocated share times its weight; None when it would not fit."""
    if weight == 0 or capacity == 0:
        return 0.0
    final = requested + used
    return None if final > capacity else final * float(weight) / capacity


def least_requested(requested: float, used: float, capacity: float, weight: int) -> float | None:
    if weight == 0 or capacity == 0:
        return 0.0
    final = requested + used
    return None if final > capacity else (capacity - final) * float(weight) / capacity


@dataclass(frozen=True, slots=True)
class Sra:
    weight: int
    resources: dict[str, int]

    @property
    def weight_sum(self) -> int:
        return sum(self.resources.values())


def _names(raw: Any, key: str) -> list[str]:
    if not isinstance(raw, str):
        raise UserError(f"argument {key!r}: expected a comma-separated string, got {raw!r}")
    return [n.strip() for n in raw.split(",") if n.strip()]


def parse_sra(raw: Any) -> Sra:
    """``sra``: off unless ``enable``; each listed resource weighs its ``resourceWeight``
    (1 when unset or negative)."""
    fields = {k.lower(): v for k, v in _mapping(raw, "sra").items()} if raw is not None else {}
    if fields.get("enable") is not True:
        return Sra(0, {})
    weights = _mapping(fields.get("resourceweight", {}), "sra.resourceWeight")
    resources = {}
    for name in _names(fields.get("resources", ""), "sra.resources"):
        weight = _int(weights.get(name, 1), f"sra.resourceWeight.{name}")
        resources[name] = 1 if weight < 0 else weight
    return Sra(_int(fields.get("weight", 0), "sra.weight"), resources)


def parse_proportional(raw: Any) -> dict[str, tuple[float, float]]:
    """``proportional``: per scarce resource the (cpu, memory) kept idle per unit of it
    (``<name>.cpu`` / ``<name>.memory`` in ``resourceProportion``, 1 when unset or negative)."""
    fields = (
        {k.lower(): v for k, v in _mapping(raw, "proportional").items()} if raw is not None else {}
    )
    if fields.get("enable") is not True:
        return {}
    rates = _mapping(fields.get("resourceproportion", {}), "proportional.resourceProportion")
    result = {}
    for name in _names(fields.get("resources", ""), "proportional.resources"):
        cpu = _number(rates.get(f"{name}.cpu", 1.0), f"{name}.cpu")
        memory = _number(rates.get(f"{name}.memory", 1.0), f"{name}.memory")
        result[name] = (1.0 if cpu < 0 else cpu, 1.0 if memory < 0 else memory)
    return result


def _pod_weights(task: TaskInfo) -> tuple[str, dict[str, int] | None] | None:
    """The pod's own strategy and weights; None when it has none; weights None when the
    annotation is missing or not a JSON object of integers (the pod then scores 0)."""
    annotations = task.pod.metadata.annotations
    kind = annotations.get(STRATEGY_ANNOTATION, "")
    if not kind:
        return None
    try:
        parsed = json.loads(annotations.get(WEIGHT_ANNOTATION, ""))
    except ValueError:
        return kind, None
    if not isinstance(parsed, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in parsed.values()
    ):
        return kind, None
    return kind, {str(k): int(v) for k, v in parsed.items()}


class ResourceStrategyFitPlugin(BasePlugin):
    name = NAME

    def __init__(self, args: Arguments) -> None:
        weight = args.integer("resourceStrategyFitWeight", DEFAULT_WEIGHT)
        self.weight = DEFAULT_WEIGHT if weight < 0 else weight
        self.resources = parse_resources(args.raw.get("resources"))
        self.sra = parse_sra(args.raw.get("sra"))
        self.proportional = parse_proportional(args.raw.get("proportional"))

    def on_session_open(self, ssn: Session) -> None:
        self.index = ssn.space.index
        self.pods = ssn.space.pods
        if self.proportional:
            ssn.points.dynamic_predicate.add(NAME, self.predicate)
        if self.weight > 0 or self.sra.weight > 0:
            ssn.points.node_order.add(NAME, self)

    # -- node order -------------------------------------------------------------------------
    def _requested(self, task: TaskInfo) -> list[tuple[int, str]]:
        """Volcano's ``Resreq.ResourceNames()``: the resources asked for, pods left out."""
        request = task.request.tolist()
        return [(c, n) for n, c in self.index.items() if c != self.pods and request[c] > 0]

    def _strategies(self, task: TaskInfo) -> list[tuple[int, str, int]] | None:
        """(column, strategy, weight) per scored resource; None: the pod scores 0."""
        own = _pod_weights(task)
        if own is not None and own[1] is None:
            return None
        scored = []
        for col, name in self._requested(task):
            if own is not None and own[1] is not None:
                if name in own[1]:
                    scored.append((col, own[0], own[1][name]))
                continue
            strategy = find_resource_config(name, self.resources)
            if strategy is not None:
                scored.append((col, strategy.type, strategy.weight))
        return scored

    def row_local(self, task: TaskInfo) -> bool:
        # A pod's own strategy annotations are not part of its placement shape: scores cached
        # for its shape and request would be another pod's, so such a pod is scored afresh.
        return STRATEGY_ANNOTATION not in task.pod.metadata.annotations

    def score(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        size = len(nodes.class_of[rows])
        total = np.zeros(size, dtype=np.float64)
        if self.weight > 0:
            total += self._fit(task, nodes, rows, size)
        if self.sra.weight > 0:
            total += self._sra(task, nodes, rows)
        return total

    def score_row(self, task: TaskInfo, nodes: NodeTable, row: int) -> float:
        return float(self.score(task, nodes, np.array([row], dtype=np.intp))[0])

    def _fit(self, task: TaskInfo, nodes: NodeTable, rows: Rows, size: int) -> FloatVec:
        strategies = self._strategies(task)
        out = np.zeros(size, dtype=np.float64)
        if not strategies:
            return out
        alloc = nodes.allocatable[rows].astype(np.float64)
        used = nodes.used[rows].astype(np.float64)
        overflow = np.zeros(size, dtype=bool)
        weight_sum = 0
        for col, kind, weight in strategies:
            capacity = alloc[:, col]
            final = used[:, col] + float(task.request[col])
            scored = (capacity != 0) if weight != 0 else np.zeros(size, dtype=bool)
            overflow |= scored & (final > capacity)
            safe = np.where(scored, capacity, 1.0)
            if kind == MOST_ALLOCATED:
                out += np.where(scored, final * float(weight) / safe, 0.0)
            elif kind == LEAST_ALLOCATED:
                out += np.where(scored, (capacity - final) * float(weight) / safe, 0.0)
            weight_sum += weight
        if weight_sum > 0:
            out /= float(weight_sum)
        out *= float(MAX_SCORE) * float(self.weight)
        result: FloatVec = np.where(overflow, 0.0, out)
        return result

    def _sra(self, task: TaskInfo, nodes: NodeTable, rows: Rows) -> FloatVec:
        alloc = nodes.allocatable[rows]
        lacking: BoolVec = np.zeros(len(alloc), dtype=bool)
        for asked, _ in self._requested(task):
            lacking |= alloc[:, asked] == 0
        held = np.zeros(len(alloc), dtype=np.float64)
        for name, weight in self.sra.resources.items():
            col = self.index.get(name)
            if col is not None:
                held += np.where(alloc[:, col] > 0, float(weight), 0.0)
        if self.sra.weight_sum > 0:
            held = 1.0 - held / float(self.sra.weight_sum)
        held *= float(MAX_SCORE * self.sra.weight)
        result: FloatVec = np.where(lacking, 0.0, held)
        return result

    # -- proportional predicate -------------------------------------------------------------
    def predicate(self, task: TaskInfo, nodes: NodeTable) -> Filter | None:
        """Volcano's ``checkNodeResourceIsProportional`` on every node's idle resources."""
        request = task.request
        columns = [(name, self.index.get(name)) for name in self.proportional]
        if any(col is not None and request[col] > 0 for _, col in columns):
            return None
        cpu, memory = self.index[CPU], self.index[MEMORY]
        idle = nodes.idle
        spare_cpu = idle[:, cpu] - request[cpu]
        spare_memory = idle[:, memory] - request[memory]
        passed = np.ones(len(nodes), dtype=bool)
        failures = []
        for name, col in columns:
            if col is None:
                continue
            cpu_rate, memory_rate = self.proportional[name]
            value = idle[:, col].astype(np.float64)
            short = (spare_cpu < value * cpu_rate) | (
                spare_memory < value * memory_rate * _MEMORY_PER_RATE
            )
            failed = short & (nodes.allocatable[:, col] > 0) & passed
            if failed.any():
                message = f"proportional of resource {name} check failed"
                status = Status(
                    code=Code.UNRESOLVABLE,
                    reason="ProportionalCheckFailed",
                    message=message,
                    plugin=NAME,
                )
                failures.append((status, failed))
                passed &= ~failed
        return Filter(passed, tuple(failures))


def new(arguments: dict[str, Any]) -> ResourceStrategyFitPlugin:
    return ResourceStrategyFitPlugin(Arguments(arguments, known=ARGUMENTS))
