"""Kubeflow PyTorchJob (kubeflow.org/v1) reconcile: ``reconcile(job, observed, now)``."""

from services.jobcontroller.pytorchjob.reconcile import reconcile

__all__ = ["reconcile"]
