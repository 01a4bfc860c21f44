"""Commands started with standard input closed (no descriptor 0, so Python gives them no stream):
each says what it cannot do in one line, or ends as it would at the end of its input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.run import REPO, assert_no_traceback, atlas_env, run_atlas, with_closed


def test_a_question_from_a_closed_standard_input_is_named_as_empty(tmp_path: Path) -> None:
    asked = run_atlas("ask", "-", env=atlas_env(tmp_path / "home"), closed=[0])
    assert asked.code == 2, asked
    assert_no_traceback(asked)
    assert asked.stderr.strip() == "atlas: error: the question is empty (standard input is closed)"


def test_a_chat_on_a_closed_standard_input_ends_as_at_its_end(tmp_path: Path) -> None:
    chat = run_atlas("chat", env=atlas_env(tmp_path / "home"), closed=[0])
    assert chat.code == 0, chat
    assert_no_traceback(chat)
    assert "0 turns" in chat.stdout and "unexpected" not in chat.stderr


def test_mcp_serve_without_its_standard_input_says_so(tmp_path: Path) -> None:
    served = run_atlas("mcp", "serve", env=atlas_env(tmp_path / "home"), closed=[0])
    assert served.code == 2, served
    assert_no_traceback(served)
    assert served.stderr.strip() == (
        "atlas: error: atlas mcp serve speaks MCP on standard input and output, and one of them is closed"
    )


def test_a_closed_descriptor_is_never_handed_to_a_file_atlas_opens() -> None:
    # What the next open() gets, after the start: /dev/null is on the closed descriptor instead.
    program = (
        "import os\nfrom atlas.cli.root import fill_closed_descriptors\nfill_closed_descriptors()\n"
        "fd = os.open(os.devnull, os.O_RDONLY)\nos.write(2, f'{fd} {os.readlink(\"/proc/self/fd/0\")}'.encode())\n"
    )
    done = subprocess.run(with_closed([sys.executable, "-c", program], [0]), capture_output=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done
    opened, zero = done.stderr.decode().split()
    assert int(opened) > 2 and zero == os.devnull
