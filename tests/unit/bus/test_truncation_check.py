"""A reader finds a partition whose log restarted below its position (``_Truncations``), and
asks for positions only when the high watermark alone cannot rule that out."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from aiokafka.structs import TopicPartition as KafkaTopicPartition

from shared.bus import TopicPartition
from shared.bus.kafka import _Truncations

TP = KafkaTopicPartition("shoal.state.jobs", 0)


@dataclass
class Record:
    offset: int


@dataclass
class FakeConsumer:
    highwater_at: int | None
    position_at: int
    asked: int = 0
    seeked: list[KafkaTopicPartition] = field(default_factory=list)

    def assignment(self) -> set[KafkaTopicPartition]:
        return {TP}

    def highwater(self, tp: KafkaTopicPartition) -> int | None:
        return self.highwater_at

    async def position(self, tp: KafkaTopicPartition) -> int:
        self.asked += 1
        return self.position_at

    async def seek_to_beginning(self, tp: KafkaTopicPartition) -> None:
        self.seeked.append(tp)


@pytest.mark.parametrize(
    ("read_to", "forget", "highwater", "position", "asked", "lost"),
    [
        (10, False, 10, 10, 0, False),  # caught up: no position asked
        (10, False, 25, 10, 0, False),  # behind the log's end
        (10, False, 3, 10, 1, True),  # the log restarted below what we read: lost
        (None, False, 5, 7, 1, False),  # resumed from a commit, read nothing: nothing of ours
        (10, True, 12, 20, 1, False),  # a rebalance moved the position: asked again
        (None, False, None, 7, 0, False),  # not fetched yet
    ],
    ids=[
        "caught-up",
        "behind",
        "restarted-below",
        "resumed-unread",
        "after-rebalance",
        "unfetched",
    ],
)
async def test_truncation_check(
    read_to: int | None,
    forget: bool,
    highwater: int | None,
    position: int,
    asked: int,
    lost: bool,
) -> None:
    found: set[TopicPartition] = set()
    check = _Truncations(found, every_s=0.0)
    if read_to is not None:
        check.saw({TP: [Record(read_to - 1)]})
    if forget:
        check.forget()
    consumer = FakeConsumer(highwater_at=highwater, position_at=position)
    await check.check(consumer)
    assert consumer.asked == asked
    assert (TopicPartition(TP.topic, TP.partition) in found) is lost
    assert bool(consumer.seeked) is (highwater is not None and highwater < position)


@pytest.mark.parametrize(
    ("first_read", "seek_back", "then_read", "lost"),
    [
        ([10, 11], False, [12, 13], False),
        ([10, 11], False, [0, 1], True),
        ([10, 11], True, [10, 11], False),
    ],
    ids=["onward", "went-back-by-itself", "our-own-seek-back"],
)
def test_a_read_that_goes_back_by_itself_is_a_restarted_log(
    first_read: list[int], seek_back: bool, then_read: list[int], lost: bool
) -> None:
    # Kafka answers a position past a shorter new log with OffsetOutOfRange, and the client
    # moves to its start without a word: the records simply start lower.
    found: set[TopicPartition] = set()
    check = _Truncations(found)
    check.saw({TP: [Record(offset) for offset in first_read]})
    if seek_back:
        check.forget()
    check.saw({TP: [Record(offset) for offset in then_read]})
    assert (TopicPartition(TP.topic, TP.partition) in found) is lost


@pytest.mark.parametrize(
    ("gone", "lost"),
    [((), False), (("shoal.state.pods",), False), (("shoal.state.jobs",), True)],
    ids=["rebalance", "another-topic-gone", "its-topic-gone"],
)
def test_what_was_read_of_a_topic_gone_at_a_rebalance_is_lost(
    gone: tuple[str, ...], lost: bool
) -> None:
    # Kafka takes a deleted topic's partitions away from a group; its members are reassigned.
    found: set[TopicPartition] = set()
    check = _Truncations(found)
    check.saw({TP: [Record(10)]})
    check.forget(gone=gone)
    assert (TopicPartition(TP.topic, TP.partition) in found) is lost
    check.saw({TP: [Record(0)]})  # read again from the group's commit: nothing more to say
    assert len(found) == int(lost)


@pytest.mark.parametrize(
    ("rebuilt_to", "highwater", "lost"),
    [(7, 7, False), (7, 9, False), (7, 2, True), (0, 0, False)],
    ids=["at-the-end", "behind", "restarted-below-the-rebuild", "empty-rebuild"],
)
async def test_a_follower_counts_what_its_rebuild_read(
    rebuilt_to: int, highwater: int, lost: bool
) -> None:
    # A follower starts where its rebuild stopped and has read nothing itself yet: a log that
    # restarts below that position lost what the rebuild read.
    found: set[TopicPartition] = set()
    check = _Truncations(found, every_s=0.0)
    check.read_up_to({TP: rebuilt_to})
    await check.check(FakeConsumer(highwater_at=highwater, position_at=rebuilt_to))
    assert (TopicPartition(TP.topic, TP.partition) in found) is lost
