"""The one door to files Atlas did not write itself: the state folder, and every file it reads.

Reading. A file someone else could have placed (a plan, an export, a dataset's issues and docs, a
config, a replay script, a state file) is read through `read_limited` or `open_regular`: opened
without blocking (a FIFO cannot hold Atlas waiting for a writer), used only when it is a regular
file (a link to `/dev/zero`, a device or a folder is refused), and read up to a limit its caller
states; past the limit, or refused, it is one `RefusedFile` line naming the file and why. A file read on every
tool call is read again only when it has changed (`ReadWhenChanged`).

The state folder is often a project's `.atlas/`, so a cloned repository can ship it, links included. A
link there could aim Atlas's writes at any file the user owns (a shell rc file, another SQLite
database), and a dangling one would make Atlas create a file wherever it points. So every state
file is opened with O_NOFOLLOW, a new one with O_CREAT|O_EXCL (which never follows a link either,
so one planted between the check and the open is refused too), and only a plain file with no
other hard link is used. The folder itself may be a link: the user chose where it lives.

Replacing. A state file rewritten whole goes through `replace_file` (`replacing` for a writer that wants a file
object, `replacing_at` for one that writes through a path): a new file beside it, renamed over it when whole.
"""

from __future__ import annotations

import errno
import os
import secrets
import sqlite3
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO, Generic, TypeVar

from atlas.foundation.sanitize import clean_line

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_OPEN_FLAGS = _NOFOLLOW | _NONBLOCK_FLAGS
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
MiB = 2**20
GiB = 2**30
ISSUES_FILE_LIMIT = 4 * GiB
"""The most Atlas reads of a dataset's `issues.jsonl`, which it reads as a stream, never whole."""
SOURCE_RECORD_LIMIT = 256 * MiB
"""The most Atlas reads of a dataset's `atlas-source.json` (a synced project's ETags, one per issue)."""
DOC_LIMIT = 16 * MiB
"""The most Atlas reads of one doc of a dataset."""
STATE_FILE_LIMIT = 64 * MiB
"""The most Atlas reads of one file in its state folder (a config, the tracker file, a history)."""


class RefusedFile(OSError):
    """A file Atlas will not use: a link where none may be, not a regular file, or past its limit."""

    def __init__(self, path: Path, why: str, code: int = errno.EINVAL) -> None:
        super().__init__(code, why, str(path))
        self.path = path

    def __str__(self) -> str:
        return f"{clean_line(self.path)}: {self.strerror}"


class UnsafeStateFile(RefusedFile):
    """A file in the state folder is a link, or not a plain file: Atlas refuses to open it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(path, f"it {reason}, and Atlas does not follow links in its state folder", errno.ELOOP)


class StateFileTooLarge(UnsafeStateFile):
    """A file in the state folder is larger than Atlas reads of one."""

    def __init__(self, path: Path, limit: int) -> None:
        RefusedFile.__init__(self, path, too_large(limit, "a file in its state folder"), errno.EFBIG)


def too_large(limit: int, what: str) -> str:
    """`it is larger than 16 MiB, the most Atlas reads of a plan`."""
    size = f"{limit // MiB:,} MiB" if limit % MiB == 0 else f"{limit:,} bytes"
    return f"it is larger than {size}, the most Atlas reads of {what}"


def _not_regular(mode: int) -> str:
    return f"it is {_kind(mode)}, not a regular file: Atlas reads only regular files"


def _kind(mode: int) -> str:
    kinds = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a device", stat.S_IFBLK: "a device", stat.S_IFDIR: "a folder"}
    return kinds.get(stat.S_IFMT(mode), "a socket" if stat.S_ISSOCK(mode) else "not a file")


def check_regular(path: Path) -> None:
    """A RefusedFile unless `path` is, or links to, a regular file: for a file another library opens
    itself (SQLite), checked just before it does, so it never waits on a FIFO or reads a device."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise RefusedFile(path, _not_regular(info.st_mode))


def open_regular(path: Path, *, limit: int, what: str, links: bool = True) -> BinaryIO:
    """The regular file at `path`, open for reading; a RefusedFile for anything else or a larger one.

    Opened with O_NONBLOCK, so a FIFO never waits for a writer; then its own descriptor must be a
    regular file (a link to `/dev/zero` is a device) of at most `limit` bytes. With `links`
    false, a link at `path` itself is refused too. For a file read in a stream (the size is
    checked when it is opened); `read_limited` reads a whole one and stops at the limit anyway.
    """
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK_FLAGS | (0 if links else _NOFOLLOW))
    except OSError as exc:
        if exc.errno == errno.ELOOP and not links:
            raise RefusedFile(path, "it is a symbolic link, which Atlas does not follow here", errno.ELOOP) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile(path, _not_regular(info.st_mode))
        if info.st_size > limit:
            raise RefusedFile(path, too_large(limit, what), errno.EFBIG)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_limited(path: Path, *, limit: int, what: str, links: bool = True) -> bytes:
    """The whole regular file at `path`, of at most `limit` bytes (see `open_regular`)."""
    with open_regular(path, limit=limit, what=what, links=links) as file:
        data = file.read(limit + 1)
    if len(data) > limit:  # it grew since it was opened, or reports no size (as /proc's files do)
        raise RefusedFile(path, too_large(limit, what), errno.EFBIG)
    return data


