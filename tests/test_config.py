"""The user's own tile size, set once (issue 19): ``trackkit config`` and trackkit.config.

Every test runs with ``$TRACKKIT_CONFIG_DIR`` pointing to a folder of its own (see
conftest.py): the user's real settings are never read or written.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trackkit import config
from trackkit.cli.app import app
from trackkit.errors import InputError
from trackkit.road.geometry import DEFAULT_TILE_SIZE_MM

REPO = Path(__file__).resolve().parents[1]
TURINI = REPO / "examples" / "col-de-turini.yaml"
NS = "{http://www.w3.org/2000/svg}"
runner = CliRunner()


def run(*args: object) -> tuple[int, str, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def hex_across_flats(svg: str) -> float:
    """Flat edge to flat edge of the first tile hexagon of a map (mm)."""
    root = ET.fromstring(svg)
    hexagon = next(p for p in root.iter(f"{NS}polygon") if p.get("class") == "hex")
    pts = [float(v) for v in re.split(r"[ ,]+", hexagon.get("points", "").strip())]
    corners = list(zip(pts[::2], pts[1::2], strict=True))
    return math.dist(corners[0], corners[3]) * math.sqrt(3) / 2  # corner to corner x √3/2


def test_the_tests_never_see_the_users_real_config_folder(_own_config_folder: Path) -> None:
    assert config.config_dir() == _own_config_folder
    assert config.config_path() == _own_config_folder / config.CONFIG_NAME
    assert os.environ[config.CONFIG_DIR_ENV] == str(_own_config_folder)


def test_unset_the_tile_size_is_the_librarys_default() -> None:
    assert config.load_settings().tile_size is None
    assert config.tile_size() == DEFAULT_TILE_SIZE_MM
    code, out, _ = run("config", "show")
    assert code == 0 and "not written yet" in out and "tile-size: 240 mm (not set" in out


def test_config_tile_size_is_written_once_and_read_by_the_library() -> None:
    code, out, _ = run("config", "tile-size", "250")
    assert code == 0, out
    path = config.config_path()
    assert path is not None and path.is_file()
    assert "tile-size: 250" in path.read_text(encoding="utf-8")
    assert config.tile_size() == 250.0  # what the studio calls
    code, out, _ = run("config", "tile-size")
    assert (code, out.strip()) == (0, "tile-size: 250 mm")
    code, out, _ = run("config", "show")
    assert code == 0 and str(path) in out and "tile-size: 250 mm" in out
    # no temporary file is left beside it
    assert [p.name for p in path.parent.iterdir()] == [config.CONFIG_NAME]
    code, out, _ = run("config", "tile-size", "--unset")
    assert code == 0 and config.tile_size() == DEFAULT_TILE_SIZE_MM


def test_render_and_print_use_the_setting_and_the_option_overrides_it(tmp_path: Path) -> None:
    assert run("config", "tile-size", "200")[0] == 0
    out = tmp_path / "map.svg"
    code, text, err = run("render", TURINI, "-o", out)
    assert code == 0, err
    assert "of 200 mm" in text
    assert hex_across_flats(out.read_text(encoding="utf-8")) == pytest.approx(200.0, abs=0.05)
    code, text, err = run("render", TURINI, "-o", out, "--tile-size", "180")
    assert code == 0, err
    assert hex_across_flats(out.read_text(encoding="utf-8")) == pytest.approx(180.0, abs=0.05)
    pages = tmp_path / "print.svg"
    code, text, err = run("print", TURINI, "-o", pages)
    assert code == 0, err
    assert "tiles 200 mm" in text
    page = sorted(tmp_path.glob("print-page-*.svg"))[0]
    assert hex_across_flats(page.read_text(encoding="utf-8")) == pytest.approx(200.0, abs=0.05)
    code, text, err = run("print", TURINI, "-o", tmp_path / "other.svg", "--tile-size", "160")
    assert code == 0 and "tiles 160 mm" in text, err


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("tile-size: big\n", "tile-size"),
        ("tile-size: 5\n", "tile-size"),
        ("tile-size: .nan\n", "tile-size"),
        ("tile-size: 240\ncolour: red\n", "colour"),
        ("tile-size: [240\n", "line 2"),
        ("- 240\n", "key: value"),
        (b"tile-size: \xff\n", "UTF-8"),
    ],
)
def test_a_bad_settings_file_is_a_clear_error_naming_it(text: str | bytes, words: str) -> None:
    path = config.config_path()
    assert path is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        config.tile_size()
    assert caught.value.file == str(path) and words in caught.value.message
    for args in (("config", "show"), ("render", TURINI, "-o", path.parent / "m.svg")):
        code, out, err = run(*args)
        assert code == 2 and str(path) in err and words in err, args
        assert "Traceback" not in out + err
    # the broken file is the user's to mend: setting a size does not overwrite it
    before = path.read_bytes()
    code, _, err = run("config", "tile-size", "240")
    assert code == 2 and str(path) in err and path.read_bytes() == before
    assert not (path.parent / "m.svg").exists()


def test_an_impossible_tile_size_is_refused() -> None:
    code, _, err = run("config", "tile-size", "5")
    assert code == 2 and "20" in err
    code, _, err = run("config", "tile-size", "240", "--unset")
    assert code == 2 and "--unset" in err
    assert config.load_settings().tile_size is None


def test_a_failed_write_keeps_the_old_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "settings" / "config.yaml"
    config.save_settings(config.Settings(tile_size=230), path)

    def full_disk(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch, pytest.raises(InputError) as caught:
        patch.setattr(config.os, "replace", full_disk)
        config.save_settings(config.Settings(tile_size=250), path)
    assert caught.value.file == str(path) and "No space" in caught.value.message
    assert config.load_settings(path).tile_size == 230.0
    assert [p.name for p in path.parent.iterdir()] == ["config.yaml"]  # no temporary file


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_settings_file_that_is_not_a_regular_file_is_refused_without_reading_it() -> None:
    path = config.config_path()
    assert path is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)  # reading it would hang
    code, out, err = run("config", "show")
    assert code == 2 and str(path) in err and "Traceback" not in out + err
    with pytest.raises(InputError):
        config.tile_size()
