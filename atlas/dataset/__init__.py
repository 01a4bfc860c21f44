"""A dataset folder on disk: its issues JSONL, the SQLite db built from it, and where its data came from.

`ensure.py` finds a fresh `orbit.db` (building one only when needed; `python -m atlas.dataset` rebuilds
the committed one), `build.py` builds it, `records.py` reads the JSONL as a stream of checked records,
`read.py` opens the db read-only, and `source.py` reads and checks a folder's `atlas-source.json`.
"""
