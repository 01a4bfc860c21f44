"""The tracker: where Atlas's only side effects (labels, comments) go.

`journal.py` is the action journal in `$ATLAS_HOME/tracker_actions.jsonl` and `open_tracker`, the
backend seam; `project.py` checks labels against an imported project's dataset; `github.py`
writes to GitHub first (`ATLAS_TRACKER=github:OWNER/REPO`) and journals what GitHub confirmed.
"""
