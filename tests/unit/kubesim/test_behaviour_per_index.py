"""``sim.shoal.io/duration`` and ``exit-code`` lists: one value per completion index, cyclic."""

from __future__ import annotations

import pytest

from services.kubesim.behaviour import behaviour_of


@pytest.mark.parametrize(
    ("notes", "index", "duration", "exit_code"),
    [
        ({"sim.shoal.io/exit-code": "42"}, None, None, 42),
        ({"sim.shoal.io/exit-code": "1,0"}, "4", None, 1),
        ({"sim.shoal.io/exit-code": "1,0"}, "3", None, 0),
        ({"sim.shoal.io/duration": "2s,300ms", "sim.shoal.io/exit-code": "1,0"}, "1", 0.3, 0),
        ({"sim.shoal.io/exit-code": "1,0"}, None, None, 1),
        ({"sim.shoal.io/exit-code": "x,0"}, "0", None, 0),
    ],
    ids=["one-code", "even-index", "odd-index", "per-index-duration", "no-index", "malformed"],
)
def test_per_index_values(
    notes: dict[str, str], index: str | None, duration: float | None, exit_code: int
) -> None:
    annotations = dict(notes)
    if index is not None:
        annotations["batch.kubernetes.io/job-completion-index"] = index
    behaviour = behaviour_of({"metadata": {"annotations": annotations}}, default_start_delay=0.05)
    assert (behaviour.duration, behaviour.exit_code) == (duration, exit_code)
