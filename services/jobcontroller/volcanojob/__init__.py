"""Volcano Job (batch.volcano.sh/v1alpha1) reconcile: ``reconcile(job, observed, now)``."""

from services.jobcontroller.volcanojob.reconcile import reconcile

__all__ = ["reconcile"]
