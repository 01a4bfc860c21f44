"""Another process's life, and this one's end: a cleanup on the ending signals, then the signal goes on."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from atlas.foundation.processes import pid_alive

GUARDED = """
import signal, sys, time
from pathlib import Path
from atlas.foundation.processes import EndingSignals

def cleaned() -> None:
    Path(sys.argv[1]).write_text("cleaned", encoding="utf-8")

EndingSignals(cleaned, (signal.SIGTERM, signal.SIGHUP)).guard()
print("ready", flush=True)
time.sleep(30)
"""


def guarded_child(tmp_path: Path) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", GUARDED, str(tmp_path / "mark")], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


def test_a_running_process_is_alive_and_an_ended_one_is_not_even_unreaped() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert pid_alive(child.pid)
    finally:
        child.kill()
    deadline = time.monotonic() + 10
    while pid_alive(child.pid) and time.monotonic() < deadline:  # a zombie until reaped: ended all the same
        time.sleep(0.02)
    assert not pid_alive(child.pid)
    child.wait()
    assert not pid_alive(child.pid)


def test_the_cleanup_runs_and_the_process_still_ends_by_the_signal(tmp_path: Path) -> None:
    child = guarded_child(tmp_path)
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=10) == -signal.SIGTERM  # the shell sees 143, as if it was never caught
    assert (tmp_path / "mark").read_text(encoding="utf-8") == "cleaned"


def test_a_signal_set_to_be_ignored_stays_ignored(tmp_path: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", GUARDED, str(tmp_path / "mark")],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN),  # as `nohup` starts it
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    try:
        child.send_signal(signal.SIGHUP)
        time.sleep(0.3)
        assert child.poll() is None and not (tmp_path / "mark").exists()
    finally:
        child.kill()
        child.wait()
