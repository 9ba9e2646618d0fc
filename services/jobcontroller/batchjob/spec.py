"""The Job spec as the controller reads it: API defaults applied, validity checked.

The API server defaults a Job before the controller sees it (parallelism, completions,
backoffLimit, completionMode, podReplacementPolicy, the generated selector and template
labels). Manifests given to ``simulate`` or to tests may lack those defaults, so they are
applied here, the same way, rather than scattered through the reconcile.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.jobcontroller.batchjob import keys
from shared.kube.keys import namespaced_key
from shared.models import Job, Json, LabelSelector
from shared.models.batch import PodFailurePolicy, SuccessPolicy

MAX_INT32 = 2**31 - 1
DEFAULT_BACKOFF_LIMIT = 6


@dataclass(frozen=True, slots=True)
class JobView:
    """The defaulted spec of one Job, plus its identity."""

    namespace: str
    name: str
    uid: str
    parallelism: int
    completions: int | None
    backoff_limit: int
    backoff_limit_per_index: int | None
    max_failed_indexes: int | None
    completion_mode: str
    pod_replacement_policy: str
    pod_failure_policy: PodFailurePolicy | None
    success_policy: SuccessPolicy | None
    active_deadline_seconds: int | None
    ttl_seconds_after_finished: int | None
    suspend: bool
    selector: LabelSelector
    template: Json
    deleting: bool

    @property
    def key(self) -> str:
        return namespaced_key(self.namespace, self.name)

    @property
    def indexed(self) -> bool:
        return self.completion_mode == keys.INDEXED

    @property
    def per_index_backoff(self) -> bool:
        return self.indexed and self.backoff_limit_per_index is not None

    @property
    def only_replace_failed(self) -> bool:
        """Terminating pods are not replaced until they reach the Failed phase."""
        return (
            self.pod_replacement_policy == keys.REPLACE_FAILED
            or self.pod_failure_policy is not None
        )

    @property
    def restart_policy(self) -> str | None:
        spec = self.template.get("spec")
        value = spec.get("restartPolicy") if isinstance(spec, dict) else None
        return value if isinstance(value, str) else None


def managed_externally(job: Job, claim: str = keys.CONTROLLER_NAME) -> bool:
    """``spec.managedBy`` names another controller than ``claim``, the name this controller
    answers to: it must leave the Job alone. An unset ``managedBy`` means Kubernetes' own Job
    controller, so with another claim (a cluster whose built-in Job controller runs) the Job
    is that controller's."""
    return (job.spec.managedBy or keys.CONTROLLER_NAME) != claim


def validate(job: Job) -> list[str]:
    """Problems the API server's validation would have rejected, as ``field: message``."""
    spec = job.spec
    problems: list[str] = []
    if not job.metadata.name:
        problems.append("metadata.name: required")
    mode = spec.completionMode or keys.NON_INDEXED
    if mode not in (keys.NON_INDEXED, keys.INDEXED):
        problems.append(f"spec.completionMode: unsupported value {mode!r}")
    if mode == keys.INDEXED and spec.completions is None:
        problems.append("spec.completions: required when completionMode is Indexed")
    if spec.backoffLimitPerIndex is not None and mode != keys.INDEXED:
        problems.append("spec.backoffLimitPerIndex: requires completionMode Indexed")
    if spec.maxFailedIndexes is not None and spec.backoffLimitPerIndex is None:
        problems.append("spec.maxFailedIndexes: requires backoffLimitPerIndex")
    if spec.successPolicy is not None and mode != keys.INDEXED:
        problems.append("spec.successPolicy: requires completionMode Indexed")
    for field, value in (
        ("parallelism", spec.parallelism),
        ("completions", spec.completions),
        ("backoffLimit", spec.backoffLimit),
    ):
        if value is not None and value < 0:
            problems.append(f"spec.{field}: must be >= 0")
    policy = spec.podReplacementPolicy
    if policy not in (None, keys.REPLACE_FAILED, keys.REPLACE_TERMINATING_OR_FAILED):
        problems.append(f"spec.podReplacementPolicy: unsupported value {policy!r}")
    elif spec.podFailurePolicy is not None and policy == keys.REPLACE_TERMINATING_OR_FAILED:
        problems.append("spec.podReplacementPolicy: must be Failed with podFailurePolicy")
    return problems


def view(job: Job) -> JobView:
    """Apply the API server's defaults (see module docstring)."""
    spec, meta = job.spec, job.metadata
    completions = spec.completions
    if completions is None and spec.parallelism is None:
        completions = 1
    backoff_limit = spec.backoffLimit
    if backoff_limit is None:
        backoff_limit = (
            MAX_INT32 if spec.backoffLimitPerIndex is not None else (DEFAULT_BACKOFF_LIMIT)
        )
    replacement = spec.podReplacementPolicy or (
        keys.REPLACE_FAILED
        if spec.podFailurePolicy is not None
        else keys.REPLACE_TERMINATING_OR_FAILED
    )
    return JobView(
        namespace=meta.namespace or "default",
        name=meta.name,
        uid=meta.uid,
        parallelism=1 if spec.parallelism is None else spec.parallelism,
        completions=completions,
        backoff_limit=backoff_limit,
        backoff_limit_per_index=spec.backoffLimitPerIndex,
        max_failed_indexes=spec.maxFailedIndexes,
        completion_mode=spec.completionMode or keys.NON_INDEXED,
        pod_replacement_policy=replacement,
        pod_failure_policy=spec.podFailurePolicy,
        success_policy=spec.successPolicy,
        active_deadline_seconds=spec.activeDeadlineSeconds,
        ttl_seconds_after_finished=spec.ttlSecondsAfterFinished,
        suspend=bool(spec.suspend),
        selector=_selector(job),
        template=_template(job),
        deleting=meta.deletionTimestamp is not None,
    )


def _selector(job: Job) -> LabelSelector:
    if job.spec.selector is not None and (job.spec.manualSelector or _has_terms(job)):
        return job.spec.selector
    return LabelSelector(matchLabels={keys.CONTROLLER_UID_LABEL: job.metadata.uid})


def _has_terms(job: Job) -> bool:
    selector = job.spec.selector
    return selector is not None and bool(selector.matchLabels or selector.matchExpressions)


def _template(job: Job) -> Json:
    """The pod template with the labels the API server adds to generated selectors."""
    template = dict(job.spec.template)
    metadata = dict(template.get("metadata") or {})
    labels = dict(metadata.get("labels") or {})
    if not job.spec.manualSelector:
        uid, name = job.metadata.uid, job.metadata.name
        labels.setdefault(keys.CONTROLLER_UID_LABEL, uid)
        labels.setdefault(keys.JOB_NAME_LABEL, name)
        labels.setdefault(keys.LEGACY_CONTROLLER_UID_LABEL, uid)
        labels.setdefault(keys.LEGACY_JOB_NAME_LABEL, name)
    metadata["labels"] = labels
    template["metadata"] = metadata
    return template
