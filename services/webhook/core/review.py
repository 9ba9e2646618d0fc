"""An admission.k8s.io/v1 AdmissionReview or an apiextensions.k8s.io/v1 ConversionReview in,
its response out, as kube-apiserver sends and reads them.

A body that is not a review raises ``ReviewError`` (the server answers 400). A review the path's
webhook cannot judge (another resource, an object that is not an object) is answered
``allowed: false`` with the reason, as upstream's webhooks answer a decode error. A mutation is
a base64 JSON Patch with ``patchType: JSONPatch`` (derived from the mutated copy, or the
webhook's own operations); validation warnings go in ``warnings``.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

from services.webhook.core import jsonpatch
from services.webhook.core.kueue_conversion import ConversionError, convert
from services.webhook.core.queues import ClusterView
from services.webhook.core.webhooks import Webhook

Obj = dict[str, Any]
ADMISSION_VERSION = "admission.k8s.io/v1"
CONVERSION_VERSION = "apiextensions.k8s.io/v1"


class ReviewError(ValueError):
    """A body that is not a review of the expected kind (HTTP 400)."""


def _request(review: Any, api_version: str, kind: str) -> Obj:
    if not isinstance(review, dict):
        raise ReviewError(f"expected a {kind}, got {type(review).__name__}")
    if review.get("apiVersion") != api_version or review.get("kind") != kind:
        raise ReviewError(
            f"expected {api_version} {kind}, got {review.get('apiVersion')} {review.get('kind')}"
        )
    request = review.get("request")
    if not isinstance(request, dict) or not isinstance(request.get("uid"), str):
        raise ReviewError(f"{kind} has no request with a uid")
    return request


def admission_request_of(review: Any) -> Obj:
    """The request of an AdmissionReview; ``ReviewError`` when ``review`` is not one."""
    return _request(review, ADMISSION_VERSION, "AdmissionReview")


def _resource(request: Obj) -> tuple[str, str, str]:
    resource = request.get("resource")
    if not isinstance(resource, dict):
        return ("", "", "")
    return (
        str(resource.get("group") or ""),
        str(resource.get("version") or ""),
        str(resource.get("resource") or ""),
    )


def build_admission_review(
    *,
    uid: str,
    operation: str,
    kind: tuple[str, str, str],
    resource: tuple[str, str, str],
    name: str,
    namespace: str,
    obj: Obj | None,
    old: Obj | None,
    dry_run: bool = False,
    subresource: str = "",
) -> Obj:
    """The AdmissionReview kube-apiserver sends for a write (kind and resource as group,
    version, kind/resource; ``subresource`` for a write of one, such as ``status``)."""
    group, version, kind_name = kind
    r_group, r_version, r_resource = resource
    request: Obj = {
        "uid": uid,
        "kind": {"group": group, "version": version, "kind": kind_name},
        "resource": {"group": r_group, "version": r_version, "resource": r_resource},
        "requestKind": {"group": group, "version": version, "kind": kind_name},
        "requestResource": {"group": r_group, "version": r_version, "resource": r_resource},
        "name": name,
        "operation": operation,
        "userInfo": {},
        "object": obj,
        "oldObject": old,
        "dryRun": dry_run,
    }
    if namespace:
        request["namespace"] = namespace
    if subresource:
        request["subResource"] = request["requestSubResource"] = subresource
    return {"apiVersion": ADMISSION_VERSION, "kind": "AdmissionReview", "request": request}


def _denied(uid: str, message: str) -> Obj:
    return {"uid": uid, "allowed": False, "status": {"message": message}}


def _answer(webhook: Webhook, request: Obj, cluster: ClusterView) -> Obj:
    uid = request["uid"]
    operation = str(request.get("operation") or "")
    group, version, resource = _resource(request)
    subresource = str(request.get("subResource") or "")
    if not webhook.serves(group, version, resource) or (
        subresource and subresource not in webhook.rule.subresources
    ):
        named = f"{resource}/{subresource}" if subresource else resource
        return _denied(
            uid,
            f"webhook {webhook.name} does not serve {group or 'core'}/{version}, Resource={named}",
        )
    if operation not in webhook.rule.operations:
        template = webhook.wrong_operation or "webhook {name} does not serve {operation}"
        return _denied(uid, template.format(operation=operation, name=webhook.name))
    obj, old = request.get("object"), request.get("oldObject")
    subject = old if operation == "DELETE" else obj
    if not isinstance(subject, dict) or (old is not None and not isinstance(old, dict)):
        return _denied(uid, f"the {operation} request carries no {webhook.rule.resource} object")
    try:
        return _judge(webhook, operation, subject, old, cluster, uid)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        # An object its schema would refuse (a string where a number goes, ...): refused, as
        # upstream's webhooks refuse what they cannot decode.
        return _denied(uid, f"webhook {webhook.name} cannot read the object: {error!r}")


def _patched(uid: str, patch: list[Obj]) -> Obj:
    response: Obj = {"uid": uid, "allowed": True}
    if patch:
        response["patchType"] = "JSONPatch"
        response["patch"] = base64.b64encode(json.dumps(patch).encode()).decode()
    return response


def _judge(
    webhook: Webhook, operation: str, subject: Obj, old: Obj | None, cluster: ClusterView, uid: str
) -> Obj:
    if webhook.patch is not None:
        return _patched(uid, webhook.patch(subject, cluster))
    if webhook.mutate is not None:
        mutated = copy.deepcopy(subject)
        webhook.mutate(mutated, cluster)
        return _patched(uid, jsonpatch.diff(subject, mutated))
    assert webhook.validate is not None
    verdict = webhook.validate(operation, subject, old, cluster)
    response: Obj = {"uid": uid, "allowed": True}
    if verdict.message:
        response = _denied(uid, verdict.message)
        response["status"].update(webhook.denial)
    if verdict.warnings:
        response["warnings"] = list(verdict.warnings)
    return response


def review_admission(webhook: Webhook, review: Any, cluster: ClusterView) -> Obj:
    """The AdmissionReview answering ``review`` for ``webhook``."""
    request = _request(review, ADMISSION_VERSION, "AdmissionReview")
    return {
        "apiVersion": ADMISSION_VERSION,
        "kind": "AdmissionReview",
        "response": _answer(webhook, request, cluster),
    }


def deny_admission(review: Any, message: str, *, code: int) -> Obj:
    """``review`` refused without judging it (the webhook could not read what it needs)."""
    request = _request(review, ADMISSION_VERSION, "AdmissionReview")
    response = _denied(request["uid"], message)
    response["status"]["code"] = code
    return {"apiVersion": ADMISSION_VERSION, "kind": "AdmissionReview", "response": response}


def patch_operations(response: Obj) -> list[Obj]:
    """The JSON Patch of an admission response (empty without one)."""
    if response.get("patchType") != "JSONPatch" or not response.get("patch"):
        return []
    operations = json.loads(base64.b64decode(response["patch"]))
    assert isinstance(operations, list)
    return operations


def build_conversion_review(uid: str, desired_api_version: str, objects: list[Obj]) -> Obj:
    """The ConversionReview kube-apiserver sends to a CRD's conversion webhook."""
    return {
        "apiVersion": CONVERSION_VERSION,
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": desired_api_version, "objects": objects},
    }


def review_conversion(review: Any) -> Obj:
    """The ConversionReview answering ``review``: every object converted, or ``Failed``."""
    request = _request(review, CONVERSION_VERSION, "ConversionReview")
    uid, desired = request["uid"], request.get("desiredAPIVersion")
    objects = request.get("objects")
    response: Obj = {"uid": uid}
    try:
        if not isinstance(desired, str) or not isinstance(objects, list):
            raise ConversionError("the request needs desiredAPIVersion and objects")
        converted = []
        for obj in objects:
            if not isinstance(obj, dict):
                raise ConversionError("an object to convert is not an object")
            converted.append(convert(obj, desired))
    except ConversionError as error:
        response["convertedObjects"] = []
        response["result"] = {"status": "Failure", "message": str(error)}
    else:
        response["convertedObjects"] = converted
        response["result"] = {"status": "Success"}
    return {"apiVersion": CONVERSION_VERSION, "kind": "ConversionReview", "response": response}
