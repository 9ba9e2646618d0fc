"""What the nodegroup plugin reads off a Queue: its node-group affinity (own, or with
``enableHierarchy`` its nearest ancestor's) and its per-group resource limits, and the verdict
and score that gives a node of a group (Volcano ``nodegroup.go``: ``queueGroupAffinity``,
``parseNodeGroupResourceLimits``, ``buildAncestors``, the predicate's checks in their order).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from services.scheduler.api import QueueInfo
from services.scheduler.api.resources import EPSILON
from services.scheduler.api.status import Code, Status
from shared.errors import QuantityError
from shared.quantities import parse_quantity

NAME = "nodegroup"
# Volcano scheduling/v1beta1 ``NodeGroupNameKey`` and ``NodeGroupResourceLimitsAnnotationKey``.
NODE_GROUP_NAME_KEY = "volcano.sh/nodegroup-name"
RESOURCE_LIMITS_KEY = "volcano.sh/nodegroup-resource-limits"
ROOT_QUEUE = "root"
BASE_SCORE = 100.0
# Volcano's ``IsCountQuota`` names, which its ``NewResource`` leaves out (always 0).
_COUNT_QUOTA_PREFIX = "count/"


def _status(reason: str, message: str) -> Status:
    return Status(code=Code.UNRESOLVABLE, reason=reason, message=message, plugin=NAME)


# Upstream's errors.go messages, each as an UnschedulableAndUnresolvable status.
AFFINITY_NOT_FOUND = _status("NodeGroupAffinityNotFound", "node group affinity not specified")
LABEL_NOT_FOUND = _status("NodeGroupLabelNotFound", "node group label not found")
UNSATISFIED = _status("NodeUnsatisfied", "node does not satisfy the node group affinity")
LIMIT_INVALID = _status(
    "NodeGroupResourceLimitInvalid", "node group resource limit annotation invalid"
)
LIMIT_EXCEEDED = _status("NodeGroupResourceLimitExceeded", "node group resource limit exceeded")


@dataclass(frozen=True, slots=True)
class GroupAffinity:
    """A queue's ``spec.affinity`` as sets of group names (``queueGroupAffinity``)."""

    required: frozenset[str] = frozenset()
    preferred: frozenset[str] = frozenset()
    anti_required: frozenset[str] = frozenset()
    anti_preferred: frozenset[str] = frozenset()
    # The preferred list's order (first index of each name), for ``enablePreferredOrder``.
    preferred_index: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, queue: QueueInfo) -> GroupAffinity | None:
        affinity = queue.queue.spec.affinity
        if affinity is None:
            return None
        wanted, avoided = affinity.nodeGroupAffinity, affinity.nodeGroupAntiAffinity
        preferred = wanted.preferredDuringSchedulingIgnoredDuringExecution if wanted else []
        index: dict[str, int] = {}
        for i, group in enumerate(preferred):
            index[group] = i  # a repeated name keeps its last index, as Go's map assignment
        return cls(
            required=frozenset(
                wanted.requiredDuringSchedulingIgnoredDuringExecution if wanted else ()
            ),
            preferred=frozenset(preferred),
            anti_required=frozenset(
                avoided.requiredDuringSchedulingIgnoredDuringExecution if avoided else ()
            ),
            anti_preferred=frozenset(
                avoided.preferredDuringSchedulingIgnoredDuringExecution if avoided else ()
            ),
            preferred_index=index,
        )

    @property
    def empty(self) -> bool:
        return not (self.required or self.preferred or self.anti_required or self.anti_preferred)

    def admits(self, group: str) -> bool:
        """Upstream's ``predicate``: wanted (required or preferred) and not anti-required,
        or anti-preferred (an anti-preferred group stays usable, at score -1)."""
        if group in self.anti_preferred:
            return True
        return (group in self.required or group in self.preferred) and (
            group not in self.anti_required
        )

    def score(self, group: str, *, preferred_order: bool) -> float:
        """Upstream's ``score``: 100 if required, plus 50 if preferred (with the order
        switch, 50·(n-i)/n for the i-th of n preferred, n counting distinct names); -1 for
        an anti-preferred group, whatever else holds."""
        if group in self.anti_preferred:
            return -1.0
        score = BASE_SCORE if group in self.required else 0.0
        if preferred_order:
            i = self.preferred_index.get(group)
            if i is not None:
                n = len(self.preferred_index)
                score += 0.5 * BASE_SCORE * float(n - i) / float(n)
        elif group in self.preferred:
            score += 0.5 * BASE_SCORE
        return score


class LimitError(ValueError):
    """The limits annotation does not read as ``map[string]v1.ResourceList``."""


