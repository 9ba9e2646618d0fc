"""Which batch/v1 Jobs Shoal's job controller runs, by ``spec.managedBy`` and the name it claims
(``SHOAL_JOBCONTROLLER_BATCH_MANAGED_BY``): one controller per Job, beside Kubernetes' own."""

from __future__ import annotations

import pytest

from services.jobcontroller.batchjob.spec import managed_externally
from services.jobcontroller.core import BATCH_CONTROLLER_NAME
from shared.models import Job, convert
from tests.unit.jobcontroller.batchjob_cases import job

SHOAL = "shoal.io/job-controller"


@pytest.mark.parametrize(
    ("managed_by", "claim", "runs_it"),
    [
        pytest.param(None, BATCH_CONTROLLER_NAME, True, id="unset, Shoal is the Job controller"),
        pytest.param(BATCH_CONTROLLER_NAME, BATCH_CONTROLLER_NAME, True, id="built-in name"),
        pytest.param("kueue.x-k8s.io/multikueue", BATCH_CONTROLLER_NAME, False, id="MultiKueue"),
        pytest.param(None, SHOAL, False, id="unset, beside the built-in controller"),
        pytest.param(BATCH_CONTROLLER_NAME, SHOAL, False, id="built-in, beside it"),
        pytest.param(SHOAL, SHOAL, True, id="Shoal's name, beside the built-in controller"),
        pytest.param(SHOAL, BATCH_CONTROLLER_NAME, False, id="Shoal's name, Shoal not claiming"),
    ],
)
def test_one_controller_per_job(managed_by: str | None, claim: str, runs_it: bool) -> None:
    raw = job(managedBy=managed_by) if managed_by is not None else job()
    subject = convert(raw, Job)
    assert managed_externally(subject, claim) is not runs_it
