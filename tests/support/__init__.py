"""What every test package shares: running `atlas` (`run`), a loopback HTTP server (`loopback`), the
fixtures of `tests/conftest.py` (`fixtures`) and the lock that gives a `serial` test the machine
(`serial`)."""
