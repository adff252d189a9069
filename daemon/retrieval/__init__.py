"""Retrieval: the read methods (read, list, search, receipts, status, audit
export), sealed listing cursors, the lexical full-text index and
``memory.context`` recall.
"""
