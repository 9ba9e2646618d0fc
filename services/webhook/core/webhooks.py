"""Every webhook Shoal's webhook service serves: its path, name, rules and policies, and the
function that answers it.

Names, rules, ``failurePolicy``, ``sideEffects``, ``matchPolicy`` and ``timeoutSeconds`` are
upstream's: Volcano's installer (installer/helm/chart/volcano/templates/webhooks.yaml), Kueue's
``+kubebuilder:webhook`` markers and the training operator's (release v1.9). Paths are
upstream's under a prefix per upstream (``/volcano``, ``/kueue``, ``/training-operator``): Kueue
and the training operator both serve ``/validate-kubeflow-org-v1-pytorchjob``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from services.webhook.core import (
    kueue_clusterqueue,
    kueue_cohort,
    kueue_jobs,
    kueue_pods,
    kueue_resourceflavor,
    kueue_workload,
    pytorchjob,
    volcano_job,
    volcano_mutation,
    volcano_pod_mutation,
    volcano_pod_validation,
    volcano_podgroup,
    volcano_queue,
)
from services.webhook.core.queues import ClusterView

Obj = dict[str, Any]


@dataclass(frozen=True)
class Verdict:
    """A validating webhook's answer: refused when ``message`` is set."""

    message: str = ""
    warnings: tuple[str, ...] = ()


# (operation, object, old object, cluster) → verdict. For DELETE the object is the one deleted.
Validate = Callable[[str, Obj, "Obj | None", ClusterView], Verdict]
# Mutates the object in place.
Mutate = Callable[[Obj, ClusterView], None]
# Upstream's hand-built JSON Patch for the object, as it answers it (no copy, no diff: the pod
# webhook sees every pod created).
Patch = Callable[[Obj, ClusterView], list[dict[str, Any]]]


@dataclass(frozen=True)
class Rule:
    group: str
    version: str
    resource: str
    operations: tuple[str, ...]
    # Subresources the rule covers besides the resource (``workloads/status``).
    subresources: tuple[str, ...] = ()

    @property
    def resources(self) -> list[str]:
        return [self.resource, *(f"{self.resource}/{s}" for s in self.subresources)]


@dataclass(frozen=True)
class Webhook:
    name: str
    path: str
    upstream: str
    rule: Rule
    mutate: Mutate | None = None
    validate: Validate | None = None
    patch: Patch | None = None
    failure_policy: str = "Fail"
    side_effects: str = "None"
    match_policy: str = "Equivalent"
    timeout_seconds: int = 10
    # What it reads from the cluster: "queues", "namespaces", "localqueues".
    reads: frozenset[str] = field(default_factory=frozenset)
    # Skips its own namespace and kube-system (the namespaceSelector of Volcano's webhooks and
    # of Kueue's job webhooks).
    skip_system_namespaces: bool = False
    # Upstream's answer to an operation it is not registered for ({operation} filled in).
    wrong_operation: str = ""
    # Registered only when asked for by name (``OPTIONAL``): upstream's installs leave it off
    # (Volcano's chart's ``enabled_admissions`` does not list /pods/mutate nor /pods/validate),
    # and with failurePolicy Fail a webhook on every pod is one more thing every pod waits on.
    optional: bool = False

    @property
    def mutating(self) -> bool:
        return self.mutate is not None or self.patch is not None

    @property
    def denial(self) -> Obj:
        """The ``status`` a refusal carries besides its message, as upstream's webhook sets it:
        Volcano's ``ToAdmissionResponse`` sets none (kube-apiserver answers 400), and
        controller-runtime's ``admission.Denied`` (Kueue, the training operator) 403 Forbidden."""
        if self.upstream == VOLCANO:
            return {}
        return {"code": 403, "reason": "Forbidden"}

    def serves(self, group: str, version: str, resource: str) -> bool:
        return (self.rule.group, self.rule.version, self.rule.resource) == (
            group,
            version,
            resource,
        )

    def matches(
        self, group: str, version: str, resource: str, operation: str, subresource: str = ""
    ) -> bool:
        return (
            self.serves(group, version, resource)
            and operation in self.rule.operations
            and (not subresource or subresource in self.rule.subresources)
        )


def _volcano_job(operation: str, new: Obj, old: Obj | None, cluster: ClusterView) -> Verdict:
    if operation == "CREATE":
        return Verdict(volcano_job.validate_job_create(new, cluster).strip())
    if operation == "UPDATE" and old is not None:
        return Verdict(volcano_job.validate_job_update(old, new))
    return Verdict()


def _volcano_podgroup(operation: str, new: Obj, old: Obj | None, cluster: ClusterView) -> Verdict:
    return Verdict(
        volcano_podgroup.validate_podgroup(new, cluster) if operation == "CREATE" else ""
    )


