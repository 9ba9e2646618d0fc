"""Executing Actions: idempotent conflicts, slow start, status subresource, expectations."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from services.jobcontroller.cache import ControllerCache
from services.jobcontroller.core import Actions, Patch
from services.jobcontroller.executor import ActionExecutor, StatusPatches
from services.jobcontroller.workkeys import POD, WorkKey, expectation_key
from shared.events import ObjectAdded, ObjectModified, raw_object
from shared.expectations import Expectations
from shared.kube import ApiError
from shared.models import Json
from tests.unit.jobcontroller.fakekube import FakeKube

JOB = WorkKey("batch.volcano.sh/v1alpha1/Job", "ns/train")
HEAD: Json = {
    "apiVersion": "batch.volcano.sh/v1alpha1",
    "kind": "Job",
    "metadata": {"name": "train", "namespace": "ns", "uid": "job-uid"},
}
PODS_EXP = expectation_key(JOB, POD)


def pod(name: str, uid: str = "") -> Json:
    meta: Json = {
        "name": name,
        "namespace": "ns",
        "ownerReferences": [
            {
                "apiVersion": "batch.volcano.sh/v1alpha1",
                "kind": "Job",
                "name": "train",
                "uid": "job-uid",
                "controller": True,
            }
        ],
    }
    if uid:
        meta["uid"] = uid
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {}}


def setup() -> tuple[FakeKube, ControllerCache, ActionExecutor]:
    kube = FakeKube()
    cache = ControllerCache(expectations=Expectations(), on_work=lambda key: None)
    clock = iter(range(1000))
    executor = ActionExecutor(kube, cache, clock=lambda: float(next(clock)))
    kube.put({**HEAD, "status": {}})
    return kube, cache, executor


def observe(cache: ControllerCache, obj: Json) -> None:
    cache.apply(
        ObjectAdded(key="ns/train", kind=obj["kind"], resourceVersion="1", object=raw_object(obj))
    )


async def test_create_conflict_is_success_and_lowers_the_expectation() -> None:
    kube, cache, executor = setup()
    kube.put(pod("train-worker-0"))
    actions = Actions(create=[pod("train-worker-0"), pod("train-worker-1")])
    outcome = await executor.execute(JOB, HEAD, actions)
    assert not outcome.failed
    assert outcome.created == {"Pod": 1}
    exp = cache.expectations.get(PODS_EXP)
    assert exp is not None and exp.add == 1  # only the real creation is still expected
    observe(cache, kube.stored(POD, "ns/train-worker-1") or {})
    assert cache.expectations.satisfied(PODS_EXP, now=0.0)


@pytest.mark.parametrize(
    ("batches", "failing", "attempted", "created"),
    [
        ([1, 2, 4], "train-worker-1", 3, 2),
        ([1, 2, 4], "train-worker-0", 1, 0),
        ([], "train-worker-5", 7, 6),
    ],
    ids=["stop-after-failed-batch", "fail-first-batch", "single-batch-tries-all"],
)
async def test_slow_start_stops_after_the_first_batch_with_a_failure(
    batches: list[int], failing: str, attempted: int, created: int
) -> None:
    kube, cache, executor = setup()
    kube.fail("create", "Pod", f"ns/{failing}", ApiError(500, "InternalError", "boom"))
    actions = Actions(create=[pod(f"train-worker-{i}") for i in range(7)], create_batches=batches)
    outcome = await executor.execute(JOB, HEAD, actions)
    assert len(kube.verbs("create", "Pod")) == attempted
    assert outcome.created.get("Pod", 0) == created
    assert outcome.failed and outcome.transient_only
    exp = cache.expectations.get(PODS_EXP)
    assert exp is not None and exp.add == created  # the failed create was lowered at once


@pytest.mark.parametrize(
    ("error", "failed"),
    [
        (ApiError(404, "NotFound", "gone"), False),
        (ApiError(503, "ServiceUnavailable", "later"), True),
    ],
    ids=["404-is-success", "503-fails-the-sync"],
)
async def test_delete_outcomes_and_deletion_expectations(error: ApiError, failed: bool) -> None:
    kube, cache, executor = setup()
    observe(cache, pod("train-worker-0", uid="pod-uid"))
    kube.fail("delete", "Pod", "ns/train-worker-0", error)
    actions = Actions()
    actions.delete_object("Pod", "ns/train-worker-0")
    outcome = await executor.execute(JOB, HEAD, actions)
    assert outcome.failed is failed
    exp = cache.expectations.get(PODS_EXP)
    assert exp is not None
    # 404: the pod is gone but its DELETED may still be on the way; a failure lowers at once.
    assert exp.deleting_uids == (set() if failed else {"pod-uid"})
    assert kube.calls[-1][3]["uid"] == "pod-uid"  # uid precondition


async def test_status_goes_to_the_status_subresource_interim_first() -> None:
    kube, _, executor = setup()
    actions = Actions(patch=[Patch("Pod", "ns/p", {"metadata": {"finalizers": None}})])
    status = StatusPatches(interim={"uncounted": ["a"]}, final={"uncounted": None, "succeeded": 1})
    kube.put(pod("p"))
    await executor.execute(JOB, HEAD, actions, status)
    verbs = [(verb, kind, body) for verb, kind, _, body in kube.calls]
    assert verbs == [
        ("patch/status", "Job", {"status": {"uncounted": ["a"]}}),
        ("patch", "Pod", {"metadata": {"finalizers": None}}),
        ("patch/status", "Job", {"status": {"uncounted": None, "succeeded": 1}}),
    ]
    assert (kube.stored("batch.volcano.sh/v1alpha1/Job", "ns/train") or {})["status"] == {
        "succeeded": 1
    }


@pytest.mark.parametrize(
    ("verb", "kind", "key"),
    [("patch", "Pod", "ns/p"), ("create", "Pod", "ns/train-worker-0")],
    ids=["failed-patch", "failed-create"],
)
async def test_a_failure_leaves_status_and_commands_to_the_next_sync(
    verb: str, kind: str, key: str
) -> None:
    kube, _, executor = setup()
    kube.put(pod("p"))
    kube.fail(verb, kind, key, ApiError(500, "InternalError", "boom"))
    actions = Actions(
        patch=[Patch("Pod", "ns/p", {"a": 1})],
        create=[pod("train-worker-0")],
        consumed_commands=["ns/cmd"],
        events=[("Normal", "Seen", "still posted")],
    )
    outcome = await executor.execute(JOB, HEAD, actions, StatusPatches(final={"succeeded": 1}))
    assert outcome.failed
    assert kube.verbs("patch/status") == []
    assert kube.verbs("delete", "Command") == []
    assert len(kube.of_kind("Event")) == 1


async def test_commands_job_deletion_and_best_effort_events() -> None:
    kube, _, executor = setup()
    kube.fail("create", "Event", "*", ApiError(500, "InternalError", "events down"))
    actions = Actions(
        consumed_commands=["ns/cmd-1"],
        delete_job=True,
        events=[("Warning", "Boom", "first"), ("Normal", "Fine", "second")],
    )
    outcome = await executor.execute(JOB, HEAD, actions)
    assert not outcome.failed  # a missing Command (404) and a failed Event are no failures
    assert kube.verbs("delete", "Command") == ["ns/cmd-1"]
    deletion: Any = next(c for c in kube.calls if c[:2] == ("delete", "Job"))
    assert deletion[3]["propagation"] == "Background"
    events = [body for verb, kind, _, body in kube.calls if (verb, kind) == ("create", "Event")]
    assert [(e["reason"], e["involvedObject"]["uid"]) for e in events] == [
        ("Boom", "job-uid"),
        ("Fine", "job-uid"),
    ]
    assert len(kube.of_kind("Event")) == 1


# Kinds the watcher does not mirror: (apiVersion, kind, name) of the object a job's kill deletes.
UNMIRRORED = [
    pytest.param(("v1", "Secret", "train-ssh"), id="ssh Secret"),
    pytest.param(("networking.k8s.io/v1", "NetworkPolicy", "train"), id="svc NetworkPolicy"),
]


def owned_object(kind: tuple[str, str, str], owner_uid: str | None) -> Json:
    api_version, kind_name, name = kind
    meta: Json = {"name": name, "namespace": "ns"}
    if owner_uid is not None:
        meta["ownerReferences"] = [
            {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "train"}
            | {"uid": owner_uid, "controller": True}
        ]
    return {"apiVersion": api_version, "kind": kind_name, "metadata": meta}


@pytest.mark.parametrize("kind", UNMIRRORED)
@pytest.mark.parametrize(
    ("owner_uid", "deleted"),
    [
        pytest.param("job-uid", True, id="controlled by the job: deleted"),
        pytest.param(None, False, id="a user's own object of that name: kept"),
        pytest.param("other-uid", False, id="an earlier job of that name: kept"),
    ],
)
async def test_an_unmirrored_object_is_deleted_only_when_the_job_controls_it(
    kind: tuple[str, str, str], owner_uid: str | None, deleted: bool
) -> None:
    api_version, kind_name, name = kind
    kube, _, executor = setup()
    stored = kube.put(owned_object(kind, owner_uid))
    actions = Actions(delete=[f"ns/{name}"], delete_kinds=[kind_name])
    outcome = await executor.execute(JOB, HEAD, actions)
    assert not outcome.failed
    assert (kube.stored(f"{api_version}/{kind_name}", f"ns/{name}") is None) is deleted
    deletions = [b for verb, k, _, b in kube.calls if (verb, k) == ("delete", kind_name)]
    if deleted:  # with the uid read, so an object re-created meanwhile is not deleted either
        assert [d["uid"] for d in deletions] == [stored["metadata"]["uid"]]
    else:
        assert deletions == []
        warning = kube.of_kind("Event")[0]
        assert (warning["reason"], warning["type"]) == ("NotOwned", "Warning")
        assert f"{kind_name} {name} is not controlled by this job" in warning["message"]


async def test_a_missing_secret_is_no_failure() -> None:
    kube, _, executor = setup()
    actions = Actions(delete=["ns/train-ssh"], delete_kinds=["Secret"])
    outcome = await executor.execute(JOB, HEAD, actions)
    assert not outcome.failed and kube.verbs("delete", "Secret") == []


def test_ssh_secret_gets_a_fresh_keypair() -> None:
    from services.jobcontroller.sshkeys import wants_keypair, with_keypair
    from services.jobcontroller.volcanojob.plugins import SSH_KEYPAIR_ANNOTATION

    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "j-ssh", "annotations": {SSH_KEYPAIR_ANNOTATION: "true"}},
        "stringData": {"config": "StrictHostKeyChecking no\n"},
    }
    assert wants_keypair(secret)
    filled = with_keypair(secret, bits=1024)
    data = filled["stringData"]
    assert data["config"] == "StrictHostKeyChecking no\n"
    assert data["id_rsa"].startswith("-----BEGIN RSA PRIVATE KEY-----")
    assert (
        data["id_rsa.pub"].startswith("ssh-rsa ") and data["authorized_keys"] == data["id_rsa.pub"]
    )
    assert with_keypair(secret, bits=1024)["stringData"]["id_rsa"] != data["id_rsa"]
    assert not wants_keypair({"kind": "Secret", "metadata": {}})


class SlowKube(FakeKube):
    """Creates take a moment; records when each starts and ends."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[tuple[str, str]] = []

    async def create(self, rt: Any, obj: Json, namespace: str | None = None) -> Json:
        name = obj["metadata"]["name"]
        self.log.append(("start", name))
        await asyncio.sleep(0.01)
        self.log.append(("end", name))
        return await super().create(rt, obj, namespace)


