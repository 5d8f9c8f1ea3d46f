"""FLUIDC_LOGS: what the compiler did, through the logging module (as TORCH_LOGS does for torch).

    FLUIDC_LOGS=passes,cache python train.py      # or "all"; fluidc.set_logs("plans") in code

Each topic is a logger, fluidc.<topic>; a turned-on topic logs at DEBUG, to stderr unless the
application has configured logging (then wherever its handlers send it). Off by default, and
free when off: call sites test `log.isEnabledFor(logging.DEBUG)` before building a message.
"""
from __future__ import annotations

import logging
import os
import sys

from .errors import did_you_mean

TOPICS = {
    "passes": "each pass of a plan being built: ops before and after, and its time",
    "fusion": "each kernel formed: its ops, its iteration space, why it starts a new kernel",
    "codegen": "each kernel generated: its name, its source ops, its lines of source",
    "cache": "each compiled library: built (and how long the compiler took) or found on disk",
    "plans": "each plan built and why (first run, new feed shapes, new fetches, program "
             "changed, ...), its steps and its time",
}
_handler: logging.Handler | None = None


def logger(topic: str) -> logging.Logger:
    """The logger of one topic of TOPICS."""
    return logging.getLogger(f"fluidc.{topic}")


def set_logs(spec: str | None = None) -> list[str]:
    """Turn on the topics named in `spec` ("passes,cache", "all"; "" or None: none) and turn
    the others off; returns the topics on. An unknown topic raises ValueError naming it."""
    global _handler
    names = [t.strip().lstrip("+") for t in (spec or "").split(",") if t.strip()]
    on = list(TOPICS) if "all" in names else list(dict.fromkeys(names))
    for name in on:
        if name not in TOPICS:
            raise ValueError(f"FLUIDC_LOGS: unknown topic '{name}'{did_you_mean(name, TOPICS)}; "
                             f"topics: {', '.join(TOPICS)}, all")
    for topic in TOPICS:
        logger(topic).setLevel(logging.DEBUG if topic in on else logging.NOTSET)
    package = logging.getLogger("fluidc")
    if on and _handler is None and not logging.getLogger().handlers:
        # No logging config of the application's: print to stderr ourselves.
        _handler = logging.StreamHandler(sys.stderr)
        _handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        package.addHandler(_handler)
    elif not on and _handler is not None:
        package.removeHandler(_handler)
        _handler = None
    return on


set_logs(os.environ.get("FLUIDC_LOGS"))
