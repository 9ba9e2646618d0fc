"""Record keys co-locate a job with its pods; envelopes round-trip as tagged unions."""

from __future__ import annotations

import msgspec
import pytest

from shared.events import (
    ObjectAdded,
    PodBindDecided,
    PodBound,
    decision_decoder,
    encode,
    object_of,
    raw_object,
    result_decoder,
    state_decoder,
)
from shared.models import Pod
from shared.topics import Topics, record_key

OWNED_POD = {
    "kind": "Pod",
    "metadata": {
        "name": "train-worker-3",
        "namespace": "ml",
        "ownerReferences": [{"kind": "Job", "name": "train", "controller": True, "uid": "u"}],
    },
}


@pytest.mark.parametrize(
    ("obj", "key"),
    [
        (OWNED_POD, "ml/train"),
        ({"kind": "Pod", "metadata": {"name": "solo", "namespace": "ml"}}, "ml/solo"),
        ({"kind": "Job", "metadata": {"name": "train", "namespace": "ml"}}, "ml/train"),
        ({"kind": "Node", "metadata": {"name": "n1"}}, "n1"),
        (
            {
                "kind": "Command",
                "metadata": {"name": "c-1", "namespace": "ml"},
                "target": {"kind": "Job", "name": "train"},
            },
            "ml/train",
        ),
    ],
    ids=["owned-pod", "bare-pod", "job", "cluster-scoped", "command-follows-target"],
)
def test_record_keys(obj: dict[str, object], key: str) -> None:
    assert record_key(obj) == key


def test_job_kinds_share_one_topic_and_prefix_applies() -> None:
    topics = Topics(prefix="t1.")
    assert topics.state("Job") == topics.state("PyTorchJob") == "t1.state.jobs"
    assert topics.deadletter == "t1.deadletter"
    assert len(set(topics.everything())) == len(topics.everything())


def test_state_event_round_trip_keeps_object_bytes() -> None:
    event = ObjectAdded(
        key="ml/train", kind="Pod", resourceVersion="7", object=raw_object(OWNED_POD)
    )
    decoded = state_decoder.decode(encode(event))
    assert isinstance(decoded, ObjectAdded)
    pod = object_of(decoded, Pod)
    assert pod.metadata.name == "train-worker-3"


def test_decoders_reject_foreign_tags() -> None:
    bind = encode(PodBindDecided(key="ml/p", pod_uid="u", node="n1", epoch=3))
    assert decision_decoder.decode(bind).epoch == 3
    with pytest.raises(msgspec.ValidationError):
        result_decoder.decode(bind)
    assert isinstance(
        result_decoder.decode(encode(PodBound(key="k", pod_uid="u", node="n"))), PodBound
    )


def test_envelope_ids_are_distinct_32_hex_digits() -> None:
    from shared.events import ObjectAdded, raw_object

    ids = {
        ObjectAdded(key="k", kind="Pod", resourceVersion="1", object=raw_object({})).id
        for _ in range(10_000)
    }
    assert len(ids) == 10_000
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
