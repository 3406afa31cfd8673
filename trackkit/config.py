"""The user's own settings, set once: ``trackkit config`` (and read by the studio).

One small YAML file, ``config.yaml``, in trackkit's folder of the user config folder
(``platformdirs``: ``~/.config/trackkit`` on Linux, ``~/Library/Application Support/trackkit``
on macOS, ``%LOCALAPPDATA%\\trackkit`` on Windows; ``$TRACKKIT_CONFIG_DIR`` names another
folder)::

    # trackkit settings, written by 'trackkit config'
    tile-size: 240

Settings
--------
``tile-size``
    The size of the user's tiles in millimetres, across flats (flat edge to the opposite
    flat edge). ``trackkit print`` and ``trackkit render`` draw at this size when no
    ``--tile-size`` is given; the studio calls :func:`tile_size`. Unset, the library's
    default of 240 mm applies: no published source states the size of the tiles (see
    ``docs/rules.md``, "Tile size"), so measure yours.

The library itself never reads this file: ``lay_out(stage, size=...)`` takes the size it
is given. Only the command line and the studio ask :func:`tile_size`.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> path = save_settings(Settings(tile_size=250), folder / "config.yaml")
>>> load_settings(path).tile_size
250.0
>>> import shutil; shutil.rmtree(folder)
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

from pydantic import Field, ValidationError

from trackkit.errors import InputError
from trackkit.formats.source import read_input
from trackkit.models.base import StrictModel
from trackkit.road.geometry import DEFAULT_TILE_SIZE_MM

__all__ = [
    "CONFIG_DIR_ENV",
    "CONFIG_NAME",
    "MAX_TILE_SIZE_MM",
    "MIN_TILE_SIZE_MM",
    "Settings",
    "config_dir",
    "config_path",
    "load_settings",
    "save_settings",
    "tile_size",
]

#: Environment variable naming the folder of the settings file instead of the user's.
CONFIG_DIR_ENV = "TRACKKIT_CONFIG_DIR"
#: Name of the settings file in that folder.
CONFIG_NAME = "config.yaml"
#: The tile sizes (mm, across flats) trackkit accepts, the same as ``--tile-size``.
MIN_TILE_SIZE_MM = 20.0
MAX_TILE_SIZE_MM = 1000.0
_HEADER = "# trackkit settings, written by 'trackkit config' (trackkit config show)\n"
#: A settings file larger than this is not one trackkit wrote.
_MAX_BYTES = 64_000


class Settings(StrictModel):
    """The user's settings (``config.yaml``); a setting left out is unset."""

    tile_size: float | None = Field(
        default=None,
        alias="tile-size",
        ge=MIN_TILE_SIZE_MM,
        le=MAX_TILE_SIZE_MM,
        allow_inf_nan=False,
        strict=True,
        description="Size of the user's tiles in mm, flat edge to the opposite flat edge "
        "(default when unset: 240, the library's assumed size).",
    )


def config_dir() -> Path | None:
    """trackkit's folder in the user config folder, or None when there is no home folder.

    ``$TRACKKIT_CONFIG_DIR`` overrides it (tests point it to a temporary folder).
    """
    env = os.environ.get(CONFIG_DIR_ENV)
    if env:
        return Path(env)
    import platformdirs

    try:
        return Path(platformdirs.user_config_dir("trackkit", appauthor=False))
    except (OSError, RuntimeError, KeyError):  # no home folder
        return None


def config_path() -> Path | None:
    """The settings file (it may not exist yet), or None without a config folder."""
    folder = config_dir()
    return None if folder is None else folder / CONFIG_NAME


def load_settings(path: Path | None = None) -> Settings:
    """The settings in ``path`` (default: :func:`config_path`); none set if it is missing.

    Raises
    ------
    InputError
        If the file cannot be read, is not YAML, or holds an unknown setting or a bad
        value; the message names the file, the setting and how to fix it.
    """
    import yaml

    path = path if path is not None else config_path()
    if path is None:
        return Settings()
    fix = "fix the file, or remove it to go back to the defaults"
    try:
        os.stat(path)
    except FileNotFoundError:
        return Settings()
    except OSError:
        pass  # read_input names the problem
    # the one reader of files: a regular file only (a FIFO or a device is refused before
    # anything is read from it), at most the limit
    _file, data = read_input(path, what="trackkit settings file", limit=_MAX_BYTES)
    try:
        doc = yaml.safe_load(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(str(path), f"the settings file is not UTF-8 text; {fix}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not YAML"
        raise InputError(str(path), f"{where}{problem}; {fix}") from None
    if doc is None:
        return Settings()
    if not isinstance(doc, dict):
        raise InputError(
            str(path), f"the file must hold 'key: value' lines (as 'tile-size: 240'); {fix}"
        )
    try:
        return Settings.model_validate(doc)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"]) or "settings"
            if err["type"] == "extra_forbidden":
                known = ", ".join(f.alias or n for n, f in Settings.model_fields.items())
                problems.append(f"unknown setting '{key}' (settings: {known})")
            else:
                problems.append(
                    f"'{key}': {err['msg'].lower()} (a size in mm from "
                    f"{MIN_TILE_SIZE_MM:g} to {MAX_TILE_SIZE_MM:g}, as 'tile-size: 240')"
                )
        raise InputError(str(path), "; ".join(problems) + f"; {fix}") from None


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write ``settings`` to ``path`` (default: :func:`config_path`) atomically.

    The file is written beside its final place and then moved over it, so a reader never
    sees half a file and a failed write leaves the old settings as they were.

    Raises
    ------
    InputError
        If there is no config folder or the file cannot be written.
    """
    import yaml

    path = path if path is not None else config_path()
    if path is None:
        raise InputError("trackkit config", f"no user config folder: set ${CONFIG_DIR_ENV}")
    doc = settings.model_dump(by_alias=True, exclude_none=True)
    if isinstance(doc.get("tile-size"), float) and float(doc["tile-size"]).is_integer():
        doc["tile-size"] = int(doc["tile-size"])  # 240, not 240.0
    text = _HEADER + (yaml.safe_dump(doc, sort_keys=False) if doc else "")
    temp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w",
            encoding="utf-8",
            dir=path.parent,
            prefix=f".{path.name}.",
            suffix=".tmp",
            delete=False,
        ) as handle:
            temp = handle.name
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
        temp = None
    except OSError as exc:
        raise InputError(
            str(path), f"cannot write the settings file: {exc.strerror or exc}"
        ) from None
    finally:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
    return path


def tile_size() -> float:
    """The size of the user's tiles (mm, across flats): their setting, else 240 mm.

    What ``trackkit print``, ``trackkit render`` and the studio draw at when no size is
    given for one run.

    Raises
    ------
    InputError
        If the settings file is unusable (the message names it).
    """
    size = load_settings().tile_size
    if size is None or not math.isfinite(size):
        return DEFAULT_TILE_SIZE_MM
    return size
