"""External memory: the projection of entries to an outside provider, governed.
The projection worker and external recall, the durable outbox of desired
state, the provider seam and its adapter, and the rules for text that leaves
the host or comes back from outside.
"""
