"""trackkit's build backend: setuptools', plus what the opt-in compiled build needs.

``pyproject.toml`` names this module as its PEP 517 backend. It is
``setuptools.build_meta`` unchanged, except that with ``TRACKKIT_COMPILE=1`` (``setup.py``)
a wheel's build also requires mypy (whose mypyc compiles) and the libraries that mypy reads
the types of while it compiles (the project's own dependencies, the pydantic plugin of
``[tool.mypy]``, PyYAML's stubs). Without it, the build needs setuptools only and the
package is pure Python. An editable install is always pure: its modules are the checkout's
files, edited in place, which compiled copies beside them would shadow.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import get_requires_for_build_sdist

__all__ = [
    "BUILD_DIR",
    "SWITCH",
    "build_editable",
    "build_sdist",
    "build_wheel",
    "compiling",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
]

#: The switch: ``TRACKKIT_COMPILE=1`` compiles (``setup.py``), any other value does not.
SWITCH = "TRACKKIT_COMPILE"

#: Where the compiled build's setuptools and mypyc write (its own folder: ``make compiled``
#: empties it, so that no extension module of an earlier build goes into the next wheel).
BUILD_DIR = "build/mypyc"

#: Besides the project's dependencies: the compiler (the major version this build was made
#: with: mypyc's output may change with the next), and the stubs that ``[tool.mypy]`` reads.
COMPILE_REQUIRES = ["mypy>=2.4,<3", "types-PyYAML"]


def compiling() -> bool:
    """Whether this build compiles (``TRACKKIT_COMPILE=1``; ``setup.py`` asks here too)."""
    return os.environ.get(SWITCH, "") == "1"


def _missing_for_compiling() -> str | None:
    """What compiling needs and this machine lacks (a C compiler, the Python headers)."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(cc)
    if not words or shutil.which(words[0]) is None:
        return f"a C compiler ({cc!r} is not on PATH; set CC to another)"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():
        return f"the Python headers ({headers} is missing; Debian: python3-dev)"
    return None


def _compile_requires() -> list[str]:
    """mypy and every dependency of the project (mypy reads their types as it compiles)."""
    project = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [*COMPILE_REQUIRES, *project["dependencies"]]


@contextmanager
def _pure() -> Iterator[None]:
    """``TRACKKIT_COMPILE`` unset meanwhile (put back after)."""
    was = os.environ.pop(SWITCH, None)
    try:
        yield
    finally:
        if was is not None:
            os.environ[SWITCH] = was


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements, and the compiler's with ``TRACKKIT_COMPILE=1``."""
    if not compiling():
        return build_meta.get_requires_for_build_wheel(config_settings)
    # setuptools runs setup.py to read its setup_requires: pure, as mypy is not there yet
    with _pure():
        own = build_meta.get_requires_for_build_wheel(config_settings)
    return [*own, *_compile_requires()]


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """setuptools' wheel (``setup.py`` compiles with ``TRACKKIT_COMPILE=1``).

    Raises
    ------
    SystemExit
        When compiling and this machine lacks a C compiler or the Python headers: said in
        one line, with what to install or to unset (before mypy's minute of work, not after).
    """
    if compiling():
        missing = _missing_for_compiling()
        if missing is not None:
            raise SystemExit(
                f"trackkit: {SWITCH}=1 needs {missing}; unset {SWITCH} to build the pure "
                "package, which needs neither"
            )
    return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements: an editable install is pure."""
    with _pure():
        return build_meta.get_requires_for_build_editable(config_settings)


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """setuptools' editable wheel, pure whatever ``TRACKKIT_COMPILE`` says."""
    if compiling():
        print(
            f"trackkit: {SWITCH}=1 ignored: an editable install is pure Python "
            "(build a wheel, or install without -e, to compile)",
            file=sys.stderr,
        )
    with _pure():
        return build_meta.build_editable(wheel_directory, config_settings, metadata_directory)


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    """setuptools' metadata, which compiling does not change (so mypyc runs once, to build)."""
    with _pure():
        return build_meta.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: dict[str, Any] | None = None
) -> str:
    """setuptools' metadata of the (pure) editable install."""
    with _pure():
        return build_meta.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    """setuptools' source distribution (sources: compiling is a wheel's business)."""
    with _pure():
        return build_meta.build_sdist(sdist_directory, config_settings)
