"""Verdicts with reasons: every rejection is a ``Status`` naming the plugin that made it.

``FitErrors`` is the per-task node histogram ("4 nodes insufficient nvidia.com/gpu ..."),
the answer to "why is my pod pending" that Volcano folds into one overwritten string.
"""

from __future__ import annotations

import enum

import msgspec


class Code(enum.StrEnum):
    SUCCESS = "Success"
    UNSCHEDULABLE = "Unschedulable"
    UNRESOLVABLE = "UnschedulableAndUnresolvable"
    ERROR = "Error"


class Status(msgspec.Struct, frozen=True, kw_only=True):
    """One verdict: a stable CamelCase ``reason``, a human ``message`` and its ``plugin``."""

    code: Code = Code.UNSCHEDULABLE
    reason: str
    message: str
    plugin: str


class NodeCount(msgspec.Struct, frozen=True, kw_only=True):
    status: Status
    nodes: int


class FitErrors(msgspec.Struct, frozen=True, kw_only=True):
    """Why a task fitted no node: how many nodes failed for each first-failing reason."""

    task: str
    total_nodes: int
    histogram: tuple[NodeCount, ...]
    # The HyperNode whose nodes were tried (network topology), "" for the whole cluster.
    hyper_node: str = ""

    def message(self) -> str:
        if self.total_nodes == 0:
            return "no nodes in the cluster"
        parts = [
            f"{c.nodes} node{'s' if c.nodes != 1 else ''} {c.status.message}"
            for c in self.histogram
        ]
        text = ", ".join(parts) or f"0/{self.total_nodes} nodes are available"
        return f"In hyperNode {self.hyper_node}: {text}" if self.hyper_node else text


def histogram(task: str, total: int, counts: dict[Status, int]) -> FitErrors:
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0].reason, item[0].message))
    return FitErrors(
        task=task,
        total_nodes=total,
        histogram=tuple(NodeCount(status=s, nodes=n) for s, n in ordered),
    )
