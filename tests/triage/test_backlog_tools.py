"""`list_inbox` and `plan_triage`: the code of `atlas inbox` and `atlas triage --dry-run`, as read tools."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from atlas.conversation.loop import run_turn
from atlas.executor.executor import ToolExecutor
from atlas.foundation.config import bundled_data_dir
from atlas.offline import OfflinePlanner
from atlas.orbit.labels import AddLabelArgs, add_label
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import ToolContext
from atlas.triage.backlog_tools import InboxArgs, TriageArgs, list_inbox, plan_triage
from tests.support.dataset_factory import make_dataset
from tests.support.run import atlas_env, invoke
from tests.triage.test_inbox import backlog


def data_and_home(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    data = make_dataset(tmp_path, backlog())
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("[triage]\nstale_days = 20\nwaiting_days = 3\n")
    return data, home, atlas_env(home, ORBIT_DATA=str(data))


def lines(done: Any) -> list[dict[str, Any]]:
    assert done.code == 0, done
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_list_inbox_is_what_atlas_inbox_lists_and_moves_nothing_on(tmp_path: Path) -> None:
    data, home, env = data_and_home(tmp_path)
    ctx = ToolContext(data=data, home=home)
    got = list_inbox(InboxArgs(), ctx)
    assert got["issues"] == lines(invoke("inbox", "--json", env=env))  # the command, after the tool
    assert got["total"] == len(got["issues"]) and got["counts"]["unanswered"] >= 2
    waiting = list_inbox(InboxArgs(only="waiting"), ctx)
    assert [item["id"] for item in waiting["issues"]] == [8] and waiting["total"] == 1
    assert list_inbox(InboxArgs(), ctx)["issues"] == got["issues"]  # no issue was marked seen by the tool
    first = list_inbox(InboxArgs(limit=1), ctx)
    assert len(first["issues"]) == 1 and "more" in first["note"]


def test_plan_triage_is_the_dry_run_s_plan_and_changes_nothing(tmp_path: Path) -> None:
    data, home, env = data_and_home(tmp_path)
    ctx = ToolContext(data=data, home=home)
    planned = plan_triage(TriageArgs(issue_ids=[7, 8]), ctx)
    dry = json.loads(invoke("triage", "7", "8", "--json", env=env).stdout)
    assert planned["actions"] == [
        {key: action[key] for key in ("n", "issue_id", "tool", "arguments", "why")} for action in dry["actions"]
    ]
    assert planned["needs_a_human"] == dry["needs_a_human"] and planned["issues"] == [7, 8]
    assert "nothing was changed" in planned["note"] and "atlas triage 7 8" in planned["note"]
    assert not (home / "tracker_actions.jsonl").exists()
    backlog_plan = plan_triage(TriageArgs(untriaged=True, limit=5), ctx)
    assert 7 in backlog_plan["issues"] and "--untriaged --limit 5" in backlog_plan["note"]
    assert plan_triage(TriageArgs(), ctx)["actions"] == []


def test_a_chat_follow_up_asks_about_the_issue_of_the_message_before(home: Path) -> None:
    """In `atlas chat` (the same loop, one history): `and the similar ones?` after `show #41`."""
    context = ToolContext(data=bundled_data_dir(), home=home)
    executor = ToolExecutor(load_registry([]).read_only(), session="s1", context=context)
    history: list[dict[str, Any]] = []
    model = OfflinePlanner()
    asyncio.run(run_turn("show #41", history, model=model, executor=executor, session="s1"))
    similar = asyncio.run(run_turn("and the similar ones?", history, model=model, executor=executor, session="s1"))
    assert [(c.name, c.arguments) for c in similar.calls][-1] == ("find_similar", {"issue_id": 41})
    assert "### Similar to #41" in similar.answer
    labels = asyncio.run(run_turn("what labels would fit?", history, model=model, executor=executor, session="s1"))
    assert ("suggest_labels", {"issue_id": 41}) in [(c.name, c.arguments) for c in labels.calls]
    assert "### Labels for #41" in labels.answer


def test_list_inbox_by_the_date_opened_is_what_atlas_inbox_order_lists(tmp_path: Path) -> None:
    data, home, env = data_and_home(tmp_path)
    ctx = ToolContext(data=data, home=home)
    urgent = [item["id"] for item in list_inbox(InboxArgs(), ctx)["issues"]]
    newest = list_inbox(InboxArgs(order="newest"), ctx)["issues"]
    oldest = list_inbox(InboxArgs(order="oldest"), ctx)["issues"]
    assert urgent[0] == 6  # severity:S1 first, though #7 and #8 were opened after it
    assert [item["id"] for item in newest] == [8, 7, 6] == [item["id"] for item in reversed(oldest)]
    assert newest == lines(invoke("inbox", "--json", "--order", "newest", env=env))
    untriaged = list_inbox(InboxArgs(only="untriaged", order="newest", limit=1), ctx)
    assert [item["id"] for item in untriaged["issues"]] == [7] and untriaged["total"] == 1
    refused = invoke("inbox", "--order", "latest", env=env)
    assert refused.code != 0 and "is not one of urgent, newest, oldest" in refused.stderr


def test_the_inbox_narrowed_to_a_topic_and_a_first_day_keeps_its_order(tmp_path: Path) -> None:
    from atlas.orbit.issues import SearchArgs, search_issues

    env = atlas_env(tmp_path)
    whole = lines(invoke("inbox", "--json", env=env))
    ctx = ToolContext(data=bundled_data_dir(), home=tmp_path)
    hits = search_issues(SearchArgs(query="lease", state="open", limit=20), ctx)["hits"]
    assert 0 < len(hits) < 20  # every open issue that mentions it
    about = {hit["id"] for hit in hits}
    expected = [item for item in whole if item["id"] in about]
    assert expected and len(expected) < len(whole)
    assert lines(invoke("inbox", "--json", "--about", "lease", env=env)) == expected
    narrowed = list_inbox(InboxArgs(about="lease", limit=50), ctx)
    assert [item["id"] for item in narrowed["issues"]] == [item["id"] for item in expected]
    since = sorted(hit["created_at"][:10] for hit in hits if hit["id"] in about)[len(about) // 2]
    later = {hit["id"] for hit in hits if hit["created_at"][:10] >= since}
    recent = lines(invoke("inbox", "--json", "--about", "lease", "--since", since, env=env))
    assert [item["id"] for item in recent] == [item["id"] for item in expected if item["id"] in later]
    assert 0 < len(recent) < len(expected)


def test_a_day_the_inbox_cannot_read_is_a_usage_error(tmp_path: Path) -> None:
    done = invoke("inbox", "--since", "last tuesday", env=atlas_env(tmp_path))
    assert done.code == 2 and "a day is written 2025-01-31" in done.stderr and "Traceback" not in done.stderr


def test_words_the_inbox_is_narrowed_to_are_said_short(tmp_path: Path) -> None:
    done = invoke("inbox", "--about", "zzz " * 500, env=atlas_env(tmp_path))
    assert done.code == 0 and "no open issue about zzz" in done.stdout and len(done.stdout) < 200


def test_the_inbox_narrowed_to_a_label_counts_atlas_own_label_writes(tmp_path: Path) -> None:
    env = atlas_env(tmp_path)
    whole = lines(invoke("inbox", "--json", env=env))
    questions = [item for item in whole if "type:question" in item["labels"]]
    assert questions and len(questions) < len(whole)
    assert lines(invoke("inbox", "--json", "--label", "type:question", env=env)) == questions
    ctx = ToolContext(data=bundled_data_dir(), home=tmp_path)
    narrowed = list_inbox(InboxArgs(label="type:question", limit=50), ctx)
    assert [item["id"] for item in narrowed["issues"]] == [item["id"] for item in questions]
    other = next(item for item in whole if "type:question" not in item["labels"])
    add_label(AddLabelArgs(issue_id=other["id"], label="type:question"), ctx)  # as an approved write makes it
    after = [item["id"] for item in lines(invoke("inbox", "--json", "--label", "type:question", env=env))]
    assert other["id"] in after and len(after) == len(questions) + 1


def test_a_label_no_issue_has_is_one_line_that_names_the_nearest(tmp_path: Path) -> None:
    done = invoke("inbox", "--label", "questions", env=atlas_env(tmp_path))
    assert done.code != 0 and "Traceback" not in done.stderr
    assert "No issue has the label 'questions'; did you mean 'type:question'?" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
