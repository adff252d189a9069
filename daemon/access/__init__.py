"""Access: who may act. The authorization gate (the only caller of the kernel's
``decide()``), identities and agent tokens, tasks with their frozen consent and
grants, and teams. A new capability or consent rule changes this wing.
"""
