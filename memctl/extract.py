"""``memctl extract``: submit a finished task's transcript, watch the queue.

The transcript is a JSON Lines file of ``{role, content, ts?}`` turns
(docs/extraction.md); the daemon reads and bounds it, so a malformed line is
refused there, by its line number.
"""

from __future__ import annotations

import argparse
from typing import Any

from memoryd.memctl.requests import Reader, Request, _identity

__all__ = ["build_extract_job", "build_extract_status", "build_extract_submit"]


def build_extract_submit(args: argparse.Namespace, read: Reader) -> Request:
    params: dict[str, Any] = {"jsonl": read(args.file)}
    if args.scope is not None:
        params["scope"] = args.scope
    ident = _identity(args)
    if ident is not None:
        params["identity"] = ident
    return Request("extract.submit", params)


def build_extract_status(args: argparse.Namespace, _read: Reader) -> Request:
    ident = _identity(args)
    return Request("extract.status", {} if ident is None else {"identity": ident})


def build_extract_job(args: argparse.Namespace, _read: Reader) -> Request:
    return Request("extract." + args.key.split()[1], {"job_id": args.job_id})
