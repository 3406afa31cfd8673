"""The stage being edited: every edit checked at once, undo and redo, saving, the file on disk.

A :class:`Session` holds the stage as the pydantic model and the file it was opened from
(or the one new file named at start: the only file it ever writes). Every change makes a
new revision, validated and drawn once (:meth:`Session.view`); the page is told of
changes it did not make itself (the file edited elsewhere, a simulation's progress)
through :class:`EventHub`.

Examples
--------
>>> session = Session(None, series="dirt")
>>> for face in ("202a", "205a", "203a"):
...     view = session.edit({"op": "place", "face": face, "end": "exit"})
>>> view["summary"]["valid"], view["undo"]
(True, 'place 203a')
>>> session.undo()["summary"]["valid"], session.view()["redo"]
(False, 'place 203a')
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from trackkit.errors import InputError, TrackkitError
from trackkit.models.base import StrictModel
from trackkit.models.stage import Stage
from trackkit.studio import engine
from trackkit.studio.edits import (
    AddToken,
    ApplyFix,
    Delete,
    EditError,
    Flip,
    Move,
    Place,
    RemoveToken,
    Rotate,
    SetField,
    apply,
    parse_edit,
)

__all__ = [
    "MAX_HISTORY",
    "MAX_RACES",
    "Conflict",
    "EventHub",
    "Session",
    "SessionError",
    "SimRequest",
]

#: Edits kept for undo (a stage is a few kB: this is a few MB at most).
MAX_HISTORY = 500
#: Most races one *Simulate* may run.
MAX_RACES = 2000
#: A simulation tells the page its progress at most this often (in races).
_PROGRESS_STEPS = 50

DiskState = Literal["same", "changed", "missing", "unreadable", "none"]


class SessionError(ValueError):
    """A request the session cannot carry out; the message is for the page."""


class Conflict(SessionError):
    """The file changed on disk since it was opened or saved (edited elsewhere)."""


class SimRequest(StrictModel):
    """What *Simulate* asks for."""

    races: int = Field(default=100, ge=1, le=MAX_RACES, strict=True, description="Races to run.")
    players: int = Field(default=4, ge=1, le=6, strict=True, description="Drivers, 1-6.")
    seed: int = Field(default=1, ge=0, le=2**31, strict=True, description="The seed.")
    bots: list[str] = Field(
        default_factory=lambda: ["cautious", "aggressive", "planner"],
        min_length=1,
        max_length=6,
        description="Bots, cycled over the drivers.",
    )
    weather: Literal["dry", "rain"] | None = Field(
        default=None, description="GT: the weather at the start (default dry)."
    )
    laps: int | None = Field(
        default=None,
        ge=1,
        le=100,
        strict=True,
        description="GT circuits: laps (default the file's).",
    )


class EventHub:
    """Server-sent events to every open page: thread-safe, a bounded queue per page."""

    def __init__(self) -> None:
        self._subs: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[tuple[str, Any]]]] = []
        self._lock = threading.Lock()

    def subscribe(self) -> asyncio.Queue[tuple[str, Any]]:
        """A queue of ``(event, data)`` for the calling page (in the event loop)."""
        q: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(maxsize=64)
        with self._lock:
            self._subs.append((asyncio.get_running_loop(), q))
        return q

    def unsubscribe(self, q: asyncio.Queue[tuple[str, Any]]) -> None:
        """Forget a page's queue."""
        with self._lock:
            self._subs = [(loop, s) for loop, s in self._subs if s is not q]

    def publish(self, event: str, data: Any) -> None:
        """Send an event to every page, from any thread."""
        with self._lock:
            subs = list(self._subs)
        for loop, q in subs:
            try:
                loop.call_soon_threadsafe(_offer, q, (event, data))
            except RuntimeError:  # the loop has closed: that page is gone
                self.unsubscribe(q)

    @property
    def pages(self) -> int:
        """How many pages listen."""
        with self._lock:
            return len(self._subs)


