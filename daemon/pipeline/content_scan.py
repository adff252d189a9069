"""The one content scan of a governed change: what it reads of a proposal,
and its verdict.

Owns: ``scan`` (every new text of every op, its scope name and reason,
at proposal and at approval time), ``ScanVerdict``, the texts it reads
(``op_texts``, ``scan_size``) and ``check_reason`` (an operator's decision
reason). The order of the write path that calls it is
daemon/pipeline/governance.py; the rule table and the engine are
kernel/scan_rules.py and kernel/scan.py.

Invariants:
- every stored byte of a proposal is counted, except a summary derived from
  the body (the body's scan covers its text);
- a verdict names rule ids and positions, never text;
- the scanner is imported in the functions that scan: it loads on a thread
  of its own after the start (daemon/cli.py), and a scan that comes sooner
  waits for it to be whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from memoryd.daemon.pipeline.entries import derive_summary
from memoryd.daemon.pipeline.writes import Op, Proposal
from memoryd.kernel.entry_text import entry_texts, scope_texts
from memoryd.kernel.errors import ContentRejected, MemorydError

__all__ = ["OpTexts", "ScanVerdict", "check_reason", "op_texts", "scan", "scan_size"]


# Enumerations of an entry: walked like any field, never counted as text.
_NOT_COUNTED = ("type", "basis.kind")


@dataclass(frozen=True, slots=True)
class ScanVerdict:
    """The content verdict of a proposal: its rejection, or the rules that
    flag it for the operator's review (empty when clean). ``refused_by``:
    every rule a rejection's findings name, the ones past the error's
    ``MAX_DETAIL_FINDINGS`` too (its audit event names them all).
    ``withheld``: positions of the ops whose scope name the scan refuses, read
    with the scan and before the writer (the writer only writes), for the
    refusal's audit event to name no such scope."""

    error: MemorydError | None
    review: tuple[str, ...] = ()
    refused_by: tuple[str, ...] = ()
    withheld: frozenset[int] = frozenset()


OpTexts = list[list[tuple[str, str]] | None]


def op_texts(proposal: Proposal) -> OpTexts:
    """Per op of ``proposal``, every text of its entry (``entry_texts``), or
    None for an op without one: what ``scan_size`` counts and ``scan``
    reads, found once for both (a field left out, ``msgspec.UNSET``, holds
    no text: the walk finds none in it)."""
    return [None if op.entry is None else entry_texts(op.entry) for op in proposal.ops]


def scan_size(proposal: Proposal, texts: OpTexts | None = None) -> int:
    """Characters ``scan`` reads (to decide whether it is worth a thread);
    ``texts``: ``op_texts(proposal)``, when the caller has them."""
    if texts is None:
        texts = op_texts(proposal)
    return sum(len(text) for found in texts if found for _path, text in found)


def scan(proposal: Proposal, max_bytes: int, texts: OpTexts | None = None) -> ScanVerdict:
    """The one content scan, at proposal and at approval time: every new
    text of every op (``kernel/entry_text``), its scope name and reason;
    every stored byte counted, except a summary derived from the body.
    ``texts``: ``op_texts(proposal)``, when the caller has them (the verdict
    is the same; they are not found again).

    A derived summary is a cut of the body: the body's scan covers its text
    (scanning the cut again only finds what the cut broke, such as half a
    base64 run), and the caller did not write it, so it is neither counted
    nor refused here; only an instruction the cut reads as flags the write
    for review (``_cut_summary_review``). The scope budget counts it as
    stored."""
    from memoryd.kernel.scan import verdict_fields
    review: set[str] = set()
    if texts is None:
        texts = op_texts(proposal)
    for i, op in enumerate(proposal.ops):
        extra = scope_texts(op.scope) + ([("reason", op.reason)] if op.reason else [])
        e: dict[str, Any] | None = None
        derived = False
        if op.entry is None:
            if not extra:
                continue
            read, counted = extra, []
        else:
            e = {k: v for k, v in op.entry.items() if v is not msgspec.UNSET}
            derived = (op.summary_derived if op.summary_derived is not None
                       else e["summary"] == derive_summary(e["body"]))
            found = texts[i]
            assert found is not None  # op_texts has the texts of every op with an entry
            read = [(path, text) for path, text in found
                    if not (derived and path == "summary")] + extra
            counted = [(path, text) for path, text in read if path not in _NOT_COUNTED]
        refused, flagged = verdict_fields(read, max_bytes=max_bytes, counted=counted)
        if refused is not None:
            return ScanVerdict(refused.error(),
                               refused_by=tuple(sorted({f.rule_id for f in refused.findings})),
                               withheld=_refused_scopes(proposal.ops))
        review.update(f.rule_id for f in flagged)
        if e is not None and derived and e["summary"] != e["body"]:
            review.update(_cut_summary_review(e["title"], e["summary"]))
    return ScanVerdict(None, tuple(sorted(review)))


