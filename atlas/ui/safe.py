"""Rich renderables of untrusted text, cleaned by `atlas.foundation.sanitize` first.

Issue bodies, tool arguments, model answers and error messages can carry terminal control
sequences (a clipboard write, a screen clear, a disguised hyperlink), bidi overrides that
reorder what the eye sees, and Rich markup that would restyle or relink the output. Here
they become visible, inert text: `\\x1b`, `\\r`, `\\u202e`, and markup shown literally.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from atlas.foundation.sanitize import clean, clean_line

if TYPE_CHECKING:
    from markdown_it.token import Token
    from rich.markdown import Markdown
    from rich.text import Text

# `[text](url)` and `![alt](url)`, with one level of nested brackets in the text; the URL may
# carry a title (`"..."`), which is dropped: only where the link goes matters here. Compiled at the
# first answer rendered as Markdown (`re.sub` keeps it), not by a piped run, which renders none.
_INLINE_LINK = (
    r"(!?)\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
    r"\(\s*<?([^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)"
)


def safe_text(text: object, style: str = "", *, one_line: bool = False) -> Text:
    """A Rich `Text` of cleaned data: never parsed as markup, so `[link=...]` stays literal."""
    from rich.text import Text  # call labels (below) are made on a pipe too, where Rich is never loaded

    return Text(clean_line(text) if one_line else clean(text), style=style)


def links_visible(markdown: str) -> str:
    """Markdown with each inline link written as `text (url)`, so where it goes is always seen."""

    def rewrite(match: re.Match[str]) -> str:
        bang, label, url = match.group(1), match.group(2), match.group(3)
        if not url:
            return f"{bang}{label}" if bang else label
        if bang:
            return f"image {label} ({url})" if label else f"image ({url})"
        return f"{label} ({url})" if label and label != url else url

    return re.sub(_INLINE_LINK, rewrite, markdown)


def html_as_text(tokens: list[Token]) -> list[Token]:
    """Parsed Markdown with raw HTML turned into literal text, which Rich would otherwise drop.

    An HTML block (`<div>…</div>`, `<!-- … -->`) becomes a paragraph of its own lines; an inline
    tag (`<span>`, `<kbd>`) becomes the text it is. Whatever the model wrote stays on screen.
    """
    from markdown_it.token import Token

    shown: list[Token] = []
    for token in tokens:
        if token.type == "html_block":
            text = Token("text", "", 0, content=token.content.rstrip("\n"))
            shown += [
                Token("paragraph_open", "p", 1, map=token.map, level=token.level, block=True),
                Token("inline", "", 0, children=[text], level=token.level + 1, block=True),
                Token("paragraph_close", "p", -1, level=token.level, block=True),
            ]
            continue
        if token.children:
            token.children = html_as_text(token.children)
        if token.type == "html_inline":
            token.type = "text"
        shown.append(token)
    return shown


def safe_markdown(text: str) -> Markdown:
    """Markdown for an answer: cleaned, links spelled out, raw HTML shown as text, no OSC 8 hyperlinks."""
    # Imported here: its Markdown parser costs ~30 ms at start-up, and `atlas log`/`tools` never need it.
    from rich.markdown import Markdown

    markdown = Markdown(links_visible(clean(text)), hyperlinks=False)
    markdown.parsed = html_as_text(markdown.parsed)
    return markdown


def compact_args(arguments: dict[str, Any] | str, limit: int = 80) -> str:
    """`issue_id=92, label='severity:S1'`: arguments as a reader scans them, cleaned and cut."""
    if isinstance(arguments, dict):
        shown = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    else:
        shown = arguments
    shown = clean_line(shown)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def call_label(name: str, arguments: dict[str, Any] | str, limit: int = 80) -> str:
    """`add_label(issue_id=92, label='severity:S1')`, cleaned: how a call is named on screen."""
    return f"{clean_line(name)}({compact_args(arguments, limit)})"
