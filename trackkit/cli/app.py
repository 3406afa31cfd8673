"""The ``trackkit`` command line: thin typer commands over plain functions.

Each command lives in its own module under :mod:`trackkit.cli.commands`; this module only
registers them. Only the command layer exits the process. Exit status: 0 success / every
stage valid (warnings allowed), 1 a stage has errors, 2 unusable input (DESIGN.md).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Annotated, Any, TextIO, cast

import typer

from trackkit import __version__, interrupt
from trackkit.cli.commands import (
    car,
    config,
    convert,
    generate,
    print_,
    render,
    schema,
    sheet,
    simulate,
    studio,
    tiles,
    validate,
)
from trackkit.errors import TrackkitError

#: The settings of the root app (the whole one and the one of a single command alike).
_APP_SETTINGS: dict[str, Any] = {
    "no_args_is_help": True,
    "help": "Design, validate, print, simulate and generate Rallyman: DIRT stages and GT tracks.",
    "pretty_exceptions_enable": False,
    "rich_markup_mode": "markdown",
    "context_settings": {"help_option_names": ["-h", "--help"]},
}


def _show_version(value: bool) -> None:
    if value:
        from trackkit.build import build_name

        typer.echo(f"trackkit {__version__} ({build_name()} build)")
        raise typer.Exit()


def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_show_version,
            is_eager=True,
            help="Print trackkit's version and build (pure, or compiled: TRACKKIT_COMPILE=1) "
            "and exit.",
        ),
    ] = False,
) -> None:
    """Design, validate, print, simulate and generate Rallyman: DIRT stages and GT tracks.

    Shell completion: `trackkit --install-completion` (bash, zsh, fish, PowerShell).
    """
    # typer puts its own excepthook in place each time the app is called
    sys.excepthook = _quiet_interrupts(sys.excepthook)


tiles_app = typer.Typer(
    help="List and describe the tile faces of the library.", rich_markup_mode="markdown"
)
tiles_app.callback(invoke_without_command=True)(tiles.tiles)
tiles_app.command("show")(tiles.tiles_show)
tiles_app.command("sheet")(sheet.tiles_sheet)

#: Every command of the command line by name, in the order ``--help`` lists them: the
#: function of a command, or the app of a command group.
COMMANDS: dict[str, Callable[..., None] | typer.Typer] = {
    "validate": validate.validate,
    "tiles": tiles_app,
    "schema": schema.schema,
    "convert": convert.convert,
    "simulate": simulate.simulate,
    "replay": simulate.replay_cmd,
    "render": render.render,
    "print": print_.print_stage,
    "generate": generate.generate,
    "car": car.car_app,
    "studio": studio.studio,
    "config": config.config_app,
}


def _build(names: Iterable[str]) -> typer.Typer:
    """A root app with the commands ``names`` (of :data:`COMMANDS`)."""
    built = typer.Typer(**_APP_SETTINGS)
    built.callback()(_main)
    for name in names:
        command = COMMANDS[name]
        if isinstance(command, typer.Typer):
            built.add_typer(command, name=name)
        else:
            built.command(name)(command)
    return built


#: The whole command line (what ``--help`` shows and the tests run).
app = _build(COMMANDS)


def app_for(args: Sequence[str]) -> typer.Typer:
    """The app that runs the command line ``args``: one with only the command they name
    when they start with one, else the whole :data:`app`.

    Typer turns every command's options into click's on each run; for all the commands
    that is a twentieth of a second of a plain ``validate``, spent on commands not run.
    A command's own help, usage and errors are the same in either app. Shell completion
    (typer's ``_..._COMPLETE`` variable) needs every command: it gets the whole app.
    """
    completing = any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ)
    if args and args[0] in COMMANDS and not completing:
        return _build([args[0]])
    return app


class OutputError(TrackkitError):
    """Standard output cannot be written (a full disk, ``> /dev/full``, a closed pipe)."""

    def __init__(self, exc: OSError) -> None:
        super().__init__(f"cannot write output: {exc.strerror or exc}")
        self.closed_pipe = isinstance(exc, BrokenPipeError)


class _GuardedStream:
    """Standard output that turns a failed write into :class:`OutputError` (and knows
    whether anything was written)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.written = False

    def write(self, text: str) -> int:
        self.written = self.written or bool(text)
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise OutputError(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise OutputError(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _RecordedStream:
    """Standard error as it is, keeping what was written (the usage error of a JSON run)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.text: list[str] = []

    def write(self, text: str) -> int:
        if sum(map(len, self.text)) < 64_000:
            self.text.append(text)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _wants_json(argv: list[str]) -> bool:
    """Whether the command line asks for ``--format json``."""
    return "--format=json" in argv or any(
        a == "--format" and b == "json" for a, b in itertools.pairwise(argv)
    )


def _usage_message(text: str) -> str:
    """The message of a usage error as the command line framed it (box lines dropped)."""
    lines = []
    for line in text.splitlines():
        words = line.strip(" │╭╮╰╯─\t")
        if words and not words.startswith(("Usage:", "Try ", "Error")):
            lines.append(" ".join(words.split()))
    return " ".join(lines) or "usage error"


def _interrupt(signum: int, frame: object) -> None:
    interrupt.request()


def _quiet_interrupts(previous: Callable[..., object]) -> Callable[..., object]:
    """An excepthook that prints nothing for :class:`~trackkit.interrupt.Interrupted`.

    A C extension being imported when Ctrl-C lands (numpy under shapely) prints the
    exception through ``sys.excepthook`` and raises an ImportError of its own instead.
    """

    def hook(kind: type[BaseException], value: BaseException, tb: object) -> None:
        if not issubclass(kind, interrupt.Interrupted):
            previous(kind, value, tb)

    return hook


def _quiet_unraisable(previous: Callable[[Any], object]) -> Callable[[Any], object]:
    """An unraisablehook that prints nothing for :class:`~trackkit.interrupt.Interrupted`.

    A Ctrl-C landing while C code runs a Python check it cannot pass an exception out of
    (numpy asking a number for its array interface) is "ignored" there with a traceback;
    the interruption is still asked for, and :func:`trackkit.interrupt.check` raises it
    before any output is written.
    """

    def hook(unraisable: Any) -> None:
        if not isinstance(getattr(unraisable, "exc_value", None), interrupt.Interrupted):
            previous(unraisable)

    return hook


def _report(exc: TrackkitError) -> None:
    # A reader that stopped early (``trackkit tiles | head``) needs no message.
    if not (isinstance(exc, OutputError) and exc.closed_pipe):
        typer.echo(f"trackkit: error: {exc}", err=True)


def main() -> None:
    """Console entry point: exit 0, 1 or 2 with one message, 130 on Ctrl-C; no traceback."""
    real_stdout, real_stderr = sys.stdout, sys.stderr
    out = _GuardedStream(real_stdout)
    err = _RecordedStream(real_stderr)
    sys.stdout, sys.stderr = cast(TextIO, out), cast(TextIO, err)
    interrupt.reset()
    previous = signal.signal(signal.SIGINT, _interrupt)
    previous_hook = sys.excepthook
    sys.excepthook = _quiet_interrupts(previous_hook)
    previous_unraisable = sys.unraisablehook
    sys.unraisablehook = _quiet_unraisable(previous_unraisable)
    code = 0
    try:
        app_for(sys.argv[1:])()
    except SystemExit as exc:  # typer's own exit, with the command's status
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        if interrupt.requested():  # a Ctrl-C some native code swallowed
            typer.echo("trackkit: interrupted", err=True)
            code = 130
    except interrupt.Interrupted:
        typer.echo("trackkit: interrupted", err=True)
        code = 130
    except TrackkitError as exc:
        # pydantic's validators turn a Ctrl-C that lands inside them into a validation
        # error of their own: that is an interruption, not a broken file
        if interrupt.requested():
            typer.echo("trackkit: interrupted", err=True)
            code = 130
        else:
            _report(exc)
            code = 2
    except Exception:
        # a Ctrl-C swallowed by native code that then failed its own way (an import)
        if not interrupt.requested():
            sys.stdout = real_stdout  # a defect in trackkit: its traceback goes out as it is
            raise
        typer.echo("trackkit: interrupted", err=True)
        code = 130
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.excepthook = previous_hook
        sys.unraisablehook = previous_unraisable
        sys.stderr = real_stderr
    if code == 2 and not out.written and _wants_json(sys.argv[1:]):
        # a usage error (an option's value refused before the command ran): stdout still
        # gets its one JSON document
        message = _usage_message("".join(err.text))
        with contextlib.suppress(OutputError):
            typer.echo(json.dumps({"error": {"file": None, "message": message, "exit_status": 2}}))
    try:
        sys.stdout.flush()
    except OutputError as exc:
        _report(exc)
        code = 2
    finally:
        sys.stdout = real_stdout
    with contextlib.suppress(OSError):  # already reported: nothing more can go there
        real_stdout.flush()
    sys.exit(code)
