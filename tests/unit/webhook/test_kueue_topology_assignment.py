"""Ported from kueue pkg/util/tas/tas_assignment_test.go (main): the v1beta1 ⇄ v1beta2
TopologyAssignment encoding Kueue's Workload conversion uses. ``bothWaysTestCases`` run both
ways (``TestV1Beta2FromInternal``, ``TestInternalFromV1Beta2``), ``oneWayTestCases`` v1beta2 to
v1beta1; the hostname-prefix tables as upstream's; rows named after upstream's cases."""

from __future__ import annotations

from typing import Any

import pytest

from services.webhook.core.kueue_conversion import convert
from services.webhook.core.kueue_topology_assignment import (
    HOSTNAME,
    MAX_SLICES,
    hostname_prefix_encoding,
    reusable_hostname_prefix_keys,
    single_slice_encoding,
    to_v1beta1,
    to_v1beta2,
)

Obj = dict[str, Any]

# (name, v1beta1 assignment, v1beta2 assignment)
BOTH_WAYS: list[tuple[str, Obj, Obj]] = [
    ("empty", {"levels": ["a", "b"], "domains": []}, {"levels": ["a", "b"]}),
    (
        "one domain",
        {"levels": ["a", "b"], "domains": [{"values": ["a1", "b1"], "count": 1}]},
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 1,
                    "podCounts": {"universal": 1},
                    "valuesPerLevel": [{"universal": "a1"}, {"universal": "b1"}],
                }
            ],
        },
    ),
    (
        "multiple domains, same counts, no common prefix",
        {
            "levels": ["a", "b"],
            "domains": [{"values": ["a1", "b1"], "count": 1}, {"values": ["a2", "b2"], "count": 1}],
        },
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"universal": 1},
                    "valuesPerLevel": [
                        {"individual": {"prefix": "a", "roots": ["1", "2"]}},
                        {"individual": {"prefix": "b", "roots": ["1", "2"]}},
                    ],
                }
            ],
        },
    ),
    (
        "multiple domains, different counts, common prefix and suffix",
        {
            "levels": ["a", "b"],
            "domains": [
                {"values": ["p.a1.s", "p.b1.s"], "count": 1},
                {"values": ["p.a2.s", "p.b2.s"], "count": 2},
            ],
        },
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"individual": [1, 2]},
                    "valuesPerLevel": [
                        {"individual": {"prefix": "p.a", "suffix": ".s", "roots": ["1", "2"]}},
                        {"individual": {"prefix": "p.b", "suffix": ".s", "roots": ["1", "2"]}},
                    ],
                }
            ],
        },
    ),
    (
        "multiple domains, universal value",
        {
            "levels": ["a", "b"],
            "domains": [{"values": ["a1", "x"], "count": 1}, {"values": ["a1", "y"], "count": 2}],
        },
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"individual": [1, 2]},
                    "valuesPerLevel": [{"universal": "a1"}, {"individual": {"roots": ["x", "y"]}}],
                }
            ],
        },
    ),
    (
        "multiple domains, same counts, shrinking prefix",
        {
            "levels": ["a"],
            "domains": [
                {"values": ["a123"], "count": 1},
                {"values": ["a12"], "count": 1},
                {"values": ["a1"], "count": 1},
                {"values": ["a13"], "count": 1},
            ],
        },
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 4,
                    "podCounts": {"universal": 1},
                    "valuesPerLevel": [
                        {"individual": {"prefix": "a1", "roots": ["23", "2", "", "3"]}}
                    ],
                }
            ],
        },
    ),
    (
        "multiple domains, same counts, shrinking suffix",
        {
            "levels": ["a"],
            "domains": [
                {"values": ["123b"], "count": 1},
                {"values": ["23b"], "count": 1},
                {"values": ["3b"], "count": 1},
                {"values": ["13b"], "count": 1},
            ],
        },
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 4,
                    "podCounts": {"universal": 1},
                    "valuesPerLevel": [
                        {"individual": {"suffix": "3b", "roots": ["12", "2", "", "1"]}}
                    ],
                }
            ],
        },
    ),
    (
        "multiple domains, same counts, max prefix & suffix overlap partially",
        {
            "levels": ["a"],
            "domains": [{"values": ["abacacada"], "count": 1}, {"values": ["abacada"], "count": 1}],
        },
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"universal": 1},
                    "valuesPerLevel": [
                        {"individual": {"prefix": "ab", "suffix": "acada", "roots": ["ac", ""]}}
                    ],
                }
            ],
        },
    ),
    (
        "multiple domains, same counts, max prefix & suffix overlap fully, shrinking strings",
        {
            "levels": ["a"],
            "domains": [{"values": ["ababa"], "count": 1}, {"values": ["aba"], "count": 1}],
        },
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"universal": 1},
                    "valuesPerLevel": [{"individual": {"suffix": "aba", "roots": ["ab", ""]}}],
                }
            ],
        },
    ),
    (
        "multiple domains, same counts, max prefix & suffix overlap fully, growing strings",
        {
            "levels": ["a"],
            "domains": [{"values": ["aba"], "count": 1}, {"values": ["ababa"], "count": 1}],
        },
        {
            "levels": ["a"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"universal": 1},
                    "valuesPerLevel": [{"individual": {"suffix": "aba", "roots": ["", "ab"]}}],
                }
            ],
        },
    ),
]
ONE_WAY: list[tuple[str, Obj, Obj]] = [
    (
        "multiple slices, no prefixes/suffixes or universal values",
        {
            "levels": ["a", "b"],
            "domains": [
                {"values": ["a", "b"], "count": 1},
                {"values": ["c", "d"], "count": 2},
                {"values": ["e", "f"], "count": 3},
            ],
        },
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 1,
                    "podCounts": {"individual": [1]},
                    "valuesPerLevel": [
                        {"individual": {"roots": ["a"]}},
                        {"individual": {"roots": ["b"]}},
                    ],
                },
                {
                    "domainCount": 2,
                    "podCounts": {"individual": [2, 3]},
                    "valuesPerLevel": [
                        {"individual": {"roots": ["c", "e"]}},
                        {"individual": {"roots": ["d", "f"]}},
                    ],
                },
            ],
        },
    ),
    (
        "multiple slices, prefixes, suffixes & universal values",
        {
            "levels": ["a", "b"],
            "domains": [
                {"values": ["a1", "b1-s"], "count": 2},
                {"values": ["a1", "b2-s"], "count": 3},
                {"values": ["a2", "x-t"], "count": 5},
                {"values": ["a3", "y-t"], "count": 5},
                {"values": ["a4", "z-t"], "count": 5},
                {"values": ["a10", "b10"], "count": 10},
                {"values": ["a10", "b10"], "count": 10},
            ],
        },
        {
            "levels": ["a", "b"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"individual": [2, 3]},
                    "valuesPerLevel": [
                        {"universal": "a1"},
                        {"individual": {"prefix": "b", "suffix": "-s", "roots": ["1", "2"]}},
                    ],
                },
                {
                    "domainCount": 3,
                    "podCounts": {"universal": 5},
                    "valuesPerLevel": [
                        {"individual": {"prefix": "a", "roots": ["2", "3", "4"]}},
                        {"individual": {"suffix": "-t", "roots": ["x", "y", "z"]}},
                    ],
                },
                {
                    "domainCount": 2,
                    "podCounts": {"universal": 10},
                    "valuesPerLevel": [{"universal": "a10"}, {"universal": "b10"}],
                },
            ],
        },
    ),
]
HOSTNAME_PREFIX_RUNS: list[tuple[str, Obj, Obj]] = [
    (
        "GKE node pools",
        {
            "levels": ["kubernetes.io/hostname"],
            "domains": [
                {"values": ["gke-c-pool-a-hash1-aa"], "count": 3},
                {"values": ["gke-c-pool-a-hash1-bb"], "count": 3},
                {"values": ["gke-c-pool-b-hash2-cc"], "count": 4},
                {"values": ["gke-c-pool-b-hash2-dd"], "count": 5},
            ],
        },
        {
            "levels": ["kubernetes.io/hostname"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"universal": 3},
                    "valuesPerLevel": [
                        {"individual": {"prefix": "gke-c-pool-a-hash1-", "roots": ["aa", "bb"]}}
                    ],
                },
                {
                    "domainCount": 2,
                    "podCounts": {"individual": [4, 5]},
                    "valuesPerLevel": [
                        {"individual": {"prefix": "gke-c-pool-b-hash2-", "roots": ["cc", "dd"]}}
                    ],
                },
            ],
        },
    ),
    (
        "AWS EKS private DNS names",
        {
            "levels": ["kubernetes.io/hostname"],
            "domains": [
                {"values": ["ip-10-24-34-0.us-west-2.compute.internal"], "count": 2},
                {"values": ["ip-10-24-34-1.us-west-2.compute.internal"], "count": 2},
                {"values": ["ip-10-24-35-0.us-west-2.compute.internal"], "count": 3},
                {"values": ["ip-10-24-35-1.us-west-2.compute.internal"], "count": 4},
            ],
        },
        {
            "levels": ["kubernetes.io/hostname"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"universal": 2},
                    "valuesPerLevel": [
                        {
                            "individual": {
                                "prefix": "ip-10-24-34-",
                                "suffix": ".us-west-2.compute.internal",
                                "roots": ["0", "1"],
                            }
                        }
                    ],
                },
                {
                    "domainCount": 2,
                    "podCounts": {"individual": [3, 4]},
                    "valuesPerLevel": [
                        {
                            "individual": {
                                "prefix": "ip-10-24-35-",
                                "suffix": ".us-west-2.compute.internal",
                                "roots": ["0", "1"],
                            }
                        }
                    ],
                },
            ],
        },
    ),
    (
        "Azure AKS VMSS node pools",
        {
            "levels": ["kubernetes.io/hostname"],
            "domains": [
                {"values": ["aks-nodepool1-12345678-vmss000000"], "count": 1},
                {"values": ["aks-nodepool1-12345678-vmss000001"], "count": 1},
                {"values": ["aks-nodepool2-87654321-vmss000000"], "count": 2},
                {"values": ["aks-nodepool2-87654321-vmss000001"], "count": 3},
            ],
        },
        {
            "levels": ["kubernetes.io/hostname"],
            "slices": [
                {
                    "domainCount": 2,
                    "podCounts": {"universal": 1},
                    "valuesPerLevel": [
                        {
                            "individual": {
                                "prefix": "aks-nodepool1-12345678-vmss00000",
                                "roots": ["0", "1"],
                            }
                        }
                    ],
                },
                {
                    "domainCount": 2,
                    "podCounts": {"individual": [2, 3]},
                    "valuesPerLevel": [
                        {
                            "individual": {
                                "prefix": "aks-nodepool2-87654321-vmss00000",
                                "roots": ["0", "1"],
                            }
                        }
                    ],
                },
            ],
        },
    ),
    (
        "on-premises UUID node names",
        {
            "levels": ["kubernetes.io/hostname"],
            "domains": [
                {"values": ["550e8400-e29b-41d4-a716-446655440000"], "count": 1},
                {"values": ["6ba7b810-9dad-11d1-80b4-00c04fd430c8"], "count": 2},
                {"values": ["f47ac10b-58cc-4372-a567-0e02b2c3d479"], "count": 3},
            ],
        },
        {
            "levels": ["kubernetes.io/hostname"],
            "slices": [
                {
                    "domainCount": 3,
                    "podCounts": {"individual": [1, 2, 3]},
                    "valuesPerLevel": [
                        {
                            "individual": {
                                "roots": [
                                    "550e8400-e29b-41d4-a716-446655440000",
                                    "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
                                    "f47ac10b-58cc-4372-a567-0e02b2c3d479",
                                ]
                            }
                        }
                    ],
                }
            ],
        },
    ),
]


