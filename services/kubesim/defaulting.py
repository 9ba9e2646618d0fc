"""Defaulting on create, as the API server's defaulters and admission plugins would do.

Only the fields Shoal relies on: pod scheduler name, restart policy, QoS, requests from limits,
the batch/v1 Job selector and labels, namespace phase. The upstream webhooks' defaults (Volcano's,
Kueue's job webhook) are the webhook service's (``services.kubesim.admission``).
The object passed in is freshly decoded from the request and owned by the caller; it is
modified in place.
"""

from __future__ import annotations

from typing import Any

from shared.kube.schedulers import DEFAULT_SCHEDULER_NAME

Obj = dict[str, Any]


def _default_container(container: Obj) -> None:
    container.setdefault("imagePullPolicy", "IfNotPresent")
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    resources = container.setdefault("resources", {})
    limits = resources.get("limits")
    if limits:
        requests = resources.setdefault("requests", {})
        for name, value in limits.items():
            requests.setdefault(name, value)


def _qos_class(spec: Obj) -> str:
    containers = list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
    requests_seen = False
    guaranteed = True
    for container in containers:
        resources = container.get("resources") or {}
        requests = resources.get("requests") or {}
        limits = resources.get("limits") or {}
        if requests or limits:
            requests_seen = True
        for name in ("cpu", "memory"):
            if name not in limits or requests.get(name, limits[name]) != limits[name]:
                guaranteed = False
    if not requests_seen:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def default_pod_spec(spec: Obj) -> None:
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("schedulerName", DEFAULT_SCHEDULER_NAME)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("securityContext", {})
    spec.setdefault("enableServiceLinks", True)
    spec.setdefault("preemptionPolicy", "PreemptLowerPriority")
    for container in spec.get("containers") or []:
        _default_container(container)
    for container in spec.get("initContainers") or []:
        _default_container(container)


def _pod(obj: Obj, uid: str) -> None:
    spec = obj.setdefault("spec", {})
    default_pod_spec(spec)
    obj["status"] = {"phase": "Pending", "qosClass": _qos_class(spec)}


MAX_INT32 = 2**31 - 1


