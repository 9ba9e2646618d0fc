"""``Toleration.tolerates``, ported from k8s.io/api core/v1 ``TestTolerationToleratesTaint``:
the one rule the predicates, node order and Kueue's flavor matching all use."""

from __future__ import annotations

import pytest

from shared.models import Taint, Toleration

CASES = [
    (
        "same key and effect, operator Exists, taint has no value",
        Toleration(key="foo", operator="Exists", effect="NoSchedule"),
        Taint(key="foo", effect="NoSchedule"),
        True,
    ),
    (
        "same key and effect, operator Exists, taint has some value",
        Toleration(key="foo", operator="Exists", effect="NoSchedule"),
        Taint(key="foo", value="bar", effect="NoSchedule"),
        True,
    ),
    (
        "same effect, empty key and operator Exists: matches all taints",
        Toleration(operator="Exists", effect="NoSchedule"),
        Taint(key="foo", value="bar", effect="NoSchedule"),
        True,
    ),
    (
        "same key, effect and value, operator Equal",
        Toleration(key="foo", operator="Equal", value="bar", effect="NoSchedule"),
        Taint(key="foo", value="bar", effect="NoSchedule"),
        True,
    ),
    (
        "same key and effect, different values, operator Equal",
        Toleration(key="foo", operator="Equal", value="value1", effect="NoSchedule"),
        Taint(key="foo", value="value2", effect="NoSchedule"),
        False,
    ),
    (
        "same key and value, different effects, operator Equal",
        Toleration(key="foo", operator="Equal", value="bar", effect="NoSchedule"),
        Taint(key="foo", value="bar", effect="PreferNoSchedule"),
        False,
    ),
    (
        "empty effect tolerates every effect of the key",
        Toleration(key="foo", operator="Exists"),
        Taint(key="foo", effect="NoExecute"),
        True,
    ),
    (
        "different keys",
        Toleration(key="foo", operator="Exists", effect="NoSchedule"),
        Taint(key="bar", effect="NoSchedule"),
        False,
    ),
]


@pytest.mark.parametrize(
    ("toleration", "taint", "tolerated"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_toleration_tolerates_taint(toleration: Toleration, taint: Taint, tolerated: bool) -> None:
    assert toleration.tolerates(taint) is tolerated
