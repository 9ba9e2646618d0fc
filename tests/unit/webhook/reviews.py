"""Helpers of the webhook tests: an AdmissionReview for an object, its response's patch."""

from __future__ import annotations

from typing import Any

from services.webhook.core.review import build_admission_review, patch_operations

Obj = dict[str, Any]


def review(
    group: str, version: str, kind: str, resource: str, obj: Obj, *, operation: str = "CREATE"
) -> Obj:
    meta = obj.get("metadata") or {}
    return build_admission_review(
        uid="705ab4f5-6393-11e8-b7cc-42010a800002",
        operation=operation,
        kind=(group, version, kind),
        resource=(group, version, resource),
        name=str(meta.get("name") or ""),
        namespace=str(meta.get("namespace") or ""),
        obj=obj,
        old=None,
    )


def patch_of(response: Obj) -> list[Obj]:
    return patch_operations(response)
