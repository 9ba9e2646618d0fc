"""How long pods and PodGroups wait for the scheduler, for its hop metrics (``shared.hops``).

Pure bookkeeping, the clock passed in: when the watcher observed each pending pod and each
PodGroup still ``Pending`` (the ``occurred_at`` of its record), and when the binder reported a
pod bound, until the state topic shows it bound. Entries end when the wait does (decided,
bound, deleted) or after ``ttl``, so memory follows the pending work, not the history.
"""

from __future__ import annotations


class Waits:
    def __init__(self, *, ttl: float = 60.0) -> None:
        self.ttl = ttl
        self.pods: dict[str, float] = {}  # pending pod key → observed
        self.podgroups: dict[str, float] = {}  # Pending PodGroup key → observed
        self._reported: dict[str, float] = {}  # pod key → the binder's bind returned
        self._seen: dict[str, float] = {}  # pod key → seen bound before its result came
        self.confirmed: list[float] = []  # bind observed: seconds, since the last drain

    def pod(self, key: str, *, pending: bool, bound: bool, observed: float, now: float) -> None:
        """A pod record applied at ``now``; ``observed``: when the watcher saw it."""
        if pending:
            self.pods.setdefault(key, observed)
            return
        self.pods.pop(key, None)
        if not bound:
            return
        reported = self._reported.pop(key, None)
        if reported is not None:
            self.confirmed.append(max(now - reported, 0.0))
        elif key not in self._seen:
            self._seen[key] = now

    def podgroup(self, key: str, *, pending: bool, observed: float) -> None:
        if pending:
            self.podgroups.setdefault(key, observed)
        else:
            self.podgroups.pop(key, None)

    def bound(self, key: str, *, at: float, awaited: bool) -> None:
        """The binder reports the pod bound; ``at``: when its bind call returned;
        ``awaited``: the scheduler still waits to see the pod bound."""
        seen = self._seen.pop(key, None)
        if seen is not None:  # the watch path was faster than the results topic
            self.confirmed.append(max(seen - at, 0.0))
        elif awaited:
            self._reported[key] = at

    def drain(self) -> list[float]:
        confirmed, self.confirmed = self.confirmed, []
        return confirmed

    def expire(self, now: float) -> None:
        """Forget reports that never paired (a pod bound by another scheduler, a lost result)."""
        for table in (self._reported, self._seen):
            for key in [k for k, at in table.items() if now - at > self.ttl]:
                del table[key]
