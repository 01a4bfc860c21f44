"""The documentation site builds with no broken link or anchor, and the README keeps its two
set-up commands first, the second being exactly what CI runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.docs.shown import CHECKOUT, DOCS, README, blocks

INSTALL_AND_ASK = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && "
    'atlas ask "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101."'
)
INSTALL_AND_TEST = "python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[dev]' && pytest"


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """`mkdocs build --strict`: a link to a page or a heading that does not exist fails the build."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(CHECKOUT / "mkdocs.yml"),
         "-d", str(tmp_path / "site")],
        cwd=CHECKOUT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    pages = {page.relative_to(DOCS).with_suffix("").as_posix() for page in DOCS.rglob("*.md")}
    for page in pages - {"index"}:
        assert (tmp_path / "site" / page / "index.html").is_file(), page


def test_the_readme_starts_with_its_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_two = [block.commands for block in blocks(README)[:2]]
    assert [commands[0].line for commands in first_two] == [INSTALL_AND_ASK, INSTALL_AND_TEST]
    assert text.index(INSTALL_AND_ASK) < text.index(INSTALL_AND_TEST) < text.index("\n## ")
    ci = (CHECKOUT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert INSTALL_AND_TEST in ci, "`.ci/run` no longer runs exactly the README's test command"
