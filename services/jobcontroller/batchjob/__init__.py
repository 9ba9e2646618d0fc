"""The batch/v1 Job controller as a pure core: ``reconcile(job, observed, now) -> Actions``."""

from services.jobcontroller.batchjob.sync import is_finished, reconcile

__all__ = ["is_finished", "reconcile"]
