"""The serial bridge: line protocol (``protocol``), host reader (``host``), firmware (``firmware/``).

See ``firmware_bridge/README.md`` and ``firmware_bridge/PROTOCOL.md``.
"""
