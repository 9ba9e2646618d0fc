"""The message bus: a `Bus` protocol over Kafka (`KafkaBus`) and in memory (`MemoryBus`).

`KafkaBus` is imported from `shared.bus.kafka` (it pulls in aiokafka's client); everything a
handler or a pure test needs is here.
"""

from __future__ import annotations

from shared.bus.delivery import (
    HEADER_ERROR,
    HEADER_KEY,
    HEADER_OFFSET,
    HEADER_PARTITION,
    HEADER_SIZE,
    HEADER_STAGE,
    HEADER_TOPIC,
)
from shared.bus.memory import MemoryBus, UnknownTopicError
from shared.bus.protocol import Bus
from shared.bus.records import (
    Decode,
    DeliveryPolicy,
    Handler,
    Headers,
    Outgoing,
    Position,
    RawRecord,
    Record,
    RetryLater,
    Snapshot,
    TopicPartition,
)

__all__ = [
    "HEADER_ERROR",
    "HEADER_KEY",
    "HEADER_OFFSET",
    "HEADER_PARTITION",
    "HEADER_SIZE",
    "HEADER_STAGE",
    "HEADER_TOPIC",
    "Bus",
    "Decode",
    "DeliveryPolicy",
    "Handler",
    "Headers",
    "MemoryBus",
    "Outgoing",
    "Position",
    "RawRecord",
    "Record",
    "RetryLater",
    "Snapshot",
    "TopicPartition",
    "UnknownTopicError",
]