def _offer(q: asyncio.Queue[tuple[str, Any]], item: tuple[str, Any]) -> None:
    if q.full():  # a page that stopped reading loses its oldest events, not the server
        q.get_nowait()
    q.put_nowait(item)


class _Cancelled(Exception):
    """A simulation stopped from the page."""


@dataclass(slots=True)
class _Sim:
    """The simulation running or last run."""

    request: SimRequest | None = None
    revision: int = -1
    running: bool = False
    done: int = 0
    total: int = 0
    error: str | None = None
    text: str | None = None
    svg: str | None = None
    cancel: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _label(edit: BaseModel, stage: Stage) -> str:
    """An edit in words, for the undo and redo buttons."""

    def name(n: int) -> str:
        return stage.tiles[n].tile if n < len(stage.tiles) else f"tile {n + 1}"

    if isinstance(edit, Place):
        return f"place {edit.face}"
    if isinstance(edit, Rotate):
        return f"turn {name(edit.tile)}"
    if isinstance(edit, Flip):
        return f"flip {name(edit.tile)}"
    if isinstance(edit, Move):
        return f"move {name(edit.tile)}"
    if isinstance(edit, Delete):
        return f"delete {name(edit.tile)}"
    if isinstance(edit, AddToken):
        return f"{edit.token.value} token on {name(edit.tile)}"
    if isinstance(edit, RemoveToken):
        return f"remove a token from {name(edit.tile)}"
    if isinstance(edit, SetField):
        return f"set {edit.field}"
    assert isinstance(edit, ApplyFix)
    return edit.edit.label


