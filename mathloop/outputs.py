"""Write a file or directory the user named, all or nothing: built beside it under a temporary name, then renamed.

Every command output a user names (`graph -o`, `plot -o`, `export --records/--lean/--certificates/--dataset`,
`checkpoint -o`, `bench -o`) goes through here, so that a missing or read-only folder, a full disk or a
name taken by a directory is one `OutputError` naming the path and the reason (the CLI prints it and
exits 2), and nothing half-written is left: the temporary file or directory is removed on any failure,
and the rename into place is atomic (same folder, same file system).

`atomic_file` / `atomic_write` are the one way mathloop writes any file atomically (caches, evaluator results,
generated pages too): they raise the plain OSError, and `replacing` / `write_bytes` turn it into OutputError.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator


class OutputError(Exception):
    """An output cannot be written; str() is "PATH: reason" (the CLI puts the option's name before it).

    Attributes:
        path: the output the user named.
        reason: why it cannot be written, in a few words (the system's own words for an OSError).
    """

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = Path(path), reason


def _reason(e: OSError) -> str:
    return f"cannot write: {e.strerror or e}"


def _umask() -> int:
    """Return this process's umask without changing it (os.umask would, for a moment, in every thread)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def check_folder(path: Path | str) -> Path:
    """Return `path` as a Path once its folder exists and a file can be created in it (tried, then removed).

    Called before long work, so that a read-only or missing folder fails at once, not after the work.

    Raises:
        OutputError: the folder is missing, not a directory, or refuses a new file (read-only, no permission).
    """
    path = Path(path)
    folder = path.parent
    if not folder.exists():
        raise OutputError(path, f"directory {folder} does not exist")
    if not folder.is_dir():
        raise OutputError(path, f"{folder} is not a directory")
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=folder)
    except OSError as e:
        raise OutputError(path, _reason(e)) from None
    os.close(fd)
    os.unlink(probe)
    return path


@contextmanager
def atomic_file(path: Path | str, *, mode: int | None = None) -> Iterator[Path]:
    """Yield a temporary path beside `path`; when the body returns it is fsynced, given `mode` and renamed onto `path`.

    The body writes the temporary file itself (a library's savefig, a compiler's `-o`, `Path.write_bytes`). The mode
    is `mode`, or an ordinary new file's (0o666 less the umask; mkstemp would leave 0600). On any exception, the
    body's or the rename's, the temporary file is removed and `path` is left as it was.

    Raises:
        OSError: the folder refuses the temporary file, or flushing or renaming it failed.
    """
    path = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb") as f:  # whatever wrote it, its bytes are on disk before the name points at them
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask() if mode is None else mode)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def atomic_write(path: Path | str, data: bytes | str, *, mode: int | None = None) -> None:
    """Write `data` (str as UTF-8) to `path` all or nothing (see atomic_file). Raises OSError."""
    with atomic_file(path, mode=mode) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


@contextmanager
def atomic_dir(path: Path | str, *, mode: int | None = None) -> Iterator[Path]:
    """Yield an empty temporary directory beside `path`; when the body returns it is renamed onto `path`.

    For caches built whole (a compiled library, a prelude): whatever is at `path` then (an earlier build that
    did not complete) is removed first. The mode is `mode`, or an ordinary new directory's. On any exception
    the temporary directory is removed and `path` is left as it was.

    Raises:
        OSError: the folder refuses the directory, or removing the old one or renaming failed.
    """
    path = Path(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent))
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask() if mode is None else mode)
        if path.exists():
            shutil.rmtree(path)
        os.rename(tmp, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextmanager
def replacing(path: Path | str) -> Iterator[Path]:
    """Yield a temporary path beside the output `path` to write the file to; on success it becomes `path` atomically.

    As atomic_file, for an output the user named: the folder is checked first, and an OSError from the body or
    the rename is re-raised as OutputError.

    Raises:
        OutputError: the folder is missing or refuses the file, `path` is a directory, or writing failed.
    """
    path = check_folder(path)
    if path.is_dir():
        raise OutputError(path, "is a directory")
    try:
        with atomic_file(path) as tmp:
            yield tmp
    except OSError as e:
        raise OutputError(path, _reason(e)) from None


def write_bytes(path: Path | str, data: bytes) -> None:
    """Write `data` to the output `path` all or nothing (flushed to disk before the rename). Raises OutputError."""
    with replacing(path) as tmp:
        tmp.write_bytes(data)


def write_text(path: Path | str, text: str) -> None:
    """Write `text` as UTF-8 to the output `path` all or nothing. Raises OutputError."""
    write_bytes(path, text.encode("utf-8"))


@contextmanager
def building_dir(path: Path | str, *, may_replace: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """Yield an empty temporary directory beside `path` to build the output in; on success it becomes `path`.

    `path` may be absent or an empty directory; a non-empty one only when `may_replace(path)` says so (e.g. a
    previous export of the same kind), and it is then swapped out and removed. On any exception the temporary
    directory is removed and `path` is left as it was.

    Raises:
        OutputError: the folder is missing or read-only, `path` is a file or a non-empty directory that may not
            be replaced, or writing failed.
    """
    path = check_folder(path)
    if path.exists() and not path.is_dir():
        raise OutputError(path, "exists and is not a directory")
    occupied = path.is_dir() and any(path.iterdir())
    if occupied and not (may_replace and may_replace(path)):
        raise OutputError(path, "exists and is not an empty directory (nothing written)")
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent))
    except OSError as e:
        raise OutputError(path, _reason(e)) from None
    old: Path | None = None
    try:
        yield tmp
        os.chmod(tmp, 0o777 & ~_umask())  # as an ordinary new directory would be (mkdtemp makes it 0700)
        if occupied:
            old = path.with_name(f"{tmp.name}.old")
            os.rename(path, old)
        os.rename(tmp, path)  # onto an absent name or an empty directory: atomic
    except OSError as e:
        if old is not None and not path.exists():
            os.rename(old, path)  # put the previous output back
            old = None
        raise OutputError(path, _reason(e)) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
