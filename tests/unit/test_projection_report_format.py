"""memctl projection report reads as a small table with rounded figures."""

from __future__ import annotations

from memoryd.memctl import format as fmt

REPORT = {
    "mode": "recall",
    "project": True,
    "outbox": {"pending": 2, "dirty": 0, "blocked": 1, "done": 40},
    "oldest_open": "2026-12-01T10:00:00.000000Z",
    "recall": {
        "recall": {
            "attempts": 12,
            "ok": 10,
            "returned": 31,
            "kept": 20,
            "flagged": 1,
            "overlap": 7,
            "local": 44,
            "mean_latency_ms": 123.456789012,
            "max_latency_ms": 980.0000001,
            "degraded": {"timeout": 1, "scan_redacted": 1},
        },
    },
}


def test_the_report_is_a_table_with_rounded_figures() -> None:
    text = fmt.projection_report(REPORT)
    assert "mode: recall, projecting on" in text
    assert "outbox: pending 2, dirty 0, blocked 1, done 40 (oldest open since " in text
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("MODE"))
    assert header.split() == [
        "MODE",
        "ATTEMPTS",
        "OK",
        "RETURNED",
        "KEPT",
        "FLAGGED",
        "OVERLAP",
        "LOCAL",
        "MEAN",
        "MS",
        "MAX",
        "MS",
        "DEGRADED",
    ]
    row = lines[lines.index(header) + 1]
    assert row.split()[:10] == ["recall", "12", "10", "31", "20", "1", "7", "44", "123", "980"]
    assert "scan_redacted 1, timeout 1" in row
    assert "123.456" not in text and "=" not in text and "{" not in text


def test_an_empty_report_says_so() -> None:
    text = fmt.projection_report(
        {"mode": "off", "project": False, "outbox": {}, "oldest_open": None, "recall": {}}
    )
    assert "no external recall yet" in text


def test_context_says_when_external_recall_degraded() -> None:
    base = {
        "snapshot_id": "snp_1",
        "task_id": "tsk_1",
        "frozen_at": "t",
        "entries": [],
        "rendered": "",
    }
    degraded = fmt.context(
        {
            **base,
            "coverage": {
                "external": {
                    "mode": "recall",
                    "status": "degraded",
                    "reason": "network_approval_required",
                }
            },
        }
    )
    assert (
        "note: external recall degraded (network_approval_required); "
        "only local memory is in this snapshot"
    ) in degraded
    fine = fmt.context({**base, "coverage": {"external": {"status": "ok", "items": 2}}})
    assert "degraded" not in fine and "external recall: 2 items" in fine
    assert "external" not in fmt.context(base)
