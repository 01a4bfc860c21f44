"""The sanitiser escapes exactly the characters that act unseen: every code point, one by one."""

from __future__ import annotations

from atlas.foundation.sanitize import clean, clean_line

UNSEEN = {
    *range(0x00, 0x09),
    *range(0x0B, 0x20),
    *range(0x7F, 0xA0),
    0x061C,
    0x200E,
    0x200F,
    0x2028,
    0x2029,
    *range(0x202A, 0x202F),
    *range(0x2066, 0x206A),
    *range(0xD800, 0xE000),
}
"""C0 controls but tab and newline, DEL and C1, the bidi marks, embeddings, overrides and isolates, the
line and paragraph separators, and lone surrogates."""


def shown(code: int) -> str:
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def test_every_code_point_is_escaped_exactly_when_it_acts_unseen() -> None:
    for code in range(0x110000):
        char = chr(code)
        if code in UNSEEN:
            assert clean(char) == clean_line(char) == ("\\r" if char == "\r" else shown(code)), hex(code)
        elif char in "\n\t":
            assert (clean(char), clean_line(char)) == (char, "\\n" if char == "\n" else "\\t")
        else:
            assert clean(char) == clean_line(char) == char, hex(code)


def test_mixed_text_keeps_what_is_seen_around_what_is_escaped() -> None:
    text = "ok\u202e·\x1b[2J\ud83d✓\u2066\n"
    assert clean(text) == "ok\\u202e·\\x1b[2J\\ud83d✓\\u2066\n"
    assert clean_line(text) == "ok\\u202e·\\x1b[2J\\ud83d✓\\u2066\\n"
