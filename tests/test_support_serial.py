"""The lock behind the `serial` marker: an exclusive holder waits for the shared ones, and new
shared holders wait behind it."""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

from tests.support.serial import machine_share


def held_by_another(path: Path) -> bool:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def test_a_serial_test_waits_for_the_running_ones_and_holds_off_new_ones(tmp_path: Path) -> None:
    entered = threading.Event()
    leave = threading.Event()

    def serial() -> None:
        with machine_share(tmp_path, alone=True):
            entered.set()
            leave.wait(30)

    with machine_share(tmp_path, alone=False):
        waiter = threading.Thread(target=serial)
        waiter.start()
        while not held_by_another(tmp_path / "serial.turnstile"):  # it queued ahead of newcomers
            assert waiter.is_alive()
        assert not entered.is_set()  # a shared holder still runs
    assert entered.wait(30)
    newcomer = threading.Thread(target=lambda: machine_share(tmp_path, alone=False).__enter__())
    newcomer.daemon = True
    newcomer.start()
    newcomer.join(0.2)
    assert newcomer.is_alive()  # held off while the serial test runs
    leave.set()
    waiter.join(30)
    newcomer.join(30)
    assert not newcomer.is_alive()
