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
