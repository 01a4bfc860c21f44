"""The tracker's records in a local file: `$ATLAS_HOME/tracker_actions.jsonl`.

Each action is one JSON line, written under a file lock by a single `os.write` on an O_APPEND
descriptor and fsync'd, so concurrent processes never interleave records. A line torn by a
crash is skipped (and counted) by readers, and the next append starts on a fresh line. The file
and its lock are opened through `atlas.foundation.statefiles`: a link planted in their place is refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from atlas.foundation import statefiles
from atlas.foundation.errors import PermanentToolError, TransientToolError
from atlas.foundation.notices import warn
from atlas.foundation.sanitize import clean_line

ACTIONS_FILE = "tracker_actions.jsonl"
RECORDED = ("add_label", "remove_label", "post_comment", "comment_marker")
LOCK_TIMEOUT_S = 5.0
_warned: set[tuple[Path, int]] = set()
_refusals_told: set[str] = set()


def forget_warnings() -> None:
    """Let the warnings said once per process be said again (for a process that runs many commands)."""
    _warned.clear()
    _refusals_told.clear()


def parse(line: bytes) -> dict[str, Any] | None:
    """One record, or None for a line that is not one."""
    try:
        record = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # RecursionError: nested too deeply to read
        return None
    if not isinstance(record, dict) or not isinstance(record.get("issue_id"), int):
        return None
    if record.get("action") not in RECORDED:
        return None
    return record


class RefusedStateFile(PermanentToolError):
    """A tracker file or its lock is a planted link (or not a plain file); nothing was written anywhere."""


def refused(exc: statefiles.UnsafeStateFile) -> RefusedStateFile:
    return RefusedStateFile(f"refused {exc}; nothing was written")


def _tell_the_person(exc: RefusedStateFile) -> None:
    """A refused write is said on stderr too (once per message), whatever the model makes of it."""
    if str(exc) not in _refusals_told:
        _refusals_told.add(str(exc))
        warn(f"{exc}")


class FileJournal:
    """The journal file of one state folder, with its lock."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.path = home / ACTIONS_FILE
        self.lock_path = home / f"{ACTIONS_FILE}.lock"
        self.where = clean_line(self.path)
        self.skipped = 0
        self._identity: tuple[int, int] | None = None
        """The file (device, inode) the parsed records below came from."""
        self._offset = 0
        """How many of its bytes, up to a newline, they were parsed from."""
        self._records: list[dict[str, Any]] = []
        self._corrupt = 0

    def read(self) -> list[dict[str, Any]]:
        """Every whole record, oldest first: only the bytes appended since the last read are parsed."""
        scan = self._scan()
        if scan is None:
            self._forget()
            self.skipped = 0
            return []
        lines = scan.split(b"\n")
        # The part after the last newline is a record still being written, or one a crash tore.
        tail = lines.pop()
        for line in lines:
            if not line.strip():
                continue
            record = parse(line)
            if record is None:
                self._corrupt += 1
            else:
                self._records.append(record)
        self._offset += len(scan) - len(tail)
        skipped = self._corrupt + (1 if tail.strip() else 0)
        self.skipped = skipped
        if skipped and (self.path, skipped) not in _warned:
            _warned.add((self.path, skipped))
            warn(f"skipped {skipped} torn or corrupt line(s) in {self.where}")
        return list(self._records)

    def _forget(self) -> None:
        """Drop what earlier reads parsed: the next one starts at the file's first byte."""
        self._identity = None
        self._offset = 0
        self._records = []
        self._corrupt = 0

    def _scan(self) -> bytes | None:
        """The bytes past what earlier reads parsed (all of them for a new, replaced or shortened file),
        or None when there is no file yet."""
        try:
            fd = statefiles.open_fd(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return None
        except statefiles.UnsafeStateFile as exc:
            raise refused(exc) from None
        except OSError as exc:
            raise PermanentToolError(f"cannot read {self.path}: {exc}") from None
        try:
            return self._scan_fd(fd)
        except statefiles.UnsafeStateFile as exc:
            raise refused(exc) from None
        except OSError as exc:
            raise PermanentToolError(f"cannot read {self.path}: {exc}") from None
        finally:
            os.close(fd)

    def _scan_fd(self, fd: int) -> bytes:
        info = os.fstat(fd)
        if info.st_size > statefiles.STATE_FILE_LIMIT:
            raise statefiles.StateFileTooLarge(self.path, statefiles.STATE_FILE_LIMIT)
        same_file = self._identity == (info.st_dev, info.st_ino) and info.st_size >= self._offset
        # An append-only file still ends its parsed part with a newline; anything else was rewritten.
        if not same_file or (self._offset and os.pread(fd, 1, self._offset - 1) != b"\n"):
            self._forget()
            self._identity = (info.st_dev, info.st_ino)
        wanted = info.st_size - self._offset
        chunks: list[bytes] = []
        while wanted > 0:
            chunk = os.pread(fd, wanted, self._offset + sum(map(len, chunks)))
            if not chunk:
                break
            chunks.append(chunk)
            wanted -= len(chunk)
        return b"".join(chunks)

    def with_key(self, key: str) -> list[dict[str, Any]]:
        """Only lines that can hold the key are parsed."""
        raw = self._read()
        if raw is None:
            return []
        needle = json.dumps(key, ensure_ascii=False).encode("utf-8")
        found = (parse(line) for line in raw.split(b"\n") if needle in line)
        return [record for record in found if record is not None and record.get("key") == key]

    def _read(self) -> bytes | None:
        """The file's bytes, or None when there is none yet."""
        try:
            return statefiles.read_bytes(self.path)
        except statefiles.UnsafeStateFile as exc:
            raise refused(exc) from None
        except OSError as exc:
            raise PermanentToolError(f"cannot read {self.path}: {exc}") from None

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """The journal's lock: held for a read-then-append, never across a network call."""
        return self._lock(self.lock_path)

    def issue_lock(self, name: str) -> contextlib.AbstractContextManager[None]:
        digest = hashlib.sha256(name.encode()).hexdigest()[:16]
        return self._lock(self.home / f"{ACTIONS_FILE}.{digest}.lock")

    @contextmanager
    def _lock(self, lock_path: Path) -> Iterator[None]:
        import filelock  # here, not at the top: a question that writes nothing takes no lock

        try:
            self.home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PermanentToolError(f"cannot create the state folder {self.home}: {exc}") from None
        held = ExitStack()
        try:
            held.enter_context(statefiles.locked(lock_path, timeout=LOCK_TIMEOUT_S))
        except filelock.Timeout:
            raise TransientToolError("the tracker file is locked by another process; try again") from None
        except statefiles.UnsafeStateFile as exc:
            refusal = refused(exc)
            _tell_the_person(refusal)
            raise refusal from None
        except OSError as exc:
            raise PermanentToolError(f"cannot lock {lock_path}: {exc}; nothing was written") from None
        with held:
            try:
                yield
            except RefusedStateFile as refusal:
                _tell_the_person(refusal)
                raise

    def append(self, record: dict[str, Any]) -> None:
        """Write one whole line and fsync it; the caller holds the lock."""
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            fd = statefiles.open_fd(self.path, os.O_RDWR | os.O_APPEND, create=True)
        except statefiles.UnsafeStateFile as exc:
            raise refused(exc) from None
        except OSError as exc:
            raise PermanentToolError(f"cannot open {self.path}: {exc}") from None
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # a torn last line stays alone, so this record is whole
            written = os.write(fd, line)
            os.fsync(fd)
        except OSError as exc:
            raise PermanentToolError(f"cannot write {self.path}: {exc}") from None
        finally:
            os.close(fd)
        if written != len(line):
            raise TransientToolError(f"only {written} of {len(line)} bytes reached {self.path}; try again")
