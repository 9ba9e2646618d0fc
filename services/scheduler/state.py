"""The scheduler's state between cycles: its cache plus what it decided but has not seen yet.

No I/O: records in, views and decision envelopes out — so the service, ``shoal replay`` and the
tests drive the same code. A pod the scheduler decided to bind is *assumed* on its node until
the pod's binding is observed on the state topic (confirmed), the binder reports a failure
(freed, retried next cycle) or the assumption expires. Pods decided for eviction are not decided
again while the eviction is in flight. PodGroup status is published when it changes, and again
when the state log still shows another status ``status_resend`` seconds after it was published
(the decision was lost or refused, e.g. dropped by a fenced binder): the log is the judge. Each
further resend of the same status, and each further assumption of a pod whose last one expired,
waits twice as long as the one before (up to ``BACKOFF_LIMIT`` times the first): when the API
server is at capacity the binder lags, and sending it the same writes again would only add to
its queue (measured on the real control plane: 7.5 PodGroup status patches and 2.7 binds per
pod before this backoff).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from services.scheduler.conf import CONFIGMAP_KEY
from services.scheduler.result import PodGroupUpdate, SessionResult
from services.scheduler.snapshot import Snapshot
from services.scheduler.waits import Waits
from services.scheduler.warnings import Warnings, conf_configmap
from shared.bus.records import Record
from shared.cache import ObjectCache
from shared.events import (
    Envelope,
    PodBindDecided,
    PodBindFailed,
    PodBound,
    PodEvictDecided,
    PodEvicted,
    PodEvictFailed,
    PodGroupStatusDecided,
    PodUnschedulableDecided,
    StateEvent,
)
from shared.kube.keys import object_key
from shared.models import Pod, PodGroup

POD, NODE, PODGROUP = "v1/Pod", "v1/Node", "scheduling.volcano.sh/v1beta1/PodGroup"
QUEUE, PRIORITY_CLASS = "scheduling.volcano.sh/v1beta1/Queue", "scheduling.k8s.io/v1/PriorityClass"
CONFIGMAP = "v1/ConfigMap"
DISRUPTION_BUDGET = "policy/v1/PodDisruptionBudget"
HYPER_NODE = "topology.volcano.sh/v1alpha1/HyperNode"
# PodScheduled conditions published per cycle at most: a burst of pending pods must not crowd
# the binds out of the binder.
MAX_POD_CONDITIONS = 500
# The longest wait before a status is sent again, or before a bind's assumption expires, as a
# multiple of the first (``status_resend``, ``assume_ttl``).
BACKOFF_LIMIT = 16
UNSENT_TTL = 10.0
"""How long a bind or eviction whose publish failed still holds its place before it is decided
again. A failed publish is ambiguous: a produce to several partitions is not atomic and an
acknowledgement can be lost, so the broker may hold the decision and the binder carry it out.
Forgetting it at once let the next cycle place another pod on the node it still held (after a
broker restart a pod failed OutOfcpu); this leaves a bind that did happen the time to come back
through the watch."""


@dataclass
class Assumption:
    uid: str
    node: str
    since: float
    ttl: float = 0.0  # 0: the state's ``assume_ttl``
    unsent: bool = False  # its publish failed: decided again after ``UNSENT_TTL``, no backoff


def _backoff(last: tuple[bytes, float, float] | None, digest: bytes, now: float, first: float
             ) -> tuple[bytes, float, float] | None:  # fmt: skip
    """The (digest, sent at, wait) to record if a status ``digest`` is to be sent now, or None
    while the same one sent before still waits: a new status goes at once, the same one again
    after the wait, which doubles each time up to ``BACKOFF_LIMIT`` times ``first``."""
    if last is None or last[0] != digest:
        return (digest, now, first)
    if now - last[1] < last[2]:
        return None
    return (digest, now, min(last[2] * 2, first * BACKOFF_LIMIT))


def _key(pod: Pod) -> str:
    return object_key(pod.metadata.namespace, pod.metadata.name)


class SchedulerState:
    def __init__(self, *, assume_ttl: float = 60.0, status_resend: float = 10.0) -> None:
        self.cache = ObjectCache()
        self.assumed: dict[str, Assumption] = {}
        self.evicting: dict[str, float] = {}
        # PodGroup key → (status digest, when it was published or last seen applied, the wait
        # before it is published again)
        self.published: dict[str, tuple[bytes, float, float]] = {}
        # Pod key → (PodScheduled reason and message, when published, wait), as ``published``.
        self.pod_conditions: dict[str, tuple[bytes, float, float]] = {}
        # Pod key → the time to live its next assumption gets (its last one expired unbound).
        self.assume_backoff: dict[str, float] = {}
        self.warnings = Warnings()
        self.positions: dict[str, int] = {}
        self.assume_ttl = assume_ttl
        self.status_resend = status_resend
        self.waits = Waits(ttl=assume_ttl)
        # Pod key → (the cached pod, its assumed node, the pod as shown on that node).
        self._shown: dict[str, tuple[Pod, str, Pod]] = {}
        # PodGroup key → the last cycle's update for it, as a status, comparable and digest: a
        # steady PodGroup gets an equal update every cycle.
        self._decided: dict[str, tuple[PodGroupUpdate, dict[str, Any], dict[str, Any], bytes]] = {}
        # PodGroup key → (the cached PodGroup, its status as ``_comparable`` shows it).
        self._observed: dict[str, tuple[PodGroup, dict[str, Any]]] = {}

    # --- inputs ------------------------------------------------------------------------------

    def apply_state(
        self, records: Sequence[Record[StateEvent]], *, now: float = 0.0
    ) -> list[tuple[Record[StateEvent], str]]:
        """Apply records in order; returns those whose object does not fit its model (e.g. a
        null name) with the error, for the dead-letter topic: never raises on one, so neither
        live consumption nor the rebuild after a restart stops at a bad record. ``now``: the
        wall clock, to time the waits of live records (0: not timed)."""
        bad: list[tuple[Record[StateEvent], str]] = []
        for record in records:
            self.positions[f"{record.topic}/{record.partition}"] = record.offset + 1
            try:
                obj = self.cache.apply(record.value)
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                bad.append((record, str(exc)))
                continue
            if isinstance(obj, Pod):
                deleted = self.cache.get(POD, _key(obj)) is None
                self._observe_pod(obj, deleted=deleted, observed=record.value.occurred_at, now=now)
            elif isinstance(obj, PodGroup):
                key = object_key(obj.metadata.namespace, obj.metadata.name)
                deleted = self.cache.get(PODGROUP, key) is None
                if deleted:
                    self._observed.pop(key, None)
                if now:
                    pending = not deleted and (obj.status.phase or "Pending") == "Pending"
                    self.waits.podgroup(key, pending=pending, observed=record.value.occurred_at)
        return bad

    def _observe_pod(self, pod: Pod, *, deleted: bool, observed: float, now: float) -> None:
        key = _key(pod)
        assumption = self.assumed.get(key)
        confirmed = False
        if assumption is not None and (
            deleted or pod.spec.nodeName or pod.metadata.uid != assumption.uid
        ):
            confirmed = not deleted and bool(pod.spec.nodeName)
            del self.assumed[key]
        if key in self.evicting and (deleted or pod.metadata.deletionTimestamp):
            del self.evicting[key]
        if deleted or pod.spec.nodeName:
            self.assume_backoff.pop(key, None)
        if now:
            pending = not (deleted or pod.spec.nodeName or pod.metadata.deletionTimestamp)
            self.waits.pod(key, pending=pending, bound=confirmed, observed=observed, now=now)

    def apply_results(self, results: Iterable[Envelope]) -> None:
        for result in results:
            if isinstance(result, PodBindFailed):
                self.assumed.pop(result.key, None)
            elif isinstance(result, PodEvictFailed | PodEvicted):
                self.evicting.pop(result.key, None)
            elif isinstance(result, PodBound):
                # Confirmed when the pod's own record shows the node; until then it is timed.
                awaited = result.key in self.assumed
                self.waits.bound(result.key, at=result.occurred_at, awaited=awaited)

    # --- one cycle -----------------------------------------------------------------------------

    def expire(self, now: float) -> None:
        limit = self.assume_ttl * BACKOFF_LIMIT
        for key, a in list(self.assumed.items()):
            ttl = a.ttl or self.assume_ttl
            if now - a.since > ttl:
                del self.assumed[key]
                if not a.unsent:
                    self.assume_backoff[key] = min(ttl * 2, limit)
        for key in [k for k, since in self.evicting.items() if now - since > self.assume_ttl]:
            del self.evicting[key]
        self.waits.expire(now)

    def at_rest(self) -> bool:
        """Nothing for a cycle to do unless something changes: no decision in flight, no pod
        waiting for a node and no PodGroup waiting to be enqueued."""
        if self.assumed or self.evicting:
            return False
        for pod in self.cache.objects(POD):
            if (
                isinstance(pod, Pod)
                and not pod.spec.nodeName
                and pod.metadata.deletionTimestamp is None
                and (pod.status.phase or "Pending") == "Pending"
            ):
                return False
        return not any(
            isinstance(pg, PodGroup) and (pg.status.phase or "Pending") == "Pending"
            for pg in self.cache.objects(PODGROUP)
        )

    def restore(self, assumed: Mapping[str, str], evicting: Iterable[str], *, now: float) -> None:
        """Put back the in-flight decisions a recorded cycle saw (``shoal replay``)."""
        self.assumed = {}
        for key, node in assumed.items():
            pod = self.cache.get(POD, key)
            uid = pod.metadata.uid if isinstance(pod, Pod) else ""
            self.assumed[key] = Assumption(uid=uid, node=node, since=now)
        self.evicting = dict.fromkeys(evicting, now)

    def view(self) -> Snapshot:
        pods: list[Pod] = []
        # An assumed pod is shown on its node as the same object from cycle to cycle while
        # neither changes, so the session's snapshot memo knows it (see ``SnapshotMemo``).
        shown, self._shown = self._shown, {}
        for key, pod in self.cache.items(POD):
            assumption = self.assumed.get(key)
            if assumption is not None and not pod.spec.nodeName:
                kept = shown.get(key)
                if kept is not None and kept[0] is pod and kept[1] == assumption.node:
                    self._shown[key] = kept
                    pod = kept[2]
                else:
                    spec = msgspec.structs.replace(pod.spec, nodeName=assumption.node)
                    on_node = msgspec.structs.replace(pod, spec=spec)
                    self._shown[key] = (pod, assumption.node, on_node)
                    pod = on_node
            pods.append(pod)
        cm = conf_configmap(self.cache)
        conf_text = cm.data.get(CONFIGMAP_KEY) if cm is not None else None
        return Snapshot(
            nodes=list(self.cache.objects(NODE)),
            pods=pods,
            pod_groups=list(self.cache.objects(PODGROUP)),
            queues=list(self.cache.objects(QUEUE)),
            priority_classes=list(self.cache.objects(PRIORITY_CLASS)),
            disruption_budgets=list(self.cache.objects(DISRUPTION_BUDGET)),
            hyper_nodes=list(self.cache.objects(HYPER_NODE)),
            conf_text=conf_text,
        )

    def decisions(
        self, result: SessionResult, *, epoch: int, cycle: int, now: float, producer: str
    ) -> list[Envelope]:
        """Envelopes for what is new in ``result``; records the assumptions they create."""
        out: list[Envelope] = []
        common: dict[str, Any] = {"epoch": epoch, "producer": producer, "occurred_at": now}
        for key, node in sorted(result.binds.items()):
            pod = self.cache.get(POD, key)
            if pod is None or key in self.assumed or pod.spec.nodeName:
                continue
            group = pod.metadata.annotations.get("scheduling.k8s.io/group-name", "")
            ttl = self.assume_backoff.get(key, 0.0)
            self.assumed[key] = Assumption(uid=pod.metadata.uid, node=node, since=now, ttl=ttl)
            out.append(
                PodBindDecided(
                    key=key,
                    pod_uid=pod.metadata.uid,
                    node=node,
                    podgroup=group,
                    cycle=cycle,
                    entered_at=self.waits.pods.get(key, 0.0),
                    **common,
                )
            )
        for key in sorted(result.evictions):
            pod = self.cache.get(POD, key)
            if pod is None or key in self.evicting or pod.metadata.deletionTimestamp:
                continue
            self.evicting[key] = now
            reason = "Preempted"
            out.append(
                PodEvictDecided(
                    key=key,
                    pod_uid=pod.metadata.uid,
                    reason=reason,
                    message=f"evicted by Shoal: {reason}",
                    cycle=cycle,
                    **common,
                )
            )
        decided, self._decided = self._decided, {}
        for key, update in sorted(result.pod_groups.items()):
            kept = decided.get(key)
            if kept is None or kept[0] != update:
                status: dict[str, Any] = {
                    "phase": update.phase,
                    "conditions": msgspec.to_builtins(update.conditions),
                    **{c: getattr(update, c) for c in _COUNTERS},
                }
                comparable = _comparable(status)
                kept = (update, status, comparable, msgspec.json.encode(comparable))
            self._decided[key] = kept
            _, status, comparable, digest = kept
            if self._observed_equal(key, comparable):
                self.published[key] = (digest, now, self.status_resend)
                continue
            due = _backoff(self.published.get(key), digest, now, self.status_resend)
            if due is None:
                continue  # sent; the binder and the watcher need a moment to show it applied
            self.published[key] = due
            pg = self.cache.get(PODGROUP, key)
            out.append(
                PodGroupStatusDecided(
                    key=key,
                    phase=update.phase,
                    conditions=status["conditions"],
                    uid=pg.metadata.uid if isinstance(pg, PodGroup) else "",
                    running=update.running,
                    succeeded=update.succeeded,
                    failed=update.failed,
                    cycle=cycle,
                    entered_at=self.waits.podgroups.get(key, 0.0),
                    **common,
                )
            )
        out += self._unschedulable(result, cycle=cycle, now=now, common=common)
        out += self.warnings.decisions(result, self.cache, cycle=cycle, common=common)
        return out

    def unsent(self, envelopes: Iterable[Envelope], *, now: float) -> None:
        """``envelopes`` were not acknowledged by the broker. Their statuses are forgotten as
        published (sent again by the next cycle); their binds and evictions keep their place
        for ``UNSENT_TTL`` and are decided again after that (the broker may have taken them)."""
        for e in envelopes:
            if isinstance(e, PodBindDecided):
                assumption = self.assumed.get(e.key)
                if assumption is not None and assumption.uid == e.pod_uid:
                    assumption.since, assumption.ttl, assumption.unsent = now, UNSENT_TTL, True
            elif isinstance(e, PodEvictDecided):
                if e.key in self.evicting:
                    self.evicting[e.key] = now - self.assume_ttl + UNSENT_TTL
            elif isinstance(e, PodGroupStatusDecided):
                self.published.pop(e.key, None)
            elif isinstance(e, PodUnschedulableDecided):
                self.pod_conditions.pop(e.key, None)

    def _unschedulable(
        self, result: SessionResult, *, cycle: int, now: float, common: dict[str, Any]
    ) -> list[Envelope]:
        """PodScheduled=False for waiting pods whose observed condition says otherwise; at most
        ``MAX_POD_CONDITIONS`` per cycle (the rest follow in the next cycles), each again only
        after ``status_resend`` if the log still shows another condition."""
        out: list[Envelope] = []
        sent: dict[str, tuple[bytes, float, float]] = {}
        for key, (reason, message) in sorted(result.unschedulable_pods.items()):
            pod = self.cache.get(POD, key)
            if not isinstance(pod, Pod) or pod.spec.nodeName or key in self.assumed:
                continue
            if _shows_unschedulable(pod, reason, message):
                continue
            digest = f"{reason}\0{message}".encode()
            last = self.pod_conditions.get(key)
            due = _backoff(last, digest, now, self.status_resend)
            if due is None:
                assert last is not None
                sent[key] = last
                continue
            if len(out) >= MAX_POD_CONDITIONS:
                continue
            sent[key] = due
            out.append(
                PodUnschedulableDecided(
                    key=key,
                    pod_uid=pod.metadata.uid,
                    reason=reason,
                    message=message,
                    cycle=cycle,
                    **common,
                )
            )
        self.pod_conditions = sent  # pods no longer waiting are forgotten
        return out

    def _observed_equal(self, key: str, comparable: dict[str, Any]) -> bool:
        """Whether the cached PodGroup shows this status (``_comparable`` form)."""
        pg = self.cache.get(PODGROUP, key)
        if not isinstance(pg, PodGroup):
            return False
        kept = self._observed.get(key)
        if kept is None or kept[0] is not pg:
            observed = {
                "phase": pg.status.phase,
                "conditions": msgspec.to_builtins(pg.status.conditions),
                **{c: getattr(pg.status, c) for c in _COUNTERS},
            }
            kept = self._observed[key] = (pg, _comparable(observed))
        return kept[1] == comparable


_COUNTERS = ("running", "succeeded", "failed")
_VOLATILE = frozenset({"lastTransitionTime", "lastProbeTime", "lastUpdateTime", "transitionID"})


def _comparable(status: dict[str, Any]) -> dict[str, Any]:
    """A PodGroup status without timestamps: what decides whether it changed."""
    conditions = [
        {k: v for k, v in c.items() if k not in _VOLATILE}
        for c in status.get("conditions") or []
        if isinstance(c, dict)
    ]
    counters = {c: status.get(c) or 0 for c in _COUNTERS}
    return {"phase": status.get("phase"), "conditions": conditions, **counters}


def _shows_unschedulable(pod: Pod, reason: str, message: str) -> bool:
    """Volcano's ``podConditionHaveUpdate``, inverted: the pod already shows this condition."""
    return any(
        c.type == "PodScheduled"
        and c.status == "False"
        and c.reason == reason
        and c.message == message
        for c in pod.status.conditions
    )
