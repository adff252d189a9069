"""Build the conversation set's JSON files from their hand-written sources.

Each ``src/<id>.txt`` holds one conversation as written: a header
(``id``, ``language``, ``speakers``, ``split``), sessions opened by
``== <session id> <ISO 8601 date>`` with one turn a line (``Speaker: text``,
optionally ending in a ``[tag]`` that questions cite), and a ``== questions``
block with one question a line::

    category | question | answer | tag, tag

This script numbers the turns (``<conversation>:<session>:t<n>``), resolves the
tags to turn ids, gives each question its split (see README.md) and writes
``<id>.json`` beside it. Run it after editing a source::

    python3 tests/data/conversations/make_conversations.py
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TAG = re.compile(r"\s*\[([a-z0-9-]+)\]\s*$")


def question_split(conversation_split: str, question_id: str) -> str:
    """``heldout`` for every question of a held-out conversation, and for one
    question in six of the others: those whose id's SHA-256, read as a number,
    is divisible by 6."""
    if conversation_split == "heldout":
        return "heldout"
    digest = int(hashlib.sha256(question_id.encode("utf-8")).hexdigest(), 16)
    return "heldout" if digest % 6 == 0 else "dev"


def build(source: Path) -> dict[str, Any]:
    header: dict[str, str] = {}
    sessions: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    tags: dict[str, str] = {}
    in_questions = False
    for number, raw in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        where = f"{source.name}:{number}"
        if line.startswith("== "):
            head = line[3:].split()
            if head == ["questions"]:
                in_questions = True
            else:
                sessions.append({"id": head[0], "date": head[1], "turns": []})
            continue
        if in_questions:
            category, question, answer, cited = (part.strip() for part in line.split("|"))
            qid = f"{header['id']}:q{len(questions) + 1}"
            try:
                evidence = [tags[t.strip()] for t in cited.split(",")]
            except KeyError as exc:
                raise SystemExit(f"{where}: no turn is tagged {exc}") from None
            questions.append(
                {
                    "id": qid,
                    "category": category,
                    "question": question,
                    "answer": answer,
                    "evidence": evidence,
                    "split": question_split(header["split"], qid),
                }
            )
        elif not sessions:
            key, _, value = line.partition(":")
            header[key.strip()] = value.strip()
        else:
            speaker, sep, text = line.partition(":")
            if not sep or speaker not in [s.strip() for s in header["speakers"].split(",")]:
                raise SystemExit(f"{where}: a turn must start with a speaker's name")
            session = sessions[-1]
            tid = f"{header['id']}:{session['id']}:t{len(session['turns']) + 1}"
            match = TAG.search(text)
            if match:
                if match.group(1) in tags:
                    raise SystemExit(f"{where}: tag {match.group(1)} is used twice")
                tags[match.group(1)] = tid
                text = text[: match.start()]
            session["turns"].append({"id": tid, "speaker": speaker, "text": text.strip()})
    return {
        "id": header["id"],
        "language": header["language"],
        "speakers": [s.strip() for s in header["speakers"].split(",")],
        "split": header["split"],
        "sessions": sessions,
        "questions": questions,
    }


def main() -> int:
    for source in sorted((HERE / "src").glob("*.txt")):
        conversation = build(source)
        out = HERE / f"{conversation['id']}.json"
        out.write_text(
            json.dumps(conversation, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        turns = sum(len(s["turns"]) for s in conversation["sessions"])
        print(
            f"{out.name}: {len(conversation['sessions'])} sessions, {turns} turns, "
            f"{len(conversation['questions'])} questions",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
