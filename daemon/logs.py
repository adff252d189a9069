"""Log configuration, done once at the edge (``memoryd serve``).

Owns: structlog's processor chain. JSON lines on stderr by default, a console
renderer for people with ``--log-format console``.

Invariants: call sites log snake_case event names with ids, counts and
categories only. Memory bodies, titles, queries, tokens and exception messages
never reach a log line (exceptions are logged by type and traceback frames only,
see ``rpc/errors.py``).
"""

from __future__ import annotations

import logging
import sys
from typing import Literal

import structlog


def configure(fmt: Literal["json", "console"] = "json", level: int = logging.INFO) -> None:
    renderer: structlog.typing.Processor
    if fmt == "console":
        renderer = structlog.dev.ConsoleRenderer(colors=False)
    else:
        renderer = structlog.processors.JSONRenderer()
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.WriteLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    # Libraries that log through the stdlib (jsonrpcserver logs exception text
    # on paths we never reach) are kept quiet so nothing unvetted is printed.
    logging.getLogger("jsonrpcserver").disabled = True
