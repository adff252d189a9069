"""Semantic recall (the ``semantic`` extra): the local embedding model and its
worker, stored vectors and their int8 form, hybrid ranking fused with the
lexical score, and the intent layer of the content scan with its trained head.
"""
