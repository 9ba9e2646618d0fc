"""``spec.successPolicy`` (Indexed Jobs): the Job succeeds early once a rule is met.

A rule with ``succeededIndexes`` is met when all those indexes succeeded, or — with
``succeededCount`` — when at least that many of them did; a rule with only ``succeededCount``
is met when that many indexes succeeded. The first met rule wins.
"""

from __future__ import annotations

from services.jobcontroller.batchjob.intervals import Intervals
from shared.models.batch import SuccessPolicy


def matched_rule(policy: SuccessPolicy | None, completions: int, succeeded: Intervals) -> str:
    """The condition message for the first met rule, or "" when none is met."""
    if policy is None or not succeeded.items:
        return ""
    for index, rule in enumerate(policy.rules):
        if rule.succeededIndexes is not None:
            required = Intervals.parse(rule.succeededIndexes, completions)
            if not required.items:
                continue
            contained = required.overlap(succeeded)
            if contained == required.total() or (
                rule.succeededCount is not None and contained >= rule.succeededCount
            ):
                return f"Matched rules at index {index}"
        elif rule.succeededCount is not None and succeeded.total() >= rule.succeededCount:
            return f"Matched rules at index {index}"
    return ""
