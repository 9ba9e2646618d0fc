"""client-go's ``TestEventCorrelator`` (tools/record/events_cache_test.go), one row per case,
and the recorder's calls: a repeat is one PATCH of the first Event, never a new object."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from shared.kube.recording import (
    AGGREGATE_INTERVAL,
    AGGREGATE_MAX_EVENTS,
    COMBINED_PREFIX,
    SPAM_BURST,
    EventCorrelator,
    EventRecorder,
)
from shared.kube.resources import ResourceType

Json = dict[str, Any]


def event(reason: str, message: str, *, name: str = "my-pod", ns: str = "my-ns") -> Json:
    return {
        "metadata": {"namespace": ns},
        "involvedObject": {"kind": "Pod", "name": name, "namespace": ns, "uid": "uid-1"},
        "reason": reason,
        "message": message,
        "source": {"component": "kubelet", "host": "kublet.node1"},
        "count": 1,
    }


def similar(num: int, template: Json) -> list[Json]:
    out = []
    for i in range(num):
        e = copy.deepcopy(template)
        e["message"] = f"{template['message']}-{i}-{template['message']}"
        out.append(e)
    return out


SIMILAR = event("similar", "similar message")
SIMILAR["involvedObject"]["fieldPath"] = "spec.containers{container1}"
OTHER_CONTAINER = copy.deepcopy(SIMILAR)
OTHER_CONTAINER["involvedObject"]["fieldPath"] = "spec.containers{container2}"
DUPLICATE = event("duplicate", "me again")
UNIQUE = [event(f"reason-{i}", f"message-{i}", name=f"pod-{i}", ns=f"ns-{i}") for i in range(30)]

CASES: list[tuple[str, list[Json], Json, int, float, bool, str]] = [
    ("create-a-single-event", [], event("first", "i am first"), 1, 5, False, "i am first"),
    ("the-same-event-should-just-count", [DUPLICATE], DUPLICATE, 2, 5, False, "me again"),
    (
        "the-same-event-should-just-count-even-if-more-than-aggregate",
        [DUPLICATE] * AGGREGATE_MAX_EVENTS,
        DUPLICATE,
        AGGREGATE_MAX_EVENTS + 1,
        30,
        False,
        "me again",
    ),
    (
        "the-same-event-is-spam-if-happens-too-frequently",
        [DUPLICATE] * (SPAM_BURST + 1),
        DUPLICATE,
        0,
        1,
        True,
        "",
    ),
    ("create-many-unique-events", UNIQUE, event("unique", "snowflake"), 1, 5, False, "snowflake"),
    (
        "similar-events-should-aggregate-event",
        similar(AGGREGATE_MAX_EVENTS - 1, SIMILAR),
        SIMILAR,
        1,
        5,
        False,
        COMBINED_PREFIX + "similar message",
    ),
    (
        "similar-events-many-times-should-count-the-aggregate",
        similar(AGGREGATE_MAX_EVENTS, SIMILAR),
        SIMILAR,
        2,
        5,
        False,
        COMBINED_PREFIX + "similar message",
    ),
    (
        "events-from-different-containers-do-not-aggregate",
        [OTHER_CONTAINER],
        SIMILAR,
        1,
        5,
        False,
        "similar message",
    ),
    (
        "similar-events-whose-interval-is-greater-than-aggregate-interval-do-not-aggregate",
        similar(AGGREGATE_MAX_EVENTS - 1, SIMILAR),
        SIMILAR,
        1,
        AGGREGATE_INTERVAL + 1,
        False,
        "similar message",
    ),
]


@pytest.mark.parametrize(
    ("previous", "new", "count", "interval", "skip", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_event_correlator(
    previous: list[Json], new: Json, count: int, interval: float, skip: bool, message: str
) -> None:
    correlator = EventCorrelator()
    now = 1_000_000.0
    for i, prior in enumerate(previous):
        result = correlator.correlate(prior, now)
        if not result.skip:
            posted = copy.deepcopy(result.event)
            posted["metadata"].setdefault("name", f"posted-{i}")
            correlator.update_state(posted)
        now += interval
    result = correlator.correlate(new, now)
    assert result.skip is skip
    if skip:
        return
    assert result.event["count"] == count
    assert result.event["message"] == message
    assert (result.patch is not None) is (count > 1)


class FakeSink:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any]] = []
        self.created = 0

    async def create(self, rt: ResourceType, obj: Json, namespace: str | None = None) -> Json:
        self.created += 1
        named = {**obj, "metadata": {**obj["metadata"], "name": f"ev-{self.created}"}}
        named["metadata"].pop("generateName", None)
        self.calls.append(("create", named["metadata"]["name"], obj.get("count")))
        return named

    async def patch(
        self,
        rt: ResourceType,
        name: str,
        patch: Any,
        *,
        namespace: str | None = None,
        patch_type: str = "merge",
        subresource: str = "",
    ) -> Json:
        self.calls.append(("patch", name, patch["count"]))
        assert patch_type == "strategic"
        return {**DUPLICATE, "metadata": {"name": name}, "count": patch["count"]}


async def test_recorder_patches_the_first_event_for_repeats() -> None:
    sink = FakeSink()
    clock = iter(float(t) for t in range(1000, 2000, 10))
    recorder = EventRecorder(sink, clock=lambda: next(clock))
    for _ in range(3):
        await recorder.post(copy.deepcopy(DUPLICATE))
    assert sink.calls == [("create", "ev-1", 1), ("patch", "ev-1", 2), ("patch", "ev-1", 3)]
