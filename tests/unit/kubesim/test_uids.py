"""Object uids are random version-4 UUIDs in their text form, all distinct."""

from __future__ import annotations

import uuid

from services.kubesim.store import new_uid


def test_uids_are_distinct_version_4_uuids() -> None:
    uids = [new_uid() for _ in range(10_000)]
    assert len(set(uids)) == len(uids)
    for text in uids[:1000]:
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, text)
