"""Running `atlas` the way a user meets it: a process with no terminal, or one on a pseudo-terminal.

Every run gets its own state folder, no OpenAI settings unless a test passes them, `NO_COLOR`,
and `tests/adversarial/fixtures` on the import path for the tool modules kept there.
"""

from __future__ import annotations

import functools
import json
import os
import pickle
import re
import resource
import selectors
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pexpect
import typer.main
from typer.core import TyperGroup
from typer.testing import CliRunner

from atlas.cli.quick_exit import exit_code
from atlas.cli.root import app
from tests.support.process_state import fresh_process_state

FIXTURES = Path(__file__).resolve().parents[1] / "adversarial" / "fixtures"
REPO = Path(__file__).resolve().parents[2]
_RUNNER = CliRunner()
_DROPPED = ("OPENAI_", "ATLAS_", "ORBIT_DATA", "COLUMNS", "LINES", "TERM", "OTEL_")

# Terminal bytes that act instead of being shown: ESC, BEL, and the C1 controls CSI, OSC
# (and the rest of C1, plus the bidi overrides that reorder what the eye sees).
_ACTIVE_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# What Rich itself writes on a terminal with NO_COLOR: plain SGR attributes (bold, dim, reset),
# erase-line and cursor moves for live rows, cursor hide/show. No colour, no OSC, no screen clear.
_RICH_OWN = re.compile(rb"\x1b\[(?:[0-9;]*m|[0-9]*[ABCDGK]|\?25[hl])")
_SGR_ALLOWED = frozenset({"", "0", "1", "2", "3", "4", "7", "9", "21", "22", "23", "24", "27", "29"})


def atlas_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of one run: inherited, minus anything that would steer Atlas or the SDK."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(_DROPPED)}
    # An installed Atlas starts from bytecode: a run that compiled every module again would pay
    # a cost no user pays (and the first run of a test session writes the bytecode for the rest).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        ATLAS_HOME=str(home),
        NO_COLOR="1",
        COLUMNS="160",
        PYTHONPATH=os.pathsep.join(filter(None, [str(FIXTURES), env.get("PYTHONPATH", "")])),
    )
    env.update(extra)
    return env


@dataclass(frozen=True)
class Run:
    """A finished `atlas` process: exit code and the raw bytes it wrote."""

    code: int
    out: bytes
    err: bytes

    @property
    def returncode(self) -> int:
        """The exit code, named as `subprocess` names it."""
        return self.code

    @property
    def stdout(self) -> str:
        return self.out.decode("utf-8", errors="replace")

    @property
    def stderr(self) -> str:
        return self.err.decode("utf-8", errors="replace")

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def with_closed(command: list[str], closed: Sequence[int]) -> list[str]:
    """`command`, started with the descriptors in `closed` not open at all: Python then gives it no
    stream for them (None), as when a service manager starts it so."""
    if not closed:
        return command
    return ["sh", "-c", 'exec "$0" "$@" ' + " ".join(f"{fd}>&-" for fd in closed), *command]


def run_atlas(
    *args: str, env: dict[str, str], stdin: bytes | None = None, timeout: float = 60.0, closed: Sequence[int] = ()
) -> Run:
    """`python -m atlas ARGS` with piped standard input (or /dev/null) and no controlling terminal;
    the descriptors in `closed` are not open at all when it starts (`with_closed`)."""
    done = subprocess.run(
        with_closed([sys.executable, "-m", "atlas", *args], closed),
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=timeout,
        start_new_session=True,  # no controlling terminal: /dev/tty cannot be opened
    )
    return Run(done.returncode, done.stdout, done.stderr)


def start_atlas(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`python -m atlas ARGS` in the background, without a terminal, for tests that kill or race it."""
    return subprocess.Popen(
        [sys.executable, "-m", "atlas", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=REPO,
        start_new_session=True,
    )


def spawn_atlas(*args: str, env: dict[str, str], timeout: float = 60.0) -> pexpect.spawn:
    """`python -m atlas ARGS` on a real pseudo-terminal, which is its controlling terminal."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "atlas", *args],
        env={**env, "TERM": "xterm-256color"},
        cwd=str(REPO),
        timeout=timeout,
        dimensions=(50, 160),
    )


