"""A queue as the session sees it (Volcano ``QueueInfo``): weight and quota vectors."""

from __future__ import annotations

import numpy as np

from services.scheduler.api.resources import FloatVec, ResourceSpace
from shared.models import Queue
from shared.resources import Resources


class QueueInfo:
    """Weight, capability (inf where unset), deserved and guarantee as float vectors."""

    __slots__ = (
        "capability",
        "created",
        "deserved",
        "guarantee",
        "has_capability",
        "has_deserved",
        "hierarchy",
        "hierarchy_weights",
        "name",
        "parent",
        "priority",
        "queue",
        "reclaimable",
        "state",
        "weight",
    )

    def __init__(self, queue: Queue, space: ResourceSpace) -> None:
        spec = queue.spec
        self.queue = queue
        self.name = queue.metadata.name
        self.weight = max(int(spec.weight), 1) if spec.weight else 1
        self.has_capability = bool(spec.capability)
        self.capability: FloatVec = space.quota(
            Resources.from_list(spec.capability), missing=np.inf
        )
        self.has_deserved = bool(spec.deserved)
        self.deserved: FloatVec = space.quota(Resources.from_list(spec.deserved))
        guarantee = spec.guarantee.resource if spec.guarantee else {}
        self.guarantee: FloatVec = space.quota(Resources.from_list(guarantee))
        self.reclaimable = True if spec.reclaimable is None else spec.reclaimable
        self.parent = spec.parent or ("" if self.name == "root" else "root")
        self.priority = spec.priority or 0
        self.state = queue.status.state or "Open"
        self.created = queue.metadata.creationTimestamp or ""
        # hierarchical drf's path (``root/eng/dev``) and per-level weights (``1/2/8``).
        annotations = queue.metadata.annotations
        self.hierarchy = annotations.get("volcano.sh/hierarchy", "")
        self.hierarchy_weights = annotations.get("volcano.sh/hierarchy-weights", "")

    def __repr__(self) -> str:
        return f"QueueInfo({self.name}, weight={self.weight})"
