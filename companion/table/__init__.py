"""The live table: controller, read loop, simulator commands (threads live here, not in the core)."""

from companion.table.controller import RequestError, TableController

__all__ = ["RequestError", "TableController"]