def parse_limits(raw: str) -> dict[str, dict[str, int]]:
    """``parseNodeGroupResourceLimits``: group → resource name → limit in milli-units (the
    names listed are the only ones limited). ``LimitError`` if the JSON does not decode as Go
    decodes it into ``map[string]v1.ResourceList`` (JSON ``null`` reads as empty)."""
    try:
        doc = json.loads(raw)
    except ValueError as err:
        raise LimitError(f"parse annotation {RESOURCE_LIMITS_KEY}: {err}") from None
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise LimitError(f"parse annotation {RESOURCE_LIMITS_KEY}: not an object")
    limits: dict[str, dict[str, int]] = {}
    for group, resources in doc.items():
        if resources is None:
            resources = {}
        if not isinstance(resources, dict):
            raise LimitError(f"parse annotation {RESOURCE_LIMITS_KEY}: {group}: not an object")
        parsed = {name: _milli(group, name, q) for name, q in resources.items()}
        # Volcano's ``NewResource`` leaves count quotas out: a limit of 0 on 0 used.
        limits[group] = {n: q for n, q in parsed.items() if not n.startswith(_COUNT_QUOTA_PREFIX)}
    return limits


def _milli(group: str, name: str, value: object) -> int:
    if value is None:
        return 0  # Go's Quantity reads a JSON null as zero
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise LimitError(f"parse annotation {RESOURCE_LIMITS_KEY}: {group}/{name}: {value!r}")
    try:
        return parse_quantity(value).milli()
    except QuantityError as err:
        raise LimitError(f"parse annotation {RESOURCE_LIMITS_KEY}: {err}") from None


def exceeds(used: float, limit: float) -> bool:
    """``greaterThanResourceLimit``: beyond the limit by at least Volcano's minResource."""
    return used > limit and used - limit >= EPSILON


@dataclass(frozen=True, slots=True)
class QueuePolicy:
    """What the nodegroup plugin applies to one queue's tasks."""

    affinity: GroupAffinity | None = None
    # The queue whose ``spec.affinity`` this is (itself, or the ancestor it inherits from).
    source: str = ""
    # The limits annotation does not parse: every node is refused.
    invalid: bool = False
    limits: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """Equal keys, equal verdicts and scores on every node (the limits aside)."""
        return f"{self.source}|{int(self.invalid)}"

    @property
    def unset(self) -> bool:
        return self.affinity is None or self.affinity.empty

    def verdict(self, group: str | None, *, strict: bool) -> Status | None:
        """The predicate for a node of ``group`` (None: unlabelled), before the limits."""
        if self.invalid:
            return LIMIT_INVALID
        if group is None:
            return None if not strict and self.unset else LABEL_NOT_FOUND
        if self.affinity is None or self.affinity.empty:
            return AFFINITY_NOT_FOUND
        return None if self.affinity.admits(group) else UNSATISFIED

    def score(self, group: str | None, *, preferred_order: bool) -> float:
        if group is None or self.affinity is None:
            return 0.0
        return self.affinity.score(group, preferred_order=preferred_order)


DEFAULT_POLICY = QueuePolicy()


def queue_policies(queues: Mapping[str, QueueInfo], *, hierarchy: bool) -> dict[str, QueuePolicy]:
    """Every queue's policy; only those differing from ``DEFAULT_POLICY`` are kept."""
    own = {name: GroupAffinity.of(queue) for name, queue in queues.items()}
    policies: dict[str, QueuePolicy] = {}
    for name, queue in queues.items():
        affinity, source = own[name], name
        if affinity is None and hierarchy:
            source = _nearest_with_affinity(name, queues, own)
            affinity = own.get(source)
        invalid, limits = False, {}
        raw = queue.queue.metadata.annotations.get(RESOURCE_LIMITS_KEY, "")
        if raw:
            try:
                limits = parse_limits(raw)
            except LimitError:
                invalid = True
        if (affinity is None or affinity.empty) and not invalid:
            # The default verdicts and scores: limits apply only past an affinity check,
            # which fails without one.
            continue
        policies[name] = QueuePolicy(
            affinity=affinity, source=source if affinity else "", invalid=invalid, limits=limits
        )
    return policies


def _nearest_with_affinity(
    name: str, queues: Mapping[str, QueueInfo], own: Mapping[str, GroupAffinity | None]
) -> str:
    """``buildAncestors`` + ``updateAffinityFromAncestor``: up the parents (a queue without
    one is root's child; root has none) to the first with its own affinity; a missing parent
    or a cycle ends the walk."""
    seen = {name}
    while name != ROOT_QUEUE:
        parent = queues[name].parent or ROOT_QUEUE
        if parent not in queues or parent in seen:
            return ""
        if own[parent] is not None:
            return parent
        seen.add(parent)
        name = parent
    return ""