def finish(child: pexpect.spawn) -> tuple[int, bytes]:
    """Wait for a spawned run to end; its exit code and everything it wrote after the last expect."""
    child.expect(pexpect.EOF)
    rest: bytes = child.before or b""
    child.close()
    assert child.exitstatus is not None, f"atlas died of signal {child.signalstatus}"
    return int(child.exitstatus), rest


def write_script(folder: Path, turns: list[dict[str, Any]], name: str = "script.json") -> str:
    """A replay script (the `--model replay:PATH` format); returns the `--model` value that plays it."""
    path = folder / name
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return f"replay:{path}"


@functools.cache
def _command() -> TyperGroup:
    """The command tree of `atlas.cli.root.app`, built once per test process. Typer builds it afresh on
    every run (each command's signature and type hints read again, about 20 ms); a run never changes it."""
    command = typer.main.get_command(app)
    assert isinstance(command, TyperGroup)
    return command


def invoke(*args: str, env: Mapping[str, str], stdin: str | bytes | None = None) -> Run:
    """`atlas ARGS` in this process, as Typer's test runner runs it, for commands that need no
    terminal and no process of their own: no interpreter start-up to pay. The run sees `env` as its
    whole environment, starts from the process-wide state a fresh process has, and can import the
    tool modules in `tests/adversarial/fixtures`. An exception that escaped the command (which a
    person would have seen as a traceback) is raised here."""
    changed: dict[str, str | None] = {key: value for key, value in env.items() if os.environ.get(key) != value}
    changed.update({key: None for key in os.environ if key not in env})
    command = _command()
    sys.path.insert(0, str(FIXTURES))
    try:
        with fresh_process_state(), _RUNNER.isolation(input=stdin, env=changed) as (stdout, stderr, _):
            try:
                command.main(args=list(args), prog_name=_RUNNER.get_default_prog_name(command))
                code = 0
            except SystemExit as done:
                code = exit_code(done.code)  # as the `atlas` process reads it
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
            return Run(code, stdout.getvalue(), stderr.getvalue())
    finally:
        sys.path.remove(str(FIXTURES))


def _mapped_bytes() -> int:
    """The address space this process maps now (its VmSize)."""
    status = Path("/proc/self/status").read_text(encoding="ascii")
    return int(re.search(r"^VmSize:\s+(\d+) kB", status, re.M).group(1)) * 1024  # type: ignore[union-attr]


@dataclass(frozen=True)
class Forked:
    """A command running in a forked copy of the test's process (`fork_invoke`)."""

    pid: int
    result: int
    """The read end of the pipe its `Run` comes back on."""
    args: tuple[str, ...]

    def wait(self, timeout: float) -> Run:
        """Its `Run`; killed, and TimeoutError, when it has not ended within `timeout` seconds."""
        received = bytearray()
        deadline = time.monotonic() + timeout
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self.result, selectors.EVENT_READ)
                while chunk := (
                    os.read(self.result, 1 << 16) if selector.select(deadline - time.monotonic()) else None
                ):
                    received += chunk
                if chunk is None:
                    os.kill(self.pid, signal.SIGKILL)
                    raise TimeoutError(f"atlas {' '.join(self.args)} still running after {timeout:g} s")
        finally:
            os.close(self.result)
            _, status = os.waitpid(self.pid, 0)
        assert received and os.waitstatus_to_exitcode(status) == 0, f"the forked run ended with status {status}"
        code, out, err = pickle.loads(received)
        return Run(code, out, err)


