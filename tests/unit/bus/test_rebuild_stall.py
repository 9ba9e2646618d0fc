"""A rebuild read that makes no progress is started again instead of waiting forever: after a
broker restart a partition can stay unanswered to one consumer (no fetch ever reports its high
watermark), and a service whose rebuild never ends never becomes ready."""

from __future__ import annotations

from typing import Any

import pytest
from aiokafka import TopicPartition

from shared.bus.kafka import RebuildStalled, _read_to_highwater


class Consumer:
    """A consumer over fixed partitions: ``answering`` ones report their high watermark and
    hand out their records; the others never answer."""

    def __init__(self, sizes: dict[TopicPartition, int], answering: set[TopicPartition]) -> None:
        self.sizes = sizes
        self.answering = answering
        self.read = dict.fromkeys(sizes, 0)
        self.paused: set[TopicPartition] = set()

    async def getmany(self, *, timeout_ms: int, max_records: int) -> dict[TopicPartition, Any]:
        return {}

    def last_poll_timestamp(self, tp: TopicPartition) -> int | None:
        return 1 if tp in self.answering else None

    def highwater(self, tp: TopicPartition) -> int | None:
        return self.sizes[tp] if tp in self.answering else None

    async def position(self, tp: TopicPartition) -> int:
        return self.read[tp]

    def pause(self, tp: TopicPartition) -> None:
        self.paused.add(tp)


A, B = TopicPartition("shoal.state.jobs", 0), TopicPartition("shoal.state.jobs", 1)


@pytest.mark.parametrize(
    ("answering", "sizes", "stalled_on"),
    [
        ({A, B}, {A: 0, B: 0}, None),
        ({A}, {A: 0, B: 0}, ["shoal.state.jobs/1"]),
        (set(), {A: 0, B: 0}, ["shoal.state.jobs/0", "shoal.state.jobs/1"]),
    ],
    ids=["all-answer-read-ends", "one-never-answers-stalled", "none-answers-stalled"],
)
async def test_a_partition_that_never_answers_stalls_the_read(
    answering: set[TopicPartition],
    sizes: dict[TopicPartition, int],
    stalled_on: list[str] | None,
) -> None:
    consumer = Consumer(sizes, answering)
    if stalled_on is None:
        records, positions = await _read_to_highwater(consumer, [A, B], stall_s=0.3)
        assert (records, positions) == ([], {A: 0, B: 0})
        assert consumer.paused == {A, B}
        return
    with pytest.raises(RebuildStalled) as raised:
        await _read_to_highwater(consumer, [A, B], stall_s=0.3)
    assert raised.value.waiting == stalled_on


async def test_a_gap_at_a_partitions_tail_ends_its_read_where_it_is() -> None:
    # The embedded broker reserved offsets 3..4 of B for a batch it then failed to store: a
    # fetch at 3 returns nothing until something is written after the gap.
    consumer = Consumer({A: 0, B: 5}, {A, B})
    consumer.read[B] = 3
    _, positions = await _read_to_highwater(consumer, [A, B], stall_s=10, gap_s=0.3)
    assert positions == {A: 0, B: 3}, "the read ends at the gap; following goes on from there"
    assert consumer.paused == {A, B}
