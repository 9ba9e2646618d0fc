"""Name → factory registries for plugins and actions; passed in, never global, no overwrites."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Generic, TypeVar

from shared.errors import UserError

F = TypeVar("F")


class Registry(Generic[F]):
    """Factories by name; registering a name twice is an error, as is asking for an unknown one."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._factories: dict[str, F] = {}

    def register(self, name: str, factory: F) -> None:
        if name in self._factories:
            raise ValueError(f"{self.kind} {name!r} is already registered")
        self._factories[name] = factory

    def get(self, name: str) -> F:
        try:
            return self._factories[name]
        except KeyError:
            known = ", ".join(sorted(self._factories))
            raise UserError(f"unknown {self.kind} {name!r} (known: {known})") from None

    def __contains__(self, name: object) -> bool:
        return name in self._factories

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._factories))