def _volcano_queue(operation: str, new: Obj, old: Obj | None, cluster: ClusterView) -> Verdict:
    return Verdict(volcano_queue.admit_queue(operation, new, old, cluster))


def _volcano_pod(operation: str, new: Obj, old: Obj | None, cluster: ClusterView) -> Verdict:
    return Verdict(volcano_pod_validation.validate_pod(new))


def _pytorchjob(operation: str, new: Obj, old: Obj | None, cluster: ClusterView) -> Verdict:
    if operation == "DELETE":
        return Verdict()
    warnings, message = pytorchjob.admit_pytorchjob(operation, new)
    return Verdict(message, tuple(warnings))


def _resource_flavor(operation: str, new: Obj, old: Obj | None, cluster: ClusterView) -> Verdict:
    return Verdict(kueue_resourceflavor.admit_resource_flavor(new))


def _workload(operation: str, new: Obj, old: Obj | None, cluster: ClusterView) -> Verdict:
    return Verdict(kueue_workload.admit_workload(operation, new, old))


def _cluster_queue(operation: str, new: Obj, old: Obj | None, cluster: ClusterView) -> Verdict:
    return Verdict(kueue_clusterqueue.admit_cluster_queue(operation, new, old))


def _cohort(operation: str, new: Obj, old: Obj | None, cluster: ClusterView) -> Verdict:
    return Verdict(kueue_cohort.admit_cohort(new))


VOLCANO, KUEUE, TRAINING_OPERATOR = "volcano", "kueue", "training-operator"
_CREATE = ("CREATE",)
_EXPECT_CREATE = "invalid operation `{operation}`, expect operation to be `CREATE`"
_CREATE_UPDATE = ("CREATE", "UPDATE")


def _volcano(name: str, path: str, rule: Rule, **how: Any) -> Webhook:
    """Volcano's webhooks: sideEffects NoneOnDryRun, not in its namespace nor kube-system."""
    return Webhook(
        name, path, VOLCANO, rule, side_effects="NoneOnDryRun", skip_system_namespaces=True, **how
    )


