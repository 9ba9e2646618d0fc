"""Fault injection for reliability tests: errors, latency, dropped watches, forced 410s.

Off by default. A ``FaultConfig`` is set at start (``--faults JSON``) and replaced at run time
through ``POST /_sim/faults`` (``DELETE`` turns everything off). Example::

    {"rules": [{"resource": "pods", "verb": "create", "rate": 0.5, "code": 500}],
     "watch": {"dropAfter": 2.0, "goneRate": 1.0}, "seed": 7}

A rule matches a resource (plural, ``pods/binding`` for a subresource, or ``*``) and a verb
(get, list, watch, create, update, patch, delete, deletecollection, or ``*``); when it fires the
request fails with ``code`` after ``latency`` seconds (latency applies even when no error fires).
"""

from __future__ import annotations

import random

import msgspec


class FaultRule(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    resource: str = "*"
    verb: str = "*"
    rate: float = 1.0
    code: int = 500
    latency: float = 0.0
    message: str = "injected fault"


class WatchFaults(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    # Close every watch stream this many seconds after it opens (0 = never).
    drop_after: float = 0.0
    # Fraction of watch requests answered with an ERROR 410 Gone event.
    gone_rate: float = 0.0


class FaultConfig(msgspec.Struct, frozen=True, rename="camel", forbid_unknown_fields=True):
    rules: tuple[FaultRule, ...] = ()
    watch: WatchFaults = WatchFaults()
    seed: int | None = None


_decoder = msgspec.json.Decoder(FaultConfig)


def parse_faults(data: bytes | str) -> FaultConfig:
    """Decode a fault config; raises ValueError with the field at fault."""
    try:
        return _decoder.decode(data)
    except msgspec.ValidationError as exc:
        raise ValueError(f"invalid fault config: {exc}") from exc
    except msgspec.DecodeError as exc:
        raise ValueError(f"invalid fault config JSON: {exc}") from exc


def encode_faults(config: FaultConfig) -> bytes:
    return msgspec.json.encode(config)


class Faults:
    """The current fault config and its random source."""

    def __init__(self, config: FaultConfig | None = None) -> None:
        self.set(config or FaultConfig())

    def set(self, config: FaultConfig) -> None:
        self.config = config
        self.random = random.Random(config.seed)
        self.active = bool(config.rules) or config.watch != WatchFaults()

    def decide(self, resource: str, verb: str) -> tuple[float, FaultRule | None]:
        """(latency to add, the rule whose error fires or None)."""
        latency = 0.0
        for rule in self.config.rules:
            if rule.resource not in ("*", resource) or rule.verb not in ("*", verb):
                continue
            latency = max(latency, rule.latency)
            if rule.rate > 0 and self.random.random() < rule.rate:
                return latency, rule
        return latency, None

    def watch_gone(self) -> bool:
        rate = self.config.watch.gone_rate
        return rate > 0 and self.random.random() < rate

    @property
    def watch_drop_after(self) -> float:
        return self.config.watch.drop_after
