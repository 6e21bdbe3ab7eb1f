"""The error the table controller raises for a request it cannot do (mapped to an HTTP status)."""

from __future__ import annotations

from typing import Any


class RequestError(ValueError):
    """A request to the table is malformed or impossible; ``status`` is the HTTP status to use."""

    def __init__(self, message: str, status: int = 400, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.extra = extra
