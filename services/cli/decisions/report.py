"""The comparison of a run: per scenario what was compared and every difference, the share of
scenarios whose determined decisions agree, and the table ``shoal compare decisions`` prints.

A scenario one side could not run (its plane failed, a timeout) is neither agreement nor a
difference in decisions: it is counted apart, as *not compared*, and fails the run.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from services.cli.decisions import kueue
from services.cli.decisions.kueue import KueueScenario
from services.cli.decisions.outcome import Difference, Outcome, diff
from services.cli.decisions.scenario import Scenario, compared

THRESHOLD = 0.95


class Row(msgspec.Struct, kw_only=True):
    scenario: str
    source: str
    kind: str
    seed: int | None
    compared: str
    differences: list[Difference]
    errors: list[str]
    seconds: dict[str, float]


class Report(msgspec.Struct, kw_only=True):
    peer: str
    rows: list[Row]
    threshold: float = THRESHOLD

    @property
    def ran(self) -> list[Row]:
        return [r for r in self.rows if not r.errors]

    @property
    def agreeing(self) -> int:
        return sum(1 for r in self.ran if not r.differences)

    @property
    def agreement(self) -> float:
        return self.agreeing / len(self.rows) if self.rows else 0.0

    @property
    def passed(self) -> bool:
        return (
            bool(self.rows)
            and len(self.ran) == len(self.rows)
            and (self.agreement >= self.threshold)
        )


def compare(
    peer: str,
    scenarios: Sequence[Scenario | KueueScenario],
    peer_outcomes: Sequence[Outcome],
    shoal_outcomes: Sequence[Outcome],
    *,
    threshold: float = THRESHOLD,
) -> Report:
    """One row per scenario, from the two sides' outcomes (matched by scenario name)."""
    left = {o.scenario: o for o in peer_outcomes}
    right = {o.scenario: o for o in shoal_outcomes}
    rows = []
    for scenario in scenarios:
        a, b = left.get(scenario.name), right.get(scenario.name)
        errors = [
            f"{side}: {o.error if o is not None else 'not run'}"
            for side, o in ((peer, a), ("shoal", b))
            if o is None or o.error
        ]
        rows.append(
            Row(
                scenario=scenario.name,
                source=scenario.source,
                kind=scenario.kind,
                seed=scenario.seed,
                compared=(
                    kueue.compared(scenario)
                    if isinstance(scenario, KueueScenario)
                    else compared(scenario)
                ),
                differences=[] if errors or a is None or b is None else diff(scenario, a, b),
                errors=errors,
                seconds={o.side: o.seconds for o in (a, b) if o is not None},
            )
        )
    return Report(peer=peer, rows=rows, threshold=threshold)


def render(report: Report) -> str:
    width = max([16, *(len(r.scenario) + 2 for r in report.rows)])
    lines = [
        f"{'scenario':<{width}}{'kind':<13}{'result':<14}{'s (peer/shoal)':<16}compared",
    ]
    for row in report.rows:
        result = (
            "not compared"
            if row.errors
            else (f"{len(row.differences)} differ" if row.differences else "same")
        )
        times = "/".join(f"{s:g}" for s in row.seconds.values())
        lines.append(f"{row.scenario:<{width}}{row.kind:<13}{result:<14}{times:<16}{row.compared}")
    differing = [r for r in report.rows if r.differences or r.errors]
    if differing:
        lines.append("")
        lines.append("differences (peer / shoal):")
    for row in differing:
        where = f" (--seed {row.seed})" if row.seed is not None else f" ({row.source})"
        lines.append(f"  {row.scenario}{where}:")
        lines.extend(f"    {error}" for error in row.errors)
        lines.extend(f"    {d.decision}: {d.peer} / {d.shoal}" for d in row.differences)
    lines.append("")
    lines.append(
        f"{report.peer}: {report.agreeing} of {len(report.rows)} scenarios give the same "
        f"determined decisions ({report.agreement:.1%}; threshold {report.threshold:.0%}); "
        f"{len(report.rows) - len(report.ran)} not compared"
    )
    return "\n".join(lines)
