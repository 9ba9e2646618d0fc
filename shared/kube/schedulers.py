"""The ``spec.schedulerName`` values Shoal answers to.

A pod for one of ``SHOAL_SCHEDULER_NAMES`` is Shoal's to schedule (and gets a PodGroup if it
has none); ``volcano`` is there so that manifests written for Volcano work unchanged. A pod
that names no scheduler is the Kubernetes default scheduler's, as the API server defaults it.
"""

from __future__ import annotations

VOLCANO_SCHEDULER_NAME = "volcano"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
# Ordered as the scheduler's settings have always listed them (recorded in each cycle).
SHOAL_SCHEDULER_NAMES: tuple[str, ...] = (VOLCANO_SCHEDULER_NAME, "shoal")


def scheduler_name(spec_value: str | None) -> str:
    """The scheduler a pod's ``spec.schedulerName`` names, unset meaning the default one."""
    return spec_value or DEFAULT_SCHEDULER_NAME
