"""The binder's epoch fence: only epochs on the leader log, never backwards, never raised by a
forged epoch, and reset when the leader log itself was lost."""

from __future__ import annotations

import pytest

from services.binder.fencing import STALE_EPOCH, UNKNOWN_EPOCH, EpochFence
from shared.events import PodBindDecided, PodGroupStatusDecided


def decision(epoch: int) -> PodBindDecided:
    return PodBindDecided(key="ns/p", pod_uid="u", node="n", epoch=epoch)


@pytest.mark.parametrize(
    ("known", "epochs", "expected"),
    [
        ([1], [1, 1], [None, None]),
        ([1, 2], [2, 1], [None, STALE_EPOCH]),
        ([1, 2], [1, 2, 1], [None, None, STALE_EPOCH]),
        ([1], [10**12, 1], [UNKNOWN_EPOCH, None]),
        ([1, 2], [2, 10**12, 2], [None, UNKNOWN_EPOCH, None]),
        ([], [1], [UNKNOWN_EPOCH]),
        ([3], [0], [UNKNOWN_EPOCH]),
    ],
    ids=[
        "same-epoch-twice",
        "older-epoch-after-newer-is-stale",
        "back-to-the-old-leader-is-stale",
        "forged-epoch-is-dropped-and-does-not-fence",
        "forged-epoch-between-genuine-ones",
        "empty-leader-log-accepts-nothing",
        "epoch-zero-is-never-an-election",
    ],
)
def test_admission(known: list[int], epochs: list[int], expected: list[str | None]) -> None:
    fence = EpochFence(producer="test")
    fence.learn(known)
    verdicts = [fence.admit(decision(e)) for e in epochs]
    assert [v.reason if v else None for v in verdicts] == expected
    dropped = [v for v in verdicts if v is not None]
    assert all(v.epoch in epochs and v.decision_id for v in dropped)
    assert fence.newest in {0, *known}, "only a known epoch can ever be the fence"


def test_unknown_epochs_of_a_batch_ask_for_a_fresh_read() -> None:
    fence = EpochFence(producer="test")
    fence.learn([1])
    batch = [decision(1), PodGroupStatusDecided(key="ns/pg", phase="Running", epoch=2)]
    assert fence.unknown(batch) == {2}
    fence.learn([1, 2])
    assert fence.unknown(batch) == set()


def test_a_lost_leader_log_resets_the_fence() -> None:
    fence = EpochFence(producer="test")
    fence.learn([1, 2, 3])
    assert fence.admit(decision(3)) is None
    fence.learn([1])  # the broker restarted: a new log whose first election is epoch 1 again
    assert fence.newest == 0
    assert fence.admit(decision(1)) is None
    assert fence.admit(decision(3)) is not None
