"""One process writing to the tracker journal as a rule-approved tool would, started by tests that race
several of them: `python -m tests.support.journal_writer HOME ACTION ISSUE KEY SESSION LIMITS [LABEL]`.
With `ATLAS_TRACKER=github:OWNER/REPO` (and `ORBIT_DATA` its synced dataset) the write goes to GitHub.

It opens the journal, says `ready`, waits for a line on its standard input (the starting shot every
process gets at once), writes, and prints the tracker's answer (or the refusal) as one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from atlas.foundation.errors import ToolError
from atlas.tools.registry import ToolContext, WriteLimits
from atlas.tracker.journal import IssueBrief, MockTracker


def main() -> None:
    home, action, issue, key, session, limits = sys.argv[1:7]
    label = sys.argv[7] if len(sys.argv) > 7 else "type:bug"
    setting = os.environ.get("ATLAS_TRACKER", "")
    if setting.startswith("github:"):
        # The HTTP client only where the write goes to GitHub, as an `atlas` process loads it.
        from atlas.tracker.github import open_github_tracker

        tracker: MockTracker = open_github_tracker(setting, ToolContext(home=Path(home), session=session))
    else:
        tracker = MockTracker(Path(home))
    tracker.decided_by = "rule:thanks"
    tracker.limits = WriteLimits(**json.loads(limits))
    brief = IssueBrief(int(issue), "an issue", [])
    tracker.records()  # the journal is open (a database connected) before the race starts
    print("ready", flush=True)
    sys.stdin.readline()
    try:
        if action == "post_comment":
            result = tracker.post_comment(brief, "Thanks for the report!", key=key, session=session)
        else:
            result = tracker.add_label(brief, label, key=key, session=session)
    except ToolError as exc:
        result = {"refused": str(exc), "kind": type(exc).__name__}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
