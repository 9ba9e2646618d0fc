"""Which leadership epochs the binder accepts: only those on the scheduler's leader log.

An epoch is the offset + 1 of a leadership record on ``scheduler.leader`` (see the scheduler's
``leadership``). A decision is executed only if its epoch is one of those records, and only if no
newer accepted epoch has been seen (a deposed leader must not act after its successor). A decision
with an epoch the log does not hold — forged, or from a log that was lost with the broker — is
dropped and can never raise the fence, so one bad record cannot silence the real leader.

Pure: the service reads the log (``refresh``) when a batch carries an epoch it does not know; the
leader writes its record before its first decision, so a fresh read always holds a real epoch.
"""

from __future__ import annotations

from collections.abc import Iterable

from shared.events import DecisionDropped, Envelope

UNKNOWN_EPOCH = "UnknownEpoch"
STALE_EPOCH = "StaleEpoch"


class EpochFence:
    """Known epochs (from the leader log) and the newest one a decision was accepted under."""

    def __init__(self, *, producer: str) -> None:
        self._producer = producer
        self.known: frozenset[int] = frozenset()
        self.newest = 0

    def learn(self, epochs: Iterable[int]) -> None:
        """Replace the known epochs with what the leader log holds now."""
        self.known = frozenset(epochs)
        if self.newest not in self.known:
            self.newest = 0  # the log was lost (broker restart): its old fence means nothing

    def unknown(self, decisions: Iterable[Envelope]) -> set[int]:
        """Epochs among ``decisions`` that the leader log (as last read) does not hold."""
        return {d.epoch for d in decisions} - self.known

    def admit(self, decision: Envelope) -> DecisionDropped | None:
        """None if ``decision`` may be executed; else the result that reports why not."""
        if decision.epoch not in self.known:
            return self._dropped(decision, UNKNOWN_EPOCH)
        if decision.epoch < self.newest:
            return self._dropped(decision, STALE_EPOCH)
        self.newest = decision.epoch
        return None

    def _dropped(self, decision: Envelope, reason: str) -> DecisionDropped:
        return DecisionDropped(
            key=decision.key,
            decision_id=decision.id,
            newest_epoch=self.newest,
            epoch=decision.epoch,
            reason=reason,
            producer=self._producer,
        )
