"""What two reports of one failure share beyond words: error codes, exception names, stack frames.

Frames are compared without line numbers and install prefixes (`orbit/worker/runner.py in
_claim_loop`): the same bug on another version or machine has other numbers and paths.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CODE = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{2,6}\b|\b[A-Z][A-Za-z0-9]+(?:Error|Exception|Exhausted|Timeout)\b")
PY_FRAME = re.compile(r'File "([^"\n]+)", line \d+, in ([\w<>.]+)')
OTHER_FRAME = re.compile(r"^\s*at ([\w$.<>/]+)\(", re.M)
PREFIXES = re.compile(r"^.*?(?:site-packages|dist-packages|node_modules|src)/")


@dataclass(frozen=True)
class Signature:
    codes: frozenset[str]
    frames: frozenset[str]

    def shared(self, other: Signature) -> tuple[list[str], list[str]]:
        return sorted(self.codes & other.codes), sorted(self.frames & other.frames)


def _frame(path: str, function: str) -> str:
    short = PREFIXES.sub("", path)
    parts = short.split("/")
    return f"{'/'.join(parts[-3:])} in {function}"


def signature(text: str) -> Signature:
    codes = frozenset(CODE.findall(text))
    frames = {_frame(path, function) for path, function in PY_FRAME.findall(text)}
    frames |= set(OTHER_FRAME.findall(text))
    return Signature(codes, frozenset(frames))
