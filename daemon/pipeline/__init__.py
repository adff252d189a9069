"""The write pipeline: a governed change from draft to answer. ``memory.write``,
pending actions and their approval, entry rows (the one owner of ``entries``
and ``revisions``), undo, promotion and the lifecycle after a write.
"""
