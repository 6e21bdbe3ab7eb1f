"""Build a running table from the configuration: source, pipeline, rules, panel, log, controller.

Each part is optional except the rules core and the source: a part that is missing or fails
to start is reported in ``Table.warnings`` (and on the page) and the table runs without it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.table.controller import TableController
from companion.table.game import DingoDiscGame
from companion.table.loop import SourceLoop
from companion.table.retry import RetryingSource

log = logging.getLogger(__name__)


@dataclass
class Table:
    """Everything ``dingo-companion run`` starts, and stops in reverse order."""

    controller: TableController
    loop: SourceLoop | None
    store: Any = None
    panel: Any = None
    source_kind: str | None = "sim"  # None: the configured kind is unknown (see source_problem)
    warnings: list[str] = field(default_factory=list)
    calibration: Any = None  # the page's calibration wizard (live sources only)
    venue: Any = None  # the venue publisher (companion.venue), with a [venue] section

    @property
    def source_problem(self) -> str | None:
        """Why the sample source cannot be set up (it is retried meanwhile), or None."""
        return getattr(getattr(self.loop, "source", None), "problem", None)

    def watch_source(self, callback: Any) -> None:
        """Call ``callback(problem | None)`` when the source's set-up problem changes or is over."""
        source = getattr(self.loop, "source", None)
        if isinstance(source, RetryingSource):
            source.on_change = callback

    def start(self) -> None:
        """Start the read loop (opens the source)."""
        if self.loop is not None:
            self.loop.start()
        if self.venue is not None:
            self.venue.start()
        self.controller.health_tick(False)  # the status LED: waiting, running or fault

    def stop(self) -> None:
        """Stop the loop, end the streams, close the panel and the log."""
        if self.loop is not None:
            self.loop.stop()
        if self.venue is not None:
            self.venue.stop()
        self.controller.panel_status("off")
        self.controller.close()
        for part in (self.panel, self.store):
            close = getattr(part, "close", None)
            if close is not None:
                try:
                    close()
                except Exception:  # noqa: BLE001
                    log.exception("closing %s failed", type(part).__name__)


def build_table(config: Any, data_dir: Path, *, source_kind: str | None = None,
                heartbeat: Any = None, config_path: Path | None = None,
                source_options: dict | None = None, wizard_options: dict | None = None) -> Table:
    """Wire every part for ``config``; ``source_kind`` overrides ``[source] kind``.

    A source that cannot be set up (unknown kind, missing package or device) does not stop the
    table: it becomes a :class:`RetryingSource`, reported on the page and retried with back-off.

    ``config_path``: the file ``config`` came from (the calibration wizard saves there; without
    one, into ``data_dir/config.toml``). ``source_options``/``wizard_options``: for tests (speed).
    """
    from companion.sensing.pipeline import Pipeline

    warnings: list[str] = []
    kind, source = _make_source(config, source_kind, source_options or {})
    header = source.header
    simulator = getattr(source, "simulator", None)
    pipeline = Pipeline(header)
    store = _open_store(data_dir, warnings)
    controller = TableController(
        DingoDiscGame(), store=store, header=header, simulator=simulator,
        sensing=pipeline.snapshot, mode="sim" if simulator is not None else (kind or "none"),
    )
    if store is not None and controller.resume_unfinished() is not None:
        log.info("resumed session %s", controller.session_id)
    panel = _open_panel(config, controller, warnings)
    if panel is not None:
        controller.attach_panel(panel)
    from companion.venue.tableside import open_venue

    venue = open_venue(config, controller, store, Path(data_dir), warnings)
    for w in warnings:
        controller.add_status("startup", w)
    loop = SourceLoop(source, pipeline, controller, heartbeat=heartbeat)
    if isinstance(source, RetryingSource):
        def new_header(new: Any) -> None:  # e.g. a trace file that became readable
            fresh = Pipeline(new)
            loop.replace_pipeline(fresh)
            controller.use_sensing(new, fresh.snapshot)
        source.on_header = new_header
    wizard = None
    if kind != "trace":  # a trace is a recording: nothing to calibrate
        from companion.table.calwizard import CalibrationWizard

        wizard = CalibrationWizard(
            loop=loop, controller=controller, header=header, config=config,
            save_path=config_path or Path(data_dir) / "config.toml", make_pipeline=Pipeline,
            simulator=simulator, sim_lock=getattr(source, "lock", None),
            speed=float(getattr(source, "speed", 1.0)), **(wizard_options or {}))
    return Table(controller, loop, store, panel, kind, warnings, wizard, venue)


def _make_source(config: Any, kind: str | None, options: dict) -> tuple[str | None, Any]:
    """The resolved kind (None if unknown) and the source: live ones wrapped to retry their set-up."""
    from hardware.sources import make_source, resolve_kind

    try:
        chosen: str | None = resolve_kind(config, kind)
    except ValueError:
        chosen = None  # the RetryingSource reports the message (naming the valid kinds)
    try:
        source = make_source(config, kind, **options) if chosen else None
    except Exception:  # noqa: BLE001 - reported and retried by the RetryingSource
        source = None
    if chosen == "sim" and source is not None:
        return chosen, source
    header = source.header if source is not None else config.table_header()
    return chosen, RetryingSource(lambda: make_source(config, kind, **options), header, inner=source)


def _open_store(data_dir: Path, warnings: list[str]) -> Any:
    try:
        from companion.session import SessionStore
    except ImportError as exc:
        warnings.append(f"no session log ({exc}): games are not saved")
        return None
    from companion.session.schema import LogUnavailable

    try:
        store = SessionStore(data_dir)
    except LogUnavailable:
        raise  # busy or no permission: refuse to start, saying why (the log is healthy)
    except Exception as exc:  # noqa: BLE001 - run without a log rather than not at all
        warnings.append(f"session log unavailable ({exc}): games are not saved")
        return None
    if not store.report.ok:  # e.g. a damaged database moved aside: say so on the page too
        warnings.append(store.report.message)
    return store


def _open_panel(config: Any, controller: TableController, warnings: list[str]) -> Any:
    panel_cfg = getattr(config, "panel", None)
    if panel_cfg is None or not getattr(panel_cfg, "enabled", False):
        return None
    try:
        from hardware.panel import Panel

        def pressed(button: str) -> Any:
            def handler(*_: Any) -> None:
                try:
                    controller.press_button(button, source="panel")
                except Exception as exc:  # noqa: BLE001 - a button must never kill the panel thread
                    log.info("panel %s: %s", button, exc)
            return handler

        return Panel(panel_cfg, on_roll=pressed("roll"), on_confirm=pressed("confirm"),
                     on_undo=pressed("undo"))
    except Exception as exc:  # noqa: BLE001
        warnings.append(f"button panel unavailable ({exc}); use the buttons on the page")
        return None