WEBHOOKS: tuple[Webhook, ...] = (
    _volcano(
        "mutatejob.volcano.sh",
        "/volcano/jobs/mutate",
        Rule("batch.volcano.sh", "v1alpha1", "jobs", _CREATE),
        mutate=volcano_mutation.mutate_job,
        wrong_operation="expect operation to be 'CREATE' ",
    ),
    _volcano(
        volcano_job.WEBHOOK,
        "/volcano/jobs/validate",
        Rule("batch.volcano.sh", "v1alpha1", "jobs", _CREATE_UPDATE),
        validate=_volcano_job,
        reads=frozenset({"queues"}),
    ),
    _volcano(
        "mutatequeue.volcano.sh",
        "/volcano/queues/mutate",
        Rule("scheduling.volcano.sh", "v1beta1", "queues", _CREATE),
        mutate=volcano_mutation.mutate_queue,
        wrong_operation=_EXPECT_CREATE,
    ),
    _volcano(
        volcano_queue.WEBHOOK,
        "/volcano/queues/validate",
        Rule("scheduling.volcano.sh", "v1beta1", "queues", ("CREATE", "UPDATE", "DELETE")),
        validate=_volcano_queue,
        wrong_operation=(
            "invalid operation `{operation}`, expect operation to be `CREATE`, `UPDATE` or `DELETE`"
        ),
        reads=frozenset({"queues"}),
    ),
    _volcano(
        "mutatepodgroup.volcano.sh",
        "/volcano/podgroups/mutate",
        Rule("scheduling.volcano.sh", "v1beta1", "podgroups", _CREATE),
        mutate=volcano_mutation.mutate_podgroup,
        wrong_operation=_EXPECT_CREATE,
        reads=frozenset({"namespaces"}),
    ),
    _volcano(
        volcano_podgroup.WEBHOOK,
        "/volcano/podgroups/validate",
        Rule("scheduling.volcano.sh", "v1beta1", "podgroups", _CREATE),
        validate=_volcano_podgroup,
        reads=frozenset({"queues"}),
    ),
    Webhook(
        pytorchjob.WEBHOOK,
        "/training-operator/validate-kubeflow-org-v1-pytorchjob",
        TRAINING_OPERATOR,
        Rule("kubeflow.org", "v1", "pytorchjobs", _CREATE_UPDATE),
        validate=_pytorchjob,
    ),
    Webhook(
        "mjob.kb.io",
        "/kueue/mutate-batch-v1-job",
        KUEUE,
        Rule("batch", "v1", "jobs", _CREATE),
        mutate=kueue_jobs.default_batch_job,
        reads=frozenset({"localqueues"}),
        skip_system_namespaces=True,
    ),
    Webhook(
        "mpytorchjob.kb.io",
        "/kueue/mutate-kubeflow-org-v1-pytorchjob",
        KUEUE,
        Rule("kubeflow.org", "v1", "pytorchjobs", _CREATE),
        mutate=kueue_jobs.default_pytorchjob,
        reads=frozenset({"localqueues"}),
        skip_system_namespaces=True,
    ),
    Webhook(
        kueue_resourceflavor.WEBHOOK,
        "/kueue/validate-kueue-x-k8s-io-v1beta2-resourceflavor",
        KUEUE,
        Rule("kueue.x-k8s.io", "v1beta2", "resourceflavors", _CREATE_UPDATE),
        validate=_resource_flavor,
    ),
    Webhook(
        "mvolcanojob.shoal.kb.io",
        "/kueue/mutate-batch-volcano-sh-v1alpha1-job",
        KUEUE,
        Rule("batch.volcano.sh", "v1alpha1", "jobs", _CREATE),
        mutate=kueue_jobs.default_volcano_job,
        reads=frozenset({"localqueues"}),
        skip_system_namespaces=True,
    ),
    Webhook(
        kueue_workload.MUTATING,
        "/kueue/mutate-kueue-x-k8s-io-v1beta2-workload",
        KUEUE,
        Rule("kueue.x-k8s.io", "v1beta2", "workloads", _CREATE),
        mutate=kueue_workload.default_workload,
    ),
    Webhook(
        kueue_workload.VALIDATING,
        "/kueue/validate-kueue-x-k8s-io-v1beta2-workload",
        KUEUE,
        Rule("kueue.x-k8s.io", "v1beta2", "workloads", _CREATE_UPDATE, ("status",)),
        validate=_workload,
    ),
    Webhook(
        kueue_clusterqueue.WEBHOOK,
        "/kueue/validate-kueue-x-k8s-io-v1beta2-clusterqueue",
        KUEUE,
        Rule("kueue.x-k8s.io", "v1beta2", "clusterqueues", _CREATE_UPDATE),
        validate=_cluster_queue,
    ),
    Webhook(
        kueue_cohort.WEBHOOK,
        "/kueue/validate-kueue-x-k8s-io-v1beta2-cohort",
        KUEUE,
        Rule("kueue.x-k8s.io", "v1beta2", "cohorts", _CREATE_UPDATE),
        validate=_cohort,
    ),
    Webhook(
        kueue_pods.WEBHOOK,
        "/kueue/mutate--v1-pod",
        KUEUE,
        Rule("", "v1", "pods", _CREATE),
        patch=kueue_pods.default_pod,
        reads=frozenset({"localqueues"}),
        skip_system_namespaces=True,
    ),
    # Optional ones last: a deployment that turns them on appends them (kustomize, Helm).
    _volcano(
        "mutatepod.volcano.sh",
        "/volcano/pods/mutate",
        Rule("", "v1", "pods", _CREATE),
        patch=volcano_pod_mutation.PodMutation(volcano_pod_mutation.DEFAULT_CONFIGURATION),
        wrong_operation="expect operation to be 'CREATE' ",
        optional=True,
    ),
    _volcano(
        volcano_pod_validation.WEBHOOK,
        "/volcano/pods/validate",
        Rule("", "v1", "pods", _CREATE),
        validate=_volcano_pod,
        wrong_operation="expect operation to be 'CREATE'",
        optional=True,
    ),
)
BY_PATH: dict[str, Webhook] = {w.path: w for w in WEBHOOKS}
CONVERSION_PATH = "/kueue/convert"


OPTIONAL: tuple[str, ...] = tuple(w.name for w in WEBHOOKS if w.optional)


def registered(optional: Collection[str] = ()) -> tuple[Webhook, ...]:
    """The webhooks a deployment registers: every one not optional, and the optional ones it
    names; an unknown name is a ValueError."""
    unknown = set(optional) - set(OPTIONAL)
    if unknown:
        raise ValueError(
            f"no optional webhook {', '.join(sorted(unknown))}; there are: {', '.join(OPTIONAL)}"
        )
    return tuple(w for w in WEBHOOKS if not w.optional or w.name in optional)


@functools.cache
def matching(
    group: str,
    version: str,
    resource: str,
    operation: str,
    *,
    mutating: bool,
    subresource: str = "",
    optional: frozenset[str] = frozenset(),
) -> tuple[Webhook, ...]:
    """The webhooks the API server calls for a request (of ``subresource``, when set), in
    registration order (cached: every write kubesim serves asks, most of them for none)."""
    return tuple(
        w
        for w in registered(optional)
        if w.mutating == mutating and w.matches(group, version, resource, operation, subresource)
    )