def _batch_job(obj: Obj, uid: str) -> None:
    spec = obj.setdefault("spec", {})
    # As pkg/apis/batch/v1/defaults.go: with backoffLimitPerIndex only the per-index limits
    # (and maxFailedIndexes) end a Job, so the Job-wide limit defaults to MaxInt32.
    _batch_job_scheme_defaults(spec)
    for rule in (spec.get("podFailurePolicy") or {}).get("rules") or []:
        for pattern in rule.get("onPodConditions") or []:
            pattern.setdefault("status", "True")  # SetDefaults_Job: the pattern's status
    name = obj["metadata"].get("name", "")
    generated = {
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
    }
    if not spec.get("manualSelector"):
        spec["selector"] = {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
        template_meta = spec.setdefault("template", {}).setdefault("metadata", {})
        template_meta["labels"] = {**(template_meta.get("labels") or {}), **generated}
    template_spec = spec.setdefault("template", {}).setdefault("spec", {})
    default_pod_spec(template_spec)
    obj["status"] = {}


def cron_job_scheme_defaults(spec: Obj) -> None:
    """``SetDefaults_CronJob``, and the pod defaults of its job template."""
    if not spec.get("concurrencyPolicy"):
        spec["concurrencyPolicy"] = "Allow"
    for name, value in (
        ("suspend", False),
        ("successfulJobsHistoryLimit", 3),
        ("failedJobsHistoryLimit", 1),
    ):
        if spec.get(name) is None:
            spec[name] = value
    template = (spec.get("jobTemplate") or {}).get("spec")
    pod = (template.get("template") or {}).get("spec") if isinstance(template, dict) else None
    if isinstance(pod, dict):
        default_pod_spec(pod)


def _cron_job(obj: Obj, uid: str) -> None:
    cron_job_scheme_defaults(obj.setdefault("spec", {}))
    obj["status"] = {}


def _pytorch_job(obj: Obj, uid: str) -> None:
    obj.pop("status", None)


def _volcano_job(obj: Obj, uid: str) -> None:
    obj["status"] = {}


def _queue(obj: Obj, uid: str) -> None:
    obj["status"] = {"state": "Open"}  # what Volcano's queue controller first writes


def _namespace(obj: Obj, uid: str) -> None:
    meta = obj["metadata"]
    meta["labels"] = {**(meta.get("labels") or {}), "kubernetes.io/metadata.name": meta["name"]}
    obj["spec"] = {"finalizers": ["kubernetes"]}
    obj["status"] = {"phase": "Active"}


def _service(obj: Obj, uid: str) -> None:
    spec = obj.setdefault("spec", {})
    spec.setdefault("type", "ClusterIP")
    spec.setdefault("sessionAffinity", "None")
    for port in spec.get("ports") or []:
        port.setdefault("protocol", "TCP")
        port.setdefault("targetPort", port.get("port"))
    obj["status"] = {"loadBalancer": {}}


def _network_policy(obj: Obj, uid: str) -> None:
    """``SetDefaults_NetworkPolicy`` and ``SetDefaults_NetworkPolicyPort``: policyTypes
    Ingress (and Egress with egress rules) when unset, port protocol TCP."""
    spec = obj.setdefault("spec", {})
    if not spec.get("policyTypes"):
        types = ["Ingress"]
        if spec.get("egress"):
            types.append("Egress")
        spec["policyTypes"] = types
    for direction in ("ingress", "egress"):
        for rule in spec.get(direction) or []:
            for port in (rule.get("ports") or []) if isinstance(rule, dict) else []:
                if isinstance(port, dict):
                    port.setdefault("protocol", "TCP")


_BY_KIND = {
    ("v1", "Pod"): _pod,
    ("batch/v1", "Job"): _batch_job,
    ("batch/v1", "CronJob"): _cron_job,
    ("batch.volcano.sh/v1alpha1", "Job"): _volcano_job,
    ("kubeflow.org/v1", "PyTorchJob"): _pytorch_job,
    ("scheduling.volcano.sh/v1beta1", "Queue"): _queue,
    ("v1", "Namespace"): _namespace,
    ("v1", "Service"): _service,
    ("networking.k8s.io/v1", "NetworkPolicy"): _network_policy,
}


def decode_defaults(api_version: str, kind: str, obj: Obj) -> None:
    """Defaults the API server applies when it decodes a body, before validating it (kubesim
    validates the rest first, then applies ``apply_defaults``)."""
    if (api_version, kind) == ("batch/v1", "CronJob") and isinstance(obj.get("spec"), dict):
        cron_job_scheme_defaults(obj["spec"])
    if (api_version, kind) != ("batch/v1", "Job"):
        return
    spec = obj.get("spec")
    policy = spec.get("podFailurePolicy") if isinstance(spec, dict) else None
    # PodFailurePolicyOnPodConditionsPattern.status: "Defaults to True".
    for rule in (policy or {}).get("rules") or [] if isinstance(policy, dict) else []:
        for pattern in (rule.get("onPodConditions") or []) if isinstance(rule, dict) else []:
            if isinstance(pattern, dict) and not pattern.get("status"):
                pattern["status"] = "True"


def _batch_job_scheme_defaults(spec: Obj) -> None:
    """``SetDefaults_Job``'s fields that every write gets (not the create-only selector)."""
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
        spec["parallelism"] = 1
    spec.setdefault("parallelism", 1)
    if spec.get("backoffLimit") is None:
        spec["backoffLimit"] = MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault(
        "podReplacementPolicy", "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed"
    )


def update_defaults(api_version: str, kind: str, obj: Obj) -> None:
    """The scheme defaults an update's body gets, as on create: the API server defaults every
    body it decodes, so a manifest sent again without the fields the server filled in (a pod
    template's container defaults) is the same object, not a changed one."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    if (api_version, kind) == ("v1", "Pod"):
        default_pod_spec(spec)
    elif (api_version, kind) == ("batch/v1", "CronJob"):
        cron_job_scheme_defaults(spec)
    elif (api_version, kind) == ("batch/v1", "Job"):
        _batch_job_scheme_defaults(spec)
        template = spec.get("template")
        if isinstance(template, dict) and isinstance(template.get("spec"), dict):
            default_pod_spec(template["spec"])
    elif (api_version, kind) == ("v1", "Service"):
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        for port in spec.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")
                port.setdefault("targetPort", port.get("port"))


def apply_defaults(api_version: str, kind: str, obj: Obj, *, uid: str, has_status: bool) -> None:
    """Defaults for a new object; status is reset for kinds with a status subresource."""
    handler = _BY_KIND.get((api_version, kind))
    if handler is not None:
        handler(obj, uid)
    elif has_status and kind != "Node":
        obj.pop("status", None)
