"""Where the documentation's commands run: a folder of their own, and real local stand-ins for what
lies outside this machine.

A command runs as shown, with these stand-ins: `~` is the sandbox's home; `OWNER/REPO` is the fake
GitHub's repository (the real client against `tests/github/fake_github.py` on loopback); `DIR` is a
folder of the sandbox; `SESSION` is the newest session in the call log; a model server on this
machine (`localhost:11434`) and the OpenAI API are llmock on loopback (no key is set, so the default
model stays the offline planner); an OTLP collector (`localhost:4318`) is the test receiver of
`tests/telemetry/otlp_receiver.py`; and `gh issue list ... > FILE` is stood in by the fake's issues
as that command exports them (`tests/github/gh_export.py`), also found in the working folder as
`issues.json`, where a page names such an export without making it. The working folder is a git
repository holding a `docs/` folder and the checkout's `evals/`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from llmock.testing import LLMockServer

from tests.docs.shown import CHECKOUT, Command
from tests.github.conftest import ISSUE_COUNT, quill_fake
from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.github.gh_export import gh_issues
from tests.support.run import Run, atlas_env, invoke
from tests.telemetry.otlp_receiver import otlp_receiver

LOCAL_MODEL_SERVER = "http://localhost:11434/v1"
LOCAL_COLLECTOR = "http://localhost:4318"
SEED_QUESTION = "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101."


@dataclass(frozen=True)
class Services:
    """The stand-ins' addresses, shared by every command of a test module."""

    github: str
    llm: str
    collector: str


@contextmanager
def services() -> Iterator[Services]:
    with ExitStack() as stack:
        github = stack.enter_context(RunningFake(quill_fake()))
        llm = stack.enter_context(LLMockServer())
        collector = stack.enter_context(otlp_receiver())
        yield Services(github.url, llm.base_url(), collector.url)


class Sandbox:
    """One block's folder: its home, its working folder (a git repository with a docs folder) and its
    state folder, which starts with the bundled data's fitted triage classifier."""

    def __init__(self, folder: Path, services: Services, fitted_home: Path) -> None:
        self.home = folder / "home"
        self.cwd = folder / "work"
        (self.cwd / "docs").mkdir(parents=True)
        (self.cwd / "docs" / "setup.md").write_text("# Setup\n\nHow to install it.\n", encoding="utf-8")
        subprocess.run(["git", "init", "-q", str(self.cwd)], check=True)
        (self.cwd / "evals").symlink_to(CHECKOUT / "evals")  # a clone's suites, as the pages name them
        export = json.dumps(gh_issues(ISSUE_COUNT, repo=REPO))
        (self.cwd / "issues.json").write_text(export, encoding="utf-8")  # `gh issue list --json`'s
        self.home.mkdir()
        state = folder / "state"
        shutil.copytree(fitted_home / "triage", state / "triage")
        self.services = services
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        self.env = atlas_env(
            state, HOME=str(self.home), PATH=path, GITHUB_API_URL=services.github, GITHUB_TOKEN=TOKEN,
            OPENAI_BASE_URL=services.llm,
        )  # fmt: skip

    def run(self, command: Command) -> Run:
        """`command` as bash would run it in the working folder, with the stand-ins."""
        if command.program == "gh" and command.stdout_to:
            export = (self.cwd / "issues.json").read_bytes()
            self.path(command.stdout_to).write_bytes(export)
            return Run(0, export, b"")
        env = {**self.env, **{name: self.word(value) for name, value in command.env}}
        words = [self.word(word) for word in command.words[1:]]
        ran = invoke(*words, env=env)
        if command.stdout_to:
            target = self.path(command.stdout_to)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(ran.out)
        return ran

    def word(self, word: str) -> str:
        """One word with the stand-ins in place of what lies outside."""
        if word.startswith("~/"):
            word = str(self.home / word[2:])
        if word == "SESSION":
            return self.newest_session()
        replaced = {"OWNER/REPO": REPO, "DIR": str(self.cwd / "project")}
        if word in replaced:
            return replaced[word]
        return word.replace(LOCAL_MODEL_SERVER, self.services.llm).replace(LOCAL_COLLECTOR, self.services.collector)

    def path(self, shown: str) -> Path:
        return Path(self.word(shown)) if shown.startswith("~/") else self.cwd / shown

    def newest_session(self) -> str:
        """The session a person would name: their newest (the seed question, when they asked none)."""
        shown = invoke("log", "--json", "-n", "1", env=self.env)
        rows: list[Mapping[str, str]] = [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]
        if rows:
            return rows[-1]["session"]
        asked = invoke("ask", SEED_QUESTION, env=self.env)
        assert asked.code == 0, asked
        return self.newest_session()
