"""Conditions as ``metav1.Condition`` lists in API JSON, set as ``apimeta.SetStatusCondition``
does: one condition per type; its ``lastTransitionTime`` moves only when its status changes."""

from __future__ import annotations

from typing import Any

Json = dict[str, Any]
MAX_MESSAGE = 32 * 1024  # api.TruncateConditionMessage (Kueue) / the API's own limit


def set_condition(
    conditions: list[Json],
    kind: str,
    status: str,
    reason: str,
    message: str,
    now: str,
    *,
    observed_generation: int | None = None,
) -> None:
    """Replace the condition of type ``kind`` in place (or append it) at RFC 3339 time ``now``;
    ``observed_generation``: the object's ``metadata.generation`` the condition was set from
    (``observedGeneration``, omitted when unset or 0, as the Go field's ``omitempty``)."""
    new: Json = {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message[:MAX_MESSAGE],
        "lastTransitionTime": now,
    }
    if observed_generation:
        new["observedGeneration"] = observed_generation
    for i, old in enumerate(conditions):
        if old.get("type") == kind:
            if old.get("status") == status:
                new["lastTransitionTime"] = old.get("lastTransitionTime") or now
            conditions[i] = new
            return
    conditions.append(new)


def find(conditions: list[Json], kind: str) -> Json | None:
    return next((c for c in conditions if c.get("type") == kind), None)


def is_true(conditions: list[Json], kind: str) -> bool:
    found = find(conditions, kind)
    return found is not None and found.get("status") == "True"


def same_ignoring_time(old: list[Json], new: list[Json]) -> bool:
    """Equal but for transition times: whether writing ``new`` would change anything."""

    def strip(conditions: list[Json]) -> list[Json]:
        return [{k: v for k, v in c.items() if k != "lastTransitionTime"} for c in conditions]

    return strip(old) == strip(new)
