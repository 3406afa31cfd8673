"""A set of output files trackkit owns: what a run wrote, and what a later run may touch.

Commands that write several files under names they make up themselves (``generate -o
DIR``: the stages, maps, reports and index; ``print -o OUT.svg``: the page files beside
``OUT.svg``) write them as one *set*, with a **manifest**: a JSON document among the
files that lists every file of the set with its SHA-256, its own included (the hash of
the manifest itself is taken with that one value written as 64 zeros,
:func:`manifest_bytes`). The next run into the same place reads the manifest
(:func:`read_manifest`) and may then

- **replace** a file the manifest lists whose bytes are still the ones listed;
- **remove** such a file when the new set does not hold it any more;
- **create** a file that is not there.

Anything else is the user's: a file the manifest does not list (or no manifest at all),
a file changed since trackkit wrote it, a manifest that was itself changed. A user's
file that has a name the new set would write is **in the way**: the run stops before
writing anything (:class:`FilesInTheWay`, exit status 2 at the command line, naming
every such file). With ``force`` those files are replaced all the same; a user's file
the new set does not write is never removed, not even with ``force`` (it is *kept*, and
the run says so when trackkit once wrote it). The files the user names (``print -o
OUT.svg``: ``OUT.svg`` itself) are outputs as every command's output is, replaced as
:func:`trackkit.formats.files.check_output` says.

Every file is still written whole (a temporary file, then a rename) under the rules of
:func:`~trackkit.formats.files.check_output` (a read-only file only with ``force``, never
a link among the names trackkit makes up, never anything but a regular file), the
manifest last, and the whole set under :func:`~trackkit.formats.files.folder_lock`.

Examples
--------
>>> import tempfile
>>> files = {"a.txt": b"one", "b.txt": b"two"}
>>> files["set.json"] = manifest_bytes({"format": "demo/1"}, "files", "set.json", files)
>>> with tempfile.TemporaryDirectory() as tmp:
...     folder = Path(tmp)
...     done = write_file_set(folder, files, manifest=("set.json", "files"))
...     owned = read_manifest(folder, "set.json", "files")
...     before = [owned.wrote(folder / n) for n in ("a.txt", "set.json", "missing.txt")]
...     _ = (folder / "b.txt").write_bytes(b"changed by hand")
...     after = owned.wrote(folder / "b.txt")
>>> done.created, before, after
(('a.txt', 'b.txt', 'set.json'), [True, True, False], False)
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trackkit.errors import InputError
from trackkit.formats.files import check_output, folder_lock, is_read_only, write_bytes_atomic
from trackkit.formats.reading import read_input
from trackkit.words import plural

__all__ = [
    "FileSetPlan",
    "FilesInTheWay",
    "Owned",
    "manifest_bytes",
    "plan_file_set",
    "read_manifest",
    "sha256_hex",
    "write_file_set",
]

#: The manifest's own hash while it is taken.
_PLACEHOLDER = "0" * 64
#: A manifest larger than this is not one trackkit wrote.
_MAX_MANIFEST_BYTES = 16 * 1024 * 1024
#: A file larger than this is not one trackkit wrote (its largest: PNG maps of 20000 px).
_MAX_OWNED_BYTES = 256 * 1024 * 1024
#: How many names a message lists before "and N more".
_NAMES_SHOWN = 8


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data``, in hex.

    >>> sha256_hex(b"")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(data).hexdigest()


def _entry(name: str, digest: str) -> bytes:
    """``"name": "digest"`` as :func:`json.dumps` writes a mapping's item."""
    return f"{json.dumps(name)}: {json.dumps(digest)}".encode()


