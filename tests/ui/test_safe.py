"""The sanitiser: control sequences, bidi overrides, markup and hidden links come out visible and inert."""

from __future__ import annotations

import io

from rich.console import Console

from atlas.foundation.sanitize import clean, clean_line
from atlas.ui.render import print_answer
from atlas.ui.safe import call_label, compact_args, links_visible, safe_markdown, safe_text

OSC8 = "\x1b]8;;https://evil.example\x1b\\click here\x1b]8;;\x1b\\"
OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
CLEAR = "\x1b[2J\x1b[H"
CSI_C1 = "\x9b31mred"
BIDI = "safe\u202eexe.txt\u2066x\u2069"
MARKUP = "[link=https://evil.example]approve[/link] and [/] and [bold red]loud[/]"


def render(renderable: object, *, terminal: bool = False) -> str:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=terminal, no_color=not terminal, markup=False)
    console.print(renderable)
    return out.getvalue()


def test_controls_are_escaped_visibly() -> None:
    assert clean("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert clean("carriage\rreturn") == "carriage\\rreturn"
    assert clean("del\x7f c1\x9b nul\x00 bell\x07") == "del\\x7f c1\\x9b nul\\x00 bell\\x07"
    assert clean("rtl\u202eoverride \u2066iso\u2069") == "rtl\\u202eoverride \\u2066iso\\u2069"


def test_newline_and_tab_survive_except_on_one_line() -> None:
    assert clean("line one\n\tline two") == "line one\n\tline two"
    assert clean_line("line one\n\tline two") == "line one\\n\\tline two"


def test_ordinary_unicode_is_untouched() -> None:
    text = "Grüße — 東京 → ✓ é"
    assert clean(text) == text


def test_fixtures_render_without_raw_control_bytes() -> None:
    for hostile in (OSC8, OSC52, CLEAR, CSI_C1, BIDI):
        shown = render(safe_text(hostile))
        assert "\x1b" not in shown and "\x9b" not in shown and "\u202e" not in shown
        assert "\\x1b" in shown or "\\x9b" in shown or "\\u202e" in shown


def test_markup_in_data_is_shown_literally() -> None:
    shown = render(safe_text(MARKUP), terminal=True)
    assert "[link=https://evil.example]approve[/link]" in shown
    assert "\x1b]8;" not in shown
    assert "[bold red]loud[/]" in shown


def test_links_show_their_url() -> None:
    assert links_visible("see [the docs](https://orbit.dev/docs) now") == "see the docs (https://orbit.dev/docs) now"
    assert links_visible("[https://a.example](https://a.example)") == "https://a.example"
    assert links_visible('[x](https://a.example "title")') == "x (https://a.example)"
    assert links_visible("![diagram](https://a.example/d.png)") == "image diagram (https://a.example/d.png)"
    assert links_visible("[approve](https://evil.example/?a=(b))") == "approve (https://evil.example/?a=(b))"


def test_markdown_answer_has_no_hyperlink_codes_even_on_a_terminal() -> None:
    answer = f"**Done**: see [approve](https://evil.example) and <https://auto.example>\n\n{OSC8} {OSC52} {CLEAR}"
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, markup=False)
    print_answer(console, answer)
    shown = out.getvalue()
    assert "\x1b]" not in shown
    assert "approve (https://evil.example)" in shown
    assert "https://auto.example" in shown
    assert "\\x1b]8;;https://evil.example" in shown


def test_safe_markdown_plain_rendering_shows_reference_links() -> None:
    shown = render(safe_markdown("read [the guide][g]\n\n[g]: https://orbit.dev/guide"))
    assert "https://orbit.dev/guide" in shown


def test_arguments_are_compact_cleaned_and_cut() -> None:
    assert compact_args({"issue_id": 92, "label": "severity:S1"}) == "issue_id=92, label='severity:S1'"
    assert call_label("get_issue", {"issue_id": 41}) == "get_issue(issue_id=41)"
    hostile = compact_args({"query": "\x1b[2J" + "x" * 200})
    assert "\x1b" not in hostile and len(hostile) == 80 and hostile.endswith("…")
    assert compact_args('{"broken": \r') == '{"broken": \\r'
