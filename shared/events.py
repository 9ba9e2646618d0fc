"""The event envelope: every record on every Shoal topic is one of these tagged Structs.

Tags are explicit and never reused; new fields get defaults so old records still decode.
Names are past-tense facts. API objects travel as raw JSON (``msgspec.Raw``) so that a record is
decoded into a typed model only by the consumer that needs it, and passes through intact.
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

import msgspec

from shared.models.base import Json

# Record ids: 128 random bits as 32 hex digits, like ``uuid4().hex`` (which would cost several
# times as much per record: a system call, then a UUID object), from a generator seeded once
# per process from the system's entropy.
_ids = random.Random(os.urandom(32))
os.register_at_fork(after_in_child=lambda: _ids.seed(os.urandom(32)))


def new_id() -> str:
    return f"{_ids.getrandbits(128):032x}"


class Envelope(msgspec.Struct, kw_only=True, tag_field="type", omit_defaults=True):
    """Fields every event carries."""

    id: str = msgspec.field(default_factory=new_id)
    key: str
    occurred_at: float = msgspec.field(default_factory=time.time)
    producer: str = ""
    epoch: int = 0
    # When what this record is about entered the system (the watcher's observation of the
    # object a decision or result concerns; 0: unknown), so each hop can time the whole wait.
    entered_at: float = 0.0


# --- state topics (watcher → everyone) -----------------------------------------------------


class ObjectEvent(Envelope, kw_only=True):
    kind: str
    resourceVersion: str
    object: msgspec.Raw


class ObjectAdded(ObjectEvent, tag="ObjectAdded"):
    pass


class ObjectModified(ObjectEvent, tag="ObjectModified"):
    pass


class ObjectDeleted(ObjectEvent, tag="ObjectDeleted"):
    pass


class ListSynced(Envelope, tag="ListSynced"):
    """Published after each LIST: every object of ``kind`` up to ``resourceVersion`` was sent."""

    kind: str
    resourceVersion: str
    count: int = 0


StateEvent = ObjectAdded | ObjectModified | ObjectDeleted | ListSynced

# --- decision topics (scheduler → binder) --------------------------------------------------


class PodBindDecided(Envelope, tag="PodBindDecided"):
    pod_uid: str
    node: str
    podgroup: str = ""
    cycle: int = 0


class PodEvictDecided(Envelope, tag="PodEvictDecided"):
    pod_uid: str
    reason: str = ""
    message: str = ""
    cycle: int = 0


class PodGroupStatusDecided(Envelope, tag="PodGroupStatusDecided"):
    phase: str
    conditions: list[Json] = []
    cycle: int = 0
    uid: str = ""  # the PodGroup's, so its Events name it (``kubectl describe`` looks by uid)
    running: int = 0
    succeeded: int = 0
    failed: int = 0


class PodUnschedulableDecided(Envelope, tag="PodUnschedulableDecided"):
    """A pod the session could not place: its ``PodScheduled=False`` condition and a
    ``FailedScheduling`` Event, as Volcano's ``taskUnschedulable`` writes them."""

    pod_uid: str
    reason: str
    message: str
    cycle: int = 0


class KueueStatusDecided(Envelope, tag="KueueStatusDecided"):
    """The whole new ``status`` of a Workload, ClusterQueue or LocalQueue (Kueue admission),
    to be written only if the object is still at ``resource_version``."""

    kind: str
    uid: str = ""
    resource_version: str = ""
    status: Json = {}
    cycle: int = 0


class WarningDecided(Envelope, tag="WarningDecided"):
    """Something the scheduler refused or left out (its conf, a Node): the binder posts a
    Warning Event on ``involved`` (an ObjectReference)."""

    involved: dict[str, str]
    reason: str
    message: str
    cycle: int = 0


Decision = (
    PodBindDecided
    | PodEvictDecided
    | PodGroupStatusDecided
    | PodUnschedulableDecided
    | KueueStatusDecided
    | WarningDecided
)

# --- results topic (binder → scheduler) ----------------------------------------------------


class PodBound(Envelope, tag="PodBound"):
    pod_uid: str
    node: str
    decision_id: str = ""


class PodBindFailed(Envelope, tag="PodBindFailed"):
    pod_uid: str
    node: str
    reason: str
    message: str = ""
    decision_id: str = ""
    bound_to: str = ""


class PodEvicted(Envelope, tag="PodEvicted"):
    pod_uid: str
    decision_id: str = ""


class PodEvictFailed(Envelope, tag="PodEvictFailed"):
    pod_uid: str
    reason: str
    message: str = ""
    decision_id: str = ""


class DecisionDropped(Envelope, tag="DecisionDropped"):
    """The binder ignored a decision: its epoch is older than the newest it accepted
    (``StaleEpoch``) or is on no leadership record of the leader log (``UnknownEpoch``)."""

    decision_id: str
    newest_epoch: int
    reason: str = ""


# --- scheduler cycle log (scheduler → replay) ----------------------------------------------


class CycleRecorded(Envelope, tag="CycleRecorded"):
    """One scheduling cycle: its exact inputs (log positions, assumed state, clock) and outputs,
    so ``shoal replay`` can rebuild the state of that cycle, re-run it and diff the decisions."""

    cycle: int
    now: float
    positions: dict[str, int]  # "topic/partition" → next offset applied
    assumed: dict[str, str] = {}  # pod key → node, bound by earlier decisions, not yet observed
    evicting: list[str] = []
    binds: dict[str, str] = {}
    evictions: list[str] = []
    pipelined: dict[str, str] = {}
    podgroups: dict[str, str] = {}  # podgroup key → phase published
    session_ms: float = 0.0
    # The conf the session ran: sha256 of its text ("": Volcano's default; None: not recorded),
    # and the text itself when the state topics cannot reproduce it (a conf file, or a good
    # conf kept after the ConfigMap turned invalid).
    conf_sha256: str | None = None
    conf_text: str | None = None
    scheduler_names: list[str] = []  # spec.schedulerName values handled ([]: not recorded)


cycle_decoder: msgspec.json.Decoder[CycleRecorded] = msgspec.json.Decoder(CycleRecorded)

Result = PodBound | PodBindFailed | PodEvicted | PodEvictFailed | DecisionDropped

AnyEvent = StateEvent | Decision | Result

_encoder = msgspec.json.Encoder()
state_decoder: msgspec.json.Decoder[StateEvent] = msgspec.json.Decoder(StateEvent)
decision_decoder: msgspec.json.Decoder[Decision] = msgspec.json.Decoder(Decision)
result_decoder: msgspec.json.Decoder[Result] = msgspec.json.Decoder(Result)
any_decoder: msgspec.json.Decoder[AnyEvent] = msgspec.json.Decoder(AnyEvent)


def encode(event: Envelope) -> bytes:
    return _encoder.encode(event)


def raw_object(obj: Json | bytes) -> msgspec.Raw:
    """Wrap an API object (dict or its JSON bytes) for an ObjectEvent."""
    return msgspec.Raw(obj if isinstance(obj, bytes) else _encoder.encode(obj))


def object_of(event: ObjectEvent, model: type[Any] | None = None) -> Any:
    """Decode the object of a state event (into ``model`` when given, else a dict)."""
    return (
        msgspec.json.decode(event.object, type=model)
        if model
        else msgspec.json.decode(event.object)
    )
