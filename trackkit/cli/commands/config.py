"""``trackkit config``: settings kept once in the user config folder (trackkit.config)."""

from __future__ import annotations

from typing import Annotated

import typer

from trackkit.cli.commands.common import fail
from trackkit.cli.commands.render import DEFAULT_TILE_SIZE_MM as _DEFAULT_MM
from trackkit.errors import InputError

config_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help="Your settings, kept in a small file in your user config folder "
    "('trackkit config show' names it): the size of your tiles.",
)


def _size_text(size: float | None) -> str:
    if size is None:
        return (
            f"{_DEFAULT_MM:g} mm (not set: the library's assumed size; measure your tiles "
            "across flats and run 'trackkit config tile-size MM')"
        )
    return f"{size:g} mm"


@config_app.command("show")
def show() -> None:
    """Print where the settings file is and every setting in it."""
    from trackkit.config import CONFIG_DIR_ENV, config_path, load_settings

    path = config_path()
    try:
        settings = load_settings(path)
    except InputError as exc:
        raise fail(str(exc)) from None
    if path is None:
        where = f"none (no user config folder; set ${CONFIG_DIR_ENV})"
    else:
        where = f"{path}" + ("" if path.exists() else " (not written yet)")
    typer.echo(f"settings file: {where}")
    typer.echo(f"tile-size: {_size_text(settings.tile_size)}")


@config_app.command("tile-size")
def tile_size(
    mm: Annotated[
        float | None,
        typer.Argument(
            metavar="MM",
            min=20.0,
            max=1000.0,
            show_default=False,
            help="The size of your tiles in mm, flat edge to the opposite flat edge. "
            "Left out: print the size in use.",
        ),
    ] = None,
    unset: Annotated[
        bool,
        typer.Option("--unset", help="Forget your size: back to the library's assumed 240 mm."),
    ] = False,
) -> None:
    """Set the size of your tiles once: 'trackkit print' and 'trackkit render' (and the
    studio) draw at it, unless a run gives --tile-size. Measure a tile from one flat edge
    to the opposite one (not corner to corner).
    """
    from trackkit.config import config_path, load_settings, save_settings

    if mm is not None and unset:
        raise fail("give a size or --unset, not both")
    path = config_path()
    try:
        settings = load_settings(path)
        if mm is None and not unset:
            typer.echo(f"tile-size: {_size_text(settings.tile_size)}")
            return
        written = save_settings(settings.model_copy(update={"tile_size": mm}), path)
    except InputError as exc:
        raise fail(str(exc)) from None
    if mm is None:
        typer.echo(f"tile-size unset in {written}: print and render use {_DEFAULT_MM:g} mm")
    else:
        typer.echo(
            f"tile-size set to {mm:g} mm in {written}: print and render use it "
            "unless a run gives --tile-size"
        )
