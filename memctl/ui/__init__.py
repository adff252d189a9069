"""``memctl ui``: a local web page for the operator (the optional ``ui`` extra).

A client program like memctl: it talks to the daemon only through
``control.sock`` and never imports the daemon. ``server.serve`` runs it;
``app.build`` makes the guarded ASGI application; the reference is
``docs/ui.md``.
"""