def check_reason(reason: str) -> None:
    """Refuse an operator's decision reason the content scan finds anything
    in. It is kept and shown to the proposing agent, which no one reviews
    for: a finding that would only flag an entry for review refuses it too
    (as for a scope name)."""
    from memoryd.kernel.scan import check_fields
    found = check_fields([("reason", reason)], max_bytes=len(reason.encode("utf-8")),
                         counted=[])
    if found:
        fired = {f.category for f in found}
        code = next((c for category, c in (("invisible", "invisible_unicode"),
                                           ("secret", "secret_detected"),
                                           ("injection", "injection_detected"))
                     if category in fired), "invisible_unicode")
        raise ContentRejected(code, details={
            "field": "reason", "rule_ids": sorted({f.rule_id for f in found})})


def _cut_summary_review(title: str, summary: str) -> set[str]:
    """The injection rules a derived ``summary`` fires read after ``title``
    (alone, or across the two): rules to flag its write for the operator's
    review.

    A derived summary is the body's first line, cut to ``SUMMARY_CHARS``; the
    body's scan read it followed by the rest, and what follows can be what
    makes a phrase benign ("ignore the previous instructions" + "for
    macOS"), so the cut can read as an instruction the body does not hold.
    Every recall card shows it. Nobody wrote the cut as it is, so it refuses
    nothing: it is held for review. Its secrets are left to the body's scan
    (the cut of a run is no key, and every card redacts secrets), and no
    invisible character is in it that the body's scan did not see.

    One scan of title and summary joined as ``check_fields`` joins them: the
    title alone refused nothing (its scan ran first), so every injection
    finding there is the summary's or the pair's. Injection rules read the
    folded text, where the cut's ellipsis is three full stops; it is scanned
    as those, so an ASCII cut keeps the scanner's ASCII paths (the same
    findings: the fold and the look-alike shadow of "…" are both "...").
    Only the injection rules run: a finding of one rule never changes
    another category's (the one catch-all, a secret rule, yields to secret
    findings alone), so they give the injection findings the whole table
    gives, without the secret rules' work (tests/unit/test_scan_injection_rules.py)."""
    from memoryd.kernel.scan import INJECTION_RULES
    from memoryd.kernel.scan import scan as scan_text
    if summary.endswith("\u2026"):
        summary = summary[:-1] + "..."
    return {f.rule_id for f in scan_text(title + " " + summary, INJECTION_RULES)
            if f.category == "injection"}


def _refused_scopes(ops: list[Op]) -> frozenset[int]:
    """Positions of ``ops`` whose scope name the content scan refuses, for a
    refusal's audit event (a scan that passed read every op's scope and
    refused none; one that refused stopped at its first refusal, so each
    scope is scanned here; a name: remembered when clean)."""
    from memoryd.kernel.scan import check_scopes
    refused = set()
    for i, op in enumerate(ops):
        if op.scope is None:
            continue
        try:
            check_scopes(op.scope)
        except MemorydError:
            refused.add(i)
    return frozenset(refused)
