"""What every test package shares: running `atlas` (`run`), a loopback HTTP server (`loopback`), the
fixtures of `tests/conftest.py` (`fixtures`), the lock that gives a `serial` test the machine
(`serial`) and a listener that keeps the events it hears (`heard`)."""
