"""A damaged session log is moved aside by the store; the running table says so on the page too."""

from pathlib import Path

from companion.config import default_config
from companion.table.build import build_table


def test_a_damaged_session_log_is_reported_in_the_table_warnings(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    db.write_bytes(b"this is not an SQLite database at all" * 200)
    table = build_table(default_config(), tmp_path, source_kind="sim")
    try:
        assert any("moved" in w or "damaged" in w for w in table.warnings), table.warnings
        assert list(tmp_path.glob("sessions.db.corrupt-*")), "the damaged file is kept aside"
    finally:
        table.stop()
