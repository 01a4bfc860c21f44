"""The shared state on PostgreSQL: one database a team's Atlas processes and its CI share.

`database.py` opens it (a psycopg pool; a one-line error when it cannot be reached, never a fall-back
to local files), `migrations.py` keeps its tables, `journal.py` is the tracker journal, `records.py`
the applied plans, inbox marks and call log, `push.py` copies a local state folder in.
Imported only when `ATLAS_STATE_URL` or `[state] url` is set.
"""
