"""Well-known names of the batch/v1 Job API: labels, annotations, finalizer, reasons, limits."""

from __future__ import annotations

from services.jobcontroller.core import BATCH_CONTROLLER_NAME

CONTROLLER_NAME = BATCH_CONTROLLER_NAME
TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"

CONTROLLER_UID_LABEL = "batch.kubernetes.io/controller-uid"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_CONTROLLER_UID_LABEL = "controller-uid"
LEGACY_JOB_NAME_LABEL = "job-name"

COMPLETION_INDEX_KEY = "batch.kubernetes.io/job-completion-index"  # annotation and label
INDEX_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT_ANNOTATION = "batch.kubernetes.io/job-index-ignored-failure-count"
COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX"

NON_INDEXED = "NonIndexed"
INDEXED = "Indexed"
REPLACE_TERMINATING_OR_FAILED = "TerminatingOrFailed"
REPLACE_FAILED = "Failed"

# Condition types.
COMPLETE = "Complete"
FAILED = "Failed"
FAILURE_TARGET = "FailureTarget"
SUCCESS_CRITERIA_MET = "SuccessCriteriaMet"
SUSPENDED = "Suspended"

# Condition reasons.
REASON_POD_FAILURE_POLICY = "PodFailurePolicy"
REASON_BACKOFF_LIMIT_EXCEEDED = "BackoffLimitExceeded"
REASON_DEADLINE_EXCEEDED = "DeadlineExceeded"
REASON_MAX_FAILED_INDEXES_EXCEEDED = "MaxFailedIndexesExceeded"
REASON_FAILED_INDEXES = "FailedIndexes"
REASON_SUCCESS_POLICY = "SuccessPolicy"
REASON_COMPLETIONS_REACHED = "CompletionsReached"

# Pod failure policy actions.
ACTION_FAIL_JOB = "FailJob"
ACTION_FAIL_INDEX = "FailIndex"
ACTION_IGNORE = "Ignore"
ACTION_COUNT = "Count"

# Limits of one sync, as in the Kubernetes controller.
MAX_POD_CREATE_DELETE_PER_SYNC = 500
MAX_UNCOUNTED_PODS = 500
SLOW_START_INITIAL_BATCH_SIZE = 1
# Pod-failure back-off: 10 s doubling per consecutive failure, capped at six minutes (the
# documented cap). Re-syncs are never sooner than the batching period.
POD_FAILURE_BACKOFF_SECONDS = 10.0
MAX_POD_FAILURE_BACKOFF_SECONDS = 360.0
SYNC_BATCH_PERIOD_SECONDS = 1.0
