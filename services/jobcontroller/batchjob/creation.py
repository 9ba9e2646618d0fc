"""The pods a Job creates: full manifests from its template, with deterministic names.

Like the Kubernetes controller, a pod gets the template's labels, annotations and finalizers,
the tracking finalizer and a controller owner reference; an Indexed Job's pod also gets its
completion index (annotation, label, ``JOB_COMPLETION_INDEX`` env from the label, hostname
``<job>-<index>``). Names follow the API server's ``generateName`` (``<job>-`` or
``<job>-<index>-`` plus five random characters); the suffix is derived from a hash of the Job
uid, the index and an attempt number, so a sync's output is reproducible, and a suffix taken
by a pod in the cache is skipped.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator

import msgspec

from services.jobcontroller.batchjob import keys
from services.jobcontroller.batchjob import pods as podutil
from services.jobcontroller.batchjob.claiming import owner_reference
from services.jobcontroller.batchjob.spec import JobView
from shared.models import Json, Pod

# The API server's generateName alphabet (no vowels, no look-alike digits).
_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
_SUFFIX_LENGTH = 5
_MAX_GENERATE_NAME = 63 - _SUFFIX_LENGTH


def generate_name(job_name: str, index: int | None) -> str:
    if index is None:
        return f"{job_name}-"[:_MAX_GENERATE_NAME]
    tail = f"-{index}-"
    prefix = f"{job_name}{tail}"
    if len(prefix) > _MAX_GENERATE_NAME:
        prefix = prefix[: _MAX_GENERATE_NAME - len(tail)] + tail
    return prefix


def suffix(seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:_SUFFIX_LENGTH])


class PodNamer:
    """Deterministic, collision-free names for the pods of one sync."""

    def __init__(self, job: JobView, pods: list[Pod], counted: int) -> None:
        self._job = job
        self._taken = {p.metadata.name for p in pods}
        # Non-indexed attempts start after every pod the Job has seen, so a new sync does not
        # re-derive the name of a pod that is already gone.
        self._next_attempt = len(pods) + counted
        self._per_index: dict[int, int] = {}
        for pod in pods:
            index = podutil.completion_index(pod)
            self._per_index[index] = self._per_index.get(index, 0) + 1

    def name(self, index: int | None) -> str:
        prefix = generate_name(self._job.name, index)
        for attempt in self._attempts(index):
            candidate = prefix + suffix(f"{self._job.uid}/{index}/{attempt}")
            if candidate not in self._taken:
                self._taken.add(candidate)
                return candidate
        raise AssertionError("unreachable")  # _attempts is endless

    def _attempts(self, index: int | None) -> Iterator[int]:
        while True:
            if index is None:
                attempt = self._next_attempt
                self._next_attempt += 1
            else:
                attempt = self._per_index.get(index, 0)
                self._per_index[index] = attempt + 1
            yield attempt


def pod_manifest(
    job: JobView, name: str, index: int | None, failure_counts: tuple[int, int] | None
) -> Json:
    """The pod the controller creates; ``failure_counts`` (counted, ignored) is set for
    Jobs with backoffLimitPerIndex."""
    template = job.template
    tmeta: Json = template.get("metadata") or {}
    labels = dict(tmeta.get("labels") or {})
    annotations = dict(tmeta.get("annotations") or {})
    finalizers = list(tmeta.get("finalizers") or [])
    if keys.TRACKING_FINALIZER not in finalizers:
        finalizers.append(keys.TRACKING_FINALIZER)
    spec: Json = copy.deepcopy(template.get("spec") or {})
    if index is not None:
        annotations[keys.COMPLETION_INDEX_KEY] = str(index)
        labels[keys.COMPLETION_INDEX_KEY] = str(index)
        spec["hostname"] = f"{job.name}-{index}"
        for group in ("initContainers", "containers"):
            for container in spec.get(group) or []:
                _add_index_env(container)
    if failure_counts is not None:
        counted, ignored = failure_counts
        annotations[keys.INDEX_FAILURE_COUNT_ANNOTATION] = str(counted)
        if ignored > 0:
            annotations[keys.INDEX_IGNORED_FAILURE_COUNT_ANNOTATION] = str(ignored)
    metadata: Json = {
        "name": name,
        "generateName": generate_name(job.name, index),
        "namespace": job.namespace,
        "labels": labels,
        "annotations": annotations,
        "ownerReferences": [msgspec.to_builtins(owner_reference(job))],
        "finalizers": finalizers,
    }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def _add_index_env(container: Json) -> None:
    env: list[Json] = container.setdefault("env", [])
    if any(var.get("name") == keys.COMPLETION_INDEX_ENV for var in env):
        return
    field_path = f"metadata.labels['{keys.COMPLETION_INDEX_KEY}']"
    env.append(
        {"name": keys.COMPLETION_INDEX_ENV, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}
    )
