"""Expectations: creations/deletions in flight, satisfied on observation or after the TTL."""

from __future__ import annotations

from shared.expectations import Expectations


def test_unknown_key_is_satisfied() -> None:
    assert Expectations().satisfied("ns/job", now=0.0)


def test_creations_block_until_each_is_observed() -> None:
    exp = Expectations()
    exp.expect_creations("ns/job", 2, now=10.0)
    assert not exp.satisfied("ns/job", now=11.0)
    exp.creation_observed("ns/job")
    assert not exp.satisfied("ns/job", now=11.0)
    exp.creation_observed("ns/job")
    assert exp.satisfied("ns/job", now=11.0)


def test_deletions_are_tracked_by_uid_and_duplicates_are_ignored() -> None:
    exp = Expectations()
    exp.expect_deletions("ns/job", ["u1", "u2"], now=0.0)
    exp.deletion_observed("ns/job", "u1")
    exp.deletion_observed("ns/job", "u1")
    assert not exp.satisfied("ns/job", now=1.0)
    exp.deletion_observed("ns/job", "u2")
    assert exp.satisfied("ns/job", now=1.0)


def test_expire_after_ttl() -> None:
    exp = Expectations(ttl=300.0)
    exp.expect_creations("ns/job", 5, now=0.0)
    assert not exp.satisfied("ns/job", now=299.0)
    assert exp.satisfied("ns/job", now=301.0)
