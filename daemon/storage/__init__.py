"""Storage: the primary stores (SQLite through apsw, PostgreSQL through psycopg),
the transaction seam the other wings run statements in, which backend a home
opens, the copy between backends, backups and signed checkpoints. A new store
backend changes this wing.
"""
