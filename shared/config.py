"""Settings from environment variables into small frozen msgspec Structs.

Each field of a settings Struct reads one variable, `SHOAL_<FIELD>` unless the Struct's
`env_names` maps it elsewhere (the broker address is the conventional `KAFKA_BOOTSTRAP`). A field's
`Meta(description=...)` is its documentation. Strings are converted by the field's type (int,
float, bool, str, tuple[str, ...], Literal choices, and `Duration` such as `500ms`, `30s`, `2m`);
the Struct's own constraints and rules across fields are then checked. A bad value raises one
`UserError` naming the variable and the value.
"""

from __future__ import annotations

import os
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar, Literal, TypeVar

import msgspec
from msgspec import Meta

from shared.errors import UserError

ENV_PREFIX = "SHOAL_"


class _DurationMarker:
    """Marks a float field (seconds) that also accepts `ms`/`s`/`m`/`h` suffixes."""


Duration = Annotated[float, _DurationMarker(), Meta(ge=0)]

S = TypeVar("S", bound=msgspec.Struct)


BrokerKind = Literal["kafka", "tansu"]
BY_BROKER = -1  # a fetch wait left to the broker kind (`FETCH_WAITS_MS`)

# Parked-fetch waits (while records flow, once idle) of each broker kind, for the fields left at
# BY_BROKER. Kafka answers a parked fetch as soon as records arrive, so its wait only bounds an
# empty fetch, and nothing is paced. Tansu answers only when the wait ends, so a short wait is
# each hop's latency, and an idle consumer parks longer to save CPU (`shared.bus.pacing`).
FETCH_WAITS_MS: Mapping[BrokerKind, tuple[int, int]] = {"kafka": (500, 0), "tansu": (20, 300)}
# Group session timeouts of each broker kind, for a session_timeout_ms left at BY_BROKER. Tansu
# holds every JoinGroup for half the session timeout (rounded up to a second: 5 s at Kafka's
# 10 s, measured on tansu 0.6.0), and every join after a broker loss pays it; at 4 s a join
# takes 2 s and a member survives a 3 s stall of its event loop.
SESSION_TIMEOUTS_MS: Mapping[BrokerKind, int] = {"kafka": 10_000, "tansu": 4_000}


class KafkaSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How every service talks to Kafka (or to the embedded Tansu broker)."""

    env_names: ClassVar[Mapping[str, str]] = {"bootstrap": "KAFKA_BOOTSTRAP"}

    bootstrap: Annotated[
        str, Meta(description="host:port list of the brokers; empty means the embedded broker")
    ] = ""
    broker: Annotated[
        BrokerKind,
        Meta(
            description="what the brokers are: kafka (Apache Kafka or a broker that answers a "
            "parked fetch when records arrive; the producer is idempotent) or tansu (the "
            "embedded broker, which answers it only when its wait ends: consumers pace their "
            "fetches and may be rung awake, see idle_fetch_max_wait_ms and doorbell); the "
            "local stack sets tansu for its embedded broker"
        ),
    ] = "kafka"
    client_id: Annotated[str, Meta(description="client id sent to the broker (logs, quotas)")] = (
        "shoal"
    )
    fetch_max_wait_ms: Annotated[
        int,
        Meta(
            ge=BY_BROKER,
            description="longest a fetch is parked while no records come; -1: by broker, 500 "
            "on kafka (which answers as soon as records arrive) and 20 on tansu (which answers "
            "only when the wait ends, so this is each hop's latency)",
        ),
    ] = BY_BROKER
    idle_fetch_max_wait_ms: Annotated[
        int,
        Meta(
            ge=BY_BROKER,
            description="tansu only: how long a fetch is parked once the consumer has been idle "
            "for idle_after_ms (0: never change); saves broker and client CPU at rest, and the "
            "first record after a quiet period waits up to this; -1: by broker, 300 on tansu, "
            "0 on kafka (which refuses any other)",
        ),
    ] = BY_BROKER
    doorbell: Annotated[
        bool,
        Meta(
            description="tansu only: publishers ring the one-partition <prefix>wake topic when "
            "they publish after a quiet second, so idle consumers wake at once (the local stack "
            "turns it on for its embedded broker)"
        ),
    ] = False
    idle_after_ms: Annotated[
        int,
        Meta(ge=0, description="tansu only: time without records after which a consumer is idle"),
    ] = 2_000
    acks: Annotated[
        Literal["all", "1", "0"],
        Meta(
            description="producer acknowledgement level; with all on kafka the producer is "
            "idempotent (a retried send is written once)"
        ),
    ] = "all"
    linger_ms: Annotated[int, Meta(ge=0, description="producer batching delay")] = 5
    max_batch_size: Annotated[
        int, Meta(ge=1024, description="producer batch size in bytes per partition")
    ] = 256 * 1024
    max_request_size: Annotated[
        int, Meta(ge=1024, description="largest produce request in bytes")
    ] = 4 * 1024 * 1024
    session_timeout_ms: Annotated[
        int,
        Meta(
            ge=BY_BROKER,
            description="group member is dropped after this silence (at least 1000); -1: by "
            "broker, 10000 on kafka and 4000 on tansu (which holds each group join for half "
            "of it)",
        ),
    ] = BY_BROKER
    heartbeat_interval_ms: Annotated[int, Meta(ge=100, description="group heartbeat period")] = (
        1_000
    )
    max_poll_interval_ms: Annotated[
        int, Meta(ge=1000, description="longest a handler may hold a batch before eviction")
    ] = 300_000
    topic_partitions: Annotated[
        int, Meta(ge=1, description="partitions of topics the bus creates")
    ] = 4
    replication_factor: Annotated[
        int, Meta(ge=1, description="replicas of topics the bus creates (1 on one broker)")
    ] = 1
    topic_prefix: Annotated[
        str, Meta(description="prefix of every Shoal topic, e.g. the dead-letter topic")
    ] = "shoal."
    security_protocol: Annotated[
        Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"],
        Meta(description="how clients talk to the brokers: TLS (SSL), SASL, or both"),
    ] = "PLAINTEXT"
    sasl_mechanism: Annotated[
        Literal["", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"],
        Meta(description="SASL mechanism (needed with SASL_PLAINTEXT and SASL_SSL)"),
    ] = ""
    sasl_username: Annotated[str, Meta(description="SASL user (a Strimzi KafkaUser name)")] = ""
    sasl_password: Annotated[
        str, Meta(description="SASL password; set it from a Secret, never in a ConfigMap")
    ] = ""
    ssl_cafile: Annotated[
        str, Meta(description="CA bundle that signed the brokers' certificates; empty: system CAs")
    ] = ""
    ssl_certfile: Annotated[
        str, Meta(description="client certificate for mutual TLS (with ssl_keyfile); optional")
    ] = ""
    ssl_keyfile: Annotated[str, Meta(description="client key for mutual TLS; optional")] = ""
    ssl_check_hostname: Annotated[
        bool, Meta(description="verify that a broker's certificate names its host")
    ] = True

    def __post_init__(self) -> None:
        if self.session_timeout_ms != BY_BROKER and self.session_timeout_ms < 1000:
            raise ValueError(f"{env_name(KafkaSettings, 'session_timeout_ms')} must be >= 1000")
        if self.broker == "tansu":
            return
        # The fetch pacing patches aiokafka's private fetcher, and the doorbell needs a topic
        # of its own: both are kept to the broker that needs them.
        if self.idle_fetch_max_wait_ms > 0:
            raise ValueError(_tansu_only("idle_fetch_max_wait_ms"))
        if self.doorbell:
            raise ValueError(_tansu_only("doorbell"))

    @property
    def fetch_wait_ms(self) -> int:
        """The parked-fetch wait in effect: ``fetch_max_wait_ms``, or the broker kind's."""
        if self.fetch_max_wait_ms != BY_BROKER:
            return self.fetch_max_wait_ms
        return FETCH_WAITS_MS[self.broker][0]

    @property
    def session_ms(self) -> int:
        """The group session timeout in effect: ``session_timeout_ms``, or the broker kind's."""
        if self.session_timeout_ms != BY_BROKER:
            return self.session_timeout_ms
        return SESSION_TIMEOUTS_MS[self.broker]

    @property
    def log_survives_restart(self) -> bool:
        """Whether a broker restart keeps the log and the groups' offsets: Kafka keeps them on
        disk; the embedded Tansu keeps them in memory and comes back empty."""
        return self.broker == "kafka"

    @property
    def idle_fetch_wait_ms(self) -> int:
        """The idle consumer's parked-fetch wait in effect (0: not paced)."""
        if self.idle_fetch_max_wait_ms != BY_BROKER:
            return self.idle_fetch_max_wait_ms
        return FETCH_WAITS_MS[self.broker][1]

    @property
    def paced(self) -> bool:
        """Whether consumers park their fetches longer once idle (`shared.bus.pacing`)."""
        return self.broker == "tansu" and self.idle_fetch_wait_ms > self.fetch_wait_ms

    @property
    def idempotent(self) -> bool:
        """Whether the producer is idempotent: on Kafka, unless acks were lowered (as Kafka's
        own client does); Tansu cannot do it with stock aiokafka."""
        return self.broker == "kafka" and self.acks == "all"


def _tansu_only(field: str) -> str:
    return (
        f"{env_name(KafkaSettings, field)} is only for {env_name(KafkaSettings, 'broker')}=tansu "
        "(Kafka answers a parked fetch when records arrive)"
    )


class ServiceSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Process-level settings shared by every service."""

    http_port: Annotated[
        int, Meta(ge=0, le=65535, description="port of /metrics /healthz /readyz (0: any)")
    ] = 8080
    http_host: Annotated[
        str,
        Meta(description="address /metrics /healthz /readyz bind; 0.0.0.0 where probes need it"),
    ] = "127.0.0.1"
    log_level: Annotated[
        Literal["debug", "info", "warning", "error"], Meta(description="lowest level logged")
    ] = "info"
    log_format: Annotated[
        Literal["json", "console", "auto"],
        Meta(description="json lines, console, or auto (console on a TTY, else json)"),
    ] = "auto"
    shutdown_grace: Annotated[
        Duration, Meta(description="after SIGTERM, time to drain and commit before cancelling")
    ] = 20.0
    broker_check_period: Annotated[
        Duration, Meta(description="how often the log generation is read to notice a lost log")
    ] = 2.0
    resync_timeout: Annotated[
        Duration,
        Meta(
            description="after a lost log, longest wait for the watcher's resync before rebuilding"
        ),
    ] = 60.0
    event_loop: Annotated[
        Literal["uvloop", "asyncio"],
        Meta(
            description="the event loop: uvloop (libuv, in C; asyncio's own where uvloop is not "
            "installed) or asyncio's"
        ),
    ] = "uvloop"


def env_name(cls: type[msgspec.Struct], field: str, *, prefix: str = ENV_PREFIX) -> str:
    """The environment variable that sets `field` of `cls`."""
    overrides: Mapping[str, str] = getattr(cls, "env_names", {})
    return overrides.get(field) or f"{prefix}{field.upper()}"


def load_settings(
    cls: type[S], environ: Mapping[str, str] = os.environ, *, prefix: str = ENV_PREFIX
) -> S:
    """Build `cls` from `environ`; unset variables keep the field's default."""
    hints = typing.get_type_hints(cls, include_extras=True)
    raw: dict[str, Any] = {}
    variables: dict[str, str] = {}
    for field in msgspec.structs.fields(cls):
        var = env_name(cls, field.name, prefix=prefix)
        if var not in environ:
            continue
        variables[field.name] = var
        value = environ[var]
        try:
            raw[field.name] = _parse(hints[field.name], value.strip())
        except ValueError as exc:
            raise UserError(f"{var}={value!r}: {exc}") from None
    try:
        return msgspec.convert(raw, cls)
    except msgspec.ValidationError as exc:
        match = re.search(r"at `\$\.(\w+)`", str(exc))
        message = str(exc).split(" - at `")[0]
        if match is None:  # a rule across fields (`__post_init__`) names its own variables
            raise UserError(message) from None
        var = variables.get(match.group(1), match.group(1))
        raise UserError(f"{var}={environ.get(var, '')!r}: {message}") from None


def _parse(hint: Any, text: str) -> Any:
    base, markers = _unwrap(hint)
    if any(isinstance(m, _DurationMarker) for m in markers):
        return parse_duration(text)
    if typing.get_origin(base) is Literal:
        choices = typing.get_args(base)
        for choice in choices:  # case-insensitive, answered in the choice's own spelling
            if text.lower() == str(choice).lower():
                return choice
        raise ValueError(f"expected one of {', '.join(c for c in choices if c)}")
    if typing.get_origin(base) is tuple:
        return tuple(part.strip() for part in text.split(",") if part.strip())
    parser = _SCALARS.get(base)
    if parser is None:
        raise TypeError(f"settings field type {base!r} has no environment parser")
    return parser(text)


def _unwrap(hint: Any) -> tuple[Any, list[object]]:
    """Strip Annotated layers (nested aliases too), collecting their metadata."""
    markers: list[object] = []
    while typing.get_origin(hint) is Annotated:
        markers.extend(hint.__metadata__)
        hint = hint.__origin__
    if isinstance(hint, types.UnionType):
        raise TypeError("optional settings fields are not supported; use a default instead")
    return hint, markers


def _parse_int(text: str) -> int:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise ValueError("expected an integer") from None


def _parse_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError("expected a number") from None


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def _parse_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError("expected true/false, yes/no, on/off or 1/0")


_SCALARS: dict[Any, Callable[[str], Any]] = {
    int: _parse_int,
    float: _parse_float,
    bool: _parse_bool,
    str: lambda text: text,
}

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$")
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def parse_duration(text: str) -> float:
    """`250ms`, `1.5s`, `2m`, `1h` or a bare number of seconds → seconds."""
    match = _DURATION.match(text.lower())
    if match is None:
        raise ValueError("expected a duration such as 500ms, 30s, 2m or 1h")
    return float(match.group(1)) * _UNIT_S[match.group(2)]
