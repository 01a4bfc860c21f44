"""Hostile bytes and markup through every sink: answer, rows, approval, `atlas log`, `atlas tracker`, errors.

On a pipe with NO_COLOR the output holds no ESC at all; on a terminal only Rich's own styling
and cursor codes. Data's controls are shown as text (`\\x1b`, `\\r`, `\\u202e`), Rich markup
in data stays literal, no OSC 8 hyperlink is emitted, and nothing raises a MarkupError.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from atlas.dataset.ensure import jsonl_path
from atlas.foundation.config import bundled_data_dir
from tests.support.run import (
    Run,
    assert_inert_plain,
    assert_inert_tty,
    assert_no_traceback,
    atlas_env,
    finish,
    invoke,
    spawn_atlas,
    tracker_records,
    write_script,
)

JSONL = jsonl_path(bundled_data_dir())
ESCAPE_FIXTURE_IDS = (66, 111, 124)
# The dataset's escape fixtures carry each of these; the scripts here add them (and the fixtures'
# whole text) to tool arguments, to a comment that is approved, and to the model's own answer.
SEQUENCES = {
    "osc8_link": "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "osc52_clipboard": "\x1b]52;c;cm0gLXJmIH4=\x07",
    "clear_screen": "\x1b[2J",
    "sgr_red": "\x1b[31mred",
    "c1_csi": "\x9b31m",
    "c1_osc": "\x9d8;;https://evil.example\x9c",
    "carriage_return": "ok\rFAILED",
    "bidi_override": "\u202eexe.txt",
    "nul_del": "a\x00b\x7fc",
    "rich_link": "[link=https://evil.example]approve[/link]",
    "rich_close_all": "[/]",
    "rich_style": "[bold red]loud[/bold red]",
    "markdown_link": "[the docs](https://evil.example/docs)",
    "lone_surrogates": "\udc80 \ud83d",  # what a JSON escape like "\ud83d" alone decodes to; no UTF-8 holds it
}
HOSTILE = " ".join(SEQUENCES.values())
# A command line cannot carry NUL or a lone surrogate, and neither validates as a tool's string argument.
ARGV_HOSTILE = HOSTILE.replace("\x00", "").replace(SEQUENCES["lone_surrogates"], "")
COMMENT = HOSTILE.replace(SEQUENCES["lone_surrogates"], "")
# How the data must look once shown: escaped, literal, or with its target spelled out.
VISIBLE = (
    "\\x1b]8;;https://evil.example",
    "\\x1b]52;c;cm0gLXJmIH4=\\x07",
    "\\x1b[2J",
    "\\x9b31m",
    "ok\\rFAILED",
    "\\u202eexe.txt",
    "[link=https://evil.example]approve[/link]",
)
VISIBLE_IN_ANSWER = (*VISIBLE, "\\udc80 \\ud83d")


def fixture_texts() -> str:
    """Title, body and comments of each escape fixture of the dataset, as one text."""
    parts: list[str] = []
    for line in JSONL.read_text(encoding="utf-8").splitlines():
        issue = json.loads(line)
        if issue["id"] in ESCAPE_FIXTURE_IDS:
            parts += [issue["title"], issue["body"], *(comment["body"] for comment in issue["comments"])]
    assert len(parts) >= 2 * len(ESCAPE_FIXTURE_IDS)
    return "\n\n".join(parts)


def assert_visible(text: str, expected: tuple[str, ...] = VISIBLE) -> None:
    flat = " ".join(text.split())  # a long line may wrap
    missing = [item for item in expected if item not in flat and item not in text]
    assert not missing, f"not shown as text: {missing}\n{text}"


def check_plain(run: Run) -> None:
    assert_no_traceback(run)
    assert_inert_plain(run.out, "stdout")
    assert_inert_plain(run.err, "stderr")


def hostile_turns(comment: str = COMMENT) -> list[dict[str, Any]]:
    return [
        {
            "calls": [
                {"name": "search_issues", "arguments": {"query": HOSTILE[:400]}},
                {"name": "get_doc_section", "arguments": {"doc_id": SEQUENCES["osc52_clipboard"], "heading": HOSTILE}},
                {"name": "get_issue", "arguments": {"issue_id": 111}},
                {"name": SEQUENCES["clear_screen"] + "evil_tool", "arguments": {"x": HOSTILE}},
                {"name": "add_label", "arguments": HOSTILE},
            ]
        },
        {"calls": [{"name": "post_comment", "arguments": {"issue_id": 66, "body": comment}}]},
        {
            "text": f"# Answer {SEQUENCES['clear_screen']}\n\n{HOSTILE}\n\n- item {SEQUENCES['osc8_link']}\n\n"
            + fixture_texts()
        },
    ]


def test_answer_rows_and_errors_on_a_pipe(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    asked = invoke("ask", "-m", write_script(tmp_path, hostile_turns()), ARGV_HOSTILE, env=env)
    assert asked.code == 0, asked
    check_plain(asked)
    assert_visible(asked.stdout, VISIBLE_IN_ANSWER)
    # A pipe gets the answer's Markdown source: a link's target is always seen there too.
    assert "[the docs](https://evil.example/docs)" in asked.stdout
    assert "cannot be written" not in asked.stderr  # the turn, answer and all, is in the call log
    assert "\\x1b[2Jevil_tool" in asked.stderr  # the unknown tool's row, with the progress on stderr
    assert "(no terminal, denied)" in asked.stderr and "\\x1b]52;c;" in asked.stderr  # the approval line

    as_json = invoke("ask", "--json", "-m", write_script(tmp_path, hostile_turns(), "b.json"), "q", env=env)
    assert as_json.code == 0, as_json
    check_plain(as_json)
    assert json.loads(as_json.stdout)["answer"].startswith("# Answer \x1b[2J")  # escaped in JSON, intact as data


def test_the_log_shows_hostile_calls_inert(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    asked = invoke("ask", "--json", "-m", write_script(tmp_path, hostile_turns()), "q", env=env)
    assert asked.code == 0, asked
    session = json.loads(asked.stdout)["session"]
    for args in (
        ("log",),
        ("log", "--json"),
        ("log", "--stats"),
        ("log", "--errors"),
        ("log", "--script", session),
        ("log", "--tool", ARGV_HOSTILE),
    ):
        shown = invoke(*args, env=env)
        assert shown.code == 0, (args, shown)
        check_plain(shown)
    table = invoke("log", "-n", "100", env=env).stdout
    assert "\\x1b[2Jevil_tool" in table and "unknown_tool" in table and "bad_args" in table


def test_error_lines_quoting_hostile_input(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    hostile_path = tmp_path / f"script{SEQUENCES['osc52_clipboard']}{SEQUENCES['clear_screen']}.json"
    failures = [
        invoke("ask", "-m", f"replay:{hostile_path}", "q", env=env),
        invoke("ask", "-m", write_script(tmp_path, [{"calls": [{"name": "x", "arguments": {}}]}]), "q", env=env),
        invoke("log", "--script", ARGV_HOSTILE, env=env),
        invoke("log", "--since", SEQUENCES["clear_screen"], env=env),
        invoke("ask", "-m", "offline", "q", env={**env, "ATLAS_PRICE_IN": SEQUENCES["osc52_clipboard"]}),
        invoke("ask", "-m", SEQUENCES["osc8_link"], "q", env=env),
    ]
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"turns": [{"text": "' + SEQUENCES["clear_screen"] + '"', encoding="utf-8")
    failures.append(invoke("ask", "-m", f"replay:{bad_json}", "q", env=env))
    for failed in failures:
        assert failed.code in (1, 2), failed
        check_plain(failed)
        assert failed.stderr.strip(), failed  # a clear line, never a silent failure
    first = failures[0].stderr.strip()
    assert first.startswith("atlas: error: replay script") and first.count("\n") == 0
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J" in first


def test_the_dataset_escape_fixtures_on_a_pipe(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    shown = invoke("ask", "-m", "offline", "show issues #66, #111 and #124", env=env)
    searched = invoke("ask", "-m", "offline", "search issues about redis failover evil", env=env)
    for asked in (shown, searched):
        assert asked.code == 0, asked
        check_plain(asked)
    assert_visible(shown.stdout, ("\\x1b]8;;https://evil.example", "[link=https://evil.example]approve[/link]", "[/]"))
    assert_visible(shown.stdout, ("\\x1b]52;c;cm0gLXJmIH4=\\x07", "\\x1b[2m2026-10-26T14:51:02.301Z\\x1b[0m"))


@pytest.fixture(scope="module")
def approved_hostile_comment(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], bytes]:
    """A run on a terminal that shows hostile previews and rows, whose person approves the comment
    (one run for the tests that read its screen and its state folder)."""
    folder = tmp_path_factory.mktemp("approved-hostile-comment")
    env = atlas_env(folder / "home")
    child = spawn_atlas("ask", "-m", write_script(folder, hostile_turns()), "q", env=env)
    screen = io.BytesIO()
    child.logfile_read = screen
    child.expect(rb"\? \[y/N\] ")  # add_label with arguments that are not JSON never gets this far
    child.send(b"y\r")
    child.expect(b"approved")
    code, _ = finish(child)
    assert code == 0, screen.getvalue().decode(errors="replace")
    return env, screen.getvalue()


def test_approval_prompt_rows_and_answer_on_a_terminal(approved_hostile_comment: tuple[dict[str, str], bytes]) -> None:
    _, screen = approved_hostile_comment
    assert_inert_tty(screen, "the whole terminal session")
    text = screen.decode("utf-8")
    assert_visible(text, VISIBLE_IN_ANSWER)
    assert "Approve post_comment(issue_id=66, body=" in text
    assert "comment on #66" in text  # the preview names the target before the whole body


def test_the_tracker_shows_an_approved_hostile_comment_inert(
    approved_hostile_comment: tuple[dict[str, str], bytes],
) -> None:
    env, _ = approved_hostile_comment
    records = tracker_records(env)
    assert [(r["action"], r["issue_id"], r["body"]) for r in records] == [("post_comment", 66, COMMENT)]
    table = invoke("tracker", env=env)
    assert table.code == 0, table
    check_plain(table)
    assert_visible(table.stdout)
    raw = invoke("tracker", "--json", env=env)
    check_plain(raw)
    # And on a terminal, where Rich may style: still nothing from the data acts.
    for args in (("tracker",), ("log", "-n", "50")):
        child = spawn_atlas(*args, env=env)
        code, rest = finish(child)
        assert code == 0
        assert_inert_tty(rest, " ".join(args))
        assert_visible(rest.decode("utf-8"), ("\\x1b[2J",))
    # The issue itself now shows the comment, through get_issue, still inert.
    shown = invoke("ask", "-m", "offline", "show issue #66", env=env)
    assert shown.code == 0
    check_plain(shown)


def test_hostile_paths_of_the_state_folder_and_the_data_are_shown_inert(tmp_path: Path) -> None:
    """Paths come from the environment or the working directory (`./.atlas`), which anyone may name."""
    hostile = SEQUENCES["osc52_clipboard"] + SEQUENCES["clear_screen"] + SEQUENCES["c1_csi"] + "\u202e"
    blocker = tmp_path / f"file{hostile}"
    blocker.write_text("a file, so no folder can be made under it", encoding="utf-8")
    fresh = atlas_env(tmp_path / f"home{hostile}")
    undecodable = atlas_env(tmp_path / "home\udcff\udcfe")  # bytes 0xff 0xfe in the path: not UTF-8
    unusable = atlas_env(blocker / "home")
    runs = [
        invoke("log", env=fresh),
        invoke("tracker", env=fresh),
        invoke("ask", "-m", "offline", "show issue #41", env=unusable),
        invoke("tracker", env=unusable),
        invoke("ask", "-m", "offline", "show issue #41", env={**fresh, "ORBIT_DATA": str(tmp_path / hostile)}),
        invoke("tools", env={**fresh, "ATLAS_TOOL_MODULES": f"no_such{hostile}"}),
        invoke("log", env=undecodable),
        invoke("tracker", env=undecodable),
    ]
    for shown in runs:
        check_plain(shown)
        assert shown.output.strip(), shown
    assert "\\x1b]52;c;" in runs[0].stdout  # the path is still named, escaped
    assert "cannot be written" in runs[2].stderr and "\\x1b[2J" in runs[2].stderr

    # A torn line in a tracker file under such a path: the warning names it, inert.
    home = tmp_path / f"torn{hostile}"
    home.mkdir()
    (home / "tracker_actions.jsonl").write_bytes(b'{"torn')
    torn = invoke("tracker", env=atlas_env(home))
    check_plain(torn)
    assert "skipped 1 torn or corrupt line(s)" in torn.stderr
