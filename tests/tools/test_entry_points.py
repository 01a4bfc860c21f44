"""Plugins' entry points: `importlib.metadata` is asked only when some distribution has the group's section."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from atlas.tools import entry_points
from atlas.tools.entry_points import entry_points_of, may_declare


def _distribution(folder: Path, name: str, declared: str | None) -> None:
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    if declared is not None:
        (info / "entry_points.txt").write_text(declared, encoding="utf-8")


def test_no_distribution_declaring_the_group_means_no_look_at_all(tmp_path: Path) -> None:
    _distribution(tmp_path, "quiet", "[console_scripts]\nquiet = quiet:main\n")
    _distribution(tmp_path, "plain", None)
    (tmp_path / "stray.egg-info").write_text("Name: stray\n", encoding="utf-8")  # an egg-info can be a file
    assert not may_declare("atlas.tools", [str(tmp_path), str(tmp_path / "missing")])


def test_a_distribution_declaring_it_is_read_by_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _distribution(tmp_path, "quiet", "[console_scripts]\nquiet = quiet:main\n")
    _distribution(tmp_path, "helpful", "[atlas.tools]\ntriple = helpful_tools\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert may_declare("atlas.tools", sys.path)
    found = entry_points_of("atlas.tools", tuple(sys.path))
    assert [(entry.name, entry.value) for entry in found] == [("triple", "helpful_tools")]


def test_a_mention_outside_the_section_header_is_not_a_declaration(tmp_path: Path) -> None:
    _distribution(tmp_path, "near", "[console_scripts]\natlas.tools = near:main\n")
    assert not may_declare("atlas.tools", [str(tmp_path)])


def test_what_it_cannot_see_through_is_left_to_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("zipped-1.0.dist-info/entry_points.txt", "[atlas.tools]\nz = zipped\n")
    assert may_declare("atlas.tools", [str(archive)])

    class OwnFinder:
        @staticmethod
        def find_distributions(*_args: object, **_kwargs: object) -> list[object]:
            return []

    monkeypatch.setattr(entry_points.sys, "meta_path", [*sys.meta_path, OwnFinder])
    assert may_declare("atlas.tools", [str(tmp_path / "nothing-here")])


@pytest.fixture
def remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A cache folder of the test's own, written to (as without -B); the distributions whose file is read."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    read: list[str] = []
    reader = entry_points._entry_points_text

    def counted(distribution: str) -> bytes:
        read.append(Path(distribution).name)
        return reader(distribution)

    monkeypatch.setattr(entry_points, "_entry_points_text", counted)
    return read


def test_a_later_look_reads_only_the_files_that_are_new_or_changed(tmp_path: Path, remembered: list[str]) -> None:
    site = tmp_path / "site"
    _distribution(site, "quiet", "[console_scripts]\nquiet = quiet:main\n")
    _distribution(site, "plain", None)
    assert not may_declare("atlas.tools", [str(site)])
    assert remembered == ["quiet-1.0.dist-info"]
    assert not may_declare("atlas.tools", [str(site)])
    assert remembered == ["quiet-1.0.dist-info"]  # unchanged: not read again

    _distribution(site, "helpful", "[atlas.tools]\ntriple = helpful_tools\n")
    assert may_declare("atlas.tools", [str(site)])  # a plugin installed since is found
    assert not may_declare("atlas.tools", [str(site / "elsewhere")])


def test_a_file_changed_in_place_is_read_again(tmp_path: Path, remembered: list[str]) -> None:
    site = tmp_path / "site"
    _distribution(site, "growing", "[console_scripts]\ngrowing = growing:main\n")
    assert not may_declare("atlas.tools", [str(site)])
    declared = site / "growing-1.0.dist-info" / "entry_points.txt"
    with declared.open("a", encoding="utf-8") as text:
        text.write("\n[atlas.tools]\ngrow = growing_tools\n")
    assert may_declare("atlas.tools", [str(site)])
    assert remembered == ["growing-1.0.dist-info", "growing-1.0.dist-info"]


def test_a_spoilt_memory_is_read_over_and_nothing_is_kept_under_no_bytecode(
    tmp_path: Path, remembered: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _distribution(site, "quiet", "[console_scripts]\nquiet = quiet:main\n")
    kept = tmp_path / "cache" / "atlas" / entry_points.KNOWN_FILE
    kept.parent.mkdir(parents=True)
    kept.write_text('{"format": 1, "group": "atlas.tools", "silent": [1, 2]}', encoding="utf-8")
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    assert not may_declare("atlas.tools", [str(site)])
    assert not may_declare("atlas.tools", [str(site)])
    assert remembered == ["quiet-1.0.dist-info", "quiet-1.0.dist-info"]
    assert 'silent": [1, 2]' in kept.read_text(encoding="utf-8")
