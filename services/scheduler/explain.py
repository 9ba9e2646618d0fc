"""``explain``: why is this job where it is — every plugin's verdict and each failing task's
node histogram, as data (for the API and ``shoal explain``) or as text for a terminal."""

from __future__ import annotations

from typing import Any

import msgspec

from services.scheduler.result import JobReasons, SessionResult
from shared.errors import UserError


def explain(result: SessionResult, job: str) -> JobReasons:
    """The reasons the session kept for ``job`` (``namespace/podgroup``)."""
    try:
        return result.reasons[job]
    except KeyError:
        known = ", ".join(sorted(result.reasons)[:10]) or "none"
        raise UserError(f"job {job!r} was not in the session (jobs: {known})") from None


def as_dict(reasons: JobReasons) -> dict[str, Any]:
    doc: dict[str, Any] = msgspec.to_builtins(reasons)
    return doc


def render(reasons: JobReasons) -> str:
    lines = [f"job {reasons.job} (queue {reasons.queue}): {reasons.phase}"]
    if reasons.message:
        lines.append(f"  {reasons.message}")
    for plugin, statuses in reasons.plugins.items():
        for status in statuses:
            lines.append(f"  [{plugin}] {status.reason}: {status.message}")
    for task, fit in reasons.tasks.items():
        lines.append(f"  task {task}: 0/{fit.total_nodes} nodes fit")
        for count in fit.histogram:
            lines.append(
                f"    {count.nodes:>5} x [{count.status.plugin}] {count.status.reason}:"
                f" {count.status.message}"
            )
    return "\n".join(lines)