def manifest_bytes(
    doc: Mapping[str, Any], key: str, name: str, files: Mapping[str, bytes]
) -> bytes:
    """``doc`` as a JSON manifest (indented, keys sorted) with ``doc[key]`` listing the
    SHA-256 of every file of ``files`` and, as ``name``, of the manifest itself.

    Parameters
    ----------
    doc : mapping
        The manifest's other content (a run's index, say).
    key : str
        The key of the hashes in the document.
    name : str
        The manifest's file name (an entry of ``files`` by that name is left out).
    files : mapping of str to bytes
        The other files of the set, by name.

    Returns
    -------
    bytes
        The manifest file's content, ending in a newline.
    """
    listed = {n: sha256_hex(data) for n, data in files.items() if n != name}
    listed[name] = _PLACEHOLDER
    raw = (json.dumps({**doc, key: listed}, indent=2, sort_keys=True) + "\n").encode()
    own = sha256_hex(raw)
    return raw.replace(_entry(name, _PLACEHOLDER), _entry(name, own), 1)


@dataclass(frozen=True, slots=True)
class Owned:
    """The files an earlier run wrote into a folder, by name, with their SHA-256."""

    files: Mapping[str, str] = field(default_factory=dict)
    manifest: str | None = None
    """The manifest's own name (its hash is taken with that value as 64 zeros)."""

    def wrote(self, path: Path) -> bool:
        """Whether ``path`` is a regular file the manifest lists, with the bytes it lists."""
        digest = self.files.get(path.name)
        if digest is None:
            return False
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                return False
            _, raw = read_input(path, what="file of an earlier run", limit=_MAX_OWNED_BYTES)
        except (OSError, InputError):
            return False
        if path.name == self.manifest:
            return _own_hash_holds(raw, path.name, digest)
        return sha256_hex(raw) == digest


def _own_hash_holds(raw: bytes, name: str, own: str) -> bool:
    """Whether manifest ``raw`` is as written: its hash, with its own value (``own``) as
    64 zeros, is ``own``."""
    entry = _entry(name, own)
    if entry not in raw:
        return False
    return sha256_hex(raw.replace(entry, _entry(name, _PLACEHOLDER), 1)) == own


def read_manifest(folder: Path, name: str, key: str) -> Owned:
    """What an earlier run wrote into ``folder``, as its manifest ``name`` lists it.

    Nothing (an empty :class:`Owned`) when the manifest is missing, not a regular file,
    not JSON, not a mapping with ``key`` listing names and hashes, or changed since it
    was written: then every file there is the user's.
    """
    path = folder / name
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return Owned()
        _, raw = read_input(path, what="list of files", limit=_MAX_MANIFEST_BYTES)
        doc = json.loads(raw)
    except (OSError, ValueError):  # InputError is a ValueError
        return Owned()
    listed = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(listed, dict) or not all(
        isinstance(n, str) and isinstance(d, str) and len(d) == 64 for n, d in listed.items()
    ):
        return Owned()
    own = listed.get(name)
    if own is None or not _own_hash_holds(raw, name, own):
        return Owned()  # changed since: the user's
    return Owned(dict(listed), name)


class FilesInTheWay(InputError):
    """Files a run would replace that trackkit did not write (or that changed since).

    Parameters
    ----------
    folder : Path
        Where they are.
    names : sequence of str
        Their names, sorted.
    hint : str
        What to do instead of replacing them (another output name or folder).
    """

    def __init__(self, folder: Path, names: Iterable[str], hint: str) -> None:
        self.names = tuple(names)
        shown = ", ".join(self.names[:_NAMES_SHOWN])
        more = len(self.names) - _NAMES_SHOWN
        if more > 0:
            shown += f" and {more} more"
        super().__init__(
            str(folder),
            f"{plural(len(self.names), 'file')} in the way, which trackkit did not write "
            f"(or which changed since it did): {shown}. trackkit replaces only its own "
            f"files: {hint}, or add --force to replace them (--force never removes a file "
            "trackkit did not write)",
        )


@dataclass(frozen=True, slots=True)
class FileSetPlan:
    """What writing a set of files into a folder does to each file there."""

    created: tuple[str, ...] = ()
    """Names that were free."""
    replaced: tuple[str, ...] = ()
    """Files trackkit wrote (unchanged since), or that the user named: replaced."""
    forced: tuple[str, ...] = ()
    """The user's files in the way, replaced because of ``force``."""
    removed: tuple[str, ...] = ()
    """Files the earlier run wrote (unchanged since) that this set does not hold."""
    kept: tuple[str, ...] = ()
    """Files the earlier run wrote that changed since (the user's now) and that this set
    does not hold: left as they are."""


