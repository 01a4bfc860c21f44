"""Compiled patterns kept between runs: the same `re.Pattern` as `re.compile`, and a bad file costs nothing."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from atlas.offline.reading import pattern_cache
from atlas.offline.reading.pattern_cache import PatternStore

PATTERNS = [
    (r"\b(?:issues?|tickets?)\s+#?(\d+)\b", re.IGNORECASE),
    (r"(?P<lead>issue|bug)\s*(?P<n>\d+)(?:\s*(?:,|and)\s*(?P=n))?", 0),
    (r"^\s*(?>(?:hi|hey|ok|so)\b[\s,]*)*(?P<rest>.*)$", re.IGNORECASE | re.DOTALL),
    (r"(?<=[,;.!?:])\s*(?:then|also)\b|(?-i:[A-Z][a-z]*)", re.IGNORECASE),
    (r"[\u00e9\u00e8e]t[ée]|caf\u00e9|\w+(?=\.md\b)", 0),
]
TEXTS = ["Issue 41 and 41, tickets #87", "hey, so, Bug 12 then also Étude", "café.md été", "", "ok ok\nhi there"]


def _same(cached: re.Pattern[str], compiled: re.Pattern[str]) -> None:
    assert (cached.pattern, cached.flags, cached.groups, cached.groupindex) == (
        compiled.pattern,
        compiled.flags,
        compiled.groups,
        compiled.groupindex,
    )
    for text in TEXTS:
        assert [m.groupdict() or m.groups() or m.group() for m in cached.finditer(text)] == [
            m.groupdict() or m.groups() or m.group() for m in compiled.finditer(text)
        ]
        assert cached.sub("_", text) == compiled.sub("_", text)


def test_a_pattern_read_back_is_the_one_re_compile_makes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "patterns.json"
    first = PatternStore(path)
    for source, flags in PATTERNS:
        _same(first.compile(source, flags), re.compile(source, flags))
    first.save()

    def no_compiling(source: str, flags: int) -> None:
        raise AssertionError(f"compiled {source!r} again")

    monkeypatch.setattr(pattern_cache, "_compile", no_compiling)
    again = PatternStore(path)
    for source, flags in PATTERNS:
        _same(again.compile(source, flags), re.compile(source, flags))
    assert again.added == 0


@pytest.mark.parametrize(
    "spoil",
    [
        lambda data: "not json {",
        lambda data: json.dumps({**data, "python": "2.7.18"}),
        lambda data: json.dumps({**data, "patterns": ["a", "list"]}),
        lambda data: json.dumps({**data, "patterns": {key: [0, 0, {}, [None], "!!"] for key in data["patterns"]}}),
        lambda data: json.dumps({**data, "patterns": {key: [0, 0, {}, [None], 7] for key in data["patterns"]}}),
        lambda data: json.dumps(
            {
                **data,
                "patterns": {  # code the engine refuses to run: it validates what it is given
                    key: [entry[0], entry[1], entry[2], entry[3], base64.b64encode(b"\xff" * 64).decode()]
                    for key, entry in data["patterns"].items()
                },
            }
        ),
    ],
    ids=["garbage", "other-python", "not-a-table", "bad-base64", "not-text", "invalid-code"],
)
def test_a_spoilt_file_is_compiled_again_and_rewritten(tmp_path: Path, spoil: object) -> None:
    path = tmp_path / "patterns.json"
    store = PatternStore(path)
    for source, flags in PATTERNS:
        store.compile(source, flags)
    store.save()
    assert callable(spoil)
    path.write_text(spoil(json.loads(path.read_text(encoding="utf-8"))), encoding="utf-8")
    spoilt = PatternStore(path)
    for source, flags in PATTERNS:
        _same(spoilt.compile(source, flags), re.compile(source, flags))
    assert spoilt.added == len(PATTERNS)
    spoilt.save()
    assert PatternStore(path).entries == spoilt.entries


_PROCESS = (
    "import os, sys\n"
    "from atlas.offline.reading.pattern_cache import cache_file, compile_cached\n"
    "assert compile_cached(r'\\bissue\\s+(\\d+)', 2).search('see Issue 41').group(1) == '41'\n"
    "print(cache_file())\n"
    "from atlas.cli.quick_exit import quick_exit\n"
    "quick_exit(0)\n"
)


@pytest.mark.parametrize("no_bytecode", [False, True], ids=["written", "PYTHONDONTWRITEBYTECODE"])
def test_a_process_keeps_what_it_compiled_unless_told_to_write_no_bytecode(tmp_path: Path, no_bytecode: bool) -> None:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    if no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run([sys.executable, "-c", _PROCESS], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    written = Path(done.stdout.strip())
    assert written.parent == tmp_path / "cache" / "atlas"
    assert written.is_file() is not no_bytecode
    if not no_bytecode:
        assert list(json.loads(written.read_text(encoding="utf-8"))["patterns"]) == ["2:\\bissue\\s+(\\d+)"]
        assert [path.name for path in written.parent.iterdir()] == [written.name]  # no temporary left
