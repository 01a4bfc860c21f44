"""A table written line by line is the table Rich draws: widths, cuts, alignment, hostile cells."""

from __future__ import annotations

import io

import pytest

from atlas.ui.line_table import fitted, write_table
from atlas.ui.render import data_table, make_console

COLUMNS = ("issue", "severity", "age", "title", "why")
ROWS = [
    ("#1", "severity:S1", "12d", "A rather long title, with 日本語 wide characters and then some more words", "stale"),
    ("#100", "", "0d", "short", "unanswered; new"),
    ("#23", "unknown", "1824d", "x\x1b[31mred\nsecond line \u202eevil", "untriaged: no type:"),
    ("#7", None, "3d", "🙂 emoji first", 'label "quoted"'),
]


def _drawn(width: int, draw: str, *, terminal: bool = False) -> str:
    out = io.StringIO()
    console = make_console(file=out, width=width)
    if terminal:
        console.force_terminal = True
    if draw == "rich":
        console.print(data_table(COLUMNS, ROWS, right=("age",), cut=("title",)))
    else:
        write_table(console, COLUMNS, ROWS, right=("age",), cut=("title",))
    return out.getvalue()


@pytest.mark.parametrize("width", [100_000, 160, 110, 80, 64, 50, 30])
@pytest.mark.parametrize("terminal", [False, True], ids=["pipe", "terminal"])
def test_the_lines_are_the_ones_rich_draws(width: int, terminal: bool) -> None:
    assert _drawn(width, "lines", terminal=terminal) == _drawn(width, "rich", terminal=terminal)


def test_only_the_cut_columns_give_up_width_and_never_below_one_cell() -> None:
    assert fitted([5, 10, 40], [False, False, True], 1000) == [5, 10, 40]
    assert fitted([5, 10, 40], [False, False, True], 5 + 10 + 30 + 6) == [5, 10, 30]
    assert fitted([20, 40, 30], [False, True, True], 20 + 50 + 6) == [20, 25, 25]
    assert fitted([5, 10, 40], [False, False, True], 5 + 10 + 6) is None
    assert fitted([5, 10], [False, False], 10) is None
