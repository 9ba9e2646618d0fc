"""Which reconcile handles which job kind: a small table, imported lazily.

Each job kind's package exposes ``reconcile(job, observed, now) -> Actions``. A kind whose
package is not there (yet) is reported as unavailable instead of breaking every other kind.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from services.jobcontroller.core import Actions, Observed

Reconcile = Callable[[Any, Observed, float], Actions]

# (apiVersion, kind) → module exposing ``reconcile``.
RECONCILERS: dict[tuple[str, str], str] = {
    ("batch/v1", "Job"): "services.jobcontroller.batchjob",
    ("batch.volcano.sh/v1alpha1", "Job"): "services.jobcontroller.volcanojob",
    ("kubeflow.org/v1", "PyTorchJob"): "services.jobcontroller.pytorchjob",
}


class ReconcileUnavailable(Exception):
    """The reconcile of a job kind cannot be loaded; the message says why."""


def is_job_kind(api_version: str, kind: str) -> bool:
    return (api_version, kind) in RECONCILERS


def reconciler_for(
    api_version: str, kind: str, table: dict[tuple[str, str], str] | None = None
) -> Reconcile:
    module_name = (table or RECONCILERS).get((api_version, kind))
    if module_name is None:
        raise ReconcileUnavailable(f"no reconcile for {api_version} {kind}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            raise ReconcileUnavailable(
                f"reconcile for {api_version} {kind} is not available ({module_name} not found)"
            ) from None
        raise
    reconcile = getattr(module, "reconcile", None)
    if not callable(reconcile):
        raise ReconcileUnavailable(f"{module_name} has no reconcile()")
    result: Reconcile = reconcile
    return result
