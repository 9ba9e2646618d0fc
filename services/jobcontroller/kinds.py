"""Which reconcile handles which job kind: one typed table.

Each entry pairs a job kind's model (what the cache decodes the job into) with its pure
``reconcile(job, observed, now) -> Actions``; mypy checks that the two agree. A kind missing
from the table is reported as unavailable, by a plain lookup.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from services.jobcontroller import batchjob, cronjob, pytorchjob, volcanojob
from services.jobcontroller.core import Actions, Observed
from shared.models import CronJob, Job, Model, PyTorchJob, VolcanoJob

J = TypeVar("J", bound=Model)


@dataclass(frozen=True, slots=True)
class Reconciler(Generic[J]):
    """A job kind's model and the reconcile that takes it."""

    model: type[J]
    reconcile: Callable[[J, Observed, float], Actions]


ReconcilerTable = Mapping[tuple[str, str], Reconciler[Any]]

# (apiVersion, kind) → its reconciler.
RECONCILERS: ReconcilerTable = {
    ("batch/v1", "Job"): Reconciler(Job, batchjob.reconcile),
    ("batch/v1", "CronJob"): Reconciler(CronJob, cronjob.reconcile),
    ("batch.volcano.sh/v1alpha1", "Job"): Reconciler(VolcanoJob, volcanojob.reconcile),
    ("kubeflow.org/v1", "PyTorchJob"): Reconciler(PyTorchJob, pytorchjob.reconcile),
}


class ReconcileUnavailable(Exception):
    """No reconcile handles a job kind; the message names it."""


def is_job_kind(api_version: str, kind: str) -> bool:
    return (api_version, kind) in RECONCILERS


def reconciler_for(
    api_version: str, kind: str, table: ReconcilerTable = RECONCILERS
) -> Reconciler[Any]:
    found = table.get((api_version, kind))
    if found is None:
        raise ReconcileUnavailable(f"reconcile for {api_version} {kind} is not available")
    return found
