"""Conversion between the served versions of a custom resource and its storage version.

Objects are stored once, in the storage version; a request to another version is converted on
the way in (body → storage) and out (storage → the requested version), as the API server does.
Kueue's CRDs convert through Kueue's conversion webhook (services.webhook.core), called
in-process with the ConversionReview kube-apiserver would send; other kinds have strategy None
(only ``apiVersion`` changes).
"""

from __future__ import annotations

from typing import Any

from services.kubesim import apierrors
from services.kubesim.resourcetype import ResourceType
from services.kubesim.store import new_uid
from services.webhook.core.kueue_conversion import KUEUE
from services.webhook.core.review import build_conversion_review, review_conversion

Obj = dict[str, Any]


def convert(obj: Obj, rtype: ResourceType, source: str, target: str) -> Obj:
    """``obj`` (a ``source``-version object of ``rtype``'s kind) as a ``target``-version one;
    the input is not modified."""
    if source == target:
        return obj
    group = rtype.group
    desired = f"{group}/{target}" if group else target
    if group != KUEUE:
        return {**obj, "apiVersion": desired}
    sent = {**obj, "apiVersion": f"{group}/{source}", "kind": rtype.kind}
    review = review_conversion(build_conversion_review(new_uid(), desired, [sent]))
    response = review["response"]
    if response["result"]["status"] != "Success":
        raise apierrors.ApiError(
            500,
            f"conversion webhook for {group}/{source}, Kind={rtype.kind} failed: "
            f"{response['result'].get('message', '')}",
        )
    converted: Obj = response["convertedObjects"][0]
    if "kind" not in obj:
        converted.pop("kind", None)
    return converted


def to_storage(rtype: ResourceType, obj: Obj) -> Obj:
    """A request body in ``rtype``'s version, as stored."""
    return convert(obj, rtype, rtype.version, rtype.stored_as)


def from_storage(rtype: ResourceType, obj: Obj) -> Obj:
    """A stored object, as ``rtype``'s version shows it."""
    return convert(obj, rtype, rtype.stored_as, rtype.version)
