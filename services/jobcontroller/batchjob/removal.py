"""Which active pods go first when a Job has too many: ``controller.ActivePods`` order.

Pods earlier in their life are cheaper to lose, so they are removed first: unassigned before
assigned, Pending before Unknown before Running, not ready before ready, ready for less time
before ready for longer, more container restarts before fewer, newer before older. Indexed
Jobs first shed pods with a missing, out-of-range or duplicated completion index.
"""

from __future__ import annotations

import math
from itertools import groupby

from services.jobcontroller.batchjob import pods as podutil
from services.jobcontroller.batchjob.spec import JobView
from shared.kube.timefmt import parse_rfc3339
from shared.models import Pod

_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


def removal_key(pod: Pod) -> tuple[int, int, int, float, int, float, str]:
    """Sort key: smaller means removed sooner. The name breaks ties so order is stable."""
    ready = podutil.is_ready(pod)
    # A missing time sorts as "most recent": it is removed first, as in Kubernetes.
    ready_at = podutil.ready_since(pod) if ready else None
    created_at = parse_rfc3339(pod.metadata.creationTimestamp)
    return (
        1 if pod.spec.nodeName else 0,
        _PHASE_ORDINAL.get(pod.status.phase or "", 0),
        1 if ready else 0,
        -(math.inf if ready_at is None else ready_at) if ready else 0.0,
        -podutil.max_restarts(pod),
        -(math.inf if created_at is None else created_at),
        pod.metadata.name,
    )


def sort_for_removal(pods: list[Pod]) -> list[Pod]:
    return sorted(pods, key=removal_key)


def pods_for_removal(job: JobView, active: list[Pod], at_least: int) -> list[Pod]:
    """The active pods to delete: every invalid or duplicated index, then the cheapest ones
    until at least ``at_least`` are chosen."""
    remove: list[Pod] = []
    left = active
    if job.indexed:
        remove, left = _invalid_and_duplicated(active, job.completions or 0)
    if len(remove) < at_least:
        remove += sort_for_removal(left)[: at_least - len(remove)]
    return remove


def _invalid_and_duplicated(active: list[Pod], completions: int) -> tuple[list[Pod], list[Pod]]:
    remove: list[Pod] = []
    keep: list[Pod] = []
    by_index = sorted(active, key=podutil.completion_index)
    for index, group in groupby(by_index, key=podutil.completion_index):
        same = list(group)
        if index == podutil.UNKNOWN_INDEX or index >= completions:
            remove += same
            continue
        # Keep the pod that would be removed last; the rest are duplicates.
        ordered = sort_for_removal(same)
        remove += ordered[:-1]
        keep.append(ordered[-1])
    return remove, keep
