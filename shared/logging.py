"""structlog set-up: JSON lines in services, a console renderer on a TTY.

Call `configure_logging` once at process start; get loggers with `service_logger(name)`, which
binds `service`. Handlers bind `topic`, `partition`, `offset`, `job` per message with `.bind()`.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, Literal, TextIO

import structlog

LogFormat = Literal["json", "console", "auto"]


class _Stderr:
    """``sys.stderr`` as it is at each write: a stream bound at set-up time outlives the
    object it was (pytest's capture, a CLI's redirection) and then writes to a closed file."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()

    def isatty(self) -> bool:
        return sys.stderr.isatty()


def configure_logging(
    *, level: str = "info", fmt: LogFormat = "auto", stream: TextIO | None = None
) -> None:
    """Route structlog (and stdlib logging, e.g. aiokafka's) to one stream in one format."""
    out: TextIO = stream or _Stderr()  # type: ignore[assignment]
    numeric = logging.getLevelNamesMapping()[level.upper()]
    console = fmt == "console" or (fmt == "auto" and out.isatty())
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.types.Processor = (
        structlog.dev.ConsoleRenderer()
        if console
        else structlog.processors.JSONRenderer(sort_keys=False)
    )
    tail: list[structlog.types.Processor] = (
        []
        if console
        else [
            # Locals in tracebacks would leak object contents (and bulk) into the logs.
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
            )
        ]
    )
    structlog.configure(
        processors=[*shared, *tail, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    # Third-party libraries log through stdlib; render them the same way.
    handler = logging.StreamHandler(out)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
            foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared, *tail],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    # aiokafka's debug output is a flood; third parties stay at info even when we debug.
    root.setLevel(max(numeric, logging.INFO))


def service_logger(service: str, **context: Any) -> structlog.typing.FilteringBoundLogger:
    """A logger with `service` (and any extra context) bound."""
    logger: structlog.typing.FilteringBoundLogger = structlog.get_logger().bind(
        service=service, **context
    )
    return logger