@pytest.mark.parametrize(
    ("v1beta1", "v1beta2"), [c[1:] for c in BOTH_WAYS], ids=[c[0] for c in BOTH_WAYS]
)
def test_v1beta2_from_internal(v1beta1: Obj, v1beta2: Obj) -> None:
    assert to_v1beta2(v1beta1) == v1beta2


CASES = BOTH_WAYS + ONE_WAY


@pytest.mark.parametrize(("v1beta1", "v1beta2"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_internal_from_v1beta2(v1beta1: Obj, v1beta2: Obj) -> None:
    assert to_v1beta1(v1beta2) == v1beta1


@pytest.mark.parametrize(
    ("v1beta1", "v1beta2"),
    [c[1:] for c in HOSTNAME_PREFIX_RUNS],
    ids=[c[0] for c in HOSTNAME_PREFIX_RUNS],
)
def test_compact_topology_assignment_encoding_with_hostname_prefix_runs(
    v1beta1: Obj, v1beta2: Obj
) -> None:
    assert hostname_prefix_encoding(v1beta1["levels"], v1beta1["domains"]) == v1beta2


def domains(*hostnames: str, count: int = 1) -> list[Obj]:
    return [{"values": [h], "count": count} for h in hostnames]


def test_hostname_prefix_runs_without_hostname_level() -> None:
    v1beta1: Obj = {
        "levels": ["cloud.example.com/rack"],
        "domains": [{"values": ["rack-a"], "count": 1}, {"values": ["rack-b"], "count": 2}],
    }
    encoded = hostname_prefix_encoding(v1beta1["levels"], v1beta1["domains"])
    assert len(encoded["slices"]) == 1
    assert to_v1beta1(encoded) == v1beta1


def test_hostname_prefix_runs_preserve_domain_order() -> None:
    v1beta1: Obj = {
        "levels": [HOSTNAME],
        "domains": [
            {"values": [h], "count": n}
            for n, h in enumerate(
                [
                    "gke-c-pool-a-hash1-aa",
                    "gke-c-pool-b-hash2-cc",
                    "gke-c-pool-a-hash1-bb",
                    "gke-c-pool-b-hash2-dd",
                ],
                start=1,
            )
        ],
    }
    encoded = hostname_prefix_encoding(v1beta1["levels"], v1beta1["domains"])
    assert len(encoded["slices"]) == 4
    assert to_v1beta1(encoded) == v1beta1


def hostname_prefix_assignment(domain_count: int) -> Obj:
    half = domain_count // 2
    return {
        "levels": [HOSTNAME],
        "domains": [
            {
                "values": [
                    f"pool-{'a' if i < half else 'b'}-node-{i if i < half else i - half:05d}"
                ],
                "count": 1,
            }
            for i in range(domain_count)
        ],
    }


FALLBACK = [
    ("enabled keeps one-slice hostname-prefix encoding", 1, True),
    ("enabled uses smaller single-slice encoding", 4, False),
    ("enabled uses smaller hostname-prefix encoding", 20, True),
]


@pytest.mark.parametrize(
    ("count", "prefixed"), [c[1:] for c in FALLBACK], ids=[c[0] for c in FALLBACK]
)
def test_v1beta2_from_internal_hostname_prefix_feature_gate_and_fallback(
    count: int, prefixed: bool
) -> None:
    v1beta1 = hostname_prefix_assignment(count)
    encode = hostname_prefix_encoding if prefixed else single_slice_encoding
    got = to_v1beta2(v1beta1)
    assert got == encode(v1beta1["levels"], v1beta1["domains"])
    assert to_v1beta1(got) == v1beta1


KEYS = [
    (
        "longest reusable prefixes",
        [
            "gke-c-pool-a-hash1-aa",
            "gke-c-pool-a-hash1-bb",
            "gke-c-pool-b-hash2-cc",
            "gke-c-pool-b-hash2-dd",
        ],
        [
            "gke-c-pool-a-hash1-",
            "gke-c-pool-a-hash1-",
            "gke-c-pool-b-hash2-",
            "gke-c-pool-b-hash2-",
        ],
    ),
    ("no reusable prefix", ["node-a", "host-b"], ["", ""]),
    ("no delimiter", ["nodea", "hostb"], None),
]


@pytest.mark.parametrize(("hostnames", "keys"), [c[1:] for c in KEYS], ids=[c[0] for c in KEYS])
def test_reusable_hostname_prefix_keys(hostnames: list[str], keys: list[str] | None) -> None:
    assert reusable_hostname_prefix_keys(0, domains(*hostnames)) == keys


def test_reusable_hostname_prefix_keys_backs_off_to_fit_slice_limit() -> None:
    hostnames = [f"a-{'y' if i % 2 else 'x'}-{i:04d}" for i in range(MAX_SLICES + 1)]
    assert reusable_hostname_prefix_keys(0, domains(*hostnames)) == ["a-"] * len(hostnames)


def test_a_workloads_topology_assignments_convert_both_ways() -> None:
    """Shoal's own row: the encoding applied to each podSetAssignment of a Workload."""
    case = next(c for c in BOTH_WAYS if c[0] == "multiple domains, universal value")
    workload = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "w"},
        "status": {
            "admission": {
                "clusterQueue": "cq",
                "podSetAssignments": [
                    {"name": "main", "topologyAssignment": case[1]},
                    {"name": "aux"},
                ],
            }
        },
    }
    up = convert(workload, "kueue.x-k8s.io/v1beta2")
    assignments = up["status"]["admission"]["podSetAssignments"]
    assert assignments == [{"name": "main", "topologyAssignment": case[2]}, {"name": "aux"}]
    assert convert(up, "kueue.x-k8s.io/v1beta1") == workload
