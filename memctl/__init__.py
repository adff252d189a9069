"""The operator's client programs: ``memctl`` and the MCP bridge it starts.

Owns: the command line (``memoryd.memctl.main``), its argparse tree, request
builders and rendering, and the MCP bridge (``memctl mcp``). These programs
reach the daemon only through its sockets, with ``memoryd.rpc.client``; nothing
of memoryd imports them.
"""
