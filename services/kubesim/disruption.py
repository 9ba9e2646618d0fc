"""PodDisruptionBudget status, as the kube-controller-manager's disruption controller writes it.

A store listener: a change to a budget, or to a pod in a namespace that has budgets, marks
those budgets; after the change (deferred, never nested in a commit) each marked budget's
status is recomputed from the pods its selector matches and written when it differs:

- an integer ``minAvailable``: ``expectedPods`` is the number of matching pods,
  ``desiredHealthy`` the integer;
- ``maxUnavailable`` or a percentage: the expected count comes from the pods' scalable
  controllers (Deployments, ReplicaSets, StatefulSets, a custom resource with a scale
  subresource); kubesim serves none, so, as the real controller for pods of Jobs, Volcano Jobs
  or PyTorchJobs, the sync fails: ``disruptionsAllowed`` 0 and ``DisruptionAllowed=False``
  ``SyncFailed`` (a pod without controller is left out of the count, as upstream);
- ``currentHealthy``: matching pods that are Ready and not being deleted;
  ``disruptionsAllowed``: ``currentHealthy - desiredHealthy``, never below 0, 0 without
  expected pods; ``DisruptionAllowed`` True ``SufficientPods`` or False ``InsufficientPods``.

A namespace without budgets costs a pod change one dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from services.kubesim.registry import ResourceType
from services.kubesim.store import Store
from services.kubesim.watch import Event
from shared.kube.timefmt import format_rfc3339
from shared.models import LabelSelector

Obj = dict[str, Any]
Defer = Callable[[Callable[[], None]], object]
CONDITION = "DisruptionAllowed"


def _selector(pdb: Obj) -> LabelSelector | None:
    raw = (pdb.get("spec") or {}).get("selector")
    if raw is None:
        return None
    try:
        return msgspec.convert(raw, LabelSelector)
    except msgspec.ValidationError:
        return None


def _ready(pod: Obj) -> bool:
    if pod["metadata"].get("deletionTimestamp"):
        return False
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def _has_controller(pod: Obj) -> bool:
    return any(r.get("controller") for r in pod["metadata"].get("ownerReferences") or [])


def budget_status(pdb: Obj, pods: list[Obj], now: str) -> Obj:
    """The status the disruption controller would write for ``pdb`` over ``pods`` (the pods
    of its namespace)."""
    selector = _selector(pdb)
    matched = [
        p
        for p in pods
        if selector is not None
        and (selector.matchLabels or selector.matchExpressions)
        and selector.matches(p["metadata"].get("labels") or {})
    ]
    spec = pdb.get("spec") or {}
    old = pdb.get("status") or {}
    minimum = spec.get("minAvailable")
    status: Obj = {
        "observedGeneration": pdb["metadata"].get("generation", 1),
        "disruptionsAllowed": 0,
        "currentHealthy": sum(1 for p in matched if _ready(p)),
        "desiredHealthy": 0,
        "expectedPods": 0,
    }
    if old.get("disruptedPods"):
        status["disruptedPods"] = old["disruptedPods"]
    if spec.get("maxUnavailable") is None and isinstance(minimum, int):
        status["desiredHealthy"] = minimum
        status["expectedPods"] = len(matched)
        allowed = status["currentHealthy"] - minimum
        if status["expectedPods"] > 0 and allowed > 0:
            status["disruptionsAllowed"] = allowed
        reason = "SufficientPods" if status["disruptionsAllowed"] > 0 else "InsufficientPods"
        condition = _condition("True" if reason == "SufficientPods" else "False", reason, "")
    elif spec.get("maxUnavailable") is None and minimum is None:
        condition = _condition("False", "InsufficientPods", "")
    else:
        scaled = next((p for p in matched if _has_controller(p)), None)
        if scaled is None:  # only unmanaged pods: an expected count of 0
            condition = _condition("False", "InsufficientPods", "")
        else:
            message = f'found no controllers for pod "{scaled["metadata"]["name"]}"'
            condition = _condition("False", "SyncFailed", message)
    status["conditions"] = [_stamped(condition, old, now)]
    return status


def _condition(status: str, reason: str, message: str) -> Obj:
    return {"type": CONDITION, "status": status, "reason": reason, "message": message}


def _stamped(condition: Obj, old: Obj, now: str) -> Obj:
    previous = next((c for c in old.get("conditions") or [] if c.get("type") == CONDITION), None)
    unchanged = previous is not None and previous.get("status") == condition["status"]
    stamp = previous.get("lastTransitionTime", now) if unchanged and previous else now
    return {**condition, "lastTransitionTime": stamp}


class DisruptionController:
    """The store listener that keeps every PodDisruptionBudget's status current."""

    def __init__(
        self, store: Store, budgets: ResourceType, pods: ResourceType, *, defer: Defer
    ) -> None:
        self.store = store
        self.budgets_rtype = budgets
        self.pods_rtype = pods
        self.defer = defer
        self.by_namespace: dict[str, set[str]] = {}
        self.dirty: set[tuple[str, str]] = set()

    def __call__(self, rtype: ResourceType, event: Event) -> None:
        meta = event.obj["metadata"]
        namespace = meta.get("namespace", "")
        if rtype is self.budgets_rtype:
            names = self.by_namespace.setdefault(namespace, set())
            if event.type == "DELETED":
                names.discard(meta["name"])
                if not names:
                    del self.by_namespace[namespace]
                return
            names.add(meta["name"])
            self._mark(namespace, meta["name"])
        elif rtype is self.pods_rtype and namespace in self.by_namespace:
            for name in self.by_namespace[namespace]:
                self._mark(namespace, name)

    def _mark(self, namespace: str, name: str) -> None:
        if not self.dirty:
            self.defer(self._sync)
        self.dirty.add((namespace, name))

    def _sync(self) -> None:
        dirty, self.dirty = self.dirty, set()
        now = format_rfc3339(self.store.clock())
        for namespace, name in sorted(dirty):
            pdb = self.store.find(self.budgets_rtype, namespace, name)
            if pdb is None:
                continue
            pods = list(self.store.items(self.pods_rtype, namespace))
            status = budget_status(pdb, pods, now)
            if status != pdb.get("status"):
                self.store.update_status(self.budgets_rtype, pdb, status)


def controller(store: Store, defer: Defer) -> DisruptionController | None:
    """The controller over ``store``'s tables (None when kubesim serves no budgets)."""
    budgets, pods = store.tables.get("poddisruptionbudgets.policy"), store.tables.get("pods")
    if budgets is None or pods is None:
        return None
    return DisruptionController(store, budgets.rtype, pods.rtype, defer=defer)
