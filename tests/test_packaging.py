"""The package as a user installs it: a wheel, in a clean virtual environment, run elsewhere.

The wheel must carry the tile library and rulesets as package data and read them through
``importlib.resources``: nothing may depend on the source checkout beside it. The install
test builds the wheel, makes a fresh venv in a temporary folder (outside the repo), installs
the wheel there with its dependencies from the package index, and runs the commands a new
user runs first, from another folder. It takes about 15 s; ``make test`` runs it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest
from stagekit import REPO

import trackkit

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_subpackage_is_listed_in_pyproject() -> None:
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "trackkit").rglob("__init__.py")
    }
    assert on_disk | {"trackkit.tile_library"} == listed


def test_version_has_one_source() -> None:
    assert "version" in PYPROJECT["project"]["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "trackkit.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", trackkit.__version__)


def test_the_announced_license_file_exists() -> None:
    for name in PYPROJECT["project"]["license-files"]:
        assert "MIT License" in (REPO / name).read_text(encoding="utf-8")


def _run(cmd: list[str | Path], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, REPO],
        cwd=out,
        env={k: v for k, v in os.environ.items() if k != "TRACKKIT_COMPILE"},  # the pure wheel
    )
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("trackkit-*.whl")
    return path


@pytest.mark.slow
def test_the_wheel_holds_the_library_but_not_its_sources(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    shipped = {Path(n).name for n in names if n.startswith("trackkit/tile_library/")}
    expected = {p.name for p in (REPO / "tile_library").glob("*.yaml")}
    assert expected <= shipped
    assert "ruleset-dirt.yaml" in shipped
    assert not [n for n in names if "/sources/" in n or n.endswith(".csv")]
    assert any(n.endswith("licenses/LICENSE") for n in names)
    assert "trackkit/py.typed" in names
    studio = {"index.html", "studio.js", "studio.css", "favicon.svg"}
    assert {f"trackkit/studio/static/{n}" for n in studio} <= set(names)  # the studio's page
    # pure Python by default: no extension module, so the wheel is for every platform
    assert not [n for n in names if n.endswith((".so", ".pyd", ".c"))]
    assert wheel.name.endswith("-py3-none-any.whl")


@pytest.mark.slow
def test_an_installed_wheel_works_from_another_folder(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    # without pip of its own (ensurepip: seconds): this pip installs into it (--python)
    venv.create(env_dir, with_pip=False)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}
    }
    env |= {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    pip = [sys.executable, "-m", "pip", "--python", bin_dir / "python", "install", "-q", wheel]
    done = _run(pip, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr

    work = tmp_path / "elsewhere"
    work.mkdir()
    stage = work / "stage.yaml"
    stage.write_bytes((REPO / "examples" / "col-de-turini.yaml").read_bytes())
    exe = bin_dir / "trackkit"

    def trackkit_(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return _run([exe, *args], cwd=work, env=env)

    done = trackkit_("--version")
    want = f"trackkit {trackkit.__version__} (pure build)"  # the wheel of pip wheel .: pure
    assert done.returncode == 0 and done.stdout.strip() == want
    done = trackkit_("validate", stage)
    assert done.returncode == 0, done.stderr
    assert "valid" in done.stdout
    done = trackkit_("validate", stage, "--format", "json")
    assert '"valid": true' in done.stdout
    done = trackkit_("tiles", "--box", "dirt-core")
    assert done.returncode == 0 and "217a" in done.stdout
    done = trackkit_("render", stage, "-o", work / "map.svg")
    assert done.returncode == 0, done.stderr
    assert (work / "map.svg").read_text(encoding="utf-8").startswith("<svg")
    done = trackkit_("render", stage, "-o", work / "map.png", "--px", "400")
    assert done.returncode == 0, done.stderr
    assert (work / "map.png").read_bytes().startswith(b"\x89PNG")
    done = trackkit_("simulate", stage, "--races", "2", "--seed", "1", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert '"races": 2' in done.stdout
    # It ran from the wheel, not from the checkout, and cached the library under HOME.
    done = _run(
        [bin_dir / "python", "-c", "import trackkit, sys; sys.stdout.write(trackkit.__file__)"],
        cwd=work,
        env=env,
    )
    assert str(env_dir) in done.stdout and str(REPO) not in done.stdout
    assert list((home / ".cache" / "trackkit").glob("tiles-*.json"))


def _backend_requires(compile_switch: str | None) -> list[str]:
    """What build_backend/trackkit_build.py asks for a wheel's build, with the switch set so."""
    env = {k: v for k, v in os.environ.items() if k != "TRACKKIT_COMPILE"}
    if compile_switch is not None:
        env["TRACKKIT_COMPILE"] = compile_switch
    ask = (
        "import json, sys; sys.path.insert(0, 'build_backend'); import trackkit_build; "
        "print(json.dumps(trackkit_build.get_requires_for_build_wheel()))"
    )
    done = _run([sys.executable, "-c", ask], cwd=REPO, env=env)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout.splitlines()[-1]))


def test_the_build_backend_asks_for_the_compiler_only_when_told_to_compile() -> None:
    assert PYPROJECT["build-system"]["build-backend"] == "trackkit_build"
    needs = {
        re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0].lower()
        for r in PYPROJECT["project"]["dependencies"]
    }
    pure = _backend_requires(None)
    assert not [r for r in pure if r.startswith("mypy")]
    assert _backend_requires("0") == pure  # only "1" compiles
    compiling = _backend_requires("1")
    assert compiling[: len(pure)] == pure
    names = {re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0].lower() for r in compiling}
    # mypyc compiles; mypy reads the types of every dependency and PyYAML's stubs meanwhile
    assert {"mypy", "types-pyyaml"} | needs <= names


def test_compiling_without_a_c_compiler_says_so_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "TRACKKIT_COMPILE"}
    env |= {"TRACKKIT_COMPILE": "1", "CC": "no-such-compiler-here"}
    ask = (
        "import sys; sys.path.insert(0, 'build_backend'); import trackkit_build; "
        f"trackkit_build.build_wheel({str(tmp_path)!r})"
    )
    done = _run([sys.executable, "-c", ask], cwd=REPO, env=env)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "TRACKKIT_COMPILE=1 needs a C compiler ('no-such-compiler-here'" in done.stderr
    assert "unset TRACKKIT_COMPILE" in done.stderr
    assert not list(tmp_path.iterdir())  # nothing written