def fork_invoke(*args: str, env: Mapping[str, str], memory_kb: int | None = None, cwd: Path | None = None) -> Forked:
    """`invoke` in a forked copy of this process, started now: a process of its own, which a timeout can kill,
    bounded like an `atlas` under `ulimit -v` when `memory_kb` is given (that much address space beyond what
    this process maps), in `cwd`, with no interpreter start or Atlas's imports to pay. For runs that need a
    process only to be bounded or to run beside others, never for a claim about the process itself
    (signals, terminals, what it imports, processes racing)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.close(read_end)
            if memory_kb is not None:
                limit = _mapped_bytes() + memory_kb * 1024
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            if cwd is not None:
                os.chdir(cwd)
            try:
                ran = invoke(*args, env=env)
                done = (ran.code, ran.out, ran.err)
            except BaseException:  # what escaped the command is what a user would have seen
                done = (1, b"", traceback.format_exc().encode())
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(pickle.dumps(done))
        finally:
            os._exit(0)  # neither pytest's exit handlers nor its buffers: they are the parent's
    os.close(write_end)
    return Forked(pid, read_end, args)


def invoke_bounded(*args: str, env: Mapping[str, str], memory_kb: int, timeout: float, cwd: Path | None = None) -> Run:
    """`fork_invoke` under a memory bound, waited for at most `timeout` seconds (TimeoutError)."""
    return fork_invoke(*args, env=env, memory_kb=memory_kb, cwd=cwd).wait(timeout)


def logged_calls(env: dict[str, str]) -> list[dict[str, Any]]:
    """Every call in the call log, through `atlas log --json`, which must succeed."""
    shown = invoke("log", "--json", "-n", "100000", env=env)
    assert shown.code == 0, shown
    assert_no_traceback(shown)
    return [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]


def tracker_records(env: dict[str, str], *options: str) -> list[dict[str, Any]]:
    """Every tracker action (or those `options` select), through `atlas tracker --json`, which must succeed."""
    shown = invoke("tracker", "--json", *options, env=env)
    assert shown.code == 0, shown
    assert_no_traceback(shown)
    return [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]


def jsonl_events(run: Run) -> list[dict[str, Any]]:
    """The events of a `--jsonl` run: every line of standard output is one JSON event, and the last is
    `finished` with the run's exit code."""
    events = [json.loads(line) for line in run.stdout.splitlines()]
    assert all(isinstance(event, dict) and "event" in event for event in events), run
    assert events and events[-1]["event"] == "finished" and events[-1]["exit_code"] == run.code, run
    return events


def assert_no_traceback(run: Run) -> None:
    assert "Traceback" not in run.output, run
    assert "MarkupError" not in run.output, run


def assert_inert_plain(raw: bytes, where: str = "output") -> None:
    """Output for a pipe: valid UTF-8 with no control, C1 or bidi character at all, not even from Rich.

    Checked as characters, not bytes: 0x9b is also a continuation byte of ordinary characters
    (`✛` is E2 9C 9B), which no terminal reads as CSI; U+009B itself is what must never appear.
    An OSC 8 hyperlink (or any OSC) cannot exist without ESC or U+009D, so none can be here.
    """
    text = raw.decode("utf-8")  # strict: a stray byte would be one a terminal may act on
    assert b"\x1b" not in raw and b"\x07" not in raw, f"raw ESC or BEL in {where}: {text!r}"
    active = sorted({f"U+{ord(char):04X}" for char in _ACTIVE_CHARS.findall(text)})
    assert not active, f"{where} carries {active}: {text!r}"


def assert_inert_tty(raw: bytes, where: str = "terminal") -> None:
    """Output on a terminal: only Rich's own styling and cursor codes, nothing that came from data."""
    for match in _RICH_OWN.finditer(raw):
        code = match.group(0)
        if code.endswith(b"m"):
            params = code[2:-1].decode().split(";")
            assert set(params) <= _SGR_ALLOWED, f"colour or unknown SGR {code!r} in {where} under NO_COLOR"
    rest = _RICH_OWN.sub(b"", raw)
    # Rich moves to the start of a line with a bare CR when it redraws live rows: allowed alone.
    assert_inert_plain(rest.replace(b"\r\n", b"\n").replace(b"\r", b""), where)
