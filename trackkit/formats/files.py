"""Read any stage file, write any format, and write files atomically.

Examples
--------
>>> stage = parse_stage('{"format": "trackkit-stage/1", "tiles": [{"tile": "202a"}]}',
...                     file="s.json")
>>> [t.tile for t in stage.tiles]
['202a']
>>> format_for_path("stages/turini.rekee.json"), format_for_path("Turini.YML")
('rekee', 'native-yaml')
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import Any, Literal

from trackkit.errors import InputError
from trackkit.formats.native import FORMAT_ID, read_native
from trackkit.formats.source import StageSource, decode_bytes, parse_document, read_bytes
from trackkit.library import TileLibrary
from trackkit.models.stage import Stage

__all__ = [
    "ACCEPTED_FORMATS",
    "InputKind",
    "StageFormat",
    "check_output_folder",
    "detect_format",
    "format_for_path",
    "load_source",
    "load_stage",
    "parse_source",
    "parse_stage",
    "write_bytes_atomic",
    "write_text_atomic",
]

#: Output formats of :func:`dump_stage`.
StageFormat = Literal["native-yaml", "native-json", "rekee", "rgt"]
#: What :func:`detect_format` finds in a file.
InputKind = Literal["native", "rekee", "rgt"]

ACCEPTED_FORMATS = (
    f"a trackkit stage (YAML or JSON with 'format: {FORMAT_ID}'), a Rekee editor file "
    "(JSON with 'title' and 'tiles' of q, r, id, dir) or an official editor .rgt file "
    "(JSON with 'Name' and 'Tuiles')"
)


def detect_format(data: dict[str, Any], *, file: str = "<string>") -> InputKind:
    """Which stage format a parsed top-level mapping is in.

    Raises
    ------
    InputError
        If it is none of the accepted formats.
    """
    if "format" in data:
        fmt = data["format"]
        if fmt == FORMAT_ID:
            return "native"
        if isinstance(fmt, str) and fmt.startswith("trackkit-stage/"):
            raise InputError(
                file, f"unsupported stage format version {fmt!r}: this trackkit reads {FORMAT_ID}"
            )
        raise InputError(
            file, f"unknown format {str(fmt)[:60]!r}: trackkit reads {ACCEPTED_FORMATS}"
        )
    if "Tuiles" in data:
        return "rgt"
    if "tiles" in data:
        from trackkit.formats.rekee import looks_like_rekee

        if looks_like_rekee(data):
            return "rekee"
        raise InputError(
            file,
            f"no 'format: {FORMAT_ID}' key: add it at the top of a trackkit stage file "
            "(the tiles do not look like a Rekee editor file either)",
        )
    keys = ", ".join(repr(str(k))[:40] for k in list(data)[:5])
    raise InputError(
        file,
        f"unknown format (top-level keys: {keys or 'none'}): trackkit reads {ACCEPTED_FORMATS}",
    )


def parse_source(
    text: str, *, file: str = "<string>", library: TileLibrary | None = None
) -> StageSource:
    """A stage from the text of a stage file in any accepted format, with its source lines.

    Parameters
    ----------
    text : str
        The file's text (YAML or JSON).
    file : str
        Name used in error messages.
    library : TileLibrary, optional
        Faces used to find the driving order of editor files (default: the shipped one).

    Returns
    -------
    StageSource
        The stage, and :meth:`~StageSource.locate` from a place in it to the file's line.

    Raises
    ------
    InputError
        For anything unusable, naming ``file`` and the place in it.
    """
    doc = parse_document(text, file=file)
    kind = detect_format(doc.data, file=file)
    if kind == "native":
        return StageSource(read_native(doc), doc, "native")
    # editor formats load their modules only when met (start-up time of a native read)
    if kind == "rekee":
        from trackkit.formats.rekee import read_rekee

        return read_rekee(doc, library)
    from trackkit.formats.rgt import read_rgt

    return read_rgt(doc, library)


def parse_stage(text: str, *, file: str = "<string>", library: TileLibrary | None = None) -> Stage:
    """A stage from the text of a stage file in any accepted format.

    The same as :func:`parse_source`, without the way back to the file's lines.

    Raises
    ------
    InputError
        For anything unusable, naming ``file`` and the place in it.
    """
    return parse_source(text, file=file, library=library).stage


def load_source(path: str | Path, *, library: TileLibrary | None = None) -> StageSource:
    """A stage and its source lines from a file in any accepted format.

    Raises
    ------
    InputError
        Missing, unreadable, too large, binary, not YAML/JSON, unknown format or invalid.
    """
    file, raw = read_bytes(path)
    return parse_source(decode_bytes(raw, file=file), file=file, library=library)


def load_stage(path: str | Path, *, library: TileLibrary | None = None) -> Stage:
    """A stage from a file in any accepted format (detected from the content).

    Raises
    ------
    InputError
        Missing, unreadable, too large, binary, not YAML/JSON, unknown format or invalid.
    """
    return load_source(path, library=library).stage


def format_for_path(path: str | Path) -> StageFormat:
    """Output format for a file name: ``.yaml``/``.yml``, ``.json``, ``.rekee.json``, ``.rgt``.

    Raises
    ------
    InputError
        If the name ends otherwise.
    """
    name = Path(path).name.lower()
    if name.endswith((".yaml", ".yml")):
        return "native-yaml"
    if name.endswith(".rekee.json"):
        return "rekee"
    if name.endswith(".json"):
        return "native-json"
    if name.endswith(".rgt"):
        return "rgt"
    raise InputError(
        str(path),
        "cannot tell the format from the file name: use .yaml or .yml (trackkit YAML), "
        ".json (trackkit JSON), .rekee.json (Rekee editor) or .rgt (official editor)",
    )


def check_output_folder(path: str | Path) -> None:
    """Fail early, before long work, if ``path`` cannot be written at all.

    Raises
    ------
    InputError
        If the folder is missing or ``path`` is a folder.
    """
    p = Path(path)
    if not p.parent.is_dir():
        raise InputError(str(path), f"cannot write: folder {str(p.parent)!r} does not exist")
    if p.is_dir():
        raise InputError(str(path), "cannot write: it is a folder")


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    A failure leaves either the old file or the whole new one, and no temporary file.

    Raises
    ------
    InputError
        If the folder does not exist or cannot be written, or ``path`` is a folder.
    """
    check_output_folder(path)
    p = Path(path)
    tmp = p.parent / f".{p.name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            if p.exists():
                with contextlib.suppress(OSError):
                    os.chmod(tmp, p.stat().st_mode & 0o7777)
            os.replace(tmp, p)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        reason = (exc.strerror or type(exc).__name__).lower()
        raise InputError(str(path), f"cannot write: {reason}") from None


def write_text_atomic(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`write_bytes_atomic`).

    Raises
    ------
    InputError
        If the folder does not exist or cannot be written, ``path`` is a folder, or the
        text cannot be encoded.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            str(path), f"cannot write: the text is not valid Unicode ({exc.reason})"
        ) from None
    write_bytes_atomic(path, data)