def service(name: str) -> Json:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "ns"}}


async def test_a_batch_creates_its_pods_concurrently_and_other_kinds_in_order() -> None:
    kube = SlowKube()
    cache = ControllerCache(expectations=Expectations(), on_work=lambda key: None)
    executor = ActionExecutor(kube, cache)
    kube.put({**HEAD, "status": {}})
    create = [pod("p0"), pod("p1"), service("svc"), pod("p2"), pod("p3")]
    outcome = await executor.execute(JOB, HEAD, Actions(create=create, create_batches=[1, 4]))
    assert outcome.created == {"Pod": 4, "Service": 1}
    # Batch 1: p0 alone. Batch 2: p1, then svc alone (pods after it may need it), then p2 and
    # p3 together.
    assert kube.log == [
        ("start", "p0"),
        ("end", "p0"),
        ("start", "p1"),
        ("end", "p1"),
        ("start", "svc"),
        ("end", "svc"),
        ("start", "p2"),
        ("start", "p3"),
        ("end", "p2"),
        ("end", "p3"),
    ]


TRACKING = "batch.kubernetes.io/job-tracking"


def tracked_pod(name: str, uid: str, *, finalizer: bool = True) -> Json:
    body = pod(name, uid=uid)
    body["metadata"]["resourceVersion"] = "2" if not finalizer else "1"
    if finalizer:
        body["metadata"]["finalizers"] = [TRACKING]
    return body


