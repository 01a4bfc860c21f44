"""An imported project is named as itself: in the header, the system prompt and the docs listing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.adversarial.sse_server import ScriptedSSE, text_answer
from tests.github.gh_export import gh_issues
from tests.support.run import Run, invoke


def atlas(*args: str, **env: str) -> Run:
    return invoke(*args, env={**os.environ, "COLUMNS": "160", **env})


def imported(tmp_path: Path) -> Path:
    export = tmp_path / "issues.json"
    export.write_text(json.dumps(gh_issues(12)), encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "setup.md").write_text("# Setup\n\nHow to install quill.\n\n## Fonts\n\nInstall fonts.\n", encoding="utf-8")
    target = tmp_path / "quill-data"
    done = atlas("data", "import", str(export), "--to", str(target), "--docs", str(docs))
    assert done.returncode == 0, done.stderr
    return target


def test_the_header_and_the_docs_listing_name_the_imported_project(tmp_path: Path) -> None:
    data = imported(tmp_path)
    asked = atlas("ask", "what docs are there", ORBIT_DATA=str(data))
    assert asked.returncode == 0, asked.stderr
    assert asked.stderr.splitlines()[0] == "atlas · offline · quill-org/quill · side effects ask first"
    assert "### quill-org/quill docs" in asked.stdout and "Orbit" not in asked.stdout
    bundled = atlas("ask", "--read-only", "what docs are there")
    assert bundled.stderr.splitlines()[0] == "atlas · offline · Orbit · read-only"
    assert "### Orbit docs" in bundled.stdout


def test_the_system_prompt_names_the_repository_a_sync_recorded(tmp_path: Path) -> None:
    data = imported(tmp_path)
    (data / "atlas-source.json").write_text(json.dumps({"repo": "quill-org/quill"}), encoding="utf-8")
    with ScriptedSSE([text_answer("Nothing to do.")]) as server:
        asked = atlas(
            "ask", "-m", "gpt-x", "--read-only", "hello", ORBIT_DATA=str(data), OPENAI_API_KEY="k",
            OPENAI_BASE_URL=server.url,
        )  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    instructions = server.bodies[0]["instructions"]
    assert "maintainers of quill-org/quill." in instructions and "Orbit" not in instructions
    assert asked.stderr.splitlines()[0] == "atlas · gpt-x · quill-org/quill · read-only"
