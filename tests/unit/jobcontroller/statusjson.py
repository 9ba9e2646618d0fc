"""A reconcile's new status as the API schema writes it, for assertions on its fields."""

from __future__ import annotations

from typing import Any

from services.jobcontroller.core import Actions
from shared.models import to_dict


def status_json(actions: Actions) -> dict[str, Any]:
    assert actions.status is not None
    return to_dict(actions.status)


def interim_json(actions: Actions) -> dict[str, Any]:
    assert actions.interim_status is not None
    return to_dict(actions.interim_status)
