"""A Workload's TopologyAssignment between Kueue's v1beta1 ``domains`` (one entry per topology
domain: its values per level and its pod count) and v1beta2's compact ``slices``.

Kueue's ``Convert_v1beta1_TopologyAssignment_To_v1beta2_TopologyAssignment`` encodes with
``tas.V1Beta2From`` (pkg/util/tas/tas_assignment.go) under the
``TASAssignmentsEncodingByHostnamePrefix`` feature gate (beta, on): contiguous domains whose
hostnames share a reusable ``-``-delimited prefix form a slice, each slice takes the common
prefix and suffix of its values and a universal value or pod count where they are all equal,
and the single-slice encoding is kept instead when its JSON is shorter. The way back lists
every domain of every slice in order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

Obj = dict[str, Any]
HOSTNAME = "kubernetes.io/hostname"  # corev1.LabelHostname
MAX_DOMAINS_PER_SLICE = 100_000  # the v1beta2 roots and individual pod counts MaxItems
MAX_SLICES = 1_000  # the v1beta2 slices MaxItems


def _compact_values(values: Sequence[str]) -> Obj:
    """``fillSingleCompactSliceValues``."""
    prefix = suffix = values[0]
    max_len = min_len = len(values[0])
    for text in values[1:]:
        n = len(text)
        min_len, max_len = min(min_len, n), max(max_len, n)
        prefix, suffix = prefix[:n], suffix[max(len(suffix) - n, 0) :]
        for i in range(len(prefix)):
            if text[i] != prefix[i]:
                prefix = prefix[:i]
                break
        for i in range(len(suffix)):
            if text[n - 1 - i] != suffix[len(suffix) - 1 - i]:
                suffix = suffix[len(suffix) - i :]
                break
    if len(prefix) == max_len:
        return {"universal": prefix}
    if len(prefix) + len(suffix) > min_len:  # e.g. {"ababa", "aba"}
        prefix = prefix[: min_len - len(suffix)]
    individual: Obj = {}
    if prefix:
        individual["prefix"] = prefix
    if suffix:
        individual["suffix"] = suffix
    individual["roots"] = [v[len(prefix) : len(v) - len(suffix)] for v in values]
    return {"individual": individual}


def _compact_slice(levels: Sequence[str], domains: Sequence[Obj]) -> Obj:
    """``compactSliceEncoding``."""
    counts = [int(d.get("count") or 0) for d in domains]
    return {
        "domainCount": len(domains),
        "valuesPerLevel": [
            _compact_values([str(d["values"][level]) for d in domains])
            for level in range(len(levels))
        ],
        "podCounts": {"universal": counts[0]}
        if all(c == counts[0] for c in counts)
        else {"individual": counts},
    }


def reusable_hostname_prefix_keys(level: int, domains: Sequence[Obj]) -> list[str] | None:
    """``reusableHostnamePrefixKeys``: per domain, its longest hostname prefix (up to a ``-``)
    that another domain shares, backing off to shorter ones until the slices fit."""
    candidates: list[list[str]] = []
    seen: dict[str, int] = {}
    for domain in domains:
        hostname = str(domain["values"][level])
        prefixes = [hostname[: end + 1] for end in range(len(hostname) - 1) if hostname[end] == "-"]
        for prefix in prefixes:
            seen[prefix] = min(seen.get(prefix, 0) + 1, 2)
        candidates.append(prefixes)
    for depth in range(max((len(c) for c in candidates), default=0), 0, -1):
        keys = [
            next((p for p in reversed(prefixes[:depth]) if seen[p] >= 2), "")
            for prefixes in candidates
        ]
        if sum(_chunks(len(run)) for run in _runs(keys)) <= MAX_SLICES:
            return keys
    return None


def _chunks(length: int) -> int:
    return (length + MAX_DOMAINS_PER_SLICE - 1) // MAX_DOMAINS_PER_SLICE


def _runs(keys: Sequence[str]) -> Iterator[range]:
    """Index ranges of consecutive equal keys (``compactDomainRuns``)."""
    start = 0
    for i in range(1, len(keys)):
        if keys[i] != keys[start]:
            yield range(start, i)
            start = i
    if keys:
        yield range(start, len(keys))


def _with_slices(levels: list[str], slices: list[Obj]) -> Obj:
    out: Obj = {}
    if levels:
        out["levels"] = levels
    if slices:
        out["slices"] = slices
    return out


def hostname_prefix_encoding(levels: list[str], domains: list[Obj]) -> Obj:
    """``compactTopologyAssignmentEncodingWithHostnamePrefixRuns``."""
    keys = None
    if len(domains) > 1 and levels and levels[-1] == HOSTNAME:
        keys = reusable_hostname_prefix_keys(len(levels) - 1, domains)
    runs = list(_runs(keys)) if keys else ([range(len(domains))] if domains else [])
    slices = [
        _compact_slice(levels, [domains[i] for i in run[start : start + MAX_DOMAINS_PER_SLICE]])
        for run in runs
        for start in range(0, len(run), MAX_DOMAINS_PER_SLICE)
    ]
    return _with_slices(levels, slices)


def single_slice_encoding(levels: list[str], domains: list[Obj]) -> Obj:
    """``singleCompactTopologyAssignmentEncoding``."""
    return _with_slices(levels, [_compact_slice(levels, domains)] if domains else [])


def _size(obj: Obj) -> int:
    return len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())


def to_v1beta2(assignment: Obj) -> Obj:
    """``tas.V1Beta2From`` of a v1beta1 TopologyAssignment."""
    levels = [str(level) for level in assignment.get("levels") or ()]
    domains = [d for d in assignment.get("domains") or () if isinstance(d, dict)]
    prefixed = hostname_prefix_encoding(levels, domains)
    if len(prefixed.get("slices", ())) <= 1 or len(domains) > MAX_DOMAINS_PER_SLICE:
        return prefixed
    single = single_slice_encoding(levels, domains)
    return single if _size(single) < _size(prefixed) else prefixed


def _value(values: Obj, index: int) -> str:
    if "universal" in values:
        return str(values["universal"])
    individual = values.get("individual") or {}
    root = str(individual["roots"][index])
    return str(individual.get("prefix") or "") + root + str(individual.get("suffix") or "")


def to_v1beta1(assignment: Obj) -> Obj:
    """Kueue's v1beta2 → v1beta1 conversion: every domain of every slice, in order."""
    levels = list(assignment.get("levels") or ())
    domains = []
    for piece in assignment.get("slices") or ():
        counts = piece.get("podCounts") or {}
        per_level = piece.get("valuesPerLevel") or []
        for i in range(int(piece.get("domainCount") or 0)):
            count = counts["universal"] if "universal" in counts else counts["individual"][i]
            values = [_value(per_level[level], i) for level in range(len(levels))]
            domains.append({"values": values, "count": count})
    out: Obj = {"domains": domains}
    if "levels" in assignment:
        out = {"levels": assignment["levels"], **out}
    return out
