"""`data_table`'s table for thousands of rows: the same lines, written as text instead of laid out by Rich.

Rich measures and renders every cell of a table as a renderable, about half a millisecond a row:
30,000 inbox rows took 20 s to draw where printing them as JSON took 2. The lines are simple (cells
padded or cut to their column's width with `…`, ` │ ` between them, a bold header over a `━╇━` rule),
so they are written here with string formatting, a page at a time: the same widths Rich gives a
table that fits, and where it does not, the columns named in `cut` give up their width first, as
Rich's do. A table too narrow for even that is left to Rich itself (`data_table`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.text import Text

from atlas.foundation.sanitize import clean_line, write_line
from atlas.ui.render import data_table

HEADER_STYLE = "bold"
PAGE_ROWS = 1000
"""Lines handed to the terminal at once."""
_GAP = 3
"""` │ ` between two columns: a space of padding each side of the rule."""


def write_table(
    console: Console,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    right: Iterable[str] = (),
    cut: Iterable[str] = (),
) -> None:
    """Print `data_table(columns, rows, right=right, cut=cut)` as Rich would, in a fraction of the time."""
    cells = [[clean_line("" if value is None else value) for value in row] for row in rows]
    aligned, cuttable = set(right), set(cut)
    natural = [max([cell_len(name), *(cell_len(row[index]) for row in cells)]) for index, name in enumerate(columns)]
    widths = fitted(natural, [name in cuttable for name in columns], console.width)
    if widths is None or any(width < cell_len(name) for width, name in zip(widths, columns, strict=True)):
        console.print(data_table(columns, cells, right=right, cut=cut))
        return
    rights = [name in aligned for name in columns]
    console.print(Text(_line(list(columns), widths, rights, " ┃ "), style=HEADER_STYLE))
    write_line("━╇━".join("━" * width for width in widths), file=console.file)
    for start in range(0, len(cells), PAGE_ROWS):
        page = cells[start : start + PAGE_ROWS]
        write_line("\n".join(_line(row, widths, rights, " │ ") for row in page), file=console.file)
    console.file.flush()


def fitted(natural: list[int], shrinkable: list[bool], room: int) -> list[int] | None:
    """Each column's width: its widest cell while the table fits in `room`; else the widest shrinkable
    columns are brought down together, as Rich's tables do. None when that cannot make it fit."""
    widths = list(natural)
    excess = sum(widths) + _GAP * (len(widths) - 1) - room
    while excess > 0:
        candidates = [width for width, can in zip(widths, shrinkable, strict=True) if can]
        widest = max(candidates, default=0)
        below = max((width for width in candidates if width < widest), default=0)
        at_widest = [index for index, width in enumerate(widths) if shrinkable[index] and width == widest]
        if not at_widest or widest <= 1:
            return None
        step = min(widest - max(below, 1), -(-excess // len(at_widest)))
        for index in at_widest:
            cut_by = min(step, excess)
            widths[index] -= cut_by
            excess -= cut_by
    return widths


def _line(cells: Sequence[str], widths: Sequence[int], rights: Sequence[bool], gap: str) -> str:
    return gap.join(_fit(cell, width, right) for cell, width, right in zip(cells, widths, rights, strict=True))


def _fit(cell: str, width: int, right: bool) -> str:
    size = cell_len(cell)
    if size > width:
        return set_cell_size(cell, width - 1) + "…"
    padding = " " * (width - size)
    return padding + cell if right else cell + padding
