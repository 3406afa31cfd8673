"""Reading the files a user names: the one reader, its size limits, and text from bytes.

Everything here raises :class:`~trackkit.errors.InputError` (never anything else) for a file
that cannot be used: missing, unreadable, not a regular file, too large, not UTF-8 text. The
text is parsed by :mod:`trackkit.formats.source`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from trackkit.errors import InputError

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_REPLAY_BYTES",
    "MAX_SIMULATION_BYTES",
    "MAX_THEME_BYTES",
    "decode_bytes",
    "format_size",
    "read_bytes",
    "read_input",
]

#: Stage files bigger than this are refused before they are parsed (a real stage is a few
#: kB; the largest stage trackkit accepts, 1000 tiles with tokens, well under 1 MB).
MAX_FILE_BYTES = 5 * 1024 * 1024
#: Replay files (``simulate --replay``) bigger than this are refused before they are read:
#: a replay of a 1000-tile stage with 6 drivers is about 6 MB, and reading one of 16 MB
#: takes about 160 MB of memory. ``simulate`` refuses to write a longer one.
MAX_REPLAY_BYTES = 16 * 1024 * 1024
#: Simulation documents (``render --heat``) bigger than this are refused.
MAX_SIMULATION_BYTES = 16 * 1024 * 1024
#: Theme files (``--theme``) bigger than this are refused (a full theme is about 2 kB).
MAX_THEME_BYTES = 1024 * 1024


def format_size(n: int) -> str:
    """A size in bytes as messages show it (``"5.0 MB"``, ``"812 bytes"``)."""
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n} bytes"


def _plural(what: str) -> str:
    return what[:-1] + "ies" if what.endswith("y") else what + "s"


def _not_regular(mode: int) -> str | None:
    """What a file that is not a regular file is (None: a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open_error(file: str, exc: OSError) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError(file, "no such file")
    if isinstance(exc, NotADirectoryError):
        return InputError(file, "no such file (a part of the path is a file, not a folder)")
    reason = exc.strerror or type(exc).__name__
    return InputError(file, f"cannot read the file: {reason.lower()}")


def read_input(
    path: str | Path, *, what: str = "stage file", limit: int = MAX_FILE_BYTES
) -> tuple[str, bytes]:
    """Read the bytes of an input file: the one way trackkit reads a file it is given.

    Only a regular file is read (a symlink to one is fine): a folder, a named pipe, a
    device or a socket is refused before anything is read from it, so ``/dev/zero`` or a
    FIFO can neither hang a command nor fill its memory. At most ``limit`` bytes are read.

    Parameters
    ----------
    path : str or Path
        The file.
    what : str
        What the file is, for messages (``"stage file"``, ``"replay file"``).
    limit : int
        Largest size accepted, in bytes.

    Returns
    -------
    tuple of (str, bytes)
        The file name as it will appear in messages, and the bytes.

    Raises
    ------
    InputError
        Missing, unreadable, not a regular file, or larger than ``limit``.

    Examples
    --------
    >>> read_input("/dev/zero", what="replay file")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    trackkit.errors.InputError: /dev/zero: is a character device, not a replay file ...
    """
    file = str(path)
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        # stat before open: opening some devices does something (a tape rewinds)
        kind = _not_regular(os.stat(path).st_mode)
        if kind is None:
            # non-blocking, so that a file swapped for a FIFO since the stat cannot hang us
            fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _open_error(file, exc) from None
    except ValueError:  # a NUL character in the name
        raise InputError(file, "not a usable file name") from None
    if kind is not None:
        raise _not_regular_error(file, kind, what)
    with os.fdopen(fd, "rb") as fh:
        try:
            st = os.fstat(fh.fileno())
            kind = _not_regular(st.st_mode)
            if kind is not None:
                raise _not_regular_error(file, kind, what)
            if st.st_size > limit:
                raise _too_large(file, what, limit, st.st_size)
            raw = fh.read(limit + 1)
        except OSError as exc:
            raise _open_error(file, exc) from None
    if len(raw) > limit:  # it grew since the stat
        raise _too_large(file, what, limit)
    return file, raw


def _not_regular_error(file: str, kind: str, what: str) -> InputError:
    if kind == "a folder":
        return InputError(file, f"is a folder, not a {what}")
    return InputError(file, f"is {kind}, not a {what} (only regular files are read)")


def _too_large(file: str, what: str, limit: int, size: int | None = None) -> InputError:
    got = f" ({format_size(size)})" if size is not None else ""
    return InputError(
        file, f"file is too large{got}: {_plural(what)} are at most {format_size(limit)}"
    )


def read_bytes(path: str | Path) -> tuple[str, bytes]:
    """Read a stage file's bytes (:func:`read_input` with the stage file limit).

    Returns the file name as it will appear in messages, and the bytes.
    """
    return read_input(path, what="stage file", limit=MAX_FILE_BYTES)


def decode_bytes(raw: bytes, *, file: str, what: str = "stage file") -> str:
    """UTF-8 text of a file (a byte-order mark is dropped); binary data is refused."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(file, "the file is UTF-16 text: save it as UTF-8")
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise InputError(file, f"binary data (a NUL byte at byte {nul}): not a {what}")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(
            file,
            f"not UTF-8 text (byte {exc.start}, line {line}): save the file as UTF-8",
        ) from exc
