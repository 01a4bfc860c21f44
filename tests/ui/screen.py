"""A few lines of a terminal: what is left on screen after a Live has drawn, paused and erased."""

from __future__ import annotations

import re


def screen(output: str) -> list[str]:
    """The lines a terminal shows after `output`: enough of one for a Live (CR, LF, cursor up, erase line)."""
    lines, row, col = [""], 0, 0
    for token in re.findall(r"\x1b\[[0-9;?]*[A-Za-z]|\r|\n|[^\x1b\r\n]+", output):
        if token == "\n":
            row, col = row + 1, 0
            if row == len(lines):
                lines.append("")
        elif token == "\r":
            col = 0
        elif token.startswith("\x1b[") and token.endswith("A"):
            row = max(0, row - int(token[2:-1] or 1))
        elif token == "\x1b[2K":
            lines[row] = ""
        elif not token.startswith("\x1b"):
            lines[row] = lines[row][:col].ljust(col) + token + lines[row][col + len(token) :]
            col += len(token)
    return [line.rstrip() for line in lines]
