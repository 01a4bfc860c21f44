"""Start processes that write to one journal at the same instant, and collect what each was told."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def race_writes(
    home: Path,
    writes: list[tuple[str, int, str, str]],
    limits: dict[str, Any],
    env: dict[str, str] | None = None,
    label: str = "type:bug",
) -> list[dict[str, Any]]:
    """Each (action, issue, key, session) written by its own process, all let go at one instant once
    every one has started and opened the journal."""
    environment = {**os.environ, **(env or {}), "PYTHONPATH": str(REPO)}
    writer = [sys.executable, "-m", "tests.support.journal_writer", str(home)]
    started = [
        subprocess.Popen(
            [*writer, action, str(issue), key, session, json.dumps(limits), label],
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for action, issue, key, session in writes
    ]
    for process in started:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready", process.communicate(timeout=60)
    for process in started:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    answers = []
    for process in started:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0 and "Traceback" not in err, err
        answers.append(json.loads(out.strip().splitlines()[-1]))
    return answers
