"""The tile library's cache is a convenience: a cache folder trackkit cannot use, or a cache
file that is not what trackkit wrote, means no cache, without a traceback or a hang.

Run in child processes (the cache folder comes from HOME / XDG_CACHE_HOME at start-up),
with a time limit, since a FIFO in place of the cache file used to hang every command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from stagekit import REPO

EXAMPLE = str(REPO / "examples" / "col-de-turini.yaml")
POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX folders and FIFOs")


def as_user(user: int | None) -> list[str]:
    """The command prefix that runs a child as ``user`` (None: as we are)."""
    if user is None:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("needs setpriv to run a child as another user")
    return [setpriv, f"--reuid={user}", f"--regid={user}", "--clear-groups"]


def run(env: dict[str, str], *, user: int | None = None) -> subprocess.CompletedProcess[str]:
    """``trackkit validate EXAMPLE`` with ``env`` over a clean environment."""
    base = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME")}
    base.pop("TRACKKIT_NO_CACHE", None)
    try:
        return subprocess.run(
            [*as_user(user), sys.executable, "-m", "trackkit", "validate", EXAMPLE],
            env=base | env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("trackkit hung on its cache")


def works_quietly(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # not even a warning: the cache is only a speed-up
    assert "valid (0 errors" in done.stdout


@POSIX
def test_a_read_only_home_means_no_cache(tmp_path: Path) -> None:
    # /proc cannot be written, not even by root: HOME read-only for everyone
    works_quietly(run({"HOME": "/proc"}))


@POSIX
def test_a_cache_folder_below_a_file_means_no_cache(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    works_quietly(run({"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "file" / "c")}))


@POSIX
def test_the_home_folder_of_another_user_means_no_cache(tmp_path: Path) -> None:
    home = tmp_path / "someone-else"
    home.mkdir(mode=0o755)
    user = 65534 if os.geteuid() == 0 else None  # root: run as 'nobody' in root's folder
    if user is None:
        home.chmod(0o555)  # not root: a folder we cannot write stands for another's
    try:
        done = run({"HOME": str(home)}, user=user)
        if user is not None and done.returncode != 0 and "ermission denied" in done.stderr:
            pytest.skip(f"cannot run Python as user {user} here: {done.stderr[-200:]}")
        works_quietly(done)
        assert not (home / ".cache").exists()
    finally:
        home.chmod(0o755)


@pytest.fixture(scope="module")
def cache_name(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The name trackkit gives its cache file (one run writes it)."""
    home = tmp_path_factory.mktemp("home")
    works_quietly(run({"HOME": str(home), "XDG_CACHE_HOME": str(home / "cache")}))
    (cache,) = (home / "cache" / "trackkit").glob("tiles-*.json")
    return cache.name


@POSIX
@pytest.mark.parametrize(
    "planted", ["fifo", "folder", "deep", "garbage", "huge", "number", "empty-list", "one-box"]
)
def test_a_cache_file_that_is_not_a_cache_is_not_used(
    tmp_path: Path, planted: str, cache_name: str
) -> None:
    env = {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    cache = tmp_path / "cache" / "trackkit" / cache_name  # where trackkit looks for it
    cache.parent.mkdir(parents=True)
    if planted == "fifo":
        os.mkfifo(cache)
    elif planted == "folder":
        cache.mkdir()
    elif planted == "deep":
        cache.write_text("[" * 100_000, encoding="utf-8")
    elif planted == "garbage":
        cache.write_bytes(b"\x00\xff not json")
    elif planted == "number":
        cache.write_text("5", encoding="utf-8")
    elif planted == "empty-list":  # would load an empty library: every tile unknown
        cache.write_text("[]", encoding="utf-8")
    elif planted == "one-box":  # valid tile sets, but not all of them
        import json

        from trackkit.tiles.library import TileLibrary

        lib = TileLibrary.load(cache=False)
        one = lib.tilesets["dirt-core"].model_dump(mode="json", by_alias=True)
        cache.write_text(json.dumps([one]), encoding="utf-8")
    else:
        with cache.open("wb") as fh:
            fh.truncate(64 * 1024 * 1024)
    works_quietly(run(env))
    leftovers = [p.name for p in cache.parent.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
