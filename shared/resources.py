"""Resource vectors: cpu, memory, pods and any scalar resource (``nvidia.com/gpu``).

Every resource is held as an integer number of milli-units (cpu in milli-cores, memory in
milli-bytes, GPUs in milli-GPUs) so that arithmetic is exact and one rule covers every name.
A missing name means zero. ``fits_in`` is the predicate the scheduler and kubelet use.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from shared.quantities import format_milli, parse_quantity

if TYPE_CHECKING:
    from shared.models.core import Container, Pod, PodSpec

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
GPU = "nvidia.com/gpu"
_BYTE_RESOURCES = frozenset({MEMORY, "ephemeral-storage", "storage"})


def _is_bytes(name: str) -> bool:
    return name in _BYTE_RESOURCES or name.startswith("hugepages-")


@functools.lru_cache(maxsize=4096)
def _parsed(items: tuple[tuple[str, str | int | float, type], ...]) -> Resources:
    return Resources({name: parse_quantity(q).milli() for name, q, _ in items})


class Resources(Mapping[str, int]):
    """An immutable vector of resource name → milli-units; zero entries are dropped."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, int] | None = None) -> None:
        self._items: dict[str, int] = {k: v for k, v in (items or {}).items() if v}

    @classmethod
    def from_list(cls, resource_list: Mapping[str, str | int | float] | None) -> Resources:
        """From a Kubernetes ResourceList (``{"cpu": "500m", "memory": "1Gi"}``).

        Memoised: the same few lists (a node shape, a pod template's requests) come back for
        every node and pod, every cycle, and parsing a quantity is exact rational arithmetic.
        """
        if not resource_list:
            return EMPTY
        return _parsed(tuple((name, q, type(q)) for name, q in resource_list.items()))

    def __getitem__(self, name: str) -> int:
        return self._items.get(name, 0)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(frozenset(self._items.items()))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Resources):
            return self._items == other._items
        return NotImplemented

    def __add__(self, other: Mapping[str, int]) -> Resources:
        out = dict(self._items)
        for name, value in other.items():
            out[name] = out.get(name, 0) + value
        return Resources(out)

    def __sub__(self, other: Mapping[str, int]) -> Resources:
        out = dict(self._items)
        for name, value in other.items():
            out[name] = out.get(name, 0) - value
        return Resources(out)

    def scale(self, factor: int) -> Resources:
        return Resources({k: v * factor for k, v in self._items.items()})

    def fits_in(self, capacity: Mapping[str, int]) -> bool:
        """Every requested amount is within ``capacity`` (names absent there count as 0)."""
        return all(value <= capacity.get(name, 0) for name, value in self._items.items())

    def shortage(self, capacity: Mapping[str, int]) -> dict[str, int]:
        """The names where this vector exceeds ``capacity``, with the amount missing."""
        return {
            name: value - capacity.get(name, 0)
            for name, value in self._items.items()
            if value > capacity.get(name, 0)
        }

    def less_equal(self, other: Mapping[str, int]) -> bool:
        return self.fits_in(other)

    def is_empty(self) -> bool:
        return not any(v > 0 for v in self._items.values())

    def max_with(self, other: Mapping[str, int]) -> Resources:
        names = set(self._items) | set(other)
        return Resources({n: max(self[n], other.get(n, 0)) for n in names})

    def min_with(self, other: Mapping[str, int]) -> Resources:
        names = set(self._items) | set(other)
        return Resources({n: min(self[n], other.get(n, 0)) for n in names})

    def clamp_non_negative(self) -> Resources:
        return Resources({k: v for k, v in self._items.items() if v > 0})

    def to_list(self) -> dict[str, str]:
        """Back to a Kubernetes ResourceList."""
        return {n: format_milli(v, binary=_is_bytes(n)) for n, v in sorted(self._items.items())}

    def describe(self) -> str:
        return ", ".join(f"{n}: {q}" for n, q in self.to_list().items()) or "nothing"

    def __repr__(self) -> str:
        return f"Resources({self.to_list()})"


EMPTY = Resources()


def container_requests(container: Container) -> Resources:
    """Requests of one container; limits stand in for missing requests, as the API defaults."""
    resources = container.resources
    if resources is None:
        return EMPTY
    merged: dict[str, str | int | float] = dict(resources.limits or {})
    merged.update(resources.requests or {})
    return Resources.from_list(merged)


def spec_requests(spec: PodSpec) -> Resources:
    """Effective pod requests: max(sum of containers, each init container) + overhead."""
    total = EMPTY
    for container in spec.containers:
        total = total + container_requests(container)
    for init in spec.initContainers or ():
        total = total.max_with(container_requests(init))
    if spec.overhead:
        total = total + Resources.from_list(spec.overhead)
    return total


def pod_requests(pod: Pod) -> Resources:
    """Requests of a pod, counting the pod itself against the node's ``pods`` capacity."""
    return spec_requests(pod.spec) + {PODS: 1000}