def release(name: str, uid: str) -> Patch:
    remove = {"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING]}}
    return Patch("Pod", f"ns/{name}", remove, "strategic", releases=uid)


async def test_finalizer_removal_is_expected_until_the_cache_shows_it() -> None:
    # Kubernetes' finalizerExpectations: until the pod comes back without its finalizer, the
    # next sync must not count it again (its count is already in the written status).
    kube, cache, executor = setup()
    observe(cache, tracked_pod("train-worker-0", "u0"))
    kube.put(tracked_pod("train-worker-0", "u0"))
    outcome = await executor.execute(JOB, HEAD, Actions(patch=[release("train-worker-0", "u0")]))
    assert not outcome.failed
    assert cache.finalizers.pending(str(JOB)) == {"u0"}
    cache.apply(
        ObjectModified(
            key="ns/train-worker-0",
            kind="Pod",
            resourceVersion="2",
            object=raw_object(tracked_pod("train-worker-0", "u0", finalizer=False)),
        )
    )
    assert cache.finalizers.pending(str(JOB)) == frozenset()


@pytest.mark.parametrize(
    ("error", "pending"),
    [(ApiError(503, "ServiceUnavailable", "later"), frozenset()), (ApiError(404, "", ""), {"u0"})],
    ids=["failed-patch-lowers-at-once", "404-waits-for-the-deletion"],
)
async def test_failed_finalizer_removal(error: ApiError, pending: frozenset[str]) -> None:
    kube, cache, executor = setup()
    observe(cache, tracked_pod("train-worker-0", "u0"))
    kube.fail("patch", "Pod", "ns/train-worker-0", error)
    outcome = await executor.execute(JOB, HEAD, Actions(patch=[release("train-worker-0", "u0")]))
    assert outcome.failed is (error.status != 404)
    assert cache.finalizers.pending(str(JOB)) == pending
