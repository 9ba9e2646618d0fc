"""batch/v1 CronJob: Kubernetes' CronJob controller as a pure reconcile."""

from services.jobcontroller.cronjob.sync import reconcile, unexpected_jobs

__all__ = ["reconcile", "unexpected_jobs"]
