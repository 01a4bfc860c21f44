"""`atlas tracker` filters, one time format across `tracker --json` and `log --json`, and questions in `atlas log`."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from tests.support.run import atlas_env, invoke, write_script

OLD = {"ts": "2020-01-01T00:00:00.000+00:00", "key": "k0", "action": "add_label", "issue_id": 41, "label": "type:bug"}


def seeded(tmp_path: Path) -> dict[str, str]:
    """Three approved-looking actions written through a replay run, and one old record."""
    env = atlas_env(tmp_path / "home")
    home = Path(env["ATLAS_HOME"])
    home.mkdir(parents=True)
    (home / "tracker_actions.jsonl").write_text(json.dumps({**OLD, "session": "old"}) + "\n", encoding="utf-8")
    for n, (issue, label) in enumerate([(41, "severity:S2"), (87, "comp:api"), (41, "comp:api")]):
        record = {"ts": datetime.now().astimezone().isoformat(), "key": f"k{n + 1}", "action": "add_label"}
        with (home / "tracker_actions.jsonl").open("a", encoding="utf-8") as file:
            file.write(json.dumps({**record, "issue_id": issue, "label": label, "session": "s"}) + "\n")
    return env


def lines(env: dict[str, str], *args: str) -> list[dict[str, object]]:
    shown = invoke("tracker", "--json", *args, env=env)
    assert shown.code == 0, shown.stderr
    return [json.loads(line) for line in shown.stdout.splitlines()]


def test_tracker_filters_by_count_time_and_issue(tmp_path: Path) -> None:
    env = seeded(tmp_path)
    assert [r["label"] for r in lines(env)] == ["type:bug", "severity:S2", "comp:api", "comp:api"]
    assert [r["label"] for r in lines(env, "-n", "2")] == ["comp:api", "comp:api"]
    assert [r["key"] for r in lines(env, "--since", "1h")] == ["k1", "k2", "k3"]
    assert [r["key"] for r in lines(env, "--issue", "41")] == ["k0", "k1", "k3"]
    assert [r["key"] for r in lines(env, "--issue", "41", "-n", "1", "--since", "2d")] == ["k3"]
    table = invoke("tracker", "--issue", "87", env=env)
    assert "#87" in table.stdout and "#41" not in table.stdout
    assert "No tracker actions match." in invoke("tracker", "--issue", "5", env=env).stdout
    bad = invoke("tracker", "--since", "soon", env=env)
    assert bad.code == 2 and "'soon' is not a duration" in bad.stderr


def test_tracker_and_log_times_share_one_format(tmp_path: Path) -> None:
    env = seeded(tmp_path)
    model = write_script(tmp_path, [{"calls": [{"name": "get_issue", "arguments": {"issue_id": 41}}]}, {"text": "ok"}])
    asked = invoke("ask", "-m", model, "what is the nightly rebuild bug?", env=env)
    assert asked.returncode == 0, asked.stderr
    logged = [json.loads(line) for line in invoke("log", "--json", env=env).stdout.splitlines()]
    tracked = lines(env)
    for ts in [logged[0]["ts"], *(r["ts"] for r in tracked)]:
        assert isinstance(ts, str) and len(ts) == len("2026-01-01T00:00:00.000+00:00") and ts.endswith("+00:00")
        assert datetime.fromisoformat(ts).tzinfo is not None
    assert tracked[0]["ts"] == OLD["ts"]
    assert logged[0]["question"] == "what is the nightly rebuild bug?"
    table = invoke("log", env=env).stdout
    assert "question" in table and "what is the nightly rebuild bug?" in table
