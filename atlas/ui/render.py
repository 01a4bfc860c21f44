"""Consoles, the answer and plain data tables, all through `safe`.

Consoles here never parse markup, emoji codes or highlight reprs in what they print: every
piece of data reaches them as a `Text` built from sanitised strings. And whatever reaches one
anyway (a plain string, a `Text` built elsewhere) is cleaned as it is rendered: only Rich's own
styling and cursor codes reach the terminal. `make_console` is the only way Atlas makes one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import IO, Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from atlas.foundation.sanitize import clean, clean_line
from atlas.ui.safe import safe_markdown

PIPED_TABLE_WIDTH = 100_000
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # Rich would exit 1 here; the reader going away is for `guarded` to handle, as for `print`.
        self.quiet = True
        raise BrokenPipeError

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterator[Segment]:
        # Every renderable's text passes here on its way out (tables and panels render their cells
        # through it too); control segments are Rich's own cursor moves, kept as they are.
        for segment in super().render(renderable, options):
            if segment.control:
                yield segment
            else:
                yield Segment(clean(segment.text), segment.style)


def make_console(
    *, stderr: bool = False, file: IO[str] | None = None, width: int | None = None, for_tables: bool = False
) -> Console:
    """A console that honours NO_COLOR and a non-terminal, and treats every string as plain.

    `for_tables`: on a pipe, rows are laid out wide instead of folded to 80 columns, so a
    table sent to a file or to `grep` keeps one line per row.
    """
    console = _Console(
        stderr=stderr,
        file=file,
        width=width,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=False,
    )
    if for_tables and width is None and not console.is_terminal:
        console.width = PIPED_TABLE_WIDTH
    return console


def print_answer(console: Console, answer: str) -> None:
    """The answer as Markdown: cleaned, links spelled out as `text (url)`, no hyperlink codes."""
    if console.is_terminal:
        console.print(safe_markdown(answer))
        return
    print_trimmed(console, safe_markdown(answer))


def print_trimmed(console: Console, renderable: RenderableType) -> None:
    """`renderable` without the blanks Rich pads each line with to the full width: on a pipe, a
    file or a paste they are only trailing blanks."""
    with console.capture() as captured:
        console.print(renderable)
    write_rendered(console, "\n".join(line.rstrip() for line in captured.get().splitlines()) + "\n")


def write_rendered(console: Console, rendered: str) -> None:
    """What `console` rendered earlier (`console.capture()`), cleaned then, written as it is."""
    console.file.write(rendered)
    console.file.flush()


def iso_time(ts: float) -> str:
    """The one time format of `atlas log --json` and `atlas tracker --json`: ISO 8601, UTC, milliseconds."""
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")


def local_time(when: float | str) -> str:
    """A Unix time or an ISO 8601 timestamp as every table shows it: local, to the second.

    Anything else is returned as it came, for the table to show cleaned.
    """
    try:
        moment = datetime.fromtimestamp(when) if isinstance(when, (int, float)) else datetime.fromisoformat(when)
        return moment.astimezone().strftime(TIME_FORMAT)
    except (TypeError, ValueError, OverflowError, OSError):
        return str(when)


def data_table(
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    right: Iterable[str] = (),
    widths: Mapping[str, int] | None = None,
    cut: Iterable[str] = (),
    min_widths: Mapping[str, int] | None = None,
) -> Table:
    """A table whose every cell is cleaned to one visible line of plain text.

    Columns named in `cut` (arguments, bodies) give up their width first when the table is too
    wide and are cut with an ellipsis; every other column (ids, dates, counts) keeps its width
    and is never split over lines, as `gh` lays out a narrow terminal. With no `cut`, cells fold.
    `widths` fixes the columns it names instead of fitting them to these rows, so that tables
    printed one after another line up; `min_widths` keeps a cut column at least that wide.
    """
    aligned, cuttable = set(right), set(cut)
    fixed = widths or {}
    table = Table(show_edge=False, header_style="bold", pad_edge=False)
    for name in columns:
        table.add_column(
            name,
            justify="right" if name in aligned else "left",
            overflow="ellipsis" if cuttable else "fold",
            # Only a column that may wrap is narrowed to fit: the others keep their whole width.
            no_wrap=bool(cuttable) and name not in cuttable,
            width=fixed.get(name),
            min_width=(min_widths or {}).get(name) if name in cuttable else None,
        )
    for row in rows:
        table.add_row(*(_cell(cell, cut=bool(cuttable)) for cell in row))
    return table


def _cell(value: Any, *, cut: bool) -> Text:
    text = Text(clean_line("" if value is None else value))
    if cut:
        # The column may be narrowed, but the cell stays on one line: what does not fit ends in `…`.
        text.no_wrap, text.overflow = True, "ellipsis"
    return text
