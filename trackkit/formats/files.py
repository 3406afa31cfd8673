"""Read any stage file, write any format, and write files atomically.

What an output may replace is decided in one place, :func:`check_output`: a read-only
file only with ``force``, a named symbolic link is written through and stays a link, and
nothing that is not a regular file is ever replaced.

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
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from trackkit.cli import interrupt
from trackkit.errors import InputError
from trackkit.formats.native import FORMAT_ID, read_native
from trackkit.formats.source import StageSource, decode_bytes, parse_document, read_bytes
from trackkit.models.stage import Stage
from trackkit.tiles.library import TileLibrary

__all__ = [
    "ACCEPTED_FORMATS",
    "InputKind",
    "StageFormat",
    "check_output",
    "check_output_folder",
    "detect_format",
    "folder_lock",
    "format_for_path",
    "is_read_only",
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
    """Fail early, before long work, if ``path``'s folder is missing or ``path`` is a folder.

    :func:`check_output` checks this and everything else about an output.

    Raises
    ------
    InputError
        If the folder is missing or ``path`` is a folder.
    """
    p = Path(path)
    if not p.parent.is_dir():
        missing = "is not a folder" if p.parent.exists() else "does not exist"
        raise InputError(str(path), f"cannot write: folder {str(p.parent)!r} {missing}")
    if p.is_dir():
        raise InputError(str(path), "cannot write: it is a folder")


#: What a file that is not a regular file is called in messages, by its ``stat`` test.
_SPECIAL = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
)


def _what(mode: int) -> str:
    for test, name in _SPECIAL:
        if test(mode):
            return name
    return "not a regular file"


def is_read_only(st: os.stat_result) -> bool:
    """Whether a file's mode bits deny writing to the user running trackkit.

    The bits that apply are the owner's when the user owns the file, the group's when the
    user is in its group, else the others'. Root counts as the owner, so a ``0444`` file
    is read-only to root as to anyone (root could write it, but its mode says it is not
    meant to be written). Without user ids (Windows), read-only means no write bit at all.

    Examples
    --------
    >>> import os
    >>> st = os.stat_result((0o100444, 0, 0, 1, os.getuid(), os.getgid(), 0, 0, 0, 0))
    >>> is_read_only(st)
    True
    """
    if not hasattr(os, "geteuid"):
        return not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
    uid = os.geteuid()
    if uid in (0, st.st_uid):
        bit = stat.S_IWUSR
    elif st.st_gid == os.getegid() or st.st_gid in os.getgroups():
        bit = stat.S_IWGRP
    else:
        bit = stat.S_IWOTH
    return not st.st_mode & bit


def check_output(path: str | Path, *, force: bool = False, named: bool = True) -> Path:
    """Check that ``path`` may be written, and say which file a write replaces.

    The rules of every file trackkit writes:

    - a missing file is created, in a folder that must exist;
    - an existing regular file is replaced, unless it is read-only
      (:func:`is_read_only`): then only with ``force``;
    - a symbolic link the user named (``named``) is written through: the file it leads
      to is replaced (the same rules apply to it) and the link stays a link. A link
      that leads nowhere, loops, or leads to anything but a regular file is refused;
    - a symbolic link among the names trackkit makes up itself (``named=False``: print
      pages, schema files) is refused, never followed and never replaced;
    - anything else (a folder, a device, a FIFO, a socket) is never replaced, not even
      with ``force``.

    Parameters
    ----------
    path : str or Path
        The output as the user named it (or as derived from that name).
    force : bool
        Replace a read-only file all the same (``--force``).
    named : bool
        Whether the user named ``path`` (False: trackkit derived it from a name).

    Returns
    -------
    Path
        The file to replace: ``path``, or the file a named link leads to.

    Raises
    ------
    InputError
        Naming ``path``, if it may not be written.
    """
    p = Path(path)
    try:
        st = os.lstat(p)
    except (FileNotFoundError, NotADirectoryError):
        check_output_folder(p)
        return p
    except OSError as exc:
        raise InputError(str(path), f"cannot write: {_reason(exc)}") from None
    target = p
    if stat.S_ISLNK(st.st_mode):
        if not named:
            raise InputError(
                str(path),
                "cannot write: it is a symbolic link, and trackkit follows a link only when "
                "it is the output you named (remove the link)",
            )
        try:
            target = Path(os.path.realpath(p, strict=True))
            st = os.stat(target)
        except FileNotFoundError:
            raise InputError(
                str(path),
                f"cannot write: it is a symbolic link to {os.readlink(p)!r}, which does not "
                "exist (trackkit writes through a link only to an existing file)",
            ) from None
        except OSError as exc:
            raise InputError(
                str(path),
                f"cannot write: it is a symbolic link that cannot be followed ({_reason(exc)})",
            ) from None
        subject = f"it is a symbolic link to {str(target)!r}, which is"
    else:
        subject = "it is"
    if stat.S_ISDIR(st.st_mode):
        raise InputError(str(path), f"cannot write: {subject} a folder")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(
            str(path),
            f"cannot write: {subject} {_what(st.st_mode)}; trackkit replaces only regular files",
        )
    if not force and is_read_only(st):
        raise InputError(str(path), f"cannot write: {subject} read-only; --force replaces it")
    return target


def _reason(exc: OSError) -> str:
    return (exc.strerror or type(exc).__name__).lower()


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether two names are one file (the same path, a link, a hard link); False when
    either does not exist."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def write_bytes_atomic(
    path: str | Path, data: bytes, *, force: bool = False, named: bool = True
) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    A failure leaves either the old file or the whole new one, and no temporary file.
    What may be replaced follows :func:`check_output` (``force``, ``named``); a file that
    is replaced keeps its mode (and, when root replaces it, its owner).

    Raises
    ------
    InputError
        If :func:`check_output` refuses ``path``, or the folder cannot be written.
    """
    target = check_output(path, force=force, named=named)
    tmp = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            _keep_mode_and_owner(target, tmp)
            interrupt.check()  # never replace the old file after a Ctrl-C
            os.replace(tmp, target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise InputError(str(path), f"cannot write: {_reason(exc)}") from None


def _keep_mode_and_owner(old: Path, new: Path) -> None:
    """Give ``new`` the mode of the file it replaces (and its owner, when root may)."""
    try:
        st = os.stat(old)
    except OSError:
        return  # a new file: the umask decides
    with contextlib.suppress(OSError):
        os.chmod(new, st.st_mode & 0o7777)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        with contextlib.suppress(OSError):
            os.chown(new, st.st_uid, st.st_gid)


def write_text_atomic(
    path: str | Path, text: str, *, force: bool = False, named: bool = True
) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`write_bytes_atomic`).

    Raises
    ------
    InputError
        If :func:`check_output` refuses ``path``, the folder cannot be written, or the
        text cannot be encoded.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            str(path), f"cannot write: the text is not valid Unicode ({exc.reason})"
        ) from None
    write_bytes_atomic(path, data, force=force, named=named)


#: How long a run waits for another one writing the same folder's pages.
LOCK_TIMEOUT_S = 60.0


@contextlib.contextmanager
def folder_lock(folder: str | Path, *, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` while writing a set of files into it.

    Two runs writing the same set of files (the pages of one print) take turns, so the
    files on disk are one run's set, never a mix. The lock is an advisory ``flock`` of the
    folder itself: no lock file is left behind, and it is released when the process
    ends, however it ends. Where folders cannot be locked (Windows, some network file
    systems) the files are written without the lock.

    Raises
    ------
    InputError
        If another run holds the lock for longer than ``timeout`` seconds.
    """
    try:
        import fcntl
    except ImportError:  # Windows
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        yield  # the writes themselves will say what is wrong with the folder
        return
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise InputError(
                        str(folder),
                        f"another run has been writing here for over {timeout:g} s; "
                        "try again when it is done",
                    ) from None
                time.sleep(0.02)
            except OSError:
                break  # no locks on this file system
        yield
    finally:
        os.close(fd)  # releases the lock
