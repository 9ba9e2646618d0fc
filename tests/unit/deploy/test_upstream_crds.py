"""Each CRD Shoal ships is upstream's generated CRD: compared field by field with the copy of
upstream's YAML in tests/data/upstream-crds (its SOURCE.md names repository, path and commit).

Everything under ``spec`` is compared (scope, names, versions and, per version, served, storage,
deprecation, subresources, printer columns and the whole schema: properties, types, formats,
defaults, enums, required, descriptions, x-kubernetes-validations, ...), and the CRD's name. A
difference Shoal needs is listed in ``ALLOWED`` with its reason; today there is none.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from services.kubesim import definitions

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "deploy" / "crds"
UPSTREAM = ROOT / "tests" / "data" / "upstream-crds"

Obj = dict[str, Any]

# One row per kind: (shipped file under deploy/crds, upstream file under tests/data/upstream-crds).
KINDS = [
    ("Job.batch.volcano.sh", "batch.volcano.sh_jobs.yaml", "volcano/batch.volcano.sh_jobs.yaml"),
    ("Command.bus.volcano.sh", "bus.volcano.sh_commands.yaml",
     "volcano/bus.volcano.sh_commands.yaml"),
    ("PodGroup.scheduling.volcano.sh", "scheduling.volcano.sh_podgroups.yaml",
     "volcano/scheduling.volcano.sh_podgroups.yaml"),
    ("Queue.scheduling.volcano.sh", "scheduling.volcano.sh_queues.yaml",
     "volcano/scheduling.volcano.sh_queues.yaml"),
    ("HyperNode.topology.volcano.sh", "topology.volcano.sh_hypernodes.yaml",
     "volcano/topology.volcano.sh_hypernodes.yaml"),
    ("PyTorchJob.kubeflow.org", "kubeflow/kubeflow.org_pytorchjobs.yaml",
     "training-operator/kubeflow.org_pytorchjobs.yaml"),
    ("ClusterQueue.kueue.x-k8s.io", "kueue/kueue.x-k8s.io_clusterqueues.yaml",
     "kueue/kueue.x-k8s.io_clusterqueues.yaml"),
    ("Cohort.kueue.x-k8s.io", "kueue/kueue.x-k8s.io_cohorts.yaml",
     "kueue/kueue.x-k8s.io_cohorts.yaml"),
    ("LocalQueue.kueue.x-k8s.io", "kueue/kueue.x-k8s.io_localqueues.yaml",
     "kueue/kueue.x-k8s.io_localqueues.yaml"),
    ("ResourceFlavor.kueue.x-k8s.io", "kueue/kueue.x-k8s.io_resourceflavors.yaml",
     "kueue/kueue.x-k8s.io_resourceflavors.yaml"),
    ("WorkloadPriorityClass.kueue.x-k8s.io", "kueue/kueue.x-k8s.io_workloadpriorityclasses.yaml",
     "kueue/kueue.x-k8s.io_workloadpriorityclasses.yaml"),
    ("Workload.kueue.x-k8s.io", "kueue/kueue.x-k8s.io_workloads.yaml",
     "kueue/kueue.x-k8s.io_workloads.yaml"),
]  # fmt: skip

# Differences Shoal needs, per kind: path (as `first_difference` names it) -> reason. Each one is
# documented in docs/compatibility.md; the test fails if a listed path no longer differs.
ALLOWED: dict[str, dict[str, str]] = {}


def _crd(path: Path) -> Obj:
    (doc,) = [d for d in yaml.load_all(path.read_text(), Loader=yaml.CSafeLoader) if d]
    assert doc["kind"] == "CustomResourceDefinition", path
    return {"name": doc["metadata"]["name"], "spec": doc["spec"]}


def differences(shipped: Any, upstream: Any, path: str = "") -> list[str]:
    """Every path where the two differ, in document order (lists item by item; dicts by key,
    upstream's keys first)."""
    if isinstance(shipped, dict) and isinstance(upstream, dict):
        out: list[str] = []
        for key in [*upstream, *(k for k in shipped if k not in upstream)]:
            where = f"{path}.{key}"
            if key not in shipped:
                out.append(f"{where} (missing)")
            elif key not in upstream:
                out.append(f"{where} (not upstream)")
            else:
                out += differences(shipped[key], upstream[key], where)
        return out
    if isinstance(shipped, list) and isinstance(upstream, list):
        out = []
        for i, (a, b) in enumerate(zip(shipped, upstream, strict=False)):
            out += differences(a, b, f"{path}[{i}]")
        if len(shipped) != len(upstream):
            out.append(f"{path} (length {len(shipped)}, upstream {len(upstream)})")
        return out
    if type(shipped) is not type(upstream) or shipped != upstream:
        return [f"{path} ({shipped!r} != upstream {upstream!r})"]
    return []


def _unexplained(kind: str, shipped: Obj, upstream: Obj) -> tuple[list[str], set[str]]:
    allowed = ALLOWED.get(kind, {})
    found = differences(shipped, upstream)
    unexplained = [d for d in found if d.split(" ", 1)[0] not in allowed]
    stale = set(allowed) - {d.split(" ", 1)[0] for d in found}
    return unexplained, stale


@pytest.mark.parametrize(("kind", "shipped", "upstream"), KINDS, ids=[k[0] for k in KINDS])
def test_shipped_crd_is_upstreams(kind: str, shipped: str, upstream: str) -> None:
    unexplained, stale = _unexplained(kind, _crd(SHIPPED / shipped), _crd(UPSTREAM / upstream))
    assert not unexplained, f"{kind}: first difference at {unexplained[0]}"
    assert not stale, f"{kind}: allowed differences that no longer differ: {sorted(stale)}"


def test_every_shipped_crd_has_a_row() -> None:
    shipped = {
        str(p.relative_to(SHIPPED))
        for p in SHIPPED.rglob("*.yaml")
        if p.name != "kustomization.yaml"
    }
    assert shipped == {k[1] for k in KINDS}


_JOB = {"spec": {"versions": [{"schema": {"properties": {"a": {"type": "string"}}}}]}}


@pytest.mark.parametrize(
    ("shipped", "expected"),
    [
        (_JOB, []),
        (
            {"spec": {"versions": [{"schema": {"properties": {"a": {"type": "integer"}}}}]}},
            [".spec.versions[0].schema.properties.a.type ('integer' != upstream 'string')"],
        ),
        (
            {"spec": {"versions": [{"schema": {"properties": {}}}]}},
            [".spec.versions[0].schema.properties.a (missing)"],
        ),
        (
            {"spec": {"versions": [{"schema": {"properties": {"a": {"type": "string"}}}}, {}]}},
            [".spec.versions (length 2, upstream 1)"],
        ),
        (
            {"spec": {"versions": [{"schema": {"properties": {"a": {"type": "string"}}}}]},
             "x": 1},
            [".x (not upstream)"],
        ),
    ],
    ids=["equal", "type", "missing-property", "extra-version", "extra-key"],
)  # fmt: skip
def test_differences_name_the_differing_path(shipped: Obj, expected: list[str]) -> None:
    assert differences(shipped, _JOB) == expected


def test_kubesim_serves_the_shipped_crds_from_the_checkout_and_the_wheel() -> None:
    # In a checkout kubesim reads deploy/crds in place; the wheel carries the same directory as
    # services/kubesim/crds (hatch's force-include), where an installed kubesim looks first.
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wheel = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["force-include"] == {"deploy/crds": "services/kubesim/crds"}
    assert not (ROOT / "services" / "kubesim" / "crds").exists()  # no second copy in the tree
    assert definitions.CRD_DIR == SHIPPED
    served = {(r.group, r.kind) for r in definitions.custom_resources()}
    assert served == {(k[0].split(".", 1)[1], k[0].split(".", 1)[0]) for k in KINDS}
