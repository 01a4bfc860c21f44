"""Opening files in the state folder without ever following a link: the one door to `$ATLAS_HOME`.

The state folder is often a project's `.atlas/`, so a cloned repository can ship it, links included. A
link there could aim Atlas's writes at any file the user owns (a shell rc file, another SQLite
database), and a dangling one would make Atlas create a file wherever it points. So every state
file is opened with O_NOFOLLOW, a new one with O_CREAT|O_EXCL (which never follows a link either,
so one planted between the check and the open is refused too), and only a plain file with no
other hard link is used. The folder itself may be a link: the user chose where it lives.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from atlas.sanitize import clean_line

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS = _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


class UnsafeStateFile(OSError):
    """A file in the state folder is a link, or not a plain file: Atlas refuses to open it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(errno.ELOOP, f"it {reason}, and Atlas does not follow links in its state folder", str(path))
        self.path = path

    def __str__(self) -> str:
        return f"{clean_line(self.path)}: {self.strerror}"


def refuse_unsafe(path: Path) -> bool:
    """Whether `path` exists; an UnsafeStateFile when it is a link or anything but a lone plain file."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    _check(path, info)
    return True


def _check(path: Path, info: os.stat_result) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeStateFile(path, "is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeStateFile(path, "is not a regular file")
    if info.st_nlink > 1:
        raise UnsafeStateFile(path, "is a hard link to another file")


def open_fd(path: Path, flags: int, *, create: bool = False, mode: int = 0o644) -> int:
    """A descriptor on the plain file at `path` itself, never on what a link there points to.

    With `create`, a missing file is made with O_EXCL; when another process made it first, that
    file is opened instead (two Atlas processes appending at once), still without following links.
    """
    for _ in range(2):
        try:
            fd = os.open(path, flags | _OPEN_FLAGS)
        except FileNotFoundError:
            if not create:
                raise
            try:
                fd = os.open(path, flags | _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, mode)
            except FileExistsError:
                continue  # made meanwhile: open what is there now, which must pass the same checks
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafeStateFile(path, "is a symbolic link") from None
            raise
        try:
            _check(path, os.fstat(fd))
        except BaseException:
            os.close(fd)
            raise
        return fd
    raise UnsafeStateFile(path, "keeps changing while it is opened")


def read_bytes(path: Path) -> bytes | None:
    """The whole file, or None when there is none."""
    try:
        fd = open_fd(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as file:
        return file.read()


def write_all(fd: int, data: bytes) -> None:
    """Write every byte (os.write may write fewer)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written == 0:
            raise OSError(errno.EIO, "the file took no more bytes")
        view = view[written:]


@contextmanager
def locked(path: Path, *, timeout: float) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing); filelock.Timeout when another holds it.

    The lock file is opened here first, without following links, and kept open while locked, so
    the file filelock locks is checked to be that same plain file.
    """
    import filelock  # here, not at the top: `atlas log` opens the call log and needs no lock

    pin = open_fd(path, os.O_RDWR, create=True)
    try:
        lock = filelock.FileLock(str(path), timeout=timeout)
        try:
            lock.acquire()
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafeStateFile(path, "is a symbolic link") from None
            raise
        try:
            _same_file(path, pin)
            yield
        finally:
            lock.release()
    finally:
        os.close(pin)


def _same_file(path: Path, fd: int) -> None:
    try:
        now = os.lstat(path)
    except FileNotFoundError:
        raise UnsafeStateFile(path, "was replaced while it was opened") from None
    _check(path, now)
    pinned = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (pinned.st_dev, pinned.st_ino):
        raise UnsafeStateFile(path, "was replaced while it was opened")


class _PinnedConnection(sqlite3.Connection):
    """A connection that keeps its database file's own descriptor open until it closes.

    Closing any descriptor of a file drops the process's POSIX locks on it (SQLite's included),
    so the pin must outlive every lock SQLite takes.
    """

    pin: int = -1

    def close(self) -> None:
        super().close()
        if self.pin >= 0:
            os.close(self.pin)
            self.pin = -1


def connect_sqlite(path: Path, **options: Any) -> sqlite3.Connection:
    """A connection to the SQLite database at `path` itself (created empty if missing).

    SQLite follows links both in the database's name and in its -wal, -shm and -journal files, so
    they are checked first; the database file is opened here without following links and kept
    open, SQLite is told never to create it (`mode=rw`), and the file SQLite opened must be that one.
    SQLite opens the companions itself, so their check holds against links shipped in the folder,
    not against another process planting one in the instant between the check and SQLite's open.
    """
    for suffix in SQLITE_COMPANIONS:
        refuse_unsafe(path.with_name(path.name + suffix))
    pin = open_fd(path, os.O_RDWR, create=True)
    try:
        uri = f"{path.absolute().as_uri()}?mode=rw"
        conn = sqlite3.connect(uri, uri=True, factory=_PinnedConnection, **options)
    except BaseException:
        os.close(pin)
        raise
    assert isinstance(conn, _PinnedConnection)
    conn.pin = pin
    try:
        opened = conn.execute("PRAGMA database_list").fetchone()[2]
        _same_file(path, pin)
        opened_info, pinned = os.stat(opened), os.fstat(pin)
        if (opened_info.st_dev, opened_info.st_ino) != (pinned.st_dev, pinned.st_ino):
            raise UnsafeStateFile(path, "was replaced while it was opened")
    except BaseException:
        conn.close()
        raise
    return conn
