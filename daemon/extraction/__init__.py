"""Extraction: memory from finished tasks. The transcript format, the queue of
transcripts waiting, the worker that drains it, and the extractors (rule-based
and the language-model one) that turn turns into candidate memories.
"""
