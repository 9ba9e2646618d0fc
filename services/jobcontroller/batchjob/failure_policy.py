"""``spec.podFailurePolicy``: how a failed pod's exit codes and conditions decide its fate.

The first matching rule wins: FailJob fails the whole Job, FailIndex fails the pod's index
(with backoffLimitPerIndex), Ignore does not count the failure against any backoff limit, Count
counts it as usual. A pod matching no rule is counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.jobcontroller.batchjob import keys
from shared.kube.keys import key_of
from shared.models import Pod
from shared.models.batch import OnExitCodes, OnPodCondition, PodFailurePolicy
from shared.models.core import ContainerStatus


@dataclass(frozen=True, slots=True)
class FailureVerdict:
    counts: bool = True  # counts towards backoffLimit / backoffLimitPerIndex
    action: str | None = None  # the matched rule's action, None when no rule matched
    fail_job_message: str | None = None  # set for a FailJob match


NO_MATCH = FailureVerdict()


def match(policy: PodFailurePolicy | None, pod: Pod) -> FailureVerdict:
    if policy is None:
        return NO_MATCH
    pod_key = key_of(pod)
    for index, rule in enumerate(policy.rules):
        if rule.onExitCodes is not None:
            container = _matching_container(pod, rule.onExitCodes)
            if container is None:
                continue
            code = container.exit_code()
            what = f"Container {container.name} for pod {pod_key} failed with exit code {code}"
        elif rule.onPodConditions:
            condition = _matching_condition(pod, rule.onPodConditions)
            if condition is None:
                continue
            what = f"Pod {pod_key} has condition {condition}"
        else:
            continue
        if rule.action == keys.ACTION_IGNORE:
            return FailureVerdict(counts=False, action=keys.ACTION_IGNORE)
        if rule.action in (keys.ACTION_COUNT, keys.ACTION_FAIL_INDEX):
            return FailureVerdict(action=rule.action)
        if rule.action == keys.ACTION_FAIL_JOB:
            message = f"{what} matching FailJob rule at index {index}"
            return FailureVerdict(action=keys.ACTION_FAIL_JOB, fail_job_message=message)
    return NO_MATCH


def _matching_container(pod: Pod, requirement: OnExitCodes) -> ContainerStatus | None:
    # Regular containers are checked before init containers; exit code 0 never matches.
    for status in pod.status.containerStatuses + pod.status.initContainerStatuses:
        code = status.exit_code()
        if code is None or code == 0:
            continue
        if requirement.containerName is not None and requirement.containerName != status.name:
            continue
        if requirement.operator == "In" and code in requirement.values:
            return status
        if requirement.operator == "NotIn" and code not in requirement.values:
            return status
    return None


def _matching_condition(pod: Pod, patterns: list[OnPodCondition]) -> str | None:
    for condition in pod.status.conditions:
        for pattern in patterns:
            if condition.type == pattern.type and condition.status == pattern.status:
                return condition.type
    return None
