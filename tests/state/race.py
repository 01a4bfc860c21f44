"""Start processes that write to one journal at the same instant, and collect what each was told."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def race_writes(
    home: Path, writes: list[tuple[str, int, str, str]], limits: dict[str, Any], env: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Each (action, issue, key, session) written by its own process, all at one instant."""
    start = time.time() + 1.5 + 0.1 * len(writes)  # after every interpreter has started and opened the journal
    environment = {**os.environ, **(env or {}), "PYTHONPATH": str(REPO)}
    writer = [sys.executable, "-m", "tests.support.journal_writer", str(home), str(start)]
    started = [
        subprocess.Popen(
            [*writer, action, str(issue), key, session, json.dumps(limits)],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for action, issue, key, session in writes
    ]
    answers = []
    for process in started:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0 and "Traceback" not in err, err
        answers.append(json.loads(out.strip().splitlines()[-1]))
    return answers
