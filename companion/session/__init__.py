"""The session log: every game played, its actions, sensed events and raw trace (SQLite).

Public API (see ``docs/session-log.md``): ``SessionStore``, ``SessionInfo``, ``ActionRecord``,
``OpenReport``, ``SessionError``.
"""

from companion.session.records import ActionRecord, SessionInfo
from companion.session.schema import OpenReport
from companion.session.store import SessionError, SessionStore

__all__ = ["ActionRecord", "OpenReport", "SessionError", "SessionInfo", "SessionStore"]
