"""The producer's partitioner is aiokafka's default (Kafka's murmur2 placement), remembered."""

from __future__ import annotations

from aiokafka.partitioner import DefaultPartitioner

from shared.bus.kafka import KeyPartitioner


def test_same_partition_as_aiokafkas_default() -> None:
    mine, theirs = KeyPartitioner(), DefaultPartitioner()
    partitions = [0, 1, 2, 3]
    for i in range(2_000):
        key = f"ns/job-{i % 300}".encode()
        assert mine(key, partitions, partitions) == theirs(key, partitions, partitions)
    assert mine(b"k", [0, 1, 2], [0, 1, 2]) == theirs(b"k", [0, 1, 2], [0, 1, 2])
    assert mine(None, partitions, [2]) == 2
    assert mine(None, partitions, []) in partitions
