"""The scheduler's state between cycles: its cache plus what it decided but has not seen yet.

No I/O: records in, views and decision envelopes out — so the service, ``shoal replay`` and the
tests drive the same code. A pod the scheduler decided to bind is *assumed* on its node until
the pod's binding is observed on the state topic (confirmed), the binder reports a failure
(freed, retried next cycle) or the assumption expires. Pods decided for eviction are not decided
again while the eviction is in flight. PodGroup status is published when it changes, and again
when the state log still shows another status ``status_resend`` seconds after it was published
(the decision was lost or refused, e.g. dropped by a fenced binder): the log is the judge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from services.scheduler.conf import CONFIGMAP_KEY, CONFIGMAP_NAME
from services.scheduler.result import SessionResult
from services.scheduler.snapshot import Snapshot
from services.scheduler.waits import Waits
from shared.bus import Record
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
    StateEvent,
)
from shared.kube.keys import object_key
from shared.models import ConfigMap, Pod, PodGroup

POD, NODE, PODGROUP = "v1/Pod", "v1/Node", "scheduling.volcano.sh/v1beta1/PodGroup"
QUEUE, PRIORITY_CLASS = "scheduling.volcano.sh/v1beta1/Queue", "scheduling.k8s.io/v1/PriorityClass"
CONFIGMAP = "v1/ConfigMap"


@dataclass
class Assumption:
    uid: str
    node: str
    since: float


def _key(pod: Pod) -> str:
    return object_key(pod.metadata.namespace, pod.metadata.name)


class SchedulerState:
    def __init__(self, *, assume_ttl: float = 60.0, status_resend: float = 10.0) -> None:
        self.cache = ObjectCache()
        self.assumed: dict[str, Assumption] = {}
        self.evicting: dict[str, float] = {}
        # PodGroup key → (status digest, when it was published or last seen applied)
        self.published: dict[str, tuple[bytes, float]] = {}
        self.positions: dict[str, int] = {}
        self.assume_ttl = assume_ttl
        self.status_resend = status_resend
        self.waits = Waits(ttl=assume_ttl)

    # --- inputs ------------------------------------------------------------------------------

    def apply_state(self, records: Sequence[Record[StateEvent]], *, now: float = 0.0) -> None:
        """``now``: the wall clock, to time the waits of live records (0: not timed)."""
        for record in records:
            obj = self.cache.apply(record.value)
            self.positions[f"{record.topic}/{record.partition}"] = record.offset + 1
            if isinstance(obj, Pod):
                deleted = self.cache.get(POD, _key(obj)) is None
                self._observe_pod(obj, deleted=deleted, observed=record.value.occurred_at, now=now)
            elif isinstance(obj, PodGroup) and now:
                key = object_key(obj.metadata.namespace, obj.metadata.name)
                pending = (obj.status.phase or "Pending") == "Pending"
                if pending and self.cache.get(PODGROUP, key) is None:
                    pending = False  # deleted
                self.waits.podgroup(key, pending=pending, observed=record.value.occurred_at)

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
        for key in [k for k, a in self.assumed.items() if now - a.since > self.assume_ttl]:
            del self.assumed[key]
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
        for key, pod in self.cache.items(POD):
            assumption = self.assumed.get(key)
            if assumption is not None and not pod.spec.nodeName:
                spec = msgspec.structs.replace(pod.spec, nodeName=assumption.node)
                pod = msgspec.structs.replace(pod, spec=spec)
            pods.append(pod)
        conf_text = None
        for cm in self.cache.objects(CONFIGMAP):
            if isinstance(cm, ConfigMap) and cm.metadata.name == CONFIGMAP_NAME:
                conf_text = cm.data.get(CONFIGMAP_KEY)
        return Snapshot(
            nodes=list(self.cache.objects(NODE)),
            pods=pods,
            pod_groups=list(self.cache.objects(PODGROUP)),
            queues=list(self.cache.objects(QUEUE)),
            priority_classes=list(self.cache.objects(PRIORITY_CLASS)),
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
            self.assumed[key] = Assumption(uid=pod.metadata.uid, node=node, since=now)
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
        for key, update in sorted(result.pod_groups.items()):
            status = {"phase": update.phase, "conditions": msgspec.to_builtins(update.conditions)}
            digest = msgspec.json.encode(_comparable(status))
            if self._observed_equal(key, status):
                self.published[key] = (digest, now)
                continue
            last = self.published.get(key)
            if last is not None and last[0] == digest and now - last[1] < self.status_resend:
                continue  # sent; the binder and the watcher need a moment to show it applied
            self.published[key] = (digest, now)
            out.append(
                PodGroupStatusDecided(
                    key=key,
                    phase=update.phase,
                    conditions=status["conditions"],
                    cycle=cycle,
                    entered_at=self.waits.podgroups.get(key, 0.0),
                    **common,
                )
            )
        return out

    def _observed_equal(self, key: str, status: dict[str, Any]) -> bool:
        pg = self.cache.get(PODGROUP, key)
        if not isinstance(pg, PodGroup):
            return False
        observed = {
            "phase": pg.status.phase,
            "conditions": msgspec.to_builtins(pg.status.conditions),
        }
        return _comparable(observed) == _comparable(status)


_VOLATILE = frozenset({"lastTransitionTime", "lastProbeTime", "lastUpdateTime", "transitionID"})


def _comparable(status: dict[str, Any]) -> dict[str, Any]:
    """A PodGroup status without timestamps: what decides whether it changed."""
    conditions = [
        {k: v for k, v in c.items() if k not in _VOLATILE}
        for c in status.get("conditions") or []
        if isinstance(c, dict)
    ]
    return {"phase": status.get("phase"), "conditions": conditions}
