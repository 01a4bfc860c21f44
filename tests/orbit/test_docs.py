"""The doc tools against real Markdown files: the allowlist, heading matching, sections, bad bytes."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from atlas.foundation.errors import PermanentToolError
from atlas.orbit.docs import SECTION_LIMIT, DocSectionArgs, NoArgs, get_doc_section, list_docs
from atlas.tools.registry import ToolContext


def test_list_docs_gives_ids_titles_and_headings_outside_code(ctx: ToolContext) -> None:
    docs = {d["id"]: d for d in list_docs(NoArgs(), ctx)["docs"]}
    assert sorted(docs) == ["error-codes", "leases"]
    assert docs["error-codes"]["title"] == "Error codes"
    assert "ORB-1101 LeaseExpired" in docs["error-codes"]["headings"]
    assert not any("not a heading" in h for h in docs["error-codes"]["headings"])


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("ORB-1101", "ORB-1101 LeaseExpired"),
        ("orb-1101 leaseexpired", "ORB-1101 LeaseExpired"),
        ("### ORB-2001", "ORB-2001 BrokerUnavailable"),
        ("expired", "ORB-1101 LeaseExpired"),
    ],
)
def test_heading_match_is_case_insensitive_exact_then_prefix_then_contains(
    ctx: ToolContext, heading: str, expected: str
) -> None:
    assert get_doc_section(DocSectionArgs(doc_id="error-codes", heading=heading), ctx)["heading"] == expected


def test_section_runs_to_the_next_heading_of_same_or_higher_level(ctx: ToolContext) -> None:
    one = get_doc_section(DocSectionArgs(doc_id="error-codes", heading="ORB-1101"), ctx)["text"]
    assert one.startswith("### ORB-1101 LeaseExpired") and "# not a heading" in one
    assert "ORB-1102" not in one
    group = get_doc_section(DocSectionArgs(doc_id="error-codes", heading="lease errors"), ctx)["text"]
    assert "ORB-1101" in group and "ORB-1102" in group and "ORB-2001" not in group


BROKERS = """# Brokers

## Redis

### How it works

Redis keeps jobs in a stream.

### Caveats

Redis caveat.

## Postgres

### How it works

Postgres uses SKIP LOCKED.

### Caveats

Postgres caveat.
"""


def test_a_heading_that_appears_under_several_parents_can_be_asked_for_by_its_parent(
    data: Path, ctx: ToolContext
) -> None:
    (data / "docs" / "brokers.md").write_text(BROKERS, encoding="utf-8")
    first = get_doc_section(DocSectionArgs(doc_id="brokers", heading="How it works"), ctx)
    assert "stream" in first["text"] and first["under"] == "Redis"
    assert first["other_matches"] == ["Postgres > How it works"]
    second = get_doc_section(DocSectionArgs(doc_id="brokers", heading=first["other_matches"][0]), ctx)
    assert second["heading"] == "How it works" and second["under"] == "Postgres"
    assert "SKIP LOCKED" in second["text"] and "stream" not in second["text"]
    assert "Postgres caveat" in get_doc_section(DocSectionArgs(doc_id="brokers", heading="postgres > cav"), ctx)["text"]
    # A unique heading needs no parent, and says nothing about one.
    assert "under" not in get_doc_section(DocSectionArgs(doc_id="brokers", heading="Postgres"), ctx)
    assert list_docs(NoArgs(), ctx)["docs"][0]["headings"] == [
        "Redis",
        "Redis > How it works",
        "Redis > Caveats",
        "Postgres",
        "Postgres > How it works",
        "Postgres > Caveats",
    ]


def test_long_section_is_cut_with_a_marker(ctx: ToolContext) -> None:
    got = get_doc_section(DocSectionArgs(doc_id="leases", heading="retries"), ctx)
    assert got["heading"] == "Retries"
    assert len(got["text"]) <= SECTION_LIMIT and "[cut: " in got["text"] and "Renewal" not in got["text"]


def test_no_heading_gives_intro_and_headings(ctx: ToolContext) -> None:
    got = get_doc_section(DocSectionArgs(doc_id="leases", heading=None), ctx)
    assert "Leases bound how long" in got["intro"] and "Retries back off" not in got["intro"]
    assert got["headings"] == ["Retries", "Renewal"]


def test_unknown_heading_lists_headings(ctx: ToolContext) -> None:
    with pytest.raises(PermanentToolError, match="ORB-1101 LeaseExpired"):
        get_doc_section(DocSectionArgs(doc_id="error-codes", heading="ORB-9999"), ctx)


@pytest.mark.parametrize(
    "doc_id", ["../../etc/passwd", "/etc/passwd", "docs/../error-codes", "error-codes/..", "", "~"]
)
def test_doc_ids_outside_the_allowlist_are_refused(ctx: ToolContext, doc_id: str) -> None:
    with pytest.raises(PermanentToolError, match="Doc ids: error-codes, leases"):
        get_doc_section(DocSectionArgs(doc_id=doc_id, heading=None), ctx)


def test_doc_id_close_matches_and_md_suffix(ctx: ToolContext) -> None:
    with pytest.raises(PermanentToolError, match="Did you mean error-codes"):
        get_doc_section(DocSectionArgs(doc_id="eror-codes", heading=None), ctx)
    assert get_doc_section(DocSectionArgs(doc_id="error-codes.md", heading="ORB-1102"), ctx)["doc_id"] == "error-codes"


def test_bad_bytes_are_replaced_and_edits_are_seen(data: Path, ctx: ToolContext) -> None:
    page = data / "docs" / "broken.md"
    page.write_bytes(b"# Broken \xff\xfe page\n\n## Part\n\nbad \xc3 byte\n")
    got = get_doc_section(DocSectionArgs(doc_id="broken", heading="part"), ctx)
    assert "\ufffd" in got["text"]
    page.write_text("# Broken\n\n## Part\n\nfixed now\n", encoding="utf-8")
    os.utime(page, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))
    assert "fixed now" in get_doc_section(DocSectionArgs(doc_id="broken", heading="part"), ctx)["text"]


def test_missing_docs_folder_is_a_clear_permanent_error(data: Path, ctx: ToolContext) -> None:
    shutil.rmtree(data / "docs")
    with pytest.raises(PermanentToolError, match="no docs folder"):
        list_docs(NoArgs(), ctx)
