"""Kueue's ``vcohort.kb.io`` (pkg/webhooks/cohort_webhook_test.go ``TestValidateCohort``, its
one row named after upstream's case), then what the Cohort shares with the ClusterQueue's rules
and where it differs (a limit needs a parent; lending may exceed the nominal quota)."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.kueue_cohort import admit_cohort, validate_cohort
from shared.kube.fielderrors import Cause, invalid
from tests.unit.webhook.kueue_wrappers import flavor_quotas, resource_group

Obj = dict[str, Any]
Q0 = "spec.resourceGroups[0].flavors[0].resources[0]"


def cohort(*groups: Obj, **spec: Any) -> Obj:
    """``MakeCohort("cohort").ResourceGroup(...)``."""
    body = {**({"resourceGroups": list(groups)} if groups else {}), **spec}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort",
            "metadata": {"name": "cohort"}, "spec": body}  # fmt: skip


CASES: list[tuple[str, Obj, list[Cause]]] = [
    ("flavor quota with lendingLimit and empty parent",
     cohort(resource_group(flavor_quotas("x86", ("cpu", "1", "", "1")))),
     [invalid(f"{Q0}.lendingLimit", "1", "must be nil when parent is empty")]),
    ("lendingLimit above the nominal quota under a parent",
     cohort(resource_group(flavor_quotas("x86", ("cpu", "1", "", "2"))), parentName="root"), []),
    ("borrowingLimit and empty parent",
     cohort(resource_group(flavor_quotas("x86", ("cpu", "1", "1")))),
     [invalid(f"{Q0}.borrowingLimit", "1", "must be nil when parent is empty")]),
    ("negative fair-sharing weight", cohort(fairSharing={"weight": "-1"}),
     [invalid("spec.fairSharing", "-1", "must be greater than or equal to 0")]),
    ("fair-sharing weight that collapses", cohort(fairSharing={"weight": "1n"}),
     [invalid("spec.fairSharing", "1n", "When not 0, weight must be > 10e-9")]),
    ("zero fair-sharing weight", cohort(fairSharing={"weight": "0"}), []),
]  # fmt: skip


@pytest.mark.parametrize(("obj", "causes"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_validate_cohort(obj: Obj, causes: list[Cause]) -> None:
    assert validate_cohort(obj) == causes


def test_the_answer_is_the_error_as_kube_apiserver_shows_it() -> None:
    obj = cohort(resource_group(flavor_quotas("x86", ("cpu", "1", "", "1"))))
    assert admit_cohort(obj) == (
        f'{Q0}.lendingLimit: Invalid value: "1": must be nil when parent is empty'
    )