def read_text(path: Path, *, limit: int, what: str, links: bool = True, errors: str = "strict") -> str:
    """`read_limited`, decoded as UTF-8 (a UnicodeDecodeError, a ValueError, unless `errors` says otherwise)."""
    return read_limited(path, limit=limit, what=what, links=links).decode("utf-8", errors=errors)


def read_named(path: Path, *, limit: int, what: str, missing: Exception, refused: Callable[[str], Exception]) -> str:
    """`read_text` of a file a person named; none there raises `missing`, one refused or unreadable (no
    permission, not UTF-8) raises `refused` of a line that names it and says why."""
    try:
        return read_text(path, limit=limit, what=what)
    except FileNotFoundError:
        raise missing from None
    except RefusedFile as exc:
        raise refused(str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        raise refused(str(RefusedFile(path, f"cannot be read: {why}"))) from None


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


T = TypeVar("T")


class ReadWhenChanged(Generic[T]):
    """What `read` made of a file, kept with the file's inode, size and times, and made again only
    once they change: a writer that replaces the file whole changes its inode. `read` answers None
    for a file it cannot use, which is not kept (it is asked again next time)."""

    def __init__(self, read: Callable[[Path], T | None]) -> None:
        self.read = read
        self._seen: dict[Path, tuple[tuple[int, int, int, int], T]] = {}

    def get(self, path: Path) -> T | None:
        """None when the file cannot be seen, or `read` made nothing of it."""
        try:
            info = os.stat(path, follow_symlinks=False)
        except OSError:
            return None
        version = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        seen = self._seen.get(path)
        if seen is not None and seen[0] == version:
            return seen[1]
        value = self.read(path)
        if value is not None:
            self._seen[path] = (version, value)
        return value


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


def read_bytes(path: Path, limit: int = STATE_FILE_LIMIT) -> bytes | None:
    """The whole state file, or None when there is none; StateFileTooLarge past `limit` bytes."""
    try:
        fd = open_fd(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as file:
        if os.fstat(file.fileno()).st_size > limit:
            raise StateFileTooLarge(path, limit)
        data = file.read(limit + 1)
    if len(data) > limit:
        raise StateFileTooLarge(path, limit)
    return data


def write_all(fd: int, data: bytes) -> None:
    """Write every byte (os.write may write fewer)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written == 0:
            raise OSError(errno.EIO, "the file took no more bytes")
        view = view[written:]


def replace_file(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace the state file at `path` with `data`, whole and at once (see `replacing`)."""
    with replacing(path, mode=mode) as file:
        file.write(data)


@contextmanager
def replacing(path: Path, *, mode: int = 0o600) -> Iterator[BinaryIO]:
    """A file to write the new content of `path` into; when the block ends cleanly it replaces `path`.

    Readers see the old file or the new one, never half of one: the content goes to a new file beside
    `path` (O_EXCL, never through a link), reaches the disk (fsync), then is renamed over `path`. What
    stands at `path` must be a lone plain file or nothing: a link (even a dangling one), a hard link to
    another file or anything else is refused (UnsafeStateFile) and nothing is written. A rename replaces
    a link planted after that check, never what it points to. The file keeps its mode; a new one gets
    `mode`. On any error the new file is removed and `path` is as it was.
    """
    kept = _mode_of(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _OPEN_FLAGS, mode)
    try:
        with os.fdopen(fd, "wb") as file:
            if kept is not None:
                os.fchmod(file.fileno(), kept)  # as it was, whatever the umask
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


@contextmanager
def replacing_at(path: Path, *, name: str | None = None) -> Iterator[Path]:
    """`replacing` for what writes through a path (SQLite): a new path beside `path` (named `name`, else uniquely)
    that is renamed over it when the block ends cleanly; on any error it and its SQLite journal are removed."""
    _mode_of(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(name or f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException:
        for leftover in (temporary, temporary.with_name(temporary.name + "-journal")):
            leftover.unlink(missing_ok=True)
        raise


def _mode_of(path: Path) -> int | None:
    """The permission bits of the plain file at `path`, None when there is none; refused as in `_check`."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    _check(path, info)
    return stat.S_IMODE(info.st_mode)


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
