"""Kueue's ``vcohort.kb.io`` (pkg/webhooks/cohort_webhook.go), on create and update: the
fair-sharing weight and the resource groups with the ClusterQueue's rules, where a limit needs a
parent Cohort and lending may exceed the nominal quota. Kueue has no Cohort defaulting."""

from __future__ import annotations

from typing import Any

from services.webhook.core.kueue_clusterqueue import validate_resource_groups
from services.webhook.core.kueue_common import ValidationConfig, validate_fair_sharing
from shared.kube.fielderrors import Cause, aggregate, error_text

Obj = dict[str, Any]
WEBHOOK = "vcohort.kb.io"


def validate_cohort(cohort: Obj) -> list[Cause]:
    """``validateCohort``."""
    spec = cohort.get("spec") or {}
    config = ValidationConfig(
        has_parent=bool(spec.get("parentName")), enforce_nominal_greater_than_lending=False
    )
    causes = validate_fair_sharing(spec.get("fairSharing"), "spec.fairSharing")
    causes += validate_resource_groups(
        spec.get("resourceGroups") or [], config, "spec.resourceGroups", is_cohort=True
    )
    return causes


def admit_cohort(cohort: Obj) -> str:
    """The refusal message (empty: admitted), the same on create and update."""
    causes = validate_cohort(cohort)
    return aggregate([error_text(c) for c in causes]) if causes else ""
