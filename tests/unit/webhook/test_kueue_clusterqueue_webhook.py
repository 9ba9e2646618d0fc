"""Kueue's ``vclusterqueue.kb.io`` (pkg/webhooks/clusterqueue_webhook_test.go): every row of
``TestValidateClusterQueue`` (run, as upstream, with the ``ConcurrentAdmission`` gate on),
``TestValidateClusterQueueUpdate``, ``TestValidateTotalFlavors``,
``TestValidateTotalCoveredResources`` and ``TestValidateFlavorResourceCombinations``, named after
upstream's cases. As upstream, errors compare by field and type; a row's detail or bad value,
where upstream checks it, compares as the whole message. Then the webhook's answer with the
default gates, and the message kube-apiserver shows."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.kueue_clusterqueue import (
    admit_cluster_queue,
    validate_cluster_queue,
    validate_cluster_queue_update,
)
from services.webhook.core.kueue_features import KueueFeatures
from shared.kube.fielderrors import Cause
from tests.unit.webhook.kueue_wrappers import (
    DUPLICATE,
    FORBIDDEN,
    INVALID,
    NOT_SUPPORTED,
    REQUIRED,
    cluster_queue,
    concurrent_policy,
    flavor_quotas,
    resource_group,
    strategy,
)

Obj = dict[str, Any]
RG = "spec.resourceGroups"
Q0 = f"{RG}[0].flavors[0].resources[0]"
CONCURRENT = KueueFeatures(concurrent_admission=True)
TRY_PREFERRED = "TryPreferredFlavors"


def _fungibility(borrow: str, preempt: str, preference: str) -> Obj:
    return {"whenCanBorrow": borrow, "whenCanPreempt": preempt, "preference": preference}


def _flavors(n: int) -> list[Obj]:
    """``makeFlavors``: ``f000``... each with 1 cpu."""
    return [flavor_quotas(f"f{i:03d}", ("cpu", "1")) for i in range(n)]


def _unordered_flavors() -> Obj:
    return {"coveredResources": ["cpu", "memory"], "flavors": [
        flavor_quotas("alpha", ("cpu", "0"), ("memory", "0")),
        flavor_quotas("beta", ("memory", "0"), ("cpu", "0")),
    ]}  # fmt: skip


PREFERENCE = 'preference "{}" requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor'
ONE_GROUP = "must have exactly one ResourceGroup when ConcurrentAdmissionPolicy is defined"
# (name, queue, [(field, type)], the first error's body where upstream checks it)
CREATE: list[tuple[str, Obj, list[tuple[str, str]], str]] = [
    ("built-in resources with qualified names",
     cluster_queue(resource_group(flavor_quotas("default", ("cpu",)))), [], ""),
    ("invalid resource name", cluster_queue(resource_group(flavor_quotas("default", ("@cpu",)))),
     [(f"{RG}[0].coveredResources[0]", INVALID)], ""),
    ("admissionChecks defined",
     cluster_queue(admissionChecksStrategy={"admissionChecks": [{"name": "ac1"}]}), [], ""),
    ("admissionCheckStrategy defined with a valid flavor",
     cluster_queue(resource_group(flavor_quotas("flavor1")),
                   admissionChecksStrategy=strategy(("ac1", ["flavor1"]))), [], ""),
    ("admissionCheckStrategy refers to a flavor that is not in quota",
     cluster_queue(admissionChecksStrategy=strategy(("ac1", ["flavor1"]))),
     [("spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]", NOT_SUPPORTED)],
     'Unsupported value: "flavor1"'),
    ("in cohort", cluster_queue(cohortName="prod"), [], ""),
    ("extended resources with qualified names",
     cluster_queue(resource_group(flavor_quotas("default", ("example.com/gpu",)))), [], ""),
    ("flavor with qualified names", cluster_queue(resource_group(flavor_quotas("x86"))), [], ""),
    ("flavor quota with negative value",
     cluster_queue(resource_group(flavor_quotas("x86", ("cpu", "-1")))),
     [(f"{Q0}.nominalQuota", INVALID)], 'Invalid value: "-1": must be greater than or equal to 0'),
    ("flavor quota with zero value",
     cluster_queue(resource_group(flavor_quotas("x86", ("cpu", "0")))), [], ""),
    ("flavor quota with borrowingLimit 0",
     cluster_queue(resource_group(flavor_quotas("x86", ("cpu", "1", "0"))), cohortName="cohort"),
     [], ""),
    ("flavor quota with negative borrowingLimit",
     cluster_queue(resource_group(flavor_quotas("x86", ("cpu", "1", "-1"))), cohortName="cohort"),
     [(f"{Q0}.borrowingLimit", INVALID)], ""),
    ("flavor quota with lendingLimit 0",
     cluster_queue(resource_group(flavor_quotas("x86", ("cpu", "1", "", "0"))),
                   cohortName="cohort"), [], ""),
    ("flavor quota with negative lendingLimit",
     cluster_queue(resource_group(flavor_quotas("x86", ("cpu", "1", "", "-1"))),
                   cohortName="cohort"),
     [(f"{Q0}.lendingLimit", INVALID)], ""),
    ("flavor quota with lendingLimit and empty cohort",
     cluster_queue(resource_group(flavor_quotas("x86", ("cpu", "1", "", "1")))),
     [(f"{Q0}.lendingLimit", INVALID)], 'Invalid value: "1": must be nil when cohort is empty'),
    ("flavor quota with lendingLimit greater than nominalQuota",
     cluster_queue(resource_group(flavor_quotas("x86", ("cpu", "1", "", "2"))),
                   cohortName="cohort"),
     [(f"{Q0}.lendingLimit", INVALID)],
     'Invalid value: "2": must be less than or equal to the nominalQuota'),
    ("empty queueing strategy is supported", cluster_queue(queueingStrategy=""), [], ""),
    ("namespaceSelector with invalid labels",
     cluster_queue(namespaceSelector={"matchLabels": {"nospecialchars^=@": "bar"}}),
     [("spec.namespaceSelector.matchLabels", INVALID)], ""),
    ("namespaceSelector with invalid expressions",
     cluster_queue(namespaceSelector={"matchExpressions": [{"key": "key", "operator": "In"}]}),
     [("spec.namespaceSelector.matchExpressions[0].values", REQUIRED)],
     "Required value: must be specified when `operator` is 'In' or 'NotIn'"),
    ("multiple resource groups", cluster_queue(
        resource_group(flavor_quotas("alpha", ("cpu", "0"), ("memory", "0")),
                       flavor_quotas("beta", ("cpu", "0"), ("memory", "0"))),
        resource_group(flavor_quotas("gamma", ("example.com/gpu", "0")),
                       flavor_quotas("omega", ("example.com/gpu", "0")))), [], ""),
    ("resources in a flavor in different order",
     {"metadata": {"name": "cluster-queue"}, "spec": {"resourceGroups": [_unordered_flavors()]}},
     [(f"{RG}[0].flavors[1].resources[0].name", INVALID),
      (f"{RG}[0].flavors[1].resources[1].name", INVALID)],
     'Invalid value: "memory": must match the name in coveredResources'),
    ("resource in more than one resource group", cluster_queue(
        resource_group(flavor_quotas("alpha", ("cpu", "0"), ("memory", "0"))),
        resource_group(flavor_quotas("beta", ("memory", "0")))),
     [(f"{RG}[1].coveredResources[0]", DUPLICATE)], 'Duplicate value: "memory"'),
    ("flavor in more than one resource group", cluster_queue(
        resource_group(flavor_quotas("alpha", ("cpu",)), flavor_quotas("beta", ("cpu",))),
        resource_group(flavor_quotas("beta", ("memory",)))),
     [(f"{RG}[1].flavors[0].name", DUPLICATE)], 'Duplicate value: "beta"'),
    ("valid preemption with borrowWithinCohort",
     {"metadata": {"name": "cluster-queue"}, "spec": {"preemption": {
         "reclaimWithinCohort": "LowerPriority",
         "borrowWithinCohort": {"policy": "LowerPriority", "maxPriorityThreshold": 10}}}}, [], ""),
    ("existing cluster queue created with older Kueue version that has a nil borrowWithinCohort "
     "field", {"metadata": {"name": "cluster-queue"},
               "spec": {"preemption": {"reclaimWithinCohort": "Never"}}}, [], ""),
    ("flavorFungibility preference set but whenCanPreempt != TryNextFlavor",
     cluster_queue(flavorFungibility=_fungibility(
         "TryNextFlavor", "MayStopSearch", "BorrowingOverPreemption")),
     [("spec.flavorFungibility.preference", INVALID)],
     'Invalid value: "BorrowingOverPreemption": ' + PREFERENCE.format("BorrowingOverPreemption")),
    ("flavorFungibility preference set but whenCanBorrow != TryNextFlavor",
     cluster_queue(flavorFungibility=_fungibility(
         "MayStopSearch", "MayStopSearch", "BorrowingOverPreemption")),
     [("spec.flavorFungibility.preference", INVALID)],
     'Invalid value: "BorrowingOverPreemption": ' + PREFERENCE.format("BorrowingOverPreemption")),
    ("flavorFungibility preference BorrowingOverPreemption with both TryNextFlavor is valid",
     cluster_queue(flavorFungibility=_fungibility(
         "TryNextFlavor", "TryNextFlavor", "BorrowingOverPreemption")), [], ""),
    ("flavorFungibility preference PreemptionOverBorrowing with both TryNextFlavor is valid",
     cluster_queue(flavorFungibility=_fungibility(
         "TryNextFlavor", "TryNextFlavor", "PreemptionOverBorrowing")), [], ""),
    ("flavorFungibility preference PreemptionOverBorrowing but whenCanBorrow != TryNextFlavor",
     cluster_queue(flavorFungibility=_fungibility(
         "MayStopSearch", "TryNextFlavor", "PreemptionOverBorrowing")),
     [("spec.flavorFungibility.preference", INVALID)],
     'Invalid value: "PreemptionOverBorrowing": ' + PREFERENCE.format("PreemptionOverBorrowing")),
    ("valid ConcurrentAdmissionPolicy",
     cluster_queue(resource_group(flavor_quotas("flavor1", ("cpu", "1"))),
                   concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED)), [], ""),
    ("ConcurrentAdmissionPolicy with StrictFIFO queueing strategy is invalid",
     cluster_queue(resource_group(flavor_quotas("flavor1", ("cpu", "1"))),
                   concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED),
                   queueingStrategy="StrictFIFO"),
     [("spec.queueingStrategy", INVALID)], 'Invalid value: "StrictFIFO": StrictFIFO queueing '
     "strategy cannot be used when ConcurrentAdmissionPolicy is defined"),
    ("ConcurrentAdmissionPolicy with more than one ResourceGroup",
     cluster_queue(resource_group(flavor_quotas("flavor1", ("cpu", "1"))),
                   resource_group(flavor_quotas("flavor2", ("memory", "1"))),
                   concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED)),
     [(RG, INVALID)], f"Invalid value: 2: {ONE_GROUP}"),
    ("ConcurrentAdmissionPolicy with more than 16 flavors",
     cluster_queue(resource_group(*_flavors(17)),
                   concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED)),
     [(f"{RG}[0].flavors", INVALID)], "Invalid value: 17: cannot have more than 16 resource "
     "flavors in the ResourceGroup when ConcurrentAdmissionPolicy is defined"),
    ("ConcurrentAdmissionPolicy with empty ResourceGroups",
     cluster_queue(concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED)),
     [(RG, INVALID)], f"Invalid value: 0: {ONE_GROUP}"),
    ("ConcurrentAdmissionPolicy with valid LastAcceptableFlavorName",
     cluster_queue(resource_group(flavor_quotas("flavor1", ("cpu", "1"))),
                   concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED, "flavor1")), [], ""),
    ("ConcurrentAdmissionPolicy constraints with RetainFirstAdmission mode is forbidden",
     cluster_queue(resource_group(flavor_quotas("flavor1", ("cpu", "1"))),
                   concurrentAdmissionPolicy=concurrent_policy("RetainFirstAdmission", "flavor1")),
     [("spec.concurrentAdmissionPolicy.migration.constraints", FORBIDDEN)],
     'Forbidden: may only be set when migration.mode is "TryPreferredFlavors" (got '
     '"RetainFirstAdmission")'),
    ("ConcurrentAdmissionPolicy constraints with empty migration mode is allowed",
     cluster_queue(resource_group(flavor_quotas("flavor1", ("cpu", "1"))),
                   concurrentAdmissionPolicy=concurrent_policy("", "flavor1")), [], ""),
    ("ConcurrentAdmissionPolicy with invalid LastAcceptableFlavorName",
     cluster_queue(resource_group(flavor_quotas("flavor1", ("cpu", "1"))),
                   concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED,
                                                               "non-existent-flavor")),
     [("spec.concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName", INVALID)],
     'Invalid value: "non-existent-flavor": must be one of the flavors defined in the '
     "ClusterQueue: [flavor1]"),
]  # fmt: skip


def _fields(causes: list[Cause]) -> list[tuple[str, str]]:
    return [(field, kind) for field, kind, _ in causes]


@pytest.mark.parametrize(
    ("queue", "errors", "body"), [c[1:] for c in CREATE], ids=[c[0] for c in CREATE]
)
def test_validate_cluster_queue(queue: Obj, errors: list[tuple[str, str]], body: str) -> None:
    causes = validate_cluster_queue(queue, features=CONCURRENT)
    assert _fields(causes) == errors
    if body:
        assert causes[0][2] == body


ALPHA = resource_group(flavor_quotas("alpha", ("cpu", "1")))
GHOST = strategy(("ac1", ["ghost"]))
ON_FLAVORS = "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]"
REJECT_INVALID_ON_FLAVORS = KueueFeatures(reject_updates_to_cq_with_invalid_on_flavors=True)
# (name, old, new, features, [(field, type)], the first error's body)
UPDATE: list[tuple[str, Obj, Obj, KueueFeatures, list[tuple[str, str]], str]] = [
    ("queueingStrategy can be updated", cluster_queue(queueingStrategy="StrictFIFO"),
     cluster_queue(queueingStrategy="BestEffortFIFO"), KueueFeatures(), [], ""),
    ("same queueingStrategy", cluster_queue(queueingStrategy="BestEffortFIFO"),
     cluster_queue(queueingStrategy="BestEffortFIFO"), KueueFeatures(), [], ""),
    ("legacy cluster queue with invalid onFlavors allows unrelated updates when the feature gate "
     "is disabled",
     cluster_queue(ALPHA, queueingStrategy="StrictFIFO", admissionChecksStrategy=GHOST),
     cluster_queue(ALPHA, queueingStrategy="BestEffortFIFO", admissionChecksStrategy=GHOST),
     KueueFeatures(reject_updates_to_cq_with_invalid_on_flavors=False), [], ""),
    ("legacy cluster queue with invalid onFlavors rejects unrelated updates when the feature gate "
     "is enabled",
     cluster_queue(ALPHA, queueingStrategy="StrictFIFO", admissionChecksStrategy=GHOST),
     cluster_queue(ALPHA, queueingStrategy="BestEffortFIFO", admissionChecksStrategy=GHOST),
     REJECT_INVALID_ON_FLAVORS, [(ON_FLAVORS, NOT_SUPPORTED)],
     'Unsupported value: "ghost": supported values: "alpha"'),
    ("valid admissionCheckStrategy can be added when the old cluster queue has no strategy",
     cluster_queue(ALPHA), cluster_queue(ALPHA, admissionChecksStrategy=strategy(
         ("ac1", ["alpha"]))), KueueFeatures(), [], ""),
    ("invalid admissionCheckStrategy is rejected when the old cluster queue has no strategy",
     cluster_queue(ALPHA), cluster_queue(ALPHA, admissionChecksStrategy=GHOST), KueueFeatures(),
     [(ON_FLAVORS, NOT_SUPPORTED)], 'Unsupported value: "ghost": supported values: "alpha"'),
    ("resourceGroup flavor change revalidates admissionCheck onFlavors for legacy cluster queue",
     cluster_queue(ALPHA, admissionChecksStrategy=GHOST),
     cluster_queue(resource_group(flavor_quotas("beta", ("cpu", "1"))),
                   admissionChecksStrategy=GHOST), KueueFeatures(),
     [(ON_FLAVORS, NOT_SUPPORTED)], 'Unsupported value: "ghost": supported values: "beta"'),
    ("changing invalid onFlavors for a legacy cluster queue revalidates the new ref",
     cluster_queue(ALPHA, admissionChecksStrategy=GHOST),
     cluster_queue(ALPHA, admissionChecksStrategy=strategy(("ac1", ["phantom"]))),
     KueueFeatures(), [(ON_FLAVORS, NOT_SUPPORTED)],
     'Unsupported value: "phantom": supported values: "alpha"'),
    ("changing admissionCheck name revalidates onFlavors for the new rule",
     cluster_queue(ALPHA, admissionChecksStrategy=GHOST),
     cluster_queue(ALPHA, admissionChecksStrategy=strategy(("ac2", ["ghost"]))),
     KueueFeatures(), [(ON_FLAVORS, NOT_SUPPORTED)],
     'Unsupported value: "ghost": supported values: "alpha"'),
    ("ConcurrentAdmissionPolicy cannot be added", cluster_queue(ALPHA),
     cluster_queue(ALPHA, concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED)), CONCURRENT,
     [("spec.concurrentAdmissionPolicy", INVALID)],
     'Invalid value: {"migration":{"mode":"TryPreferredFlavors"}}: field is immutable'),
    ("ConcurrentAdmissionPolicy cannot be removed",
     cluster_queue(ALPHA, concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED)),
     cluster_queue(ALPHA), CONCURRENT, [("spec.concurrentAdmissionPolicy", INVALID)],
     "Invalid value: null: field is immutable"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new", "features", "errors", "body"),
    [c[1:] for c in UPDATE],
    ids=[c[0] for c in UPDATE],
)
def test_validate_cluster_queue_update(
    old: Obj, new: Obj, features: KueueFeatures, errors: list[tuple[str, str]], body: str
) -> None:
    causes = validate_cluster_queue_update(old, new, features=features)
    assert _fields(causes) == errors
    if body:
        assert causes[0][2] == body


def _covered(n: int) -> Obj:
    """``makeCoveredResources``: one flavor with ``res000``... 1 each."""
    names = [f"res{i:03d}" for i in range(n)]
    return {"coveredResources": names,
            "flavors": [flavor_quotas("default", *((r, "1") for r in names))]}  # fmt: skip


def _combinations(flavors: int, resources: int) -> Obj:
    """``makeFlavorResourceCombinations``."""
    names = [f"res{j:03d}" for j in range(resources)]
    quotas = [(r, "1") for r in names]
    return {"coveredResources": names,
            "flavors": [flavor_quotas(f"f{i:03d}", *quotas) for i in range(flavors)]}  # fmt: skip


TIMES = "\N{MULTIPLICATION SIGN}"  # in upstream's case names
SIZES = [
    ("within limit (10 flavors)", cluster_queue(resource_group(*_flavors(10))), False),
    ("At limit (256 flavors)", cluster_queue(resource_group(*_flavors(256))), False),
    ("over limit (257 flavors)", cluster_queue(resource_group(*_flavors(257))), True),
    ("within limit (10 covered resources)", cluster_queue(_covered(10)), False),
    ("At limit (256 covered resources)", cluster_queue(_covered(256)), False),
    ("over limit (257 covered resources)", cluster_queue(_covered(257)), True),
    (
        f"within limit (1 flavor {TIMES} 10 resources = 10)",
        cluster_queue(_combinations(1, 10)),
        False,
    ),
    (
        f"at limit (8 flavors {TIMES} 64 resources = 512)",
        cluster_queue(_combinations(8, 64)),
        False,
    ),
    (
        f"over limit (9 flavors {TIMES} 64 resources = 576)",
        cluster_queue(_combinations(9, 64)),
        True,
    ),
]


@pytest.mark.parametrize(("queue", "refused"), [c[1:] for c in SIZES], ids=[c[0] for c in SIZES])
def test_validate_total_flavors_covered_resources_and_combinations(
    queue: Obj, refused: bool
) -> None:
    assert bool(validate_cluster_queue(queue)) is refused


def test_over_256_flavors_says_how_many() -> None:
    causes = validate_cluster_queue(cluster_queue(resource_group(*_flavors(257))))
    assert causes == [(RG, INVALID, "Invalid value: 257: total number of flavors across all "
                       "resourceGroups must be ≤ 256, got 257")]  # fmt: skip


def test_the_concurrent_admission_policy_is_not_checked_with_the_default_gates() -> None:
    """``ConcurrentAdmission`` is alpha (off) on Kueue's master: a policy upstream's table
    refuses with the gate on goes through, but stays immutable."""
    queue = cluster_queue(concurrentAdmissionPolicy=concurrent_policy(TRY_PREFERRED))
    assert admit_cluster_queue("CREATE", queue, None) == ""
    assert validate_cluster_queue(queue, features=CONCURRENT)
    removed = cluster_queue()
    assert admit_cluster_queue("UPDATE", removed, queue) == (
        "spec.concurrentAdmissionPolicy: Invalid value: null: field is immutable"
    )


def test_the_answer_is_the_aggregate_of_the_errors() -> None:
    queue = cluster_queue(resource_group(flavor_quotas("x86", ("cpu", "-1", "", "1"))))
    assert admit_cluster_queue("CREATE", queue, None) == (
        f'[{Q0}.nominalQuota: Invalid value: "-1": must be greater than or equal to 0, '
        f'{Q0}.lendingLimit: Invalid value: "1": must be nil when cohort is empty, '
        f'{Q0}.lendingLimit: Invalid value: "1": must be less than or equal to the nominalQuota]'
    )


def test_preemption_never_reclaiming_yet_borrowing_shows_the_policy_as_go_encodes_it() -> None:
    borrow = {"maxPriorityThreshold": 10, "policy": "LowerPriority"}
    preemption = {"withinClusterQueue": "Never", "reclaimWithinCohort": "Never",
                  "borrowWithinCohort": borrow}  # fmt: skip
    assert admit_cluster_queue("CREATE", cluster_queue(preemption=preemption), None) == (
        'spec.preemption: Invalid value: {"reclaimWithinCohort":"Never","borrowWithinCohort":'
        '{"policy":"LowerPriority","maxPriorityThreshold":10},"withinClusterQueue":"Never"}: '
        "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"
    )
