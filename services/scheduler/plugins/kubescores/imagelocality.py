"""kube-scheduler's ImageLocality score (``imagelocality.weight`` of nodeorder).

A node scores the images of the pod's containers and init containers it already holds
(``status.images``), each image's size scaled by the share of nodes holding it, clamped to
[23 MiB, 1000 MiB per container] and mapped onto 0-100. Volcano calls it per node, without
normalisation over the candidates. An image name without a tag reads as ``:latest``.
"""

from __future__ import annotations

import numpy as np

from services.scheduler.api import NodeTable, TaskInfo
from services.scheduler.api.resources import FloatVec
from services.scheduler.framework.extension import Rows

MAX_SCORE = 100
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB


def normalized_image_name(name: str) -> str:
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def _images(task: TaskInfo) -> list[str]:
    spec = task.pod.spec
    return [normalized_image_name(c.image or "") for c in (*spec.initContainers, *spec.containers)]


class ImageLocality:
    """Per-image scaled scores by row, built once per session from the nodes' images."""

    def __init__(self, nodes: NodeTable) -> None:
        self.nodes = nodes
        # The scheduler cache keeps the size the first node reported and counts the nodes.
        sizes: dict[str, int] = {}
        holders: dict[str, list[int]] = {}
        for row in sorted(nodes.images):
            for image in nodes.images[row]:
                for name in image.names:
                    sizes.setdefault(name, image.sizeBytes)
                    rows = holders.setdefault(name, [])
                    if not rows or rows[-1] != row:
                        rows.append(row)
        total = len(nodes)
        self.scaled: dict[str, tuple[np.ndarray, int]] = {
            name: (np.array(rows, dtype=np.intp), int(sizes[name] * (len(rows) / total)))
            for name, rows in holders.items()
        }

    def applies(self, task: TaskInfo) -> bool:
        return any(name in self.scaled for name in _images(task))

    def score(self, task: TaskInfo, rows: Rows) -> FloatVec:
        names = _images(task)
        sums = np.zeros(len(self.nodes), dtype=np.int64)
        for name in names:
            found = self.scaled.get(name)
            if found is not None:
                sums[found[0]] += found[1]
        top = MAX_CONTAINER_THRESHOLD * len(names)
        clamped = np.clip(sums[rows], MIN_THRESHOLD, max(top, MIN_THRESHOLD))
        out: FloatVec = ((MAX_SCORE * (clamped - MIN_THRESHOLD)) // (top - MIN_THRESHOLD)).astype(
            np.float64
        )
        return out