class Session:
    """One stage being edited, and the file it is saved to.

    Parameters
    ----------
    path : Path, optional
        The stage file: an existing file in any format trackkit reads, or a new file (its
        name picks the format). None: a new stage that is not saved, only exported.
    series : {"dirt", "gt"}
        The series of a new stage.

    Raises
    ------
    trackkit.errors.InputError
        If ``path`` exists but cannot be read as a stage, or names a file trackkit
        cannot write.
    """

    def __init__(self, path: Path | None, *, series: engine.Series = "dirt") -> None:
        self.path = path
        self.events = EventHub()
        self._lock = threading.RLock()
        self._digest: str | None = None
        self.source = None
        if path is not None and path.exists():
            raw = engine.read_file(path)  # InputError: a clear message naming the file
            self.source = engine.parse_bytes(raw, path)
            self._digest = _digest(raw)
            stage = self.source.stage
        else:
            if path is not None:
                from trackkit.formats.files import check_output

                engine.format_of(None, path)  # a name that says its format
                check_output(path)
            stage = engine.new_stage(series)
        self.format = engine.format_of(self.source, path)
        self.placed = self.format in ("rekee", "rgt")
        self.stage = stage
        self.saved = stage
        self.revision = 0
        self.history: list[tuple[Stage, str]] = []
        self.future: list[tuple[Stage, str]] = []
        self.disk: DiskState = "same" if path is not None and path.exists() else "none"
        self.notes: list[str] = []
        self.sim = _Sim()
        self._checked = engine.check(stage, file=self._file)
        self._view: dict[str, Any] | None = None

    # --- what the page shows -----------------------------------------------------------

    @property
    def _file(self) -> str | None:
        return str(self.path) if self.path is not None else None

    @property
    def checked(self) -> engine.Checked:
        """The stage now, validated and drawn."""
        return self._checked

    @property
    def dirty(self) -> bool:
        """Whether the stage differs from the file on disk (or the new stage's start)."""
        return self.stage != self.saved

    def view(self) -> dict[str, Any]:
        """Everything the page shows of the stage now (made once per revision)."""
        with self._lock:
            if self._view is None:
                self._view = self._make_view()
            return {**self._view, **self._status()}

    def _status(self) -> dict[str, Any]:
        return {
            "revision": self.revision,
            "dirty": self.dirty,
            "undo": self.history[-1][1] if self.history else None,
            "redo": self.future[-1][1] if self.future else None,
            "disk": self.disk,
            "notes": list(self.notes),
            "sim": self._sim_status(),
        }

    def _make_view(self) -> dict[str, Any]:
        checked = self._checked
        report = checked.report
        stage = checked.stage
        findings = []
        for f in report.findings:
            findings.append(
                {
                    "code": f.code,
                    "severity": f.severity.value,
                    "message": f.message,
                    "where": f.location.describe(),
                    "fix": f.fix,
                    "edits": [e.model_dump(mode="json") for e in f.edits],
                    "mark": engine.finding_marks(checked, f),
                }
            )
        return {
            "file": self.path.name if self.path is not None else None,
            "format": self.format,
            "stage": {
                "name": stage.name,
                "author": stage.author,
                "kind": report.kind.value,
                "kind_given": stage.kind.value if stage.kind is not None else None,
                "laps": stage.laps,
                "ruleset": stage.ruleset,
                "boxes": stage.boxes,
                "series": checked.layout.series,
                "circuit": checked.layout.circuit,
                "tiles": len(stage.tiles),
            },
            "svg": checked.svg,
            "findings": findings,
            "summary": {
                "valid": report.valid,
                "errors": report.errors,
                "warnings": report.warnings,
                "lines": checked.summary_lines,
            },
            "tiles": engine.tile_facts(checked),
            "targets": engine.targets(checked),
            "spaces": engine.space_facts(checked),
            "copies": engine.copies_left(checked),
        }

    # --- changing the stage ------------------------------------------------------------

    def edit(self, data: Any) -> dict[str, Any]:
        """Apply one edit from the page and return the new view.

        Raises
        ------
        SessionError
            For anything that is not a valid edit of this stage (the message says why).
        """
        try:
            edit = parse_edit(data)
        except ValidationError as exc:
            raise SessionError(_edit_problem(exc)) from None
        with self._lock:
            try:
                stage = apply(edit, self._checked)
            except EditError as exc:
                raise SessionError(str(exc)) from None
            self._commit(stage, _label(edit, self.stage))
            return self.view()

    def _commit(self, stage: Stage, label: str) -> None:
        if self.placed and stage.tiles:
            # a stage an editor file cannot hold yet is kept as it is
            with contextlib.suppress(TrackkitError, ValueError):
                stage = engine.rewalk(stage)
        if stage == self.stage:
            self.notes = [f"{label}: nothing changed"]
            return
        self.history.append((self.stage, label))
        del self.history[:-MAX_HISTORY]
        self.future.clear()
        self._set(stage)

    def _set(self, stage: Stage) -> None:
        self.stage = stage
        self.revision += 1
        self.notes = []
        self._checked = engine.check(stage, file=self._file)
        self._view = None
        self.events.publish("state", {"revision": self.revision})

    def undo(self) -> dict[str, Any]:
        """Go back one edit (the file is not touched until *Save*)."""
        with self._lock:
            if not self.history:
                raise SessionError("nothing to undo")
            stage, label = self.history.pop()
            self.future.append((self.stage, label))
            self._set(stage)
            return self.view()

    def redo(self) -> dict[str, Any]:
        """Make the last undone edit again."""
        with self._lock:
            if not self.future:
                raise SessionError("nothing to redo")
            stage, label = self.future.pop()
            self.history.append((self.stage, label))
            self._set(stage)
            return self.view()

    # --- the file ----------------------------------------------------------------------

    def _disk_digest(self) -> str | None:
        if self.path is None or not self.path.exists():
            return None
        try:
            return _digest(engine.read_file(self.path))
        except InputError:
            return None

    def save(self, *, force: bool = False) -> dict[str, Any]:
        """Write the stage to its file, atomically, in the file's own format.

        Raises
        ------
        Conflict
            If the file changed on disk since it was opened or saved (``force`` writes
            over it all the same: the page's *Keep mine*).
        SessionError
            If there is no file (a new stage without a name: *Export* it), or it cannot
            be written.
        """
        with self._lock:
            if self.path is None:
                raise SessionError(
                    "this stage has no file: start the studio with a file name "
                    "('trackkit studio my-stage.yaml') to save, or use Export"
                )
            if not force and self._disk_digest() != self._digest:
                self.disk = "changed"
                raise Conflict(
                    f"{self.path.name} changed on disk since it was opened: reload it, or "
                    "keep your version (Save writes over it)"
                )
            try:
                text = engine.rewrite(self.source, self.stage, self.format)
                losses = engine.editor_losses(self.source, self.stage, text)
                engine.write_atomic(self.path, text)
            except (InputError, OSError) as exc:
                raise SessionError(f"cannot save: {exc}") from None
            self._digest = _digest(text.encode("utf-8"))
            self.source = engine.parse(text, str(self.path))
            self.saved = self.stage
            self.disk = "same"
            self.notes = [f"saved {self.path.name}"] + [
                f"{self.path.name} ({self.format}) {item}" for item in losses
            ]
            return self.view()

    def reload(self) -> dict[str, Any]:
        """Read the file from disk again, as an edit that undo can take back.

        Raises
        ------
        SessionError
            If there is no file, or it cannot be read as a stage now.
        """
        with self._lock:
            if self.path is None:
                raise SessionError("this stage has no file to reload")
            try:
                data = engine.read_file(self.path)
                source = engine.parse_bytes(data, self.path)
            except InputError as exc:
                raise SessionError(f"cannot reload: {exc}") from None
            self.source = source
            self._digest = _digest(data)
            self.saved = source.stage
            self.disk = "same"
            self._commit(source.stage, f"reload {self.path.name}")
            self.notes = [f"reloaded {self.path.name} from disk"]
            return self.view()

    def keep(self) -> dict[str, Any]:
        """Keep the stage as edited here although the file changed on disk: the next
        *Save* writes over the file."""
        with self._lock:
            self._digest = self._disk_digest()
            self.disk = "same"
            self.notes = [
                f"kept your version: Save writes over {self.path.name if self.path else ''}"
            ]
            return self.view()

    def disk_changed(self) -> None:
        """The file may have changed on disk (file watching): reload it when nothing is
        edited here, else tell the page, which offers reload or keep."""
        with self._lock:
            if self.path is None:
                return
            if not self.path.exists():
                self.disk = "missing"
                self.events.publish("disk", {"disk": self.disk})
                return
            try:
                data = engine.read_file(self.path)
            except InputError:
                return  # being written, or unreadable for now: the next change tells
            if _digest(data) == self._digest:
                return  # our own save, or a touch
            if not self.dirty:
                try:
                    self.reload()
                except SessionError as exc:
                    self.disk = "unreadable"
                    self.notes = [str(exc)]
                    self.events.publish("disk", {"disk": self.disk, "message": str(exc)})
                    return
                self.events.publish("state", {"revision": self.revision, "reason": "reload"})
                return
            self.disk = "changed"
            self.events.publish("disk", {"disk": self.disk})

    # --- racing ------------------------------------------------------------------------

    def _sim_status(self) -> dict[str, Any]:
        s = self.sim
        return {
            "running": s.running,
            "done": s.done,
            "total": s.total,
            "error": s.error,
            "ready": s.text is not None,
            "stale": s.text is not None and s.revision != self.revision,
        }

    def simulate(self, data: Any, *, wait: bool = False) -> dict[str, Any]:
        """Start racing the stage in the background; progress and the end are events.

        Raises
        ------
        SessionError
            For a bad request, a simulation already running, or a stage with errors.
        """
        try:
            request = SimRequest.model_validate(data)
        except ValidationError as exc:
            raise SessionError(_edit_problem(exc)) from None
        unknown = [b for b in request.bots if b not in engine.bots()]
        if unknown:
            raise SessionError(f"unknown bot {unknown[0]!r} (bots: {', '.join(engine.bots())})")
        with self._lock:
            if self.sim.running:
                raise SessionError("a simulation is running: wait for it, or stop it")
            checked = self._checked
            if not checked.report.valid:
                raise SessionError(
                    f"the stage has {checked.report.errors} error(s): fix them before racing it"
                )
            self.sim = _Sim(request, self.revision, True, 0, request.races)
            sim = self.sim
            sim.thread = threading.Thread(
                target=self._race, args=(sim, checked, request), name="studio-simulate", daemon=True
            )
            sim.thread.start()
        if wait:
            sim.thread.join()
        return self._sim_status()

    def _race(self, sim: _Sim, checked: engine.Checked, request: SimRequest) -> None:
        step = max(1, request.races // _PROGRESS_STEPS)

        def progress(n: int) -> None:
            if sim.cancel.is_set():
                raise _Cancelled
            sim.done += n
            if sim.done % step == 0 or sim.done == sim.total:
                self.events.publish("progress", {"done": sim.done, "total": sim.total})

        try:
            doc = engine.simulate(
                checked,
                races=request.races,
                players=request.players,
                seed=request.seed,
                bots=tuple(request.bots),
                weather=request.weather,
                laps=request.laps,
                progress=progress,
            )
            text = engine.simulation_text(doc)
            svg = engine.heat_map(checked, doc)
        except _Cancelled:
            sim.error = "stopped"
        except (TrackkitError, ValueError) as exc:
            sim.error = str(exc)
        else:
            sim.text, sim.svg = text, svg
        finally:
            sim.running = False
            self.events.publish("sim", self._sim_status())

    def stop_simulation(self) -> dict[str, Any]:
        """Stop the simulation running (its races so far are dropped)."""
        self.sim.cancel.set()
        return self._sim_status()

    def simulation(self) -> dict[str, Any]:
        """The last simulation's report and heat map (None while there is none)."""
        s = self.sim
        return {**self._sim_status(), "text": s.text, "svg": s.svg, "revision": s.revision}

    # --- outputs -----------------------------------------------------------------------

    def export(self, name: str) -> tuple[str, str]:
        """The stage as a file of format ``name`` (rekee, rgt, yaml, json): its text and
        a file name for the download. Nothing is written on the server.

        Raises
        ------
        SessionError
            For an unknown format or a stage the format cannot hold.
        """
        if name not in engine.EXPORT_FORMATS:
            raise SessionError(f"unknown format {name[:20]!r}: {', '.join(engine.EXPORT_FORMATS)}")
        fmt, ending = engine.EXPORT_FORMATS[name]
        with self._lock:
            stage = self.stage
        try:
            text = engine.dump(stage, fmt)
        except (TrackkitError, ValueError) as exc:
            raise SessionError(f"cannot export: {exc}") from None
        return text, _file_name(stage.name, self.path) + ending

    def print_pdf(self, paper: str) -> tuple[bytes, str]:
        """The true-scale print of the stage as a PDF, and a file name for it.

        Raises
        ------
        SessionError
            For an unknown paper or a print too large.
        """
        if paper not in ("a4", "letter", "a3"):
            raise SessionError(f"unknown paper {paper[:20]!r}: a4, letter or a3")
        with self._lock:
            checked = self._checked
        if not checked.layout.chain:
            raise SessionError("the stage has no tiles to print yet")
        try:
            pdf = engine.print_pdf(checked, paper)
        except (TrackkitError, ValueError) as exc:
            raise SessionError(f"cannot print: {exc}") from None
        return pdf, _file_name(checked.stage.name, self.path) + f"-{paper}.pdf"


def _file_name(name: str, path: Path | None) -> str:
    """A safe download name: the file's stem, else the stage name in plain letters."""
    stem = path.name.split(".")[0] if path is not None else name
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in stem).strip("-")
    return safe[:60] or "stage"


def _edit_problem(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"])
        parts.append(f"{where}: {err['msg']}" if where else str(err["msg"]))
    return "not a valid request: " + "; ".join(parts)
