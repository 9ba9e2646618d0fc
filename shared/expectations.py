"""Controller expectations: creations and deletions in flight, as in the Kubernetes controllers.

A controller raises expectations before it creates or deletes objects and lowers them when it
observes the matching event (or when the API call fails). While a key's expectations are
unsatisfied its cache is known to be stale, so it must not create, delete or finish the job —
only update status. Expectations expire after a TTL (5 minutes) so that a lost event cannot wedge
a job forever. Pure: the clock is passed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

EXPECTATIONS_TTL_SECONDS = 5 * 60.0


@dataclass(slots=True)
class Expectation:
    """Outstanding creations/deletions of one controller key, and when they were set."""

    add: int = 0
    delete: int = 0
    set_at: float = 0.0
    deleting_uids: set[str] = field(default_factory=set)

    def fulfilled(self) -> bool:
        return self.add <= 0 and self.delete <= 0 and not self.deleting_uids

    def expired(self, now: float, ttl: float) -> bool:
        return now - self.set_at > ttl


class Expectations:
    """Expectations for every controller key (``namespace/name`` of the job)."""

    def __init__(self, *, ttl: float = EXPECTATIONS_TTL_SECONDS) -> None:
        self._ttl = ttl
        self._by_key: dict[str, Expectation] = {}

    def satisfied(self, key: str, now: float) -> bool:
        """True when nothing is in flight for ``key`` or its expectations have expired."""
        exp = self._by_key.get(key)
        return exp is None or exp.fulfilled() or exp.expired(now, self._ttl)

    def get(self, key: str) -> Expectation | None:
        return self._by_key.get(key)

    def expect_creations(self, key: str, count: int, now: float) -> None:
        exp = self._by_key.setdefault(key, Expectation())
        exp.add = max(exp.add, 0) + count
        exp.set_at = now

    def expect_deletions(self, key: str, uids: list[str], now: float) -> None:
        exp = self._by_key.setdefault(key, Expectation())
        exp.deleting_uids.update(uids)
        exp.delete = len(exp.deleting_uids)
        exp.set_at = now

    def creation_observed(self, key: str) -> None:
        """A create was seen in the cache, or the create call failed."""
        exp = self._by_key.get(key)
        if exp is not None and exp.add > 0:
            exp.add -= 1

    def deletion_observed(self, key: str, uid: str) -> None:
        """A deletion of ``uid`` was seen in the cache, or the delete call failed."""
        exp = self._by_key.get(key)
        if exp is not None and uid in exp.deleting_uids:
            exp.deleting_uids.discard(uid)
            exp.delete = len(exp.deleting_uids)

    def forget(self, key: str) -> None:
        self._by_key.pop(key, None)

    def keys(self) -> list[str]:
        return list(self._by_key)


class UidExpectations:
    """Per key, the object uids whose change is in flight (Kubernetes' ``uidTrackingExpectations``).

    The Job controller raises one before it patches a pod's tracking finalizer away and lowers it
    when the cache shows the pod without the finalizer (or gone), or when the patch fails. Until
    then a sync treats the pod as already released: its count is in the status it wrote, and the
    cache's copy of the pod, still carrying the finalizer, is older than that write.
    """

    def __init__(self) -> None:
        self._by_key: dict[str, set[str]] = {}

    def expect(self, key: str, uids: list[str]) -> None:
        if uids:
            self._by_key.setdefault(key, set()).update(uids)

    def observed(self, key: str, uid: str) -> None:
        uids = self._by_key.get(key)
        if uids is None:
            return
        uids.discard(uid)
        if not uids:
            del self._by_key[key]

    def pending(self, key: str) -> frozenset[str]:
        return frozenset(self._by_key.get(key, ()))

    def forget(self, key: str) -> None:
        self._by_key.pop(key, None)
