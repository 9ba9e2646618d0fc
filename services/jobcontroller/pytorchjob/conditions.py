"""PyTorchJob conditions, updated as the training operator's ``UpdateJobConditions`` does.

A Failed job's conditions never change again; a condition whose status and reason are unchanged is
left alone; Running and Restarting replace each other; reaching Succeeded or Failed turns Running
to False. Reasons are ``PyTorchJob<What>`` (``PyTorchJobRunning``, ``PyTorchJobFailed``, ...).
"""

from __future__ import annotations

from shared.models import Condition
from shared.models.kubeflow import PyTorchJobStatus

CREATED = "Created"
RUNNING = "Running"
RESTARTING = "Restarting"
SUCCEEDED = "Succeeded"
FAILED = "Failed"
SUSPENDED = "Suspended"


def reason(what: str) -> str:
    return f"PyTorchJob{what}"


def has(status: PyTorchJobStatus, type_: str) -> bool:
    return any(c.type == type_ and c.status == "True" for c in status.conditions)


def is_finished(status: PyTorchJobStatus) -> bool:
    return has(status, SUCCEEDED) or has(status, FAILED)


def set_condition(
    status: PyTorchJobStatus, type_: str, value: str, why: str, message: str, stamp: str
) -> None:
    if has(status, FAILED):
        return
    current = next((c for c in status.conditions if c.type == type_), None)
    if current is not None and current.status == value and current.reason == why:
        return
    transition = current.lastTransitionTime if current and current.status == value else stamp
    kept: list[Condition] = []
    for cond in status.conditions:
        if cond.type == type_ or {cond.type, type_} == {RUNNING, RESTARTING}:
            continue
        if type_ in (FAILED, SUCCEEDED) and cond.type == RUNNING:
            cond = Condition(
                type=cond.type,
                status="False",
                reason=cond.reason,
                message=cond.message,
                lastUpdateTime=cond.lastUpdateTime,
                lastTransitionTime=cond.lastTransitionTime,
            )
        kept.append(cond)
    kept.append(
        Condition(
            type=type_,
            status=value,
            reason=why,
            message=message,
            lastUpdateTime=stamp,
            lastTransitionTime=transition,
        )
    )
    status.conditions = kept