def plan_file_set(
    folder: Path,
    names: Iterable[str],
    owned: Owned,
    *,
    force: bool = False,
    named: Collection[str] = (),
    hint: str = "write into another folder",
) -> FileSetPlan:
    """Check what writing files ``names`` into ``folder`` would do, and refuse what it may not.

    Parameters
    ----------
    folder : Path
        The folder (it need not exist yet).
    names : iterable of str
        The files of the new set.
    owned : Owned
        What the earlier run wrote there (:func:`read_manifest`).
    force : bool
        Replace the user's files in the way, and read-only files, all the same.
    named : collection of str
        Names the user gave (written through a link, always replaced as outputs are).
    hint : str
        What a refusal suggests instead of ``--force``.

    Returns
    -------
    FileSetPlan
        What happens to each file.

    Raises
    ------
    FilesInTheWay
        Naming every file in the way (without ``force``).
    InputError
        Naming the first file :func:`~trackkit.formats.files.check_output` refuses, or an
        earlier run's file that may not be removed.
    """
    wanted = sorted(set(names))
    for name in wanted:  # what --force would not change (a link, a folder) is said first
        check_output(folder / name, force=True, named=name in named)
    created, replaced, in_the_way = [], [], []
    for name in wanted:
        path = folder / name
        if not os.path.lexists(path):
            created.append(name)
        elif name in named or owned.wrote(path):
            replaced.append(name)
        else:
            in_the_way.append(name)
    if in_the_way and not force:
        raise FilesInTheWay(folder, in_the_way, hint)
    for name in wanted:
        check_output(folder / name, force=force, named=name in named)
    removed, kept = [], []
    for name in sorted(set(owned.files) - set(wanted)):
        path = folder / name
        if not os.path.lexists(path):
            continue
        if owned.wrote(path):
            _check_removable(path, force=force)
            removed.append(name)
        else:
            kept.append(name)
    return FileSetPlan(
        tuple(created), tuple(replaced), tuple(in_the_way), tuple(removed), tuple(kept)
    )


def _check_removable(path: Path, *, force: bool) -> None:
    """Refuse to go on when a file of the earlier run may not be removed."""
    if not force and is_read_only(os.lstat(path)):
        raise InputError(
            str(path),
            "read-only, and a file of the earlier run here that this run does not write "
            "again; --force removes it",
        )


def write_file_set(
    folder: Path,
    files: Mapping[str, bytes],
    *,
    manifest: tuple[str, str],
    force: bool = False,
    named: Collection[str] = (),
    hint: str = "write into another folder",
) -> FileSetPlan:
    """Write ``files`` (name -> bytes; the manifest among them) into ``folder`` as one set.

    Under the folder's lock: the earlier run's manifest is read, the set is checked
    (:func:`plan_file_set`: nothing is written when a file is in the way or refused), each
    file is written atomically in the order given (the manifest should come last), and
    the earlier run's files this set does not hold are removed.

    Parameters
    ----------
    folder : Path
        An existing folder.
    files : mapping of str to bytes
        The new set, its manifest included.
    manifest : (str, str)
        The manifest's file name and the key of its hashes.
    force, named, hint
        As :func:`plan_file_set` takes them.

    Returns
    -------
    FileSetPlan
        What was done to each file.

    Raises
    ------
    FilesInTheWay, InputError
        As :func:`plan_file_set` raises them, or for a file that cannot be written or
        removed.
    """
    with folder_lock(folder):
        owned = read_manifest(folder, *manifest)
        plan = plan_file_set(folder, files, owned, force=force, named=named, hint=hint)
        for name, data in files.items():
            write_bytes_atomic(folder / name, data, force=force, named=name in named)
        for name in plan.removed:
            path = folder / name
            try:
                path.unlink(missing_ok=True)
            except OSError as exc:
                why = (exc.strerror or type(exc).__name__).lower()
                raise InputError(str(path), f"cannot remove it: {why}") from None
    return plan
