"""Where the tests' corpora live: inside the repository, nowhere else.

A bare clone must run the whole suite, so every corpus is copied into
``tests/data/`` with its licence (``tests/unit/test_self_contained.py``
checks that nothing under ``tests/`` reaches outside the repository). A
missing corpus is a failure, never a skip: ``corpus_files`` returns what is
there, the presence tests assert it is complete, and an empty parameter set
fails at collection (``empty_parameter_set_mark`` in ``pyproject.toml``).
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
# nst/JSONTestSuite test_parsing (MIT): y_ accept, n_ reject, i_ either.
JSON_TEST_SUITE = DATA / "jsontestsuite" / "test_parsing"


def corpus_files(prefix: str, folder: Path = JSON_TEST_SUITE) -> list[Path]:
    """The corpus files whose names start with ``prefix``, sorted."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.startswith(prefix))
